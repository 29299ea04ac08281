//! Runs Lambda functions as host processes behind AWS's Lambda Runtime API.
//!
//! The Lambda service (the control plane) makes one [`Host`] and calls [`Host::invoke`] with
//! a [`FunctionSpec`] (what to run) and an [`InvokeRequest`] (the event). The host keeps warm
//! instances per function version and revision, and starts one when none is idle:
//!
//! 1. the code zip (and each layer) is unpacked once per `CodeSha256` under the work
//!    directory, layers merged in order into the directory the instance sees as `/opt`;
//! 2. the instance gets its own Runtime API server on `127.0.0.1:<port>`
//!    (`AWS_LAMBDA_RUNTIME_API`) and a process: the package's `bootstrap` for `provided*`, the
//!    host's `python3` or `node` on a runtime client Stratus ships for `python3.*` and
//!    `nodejs*`, with the environment Lambda sets;
//! 3. the event is answered when the runtime takes it from `/next`; the runtime's `/response`
//!    or `/error`, a timeout, or the process's exit ends the invocation with AWS's document,
//!    and its log (`START` … `REPORT`) is returned as [`InvokeOutcome::log_tail`].
//!
//! At most `max_concurrency` instances of a function run; past that, with none idle, an
//! invoke is refused with [`HostError::TooManyRequests`]. An instance idle for
//! [`HostConfig::idle_timeout`] is stopped, so nothing runs while nothing is invoked.
//! [`Host::invoke_streaming`] is the same for `InvokeWithResponseStream`: the response comes
//! as the function writes it ([`ResponseStream`]). External extensions (executables in a
//! layer's `extensions/`) start with the runtime and get `INVOKE` events through the
//! Extensions API.
//!
//! The work directory ([`HostConfig::work_dir`], or a private temporary one) holds:
//!
//! ```text
//! code/<CodeSha256, URL-safe>/      one archive (function or layer) unpacked, shared
//! opt/<sha>+<sha>…/                 a function's layers merged in order (hard links)
//! runtime/bootstrap.py, .mjs        the runtime clients (LAMBDA_RUNTIME_DIR)
//! sandbox-root/                     where each namespace mounts its new root
//! ```
//!
//! ```no_run
//! # async fn example(spec: stratus_lambda_host::FunctionSpec) -> Result<(), stratus_lambda_host::HostError> {
//! use std::time::Duration;
//! use stratus_lambda_host::{FunctionResult, Host, HostConfig, InvokeRequest};
//!
//! let host = Host::new(HostConfig {
//!     work_dir: None,
//!     endpoint_url: "http://127.0.0.1:4566".into(),
//!     idle_timeout: Duration::from_secs(300),
//! });
//! let outcome = host
//!     .invoke(&spec, InvokeRequest {
//!         request_id: "6bc28136-xmpl-4365-b021-0ce6b2e64ab0".into(),
//!         payload: br#"{"key":"value"}"#.to_vec(),
//!         invoked_function_arn: spec.function_arn.clone(),
//!         client_context: None,
//!         cognito_identity: None,
//!         trace_id: None,
//!     })
//!     .await?;
//! if let FunctionResult::Response(payload) = outcome.result {
//!     println!("{}", String::from_utf8_lossy(&payload));
//! }
//! host.shutdown();
//! # Ok(()) }
//! ```
//!
//! The crate is Linux-only (process death signals, namespaces, `/proc`). Each instance is
//! the leader of its own process group (killed whole) and dies with Stratus. On Linux it runs in its own user, mount, PID and IPC namespaces, so its code is
//! read-only at `/var/task`, its layers at `/opt` and its `/tmp` private; where namespaces
//! are not available (or [`Host::set_namespaces`] turned them off) it is a plain process
//! whose variables point at the real directories.

#![warn(missing_docs)]

mod clients;
mod cold_start;
mod extensions_api;
mod instance;
mod invocation;
mod log;
mod pool;
mod runtime_api;
mod runtimes;
mod sandbox;
mod streaming;
mod zip;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stratus_core::clock::Clock;

use crate::cold_start::{Started, WorkDir};
use crate::instance::Instance;
use crate::pool::{Acquired, Lease, Pool};
pub use crate::streaming::ResponseStream;

/// How the host is set up, once, by the Lambda service.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Where code is unpacked and instances' `/tmp` directories are made (created on first
    /// use); `None`: a private temporary directory, removed at shutdown (`--ephemeral`).
    pub work_dir: Option<PathBuf>,
    /// `AWS_ENDPOINT_URL` handed to functions: Stratus's own listener.
    pub endpoint_url: String,
    /// How long an instance may sit idle before it is stopped.
    pub idle_timeout: Duration,
}

/// A zip archive of code, as the Lambda service stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeArchive {
    /// The zip file's path (a blob the service wrote).
    pub zip_path: PathBuf,
    /// Its SHA-256, base64 (`CodeSha256`): the unpacked directory is shared by this key.
    pub sha256: String,
}

/// Credentials a function's SDK signs with: its execution role's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`.
    pub session_token: String,
}

/// One version of a function, as instances run it. Instances are pooled by
/// (`function_arn`, `version`, `revision`): a new revision gets new instances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSpec {
    /// The unqualified function ARN.
    pub function_arn: String,
    /// `FunctionName`.
    pub function_name: String,
    /// `$LATEST` or a published version number.
    pub version: String,
    /// Changes whenever code or configuration changes (the `RevisionId`).
    pub revision: String,
    /// `Runtime`, e.g. `python3.12`, `nodejs20.x`, `provided.al2023`.
    pub runtime: String,
    /// `Handler`, e.g. `app.handler` (unused by `provided.*`).
    pub handler: String,
    /// The function's code.
    pub code: CodeArchive,
    /// Layers, in order: merged into `/opt`, later ones over earlier ones.
    pub layers: Vec<CodeArchive>,
    /// `MemorySize` in MB.
    pub memory_mb: u32,
    /// `Timeout`.
    pub timeout: Duration,
    /// `EphemeralStorage.Size` in MB.
    pub ephemeral_storage_mb: u32,
    /// `Environment.Variables`.
    pub environment: Vec<(String, String)>,
    /// The execution role's credentials, if STS issued them.
    pub credentials: Option<Credentials>,
    /// The region the function is in.
    pub region: String,
    /// `AWS_LAMBDA_LOG_GROUP_NAME` (`/aws/lambda/NAME` unless LoggingConfig says otherwise).
    pub log_group: String,
    /// The most instances that may run at once (reserved concurrency, else the account's).
    pub max_concurrency: u32,
}

/// One invocation handed to an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvokeRequest {
    /// `Lambda-Runtime-Aws-Request-Id`.
    pub request_id: String,
    /// The event.
    pub payload: Vec<u8>,
    /// `Lambda-Runtime-Invoked-Function-Arn` (qualified when invoked with a qualifier).
    pub invoked_function_arn: String,
    /// `Lambda-Runtime-Client-Context` (JSON, as decoded from `X-Amz-Client-Context`).
    pub client_context: Option<String>,
    /// `Lambda-Runtime-Cognito-Identity`.
    pub cognito_identity: Option<String>,
    /// `Lambda-Runtime-Trace-Id`.
    pub trace_id: Option<String>,
}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FunctionResult {
    /// The function answered: its payload.
    Response(Vec<u8>),
    /// It failed (an error it reported, a timeout, a crash, an init error): the error
    /// document AWS answers with (`errorMessage`, `errorType`, `stackTrace`), sent with
    /// `X-Amz-Function-Error: Unhandled`.
    Error(Vec<u8>),
}

/// What an invocation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvokeOutcome {
    /// The answer or the error.
    pub result: FunctionResult,
    /// The invocation's log, `START` to `REPORT`, at most its last 4 KB (for `LogType: Tail`).
    pub log_tail: String,
    /// The invocation's whole log, at most its last 256 KiB (for CloudWatch Logs).
    pub log: String,
    /// The execution environment (instance) that ran it: 32 hex digits, as the log stream
    /// names it (`2026/12/02/[$LATEST]<id>`).
    pub environment_id: String,
    /// How long the handler ran.
    pub duration: Duration,
}

/// Why an invocation could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The runtime's interpreter is not installed on this host.
    #[error("{0}")]
    RuntimeUnavailable(String),
    /// Every instance allowed is busy (Lambda's `TooManyRequestsException`).
    #[error("Rate Exceeded.")]
    TooManyRequests,
    /// The code could not be unpacked or started.
    #[error("{0}")]
    Code(String),
}

/// What a zip archive holds, checked before a function or layer is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipInfo {
    /// The size of its files once unpacked, in bytes (Lambda's 250 MB limit).
    pub unzipped_size: u64,
}

/// A zip archive Lambda cannot unpack.
#[derive(Debug, thiserror::Error)]
#[error("Could not unzip uploaded file. Please check your file, then try to upload again.")]
pub struct InvalidZip;

/// What [`Host::instance_for`] found.
enum Ready {
    /// An instance to run on (new if the flag says so), held by the lease.
    Instance(Lease, Arc<Instance>, bool),
    /// Nothing could start: the outcome is known already.
    Outcome(InvokeOutcome),
}

/// Reads a zip archive's directory without unpacking it.
pub fn inspect_zip(zip: &[u8]) -> Result<ZipInfo, InvalidZip> {
    zip::inspect(zip)
}

/// The function instances of one Lambda service: none exist until the first invoke.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint_url: String,
    work: WorkDir,
    pool: Arc<Pool>,
    /// Durations and deadlines of real processes: always the machine's clock.
    clock: Clock,
    /// Whether instances may run in Linux namespaces (where available).
    namespaces: AtomicBool,
}

impl Host {
    /// A host that starts nothing until asked to invoke.
    pub fn new(config: HostConfig) -> Host {
        let clock = Clock::system();
        Host {
            inner: Arc::new(Inner {
                endpoint_url: config.endpoint_url.clone(),
                work: WorkDir::new(&config),
                pool: Pool::new(config.idle_timeout, clock.clone()),
                clock,
                namespaces: AtomicBool::new(true),
            }),
        }
    }

    /// Runs `request` on a warm instance of `function`, or a new one.
    pub async fn invoke(&self, function: &FunctionSpec, request: InvokeRequest) -> Result<InvokeOutcome, HostError> {
        let (lease, instance, cold) = match self.instance_for(function, &request).await? {
            Ready::Instance(lease, instance, cold) => (lease, instance, cold),
            Ready::Outcome(outcome) => return Ok(outcome),
        };
        let ran = invocation::run(&instance, function, request, cold, &self.inner.clock, None).await;
        lease.release(ran.reusable);
        Ok(ran.outcome)
    }

    /// Runs `request` as [`invoke`](Self::invoke) does, for `InvokeWithResponseStream`: the
    /// response comes as chunks while the function writes them (see [`ResponseStream`]).
    /// Throttling and start failures are returned here, before any chunk.
    pub async fn invoke_streaming(
        &self,
        function: &FunctionSpec,
        request: InvokeRequest,
    ) -> Result<ResponseStream, HostError> {
        let (chunks_in, chunks) = tokio::sync::mpsc::channel(16);
        let (outcome_in, outcome) = tokio::sync::oneshot::channel();
        match self.instance_for(function, &request).await? {
            Ready::Outcome(done) => {
                let _ = outcome_in.send(done);
            }
            Ready::Instance(lease, instance, cold) => {
                let (function, clock) = (function.clone(), self.inner.clock.clone());
                tokio::spawn(async move {
                    let stream = Some(chunks_in.clone());
                    let mut ran = invocation::run(&instance, &function, request, cold, &clock, stream).await;
                    lease.release(ran.reusable);
                    // A function that did not stream answers with one chunk.
                    if let FunctionResult::Response(payload) = &mut ran.outcome.result {
                        if !payload.is_empty() {
                            let payload = std::mem::take(payload);
                            let _ = chunks_in.send(payload.into()).await;
                        }
                    }
                    drop(chunks_in);
                    let _ = outcome_in.send(ran.outcome);
                });
            }
        }
        Ok(ResponseStream { chunks, outcome })
    }

    /// A warm or new instance for `function` (held by the lease), or the outcome of an
    /// invocation that could not start.
    async fn instance_for(&self, function: &FunctionSpec, request: &InvokeRequest) -> Result<Ready, HostError> {
        let inner = &*self.inner;
        let (lease, acquired) = inner.pool.acquire(function)?;
        match acquired {
            Acquired::Warm(instance) => Ok(Ready::Instance(lease, instance, false)),
            Acquired::Cold => {
                let namespaces = inner.namespaces.load(Ordering::Relaxed);
                match cold_start::start(function, &inner.work, &inner.endpoint_url, &inner.clock, namespaces).await? {
                    Started::Instance(instance) => {
                        let instance = Arc::new(instance);
                        if !lease.started(instance.clone()) {
                            return Err(HostError::Code("the function was stopped while it started".into()));
                        }
                        Ok(Ready::Instance(lease, instance, true))
                    }
                    Started::NoBootstrap(message) => {
                        Ok(Ready::Outcome(invocation::no_bootstrap(function, request, &message)))
                    }
                }
            }
        }
    }

    /// Stops every instance of the function `function_arn` (any version): on update and delete.
    pub fn stop_function(&self, function_arn: &str) {
        self.inner.pool.stop_function(function_arn);
    }

    /// Stops every instance, at shutdown, and removes the private work directory.
    pub fn shutdown(&self) {
        self.inner.pool.stop_all();
        self.inner.work.remove_private();
    }

    /// Whether new instances may run in Linux namespaces (a real `/var/task`, `/opt` and
    /// `/tmp`; the default, used where the kernel allows it) or must be plain processes.
    pub fn set_namespaces(&self, enabled: bool) {
        self.inner.namespaces.store(enabled, Ordering::Relaxed);
    }

    /// The work directory (code, layers, runtime clients), once an invoke has made it.
    pub fn work_dir(&self) -> Option<PathBuf> {
        self.inner.work.current()
    }

    /// How many instances of `function_arn` exist (busy, idle or starting).
    pub fn instance_count(&self, function_arn: &str) -> usize {
        self.inner.pool.instances(function_arn)
    }
}
