//! The service value: storage access and the scheduler that deletes and rotates keys.

use std::sync::{Arc, Mutex};

use stratus_core::scheduler::Scheduler;
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
    /// When the job that deletes and rotates keys is next due (ms), if one is scheduled.
    pub(crate) next_due: Mutex<Option<i64>>,
}

impl KmsService {
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler) -> Self {
        KmsService {
            shared: Arc::new(Shared {
                storage,
                scheduler,
                next_due: Mutex::new(None),
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
