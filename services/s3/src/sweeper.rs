//! Lifecycle expiration in the background, modelled on DynamoDB's time-to-live sweeper.
//!
//! Nothing runs until some bucket has a lifecycle configuration with an enabled expiration
//! action (`Expiration`, `NoncurrentVersionExpiration`, `AbortIncompleteMultipartUpload`):
//! [`Sweeper::watch`] — called by PutBucketLifecycleConfiguration, and at startup when a stored
//! bucket has such a configuration — registers a periodic sweep on the process's
//! [`Scheduler`], every [`LifecycleTiming::interval`] (default 60 seconds), which stops once a
//! sweep finds no such bucket. [`LifecycleTiming::day`] can shorten the lifecycle "day" (see
//! [`crate::lifecycle`]); tests rather move a manual clock by days.
//!
//! A sweep decides from a scan which keys [`lifecycle::plan`] has work for, then re-plans each
//! of them inside the write transaction that carries it out (a write since the scan wins) and
//! deletes through the same path as DeleteObject ([`crate::delete_target`]): a versioned bucket
//! gets delete markers, Object Lock keeps retained or held versions, and the events are
//! `s3:LifecycleExpiration:Delete` and `s3:LifecycleExpiration:DeleteMarkerCreated`. Incomplete
//! multipart uploads are aborted as AbortMultipartUpload does. AWS acts once a day, some time
//! after the due date; Stratus within one interval of it.

use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use stratus_core::scheduler::{JobId, Repeat, Scheduler};
use stratus_core::{id, AwsError};
use stratus_gen_s3::{schema, LifecycleRule};
use stratus_storage::{Direction, KeyRange};

use crate::config::{self, CONFIGS};
use crate::error::S3Error;
use crate::lifecycle::{self, Action, Calendar};
use crate::object::ObjectRecord;
use crate::versioning::{self, Deleted};
use crate::{delete_target, multipart, notify, store, S3Service};

/// Keys expired per write transaction.
const KEYS_PER_TRANSACTION: usize = 256;

/// How lifecycle expiration is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LifecycleTiming {
    /// How often buckets with expiration rules are swept (AWS: once a day).
    pub interval: Duration,
    /// How long a lifecycle day is.
    pub day: Duration,
}

impl Default for LifecycleTiming {
    fn default() -> LifecycleTiming {
        LifecycleTiming {
            interval: Duration::from_secs(60),
            day: Duration::from_secs(86_400),
        }
    }
}

/// The background sweeper of one process (see the module docs).
pub(crate) struct Sweeper {
    pub(crate) scheduler: Scheduler,
    interval: Duration,
    day_ms: i64,
    state: Mutex<State>,
    /// The sweeps' async work (blocking storage calls, queue delivery) runs on a runtime of
    /// their own, made by the first sweep.
    runtime: OnceLock<tokio::runtime::Runtime>,
}

#[derive(Default)]
struct State {
    /// The periodic sweep, while one is registered.
    sweep: Option<JobId>,
    /// Counts `watch` calls, so a sweep that found nothing to do does not stop when a
    /// configuration was stored while it ran.
    epoch: u64,
}

impl Sweeper {
    /// A sweeper on `scheduler`, timed by `timing`.
    pub(crate) fn new(scheduler: Scheduler, timing: LifecycleTiming) -> Sweeper {
        Sweeper {
            scheduler,
            interval: timing.interval,
            day_ms: i64::try_from(timing.day.as_millis())
                .unwrap_or(lifecycle::DAY_MS)
                .max(1),
            state: Mutex::default(),
            runtime: OnceLock::new(),
        }
    }

    /// Now, with this process's length of a day.
    pub(crate) fn calendar(&self) -> Calendar {
        Calendar {
            now_ms: self.scheduler.clock().epoch_millis(),
            day_ms: self.day_ms,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sweeps from now on, registering the periodic sweep if none is.
    pub(crate) fn watch(&self, s3: &S3Service) {
        let mut state = self.state();
        state.epoch += 1;
        if state.sweep.is_none() {
            let s3 = s3.clone();
            state.sweep = Some(self.scheduler.every(self.interval, move || sweep(&s3)));
        }
    }

    /// Watches if a stored bucket has a lifecycle configuration to apply (after a restart),
    /// looked for on a thread of its own, and only when there is a data directory to look in.
    pub(crate) fn discover(&self, s3: &S3Service) {
        if s3.storage.data_dir().is_none() {
            return;
        }
        let s3 = s3.clone();
        let _ = std::thread::Builder::new()
            .name("s3-lifecycle-discover".into())
            .spawn(move || match s3.lifecycle_buckets() {
                Ok(buckets) if !buckets.is_empty() => s3.lifecycle.watch(&s3),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = e.message, "lifecycle: cannot read the stored configurations"),
            });
    }
}

/// One periodic sweep; stops once a sweep finds nothing left to watch.
fn sweep(s3: &S3Service) -> Repeat {
    let sweeper = &s3.lifecycle;
    let runtime = match sweeper.runtime.get() {
        Some(runtime) => runtime,
        None => match tokio::runtime::Builder::new_current_thread().build() {
            Ok(runtime) => sweeper.runtime.get_or_init(|| runtime),
            Err(e) => {
                tracing::warn!(error = %e, "lifecycle: cannot start the sweeper's runtime");
                return Repeat::Again;
            }
        },
    };
    let epoch = sweeper.state().epoch;
    let active = runtime.block_on(s3.sweep_lifecycle(sweeper.calendar()));
    let mut state = sweeper.state();
    // A failed sweep is tried again next time.
    if matches!(active, Ok(false)) && state.epoch == epoch {
        state.sweep = None;
        return Repeat::Stop;
    }
    Repeat::Again
}

impl S3Service {
    /// Every bucket whose lifecycle configuration has an enabled expiration action, with its rules.
    fn lifecycle_buckets(&self) -> Result<Vec<(String, Vec<LifecycleRule>)>, AwsError> {
        let suffix = [&[0u8][..], config::LIFECYCLE.as_bytes()].concat();
        let mut found = Vec::new();
        for (key, bytes) in self
            .store()?
            .scan(CONFIGS, &KeyRange::all(), Direction::Forward, None)
            .map_err(S3Error::storage)?
        {
            let Some(bucket) = key.strip_suffix(suffix.as_slice()) else {
                continue;
            };
            if bytes.is_empty() {
                continue;
            }
            let rules: Vec<LifecycleRule> = config::decode(&schema::LIFECYCLE_RULES, &bytes)?;
            if lifecycle::has_expiration(&rules) {
                found.push((String::from_utf8_lossy(bucket).into_owned(), rules));
            }
        }
        Ok(found)
    }

    /// One sweep at `clock`; returns whether any bucket has lifecycle expiration to apply.
    async fn sweep_lifecycle(&self, clock: Calendar) -> Result<bool, AwsError> {
        let buckets = self.lifecycle_buckets()?;
        for (bucket, rules) in &buckets {
            if let Err(e) = self.sweep_bucket(bucket, rules, clock).await {
                tracing::warn!(bucket, error = e.message, "lifecycle: sweep failed");
            }
        }
        Ok(!buckets.is_empty())
    }

    async fn sweep_bucket(&self, bucket: &str, rules: &[LifecycleRule], clock: Calendar) -> Result<(), AwsError> {
        let db = self.store()?;
        let record = store::bucket(&db, bucket)?;
        let mut versions = versioning::list(&db, &record, "", None, None, None);
        let due = keys_due(rules, &clock, versions.by_ref().map(|(_, listed)| listed));
        if let Some(e) = versions.error() {
            return Err(e);
        }
        for keys in due.chunks(KEYS_PER_TRANSACTION) {
            self.expire(&record.name, &record.region, keys.to_vec(), clock).await?;
        }
        for upload in multipart::uploads_of(&db, bucket)? {
            if lifecycle::abort_due(rules, &upload.key, &upload.tags, upload.initiated_ms, &clock) {
                match self.abort_upload(bucket.to_owned(), upload.key, upload.upload_id).await {
                    Err(e) if e.code != "NoSuchUpload" => return Err(e),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Carries out the plan for `keys` of `bucket` as it stands now, then deletes the orphaned
    /// bodies and sends the events.
    async fn expire(&self, bucket: &str, region: &str, keys: Vec<String>, clock: Calendar) -> Result<(), AwsError> {
        let name = bucket.to_owned();
        let (expired, blobs) = self
            .write(move |tx| {
                let b = store::bucket(tx, &name)?;
                let rules: Vec<LifecycleRule> =
                    config::typed(tx, &name, config::LIFECYCLE, &schema::LIFECYCLE_RULES, || None)?.unwrap_or_default();
                let (mut expired, mut blobs) = (Vec::new(), Vec::new());
                for key in keys {
                    let versions = versioning::all_versions(tx, &b, &key)?;
                    // A version Object Lock keeps means the key's delete marker is not alone.
                    let mut all_removed = true;
                    for action in lifecycle::plan(&rules, &versions, &clock) {
                        let version_id = match &action {
                            Action::ExpireCurrent => None,
                            Action::RemoveNoncurrent(id) => Some(id.as_str()),
                            Action::RemoveMarker(id) if all_removed => Some(id.as_str()),
                            Action::RemoveMarker(_) => continue,
                        };
                        match delete_target(tx, &b, &key, version_id, false, clock.now_ms) {
                            Ok((deleted, orphans)) => {
                                blobs.extend(orphans);
                                expired.push((key.clone(), event_name(&action, &deleted), deleted.version_id));
                            }
                            Err(e) if e.code == "AccessDenied" => all_removed = false,
                            Err(e) => return Err(e),
                        }
                    }
                }
                Ok((expired, blobs))
            })
            .await?;
        self.delete_blobs(blobs).await?;
        let request_id = id::uuid();
        for (key, name, version_id) in &expired {
            self.notify(notify::Event {
                name,
                bucket,
                key,
                object: if name.ends_with("DeleteMarkerCreated") {
                    notify::Facts::MarkerCreated
                } else {
                    notify::Facts::Removed
                },
                version_id: version_id.as_deref(),
                region,
                request_id: &request_id,
                cause: notify::Cause::S3,
                trace_header: None,
                time_ms: clock.now_ms,
            })
            .await;
        }
        Ok(())
    }
}

/// The keys, among `entries` (ListObjectVersions' order), that `rules` have work for.
fn keys_due(
    rules: &[LifecycleRule],
    clock: &Calendar,
    entries: impl Iterator<Item = versioning::Listed>,
) -> Vec<String> {
    let mut due = Vec::new();
    let mut close = |versions: &mut Vec<ObjectRecord>| {
        if !versions.is_empty() && !lifecycle::plan(rules, versions, clock).is_empty() {
            due.push(versions[0].key.clone());
        }
        versions.clear();
    };
    let mut versions = Vec::new();
    for listed in entries {
        if listed.is_latest {
            close(&mut versions);
        }
        versions.push(listed.record);
    }
    close(&mut versions);
    due
}

/// The event an expiration reports (S3 user guide, "Supported event types": expiring an object
/// in a versioned bucket creates a delete marker; any other expiration deletes).
fn event_name(action: &Action, deleted: &Deleted) -> &'static str {
    match action {
        Action::ExpireCurrent if deleted.delete_marker => "LifecycleExpiration:DeleteMarkerCreated",
        _ => "LifecycleExpiration:Delete",
    }
}
