//! The service value: storage access, the capabilities it delivers through, and its
//! outbox of deliveries.

use std::sync::Arc;

use stratus_core::scheduler::Scheduler;
use stratus_core::service::{FunctionInvoker, MessageSink, ServiceEnv};
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::delivery::{Delivery, DELIVERIES};
use crate::error::SnsError;
use crate::signing::Keys;

/// The SNS service. Clones share everything.
#[derive(Clone)]
pub struct SnsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// SQS's queues, for `sqs` subscriptions and dead-letter queues.
    pub(crate) queues: Option<Arc<dyn MessageSink>>,
    /// Lambda's functions, for `lambda` subscriptions.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Each accepted message's deliveries, one per subscription, until made.
    pub(crate) deliveries: Outbox<Delivery>,
    /// The keys messages are signed with, once loaded.
    pub(crate) keys: Keys,
}

impl SnsService {
    pub fn new(env: &ServiceEnv<'_, Storage>) -> Self {
        SnsService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                queues: env.providers.messages.clone(),
                functions: env.providers.functions.clone(),
                deliveries: Outbox::new(DELIVERIES, "sns", env.storage, env.scheduler, env.spawner),
                keys: Keys::default(),
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
