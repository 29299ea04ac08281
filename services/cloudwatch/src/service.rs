//! The service value: storage, the scheduler, SNS (where alarm actions publish) and the
//! outbox their notifications wait in, and access to each account and region's store.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use stratus_core::scheduler::{JobId, Scheduler};
use stratus_core::service::{FunctionInvoker, ServiceEnv, TopicPublisher};
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Storage, Store};

use crate::alarms::notify::{Notification, NOTIFICATIONS};
use crate::error::Result;

/// The storage namespace: one store per account and region, whose metric tables are written
/// with relaxed durability and everything else strictly.
pub(crate) const SERVICE: &str = "cloudwatch";

/// CloudWatch. Clones share everything.
#[derive(Clone)]
pub struct CloudWatchService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// SNS's topics, which alarm actions publish to.
    pub(crate) topics: Option<Arc<dyn TopicPublisher>>,
    /// Lambda's functions, which alarm actions invoke.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Alarm notifications on their way to SNS and Lambda.
    pub(crate) notifications: Outbox<Notification>,
    /// The samples each (account, region) holds, counted on first use ([`crate::samples`]).
    pub(crate) usage: Mutex<HashMap<(String, String), u64>>,
    /// The next sample's sequence number: samples of one instant are all kept.
    pub(crate) sequence: AtomicU64,
    /// The alarm evaluation job, while some alarm exists ([`crate::alarms::evaluate`]).
    pub(crate) evaluation: Mutex<Option<JobId>>,
}

impl CloudWatchService {
    pub fn new(env: &ServiceEnv<'_, Storage>) -> CloudWatchService {
        let start = env.scheduler.clock().epoch_millis().max(0) as u64;
        CloudWatchService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                topics: env.providers.topics.clone(),
                functions: env.providers.functions.clone(),
                notifications: Outbox::new(NOTIFICATIONS, SERVICE, env.storage, env.scheduler, env.spawner),
                usage: Mutex::default(),
                sequence: AtomicU64::new(start << 16),
                evaluation: Mutex::new(None),
            }),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }

    /// The store of `account` and `region` for metric data, which may lose its last moments
    /// to a crash (docs/services/cloudwatch.md).
    pub(crate) fn metrics_store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Relaxed)?)
    }

    /// The same store for alarms, their history, insight rules, streams and detectors:
    /// acknowledged writes are durable.
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// The account's dashboards, which (as on AWS) belong to no region.
    pub(crate) fn dashboard_store(&self, account: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&Namespace::global(account, SERVICE), Durability::Strict)?)
    }

    /// Every account and region with a store, with its strict handle.
    pub(crate) fn stores(&self) -> Vec<(String, String, Arc<dyn Store>)> {
        self.shared.storage.regional_stores(SERVICE, Durability::Strict)
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, SERVICE)
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
