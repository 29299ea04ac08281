//! The `buckets` and `objects` tables, their keys, and the lookups every operation makes over
//! a store or inside a transaction alike. The other tables are beside the code that owns
//! their layout: `versions` in [`crate::versioning`], `annotations` in [`crate::annotation`],
//! `uploads` and `parts` in [`crate::multipart`], `configs` in [`crate::config`].
//!
//! Keys are the `\0`-joined layout S3 had before the storage kit's tuple keys, kept so that a
//! data directory written by an older build still reads.

use stratus_core::AwsError;
use stratus_storage::{Read, Table, Tx};

use crate::bucket::BucketRecord;
use crate::error::S3Error;
use crate::object::ObjectRecord;

/// Buckets by name.
pub(crate) const BUCKETS: Table<BucketRecord> = Table::new("buckets");
/// Each key's current version, by [`object_key`].
pub(crate) const OBJECTS: Table<ObjectRecord> = Table::new("objects");

/// Bucket name, a zero byte and `name`: so a bucket's names scan in S3's (UTF-8 byte) order.
pub(crate) fn object_key(bucket: &str, name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(bucket.len() + 1 + name.len());
    k.extend_from_slice(bucket.as_bytes());
    k.push(0);
    k.extend_from_slice(name.as_bytes());
    k
}

/// Bucket `name`, or `NoSuchBucket`.
pub(crate) fn bucket(r: &(impl Read + ?Sized), name: &str) -> Result<BucketRecord, AwsError> {
    BUCKETS
        .get(r, name)
        .map_err(S3Error::storage)?
        .ok_or_else(|| S3Error::no_such_bucket(name))
}

/// Stores `bucket`, replacing its record.
pub(crate) fn save_bucket(tx: &mut Tx<'_>, bucket: &BucketRecord) -> Result<(), AwsError> {
    BUCKETS
        .put(tx, bucket.name.as_bytes(), bucket)
        .map_err(S3Error::storage)
}

/// The current version of `key` in `bucket`, if it has one that is not a delete marker.
pub(crate) fn current(r: &(impl Read + ?Sized), bucket: &str, key: &str) -> Result<Option<ObjectRecord>, AwsError> {
    OBJECTS.get(r, object_key(bucket, key)).map_err(S3Error::storage)
}
