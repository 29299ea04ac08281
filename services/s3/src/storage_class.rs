//! Storage classes as a general-purpose bucket answers them: the classes a write may ask for,
//! STANDARD left unsaid, and the archived classes whose bodies are read only once restored.

use stratus_core::AwsError;
use stratus_gen_s3::StorageClass;

use crate::object::ObjectRecord;

/// Refuses a storage class a general-purpose bucket cannot hold: an unknown one, or
/// `OUTPOSTS` (only S3 on Outposts buckets), naming it as AWS does.
pub(crate) fn check_storage_class(class: Option<&StorageClass>) -> Result<(), AwsError> {
    match class {
        Some(c @ (StorageClass::Unknown(_) | StorageClass::Outposts)) => Err(AwsError::new(
            "InvalidStorageClass",
            "The storage class you specified is not valid",
            400,
        )
        .with_detail("StorageClassRequested", c.as_str())),
        _ => Ok(()),
    }
}

/// The storage class a write keeps: none for `STANDARD`, which AWS's reads leave unsaid.
pub(crate) fn kept_storage_class(class: Option<StorageClass>) -> Option<String> {
    class
        .filter(|c| *c != StorageClass::Standard)
        .map(|c| c.as_str().to_owned())
}

/// The archived class of `record` (GLACIER or DEEP_ARCHIVE), whose body is read only through
/// a copy RestoreObject made.
pub(crate) fn archived(record: &ObjectRecord) -> Option<&str> {
    record
        .storage_class
        .as_deref()
        .filter(|c| matches!(*c, "GLACIER" | "DEEP_ARCHIVE"))
}

/// Whether `record` has a restored copy at `now_ms` (RestoreObject's, until it expires).
pub(crate) fn restored(record: &ObjectRecord, now_ms: i64) -> bool {
    record.restore_expiry_ms.is_some_and(|end| now_ms < end)
}

/// Refuses to read the body of an archived object without a restored copy at `now_ms`:
/// AWS's 403 `InvalidObjectState`.
pub(crate) fn check_readable(record: &ObjectRecord, now_ms: i64) -> Result<(), AwsError> {
    match archived(record) {
        Some(class) if !restored(record, now_ms) => Err(AwsError::new(
            "InvalidObjectState",
            "The operation is not valid for the object's storage class",
            403,
        )
        .with_detail("StorageClass", class)),
        _ => Ok(()),
    }
}
