//! The service value and its access to each account's `iam` store.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use stratus_core::RequestContext;
use stratus_storage::{run_blocking, Durability, Namespace, Storage, Store, Tx};

use crate::error::IamError;
use crate::policy_cache::PolicyCache;
use crate::records::Scope;

/// The IAM service, backed by `storage`: one global store per account.
#[derive(Clone)]
pub struct IamService {
    storage: Arc<Storage>,
    /// What authorizations parsed, until the next write to their account.
    pub(crate) policies: Arc<PolicyCache>,
    /// Counts committed writes, access keys' creations among them: the gateway's
    /// [`KeyDirectory::issued`](stratus_core::service::KeyDirectory::issued).
    pub(crate) writes: Arc<AtomicU64>,
}

impl IamService {
    pub fn new(storage: Arc<Storage>) -> IamService {
        IamService {
            storage,
            policies: Arc::default(),
            writes: Arc::default(),
        }
    }

    fn namespace(account: &str) -> Namespace {
        Namespace::global(account, "iam")
    }

    /// The account's store, for reads (which need no fsync and run inline).
    pub(crate) fn reader(&self, account: &str) -> Result<Arc<dyn Store>, IamError> {
        Ok(self.storage.store(&Self::namespace(account), Durability::Strict)?)
    }

    /// Runs `body` as one strict write transaction in the account's store, on a blocking
    /// thread (a strict commit waits for fsync). Every write of IAM goes through here, and
    /// drops the account's cached policies once committed — on that thread, so that a caller
    /// gone meanwhile cannot leave them stale.
    pub(crate) async fn write<R, F>(&self, account: &str, body: F) -> Result<R, IamError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, IamError> + Send + 'static,
    {
        let store = self.storage.store(&Self::namespace(account), Durability::Strict)?;
        let policies = self.policies.clone();
        let writes = self.writes.clone();
        let account = account.to_owned();
        run_blocking(move || {
            let written = store.transact(body);
            policies.written(&account);
            // After the commit: a key looked up before this count changed is looked up again.
            writes.fetch_add(1, Ordering::Release);
            written
        })
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
