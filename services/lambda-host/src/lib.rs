//! Runs Lambda functions as host processes behind AWS's Runtime API.
//!
//! INTERFACE SKELETON (branch lambda-base): the types and signatures the Lambda service
//! codes against; the bodies are filled in on the lambda-host branch.

#![warn(missing_docs)]

use std::path::PathBuf;
use std::time::Duration;

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

/// Reads a zip archive's directory without unpacking it.
pub fn inspect_zip(_zip: &[u8]) -> Result<ZipInfo, InvalidZip> {
    todo!("lambda-host branch")
}

/// The function instances of one Lambda service: none exist until the first invoke.
#[derive(Clone)]
pub struct Host {}

impl Host {
    /// A host that starts nothing until asked to invoke.
    pub fn new(_config: HostConfig) -> Host {
        todo!("lambda-host branch")
    }

    /// Runs `request` on a warm instance of `function`, or a new one.
    pub async fn invoke(&self, _function: &FunctionSpec, _request: InvokeRequest) -> Result<InvokeOutcome, HostError> {
        todo!("lambda-host branch")
    }

    /// Stops every instance of the function `function_arn` (any version): on update and delete.
    pub fn stop_function(&self, _function_arn: &str) {
        todo!("lambda-host branch")
    }

    /// Stops every instance, at shutdown.
    pub fn shutdown(&self) {
        todo!("lambda-host branch")
    }
}
