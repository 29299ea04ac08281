//! The service value: storage access, the capabilities it delivers through, and its
//! settings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use stratus_core::scheduler::Scheduler;
use stratus_core::service::{FunctionInvoker, MessageSink, Providers};
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::SnsError;

/// What the binary tells SNS about where it runs.
#[derive(Debug, Clone, Default)]
pub struct SnsSettings {
    /// The async runtime requests are served on, which the binary fills once it runs: the
    /// scheduler's jobs run deliveries on it (those resumed after a restart among them).
    pub runtime: Arc<OnceLock<tokio::runtime::Handle>>,
}

/// The queue of deliveries of one account and region.
pub(crate) type QueueKey = (String, String);

/// The SNS service. Clones share everything.
#[derive(Clone)]
pub struct SnsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    pub(crate) settings: SnsSettings,
    /// SQS's queues, for `sqs` subscriptions and dead-letter queues.
    pub(crate) queues: Option<Arc<dyn MessageSink>>,
    /// Lambda's functions, for `lambda` subscriptions.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Delivery queues with a drain job on the scheduler, and when it is due (ms).
    pub(crate) draining: Mutex<HashMap<QueueKey, i64>>,
    /// One drain at a time per queue, so that deliveries keep their order and none runs twice.
    pub(crate) drain_locks: Mutex<HashMap<QueueKey, Arc<tokio::sync::Mutex<()>>>>,
}

impl SnsService {
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler, settings: SnsSettings, providers: &Providers) -> Self {
        SnsService {
            shared: Arc::new(Shared {
                storage,
                scheduler,
                settings,
                queues: providers.messages.clone(),
                functions: providers.functions.clone(),
                draining: Mutex::default(),
                drain_locks: Mutex::default(),
            }),
        }
    }

    /// The store of `account` and `region`, for reads (which run inline).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, SnsError> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`, on a
    /// blocking thread (a strict commit waits for fsync).
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, SnsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SnsError> + Send + 'static,
    {
        self.store(account, region)?.transact_async(body).await
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "sns")
}

/// Ignores a poisoned lock: the maps it guards stay consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
