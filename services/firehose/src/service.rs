//! The service value: storage, the scheduler, the capabilities of the services Firehose
//! reads from and delivers to, and access to each account and region's `firehose` store.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use stratus_core::scheduler::{DueJob, Scheduler};
use stratus_core::service::{FunctionInvoker, ObjectSink, Providers, Spawner, StreamSource};
use stratus_core::RequestContext;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};
use tokio::sync::watch;

use crate::error::{stream_not_found, Result};
use crate::records::{StreamRecord, StreamState, STREAMS};

/// Amazon Data Firehose, backed by `storage`. Clones share everything.
#[derive(Clone)]
pub struct FirehoseService {
    pub(crate) shared: Arc<Shared>,
}

/// One delivery stream, wherever it lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct StreamKey {
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) name: String,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    pub(crate) spawner: Spawner,
    /// S3's buckets, which S3 destinations (and every backup) write to.
    pub(crate) objects: Option<Arc<dyn ObjectSink>>,
    /// Lambda, which the `Lambda` processor invokes.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Kinesis, which `KinesisStreamAsSource` streams read.
    pub(crate) streams: Vec<Arc<dyn StreamSource>>,
    /// The one job at the earliest moment a buffer falls due, while some stream buffers
    /// records.
    pub(crate) due: DueJob,
    /// The streams whose buffers are being delivered now: one delivery at a time each.
    pub(crate) flushing: Mutex<HashSet<StreamKey>>,
    /// The Kinesis readers of each stream fed by one, stopped when it is deleted.
    pub(crate) readers: Mutex<HashMap<StreamKey, watch::Sender<()>>>,
}

impl FirehoseService {
    /// The service, with what it takes of the services registered before it: S3 (objects),
    /// Lambda (processors) and Kinesis (sources).
    pub fn new(
        storage: Arc<Storage>,
        scheduler: Scheduler,
        spawner: &Spawner,
        providers: &Providers,
    ) -> FirehoseService {
        FirehoseService {
            shared: Arc::new(Shared {
                storage,
                due: DueJob::new(scheduler.clone()),
                scheduler,
                spawner: spawner.clone(),
                objects: providers.object_sink.clone(),
                functions: providers.functions.clone(),
                streams: providers.streams.clone(),
                flushing: Mutex::default(),
                readers: Mutex::default(),
            }),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }

    /// The store of `account` and `region`: strict, since every record PutRecord
    /// acknowledges is in it.
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&Namespace::regional(account, region, "firehose"), Durability::Strict)?)
    }

    /// Runs `body` as one transaction of the store of `account` and `region`.
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        store.transact_async(body).await
    }

    /// Runs `body` against the committed store on the blocking pool.
    pub(crate) async fn read<R, F>(&self, account: &str, region: &str, body: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        stratus_storage::run_blocking(move || body(&*store)).await
    }

    /// Every account and region that has a `firehose` store, with the store.
    pub(crate) fn stores(&self) -> Vec<(String, String, Arc<dyn Store>)> {
        self.shared.storage.regional_stores("firehose", Durability::Strict)
    }

    /// The stream `name` of the request's account and region, if it exists and is not
    /// gone, with the state it is in.
    pub(crate) async fn existing(&self, ctx: &RequestContext, name: &str) -> Result<(StreamRecord, StreamState)> {
        let (key, now) = (name.to_owned(), self.now_ms());
        let found = self
            .read(&ctx.account_id, &ctx.region, move |store| {
                Ok(STREAMS.get(store, key.as_bytes())?)
            })
            .await?;
        found
            .and_then(|stream| {
                let state = stream.state(now);
                (state != StreamState::Gone).then_some((stream, state))
            })
            .ok_or_else(|| stream_not_found(name, &ctx.account_id))
    }

    /// The Kinesis provider whose streams' ARNs name `arn`'s service.
    pub(crate) fn stream_source(&self, arn: &str) -> Option<Arc<dyn StreamSource>> {
        let service = arn.split(':').nth(2)?;
        self.shared
            .streams
            .iter()
            .find(|source| source.arn_service() == service)
            .cloned()
    }
}

/// Loads the stream `name` inside a transaction, refusing one that does not exist or is gone.
pub(crate) fn load_stream(tx: &Tx<'_>, name: &str, account: &str, now: i64) -> Result<StreamRecord> {
    STREAMS
        .get(tx, name.as_bytes())?
        .filter(|s| s.state(now) != StreamState::Gone)
        .ok_or_else(|| stream_not_found(name, account))
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
