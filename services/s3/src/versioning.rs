//! Versioning: version records, delete markers, the null version and ListObjectVersions.
//!
//! A bucket that has never had versioning configured keeps each object only in `objects` (by
//! bucket, zero byte, key), as before: nothing here costs it anything. The first
//! PutBucketVersioning copies its objects into `versions` as null versions, and from then on
//! every version of a key lives in `versions` under bucket, zero byte, key, zero byte and the
//! big-endian complement of the version's sequence number, so a key's versions scan newest
//! first and the whole table scans in ListObjectVersions' order (key, then newest first).
//! `objects` keeps a copy of each key's latest version unless that is a delete marker, so
//! GET, HEAD and the ListObjects family read one record as in an unversioned bucket.
//!
//! A version's blob is shared by its `versions` record and the `objects` copy; it is deleted
//! only when the version leaves `versions` (a permanent delete, or the null version replaced
//! while versioning is suspended). Its annotations ([`annotation`]) are keyed by its version
//! label, so they survive versioning's start (the objects become null versions) and leave in
//! the transaction that removes the version — the null version of an unversioned key too,
//! when a write replaces it.

use std::ops::Bound;

use stratus_core::{id, AwsError};
use stratus_storage::{Direction, KeyRange, Read, Table, Tx};

use crate::annotation::{self, VersionRef};
use crate::bucket::BucketRecord;
use crate::error::S3Error;
use crate::listing::Scan;
use crate::object::ObjectRecord;
use crate::store::{self, object_key, OBJECTS};

/// Every version of a versioned bucket's keys, by [`version_key`].
pub(crate) const VERSIONS: Table<ObjectRecord> = Table::new("versions");

/// A bucket's versioning state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Unversioned,
    Enabled,
    Suspended,
}

impl BucketRecord {
    pub(crate) fn state(&self) -> State {
        match self.versioning.as_deref() {
            None => State::Unversioned,
            Some("Enabled") => State::Enabled,
            Some(_) => State::Suspended,
        }
    }
}

/// The prefix of every version of `key`.
pub(crate) fn key_prefix(bucket: &str, key: &str) -> Vec<u8> {
    let mut k = object_key(bucket, key);
    k.push(0);
    k
}

/// Where version `seq` of `key` is stored: newer versions sort first.
pub(crate) fn version_key(bucket: &str, key: &str, seq: u64) -> Vec<u8> {
    let mut k = key_prefix(bucket, key);
    k.extend_from_slice(&(u64::MAX - seq).to_be_bytes());
    k
}

/// A fresh version id: 32 URL-safe characters, like AWS's.
pub(crate) fn new_id() -> String {
    id::uuid().replace('-', "")
}

/// Refuses a version id that cannot name a version: AWS's `InvalidArgument`.
pub(crate) fn check_id(version_id: &str) -> Result<(), AwsError> {
    if version_id.is_empty() {
        return Err(S3Error::invalid_argument("Version id cannot be the empty string"));
    }
    if !well_formed(version_id) {
        return Err(S3Error::invalid_argument("Invalid version id specified"));
    }
    Ok(())
}

/// Whether `version_id` is `null` or shaped like the ids Stratus mints.
pub(crate) fn well_formed(version_id: &str) -> bool {
    version_id == "null"
        || (version_id.len() == 32
            && version_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_'))
}

/// The versions of `key`, newest first, at most `limit`.
pub(crate) fn versions_of(
    r: &(impl Read + ?Sized),
    bucket: &str,
    key: &str,
    limit: Option<usize>,
) -> Result<Vec<ObjectRecord>, AwsError> {
    Ok(VERSIONS
        .scan(
            r,
            &KeyRange::prefix(&key_prefix(bucket, key)),
            Direction::Forward,
            limit,
        )
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(_, version)| version)
        .collect())
}

/// Every version of `key`, newest first, whatever the bucket's state: an unversioned bucket's
/// object is its key's only version.
pub(crate) fn all_versions(
    r: &(impl Read + ?Sized),
    bucket: &BucketRecord,
    key: &str,
) -> Result<Vec<ObjectRecord>, AwsError> {
    if bucket.state() != State::Unversioned {
        return versions_of(r, &bucket.name, key, None);
    }
    Ok(store::current(r, &bucket.name, key)?.into_iter().collect())
}

/// The version `version_id` (`null` for the null version) of `key`, if there is one.
pub(crate) fn find(
    r: &(impl Read + ?Sized),
    bucket: &BucketRecord,
    key: &str,
    version_id: &str,
) -> Result<Option<ObjectRecord>, AwsError> {
    Ok(all_versions(r, bucket, key)?
        .into_iter()
        .find(|v| v.version_label() == version_id))
}

/// Version `version_id` of `key` as a request names it: `NoSuchVersion` if there is none, and
/// a delete marker `MethodNotAllowed`, as AWS answers requests on an object version.
pub(crate) fn named(
    r: &(impl Read + ?Sized),
    bucket: &BucketRecord,
    key: &str,
    version_id: &str,
) -> Result<ObjectRecord, AwsError> {
    check_id(version_id)?;
    let found = find(r, bucket, key, version_id)?.ok_or_else(S3Error::no_such_version)?;
    if found.delete_marker {
        return Err(S3Error::method_not_allowed(version_id));
    }
    Ok(found)
}

/// The current version of `key` (`NoSuchKey` if there is none) or version `version_id`.
pub(crate) fn current_or_named(
    r: &(impl Read + ?Sized),
    bucket: &BucketRecord,
    key: &str,
    version_id: Option<&str>,
) -> Result<ObjectRecord, AwsError> {
    match version_id {
        Some(id) => named(r, bucket, key, id),
        None => store::current(r, &bucket.name, key)?.ok_or_else(|| S3Error::no_such_key(key)),
    }
}

/// The version whose annotations `record` (a version of `bucket`) names.
pub(crate) fn annotated(bucket: &BucketRecord, record: &ObjectRecord) -> VersionRef {
    VersionRef {
        bucket: bucket.name.clone(),
        key: record.key.clone(),
        label: record.version_label().to_owned(),
    }
}

/// Removes `gone`, a version leaving the store, with its annotations; returns its blob.
fn removed(tx: &mut Tx<'_>, bucket: &BucketRecord, gone: &ObjectRecord) -> Result<Vec<String>, AwsError> {
    if gone.delete_marker {
        return Ok(Vec::new());
    }
    annotation::delete_all(tx, &annotated(bucket, gone))?;
    Ok(vec![gone.blob.clone()])
}

fn save(tx: &mut Tx<'_>, table: Table<ObjectRecord>, key: Vec<u8>, record: &ObjectRecord) -> Result<(), AwsError> {
    table.put(tx, key, record).map_err(S3Error::storage)
}

/// Stores `record` (an object or a delete marker) as the newest version of its key, as the
/// bucket's state says: replacing the object in an unversioned bucket, a new version when
/// versioning is enabled, the null version when suspended. Returns the stored record and the
/// blobs no record names any more.
pub(crate) fn put_version(
    tx: &mut Tx<'_>,
    bucket: &BucketRecord,
    mut record: ObjectRecord,
) -> Result<(ObjectRecord, Vec<String>), AwsError> {
    let current_key = object_key(&bucket.name, &record.key);
    let mut orphans = Vec::new();
    match bucket.state() {
        State::Unversioned => {
            if let Some(previous) = store::current(tx, &bucket.name, &record.key)? {
                orphans.extend(removed(tx, bucket, &previous)?);
            }
            record.version_id = None;
            record.seq = 0;
            if record.delete_marker {
                OBJECTS.delete(tx, current_key);
            } else {
                save(tx, OBJECTS, current_key, &record)?;
            }
            return Ok((record, orphans));
        }
        State::Enabled => {
            let newest = versions_of(tx, &bucket.name, &record.key, Some(1))?;
            record.seq = newest.first().map_or(0, |v| v.seq) + 1;
            record.version_id = Some(new_id());
        }
        State::Suspended => {
            let versions = versions_of(tx, &bucket.name, &record.key, None)?;
            record.seq = versions.first().map_or(0, |v| v.seq) + 1;
            record.version_id = None;
            // A write while suspended replaces the null version.
            if let Some(null) = versions.iter().find(|v| v.version_id.is_none()) {
                VERSIONS.delete(tx, version_key(&bucket.name, &record.key, null.seq));
                orphans.extend(removed(tx, bucket, null)?);
            }
        }
    }
    save(
        tx,
        VERSIONS,
        version_key(&bucket.name, &record.key, record.seq),
        &record,
    )?;
    if record.delete_marker {
        OBJECTS.delete(tx, current_key);
    } else {
        save(tx, OBJECTS, current_key, &record)?;
    }
    Ok((record, orphans))
}

/// What a delete did: whether it created or removed a delete marker, and the version id it
/// names (the new marker's, or the one asked for).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Deleted {
    pub delete_marker: bool,
    pub version_id: Option<String>,
}

/// Deletes `key` without a version id: removes the object of an unversioned bucket, adds a
/// delete marker to a versioned one. Returns what it did and the orphaned blobs.
pub(crate) fn delete_current(
    tx: &mut Tx<'_>,
    bucket: &BucketRecord,
    key: &str,
    now_ms: i64,
) -> Result<(Deleted, Vec<String>), AwsError> {
    let marker = ObjectRecord::marker(key.to_owned(), now_ms);
    let (stored, orphans) = put_version(tx, bucket, marker)?;
    Ok(match bucket.state() {
        State::Unversioned => (Deleted::default(), orphans),
        _ => (
            Deleted {
                delete_marker: true,
                version_id: Some(stored.version_label().to_owned()),
            },
            orphans,
        ),
    })
}

/// Deletes version `version_id` of `key` for good. A version that does not exist is no
/// error: AWS answers with the version id asked for.
pub(crate) fn delete_version(
    tx: &mut Tx<'_>,
    bucket: &BucketRecord,
    key: &str,
    version_id: &str,
) -> Result<(Deleted, Vec<String>), AwsError> {
    let asked = Deleted {
        delete_marker: false,
        version_id: Some(version_id.to_owned()),
    };
    let current_key = object_key(&bucket.name, key);
    if bucket.state() == State::Unversioned {
        if version_id != "null" {
            return Ok((asked, Vec::new()));
        }
        let Some(gone) = store::current(tx, &bucket.name, key)? else {
            return Ok((asked, Vec::new()));
        };
        OBJECTS.delete(tx, current_key);
        let orphans = removed(tx, bucket, &gone)?;
        return Ok((asked, orphans));
    }
    let versions = versions_of(tx, &bucket.name, key, None)?;
    let Some(at) = versions.iter().position(|v| v.version_label() == version_id) else {
        return Ok((asked, Vec::new()));
    };
    let gone = &versions[at];
    VERSIONS.delete(tx, version_key(&bucket.name, key, gone.seq));
    if at == 0 {
        // The next newest version becomes the current one, unless it is a delete marker.
        match versions.get(1) {
            Some(next) if !next.delete_marker => save(tx, OBJECTS, current_key, next)?,
            _ => OBJECTS.delete(tx, current_key),
        }
    }
    let orphans = removed(tx, bucket, gone)?;
    Ok((
        Deleted {
            delete_marker: gone.delete_marker,
            version_id: Some(version_id.to_owned()),
        },
        orphans,
    ))
}

/// Rewrites version `version_id` of `key` (the current version when `None`) with `change`
/// (which may refuse the version as it finds it), keeping the `objects` copy of the current
/// version in step.
pub(crate) fn update(
    tx: &mut Tx<'_>,
    bucket: &BucketRecord,
    key: &str,
    version_id: Option<&str>,
    change: impl FnOnce(&mut ObjectRecord) -> Result<(), AwsError>,
) -> Result<ObjectRecord, AwsError> {
    let current = store::current(tx, &bucket.name, key)?;
    let mut record = match (version_id, &current) {
        (None, Some(current)) => current.clone(),
        // A key whose latest version is a delete marker has nothing to change but the marker,
        // which only DELETE may touch.
        (None, None) => match versions_of(tx, &bucket.name, key, Some(1))?.pop() {
            Some(latest) if latest.delete_marker => return Err(S3Error::delete_marker_not_allowed()),
            _ => return Err(S3Error::no_such_key(key)),
        },
        (Some(id), _) => named(tx, bucket, key, id)?,
    };
    change(&mut record)?;
    if record.seq > 0 {
        save(tx, VERSIONS, version_key(&bucket.name, key, record.seq), &record)?;
    }
    if current.is_some_and(|c| c.seq == record.seq) {
        save(tx, OBJECTS, object_key(&bucket.name, key), &record)?;
    }
    Ok(record)
}

/// Turns on versioning for a bucket that never had it: its objects become null versions.
pub(crate) fn start_versioning(tx: &mut Tx<'_>, bucket: &str) -> Result<(), AwsError> {
    let objects = OBJECTS
        .scan_prefix(tx, object_key(bucket, ""))
        .map_err(S3Error::storage)?;
    for (k, mut record) in objects {
        record.version_id = None;
        record.seq = 1;
        save(tx, VERSIONS, version_key(bucket, &record.key, 1), &record)?;
        save(tx, OBJECTS, k, &record)?;
    }
    Ok(())
}

/// One entry of ListObjectVersions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub record: ObjectRecord,
    pub is_latest: bool,
}

/// The versions of `bucket` under `prefix`, in ListObjectVersions' order, after the key
/// marker (and, for that key, after the version id marker), read as they are consumed.
pub(crate) fn list<'a, R: Read + ?Sized>(
    r: &'a R,
    bucket: &BucketRecord,
    prefix: &str,
    key_marker: Option<&'a str>,
    version_id_marker: Option<&'a str>,
    delimiter: Option<&'a str>,
) -> Versions<'a, R> {
    let under = object_key(&bucket.name, prefix);
    let start = match key_marker {
        Some(m) if m > prefix => object_key(&bucket.name, m),
        _ => under.clone(),
    };
    let end = KeyRange::prefix(&under).end().map(<[u8]>::to_vec);
    let table = match bucket.state() {
        State::Unversioned => OBJECTS,
        _ => VERSIONS,
    };
    Versions {
        scan: Scan::new(r, table, Bound::Included(start), end),
        key_marker,
        version_id_marker,
        // A key marker that is a common prefix (it ends with the delimiter) skips every key
        // under it.
        skip_under: key_marker.filter(|m| delimiter.is_some_and(|d| !d.is_empty() && m.ends_with(d))),
        previous_key: None,
        past_marker: version_id_marker.is_none(),
    }
}

/// ListObjectVersions' entries, from [`list`].
pub(crate) struct Versions<'a, R: Read + ?Sized> {
    scan: Scan<'a, R, ObjectRecord>,
    key_marker: Option<&'a str>,
    version_id_marker: Option<&'a str>,
    skip_under: Option<&'a str>,
    previous_key: Option<String>,
    /// Whether the version id marker has been passed (or there is none to pass).
    past_marker: bool,
}

impl<R: Read + ?Sized> Versions<'_, R> {
    /// The failure that ended the listing early, if one did.
    pub(crate) fn error(self) -> Option<AwsError> {
        self.scan.error
    }
}

impl<R: Read + ?Sized> Iterator for Versions<'_, R> {
    type Item = (String, Listed);

    fn next(&mut self) -> Option<(String, Listed)> {
        loop {
            let record = self.scan.next()?;
            let is_latest = self.previous_key.as_deref() != Some(record.key.as_str());
            if is_latest {
                self.previous_key = Some(record.key.clone());
            }
            if let Some(marker) = self.key_marker {
                if record.key.as_str() < marker || self.skip_under.is_some_and(|p| record.key.starts_with(p)) {
                    continue;
                }
                if record.key == marker {
                    match self.version_id_marker {
                        None => continue,
                        Some(id) if !self.past_marker => {
                            self.past_marker = record.version_label() == id;
                            continue;
                        }
                        Some(_) => {}
                    }
                }
            }
            return Some((record.key.clone(), Listed { record, is_latest }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError, Store};

    fn store() -> std::sync::Arc<dyn Store> {
        Storage::open(StorageConfig::Ephemeral)
            .unwrap()
            .store(&Namespace::global("shared", "s3"), Durability::Strict)
            .unwrap()
    }

    fn bucket(state: Option<&str>) -> BucketRecord {
        BucketRecord {
            name: "b".into(),
            owner: "000000000000".into(),
            region: "us-east-1".into(),
            location_constraint: None,
            created: 0,
            tags: BTreeMap::new(),
            versioning: state.map(str::to_owned),
            mfa_delete: None,
            object_lock: false,
        }
    }

    fn object(key: &str, blob: &str) -> ObjectRecord {
        let mut o = ObjectRecord::marker(key.into(), 0);
        o.delete_marker = false;
        o.blob = blob.into();
        o
    }

    #[derive(Debug)]
    #[allow(dead_code)]
    enum Failed {
        Aws(AwsError),
        Storage(StorageError),
    }

    impl From<StorageError> for Failed {
        fn from(e: StorageError) -> Failed {
            Failed::Storage(e)
        }
    }

    fn run<R>(store: &dyn Store, body: impl FnOnce(&mut Tx<'_>) -> Result<R, AwsError>) -> R {
        store.transact(|tx| body(tx).map_err(Failed::Aws)).unwrap()
    }

    fn put(store: &dyn Store, b: &BucketRecord, key: &str, blob: &str) -> (ObjectRecord, Vec<String>) {
        let b = b.clone();
        run(store, |tx| put_version(tx, &b, object(key, blob)))
    }

    fn labels(
        store: &dyn Store,
        b: &BucketRecord,
        key_marker: Option<&str>,
        id_marker: Option<&str>,
    ) -> Vec<(String, String, bool)> {
        list(store, b, "", key_marker, id_marker, None)
            .map(|(k, l)| {
                let tag = if l.record.delete_marker {
                    "marker".to_owned()
                } else {
                    l.record.blob.clone()
                };
                (k, tag, l.is_latest)
            })
            .collect()
    }

    #[test]
    fn versions_list_by_key_then_newest_first() {
        let s = store();
        let b = bucket(Some("Enabled"));
        put(s.as_ref(), &b, "a", "a1");
        put(s.as_ref(), &b, "b", "b1");
        put(s.as_ref(), &b, "a", "a2");
        put(s.as_ref(), &b, "a/x", "ax1");
        let bc = b.clone();
        let (deleted, orphans) = run(s.as_ref(), |tx| delete_current(tx, &bc, "b", 5));
        assert!(deleted.delete_marker && orphans.is_empty());
        assert_eq!(
            labels(s.as_ref(), &b, None, None),
            vec![
                ("a".into(), "a2".into(), true),
                ("a".into(), "a1".into(), false),
                ("a/x".into(), "ax1".into(), true),
                ("b".into(), "marker".into(), true),
                ("b".into(), "b1".into(), false),
            ]
        );
        // The current copies: `b` is hidden by its marker.
        assert!(store::current(&s, "b", "b").unwrap().is_none());
        assert!(store::current(&s, "b", "a").unwrap().is_some());
    }

    #[test]
    fn paging_with_key_and_version_markers() {
        let s = store();
        let b = bucket(Some("Enabled"));
        let (a1, _) = put(s.as_ref(), &b, "a", "a1");
        let (a2, _) = put(s.as_ref(), &b, "a", "a2");
        put(s.as_ref(), &b, "c", "c1");
        // After a2 (the newest of a): a1, then c.
        let page = labels(s.as_ref(), &b, Some("a"), a2.version_id.as_deref());
        assert_eq!(
            page,
            vec![("a".into(), "a1".into(), false), ("c".into(), "c1".into(), true)]
        );
        let page = labels(s.as_ref(), &b, Some("a"), a1.version_id.as_deref());
        assert_eq!(page, vec![("c".into(), "c1".into(), true)]);
        // A key marker alone skips all of that key's versions.
        assert_eq!(
            labels(s.as_ref(), &b, Some("a"), None),
            vec![("c".into(), "c1".into(), true)]
        );
        assert_eq!(labels(s.as_ref(), &b, Some("b"), None).len(), 1);
    }

    #[test]
    fn pages_roll_versions_up_into_common_prefixes() {
        let s = store();
        let b = bucket(Some("Enabled"));
        for (key, blob) in [("a", "a1"), ("a", "a2"), ("d/x", "x1"), ("d/y", "y1"), ("e", "e1")] {
            put(s.as_ref(), &b, key, blob);
        }
        let entries = list(s.as_ref(), &b, "", None, None, Some("/"));
        // Both versions of a, then d/ once: the page ends on a common prefix.
        let page = crate::listing::page(entries, "", Some("/"), 3);
        assert_eq!(page.contents.len(), 2);
        assert_eq!(page.common_prefixes, vec!["d/".to_owned()]);
        assert!(page.truncated && page.last_is_prefix);
        // Resuming after the prefix skips every key under it.
        let rest: Vec<String> = list(s.as_ref(), &b, "", Some("d/"), None, Some("/"))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(rest, vec!["e".to_owned()]);
        // A page that ends inside a key's versions resumes at the next version.
        let entries = list(s.as_ref(), &b, "", None, None, None);
        let page = crate::listing::page(entries, "", None, 1);
        assert!(page.truncated && !page.last_is_prefix);
        let first = &page.contents[0].record;
        assert_eq!(first.blob, "a2");
        let rest: Vec<_> = list(s.as_ref(), &b, "", Some("a"), first.version_id.as_deref(), None).collect();
        assert_eq!(rest[0].1.record.blob, "a1");
        assert!(!rest[0].1.is_latest);
    }

    #[test]
    fn suspended_writes_replace_the_null_version() {
        let s = store();
        let unversioned = bucket(None);
        put(s.as_ref(), &unversioned, "k", "n0");
        run(s.as_ref(), |tx| start_versioning(tx, "b"));
        let enabled = bucket(Some("Enabled"));
        let (v1, orphans) = put(s.as_ref(), &enabled, "k", "v1");
        assert!(orphans.is_empty());
        assert_eq!(v1.seq, 2);
        let suspended = bucket(Some("Suspended"));
        // The null version from before versioning is replaced (its blob orphaned).
        let (n1, orphans) = put(s.as_ref(), &suspended, "k", "n1");
        assert_eq!(orphans, vec!["n0".to_owned()]);
        assert_eq!(n1.version_label(), "null");
        let (_, orphans) = put(s.as_ref(), &suspended, "k", "n2");
        assert_eq!(orphans, vec!["n1".to_owned()]);
        assert_eq!(
            labels(s.as_ref(), &suspended, None, None),
            vec![("k".into(), "n2".into(), true), ("k".into(), "v1".into(), false)]
        );
        // Deleting the current version makes the next one current again.
        let (deleted, orphans) = run(s.as_ref(), |tx| delete_version(tx, &suspended, "k", "null"));
        assert_eq!(orphans, vec!["n2".to_owned()]);
        assert!(!deleted.delete_marker);
        assert_eq!(store::current(&s, "b", "k").unwrap().unwrap().blob, "v1");
        // A version that does not exist is no error.
        let (deleted, orphans) = run(s.as_ref(), |tx| delete_version(tx, &suspended, "k", &new_id()));
        assert!(orphans.is_empty() && !deleted.delete_marker);
    }

    #[test]
    fn version_ids() {
        assert!(well_formed(&new_id()));
        assert!(well_formed("null"));
        assert_eq!(check_id("").unwrap_err().code, "InvalidArgument");
        assert_eq!(check_id("abc").unwrap_err().message, "Invalid version id specified");
        assert!(version_key("b", "a", 2) < version_key("b", "a", 1));
        assert!(version_key("b", "a", 1) < version_key("b", "a/", 9));
    }
}
