//! The service value: storage access, KMS for SecureString values, and the scheduler that
//! deletes parameters whose Expiration policy has come.

use std::sync::Arc;

use stratus_core::scheduler::{DueJob, Scheduler};
use stratus_core::service::{KeyService, SecretSource, ServiceEnv};
use stratus_core::RequestContext;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::SsmError;

/// The SSM service. Clones share everything.
#[derive(Clone)]
pub struct SsmService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// KMS, which encrypts SecureString values; absent, every key is missing.
    pub(crate) keys: Option<Arc<dyn KeyService>>,
    /// Secrets Manager, whose secrets `/aws/reference/secretsmanager/` names.
    pub(crate) secrets: Option<Arc<dyn SecretSource>>,
    /// The expiration job, while any expiration is pending.
    pub(crate) due: DueJob,
}

impl SsmService {
    pub fn new(env: &ServiceEnv<'_, Storage>) -> Self {
        SsmService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                keys: env.providers.keys.clone(),
                secrets: env.providers.secrets.clone(),
                due: DueJob::new(env.scheduler.clone()),
            }),
        }
    }

    /// The store of `account` and `region`, for reads (which run inline).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, SsmError> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// The store of the request's account and region.
    pub(crate) fn store_of(&self, ctx: &RequestContext) -> Result<Arc<dyn Store>, SsmError> {
        self.store(&ctx.account_id, &ctx.region)
    }

    /// Runs `body` as one strict transaction of the request's store, on a blocking thread.
    pub(crate) async fn transact<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, SsmError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SsmError> + Send + 'static,
    {
        self.store_of(ctx)?.transact_async(body).await
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "ssm")
}
