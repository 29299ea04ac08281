//! Amazon S3: buckets, objects, versions and bucket configurations.
//!
//! Bucket names are one namespace for every account, as on AWS, so all of S3 lives in one
//! store (`Namespace::global("shared", "s3")`), written with strict durability. Tables:
//!
//! - `buckets`: [`bucket::BucketRecord`] by bucket name (with its versioning state);
//! - `objects`: [`object::ObjectRecord`] by bucket name, a zero byte and the object key, so a
//!   bucket's keys scan in S3's (UTF-8 byte) order: each key's current version;
//! - `versions`: every version and delete marker of a bucket that has had versioning
//!   configured, newest first per key (see [`versioning`]);
//! - `uploads` and `parts`: multipart uploads in progress (see [`multipart`]);
//! - `configs`: bucket configuration documents (see [`config`]).
//!
//! Bodies are blobs in the same store, each write under a fresh name: the blob is written
//! before the record that names it commits, and a blob no version names any more is deleted
//! after.
//!
//! Operations not implemented answer AWS's `NotImplemented`.

mod bucket;
mod config;
mod error;
mod listing;
mod multipart;
mod object;
mod versioning;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use stratus_core::{hex, id, AwsError, DateTime, RequestContext, Unit};
use stratus_gen_s3::*;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, Store, Tx};

use crate::bucket::BucketRecord;
use crate::config::Change;
use crate::error::S3Error;
use crate::object::{ContentHeaders, ObjectRecord, ReadConditions};
use crate::versioning::{Deleted, State, VERSIONS};

const BUCKETS: &str = "buckets";
const OBJECTS: &str = "objects";
/// The most keys one listing page or DeleteObjects request may carry.
const MAX_KEYS: usize = 1000;

/// The S3 service, backed by `storage`.
pub struct S3Service {
    storage: Arc<Storage>,
}

impl S3Service {
    pub fn new(storage: Arc<Storage>) -> S3Service {
        S3Service { storage }
    }

    fn store(&self) -> Result<Arc<dyn Store>, AwsError> {
        self.storage
            .store(&Namespace::global("shared", "s3"), Durability::Strict)
            .map_err(S3Error::storage)
    }

    /// Runs `body` as a strict write transaction on a blocking thread (a commit waits for
    /// fsync).
    async fn write<R, F>(&self, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, AwsError> + Send + 'static,
    {
        let store = self.store()?;
        tokio::task::spawn_blocking(move || {
            store
                .transact(|tx| body(tx).map_err(TxError::Aws))
                .map_err(|e| match e {
                    TxError::Aws(e) => e,
                    TxError::Storage(e) => S3Error::storage(e),
                })
        })
        .await
        .map_err(|e| AwsError::internal(format!("object store task failed: {e}")))?
    }

    /// Runs blocking blob I/O on a blocking thread.
    async fn blocking<R, F>(&self, work: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<R, AwsError> + Send + 'static,
    {
        let store = self.store()?;
        tokio::task::spawn_blocking(move || work(store.as_ref()))
            .await
            .map_err(|e| AwsError::internal(format!("object store task failed: {e}")))?
    }

    fn bucket(&self, name: &str) -> Result<BucketRecord, AwsError> {
        let bytes = self
            .store()?
            .get(BUCKETS, name.as_bytes())
            .map_err(S3Error::storage)?
            .ok_or_else(S3Error::no_such_bucket)?;
        serde_json::from_slice(&bytes).map_err(S3Error::corrupt)
    }

    fn object(&self, bucket: &str, key: &str) -> Result<Option<ObjectRecord>, AwsError> {
        self.bucket(bucket)?;
        match self
            .store()?
            .get(OBJECTS, &object_key(bucket, key))
            .map_err(S3Error::storage)?
        {
            Some(bytes) => Ok(Some(serde_json::from_slice(&bytes).map_err(S3Error::corrupt)?)),
            None => Ok(None),
        }
    }

    /// Object `key` of `bucket`: its current version, or version `version_id` (a delete
    /// marker named by id is `MethodNotAllowed`, as AWS answers GET and HEAD).
    fn object_version(&self, bucket: &str, key: &str, version_id: Option<&str>) -> Result<ObjectRecord, AwsError> {
        let Some(id) = version_id else {
            return self.object(bucket, key)?.ok_or_else(S3Error::no_such_key);
        };
        versioning::check_id(id)?;
        let record = self.bucket(bucket)?;
        let found = versioning::find(self.store()?.as_ref(), &record, key, id)?.ok_or_else(S3Error::no_such_version)?;
        if found.delete_marker {
            return Err(S3Error::method_not_allowed());
        }
        Ok(found)
    }

    /// The source of a copy: the current version, or the version named (a delete marker
    /// named by id is `InvalidRequest`; as the current version it is `NoSuchKey`).
    fn copy_source_object(&self, bucket: &str, key: &str, version_id: Option<&str>) -> Result<ObjectRecord, AwsError> {
        self.object_version(bucket, key, version_id)
            .map_err(|e| match e.code.as_str() {
                "MethodNotAllowed" => S3Error::invalid_request(
                    "The source of a copy request may not specifically refer to a delete marker by version id.",
                ),
                _ => e,
            })
    }

    /// Stores `body` as object `key` of `bucket` with `record`'s other fields, unless
    /// `precondition` refuses the object it would replace. Returns the stored record.
    async fn put(
        &self,
        bucket: String,
        body: Vec<u8>,
        mut record: ObjectRecord,
        precondition: impl FnOnce(Option<&ObjectRecord>) -> Result<(), AwsError> + Send + 'static,
    ) -> Result<ObjectRecord, AwsError> {
        record.blob = format!("obj-{}", id::uuid());
        self.put_body(&record.blob, body).await?;
        self.commit_blob(record.blob.clone(), move |tx| {
            let b = load_bucket(tx, &bucket)?;
            let previous = load_object(tx, &object_key(&bucket, &record.key))?;
            precondition(previous.as_ref())?;
            if let Some(doc) = &record.acl {
                let grants: Vec<Grant> = config::decode(&schema::GRANTS, doc.as_bytes())?;
                config::check_acl_allowed(tx, &b, &grants, &b.owner)?;
            }
            versioning::put_version(tx, &b, record)
        })
        .await
    }

    /// Deletes objects of `bucket`: each key's current version (a delete marker in a
    /// versioned bucket) or the version named. Returns each one's outcome.
    async fn delete(
        &self,
        bucket: String,
        targets: Vec<(String, Option<String>)>,
        mfa: Option<String>,
    ) -> Result<Vec<Result<Deleted, AwsError>>, AwsError> {
        let now = now_ms();
        let (outcomes, blobs) = self
            .write(move |tx| {
                let b = load_bucket(tx, &bucket)?;
                // With MFA delete on, deleting a version for good needs `x-amz-mfa` (its code
                // is not checked).
                if b.mfa_delete.as_deref() == Some("Enabled")
                    && mfa.is_none()
                    && targets.iter().any(|(_, v)| v.is_some())
                {
                    return Err(S3Error::mfa_required());
                }
                let mut outcomes = Vec::with_capacity(targets.len());
                let mut blobs = Vec::new();
                for (key, version_id) in targets {
                    let result = match version_id {
                        None => versioning::delete_current(tx, &b, &key, now),
                        Some(id) => {
                            versioning::check_id(&id).and_then(|()| versioning::delete_version(tx, &b, &key, &id))
                        }
                    };
                    outcomes.push(result.map(|(deleted, orphans)| {
                        blobs.extend(orphans);
                        deleted
                    }));
                }
                Ok((outcomes, blobs))
            })
            .await?;
        self.delete_blobs(blobs).await?;
        Ok(outcomes)
    }

    /// Writes `body` as blob `blob`, before any record names it.
    async fn put_body(&self, blob: &str, body: Vec<u8>) -> Result<(), AwsError> {
        let blob = blob.to_owned();
        self.blocking(move |store| {
            store
                .put_blob(&blob, &mut body.as_slice())
                .map(|_| ())
                .map_err(S3Error::storage)
        })
        .await
    }

    /// Commits `commit`, after which records name `new_blob` (already written) and no longer
    /// name the blobs `commit` returns; deletes those, or `new_blob` if `commit` refused.
    async fn commit_blob<R, F>(&self, new_blob: String, commit: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<(R, Vec<String>), AwsError> + Send + 'static,
    {
        let outcome = self.write(commit).await;
        let orphans = match &outcome {
            Ok((_, orphans)) => orphans.clone(),
            Err(_) => vec![new_blob],
        };
        self.delete_blobs(orphans).await?;
        outcome.map(|(result, _)| result)
    }

    /// Deletes blobs no record names any more.
    async fn delete_blobs(&self, mut blobs: Vec<String>) -> Result<(), AwsError> {
        // Delete markers have no blob.
        blobs.retain(|b| !b.is_empty());
        if blobs.is_empty() {
            return Ok(());
        }
        self.blocking(move |store| {
            for blob in blobs {
                store.delete_blob(&blob).map_err(S3Error::storage)?;
            }
            Ok(())
        })
        .await
    }

    /// The body of `record`, or the bytes `range` of it.
    async fn read_body(&self, record: &ObjectRecord, range: Option<(u64, u64)>) -> Result<Vec<u8>, AwsError> {
        let blob = record.blob.clone();
        self.blocking(move |store| {
            use std::io::{Read, Seek, SeekFrom};
            let mut body = store
                .open_blob(&blob)
                .map_err(S3Error::storage)?
                .ok_or_else(|| AwsError::internal(format!("object body {blob} is missing")))?;
            let read = |body: &mut stratus_storage::Blob| -> std::io::Result<Vec<u8>> {
                let mut out = Vec::new();
                match range {
                    None => {
                        body.read_to_end(&mut out)?;
                    }
                    Some((start, end)) => {
                        body.seek(SeekFrom::Start(start))?;
                        body.take(end - start + 1).read_to_end(&mut out)?;
                    }
                }
                Ok(out)
            };
            read(&mut body).map_err(|e| AwsError::internal(format!("reading object body: {e}")))
        })
        .await
    }

    /// Lists `bucket` under `prefix`, after `after` (a key, or a common prefix whose keys are
    /// all skipped).
    fn list(
        &self,
        bucket: &str,
        prefix: &str,
        delimiter: Option<&str>,
        after: Option<&str>,
        max_keys: usize,
    ) -> Result<listing::Page<ObjectRecord>, AwsError> {
        self.bucket(bucket)?;
        let under = object_key(bucket, prefix);
        let start = match after {
            Some(a) if a >= prefix => Bound::Excluded(object_key(bucket, a)),
            _ => Bound::Included(under.clone()),
        };
        let end = KeyRange::prefix(&under).end().map(<[u8]>::to_vec);
        let skip_under = after.filter(|a| delimiter.is_some_and(|d| !d.is_empty() && a.ends_with(d)));
        let store = self.store()?;
        let mut scan = listing::Scan::new(store.as_ref(), OBJECTS, start, end);
        let mut corrupt = None;
        let entries = scan
            .by_ref()
            .filter_map(|(_, bytes)| match serde_json::from_slice::<ObjectRecord>(&bytes) {
                Ok(o) => Some(o),
                Err(e) => {
                    corrupt.get_or_insert(S3Error::corrupt(e));
                    None
                }
            })
            .filter(|o| after.is_none_or(|a| o.key.as_str() > a && !skip_under.is_some_and(|p| o.key.starts_with(p))))
            .map(|o| (o.key.clone(), o));
        let page = listing::page(entries, prefix, delimiter, max_keys);
        match corrupt.or(scan.error) {
            Some(e) => Err(e),
            None => Ok(page),
        }
    }
}

/// The storage transaction's error: the operation's refusal or a storage failure.
enum TxError {
    Aws(AwsError),
    Storage(stratus_storage::StorageError),
}

impl From<stratus_storage::StorageError> for TxError {
    fn from(e: stratus_storage::StorageError) -> TxError {
        TxError::Storage(e)
    }
}

fn object_key(bucket: &str, key: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(bucket.len() + 1 + key.len());
    k.extend_from_slice(bucket.as_bytes());
    k.push(0);
    k.extend_from_slice(key.as_bytes());
    k
}

fn load_bucket(tx: &Tx<'_>, name: &str) -> Result<BucketRecord, AwsError> {
    let bytes = tx
        .get(BUCKETS, name.as_bytes())
        .map_err(S3Error::storage)?
        .ok_or_else(S3Error::no_such_bucket)?;
    serde_json::from_slice(&bytes).map_err(S3Error::corrupt)
}

fn load_object(tx: &Tx<'_>, key: &[u8]) -> Result<Option<ObjectRecord>, AwsError> {
    match tx.get(OBJECTS, key).map_err(S3Error::storage)? {
        Some(bytes) => Ok(Some(serde_json::from_slice(&bytes).map_err(S3Error::corrupt)?)),
        None => Ok(None),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The canonical user id S3 reports for an account: 64 hex digits.
fn canonical_id(account: &str) -> String {
    format!("{:0>64}", hex::encode(account.as_bytes()))
}

fn owner(account: &str) -> Owner {
    Owner {
        display_name: Some("stratus".into()),
        id: Some(canonical_id(account)),
    }
}

fn to_tags(tags: &BTreeMap<String, String>) -> Vec<Tag> {
    tags.iter()
        .map(|(k, v)| Tag {
            key: k.clone(),
            value: v.clone(),
        })
        .collect()
}

fn from_tags(tag_set: Vec<Tag>, max: usize) -> Result<BTreeMap<String, String>, AwsError> {
    let mut tags = BTreeMap::new();
    for tag in tag_set {
        if tags.insert(tag.key, tag.value).is_some() {
            return Err(S3Error::invalid_tag("Cannot provide multiple Tags with the same key"));
        }
    }
    object::check_tags(&tags, max)?;
    Ok(tags)
}

/// A listing's `max-keys`: at most 1000, 1000 when not given.
fn max_keys(given: Option<i32>) -> Result<usize, AwsError> {
    match given {
        None => Ok(MAX_KEYS),
        Some(n) if n < 0 => Err(S3Error::invalid_argument(
            "Argument maxKeys must be an integer between 0 and 2147483647",
        )),
        Some(n) => Ok((n as usize).min(MAX_KEYS)),
    }
}

/// A key as a listing with `encoding-type=url` sends it: UTF-8 bytes percent-encoded except
/// unreserved characters and `/`, a space as `+` (botocore decodes with `unquote_plus`).
fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// ListObjectsV2's continuation token: the hex of the last key or prefix listed.
fn encode_token(last: &str) -> String {
    hex::encode(last.as_bytes())
}

fn decode_token(token: &str) -> Result<String, AwsError> {
    hex::decode_str(token).ok_or_else(|| S3Error::invalid_argument("The continuation token provided is incorrect"))
}

fn listed(o: &ObjectRecord, owner_account: Option<&str>, url: bool) -> Object {
    Object {
        key: Some(if url { url_encode(&o.key) } else { o.key.clone() }),
        last_modified: Some(o.last_modified()),
        e_tag: Some(o.etag.clone()),
        size: Some(i64::try_from(o.size).unwrap_or(i64::MAX)),
        storage_class: Some(ObjectStorageClass::from_wire(
            o.storage_class.as_deref().unwrap_or("STANDARD"),
        )),
        owner: owner_account.map(owner),
        ..Object::default()
    }
}

/// The source bucket, key and version of a copy: `bucket/key`, URL-encoded, with an
/// optional leading slash and an optional `?versionId=` suffix.
fn copy_source(source: &str) -> Result<(String, String, Option<String>), AwsError> {
    let (path, version_id) = match source.split_once("?versionId=") {
        Some((p, v)) => (p, Some(v.to_owned())),
        None => (source, None),
    };
    let decoded = object::percent_decode(path.trim_start_matches('/'), false)
        .ok_or_else(|| S3Error::invalid_argument("Invalid copy source encoding"))?;
    match decoded.split_once('/') {
        Some((bucket, key)) if !bucket.is_empty() && !key.is_empty() => {
            Ok((bucket.to_owned(), key.to_owned(), version_id))
        }
        _ => Err(S3Error::invalid_argument("Invalid copy source object key")),
    }
}

impl S3 for S3Service {
    async fn create_bucket(
        &self,
        ctx: &RequestContext,
        input: CreateBucketRequest,
    ) -> Result<CreateBucketOutput, CreateBucketError> {
        if !bucket::valid_name(&input.bucket) {
            return Err(S3Error::invalid_bucket_name().into());
        }
        let constraint = input
            .create_bucket_configuration
            .as_ref()
            .and_then(|c| c.location_constraint.as_ref())
            .map(|c| c.as_str().to_owned());
        let invalid_constraint = |c: &str| c == "us-east-1" || !BucketLocationConstraint::VALUES.contains(&c);
        let region = match (constraint.as_deref(), ctx.region.as_str()) {
            (None | Some(""), "us-east-1") => "us-east-1".to_owned(),
            (Some(c), _) if invalid_constraint(c) => {
                return Err(AwsError::new(
                    "InvalidLocationConstraint",
                    "The specified location-constraint is not valid",
                    400,
                )
                .into())
            }
            (Some(c), region) if c == region => c.to_owned(),
            (None | Some(""), _) => {
                return Err(AwsError::new(
                    "IllegalLocationConstraintException",
                    "The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.",
                    400,
                )
                .into())
            }
            (Some(c), _) => {
                return Err(AwsError::new(
                    "IllegalLocationConstraintException",
                    format!("The {c} location constraint is incompatible for the region specific endpoint this request was sent to."),
                    400,
                )
                .into())
            }
        };
        let object_lock = input.object_lock_enabled_for_bucket.unwrap_or(false);
        let tags = match input.create_bucket_configuration.and_then(|c| c.tags) {
            Some(tags) => from_tags(tags, 50)?,
            None => BTreeMap::new(),
        };
        let record = BucketRecord {
            name: input.bucket.clone(),
            owner: ctx.account_id.clone(),
            region,
            created: now_ms() / 1000,
            tags,
            // A bucket with Object Lock is versioned from the start.
            versioning: object_lock.then(|| "Enabled".to_owned()),
            mfa_delete: None,
            object_lock,
        };
        let arn = record.arn();
        let ownership = match input.object_ownership {
            None => None,
            Some(ObjectOwnership::Unknown(_)) => {
                return Err(S3Error::invalid_argument("Invalid x-amz-object-ownership header").into())
            }
            Some(o) => Some(OwnershipControls {
                rules: vec![OwnershipControlsRule { object_ownership: o }],
            }),
        };
        let headers = [
            (Permission::FullControl, input.grant_full_control.as_ref()),
            (Permission::Read, input.grant_read.as_ref()),
            (Permission::ReadAcp, input.grant_read_acp.as_ref()),
            (Permission::Write, input.grant_write.as_ref()),
            (Permission::WriteAcp, input.grant_write_acp.as_ref()),
        ];
        let acl = config::requested_acl(
            input.acl.as_ref().map(BucketCannedACL::as_str),
            &headers,
            None,
            &ctx.account_id,
            &ctx.account_id,
        )?;
        // A bucket that enforces ownership (the default) takes no ACL but the owner's.
        let enforcing = config::enforced(Some(ownership.as_ref().unwrap_or(&config::default_ownership())));
        if enforcing && acl.as_ref().is_some_and(|g| !config::owner_only(g, &ctx.account_id)) {
            return Err(S3Error::invalid_bucket_acl_with_ownership().into());
        }
        self.write(move |tx| {
            if let Some(bytes) = tx.get(BUCKETS, record.name.as_bytes()).map_err(S3Error::storage)? {
                let existing: BucketRecord = serde_json::from_slice(&bytes).map_err(S3Error::corrupt)?;
                // us-east-1 keeps its legacy answer: creating your own bucket again succeeds.
                return match (existing.owner == record.owner, existing.region.as_str()) {
                    (true, "us-east-1") if record.region == "us-east-1" => Ok(()),
                    (true, _) => Err(S3Error::bucket_owned()),
                    (false, _) => Err(S3Error::bucket_exists()),
                };
            }
            tx.put(
                BUCKETS,
                record.name.as_bytes(),
                serde_json::to_vec(&record).map_err(S3Error::corrupt)?,
            );
            // A name used before starts with no configuration of its past life.
            config::remove_all(tx, &record.name)?;
            if let Some(controls) = ownership {
                tx.put(
                    config::CONFIGS,
                    config::config_key(&record.name, config::OWNERSHIP),
                    config::encode(&schema::OWNERSHIP_CONTROLS, controls),
                );
            }
            if let Some(grants) = acl {
                tx.put(
                    config::CONFIGS,
                    config::config_key(&record.name, config::ACL),
                    config::encode(&schema::GRANTS, grants),
                );
            }
            Ok(())
        })
        .await?;
        Ok(CreateBucketOutput {
            location: Some(format!("/{}", input.bucket)),
            bucket_arn: Some(arn),
        })
    }

    async fn head_bucket(
        &self,
        _ctx: &RequestContext,
        input: HeadBucketRequest,
    ) -> Result<HeadBucketOutput, HeadBucketError> {
        let bucket = self.bucket(&input.bucket).map_err(S3Error::head)?;
        Ok(HeadBucketOutput {
            bucket_arn: Some(bucket.arn()),
            bucket_region: Some(bucket.region),
            access_point_alias: Some(false),
            ..HeadBucketOutput::default()
        })
    }

    async fn delete_bucket(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketRequest,
    ) -> Result<Unit, DeleteBucketError> {
        let name = input.bucket;
        self.write(move |tx| {
            load_bucket(tx, &name)?;
            let any = tx
                .scan(
                    OBJECTS,
                    &KeyRange::prefix(&object_key(&name, "")),
                    Direction::Forward,
                    Some(1),
                )
                .map_err(S3Error::storage)?;
            if !any.is_empty() {
                return Err(S3Error::bucket_not_empty());
            }
            let versions = tx
                .scan(
                    VERSIONS,
                    &KeyRange::prefix(&object_key(&name, "")),
                    Direction::Forward,
                    Some(1),
                )
                .map_err(S3Error::storage)?;
            if !versions.is_empty() {
                return Err(AwsError::new(
                    "BucketNotEmpty",
                    "The bucket you tried to delete is not empty. You must delete all versions in the bucket.",
                    409,
                ));
            }
            tx.delete(BUCKETS, name.as_bytes());
            config::remove_all(tx, &name)?;
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn list_buckets(
        &self,
        ctx: &RequestContext,
        input: ListBucketsRequest,
    ) -> Result<ListBucketsOutput, ListBucketsError> {
        let limit = match input.max_buckets {
            None => usize::MAX,
            Some(n @ 1..=10_000) => n as usize,
            Some(_) => {
                return Err(S3Error::invalid_argument("The value of max-buckets must be between 1 and 10000").into())
            }
        };
        let after = input.continuation_token.as_deref().map(decode_token).transpose()?;
        let prefix = input.prefix.clone().unwrap_or_default();
        let mut buckets: Vec<BucketRecord> = Vec::new();
        for (_, bytes) in self
            .store()?
            .scan(BUCKETS, &KeyRange::prefix(prefix.as_bytes()), Direction::Forward, None)
            .map_err(S3Error::storage)?
        {
            let b: BucketRecord = serde_json::from_slice(&bytes).map_err(S3Error::corrupt)?;
            let wanted = b.owner == ctx.account_id
                && after.as_ref().is_none_or(|a| b.name > *a)
                && input.bucket_region.as_ref().is_none_or(|r| *r == b.region);
            if wanted {
                buckets.push(b);
            }
        }
        let more = buckets.len() > limit;
        buckets.truncate(limit);
        Ok(ListBucketsOutput {
            continuation_token: more.then(|| buckets.last().map(|b| encode_token(&b.name))).flatten(),
            buckets: Some(
                buckets
                    .iter()
                    .map(|b| Bucket {
                        name: Some(b.name.clone()),
                        creation_date: Some(DateTime::from_secs(b.created)),
                        bucket_region: Some(b.region.clone()),
                        bucket_arn: Some(b.arn()),
                    })
                    .collect(),
            ),
            owner: Some(owner(&ctx.account_id)),
            prefix: input.prefix,
        })
    }

    async fn get_bucket_location(
        &self,
        _ctx: &RequestContext,
        input: GetBucketLocationRequest,
    ) -> Result<GetBucketLocationOutput, GetBucketLocationError> {
        let bucket = self.bucket(&input.bucket)?;
        // us-east-1 buckets report no location constraint.
        Ok(GetBucketLocationOutput {
            location_constraint: (bucket.region != "us-east-1")
                .then(|| BucketLocationConstraint::from_wire(&bucket.region)),
        })
    }

    async fn put_object(
        &self,
        ctx: &RequestContext,
        input: PutObjectRequest,
    ) -> Result<PutObjectOutput, PutObjectError> {
        check_storage_class(input.storage_class.as_ref())?;
        if let Some(md5) = &input.content_md5 {
            object::check_content_md5(md5, &input.body)?;
        }
        let tags = match &input.tagging {
            Some(header) => object::parse_tagging_header(header)?,
            None => BTreeMap::new(),
        };
        let acl = self.object_acl_headers(
            &input.bucket,
            &ctx.account_id,
            input.acl.as_ref(),
            [
                input.grant_full_control.as_ref(),
                input.grant_read.as_ref(),
                input.grant_read_acp.as_ref(),
                input.grant_write_acp.as_ref(),
            ],
        )?;
        let record = ObjectRecord {
            key: input.key,
            size: input.body.len() as u64,
            etag: object::etag(&input.body),
            last_modified_ms: now_ms(),
            blob: String::new(),
            headers: ContentHeaders {
                content_type: Some(input.content_type.unwrap_or_else(|| "binary/octet-stream".into())),
                cache_control: input.cache_control,
                content_disposition: input.content_disposition,
                content_encoding: input.content_encoding,
                content_language: input.content_language,
                expires: input.expires,
            },
            metadata: input.metadata.unwrap_or_default(),
            tags,
            storage_class: input.storage_class.map(|c| c.as_str().to_owned()),
            version_id: None,
            delete_marker: false,
            seq: 0,
            acl,
        };
        let (if_match, if_none_match) = (input.if_match, input.if_none_match);
        let stored = self
            .put(input.bucket, input.body, record, move |previous| {
                conditional_write(previous, if_match.as_deref(), if_none_match.as_deref())
            })
            .await?;
        Ok(PutObjectOutput {
            version_id: stored.version_header(),
            e_tag: Some(stored.etag),
            ..PutObjectOutput::default()
        })
    }

    async fn get_object(
        &self,
        _ctx: &RequestContext,
        input: GetObjectRequest,
    ) -> Result<GetObjectOutput, GetObjectError> {
        let record = self.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
        ReadConditions {
            if_match: input.if_match.as_deref(),
            if_none_match: input.if_none_match.as_deref(),
            if_modified_since: input.if_modified_since.as_ref(),
            if_unmodified_since: input.if_unmodified_since.as_ref(),
        }
        .check(&record)?;
        let range = object::byte_range(input.range.as_deref(), record.size)?;
        let body = self.read_body(&record, range).await?;
        let headers = &record.headers;
        Ok(GetObjectOutput {
            content_length: Some(body.len() as i64),
            content_range: range.map(|(start, end)| format!("bytes {start}-{end}/{}", record.size)),
            body,
            accept_ranges: Some("bytes".into()),
            last_modified: Some(record.last_modified()),
            e_tag: Some(record.etag.clone()),
            content_type: input.response_content_type.or_else(|| headers.content_type.clone()),
            cache_control: input.response_cache_control.or_else(|| headers.cache_control.clone()),
            content_disposition: input
                .response_content_disposition
                .or_else(|| headers.content_disposition.clone()),
            content_encoding: input
                .response_content_encoding
                .or_else(|| headers.content_encoding.clone()),
            content_language: input
                .response_content_language
                .or_else(|| headers.content_language.clone()),
            expires: headers.expires.clone(),
            metadata: (!record.metadata.is_empty()).then(|| record.metadata.clone()),
            tag_count: (!record.tags.is_empty()).then_some(record.tags.len() as i32),
            storage_class: record.storage_class.clone().map(|c| StorageClass::from_wire(&c)),
            version_id: record.version_header(),
            ..GetObjectOutput::default()
        })
    }

    async fn head_object(
        &self,
        _ctx: &RequestContext,
        input: HeadObjectRequest,
    ) -> Result<HeadObjectOutput, HeadObjectError> {
        let record = self
            .object_version(&input.bucket, &input.key, input.version_id.as_deref())
            .map_err(S3Error::head)?;
        ReadConditions {
            if_match: input.if_match.as_deref(),
            if_none_match: input.if_none_match.as_deref(),
            if_modified_since: input.if_modified_since.as_ref(),
            if_unmodified_since: input.if_unmodified_since.as_ref(),
        }
        .check(&record)?;
        let range = object::byte_range(input.range.as_deref(), record.size)?;
        let headers = record.headers;
        let version_id = (record.seq > 0).then(|| record.version_id.unwrap_or_else(|| "null".into()));
        Ok(HeadObjectOutput {
            version_id,
            content_length: Some(range.map_or(record.size, |(s, e)| e - s + 1) as i64),
            content_range: range.map(|(start, end)| format!("bytes {start}-{end}/{}", record.size)),
            accept_ranges: Some("bytes".into()),
            last_modified: Some(DateTime::from_secs(record.last_modified_ms.div_euclid(1000))),
            e_tag: Some(record.etag),
            content_type: headers.content_type,
            cache_control: headers.cache_control,
            content_disposition: headers.content_disposition,
            content_encoding: headers.content_encoding,
            content_language: headers.content_language,
            expires: headers.expires,
            metadata: (!record.metadata.is_empty()).then_some(record.metadata),
            tag_count: (!record.tags.is_empty()).then_some(record.tags.len() as i32),
            storage_class: record.storage_class.map(|c| StorageClass::from_wire(&c)),
            ..HeadObjectOutput::default()
        })
    }

    async fn delete_object(
        &self,
        _ctx: &RequestContext,
        input: DeleteObjectRequest,
    ) -> Result<DeleteObjectOutput, DeleteObjectError> {
        let mut outcomes = self
            .delete(input.bucket, vec![(input.key, input.version_id)], input.mfa)
            .await?;
        let deleted = outcomes.pop().unwrap_or_else(|| Ok(Deleted::default()))?;
        Ok(DeleteObjectOutput {
            delete_marker: deleted.delete_marker.then_some(true),
            version_id: deleted.version_id,
            ..DeleteObjectOutput::default()
        })
    }

    async fn delete_objects(
        &self,
        _ctx: &RequestContext,
        input: DeleteObjectsRequest,
    ) -> Result<DeleteObjectsOutput, DeleteObjectsError> {
        let objects = input.delete.objects;
        if objects.is_empty() || objects.len() > MAX_KEYS {
            return Err(S3Error::malformed_xml().into());
        }
        let quiet = input.delete.quiet.unwrap_or(false);
        let targets: Vec<(String, Option<String>)> = objects.into_iter().map(|o| (o.key, o.version_id)).collect();
        let outcomes = self.delete(input.bucket, targets.clone(), input.mfa).await?;
        let (mut deleted, mut errors) = (Vec::new(), Vec::new());
        for ((key, asked), outcome) in targets.into_iter().zip(outcomes) {
            match outcome {
                Ok(d) => deleted.push(DeletedObject {
                    key: Some(key),
                    // The version deleted, as asked; a new delete marker is named apart.
                    version_id: asked.clone(),
                    delete_marker: d.delete_marker.then_some(true),
                    delete_marker_version_id: d.version_id.filter(|_| d.delete_marker),
                }),
                // AWS reports a version id it cannot parse as a version that does not exist.
                Err(e) => errors.push(Error {
                    key: Some(key),
                    version_id: asked,
                    code: Some(if e.code == "InvalidArgument" {
                        "NoSuchVersion".into()
                    } else {
                        e.code.clone()
                    }),
                    message: Some(if e.code == "InvalidArgument" {
                        "The specified version does not exist.".into()
                    } else {
                        e.message.clone()
                    }),
                }),
            }
        }
        Ok(DeleteObjectsOutput {
            deleted: (!quiet && !deleted.is_empty()).then_some(deleted),
            errors: (!errors.is_empty()).then_some(errors),
            ..DeleteObjectsOutput::default()
        })
    }

    async fn copy_object(
        &self,
        ctx: &RequestContext,
        input: CopyObjectRequest,
    ) -> Result<CopyObjectOutput, CopyObjectError> {
        check_storage_class(input.storage_class.as_ref())?;
        // A copy has the ACL its request sets (the source's is not copied).
        let acl = self.object_acl_headers(
            &input.bucket,
            &ctx.account_id,
            input.acl.as_ref(),
            [
                input.grant_full_control.as_ref(),
                input.grant_read.as_ref(),
                input.grant_read_acp.as_ref(),
                input.grant_write_acp.as_ref(),
            ],
        )?;
        let (source_bucket, source_key, source_version) = copy_source(&input.copy_source)?;
        let source = self.copy_source_object(&source_bucket, &source_key, source_version.as_deref())?;
        let conditions = ReadConditions {
            if_match: input.copy_source_if_match.as_deref(),
            if_none_match: input.copy_source_if_none_match.as_deref(),
            if_modified_since: input.copy_source_if_modified_since.as_ref(),
            if_unmodified_since: input.copy_source_if_unmodified_since.as_ref(),
        };
        // A copy's failed conditions are all 412s.
        conditions.check(&source).map_err(|_| S3Error::precondition_failed())?;
        let replace = input
            .metadata_directive
            .as_ref()
            .is_some_and(|d| d.as_str() == "REPLACE");
        let replace_tags = input
            .tagging_directive
            .as_ref()
            .is_some_and(|d| d.as_str() == "REPLACE");
        // Copying a named version onto its own key is how a version is restored.
        let same_place = source_bucket == input.bucket && source_key == input.key && source_version.is_none();
        if same_place && !replace && input.storage_class.is_none() && input.website_redirect_location.is_none() {
            return Err(S3Error::invalid_request(
                "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
            )
            .into());
        }
        let (headers, metadata) = if replace {
            (
                ContentHeaders {
                    content_type: Some(input.content_type.unwrap_or_else(|| "binary/octet-stream".into())),
                    cache_control: input.cache_control,
                    content_disposition: input.content_disposition,
                    content_encoding: input.content_encoding,
                    content_language: input.content_language,
                    expires: input.expires,
                },
                input.metadata.unwrap_or_default(),
            )
        } else {
            (source.headers.clone(), source.metadata.clone())
        };
        let tags = match (replace_tags, &input.tagging) {
            (true, Some(header)) => object::parse_tagging_header(header)?,
            (true, None) => BTreeMap::new(),
            (false, _) => source.tags.clone(),
        };
        let body = self.read_body(&source, None).await?;
        let record = ObjectRecord {
            key: input.key,
            size: source.size,
            etag: source.etag.clone(),
            last_modified_ms: now_ms(),
            blob: String::new(),
            headers,
            metadata,
            tags,
            storage_class: input
                .storage_class
                .map(|c| c.as_str().to_owned())
                .or(source.storage_class.clone()),
            version_id: None,
            delete_marker: false,
            seq: 0,
            acl,
        };
        let stored = self.put(input.bucket, body, record, |_| Ok(())).await?;
        Ok(CopyObjectOutput {
            copy_source_version_id: source.version_header(),
            version_id: stored.version_header(),
            copy_object_result: Some(CopyObjectResult {
                e_tag: Some(stored.etag.clone()),
                last_modified: Some(stored.last_modified()),
                ..CopyObjectResult::default()
            }),
            ..CopyObjectOutput::default()
        })
    }

    async fn list_objects(
        &self,
        _ctx: &RequestContext,
        input: ListObjectsRequest,
    ) -> Result<ListObjectsOutput, ListObjectsError> {
        let max = max_keys(input.max_keys)?;
        let prefix = input.prefix.clone().unwrap_or_default();
        let page = self.list(
            &input.bucket,
            &prefix,
            input.delimiter.as_deref(),
            input.marker.as_deref().filter(|m| !m.is_empty()),
            max,
        )?;
        let owner_account = self.bucket(&input.bucket)?.owner;
        let url = input.encoding_type.is_some();
        let enc = |s: &str| if url { url_encode(s) } else { s.to_owned() };
        Ok(ListObjectsOutput {
            is_truncated: Some(page.truncated),
            marker: Some(enc(input.marker.as_deref().unwrap_or_default())),
            // S3 sends NextMarker only when a delimiter was given.
            next_marker: page
                .last
                .as_deref()
                .filter(|_| page.truncated && input.delimiter.is_some())
                .map(enc),
            contents: (!page.contents.is_empty()).then(|| {
                page.contents
                    .iter()
                    .map(|o| listed(o, Some(&owner_account), url))
                    .collect()
            }),
            name: Some(input.bucket),
            prefix: Some(enc(&prefix)),
            delimiter: input.delimiter.as_deref().map(enc),
            max_keys: Some(max as i32),
            common_prefixes: (!page.common_prefixes.is_empty()).then(|| {
                page.common_prefixes
                    .iter()
                    .map(|p| CommonPrefix { prefix: Some(enc(p)) })
                    .collect()
            }),
            encoding_type: input.encoding_type,
            ..ListObjectsOutput::default()
        })
    }

    async fn list_objects_v2(
        &self,
        _ctx: &RequestContext,
        input: ListObjectsV2Request,
    ) -> Result<ListObjectsV2Output, ListObjectsV2Error> {
        let max = max_keys(input.max_keys)?;
        let prefix = input.prefix.clone().unwrap_or_default();
        let after = match input.continuation_token.as_deref() {
            Some(token) => Some(decode_token(token)?),
            None => input.start_after.clone().filter(|s| !s.is_empty()),
        };
        let page = self
            .list(
                &input.bucket,
                &prefix,
                input.delimiter.as_deref(),
                after.as_deref(),
                max,
            )
            .map_err(|e| match e.code.as_str() {
                "NoSuchBucket" => ListObjectsV2Error::NoSuchBucket(NoSuchBucket {}),
                _ => ListObjectsV2Error::Aws(e),
            })?;
        let owner_account = input
            .fetch_owner
            .unwrap_or(false)
            .then(|| self.bucket(&input.bucket).map(|b| b.owner))
            .transpose()?;
        let key_count = page.contents.len() + page.common_prefixes.len();
        let url = input.encoding_type.is_some();
        let enc = |s: &str| if url { url_encode(s) } else { s.to_owned() };
        Ok(ListObjectsV2Output {
            is_truncated: Some(page.truncated),
            next_continuation_token: page.last.as_deref().filter(|_| page.truncated).map(encode_token),
            contents: (!page.contents.is_empty()).then(|| {
                page.contents
                    .iter()
                    .map(|o| listed(o, owner_account.as_deref(), url))
                    .collect()
            }),
            name: Some(input.bucket),
            prefix: Some(enc(&prefix)),
            delimiter: input.delimiter.as_deref().map(enc),
            max_keys: Some(max as i32),
            common_prefixes: (!page.common_prefixes.is_empty()).then(|| {
                page.common_prefixes
                    .iter()
                    .map(|p| CommonPrefix { prefix: Some(enc(p)) })
                    .collect()
            }),
            encoding_type: input.encoding_type,
            key_count: Some(key_count as i32),
            continuation_token: input.continuation_token,
            start_after: input.start_after.as_deref().map(enc),
            ..ListObjectsV2Output::default()
        })
    }

    async fn create_multipart_upload(
        &self,
        ctx: &RequestContext,
        input: CreateMultipartUploadRequest,
    ) -> Result<CreateMultipartUploadOutput, CreateMultipartUploadError> {
        Ok(self.create_upload(ctx.account_id.clone(), input).await?)
    }

    async fn upload_part(
        &self,
        _ctx: &RequestContext,
        input: UploadPartRequest,
    ) -> Result<UploadPartOutput, UploadPartError> {
        if let Some(md5) = &input.content_md5 {
            object::check_content_md5(md5, &input.body)?;
        }
        let part = self
            .store_part(input.bucket, input.key, input.upload_id, input.part_number, input.body)
            .await?;
        Ok(UploadPartOutput {
            e_tag: Some(part.etag),
            ..UploadPartOutput::default()
        })
    }

    async fn upload_part_copy(
        &self,
        _ctx: &RequestContext,
        input: UploadPartCopyRequest,
    ) -> Result<UploadPartCopyOutput, UploadPartCopyError> {
        let (source_bucket, source_key, source_version) = copy_source(&input.copy_source)?;
        let source = self.copy_source_object(&source_bucket, &source_key, source_version.as_deref())?;
        ReadConditions {
            if_match: input.copy_source_if_match.as_deref(),
            if_none_match: input.copy_source_if_none_match.as_deref(),
            if_modified_since: input.copy_source_if_modified_since.as_ref(),
            if_unmodified_since: input.copy_source_if_unmodified_since.as_ref(),
        }
        .check(&source)
        .map_err(|_| S3Error::precondition_failed())?;
        let range = match input.copy_source_range.as_deref() {
            None => None,
            Some(spec) => Some(object::byte_range(Some(spec), source.size)?.ok_or_else(|| {
                S3Error::invalid_argument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
            })?),
        };
        let body = self.read_body(&source, range).await?;
        let part = self
            .store_part(input.bucket, input.key, input.upload_id, input.part_number, body)
            .await?;
        Ok(UploadPartCopyOutput {
            copy_source_version_id: source.version_header(),
            copy_part_result: Some(CopyPartResult {
                e_tag: Some(part.etag),
                last_modified: Some(DateTime::from_secs(part.last_modified_ms.div_euclid(1000))),
                ..CopyPartResult::default()
            }),
            ..UploadPartCopyOutput::default()
        })
    }

    async fn complete_multipart_upload(
        &self,
        _ctx: &RequestContext,
        input: CompleteMultipartUploadRequest,
    ) -> Result<CompleteMultipartUploadOutput, CompleteMultipartUploadError> {
        Ok(self.complete_upload(input).await?)
    }

    async fn abort_multipart_upload(
        &self,
        _ctx: &RequestContext,
        input: AbortMultipartUploadRequest,
    ) -> Result<AbortMultipartUploadOutput, AbortMultipartUploadError> {
        self.abort_upload(input.bucket, input.key, input.upload_id).await?;
        Ok(AbortMultipartUploadOutput::default())
    }

    async fn list_parts(
        &self,
        _ctx: &RequestContext,
        input: ListPartsRequest,
    ) -> Result<ListPartsOutput, ListPartsError> {
        Ok(self.list_parts_of(input).await?)
    }

    async fn list_multipart_uploads(
        &self,
        _ctx: &RequestContext,
        input: ListMultipartUploadsRequest,
    ) -> Result<ListMultipartUploadsOutput, ListMultipartUploadsError> {
        Ok(self.list_uploads_of(input)?)
    }

    async fn put_bucket_tagging(
        &self,
        _ctx: &RequestContext,
        input: PutBucketTaggingRequest,
    ) -> Result<Unit, PutBucketTaggingError> {
        let tags = from_tags(input.tagging.tag_set, 50)?;
        self.update_bucket(input.bucket, move |b| b.tags = tags).await?;
        Ok(Unit {})
    }

    async fn get_bucket_tagging(
        &self,
        _ctx: &RequestContext,
        input: GetBucketTaggingRequest,
    ) -> Result<GetBucketTaggingOutput, GetBucketTaggingError> {
        let bucket = self.bucket(&input.bucket)?;
        if bucket.tags.is_empty() {
            return Err(S3Error::no_such_tag_set().into());
        }
        Ok(GetBucketTaggingOutput {
            tag_set: to_tags(&bucket.tags),
        })
    }

    async fn delete_bucket_tagging(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketTaggingRequest,
    ) -> Result<Unit, DeleteBucketTaggingError> {
        self.update_bucket(input.bucket, |b| b.tags.clear()).await?;
        Ok(Unit {})
    }

    async fn put_object_tagging(
        &self,
        _ctx: &RequestContext,
        input: PutObjectTaggingRequest,
    ) -> Result<PutObjectTaggingOutput, PutObjectTaggingError> {
        let tags = from_tags(input.tagging.tag_set, 10)?;
        let updated = self
            .update_object(input.bucket, input.key, input.version_id, move |o| o.tags = tags)
            .await?;
        Ok(PutObjectTaggingOutput {
            version_id: updated.version_header(),
        })
    }

    async fn get_object_tagging(
        &self,
        _ctx: &RequestContext,
        input: GetObjectTaggingRequest,
    ) -> Result<GetObjectTaggingOutput, GetObjectTaggingError> {
        let record = self.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
        Ok(GetObjectTaggingOutput {
            version_id: record.version_header(),
            tag_set: to_tags(&record.tags),
        })
    }

    async fn delete_object_tagging(
        &self,
        _ctx: &RequestContext,
        input: DeleteObjectTaggingRequest,
    ) -> Result<DeleteObjectTaggingOutput, DeleteObjectTaggingError> {
        let updated = self
            .update_object(input.bucket, input.key, input.version_id, |o| o.tags.clear())
            .await?;
        Ok(DeleteObjectTaggingOutput {
            version_id: updated.version_header(),
        })
    }

    async fn put_bucket_versioning(
        &self,
        _ctx: &RequestContext,
        input: PutBucketVersioningRequest,
    ) -> Result<Unit, PutBucketVersioningError> {
        let config = input.versioning_configuration;
        let status = match config.status {
            Some(BucketVersioningStatus::Enabled) => "Enabled",
            Some(BucketVersioningStatus::Suspended) => "Suspended",
            _ => return Err(S3Error::malformed_xml().into()),
        };
        let mfa_delete = match config.mfa_delete {
            None => None,
            Some(MFADelete::Enabled) => Some("Enabled"),
            Some(MFADelete::Disabled) => Some("Disabled"),
            Some(MFADelete::Unknown(_)) => return Err(S3Error::malformed_xml().into()),
        };
        // Changing MFA delete needs the device's serial number and code in `x-amz-mfa`;
        // Stratus keeps the setting but checks no code.
        if mfa_delete.is_some() && input.mfa.as_deref().is_none_or(|m| m.split_whitespace().count() != 2) {
            return Err(AwsError::new(
                "InvalidRequest",
                "The x-amz-mfa header is required and must be the MFA device serial number and code, separated by a space.",
                400,
            )
            .into());
        }
        let name = input.bucket;
        let mfa = input.mfa;
        self.write(move |tx| {
            let mut bucket = load_bucket(tx, &name)?;
            if bucket.mfa_delete.as_deref() == Some("Enabled") && mfa.is_none() {
                return Err(S3Error::mfa_required());
            }
            if bucket.object_lock && status != "Enabled" {
                return Err(AwsError::new(
                    "InvalidBucketState",
                    "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.",
                    409,
                ));
            }
            if bucket.state() == State::Unversioned {
                versioning::start_versioning(tx, &name)?;
            }
            bucket.versioning = Some(status.to_owned());
            if let Some(m) = mfa_delete {
                bucket.mfa_delete = Some(m.to_owned());
            }
            tx.put(
                BUCKETS,
                name.as_bytes(),
                serde_json::to_vec(&bucket).map_err(S3Error::corrupt)?,
            );
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_versioning(
        &self,
        _ctx: &RequestContext,
        input: GetBucketVersioningRequest,
    ) -> Result<GetBucketVersioningOutput, GetBucketVersioningError> {
        // A bucket that was never versioned answers an empty configuration.
        let bucket = self.bucket(&input.bucket)?;
        Ok(GetBucketVersioningOutput {
            status: bucket.versioning.as_deref().map(BucketVersioningStatus::from_wire),
            mfa_delete: bucket.mfa_delete.as_deref().map(MFADeleteStatus::from_wire),
        })
    }

    async fn list_object_versions(
        &self,
        _ctx: &RequestContext,
        input: ListObjectVersionsRequest,
    ) -> Result<ListObjectVersionsOutput, ListObjectVersionsError> {
        Ok(self.list_versions(input)?)
    }
    async fn put_bucket_cors(
        &self,
        _ctx: &RequestContext,
        input: PutBucketCorsRequest,
    ) -> Result<Unit, PutBucketCorsError> {
        let rules = input.cors_configuration.cors_rules;
        config::check_cors(&rules)?;
        let doc = config::encode(&schema::CORS_RULES, rules);
        self.change_config(input.bucket, config::CORS, Change::Set(doc), |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn get_bucket_cors(
        &self,
        _ctx: &RequestContext,
        input: GetBucketCorsRequest,
    ) -> Result<GetBucketCorsOutput, GetBucketCorsError> {
        let rules: Vec<CORSRule> = self
            .typed_config(&input.bucket, config::CORS, &schema::CORS_RULES)?
            .ok_or_else(|| config::not_found("NoSuchCORSConfiguration", "The CORS configuration does not exist"))?;
        Ok(GetBucketCorsOutput {
            cors_rules: Some(rules),
        })
    }

    async fn delete_bucket_cors(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketCorsRequest,
    ) -> Result<Unit, DeleteBucketCorsError> {
        self.change_config(input.bucket, config::CORS, Change::Remove, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_policy(
        &self,
        _ctx: &RequestContext,
        input: PutBucketPolicyRequest,
    ) -> Result<Unit, PutBucketPolicyError> {
        let public = config::check_policy(&input.bucket, &input.policy)?;
        let doc = Change::Set(input.policy.into_bytes());
        self.change_config(input.bucket, config::POLICY, doc, move |tx, bucket| {
            let block = config::tx_public_access_block(tx, &bucket.name)?;
            if public && block.is_some_and(|b| b.block_public_policy == Some(true)) {
                return Err(config::access_denied());
            }
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_policy(
        &self,
        _ctx: &RequestContext,
        input: GetBucketPolicyRequest,
    ) -> Result<GetBucketPolicyOutput, GetBucketPolicyError> {
        let policy = self.policy(&input.bucket)?;
        Ok(GetBucketPolicyOutput { policy: Some(policy) })
    }

    async fn get_bucket_policy_status(
        &self,
        _ctx: &RequestContext,
        input: GetBucketPolicyStatusRequest,
    ) -> Result<GetBucketPolicyStatusOutput, GetBucketPolicyStatusError> {
        let policy = self.policy(&input.bucket)?;
        let public = config::check_policy(&input.bucket, &policy)?;
        Ok(GetBucketPolicyStatusOutput {
            policy_status: Some(PolicyStatus {
                is_public: Some(public),
            }),
        })
    }

    async fn delete_bucket_policy(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketPolicyRequest,
    ) -> Result<Unit, DeleteBucketPolicyError> {
        self.change_config(input.bucket, config::POLICY, Change::Remove, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_encryption(
        &self,
        _ctx: &RequestContext,
        input: PutBucketEncryptionRequest,
    ) -> Result<Unit, PutBucketEncryptionError> {
        let encryption = input.server_side_encryption_configuration;
        config::check_encryption(&encryption)?;
        let doc = config::encode(&schema::SERVER_SIDE_ENCRYPTION_CONFIGURATION, encryption);
        self.change_config(input.bucket, config::ENCRYPTION, Change::Set(doc), |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn get_bucket_encryption(
        &self,
        _ctx: &RequestContext,
        input: GetBucketEncryptionRequest,
    ) -> Result<GetBucketEncryptionOutput, GetBucketEncryptionError> {
        // Every bucket has had SSE-S3 default encryption since January 2023.
        let encryption = self
            .typed_config(
                &input.bucket,
                config::ENCRYPTION,
                &schema::SERVER_SIDE_ENCRYPTION_CONFIGURATION,
            )?
            .unwrap_or_else(config::default_encryption);
        Ok(GetBucketEncryptionOutput {
            server_side_encryption_configuration: Some(encryption),
        })
    }

    async fn delete_bucket_encryption(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketEncryptionRequest,
    ) -> Result<Unit, DeleteBucketEncryptionError> {
        self.change_config(input.bucket, config::ENCRYPTION, Change::Remove, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_ownership_controls(
        &self,
        _ctx: &RequestContext,
        input: PutBucketOwnershipControlsRequest,
    ) -> Result<Unit, PutBucketOwnershipControlsError> {
        let controls = input.ownership_controls;
        config::check_ownership(&controls)?;
        let enforcing = config::enforced(Some(&controls));
        let doc = config::encode(&schema::OWNERSHIP_CONTROLS, controls);
        self.change_config(input.bucket, config::OWNERSHIP, Change::Set(doc), move |tx, bucket| {
            let acl: Option<Vec<Grant>> = config::tx_config(tx, &bucket.name, config::ACL, &schema::GRANTS, || None)?;
            if enforcing && acl.is_some_and(|g| !config::owner_only(&g, &bucket.owner)) {
                return Err(S3Error::invalid_bucket_acl_with_ownership());
            }
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_ownership_controls(
        &self,
        _ctx: &RequestContext,
        input: GetBucketOwnershipControlsRequest,
    ) -> Result<GetBucketOwnershipControlsOutput, GetBucketOwnershipControlsError> {
        let controls = match self.load_config(&input.bucket, config::OWNERSHIP)? {
            None => config::default_ownership(),
            Some(bytes) if bytes.is_empty() => {
                return Err(config::not_found(
                    "OwnershipControlsNotFoundError",
                    "The bucket ownership controls were not found",
                )
                .into())
            }
            Some(bytes) => config::decode(&schema::OWNERSHIP_CONTROLS, &bytes)?,
        };
        Ok(GetBucketOwnershipControlsOutput {
            ownership_controls: Some(controls),
        })
    }

    async fn delete_bucket_ownership_controls(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketOwnershipControlsRequest,
    ) -> Result<Unit, DeleteBucketOwnershipControlsError> {
        self.change_config(input.bucket, config::OWNERSHIP, Change::Clear, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_public_access_block(
        &self,
        _ctx: &RequestContext,
        input: PutPublicAccessBlockRequest,
    ) -> Result<Unit, PutPublicAccessBlockError> {
        let given = input.public_access_block_configuration;
        // Settings left out are off.
        let block = PublicAccessBlockConfiguration {
            block_public_acls: Some(given.block_public_acls.unwrap_or(false)),
            ignore_public_acls: Some(given.ignore_public_acls.unwrap_or(false)),
            block_public_policy: Some(given.block_public_policy.unwrap_or(false)),
            restrict_public_buckets: Some(given.restrict_public_buckets.unwrap_or(false)),
        };
        let doc = config::encode(&schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION, block);
        self.change_config(input.bucket, config::PUBLIC_ACCESS_BLOCK, Change::Set(doc), |_, _| {
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_public_access_block(
        &self,
        _ctx: &RequestContext,
        input: GetPublicAccessBlockRequest,
    ) -> Result<GetPublicAccessBlockOutput, GetPublicAccessBlockError> {
        let block = match self.load_config(&input.bucket, config::PUBLIC_ACCESS_BLOCK)? {
            None => config::default_public_access_block(),
            Some(bytes) if bytes.is_empty() => {
                return Err(config::not_found(
                    "NoSuchPublicAccessBlockConfiguration",
                    "The public access block configuration was not found",
                )
                .into())
            }
            Some(bytes) => config::decode(&schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION, &bytes)?,
        };
        Ok(GetPublicAccessBlockOutput {
            public_access_block_configuration: Some(block),
        })
    }

    async fn delete_public_access_block(
        &self,
        _ctx: &RequestContext,
        input: DeletePublicAccessBlockRequest,
    ) -> Result<Unit, DeletePublicAccessBlockError> {
        self.change_config(input.bucket, config::PUBLIC_ACCESS_BLOCK, Change::Clear, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_website(
        &self,
        _ctx: &RequestContext,
        input: PutBucketWebsiteRequest,
    ) -> Result<Unit, PutBucketWebsiteError> {
        let site = input.website_configuration;
        config::check_website(&site)?;
        let doc = config::encode(
            &schema::GET_BUCKET_WEBSITE_OUTPUT,
            GetBucketWebsiteOutput {
                redirect_all_requests_to: site.redirect_all_requests_to,
                index_document: site.index_document,
                error_document: site.error_document,
                routing_rules: site.routing_rules,
            },
        );
        self.change_config(input.bucket, config::WEBSITE, Change::Set(doc), |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn get_bucket_website(
        &self,
        _ctx: &RequestContext,
        input: GetBucketWebsiteRequest,
    ) -> Result<GetBucketWebsiteOutput, GetBucketWebsiteError> {
        match self.load_config(&input.bucket, config::WEBSITE)? {
            Some(bytes) if !bytes.is_empty() => Ok(config::website(&bytes)?),
            _ => Err(config::not_found(
                "NoSuchWebsiteConfiguration",
                "The specified bucket does not have a website configuration",
            )
            .into()),
        }
    }

    async fn delete_bucket_website(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketWebsiteRequest,
    ) -> Result<Unit, DeleteBucketWebsiteError> {
        self.change_config(input.bucket, config::WEBSITE, Change::Remove, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_lifecycle_configuration(
        &self,
        _ctx: &RequestContext,
        input: PutBucketLifecycleConfigurationRequest,
    ) -> Result<PutBucketLifecycleConfigurationOutput, PutBucketLifecycleConfigurationError> {
        let rules = input
            .lifecycle_configuration
            .map(|c| c.rules)
            .ok_or_else(S3Error::malformed_xml)?;
        config::check_lifecycle(&rules)?;
        let size = input
            .transition_default_minimum_object_size
            .map_or_else(|| "all_storage_classes_128K".to_owned(), |s| s.as_str().to_owned());
        let doc = config::encode(&schema::LIFECYCLE_RULES, rules);
        let bucket = input.bucket;
        self.change_config(bucket.clone(), config::LIFECYCLE, Change::Set(doc), |_, _| Ok(()))
            .await?;
        self.change_config(
            bucket,
            config::LIFECYCLE_SIZE,
            Change::Set(size.clone().into_bytes()),
            |_, _| Ok(()),
        )
        .await?;
        Ok(PutBucketLifecycleConfigurationOutput {
            transition_default_minimum_object_size: Some(TransitionDefaultMinimumObjectSize::from_wire(&size)),
        })
    }

    async fn get_bucket_lifecycle_configuration(
        &self,
        _ctx: &RequestContext,
        input: GetBucketLifecycleConfigurationRequest,
    ) -> Result<GetBucketLifecycleConfigurationOutput, GetBucketLifecycleConfigurationError> {
        let rules: Vec<LifecycleRule> = self
            .typed_config(&input.bucket, config::LIFECYCLE, &schema::LIFECYCLE_RULES)?
            .ok_or_else(|| {
                config::not_found(
                    "NoSuchLifecycleConfiguration",
                    "The lifecycle configuration does not exist",
                )
            })?;
        let size = self
            .load_config(&input.bucket, config::LIFECYCLE_SIZE)?
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_else(|| "all_storage_classes_128K".into());
        Ok(GetBucketLifecycleConfigurationOutput {
            rules: Some(rules),
            transition_default_minimum_object_size: Some(TransitionDefaultMinimumObjectSize::from_wire(&size)),
        })
    }

    async fn delete_bucket_lifecycle(
        &self,
        _ctx: &RequestContext,
        input: DeleteBucketLifecycleRequest,
    ) -> Result<Unit, DeleteBucketLifecycleError> {
        self.change_config(input.bucket.clone(), config::LIFECYCLE, Change::Remove, |_, _| Ok(()))
            .await?;
        self.change_config(input.bucket, config::LIFECYCLE_SIZE, Change::Remove, |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn put_bucket_acl(
        &self,
        ctx: &RequestContext,
        input: PutBucketAclRequest,
    ) -> Result<Unit, PutBucketAclError> {
        let bucket = self.bucket(&input.bucket)?;
        let headers = [
            (Permission::FullControl, input.grant_full_control.as_ref()),
            (Permission::Read, input.grant_read.as_ref()),
            (Permission::ReadAcp, input.grant_read_acp.as_ref()),
            (Permission::Write, input.grant_write.as_ref()),
            (Permission::WriteAcp, input.grant_write_acp.as_ref()),
        ];
        let grants = config::requested_acl(
            input.acl.as_ref().map(BucketCannedACL::as_str),
            &headers,
            input.access_control_policy,
            &bucket.owner,
            &bucket.owner,
        )?
        .ok_or_else(S3Error::malformed_xml)?;
        let account = ctx.account_id.clone();
        let doc = config::encode(&schema::GRANTS, grants.clone());
        self.change_config(input.bucket, config::ACL, Change::Set(doc), move |tx, bucket| {
            config::check_acl_allowed(tx, bucket, &grants, &account)
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_acl(
        &self,
        _ctx: &RequestContext,
        input: GetBucketAclRequest,
    ) -> Result<GetBucketAclOutput, GetBucketAclError> {
        let bucket = self.bucket(&input.bucket)?;
        let grants = match self.typed_config(&input.bucket, config::ACL, &schema::GRANTS)? {
            Some(grants) => grants,
            None => config::canned("private", &bucket.owner, &bucket.owner)?,
        };
        Ok(GetBucketAclOutput {
            owner: Some(owner(&bucket.owner)),
            grants: Some(grants),
        })
    }

    async fn put_object_acl(
        &self,
        ctx: &RequestContext,
        input: PutObjectAclRequest,
    ) -> Result<PutObjectAclOutput, PutObjectAclError> {
        let bucket = self.bucket(&input.bucket)?;
        let headers = [
            (Permission::FullControl, input.grant_full_control.as_ref()),
            (Permission::Read, input.grant_read.as_ref()),
            (Permission::ReadAcp, input.grant_read_acp.as_ref()),
            (Permission::Write, input.grant_write.as_ref()),
            (Permission::WriteAcp, input.grant_write_acp.as_ref()),
        ];
        let grants = config::requested_acl(
            input.acl.as_ref().map(ObjectCannedACL::as_str),
            &headers,
            input.access_control_policy,
            &ctx.account_id,
            &bucket.owner,
        )?
        .ok_or_else(S3Error::malformed_xml)?;
        let account = ctx.account_id.clone();
        let (name, key, version_id) = (input.bucket, input.key, input.version_id);
        self.write(move |tx| {
            let b = load_bucket(tx, &name)?;
            config::check_acl_allowed(tx, &b, &grants, &account)?;
            let doc = String::from_utf8(config::encode(&schema::GRANTS, grants))
                .map_err(|e| AwsError::internal(e.to_string()))?;
            versioning::update(tx, &b, &key, version_id.as_deref(), move |o| o.acl = Some(doc))
        })
        .await?;
        Ok(PutObjectAclOutput::default())
    }

    async fn get_object_acl(
        &self,
        _ctx: &RequestContext,
        input: GetObjectAclRequest,
    ) -> Result<GetObjectAclOutput, GetObjectAclError> {
        let bucket = self.bucket(&input.bucket)?;
        let record = self.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
        let grants = match &record.acl {
            Some(doc) => config::decode(&schema::GRANTS, doc.as_bytes())?,
            None => config::canned("private", &bucket.owner, &bucket.owner)?,
        };
        Ok(GetObjectAclOutput {
            owner: Some(owner(&bucket.owner)),
            grants: Some(grants),
            ..GetObjectAclOutput::default()
        })
    }

    async fn put_bucket_accelerate_configuration(
        &self,
        _ctx: &RequestContext,
        input: PutBucketAccelerateConfigurationRequest,
    ) -> Result<Unit, PutBucketAccelerateConfigurationError> {
        if input.bucket.contains('.') {
            return Err(S3Error::invalid_request(
                "S3 Transfer Acceleration is not supported for buckets with periods (.) in their names",
            )
            .into());
        }
        let status = match input.accelerate_configuration.status {
            Some(BucketAccelerateStatus::Enabled) => "Enabled",
            Some(BucketAccelerateStatus::Suspended) => "Suspended",
            _ => return Err(S3Error::malformed_xml().into()),
        };
        self.change_config(input.bucket, config::ACCELERATE, Change::Set(status.into()), |_, _| {
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_accelerate_configuration(
        &self,
        _ctx: &RequestContext,
        input: GetBucketAccelerateConfigurationRequest,
    ) -> Result<GetBucketAccelerateConfigurationOutput, GetBucketAccelerateConfigurationError> {
        // A bucket never configured answers an empty configuration.
        let status = self
            .load_config(&input.bucket, config::ACCELERATE)?
            .and_then(|b| String::from_utf8(b).ok());
        Ok(GetBucketAccelerateConfigurationOutput {
            status: status.as_deref().map(BucketAccelerateStatus::from_wire),
            ..GetBucketAccelerateConfigurationOutput::default()
        })
    }

    async fn put_bucket_request_payment(
        &self,
        _ctx: &RequestContext,
        input: PutBucketRequestPaymentRequest,
    ) -> Result<Unit, PutBucketRequestPaymentError> {
        let payer = match input.request_payment_configuration.payer {
            Payer::Unknown(_) => return Err(S3Error::malformed_xml().into()),
            p => p.as_str().to_owned(),
        };
        self.change_config(
            input.bucket,
            config::REQUEST_PAYMENT,
            Change::Set(payer.into_bytes()),
            |_, _| Ok(()),
        )
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_request_payment(
        &self,
        _ctx: &RequestContext,
        input: GetBucketRequestPaymentRequest,
    ) -> Result<GetBucketRequestPaymentOutput, GetBucketRequestPaymentError> {
        let payer = self
            .load_config(&input.bucket, config::REQUEST_PAYMENT)?
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_else(|| "BucketOwner".into());
        Ok(GetBucketRequestPaymentOutput {
            payer: Some(Payer::from_wire(&payer)),
        })
    }

    async fn put_bucket_logging(
        &self,
        _ctx: &RequestContext,
        input: PutBucketLoggingRequest,
    ) -> Result<Unit, PutBucketLoggingError> {
        let Some(logging) = input.bucket_logging_status.logging_enabled else {
            // An empty BucketLoggingStatus turns logging off.
            self.change_config(input.bucket, config::LOGGING, Change::Remove, |_, _| Ok(()))
                .await?;
            return Ok(Unit {});
        };
        let target = logging.target_bucket.clone();
        let doc = config::encode(&schema::LOGGING_ENABLED, logging);
        self.change_config(input.bucket, config::LOGGING, Change::Set(doc), move |tx, bucket| {
            let invalid = |m: &str| AwsError::new("InvalidTargetBucketForLogging", m, 400);
            let target =
                load_bucket(tx, &target).map_err(|_| invalid("The target bucket for logging does not exist"))?;
            if target.owner != bucket.owner {
                return Err(invalid(
                    "The owner for the bucket to be logged and the target bucket must be the same.",
                ));
            }
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn get_bucket_logging(
        &self,
        _ctx: &RequestContext,
        input: GetBucketLoggingRequest,
    ) -> Result<GetBucketLoggingOutput, GetBucketLoggingError> {
        Ok(GetBucketLoggingOutput {
            logging_enabled: self.typed_config(&input.bucket, config::LOGGING, &schema::LOGGING_ENABLED)?,
        })
    }

    async fn put_bucket_notification_configuration(
        &self,
        _ctx: &RequestContext,
        input: PutBucketNotificationConfigurationRequest,
    ) -> Result<Unit, PutBucketNotificationConfigurationError> {
        let mut notification = input.notification_configuration;
        // AWS names each configuration that arrives without an id.
        let fresh = || Some(id::uuid());
        for c in notification.queue_configurations.iter_mut().flatten() {
            c.id = c.id.take().or_else(fresh);
        }
        for c in notification.topic_configurations.iter_mut().flatten() {
            c.id = c.id.take().or_else(fresh);
        }
        for c in notification.lambda_function_configurations.iter_mut().flatten() {
            c.id = c.id.take().or_else(fresh);
        }
        let doc = config::encode(&schema::NOTIFICATION_CONFIGURATION, notification);
        self.change_config(input.bucket, config::NOTIFICATION, Change::Set(doc), |_, _| Ok(()))
            .await?;
        Ok(Unit {})
    }

    async fn get_object_lock_configuration(
        &self,
        _ctx: &RequestContext,
        input: GetObjectLockConfigurationRequest,
    ) -> Result<GetObjectLockConfigurationOutput, GetObjectLockConfigurationError> {
        // Default retention rules (PutObjectLockConfiguration) are not implemented yet.
        let bucket = self.bucket(&input.bucket)?;
        if !bucket.object_lock {
            return Err(config::not_found(
                "ObjectLockConfigurationNotFoundError",
                "Object Lock configuration does not exist for this bucket",
            )
            .into());
        }
        Ok(GetObjectLockConfigurationOutput {
            object_lock_configuration: Some(ObjectLockConfiguration {
                object_lock_enabled: Some(ObjectLockEnabled::Enabled),
                rule: None,
            }),
        })
    }

    async fn get_bucket_replication(
        &self,
        _ctx: &RequestContext,
        input: GetBucketReplicationRequest,
    ) -> Result<GetBucketReplicationOutput, GetBucketReplicationError> {
        // PutBucketReplication is not implemented, so no bucket has a replication configuration.
        self.bucket(&input.bucket)?;
        Err(config::not_found(
            "ReplicationConfigurationNotFoundError",
            "The replication configuration was not found",
        )
        .into())
    }

    async fn get_bucket_notification_configuration(
        &self,
        _ctx: &RequestContext,
        input: GetBucketNotificationConfigurationRequest,
    ) -> Result<NotificationConfiguration, GetBucketNotificationConfigurationError> {
        Ok(self
            .typed_config(&input.bucket, config::NOTIFICATION, &schema::NOTIFICATION_CONFIGURATION)?
            .unwrap_or_default())
    }
}

impl S3Service {
    async fn update_bucket(
        &self,
        name: String,
        change: impl FnOnce(&mut BucketRecord) + Send + 'static,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            let mut bucket = load_bucket(tx, &name)?;
            change(&mut bucket);
            tx.put(
                BUCKETS,
                name.as_bytes(),
                serde_json::to_vec(&bucket).map_err(S3Error::corrupt)?,
            );
            Ok(())
        })
        .await
    }

    /// The ACL a write's `x-amz-acl` and `x-amz-grant-*` headers set, stored as JSON.
    pub(crate) fn object_acl_headers(
        &self,
        bucket: &str,
        account: &str,
        canned: Option<&ObjectCannedACL>,
        [full, read, read_acp, write_acp]: [Option<&String>; 4],
    ) -> Result<Option<String>, AwsError> {
        let headers = [
            (Permission::FullControl, full),
            (Permission::Read, read),
            (Permission::ReadAcp, read_acp),
            (Permission::WriteAcp, write_acp),
        ];
        if canned.is_none() && headers.iter().all(|(_, h)| h.is_none()) {
            return Ok(None);
        }
        let owner_account = self.bucket(bucket)?.owner;
        let grants = config::requested_acl(
            canned.map(ObjectCannedACL::as_str),
            &headers,
            None,
            account,
            &owner_account,
        )?
        .unwrap_or_default();
        Ok(Some(
            String::from_utf8(config::encode(&schema::GRANTS, grants))
                .map_err(|e| AwsError::internal(e.to_string()))?,
        ))
    }

    /// Rewrites the current version of an object, or the version named.
    async fn update_object(
        &self,
        bucket: String,
        key: String,
        version_id: Option<String>,
        change: impl FnOnce(&mut ObjectRecord) + Send + 'static,
    ) -> Result<ObjectRecord, AwsError> {
        self.write(move |tx| {
            let b = load_bucket(tx, &bucket)?;
            versioning::update(tx, &b, &key, version_id.as_deref(), change)
        })
        .await
    }

    fn list_versions(&self, input: ListObjectVersionsRequest) -> Result<ListObjectVersionsOutput, AwsError> {
        let max = max_keys(input.max_keys)?;
        let key_marker = input.key_marker.as_deref().filter(|m| !m.is_empty());
        let version_id_marker = input.version_id_marker.as_deref().filter(|m| !m.is_empty());
        if let Some(id) = version_id_marker {
            if key_marker.is_none() {
                return Err(S3Error::invalid_argument(
                    "A version-id marker cannot be specified without a key marker.",
                ));
            }
            versioning::check_id(id)?;
        }
        let bucket = self.bucket(&input.bucket)?;
        let prefix = input.prefix.clone().unwrap_or_default();
        let store = self.store()?;
        let mut entries = versioning::list(
            store.as_ref(),
            &bucket,
            &prefix,
            key_marker,
            version_id_marker,
            input.delimiter.as_deref(),
        );
        let page = listing::page(entries.by_ref(), &prefix, input.delimiter.as_deref(), max);
        if let Some(e) = entries.error() {
            return Err(e);
        }
        let url = input.encoding_type.is_some();
        let enc = |s: &str| if url { url_encode(s) } else { s.to_owned() };
        let (mut versions, mut markers) = (Vec::new(), Vec::new());
        for entry in &page.contents {
            let r = &entry.record;
            if r.delete_marker {
                markers.push(DeleteMarkerEntry {
                    owner: Some(owner(&bucket.owner)),
                    key: Some(enc(&r.key)),
                    version_id: Some(r.version_label().to_owned()),
                    is_latest: Some(entry.is_latest),
                    last_modified: Some(r.last_modified()),
                });
            } else {
                versions.push(ObjectVersion {
                    e_tag: Some(r.etag.clone()),
                    size: Some(i64::try_from(r.size).unwrap_or(i64::MAX)),
                    storage_class: Some(ObjectVersionStorageClass::from_wire(
                        r.storage_class.as_deref().unwrap_or("STANDARD"),
                    )),
                    key: Some(enc(&r.key)),
                    version_id: Some(r.version_label().to_owned()),
                    is_latest: Some(entry.is_latest),
                    last_modified: Some(r.last_modified()),
                    owner: Some(owner(&bucket.owner)),
                    ..ObjectVersion::default()
                });
            }
        }
        let (next_key_marker, next_version_id_marker) = if page.truncated {
            match (page.last_is_prefix, page.contents.last()) {
                (false, Some(last)) => (
                    Some(enc(&last.record.key)),
                    Some(last.record.version_label().to_owned()),
                ),
                _ => (page.last.as_deref().map(enc), None),
            }
        } else {
            (None, None)
        };
        Ok(ListObjectVersionsOutput {
            is_truncated: Some(page.truncated),
            key_marker: Some(enc(input.key_marker.as_deref().unwrap_or_default())),
            version_id_marker: Some(input.version_id_marker.clone().unwrap_or_default()),
            next_key_marker,
            next_version_id_marker,
            versions: (!versions.is_empty()).then_some(versions),
            delete_markers: (!markers.is_empty()).then_some(markers),
            name: Some(input.bucket),
            prefix: Some(enc(&prefix)),
            delimiter: input.delimiter.as_deref().map(enc),
            max_keys: Some(max as i32),
            common_prefixes: (!page.common_prefixes.is_empty()).then(|| {
                page.common_prefixes
                    .iter()
                    .map(|p| CommonPrefix { prefix: Some(enc(p)) })
                    .collect()
            }),
            encoding_type: input.encoding_type,
            ..ListObjectVersionsOutput::default()
        })
    }
}

fn check_storage_class(class: Option<&StorageClass>) -> Result<(), AwsError> {
    match class {
        Some(StorageClass::Unknown(_)) => Err(AwsError::new(
            "InvalidStorageClass",
            "The storage class you specified is not valid",
            400,
        )),
        _ => Ok(()),
    }
}

/// A write's conditions on the object it replaces: `If-None-Match: *` refuses to replace one,
/// `If-Match` requires one with a matching ETag.
fn conditional_write(
    previous: Option<&ObjectRecord>,
    if_match: Option<&str>,
    if_none_match: Option<&str>,
) -> Result<(), AwsError> {
    if if_none_match.is_some_and(|t| t.trim() == "*") && previous.is_some() {
        return Err(S3Error::precondition_failed());
    }
    if let Some(tags) = if_match {
        match previous {
            None => return Err(S3Error::no_such_key()),
            Some(p) if !object::etag_matches(tags, &p.etag) => return Err(S3Error::precondition_failed()),
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_sources() {
        assert_eq!(copy_source("b/k").unwrap(), ("b".into(), "k".into(), None));
        assert_eq!(
            copy_source("/b/a%20b/c?versionId=null").unwrap(),
            ("b".into(), "a b/c".into(), Some("null".into()))
        );
        assert!(copy_source("b").is_err());
    }

    // Keys come back percent-encoded with `encoding-type=url` (botocore asks for it and
    // decodes with unquote_plus).
    #[test]
    fn url_encoded_keys() {
        assert_eq!(url_encode("a b+c/d%é"), "a+b%2Bc/d%25%C3%A9");
    }

    #[test]
    fn tokens_round_trip() {
        assert_eq!(decode_token(&encode_token("photos/a b")).unwrap(), "photos/a b");
        assert!(decode_token("zz").is_err());
    }
}
