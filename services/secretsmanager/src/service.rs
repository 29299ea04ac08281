//! The service value: storage access, the keys and functions it works through, the outbox
//! of rotations, and the scheduler job that deletes secrets and starts scheduled rotations.

use std::sync::Arc;

use stratus_core::scheduler::{DueJob, Scheduler};
use stratus_core::service::{FunctionInvoker, KeyService, ServiceEnv};
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::SmError;
use crate::rotation::RotationRun;
use crate::store::ROTATIONS;

/// The Secrets Manager service. Clones share everything.
#[derive(Clone)]
pub struct SecretsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// KMS, which encrypts every value.
    pub(crate) keys: Option<Arc<dyn KeyService>>,
    /// Lambda, which runs rotation functions.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Rotations started, until their function's four steps have run.
    pub(crate) rotations: Outbox<RotationRun>,
    /// The job that deletes secrets and starts scheduled rotations, while any is pending.
    pub(crate) due: DueJob,
}

impl SecretsService {
    pub fn new(env: &ServiceEnv<'_, Storage>) -> Self {
        SecretsService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                keys: env.providers.keys.clone(),
                functions: env.providers.functions.clone(),
                rotations: Outbox::new(ROTATIONS, SERVICE_NAME, env.storage, env.scheduler, env.spawner),
                due: DueJob::new(env.scheduler.clone()),
            }),
        }
    }

    /// The store of `account` and `region`, for reads (which run inline).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, SmError> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`, on a
    /// blocking thread (a strict commit waits for fsync).
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, SmError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SmError> + Send + 'static,
    {
        self.store(account, region)?.transact_async(body).await
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }
}

/// The service part of the stores' namespaces.
pub(crate) const SERVICE_NAME: &str = "secretsmanager";

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, SERVICE_NAME)
}
