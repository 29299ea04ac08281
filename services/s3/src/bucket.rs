//! Buckets: AWS's naming rules and the record a bucket is stored as.
//!
//! Bucket names are one namespace across all accounts (as on AWS), so every bucket lives in
//! one store; the record says which account owns it and in which region it was created.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;

/// A bucket as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct BucketRecord {
    pub name: String,
    pub owner: String,
    pub region: String,
    /// Seconds since the epoch.
    pub created: i64,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// `Enabled` or `Suspended` once versioning has been configured; never unset again.
    #[serde(default)]
    pub versioning: Option<String>,
    /// `Enabled` or `Disabled` once a versioning configuration has named it.
    #[serde(default)]
    pub mfa_delete: Option<String>,
    /// Whether the bucket was created with Object Lock (which keeps versioning enabled).
    #[serde(default)]
    pub object_lock: bool,
}

impl BucketRecord {
    pub(crate) fn arn(&self) -> String {
        Arn::global("s3", &self.region, "", &self.name).to_string()
    }
}

/// AWS's general-purpose bucket naming rules: 3 to 63 lowercase letters, digits, dots and
/// hyphens, beginning and ending with a letter or digit, no two adjacent dots, not shaped
/// like an IP address, and none of the reserved prefixes and suffixes.
pub(crate) fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let alphabet = bytes
        .iter()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'.' || *b == b'-');
    let ends = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let ip_like = name.split('.').count() == 4 && name.split('.').all(|p| p.parse::<u8>().is_ok());
    (3..=63).contains(&bytes.len())
        && alphabet
        && ends(bytes.first())
        && ends(bytes.last())
        && !name.contains("..")
        && !name.contains(".-")
        && !name.contains("-.")
        && !ip_like
        && !["xn--", "sthree-", "amzn-s3-demo-"].iter().any(|p| name.starts_with(p))
        && !["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"]
            .iter()
            .any(|s| name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Rules from the S3 user guide's "General purpose bucket naming rules".
    #[test]
    fn naming_rules() {
        for good in ["abc", "my-bucket.example", "a1b2c3", &"a".repeat(63)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "ab",
            &"a".repeat(64),
            "My-Bucket",
            "-abc",
            "abc-",
            "a..b",
            "a.-b",
            "192.168.5.4",
            "xn--abc",
            "abc-s3alias",
            "abc--ol-s3",
            "a_b",
            "sthree-abc",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
