//! Buckets: AWS's naming rules and the record a bucket is stored as.
//!
//! Bucket names are one namespace across all accounts (as on AWS), so every bucket lives in
//! one store; the record says which account owns it and in which region it was created.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::AwsError;
use stratus_gen_s3::BucketLocationConstraint;

/// A bucket as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct BucketRecord {
    pub name: String,
    pub owner: String,
    pub region: String,
    /// The location constraint the bucket was created with, when it is not its region's name
    /// (`EU`, AWS's old alias of eu-west-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location_constraint: Option<String>,
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

/// The bucket's URL as AWS's answers name it (CompleteMultipartUpload's and POST uploads'
/// `Location`): virtual-hosted on the host the client addressed, as
/// `https://bucket.s3.amazonaws.com` is; path style on a host that cannot carry a bucket name
/// (an IP address); the bare path when the host is not known.
pub(crate) fn url(host: Option<&str>, bucket: &str) -> String {
    let Some(host) = host else {
        return format!("/{bucket}");
    };
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    if host.starts_with(&format!("{bucket}.")) {
        format!("http://{host}")
    } else if name.parse::<std::net::IpAddr>().is_ok() {
        format!("http://{host}/{bucket}")
    } else {
        format!("http://{bucket}.{host}")
    }
}

/// Where CreateBucket puts a bucket, as AWS decides from the location constraint and the
/// region the request was sent to: the region, and the constraint when it is an alias (`EU`).
///
/// Through us-east-1 (the global endpoint) any real region other than us-east-1 itself may be
/// named, and a name that is no region is `InvalidLocationConstraint`. Through any other region
/// the constraint must name that region; anything else, unknown names included, is
/// `IllegalLocationConstraintException`.
pub(crate) fn placement(constraint: Option<&str>, sent_to: &str) -> Result<(String, Option<String>), AwsError> {
    let region_of = |c: &str| match c {
        "EU" => "eu-west-1".to_owned(),
        c => c.to_owned(),
    };
    let known = |c: &str| c != "us-east-1" && BucketLocationConstraint::VALUES.contains(&c);
    let alias = |c: &str| (region_of(c) != c).then(|| c.to_owned());
    let incompatible = |what: &str| {
        AwsError::new(
            "IllegalLocationConstraintException",
            format!("The {what} location constraint is incompatible for the region specific endpoint this request was sent to."),
            400,
        )
    };
    match (constraint.filter(|c| !c.is_empty()), sent_to) {
        (None, "us-east-1") => Ok(("us-east-1".to_owned(), None)),
        (Some(c), "us-east-1") if !known(c) => Err(AwsError::new(
            "InvalidLocationConstraint",
            "The specified location-constraint is not valid",
            400,
        )
        .with_detail("LocationConstraint", c)),
        (Some(c), "us-east-1") => Ok((region_of(c), alias(c))),
        (None, _) => Err(incompatible("unspecified")),
        (Some(c), region) if known(c) && region_of(c) == region => Ok((region_of(c), alias(c))),
        (Some(c), _) => Err(incompatible(c)),
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

    #[test]
    fn urls_are_virtual_hosted_where_the_host_allows() {
        assert_eq!(
            url(Some("s3.localhost.localstack.cloud:4566"), "b"),
            "http://b.s3.localhost.localstack.cloud:4566"
        );
        assert_eq!(url(Some("b.s3.localhost:4566"), "b"), "http://b.s3.localhost:4566");
        assert_eq!(url(Some("127.0.0.1:4566"), "b"), "http://127.0.0.1:4566/b");
        assert_eq!(url(None, "b"), "/b");
    }

    fn placed(constraint: Option<&str>, sent_to: &str) -> Result<(String, Option<String>), String> {
        placement(constraint, sent_to).map_err(|e| e.code)
    }

    #[test]
    fn placement_through_us_east_1_accepts_any_other_region() {
        assert_eq!(placed(None, "us-east-1"), Ok(("us-east-1".into(), None)));
        assert_eq!(placed(Some("us-west-2"), "us-east-1"), Ok(("us-west-2".into(), None)));
        assert_eq!(
            placed(Some("EU"), "us-east-1"),
            Ok(("eu-west-1".into(), Some("EU".into())))
        );
        for bad in ["us-east-1", "foo", "aws-global"] {
            assert_eq!(
                placed(Some(bad), "us-east-1"),
                Err("InvalidLocationConstraint".into()),
                "{bad}"
            );
        }
    }

    #[test]
    fn placement_through_other_regions_needs_their_own_name() {
        assert_eq!(placed(Some("eu-west-1"), "eu-west-1"), Ok(("eu-west-1".into(), None)));
        assert_eq!(
            placed(Some("EU"), "eu-west-1"),
            Ok(("eu-west-1".into(), Some("EU".into())))
        );
        for bad in [
            None,
            Some(""),
            Some("us-east-1"),
            Some("bar"),
            Some("aws-global"),
            Some("EU"),
            Some("us-west-1"),
        ] {
            let sent_to = if bad == Some("EU") { "us-east-2" } else { "eu-west-1" };
            assert_eq!(
                placed(bad, sent_to),
                Err("IllegalLocationConstraintException".into()),
                "{bad:?}"
            );
        }
    }

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
