//! The service value: storage access and the clock.

use std::sync::Arc;

use stratus_core::clock::Clock;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::AcmError;

/// The ACM service. Clones share everything.
#[derive(Clone)]
pub struct AcmService {
    storage: Arc<Storage>,
    clock: Clock,
}

impl AcmService {
    pub fn new(storage: Arc<Storage>, clock: Clock) -> Self {
        AcmService { storage, clock }
    }

    /// The store of `account` and `region`, for reads (which run inline).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, AcmError> {
        Ok(self
            .storage
            .store(&Namespace::regional(account, region, "acm"), Durability::Strict)?)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`, on a
    /// blocking thread (a strict commit waits for fsync).
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AcmError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, AcmError> + Send + 'static,
    {
        self.store(account, region)?.transact_async(body).await
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.epoch_millis()
    }
}
