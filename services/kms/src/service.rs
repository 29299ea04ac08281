//! The service value: storage access and the scheduler that deletes and rotates keys.

use std::sync::Arc;

use stratus_core::scheduler::{DueJob, Scheduler};
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::KmsError;

/// The KMS service. Clones share everything.
#[derive(Clone)]
pub struct KmsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// The job that deletes and rotates keys, while any such work is pending.
    pub(crate) due: DueJob,
}

impl KmsService {
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler) -> Self {
        KmsService {
            shared: Arc::new(Shared {
                storage,
                due: DueJob::new(scheduler.clone()),
                scheduler,
            }),
        }
    }

    /// The store of `account` and `region`, for reads (which run inline).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, KmsError> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`, on a
    /// blocking thread (a strict commit waits for fsync).
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, KmsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, KmsError> + Send + 'static,
    {
        self.store(account, region)?.transact_async(body).await
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "kms")
}
