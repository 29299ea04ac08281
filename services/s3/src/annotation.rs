//! Object annotations: named UTF-8 payloads attached to an object version without changing it.
//!
//! Each annotation is two records under the same key — bucket, zero byte, object key, zero
//! byte, the version's label (its id, or `null`), zero byte, annotation name — so a version's
//! annotations scan in name order: its [`AnnotationRecord`] in `annotations` (small, what
//! ListObjectAnnotations reads) and its payload, at most 1 MiB, inline in
//! `annotation_payloads`. They are not versioned: a put replaces, a delete is permanent, and
//! they leave in the transaction that removes their version ([`delete_all`], called wherever
//! `versioning` removes one).
//!
//! The rules are the S3 user guide's ("Annotating objects", "Managing annotations") and the
//! 2026-08 model's: names of 1 to 512 bytes of letters, digits, `_`, `.` and `-`, not starting
//! with `aws` or `s3` in any case; payloads of 1 byte to 1 MiB of UTF-8; 1,000 a version.

use serde::{Deserialize, Serialize};
use stratus_core::{AwsError, DateTime};
use stratus_storage::{Direction, KeyRange, Read, Table, Tx};

use crate::checksum::Checksum;
use crate::error::S3Error;
use crate::versioning;

const ANNOTATIONS: Table<AnnotationRecord> = Table::new("annotations");
/// Each annotation's payload, as sent, under its record's key.
const PAYLOADS: &str = "annotation_payloads";
/// The most annotations one object version may have, and one listing page.
pub(crate) const MAX_PER_VERSION: usize = 1000;
const MAX_NAME_BYTES: usize = 512;
pub(crate) const MAX_PAYLOAD: usize = 1 << 20;

/// An annotation as stored, without its payload.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct AnnotationRecord {
    pub name: String,
    pub size: u64,
    /// The payload's MD5 in hex, quoted.
    pub etag: String,
    pub checksum: Checksum,
    /// Milliseconds since the epoch.
    pub last_modified_ms: i64,
}

impl AnnotationRecord {
    pub(crate) fn last_modified(&self) -> DateTime {
        // S3 reports modification times to the second.
        DateTime::from_secs(self.last_modified_ms.div_euclid(1000))
    }
}

/// The object version whose annotations these are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionRef {
    pub bucket: String,
    pub key: String,
    /// The version id, or `null`.
    pub label: String,
}

impl VersionRef {
    /// The prefix every annotation of this version is stored under.
    fn prefix(&self) -> Vec<u8> {
        let mut k = versioning::key_prefix(&self.bucket, &self.key);
        k.extend_from_slice(self.label.as_bytes());
        k.push(0);
        k
    }

    fn record_key(&self, name: &str) -> Vec<u8> {
        let mut k = self.prefix();
        k.extend_from_slice(name.as_bytes());
        k
    }
}

pub(crate) fn no_such_annotation() -> AwsError {
    AwsError::new(
        "NoSuchAnnotation",
        "The specified annotation does not exist on this object.",
        404,
    )
}

/// Refuses a name S3 would not store: `AnnotationNameTooLong` over 512 bytes, else
/// `InvalidAnnotationName`.
pub(crate) fn check_name(name: &str) -> Result<(), AwsError> {
    if name.len() > MAX_NAME_BYTES {
        return Err(AwsError::new(
            "AnnotationNameTooLong",
            "The annotation name exceeds 512 bytes.",
            400,
        ));
    }
    let lower = name.to_lowercase();
    let reserved = lower.starts_with("aws") || lower.starts_with("s3");
    let allowed = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if name.is_empty() || reserved || !allowed {
        return Err(AwsError::new(
            "InvalidAnnotationName",
            "The annotation name you provided is invalid.",
            400,
        ));
    }
    Ok(())
}

/// Refuses a payload S3 would not store: empty or over 1 MiB, or not UTF-8 (`415`).
pub(crate) fn check_payload(payload: &[u8]) -> Result<(), AwsError> {
    if payload.is_empty() || payload.len() > MAX_PAYLOAD {
        return Err(payload_out_of_range());
    }
    if std::str::from_utf8(payload).is_err() {
        return Err(AwsError::new(
            "UnsupportedMediaType",
            "The annotation payload is not valid UTF-8 encoded text.",
            415,
        ));
    }
    Ok(())
}

/// A payload empty or over 1 MiB.
pub(crate) fn payload_out_of_range() -> AwsError {
    S3Error::invalid_request("The annotation payload must be between 1 byte and 1 MiB in size.")
}

/// Refuses a prefix no annotation name can start with: one longer than the longest name.
pub(crate) fn check_prefix(prefix: &str) -> Result<(), AwsError> {
    if prefix.len() > MAX_NAME_BYTES {
        return Err(AwsError::new(
            "InvalidPrefix",
            "The annotation prefix you provided is invalid.",
            400,
        ));
    }
    Ok(())
}

/// Stores `record` with `payload` on `version`, replacing an annotation of the same name;
/// refuses a new name beyond the version's 1,000th.
pub(crate) fn put(
    tx: &mut Tx<'_>,
    version: &VersionRef,
    record: &AnnotationRecord,
    payload: Vec<u8>,
) -> Result<(), AwsError> {
    let key = version.record_key(&record.name);
    if ANNOTATIONS.get(tx, &key).map_err(S3Error::storage)?.is_none() {
        let range = KeyRange::prefix(&version.prefix());
        let count = tx
            .scan(ANNOTATIONS.name(), &range, Direction::Forward, Some(MAX_PER_VERSION))
            .map_err(S3Error::storage)?
            .len();
        if count >= MAX_PER_VERSION {
            return Err(AwsError::new(
                "AnnotationLimitExceeded",
                "The request would exceed the maximum number of annotations allowed per object.",
                400,
            ));
        }
    }
    write(tx, key, record, payload)
}

/// Stores one annotation's two records under `key`.
fn write(tx: &mut Tx<'_>, key: Vec<u8>, record: &AnnotationRecord, payload: Vec<u8>) -> Result<(), AwsError> {
    ANNOTATIONS.put(tx, key.clone(), record).map_err(S3Error::storage)?;
    tx.put(PAYLOADS, key, payload);
    Ok(())
}

/// Annotation `name` of `version` and its payload.
pub(crate) fn get(
    r: &(impl Read + ?Sized),
    version: &VersionRef,
    name: &str,
) -> Result<(AnnotationRecord, Vec<u8>), AwsError> {
    let key = version.record_key(name);
    let record = ANNOTATIONS.get(r, &key).map_err(S3Error::storage)?;
    let payload = r.get(PAYLOADS, &key).map_err(S3Error::storage)?;
    match (record, payload) {
        (Some(record), Some(payload)) => Ok((record, payload)),
        _ => Err(no_such_annotation()),
    }
}

/// Deletes annotation `name` of `version`, which must exist.
pub(crate) fn delete(tx: &mut Tx<'_>, version: &VersionRef, name: &str) -> Result<(), AwsError> {
    let key = version.record_key(name);
    if ANNOTATIONS.get(tx, &key).map_err(S3Error::storage)?.is_none() {
        return Err(no_such_annotation());
    }
    ANNOTATIONS.delete(tx, key.clone());
    tx.delete(PAYLOADS, key);
    Ok(())
}

/// Up to `limit` annotations of `version` whose names start with `prefix`, after name
/// `after`, in name order; and whether more follow.
pub(crate) fn list(
    r: &(impl Read + ?Sized),
    version: &VersionRef,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<(Vec<AnnotationRecord>, bool), AwsError> {
    let under = version.record_key(prefix);
    let end = KeyRange::prefix(&under).end().map(<[u8]>::to_vec);
    let start = match after {
        Some(name) if name >= prefix => std::ops::Bound::Excluded(version.record_key(name)),
        _ => std::ops::Bound::Included(under),
    };
    let range = KeyRange::between(start.as_ref().map(Vec::as_slice), end.as_ref().map(Vec::as_slice));
    let mut found: Vec<AnnotationRecord> = ANNOTATIONS
        .scan(r, &range, Direction::Forward, Some(limit + 1))
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(_, record)| record)
        .collect();
    let more = found.len() > limit;
    found.truncate(limit);
    Ok((found, more))
}

/// Every annotation of `version` with its payload, in name order.
pub(crate) fn all(tx: &Tx<'_>, version: &VersionRef) -> Result<Vec<(AnnotationRecord, Vec<u8>)>, AwsError> {
    let records = ANNOTATIONS
        .scan_prefix(tx, version.prefix())
        .map_err(S3Error::storage)?;
    records
        .into_iter()
        .map(|(key, record)| {
            let payload = tx.get(PAYLOADS, &key).map_err(S3Error::storage)?.unwrap_or_default();
            Ok((record, payload))
        })
        .collect()
}

/// Stores `annotations` (from [`all`]) on `version` as they are.
pub(crate) fn put_all(
    tx: &mut Tx<'_>,
    version: &VersionRef,
    annotations: Vec<(AnnotationRecord, Vec<u8>)>,
) -> Result<(), AwsError> {
    for (record, payload) in annotations {
        write(tx, version.record_key(&record.name), &record, payload)?;
    }
    Ok(())
}

/// Deletes every annotation of `version`, which is leaving the store.
pub(crate) fn delete_all(tx: &mut Tx<'_>, version: &VersionRef) -> Result<(), AwsError> {
    let range = KeyRange::prefix(&version.prefix());
    let keys = tx
        .scan(ANNOTATIONS.name(), &range, Direction::Forward, None)
        .map_err(S3Error::storage)?;
    for (key, _) in keys {
        tx.delete(PAYLOADS, key.clone());
        ANNOTATIONS.delete(tx, key);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_name("ml.sentiment").is_ok());
        assert!(check_name("étiquette_1-a").is_ok());
        for bad in ["", "awsThing", "AWS", "S3-notes", "has space", "a/b"] {
            assert_eq!(check_name(bad).unwrap_err().code, "InvalidAnnotationName", "{bad}");
        }
        assert!(check_name(&"a".repeat(512)).is_ok());
        assert_eq!(check_name(&"a".repeat(513)).unwrap_err().code, "AnnotationNameTooLong");
    }

    #[test]
    fn payloads() {
        assert!(check_payload("{\"k\": 1}".as_bytes()).is_ok());
        assert_eq!(check_payload(&[0xff, 0xfe]).unwrap_err().http_status, 415);
        assert_eq!(check_payload(b"").unwrap_err().code, "InvalidRequest");
        assert!(check_payload(&vec![b'a'; 1 << 20]).is_ok());
        assert!(check_payload(&vec![b'a'; (1 << 20) + 1]).is_err());
    }

    #[test]
    fn versions_do_not_share_annotations() {
        let v = |key: &str, label: &str| VersionRef {
            bucket: "b".into(),
            key: key.into(),
            label: label.into(),
        };
        assert!(!v("a", "null").record_key("x").starts_with(&v("a", "nul").prefix()));
        assert!(!v("a", "null").record_key("x").starts_with(&v("a/", "null").prefix()));
        assert!(v("a", "null").record_key("x") < v("a", "null").record_key("y"));
    }
}
