//! The service value and its access to each account's `iam` store.

use std::sync::Arc;

use stratus_core::RequestContext;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::IamError;
use crate::records::Scope;

/// The IAM service, backed by `storage`: one global store per account.
#[derive(Clone)]
pub struct IamService {
    storage: Arc<Storage>,
}

impl IamService {
    pub fn new(storage: Arc<Storage>) -> IamService {
        IamService { storage }
    }

    fn namespace(account: &str) -> Namespace {
        Namespace::global(account, "iam")
    }

    /// The account's store, for reads (which need no fsync and run inline).
    pub(crate) fn reader(&self, account: &str) -> Result<Arc<dyn Store>, IamError> {
        Ok(self.storage.store(&Self::namespace(account), Durability::Strict)?)
    }

    /// Runs `body` as one strict write transaction in the account's store, on a blocking
    /// thread (a strict commit waits for fsync).
    pub(crate) async fn write<R, F>(&self, account: &str, body: F) -> Result<R, IamError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, IamError> + Send + 'static,
    {
        self.storage
            .store(&Self::namespace(account), Durability::Strict)?
            .transact_async(body)
            .await
    }
}

/// The account and region a request is answered in.
pub(crate) fn scope(ctx: &RequestContext) -> Scope {
    Scope {
        account: ctx.account_id.clone(),
        region: ctx.region.clone(),
    }
}

/// Now, in seconds since the epoch.
pub(crate) fn now(ctx: &RequestContext) -> u64 {
    ctx.clock.epoch_secs()
}
