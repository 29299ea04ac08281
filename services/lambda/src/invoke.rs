//! Running functions: the stored version turned into the host's `FunctionSpec`, synchronous
//! runs, and the [`FunctionInvoker`] other services call (asynchronous runs are queued by
//! `queued.rs`).

use std::time::Duration;

use base64::Engine;
use stratus_core::service::capabilities::{Invocation, InvocationResult, InvocationType};
use stratus_core::service::{BoxFuture, Caller, FunctionInvoker, RoleCredentials};
use stratus_core::AwsError;
use stratus_lambda_host::{CodeArchive, Credentials, FunctionResult, FunctionSpec, HostError, InvokeRequest};

use crate::error::function_not_found;
use crate::function_logs;
use crate::function_metrics::Measured;
use crate::names::{FunctionRef, Qualifier};
use crate::policy::lets_service_invoke;
use crate::records::{FunctionRecord, VersionConfig};
use crate::routing;
use crate::service::{lock, LambdaService};

/// The largest synchronous payload, in bytes.
pub(crate) const MAX_SYNC_PAYLOAD: usize = 6_291_456;
/// The account's concurrency, which reserved concurrency is carved out of.
pub(crate) const ACCOUNT_CONCURRENCY: i32 = 1000;

/// What one synchronous run answered.
#[derive(Debug, Clone)]
pub(crate) struct Ran {
    pub(crate) payload: Vec<u8>,
    pub(crate) function_error: Option<String>,
    pub(crate) log_tail: String,
    pub(crate) executed_version: String,
}

/// Why a run did not happen, as Lambda answers it.
#[derive(Debug)]
pub(crate) enum RunError {
    /// Not found, and the like.
    Aws(AwsError),
    /// Throttled; the `Reason` Lambda gives.
    Throttled(&'static str),
}

impl From<AwsError> for RunError {
    fn from(e: AwsError) -> RunError {
        RunError::Aws(e)
    }
}

impl RunError {
    pub(crate) fn into_aws(self) -> AwsError {
        match self {
            RunError::Aws(e) => e,
            RunError::Throttled(_) => AwsError::new("TooManyRequestsException", "Rate Exceeded.", 429),
        }
    }
}

/// The version an invocation of `f` runs, and the record it belongs to.
pub(crate) fn target(record: &FunctionRecord, f: &FunctionRef) -> Result<VersionConfig, AwsError> {
    let missing = || function_not_found(&f.latest_qualified_arn());
    match Qualifier::of(f.qualifier.as_deref()) {
        Qualifier::Latest => Ok(record.latest.clone()),
        Qualifier::Version(n) => record.versions.get(&n).cloned().ok_or_else(missing),
        Qualifier::Alias(a) => {
            let alias = record.aliases.get(a).ok_or_else(missing)?;
            let version = routing::choose(&alias.function_version, &alias.weights, routing::draw());
            crate::ops::version_named(record, version).cloned().ok_or_else(missing)
        }
    }
}

impl LambdaService {
    /// Runs `f` once with `payload`.
    pub(crate) async fn run(
        &self,
        f: &FunctionRef,
        payload: Vec<u8>,
        client_context: Option<String>,
        request_id: &str,
    ) -> Result<Ran, RunError> {
        let record = self.function(f, &f.latest_qualified_arn())?;
        if record.reserved_concurrency == Some(0) {
            self.publish_metrics(f, Measured::Throttled);
            return Err(RunError::Throttled("ReservedFunctionConcurrentInvocationLimitExceeded"));
        }
        let cfg = target(&record, f)?;
        let spec = self.spec(f, &record, &cfg).await?;
        let request = InvokeRequest {
            request_id: request_id.to_owned(),
            payload,
            invoked_function_arn: f.qualified_arn(),
            client_context,
            cognito_identity: None,
            trace_id: None,
        };
        match self.host().invoke(&spec, request).await {
            Ok(outcome) => {
                let stream = function_logs::stream_name(self.now_ms(), &cfg.version, &outcome.environment_id);
                self.write_log(&f.account, &f.region, &cfg.logging.log_group, stream, &outcome.log);
                let (payload, function_error) = match outcome.result {
                    FunctionResult::Response(p) => (p, None),
                    FunctionResult::Error(p) => (p, Some("Unhandled".to_owned())),
                };
                let ran = Measured::Ran {
                    version: &cfg.version,
                    duration: outcome.duration,
                    failed: function_error.is_some(),
                };
                self.publish_metrics(f, ran);
                Ok(Ran {
                    payload,
                    function_error,
                    log_tail: outcome.log_tail,
                    executed_version: cfg.version,
                })
            }
            Err(HostError::TooManyRequests) => {
                self.publish_metrics(f, Measured::Throttled);
                Err(RunError::Throttled("ConcurrentInvocationLimitExceeded"))
            }
            // The closest Lambda answers: the runtime cannot be run here (the message names
            // what to install), or the package cannot be unpacked.
            Err(HostError::RuntimeUnavailable(message)) => {
                Err(AwsError::new("InvalidRuntimeException", message, 502).into())
            }
            Err(HostError::Code(message)) => Err(AwsError::new("InvalidZipFileException", message, 502).into()),
        }
    }

    /// The host's view of version `cfg` of `record`.
    async fn spec(
        &self,
        f: &FunctionRef,
        record: &FunctionRecord,
        cfg: &VersionConfig,
    ) -> Result<FunctionSpec, AwsError> {
        let Some(blob) = &cfg.code.blob else {
            return Err(AwsError::new(
                "InvalidRuntimeException",
                "Stratus runs functions from zip packages only: container images are not run.",
                502,
            ));
        };
        let code = CodeArchive {
            zip_path: self.code_file(&f.account, &f.region, blob).await?,
            sha256: cfg.code.sha256.clone(),
        };
        let mut layers = Vec::with_capacity(cfg.layers.len());
        for layer in &cfg.layers {
            let (account, region) = layer_home(&layer.arn).unwrap_or((f.account.clone(), f.region.clone()));
            layers.push(CodeArchive {
                zip_path: self.code_file(&account, &region, &layer.blob).await?,
                sha256: layer.sha256.clone(),
            });
        }
        Ok(FunctionSpec {
            function_arn: f.arn(),
            function_name: record.name.clone(),
            version: cfg.version.clone(),
            revision: cfg.revision_id.clone(),
            runtime: cfg.runtime.clone().unwrap_or_default(),
            handler: cfg.handler.clone().unwrap_or_default(),
            code,
            layers,
            memory_mb: u32::try_from(cfg.memory_size).unwrap_or(128),
            timeout: Duration::from_secs(u64::try_from(cfg.timeout).unwrap_or(3)),
            ephemeral_storage_mb: u32::try_from(cfg.ephemeral_storage).unwrap_or(512),
            environment: cfg.environment.clone().unwrap_or_default().into_iter().collect(),
            credentials: self.role_credentials(f, &cfg.role, &record.name).await,
            region: f.region.clone(),
            log_group: cfg.logging.log_group.clone(),
            max_concurrency: u32::try_from(record.reserved_concurrency.unwrap_or(ACCOUNT_CONCURRENCY)).unwrap_or(1),
        })
    }

    /// The execution role's credentials from STS, cached until five minutes before they
    /// expire; none when STS is not served or refuses.
    async fn role_credentials(&self, f: &FunctionRef, role: &str, name: &str) -> Option<Credentials> {
        let sessions = self.shared.role_sessions.as_ref()?;
        let key = (f.account.clone(), role.to_owned(), name.to_owned());
        let now = self.shared.scheduler.clock().epoch_secs();
        let fresh = |c: &RoleCredentials| c.expiration.secs() > i64::try_from(now).unwrap_or(i64::MAX) + 300;
        let cached = lock(&self.shared.credentials).get(&key).filter(|c| fresh(c)).cloned();
        let issued = match cached {
            Some(c) => c,
            None => {
                let caller = Caller::service("lambda.amazonaws.com", &f.account, &f.region);
                match sessions.assume_for_service(caller, role, name, 3600).await {
                    Ok(c) => {
                        lock(&self.shared.credentials).insert(key, c.clone());
                        c
                    }
                    Err(e) => {
                        tracing::warn!(function = name, role, error = %e, "no credentials for the execution role");
                        return None;
                    }
                }
            }
        };
        Some(Credentials {
            access_key_id: issued.access_key_id,
            secret_access_key: issued.secret_access_key,
            session_token: issued.session_token,
        })
    }
}

/// The account and region a layer version ARN names.
fn layer_home(arn: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = arn.split(':').collect();
    (parts.len() >= 5).then(|| (parts[4].to_owned(), parts[3].to_owned()))
}

pub(crate) fn too_large(limit: usize) -> AwsError {
    AwsError::new(
        "RequestTooLargeException",
        format!("Request must be smaller than {limit} bytes for the InvokeFunction operation"),
        413,
    )
}

/// Base64 of the last 4 KB of a log, for `X-Amz-Log-Result`.
pub(crate) fn log_result(tail: &str) -> String {
    let bytes = tail.as_bytes();
    let start = bytes.len().saturating_sub(4096);
    base64::engine::general_purpose::STANDARD.encode(&bytes[start..])
}

/// Invocations other services make (S3 notifications, SNS, EventBridge, event source
/// mappings), for `caller`'s account and region.
impl FunctionInvoker for LambdaService {
    fn invoke<'a>(
        &'a self,
        caller: Caller<'a>,
        invocation: Invocation,
    ) -> BoxFuture<'a, Result<InvocationResult, AwsError>> {
        Box::pin(async move {
            let f = FunctionRef::parse(
                &invocation.function,
                invocation.qualifier.as_deref(),
                caller.account_id,
                caller.region,
            )?;
            match invocation.invocation_type {
                InvocationType::DryRun => {
                    let record = self.function(&f, &f.latest_qualified_arn())?;
                    target(&record, &f)?;
                    if !lets_service_invoke(&record, &f, caller.principal, invocation.source_arn.as_deref()) {
                        return Err(AwsError::new(
                            "AccessDeniedException",
                            format!(
                                "{} is not authorized to perform: lambda:InvokeFunction on resource: {}",
                                caller.principal,
                                f.qualified_arn()
                            ),
                            403,
                        ));
                    }
                    Ok(InvocationResult {
                        status: 204,
                        payload: Vec::new(),
                        function_error: None,
                        executed_version: None,
                    })
                }
                InvocationType::Event => {
                    self.enqueue(&f, invocation.payload, stratus_core::id::uuid()).await?;
                    Ok(InvocationResult {
                        status: 202,
                        payload: Vec::new(),
                        function_error: None,
                        executed_version: None,
                    })
                }
                InvocationType::RequestResponse => {
                    if invocation.payload.len() > MAX_SYNC_PAYLOAD {
                        return Err(too_large(MAX_SYNC_PAYLOAD));
                    }
                    let ran = self
                        .run(&f, invocation.payload, None, &stratus_core::id::uuid())
                        .await
                        .map_err(RunError::into_aws)?;
                    Ok(InvocationResult {
                        status: 200,
                        payload: ran.payload,
                        function_error: ran.function_error,
                        executed_version: Some(ran.executed_version),
                    })
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_results_keep_the_last_4kb() {
        let long = "x".repeat(5000);
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(log_result(&long))
            .unwrap();
        assert_eq!(decoded.len(), 4096);
    }
}
