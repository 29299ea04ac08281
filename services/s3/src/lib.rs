//! Amazon S3: buckets and objects.
//!
//! Bucket names are one namespace for every account, as on AWS, so all of S3 lives in one
//! store (`Namespace::global("shared", "s3")`), written with strict durability. Tables:
//!
//! - `buckets`: [`bucket::BucketRecord`] by bucket name;
//! - `objects`: [`object::ObjectRecord`] by bucket name, a zero byte and the object key, so a
//!   bucket's keys scan in S3's (UTF-8 byte) order.
//!
//! Bodies are blobs in the same store, each write under a fresh name: the blob is written
//! before the record that names it commits, and the blob it replaces is deleted after.
//!
//! This is the first slice of S3: buckets, objects (whole-body writes, ranges, conditional
//! requests, copies, metadata), listings and tagging. Every other operation answers AWS's
//! `NotImplemented`.

mod bucket;
mod error;
mod listing;
mod multipart;
mod object;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use stratus_core::{hex, id, AwsError, DateTime, RequestContext, Unit};
use stratus_gen_s3::*;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, Store, Tx};

use crate::bucket::BucketRecord;
use crate::error::S3Error;
use crate::object::{ContentHeaders, ObjectRecord, ReadConditions};

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
        let stored = record.clone();
        self.commit_blob(record.blob.clone(), move |tx| {
            load_bucket(tx, &bucket)?;
            let key = object_key(&bucket, &record.key);
            let previous = load_object(tx, &key)?;
            precondition(previous.as_ref())?;
            tx.put(OBJECTS, key, serde_json::to_vec(&record).map_err(S3Error::corrupt)?);
            Ok(((), previous.map(|p| p.blob).into_iter().collect()))
        })
        .await?;
        Ok(stored)
    }

    /// Deletes the objects `keys` of `bucket`.
    async fn delete(&self, bucket: String, keys: Vec<String>) -> Result<(), AwsError> {
        let blobs = self
            .write(move |tx| {
                load_bucket(tx, &bucket)?;
                let mut blobs = Vec::new();
                for key in keys {
                    let k = object_key(&bucket, &key);
                    if let Some(previous) = load_object(tx, &k)? {
                        tx.delete(OBJECTS, k);
                        blobs.push(previous.blob);
                    }
                }
                Ok(blobs)
            })
            .await?;
        self.delete_blobs(blobs).await
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
    async fn delete_blobs(&self, blobs: Vec<String>) -> Result<(), AwsError> {
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
        let start = object_key(bucket, prefix);
        let range = KeyRange::prefix(&start);
        let skip_under = after.filter(|a| delimiter.is_some_and(|d| !d.is_empty() && a.ends_with(d)));
        let entries = self
            .store()?
            .scan(OBJECTS, &range, Direction::Forward, None)
            .map_err(S3Error::storage)?
            .into_iter()
            .map(|(_, bytes)| serde_json::from_slice::<ObjectRecord>(&bytes).map_err(S3Error::corrupt))
            .filter(|r| match (r, after) {
                (Ok(o), Some(a)) => o.key.as_str() > a && !skip_under.is_some_and(|p| o.key.starts_with(p)),
                _ => true,
            })
            .map(|r| r.map(|o| (o.key.clone(), o)))
            .collect::<Result<Vec<_>, AwsError>>()?;
        Ok(listing::page(entries, prefix, delimiter, max_keys))
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

/// ListObjectsV2's continuation token: the hex of the last key or prefix listed.
fn encode_token(last: &str) -> String {
    hex::encode(last.as_bytes())
}

fn decode_token(token: &str) -> Result<String, AwsError> {
    hex::decode_str(token).ok_or_else(|| S3Error::invalid_argument("The continuation token provided is incorrect"))
}

fn listed(o: &ObjectRecord, owner_account: Option<&str>) -> Object {
    Object {
        key: Some(o.key.clone()),
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

/// The source bucket and key of a copy: `bucket/key`, URL-encoded, with an optional leading
/// slash (a `?versionId=` suffix names the only version there is).
fn copy_source(source: &str) -> Result<(String, String), AwsError> {
    let path = source.split_once("?versionId=").map_or(source, |(p, _)| p);
    let decoded = object::percent_decode(path.trim_start_matches('/'), false)
        .ok_or_else(|| S3Error::invalid_argument("Invalid copy source encoding"))?;
    match decoded.split_once('/') {
        Some((bucket, key)) if !bucket.is_empty() && !key.is_empty() => Ok((bucket.to_owned(), key.to_owned())),
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
        };
        let arn = record.arn();
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
            tx.delete(BUCKETS, name.as_bytes());
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
        _ctx: &RequestContext,
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
        };
        let (if_match, if_none_match) = (input.if_match, input.if_none_match);
        let stored = self
            .put(input.bucket, input.body, record, move |previous| {
                conditional_write(previous, if_match.as_deref(), if_none_match.as_deref())
            })
            .await?;
        Ok(PutObjectOutput {
            e_tag: Some(stored.etag),
            ..PutObjectOutput::default()
        })
    }

    async fn get_object(
        &self,
        _ctx: &RequestContext,
        input: GetObjectRequest,
    ) -> Result<GetObjectOutput, GetObjectError> {
        let record = self
            .object(&input.bucket, &input.key)?
            .ok_or_else(S3Error::no_such_key)?;
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
            ..GetObjectOutput::default()
        })
    }

    async fn head_object(
        &self,
        _ctx: &RequestContext,
        input: HeadObjectRequest,
    ) -> Result<HeadObjectOutput, HeadObjectError> {
        let record = self
            .object(&input.bucket, &input.key)
            .map_err(S3Error::head)?
            .ok_or_else(|| S3Error::head(S3Error::no_such_key()))?;
        ReadConditions {
            if_match: input.if_match.as_deref(),
            if_none_match: input.if_none_match.as_deref(),
            if_modified_since: input.if_modified_since.as_ref(),
            if_unmodified_since: input.if_unmodified_since.as_ref(),
        }
        .check(&record)?;
        let range = object::byte_range(input.range.as_deref(), record.size)?;
        let headers = record.headers;
        Ok(HeadObjectOutput {
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
        self.delete(input.bucket, vec![input.key]).await?;
        Ok(DeleteObjectOutput::default())
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
        let keys: Vec<String> = objects.into_iter().map(|o| o.key).collect();
        self.delete(input.bucket, keys.clone()).await?;
        Ok(DeleteObjectsOutput {
            deleted: (!quiet).then(|| {
                keys.into_iter()
                    .map(|key| DeletedObject {
                        key: Some(key),
                        ..DeletedObject::default()
                    })
                    .collect()
            }),
            ..DeleteObjectsOutput::default()
        })
    }

    async fn copy_object(
        &self,
        _ctx: &RequestContext,
        input: CopyObjectRequest,
    ) -> Result<CopyObjectOutput, CopyObjectError> {
        check_storage_class(input.storage_class.as_ref())?;
        let (source_bucket, source_key) = copy_source(&input.copy_source)?;
        let source = self
            .object(&source_bucket, &source_key)?
            .ok_or_else(S3Error::no_such_key)?;
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
        let same_place = source_bucket == input.bucket && source_key == input.key;
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
                .or(source.storage_class),
        };
        let stored = self.put(input.bucket, body, record, |_| Ok(())).await?;
        Ok(CopyObjectOutput {
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
        Ok(ListObjectsOutput {
            is_truncated: Some(page.truncated),
            marker: Some(input.marker.unwrap_or_default()),
            // S3 sends NextMarker only when a delimiter was given.
            next_marker: page
                .last
                .clone()
                .filter(|_| page.truncated && input.delimiter.is_some()),
            contents: (!page.contents.is_empty())
                .then(|| page.contents.iter().map(|o| listed(o, Some(&owner_account))).collect()),
            name: Some(input.bucket),
            prefix: Some(prefix),
            delimiter: input.delimiter,
            max_keys: Some(max as i32),
            common_prefixes: (!page.common_prefixes.is_empty()).then(|| {
                page.common_prefixes
                    .into_iter()
                    .map(|p| CommonPrefix { prefix: Some(p) })
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
        Ok(ListObjectsV2Output {
            is_truncated: Some(page.truncated),
            next_continuation_token: page.last.as_deref().filter(|_| page.truncated).map(encode_token),
            contents: (!page.contents.is_empty()).then(|| {
                page.contents
                    .iter()
                    .map(|o| listed(o, owner_account.as_deref()))
                    .collect()
            }),
            name: Some(input.bucket),
            prefix: Some(prefix),
            delimiter: input.delimiter,
            max_keys: Some(max as i32),
            common_prefixes: (!page.common_prefixes.is_empty()).then(|| {
                page.common_prefixes
                    .into_iter()
                    .map(|p| CommonPrefix { prefix: Some(p) })
                    .collect()
            }),
            encoding_type: input.encoding_type,
            key_count: Some(key_count as i32),
            continuation_token: input.continuation_token,
            start_after: input.start_after,
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
        let (source_bucket, source_key) = copy_source(&input.copy_source)?;
        let source = self
            .object(&source_bucket, &source_key)?
            .ok_or_else(S3Error::no_such_key)?;
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
        self.update_object(input.bucket, input.key, move |o| o.tags = tags)
            .await?;
        Ok(PutObjectTaggingOutput::default())
    }

    async fn get_object_tagging(
        &self,
        _ctx: &RequestContext,
        input: GetObjectTaggingRequest,
    ) -> Result<GetObjectTaggingOutput, GetObjectTaggingError> {
        let record = self
            .object(&input.bucket, &input.key)?
            .ok_or_else(S3Error::no_such_key)?;
        Ok(GetObjectTaggingOutput {
            version_id: None,
            tag_set: to_tags(&record.tags),
        })
    }

    async fn delete_object_tagging(
        &self,
        _ctx: &RequestContext,
        input: DeleteObjectTaggingRequest,
    ) -> Result<DeleteObjectTaggingOutput, DeleteObjectTaggingError> {
        self.update_object(input.bucket, input.key, |o| o.tags.clear()).await?;
        Ok(DeleteObjectTaggingOutput::default())
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

    async fn update_object(
        &self,
        bucket: String,
        key: String,
        change: impl FnOnce(&mut ObjectRecord) + Send + 'static,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            load_bucket(tx, &bucket)?;
            let k = object_key(&bucket, &key);
            let mut object = load_object(tx, &k)?.ok_or_else(S3Error::no_such_key)?;
            change(&mut object);
            tx.put(OBJECTS, k, serde_json::to_vec(&object).map_err(S3Error::corrupt)?);
            Ok(())
        })
        .await
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
        assert_eq!(copy_source("b/k").unwrap(), ("b".into(), "k".into()));
        assert_eq!(
            copy_source("/b/a%20b/c?versionId=null").unwrap(),
            ("b".into(), "a b/c".into())
        );
        assert!(copy_source("b").is_err());
    }

    #[test]
    fn tokens_round_trip() {
        assert_eq!(decode_token(&encode_token("photos/a b")).unwrap(), "photos/a b");
        assert!(decode_token("zz").is_err());
    }
}
