//! Object names as Firehose writes them ("Configure Amazon S3 object name format"):
//! `<evaluated prefix><stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid><extension>`, and the
//! ids a delivery needs (each object's uuid, `random-string` values, the HTTP request id).
//!
//! The ids are derived from the batch's own id rather than drawn anew, so a delivery repeated
//! after a crash (the objects written, the batch not yet marked delivered) writes the same
//! keys again instead of second copies — as close to once as S3's puts allow.

use md5::{Digest, Md5};

use crate::prefix::format_time;

/// An object's key.
pub(crate) fn object_key(prefix: &str, stream: &str, version: u64, at_ms: i64, uuid: &str, extension: &str) -> String {
    let time = format_time("yyyy-MM-dd-HH-mm-ss", at_ms);
    format!("{prefix}{stream}-{version}-{time}-{uuid}{extension}")
}

/// A uuid (version 4 in form) derived from `batch` and what it is for (`purpose`).
pub(crate) fn derived_uuid(batch: &str, purpose: &str) -> String {
    let mut bytes: [u8; 16] = digest(batch, purpose);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = stratus_core::hex::encode(&bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The 11 characters `!{firehose:random-string}` evaluates to: the start of a derived uuid,
/// as the guide's example (`046b6c7f-0b`) is the start of a random one.
pub(crate) fn random_string(batch: &str, purpose: &str) -> String {
    derived_uuid(batch, purpose)[..11].to_owned()
}

fn digest(batch: &str, purpose: &str) -> [u8; 16] {
    let mut md5 = Md5::new();
    md5.update(batch.as_bytes());
    md5.update([0]);
    md5.update(purpose.as_bytes());
    md5.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_documented_format() {
        // 2024-01-25T10:54:39Z.
        let key = object_key(
            "logs/",
            "orders",
            3,
            1_706_180_079_000,
            "0b0e4b3c-8f7e-4a1a-9c1d-2b3c4d5e6f70",
            ".gz",
        );
        assert_eq!(
            key,
            "logs/orders-3-2024-01-25-10-54-39-0b0e4b3c-8f7e-4a1a-9c1d-2b3c4d5e6f70.gz"
        );
    }

    #[test]
    fn derived_ids_repeat_for_a_batch_and_differ_between_purposes() {
        let a = derived_uuid("batch-1", "object");
        assert_eq!(a, derived_uuid("batch-1", "object"));
        assert_ne!(a, derived_uuid("batch-1", "errors"));
        assert_ne!(a, derived_uuid("batch-2", "object"));
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12]);
        assert_eq!(&a[14..15], "4");
        assert!("89ab".contains(&a[19..20]));
        assert_eq!(random_string("batch-1", "r0").len(), 11);
    }
}
