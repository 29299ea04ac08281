//! The service value: storage access, the capabilities of other services it uses, and the
//! function host, created on first use.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use stratus_core::scheduler::Scheduler;
use stratus_core::service::{
    LateProviders, MessageSink, ObjectSource, QueueSource, RoleCredentials, RoleDirectory, RoleSessions, ServiceEnv,
    Spawner, StreamSource,
};
use stratus_core::AwsError;
use stratus_lambda_host::{Host, HostConfig};
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Read, Storage, Store, Table, Tx};

use crate::error::{self, TxError};
use crate::names::FunctionRef;
use crate::polling::Pollers;
use crate::queued::QUEUED;
use crate::records::{FunctionRecord, QueuedInvocation};

/// Functions by name.
pub(crate) const FUNCTIONS: Table<FunctionRecord> = Table::new("functions");

/// What the binary tells Lambda about where it runs.
#[derive(Debug, Clone)]
pub struct LambdaSettings {
    /// `AWS_ENDPOINT_URL` for functions: the listener's address, known once it is bound
    /// (the binary fills it then; the host is made later, on the first invoke).
    pub endpoint_url: Arc<OnceLock<String>>,
    /// Where the host unpacks code and keeps instances' directories; `None` with
    /// `--ephemeral` (a private temporary directory).
    pub work_dir: Option<PathBuf>,
    /// How long an idle instance lives.
    pub idle_timeout: Duration,
}

impl Default for LambdaSettings {
    fn default() -> LambdaSettings {
        LambdaSettings {
            endpoint_url: Arc::new(OnceLock::new()),
            work_dir: None,
            idle_timeout: Duration::from_secs(300),
        }
    }
}

/// The Lambda service. Clones share everything.
#[derive(Clone)]
pub struct LambdaService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    pub(crate) settings: LambdaSettings,
    pub(crate) messages: Option<Arc<dyn MessageSink>>,
    /// SQS's queues, which event source mappings read.
    pub(crate) queues: Option<Arc<dyn QueueSource>>,
    pub(crate) roles: Option<Arc<dyn RoleDirectory>>,
    pub(crate) role_sessions: Option<Arc<dyn RoleSessions>>,
    pub(crate) objects: Option<Arc<dyn ObjectSource>>,
    /// The function host, made by the first invoke.
    pub(crate) host: OnceLock<Host>,
    /// Execution roles' credentials by (account, role ARN, function name), until near expiry.
    pub(crate) credentials: Mutex<HashMap<(String, String, String), RoleCredentials>>,
    /// Every service's capabilities once all have registered (CloudWatch Logs registers after
    /// Lambda).
    pub(crate) late: LateProviders,
    /// Asynchronous invocations, queued until they have run.
    pub(crate) queued: Outbox<QueuedInvocation>,
    /// The binary's runtime, which event source mappings' pollers and the writes of function
    /// logs run on.
    pub(crate) spawner: Spawner,
    /// The pollers of enabled event source mappings.
    pub(crate) pollers: Mutex<Pollers>,
}

impl LambdaService {
    pub fn new(env: &ServiceEnv<'_, Storage>, settings: LambdaSettings) -> Self {
        let providers = env.providers;
        LambdaService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                queued: Outbox::new(QUEUED, "lambda", env.storage, env.scheduler, env.spawner),
                late: env.late.clone(),
                settings,
                messages: providers.messages.clone(),
                queues: providers.queues.clone(),
                spawner: env.spawner.clone(),
                pollers: Mutex::default(),
                roles: providers.roles.clone(),
                role_sessions: providers.role_sessions.clone(),
                objects: providers.objects.clone(),
                host: OnceLock::new(),
                credentials: Mutex::default(),
            }),
        }
    }

    /// The server's address, as functions and function URLs reach it.
    pub(crate) fn endpoint_url(&self) -> String {
        self.shared
            .settings
            .endpoint_url
            .get()
            .cloned()
            .unwrap_or_else(|| "http://127.0.0.1:4566".to_owned())
    }

    /// The host, made on first use.
    pub(crate) fn host(&self) -> &Host {
        self.shared.host.get_or_init(|| {
            Host::new(HostConfig {
                work_dir: self.shared.settings.work_dir.clone(),
                endpoint_url: self.endpoint_url(),
                idle_timeout: self.shared.settings.idle_timeout,
            })
        })
    }

    /// Stops a function's instances, if the host was ever made.
    pub(crate) fn stop_instances(&self, function_arn: &str) {
        if let Some(host) = self.shared.host.get() {
            host.stop_function(function_arn);
        }
    }

    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, AwsError> {
        self.shared
            .storage
            .store(&namespace(account, region), Durability::Strict)
            .map_err(error::storage)
    }

    /// The provider of the stream `arn` names (Kinesis), once registration has ended.
    pub(crate) fn stream_source(&self, arn: &str) -> Option<Arc<dyn StreamSource>> {
        let service = arn.split(':').nth(2)?;
        let providers = self.shared.late.get()?;
        providers.streams.iter().find(|s| s.arn_service() == service).cloned()
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }

    /// The function `f` names, settled; `missing` is the ARN the refusal names.
    pub(crate) fn function(&self, f: &FunctionRef, missing: &str) -> Result<FunctionRecord, AwsError> {
        let store = self.store(&f.account, &f.region)?;
        load_function(&*store, &f.name)?
            .map(FunctionRecord::settled)
            .ok_or_else(|| error::function_not_found(missing))
    }

    /// Runs `change` on function `f`'s record in one strict transaction and writes it back.
    pub(crate) async fn update<R, F>(&self, f: &FunctionRef, missing: String, change: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut FunctionRecord, &mut Tx<'_>) -> Result<R, AwsError> + Send + 'static,
    {
        let name = f.name.clone();
        let store = self.store(&f.account, &f.region)?;
        store
            .transact_async(move |tx| {
                let mut record = load_function(tx, &name)?
                    .map(FunctionRecord::settled)
                    .ok_or_else(|| error::function_not_found(&missing))?;
                let out = change(&mut record, tx)?;
                FUNCTIONS.put(tx, name.as_bytes(), &record)?;
                Ok::<_, TxError>(out)
            })
            .await
            .map_err(AwsError::from)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`.
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, AwsError> + Send + 'static,
    {
        self.store(account, region)?
            .transact_async(move |tx| body(tx).map_err(TxError::from))
            .await
            .map_err(AwsError::from)
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "lambda")
}

pub(crate) fn load_function(r: &(impl Read + ?Sized), name: &str) -> Result<Option<FunctionRecord>, AwsError> {
    FUNCTIONS.get(r, name).map_err(error::storage)
}

/// A time as Lambda's `LastModified` writes it: `2024-05-01T12:00:00.000+0000`.
pub(crate) fn lambda_time(epoch_ms: i64) -> String {
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}+0000",
        epoch_ms.rem_euclid(1000)
    )
}

/// Ignores a poisoned lock: the maps it guards stay consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
