//! Amazon S3: buckets, objects, versions and bucket configurations.
//!
//! Bucket names are one namespace for every account, as on AWS, so all of S3 lives in one
//! store (`Namespace::global("shared", "s3")`), written with strict durability. Tables:
//!
//! - `buckets`: [`bucket::BucketRecord`] by bucket name (with its versioning state);
//! - `objects`: [`object::ObjectRecord`] by bucket name, a zero byte and the object key, so a
//!   bucket's keys scan in S3's (UTF-8 byte) order: each key's current version (both tables
//!   in [`store`]);
//! - `versions`: every version and delete marker of a bucket that has had versioning
//!   configured, newest first per key (see [`versioning`]);
//! - `annotations` and `annotation_payloads`: each object version's annotations, by the
//!   version's key prefix in `versions`, its label and the annotation's name, so a version's
//!   annotations scan in name order; deleted with their version (see [`annotation`]);
//! - `uploads` and `parts`: multipart uploads in progress (see [`multipart`]);
//! - `configs`: bucket configuration documents (see [`config`]), the Object Lock default
//!   retention among them (see [`lock`]).
//!
//! Each object and part keeps its additional checksum ([`checksum`]) and each object the
//! server-side encryption S3 reports for it ([`encryption`]); aws-chunked request
//! bodies are decoded by [`chunked`] as they stream in; Object Lock retention and legal holds live in the object
//! records and are enforced on version deletes ([`lock`]). Lifecycle rules ([`lifecycle`]) are
//! applied in the background by [`sweeper`], through the same deletes as DeleteObject. The
//! bucket's CORS rules answer browsers' preflights and add their headers to answers to
//! cross-origin requests ([`cors`]), through the gateway's `CrossOrigin` hook; browsers' HTML
//! form uploads come through its `FormUpload` hook ([`post`]) and are stored by PutObject's
//! write. Buckets with a website configuration are served on the website endpoint
//! ([`website`]), one of the gateway's web endpoints.
//!
//! Bodies are blobs in the same store, each write under a fresh name: the blob is written
//! before the record that names it commits, and a blob no version names any more is deleted
//! after.
//!
//! Each operation is one function in [`ops`] (grouped by what it acts on); the generated
//! `operations!` table below wires them to the `S3` trait. The modules beside `ops` hold the records,
//! the storage layout and the rules the operations share. Operations not in the table answer
//! AWS's `NotImplemented`.

mod annotation;
mod body;
mod bucket;
mod checksum;
mod chunked;
mod config;
mod cors;
mod customer_key;
mod destinations;
mod encryption;
mod error;
mod expected_owner;
mod id_configs;
mod lifecycle;
mod listing;
mod lock;
mod multipart;
mod notify;
mod object;
mod object_sink;
mod object_source;
mod ops;
mod post;
mod resource_policy;
mod rfc2047;
mod storage_class;
mod store;
mod sweeper;
mod versioning;
mod website;

pub use sweeper::LifecycleTiming;

use std::collections::BTreeMap;
use std::io::Read;
use std::ops::Bound;
use std::sync::Arc;

use stratus_core::scheduler::Scheduler;
use stratus_core::service::{LateProviders, Providers, Registration, ServiceEnv, Spawner};
use stratus_core::{hex, id, AwsError, RequestContext};
use stratus_gen_s3::*;
use stratus_outbox::Outbox;
use stratus_storage::{Blob, Durability, KeyRange, Namespace, Storage, Store, Tx};

use crate::bucket::BucketRecord;
use crate::error::S3Error;
use crate::object::ObjectRecord;
use crate::store::{object_key, OBJECTS};
use crate::versioning::{Deleted, State};

/// The principal S3 delivers its event notifications as (the messages' `SenderId`).
const S3_PRINCIPAL: &str = "s3.amazonaws.com";

/// How often a read retries an object whose body an overwrite deleted under it.
const OPEN_ATTEMPTS: usize = 8;
/// Object bodies larger than this stream to the client rather than being read into memory.
const STREAM_RESPONSES_ABOVE: u64 = 1 << 20;
/// The most keys one listing page or DeleteObjects request may carry.
const MAX_KEYS: usize = 1000;

/// The S3 service, backed by `storage`. A clone shares its storage and destinations.
#[derive(Clone)]
pub struct S3Service {
    storage: Arc<Storage>,
    /// The services event notifications go to (SQS, SNS, Lambda), which register after S3
    /// (Lambda reads its code from S3).
    destinations: LateProviders,
    /// Event notifications on their way to those services.
    notifications: Option<Outbox<destinations::Notification>>,
    /// Applies lifecycle expiration in the background while some bucket needs it.
    lifecycle: Arc<sweeper::Sweeper>,
}

/// Builds S3 when the binary serves it: its operations, its CORS rules and its browser form
/// uploads, delivering event notifications to the queues, topics and functions of the
/// services the binary runs.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let s3 = S3Service::new(env.storage.clone(), env.scheduler.clone(), env.settings.get())
        .with_destinations(env.late.clone(), env.spawner)
        .resume_lifecycle();
    Registration {
        handlers: vec![Arc::new(expected_owner::OwnerChecked(Handler(s3.clone())))],
        cross_origin: vec![Arc::new(s3.clone())],
        form_uploads: vec![Arc::new(s3.clone())],
        endpoints: vec![Arc::new(s3.clone())],
        provides: Providers {
            objects: Some(Arc::new(s3.clone())),
            object_sink: Some(Arc::new(s3.clone())),
            resource_policies: vec![Arc::new(s3)],
            ..Providers::default()
        },
        ..Registration::default()
    }
}

impl S3Service {
    /// The service; lifecycle expiration is swept on `scheduler`, whose clock is the
    /// service's time, as `lifecycle` says (see [`sweeper`]).
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler, lifecycle: LifecycleTiming) -> S3Service {
        S3Service {
            storage,
            destinations: LateProviders::default(),
            notifications: None,
            lifecycle: Arc::new(sweeper::Sweeper::new(scheduler, lifecycle)),
        }
    }

    /// The clock the service's requests and sweeps read.
    pub(crate) fn clock(&self) -> stratus_core::Clock {
        self.lifecycle.scheduler.clock().clone()
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.lifecycle.scheduler.clock().epoch_millis()
    }

    /// The same service, applying the lifecycle configurations of stored buckets (after a
    /// restart) from now on. Called once the service is complete, since the sweeper works
    /// through it (events included).
    pub fn resume_lifecycle(self) -> S3Service {
        self.lifecycle.discover(&self);
        self
    }

    /// The same service, delivering event notifications to the services `destinations` hold
    /// from an outbox drained on `spawner`'s runtime (and resuming those a previous run left).
    pub fn with_destinations(self, destinations: LateProviders, spawner: &Spawner) -> S3Service {
        let outbox = Outbox::new(
            destinations::NOTIFICATIONS,
            "s3",
            &self.storage,
            &self.lifecycle.scheduler,
            spawner,
        );
        let s3 = S3Service {
            destinations,
            notifications: Some(outbox.clone()),
            ..self
        };
        outbox.start(Arc::new(s3.clone()));
        s3
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
        self.store()?
            .transact_async(|tx| body(tx).map_err(TxError::Aws))
            .await
            .map_err(AwsError::from)
    }

    /// Runs blocking blob I/O on a blocking thread.
    async fn blocking<R, F>(&self, work: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<R, AwsError> + Send + 'static,
    {
        let store = self.store()?;
        stratus_storage::run_blocking(move || work(store.as_ref()).map_err(TxError::Aws))
            .await
            .map_err(AwsError::from)
    }

    /// Object `key` of `bucket`: its current version, or version `version_id` (a delete
    /// marker named by id is `MethodNotAllowed`, as AWS answers GET and HEAD).
    fn object_version(&self, bucket: &str, key: &str, version_id: Option<&str>) -> Result<ObjectRecord, AwsError> {
        let db = self.store()?;
        let Some(id) = version_id else {
            let record = store::bucket(&db, bucket)?;
            if let Some(current) = store::current(&db, bucket, key)? {
                return Ok(current);
            }
            // Gone: say so with the delete marker, if one is why.
            let latest = match record.state() {
                State::Unversioned => None,
                _ => versioning::versions_of(&db, bucket, key, Some(1))?.pop(),
            };
            return Err(match latest {
                Some(marker) if marker.delete_marker => S3Error::deleted_key(key, marker.version_label()),
                _ => S3Error::no_such_key(key),
            });
        };
        versioning::check_id(id)?;
        let record = store::bucket(&db, bucket)?;
        versioning::named(&db, &record, key, id)
    }

    /// The version a sub-resource read (tagging, retention, legal hold) reads: as
    /// [`S3Service::object_version`], but a key whose latest version is a delete marker is
    /// `MethodNotAllowed`, as AWS answers those requests.
    fn subresource_version(&self, bucket: &str, key: &str, version_id: Option<&str>) -> Result<ObjectRecord, AwsError> {
        self.object_version(bucket, key, version_id).map_err(|e| {
            let marker = e.headers.iter().any(|(name, _)| *name == "x-amz-delete-marker");
            match e.code.as_str() {
                "NoSuchKey" if marker => S3Error::delete_marker_not_allowed(),
                _ => e,
            }
        })
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

    /// Stores `record` as object `record.key` of `bucket`, its body already written as blob
    /// `record.blob`, unless `precondition` refuses the object it would replace (the blob is
    /// then deleted); the new version gets the annotations `annotations_from` has (a copy's
    /// source). Returns the stored record.
    async fn put(
        &self,
        bucket: String,
        mut record: ObjectRecord,
        lock: lock::Requested,
        annotations_from: Option<annotation::VersionRef>,
        precondition: impl FnOnce(Option<&ObjectRecord>) -> Result<(), AwsError> + Send + 'static,
    ) -> Result<ObjectRecord, AwsError> {
        let now = self.now_ms();
        self.commit_blob(record.blob.clone(), move |tx| {
            let b = store::bucket(tx, &bucket)?;
            lock.apply(tx, &b, &mut record, now)?;
            let previous = store::current(tx, &bucket, &record.key)?;
            precondition(previous.as_ref())?;
            if let Some(doc) = &record.acl {
                let grants: Vec<Grant> = config::decode(&schema::GRANTS, doc.as_bytes())?;
                config::acl::check_acl_allowed(tx, &b, &grants, &b.owner)?;
            }
            // Read before the write, which may replace the source (a copy onto its own key).
            let carried = match &annotations_from {
                Some(source) => annotation::all(tx, source)?,
                None => Vec::new(),
            };
            let (stored, orphans) = versioning::put_version(tx, &b, record)?;
            annotation::put_all(tx, &versioning::annotated(&b, &stored), carried)?;
            Ok((stored, orphans))
        })
        .await
    }

    /// Deletes objects of `bucket`: each key's current version (a delete marker in a
    /// versioned bucket) or the version named. Returns each one's outcome.
    /// A version under Object Lock retention or legal hold stays (`AccessDenied`), unless
    /// `bypass_governance` lifts GOVERNANCE retention.
    async fn delete(
        &self,
        bucket: String,
        targets: Vec<(String, Option<String>)>,
        mfa: Option<String>,
        bypass_governance: bool,
    ) -> Result<Vec<Result<Deleted, AwsError>>, AwsError> {
        let now = self.now_ms();
        let (outcomes, blobs) = self
            .write(move |tx| {
                let b = store::bucket(tx, &bucket)?;
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
                    let result = delete_target(tx, &b, &key, version_id.as_deref(), bypass_governance, now);
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

    /// Writes `source` as a new blob, before any record names it, measuring it (and its
    /// `algorithm` checksum) on the way; refuses a body over `limit` bytes. Returns the blob's
    /// name and the measures.
    async fn write_body(
        &self,
        prefix: &str,
        source: body::Source,
        algorithm: Option<checksum::Algorithm>,
        limit: u64,
    ) -> Result<(String, body::Written), AwsError> {
        let blob = format!("{prefix}-{}", id::uuid());
        let name = blob.clone();
        let written = self
            .blocking(move |store| body::write(store, &name, source, algorithm, limit))
            .await?;
        Ok((blob, written))
    }

    /// Checks a written body against the request's digests; deletes its blob if it fails.
    async fn verify_body(
        &self,
        blob: &str,
        written: &body::Written,
        content_md5: Option<&[u8]>,
        sent: Option<&checksum::Sent>,
        expected: body::DigestText,
    ) -> Result<(), AwsError> {
        if let Err(e) = written.verify(content_md5, sent, expected) {
            self.delete_blobs(vec![blob.to_owned()]).await?;
            return Err(e);
        }
        Ok(())
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

    /// The record `find` returns, with its body opened. An overwrite or delete committing
    /// between reading a record and opening its body deletes that body, so the record is read
    /// again; a body once open stays readable whatever happens to the object next.
    fn open_object(&self, find: impl Fn() -> Result<ObjectRecord, AwsError>) -> Result<(ObjectRecord, Blob), AwsError> {
        let store = self.store()?;
        for _ in 0..OPEN_ATTEMPTS {
            let record = find()?;
            if let Some(body) = store.open_blob(&record.blob).map_err(S3Error::storage)? {
                return Ok((record, body));
            }
        }
        Err(AwsError::internal(
            "the object was replaced faster than its body could be opened; try again",
        ))
    }

    /// The bytes `range` of an opened `body` (all of it when `None`, `size` bytes): in memory
    /// when small, else set to stream as the response's payload (and the returned body is
    /// empty).
    async fn read_body(
        &self,
        ctx: &RequestContext,
        body: Blob,
        size: u64,
        range: Option<(u64, u64)>,
    ) -> Result<Vec<u8>, AwsError> {
        let length = range.map_or(size, |(start, end)| end - start + 1);
        let reader = body::reader(body, range)?;
        if length > STREAM_RESPONSES_ABOVE {
            ctx.streams.set_response(reader);
            return Ok(Vec::new());
        }
        self.read_all(reader, length).await
    }

    /// All of `reader`, `length` bytes, read on a blocking thread.
    async fn read_all(&self, mut reader: stratus_core::BodyReader, length: u64) -> Result<Vec<u8>, AwsError> {
        self.blocking(move |_| {
            let mut out = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
            reader
                .read_to_end(&mut out)
                .map_err(|e| AwsError::internal(format!("reading object body: {e}")))?;
            Ok(out)
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
        let db = self.store()?;
        store::bucket(&db, bucket)?;
        let under = object_key(bucket, prefix);
        let start = match after {
            Some(a) if a >= prefix => Bound::Excluded(object_key(bucket, a)),
            _ => Bound::Included(under.clone()),
        };
        let end = KeyRange::prefix(&under).end().map(<[u8]>::to_vec);
        let skip_under = after.filter(|a| delimiter.is_some_and(|d| !d.is_empty() && a.ends_with(d)));
        let mut scan = listing::Scan::new(&db, OBJECTS, start, end);
        let entries = scan
            .by_ref()
            .filter(|o| after.is_none_or(|a| o.key.as_str() > a && !skip_under.is_some_and(|p| o.key.starts_with(p))))
            .map(|o| (o.key.clone(), o));
        let page = listing::page(entries, prefix, delimiter, max_keys);
        match scan.error {
            Some(e) => Err(e),
            None => Ok(page),
        }
    }
}

/// The storage bridge's error: the operation's refusal or a storage failure.
enum TxError {
    Aws(AwsError),
    Storage(stratus_storage::StorageError),
}

impl From<stratus_storage::StorageError> for TxError {
    fn from(e: stratus_storage::StorageError) -> TxError {
        TxError::Storage(e)
    }
}

impl From<TxError> for AwsError {
    fn from(e: TxError) -> AwsError {
        match e {
            TxError::Aws(e) => e,
            TxError::Storage(e) => S3Error::storage(e),
        }
    }
}

/// Deletes `key`'s current version (a delete marker in a versioned bucket) or version
/// `version_id`, which Object Lock may refuse. User deletes and lifecycle expiration both come
/// here. Returns what was done and the blobs no record names any more.
fn delete_target(
    tx: &mut Tx<'_>,
    bucket: &BucketRecord,
    key: &str,
    version_id: Option<&str>,
    bypass_governance: bool,
    now_ms: i64,
) -> Result<(Deleted, Vec<String>), AwsError> {
    let Some(id) = version_id else {
        return versioning::delete_current(tx, bucket, key, now_ms);
    };
    versioning::check_id(id)?;
    if bucket.object_lock {
        if let Some(found) = versioning::find(tx, bucket, key, id)? {
            lock::check_delete(&found, bypass_governance, now_ms)?;
        }
    }
    versioning::delete_version(tx, bucket, key, id)
}

/// The canonical user id S3 reports for an account: 64 hex digits.
fn canonical_id(account: &str) -> String {
    format!("{:0>64}", hex::encode(account.as_bytes()))
}

/// An owner as AWS names one since it stopped sending `DisplayName` (2025): by canonical id only.
fn owner(account: &str) -> Owner {
    Owner {
        display_name: None,
        id: Some(canonical_id(account)),
    }
}

/// Who started a multipart upload: the one place AWS still sends a `DisplayName`.
fn initiator(account: &str) -> Initiator {
    Initiator {
        id: Some(canonical_id(account)),
        display_name: Some("stratus".into()),
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

// The map from AWS's operation names to the code: each operation's function in `ops`.
stratus_gen_s3::operations! {
    S3Service;
    create_bucket => ops::bucket::create_bucket,
    head_bucket => ops::bucket::head_bucket,
    delete_bucket => ops::bucket::delete_bucket,
    list_buckets => ops::bucket::list_buckets,
    get_bucket_location => ops::bucket::get_bucket_location,
    put_object => ops::object::put_object,
    get_object => ops::object::get_object,
    head_object => ops::object::head_object,
    delete_object => ops::object::delete_object,
    delete_objects => ops::object::delete_objects,
    copy_object => ops::object::copy_object,
    update_object_encryption => ops::object::update_object_encryption,
    get_object_attributes => ops::object::get_object_attributes,
    put_object_annotation => ops::annotation::put_object_annotation,
    get_object_annotation => ops::annotation::get_object_annotation,
    delete_object_annotation => ops::annotation::delete_object_annotation,
    list_object_annotations => ops::annotation::list_object_annotations,
    list_objects => ops::listing::list_objects,
    list_objects_v2 => ops::listing::list_objects_v2,
    create_multipart_upload => ops::multipart::create_multipart_upload,
    upload_part => ops::multipart::upload_part,
    upload_part_copy => ops::multipart::upload_part_copy,
    complete_multipart_upload => ops::multipart::complete_multipart_upload,
    abort_multipart_upload => ops::multipart::abort_multipart_upload,
    list_parts => ops::multipart::list_parts,
    list_multipart_uploads => ops::multipart::list_multipart_uploads,
    put_bucket_tagging => ops::bucket::put_bucket_tagging,
    get_bucket_tagging => ops::bucket::get_bucket_tagging,
    delete_bucket_tagging => ops::bucket::delete_bucket_tagging,
    put_object_tagging => ops::object::put_object_tagging,
    get_object_tagging => ops::object::get_object_tagging,
    delete_object_tagging => ops::object::delete_object_tagging,
    restore_object => ops::restore::restore_object,
    put_bucket_versioning => ops::versioning::put_bucket_versioning,
    get_bucket_versioning => ops::versioning::get_bucket_versioning,
    list_object_versions => ops::listing::list_object_versions,
    put_bucket_cors => ops::config::put_bucket_cors,
    get_bucket_cors => ops::config::get_bucket_cors,
    delete_bucket_cors => ops::config::delete_bucket_cors,
    put_bucket_policy => ops::config::put_bucket_policy,
    get_bucket_policy => ops::config::get_bucket_policy,
    get_bucket_policy_status => ops::config::get_bucket_policy_status,
    delete_bucket_policy => ops::config::delete_bucket_policy,
    put_bucket_encryption => ops::config::put_bucket_encryption,
    get_bucket_encryption => ops::config::get_bucket_encryption,
    delete_bucket_encryption => ops::config::delete_bucket_encryption,
    put_bucket_ownership_controls => ops::config::put_bucket_ownership_controls,
    get_bucket_ownership_controls => ops::config::get_bucket_ownership_controls,
    delete_bucket_ownership_controls => ops::config::delete_bucket_ownership_controls,
    put_public_access_block => ops::config::put_public_access_block,
    get_public_access_block => ops::config::get_public_access_block,
    delete_public_access_block => ops::config::delete_public_access_block,
    put_bucket_website => ops::config::put_bucket_website,
    get_bucket_website => ops::config::get_bucket_website,
    delete_bucket_website => ops::config::delete_bucket_website,
    put_bucket_lifecycle_configuration => ops::config::put_bucket_lifecycle_configuration,
    get_bucket_lifecycle_configuration => ops::config::get_bucket_lifecycle_configuration,
    delete_bucket_lifecycle => ops::config::delete_bucket_lifecycle,
    put_bucket_acl => ops::acl::put_bucket_acl,
    get_bucket_acl => ops::acl::get_bucket_acl,
    put_object_acl => ops::acl::put_object_acl,
    get_object_acl => ops::acl::get_object_acl,
    put_bucket_accelerate_configuration => ops::config::put_bucket_accelerate_configuration,
    get_bucket_accelerate_configuration => ops::config::get_bucket_accelerate_configuration,
    put_bucket_request_payment => ops::config::put_bucket_request_payment,
    get_bucket_request_payment => ops::config::get_bucket_request_payment,
    put_bucket_logging => ops::config::put_bucket_logging,
    get_bucket_logging => ops::config::get_bucket_logging,
    put_bucket_notification_configuration => ops::config::put_bucket_notification_configuration,
    put_object_lock_configuration => ops::lock::put_object_lock_configuration,
    get_object_lock_configuration => ops::lock::get_object_lock_configuration,
    put_object_retention => ops::lock::put_object_retention,
    get_object_retention => ops::lock::get_object_retention,
    put_object_legal_hold => ops::lock::put_object_legal_hold,
    get_object_legal_hold => ops::lock::get_object_legal_hold,
    put_bucket_replication => ops::config::put_bucket_replication,
    get_bucket_replication => ops::config::get_bucket_replication,
    delete_bucket_replication => ops::config::delete_bucket_replication,
    put_bucket_abac => ops::config::put_bucket_abac,
    get_bucket_abac => ops::config::get_bucket_abac,
    get_bucket_notification_configuration => ops::config::get_bucket_notification_configuration,
    put_bucket_analytics_configuration => ops::id_configs::put_bucket_analytics_configuration,
    get_bucket_analytics_configuration => ops::id_configs::get_bucket_analytics_configuration,
    delete_bucket_analytics_configuration => ops::id_configs::delete_bucket_analytics_configuration,
    list_bucket_analytics_configurations => ops::id_configs::list_bucket_analytics_configurations,
    put_bucket_intelligent_tiering_configuration => ops::id_configs::put_bucket_intelligent_tiering_configuration,
    get_bucket_intelligent_tiering_configuration => ops::id_configs::get_bucket_intelligent_tiering_configuration,
    delete_bucket_intelligent_tiering_configuration => ops::id_configs::delete_bucket_intelligent_tiering_configuration,
    list_bucket_intelligent_tiering_configurations => ops::id_configs::list_bucket_intelligent_tiering_configurations,
    put_bucket_inventory_configuration => ops::id_configs::put_bucket_inventory_configuration,
    get_bucket_inventory_configuration => ops::id_configs::get_bucket_inventory_configuration,
    delete_bucket_inventory_configuration => ops::id_configs::delete_bucket_inventory_configuration,
    list_bucket_inventory_configurations => ops::id_configs::list_bucket_inventory_configurations,
    put_bucket_metrics_configuration => ops::id_configs::put_bucket_metrics_configuration,
    get_bucket_metrics_configuration => ops::id_configs::get_bucket_metrics_configuration,
    delete_bucket_metrics_configuration => ops::id_configs::delete_bucket_metrics_configuration,
    list_bucket_metrics_configurations => ops::id_configs::list_bucket_metrics_configurations,
}

impl S3Service {
    async fn update_bucket(
        &self,
        name: String,
        change: impl FnOnce(&mut BucketRecord) + Send + 'static,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            let mut bucket = store::bucket(tx, &name)?;
            change(&mut bucket);
            store::save_bucket(tx, &bucket)
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
        let owner_account = store::bucket(&self.store()?, bucket)?.owner;
        let grants = config::acl::requested_acl(
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

    /// Rewrites the current version of an object, or the version named, unless `change`
    /// refuses it.
    async fn update_object(
        &self,
        bucket: String,
        key: String,
        version_id: Option<String>,
        change: impl FnOnce(&mut ObjectRecord) -> Result<(), AwsError> + Send + 'static,
    ) -> Result<ObjectRecord, AwsError> {
        self.write(move |tx| {
            let b = store::bucket(tx, &bucket)?;
            versioning::update(tx, &b, &key, version_id.as_deref(), change)
        })
        .await
    }
}

/// A write's conditions on the object it replaces: `If-None-Match: *` refuses to replace one,
/// `If-Match` requires one with a matching ETag.
fn conditional_write(
    key: &str,
    previous: Option<&ObjectRecord>,
    if_match: Option<&str>,
    if_none_match: Option<&str>,
) -> Result<(), AwsError> {
    if if_none_match.is_some_and(|t| t.trim() == "*") && previous.is_some() {
        return Err(S3Error::condition_failed("If-None-Match"));
    }
    if let Some(tags) = if_match {
        match previous {
            None => return Err(S3Error::no_such_key(key)),
            Some(p) if !object::etag_matches(tags, &p.etag) => return Err(S3Error::condition_failed("If-Match")),
            Some(_) => {}
        }
    }
    Ok(())
}
