//! Running functions: the stored version turned into the host's `FunctionSpec`, synchronous
//! runs, the durable queue of asynchronous (`Event`) invocations with Lambda's retries and
//! destinations, and the [`FunctionInvoker`] other services call.

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use stratus_core::service::capabilities::{Invocation, InvocationResult, InvocationType};
use stratus_core::service::{BoxFuture, Caller, FunctionInvoker, RoleCredentials};
use stratus_core::AwsError;
use stratus_lambda_host::{CodeArchive, Credentials, FunctionResult, FunctionSpec, HostError, InvokeRequest};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange, Table};

use crate::error::{self, function_not_found};
use crate::names::{FunctionRef, Qualifier, LATEST};
use crate::records::{FunctionRecord, QueuedEvent, VersionConfig};
use crate::routing;
use crate::service::{lock, LambdaService};

/// Queued asynchronous invocations by (due time in ms, id).
pub(crate) const EVENTS: Table<QueuedEvent> = Table::new("events");

/// The largest synchronous payload, in bytes.
pub(crate) const MAX_SYNC_PAYLOAD: usize = 6_291_456;
/// The largest asynchronous payload, in bytes.
pub(crate) const MAX_ASYNC_PAYLOAD: usize = 1_048_576;
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
                let (payload, function_error) = match outcome.result {
                    FunctionResult::Response(p) => (p, None),
                    FunctionResult::Error(p) => (p, Some("Unhandled".to_owned())),
                };
                Ok(Ran {
                    payload,
                    function_error,
                    log_tail: outcome.log_tail,
                    executed_version: cfg.version,
                })
            }
            Err(HostError::TooManyRequests) => Err(RunError::Throttled("ConcurrentInvocationLimitExceeded")),
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

    /// Queues an `Event` invocation of `f` durably and answers once it is written.
    pub(crate) async fn enqueue(&self, f: &FunctionRef, payload: Vec<u8>, id: String) -> Result<(), AwsError> {
        if payload.len() > MAX_ASYNC_PAYLOAD {
            return Err(too_large(MAX_ASYNC_PAYLOAD));
        }
        let record = self.function(f, &f.latest_qualified_arn())?;
        target(&record, f)?;
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let _ = self.shared.settings.runtime.set(handle);
        }
        let now = self.now_ms();
        let event = QueuedEvent {
            id: id.clone(),
            function: record.name,
            qualifier: f.qualifier.clone(),
            payload,
            attempts: 0,
            queued_ms: now,
            due_ms: now,
        };
        self.transact(&f.account, &f.region, move |tx| {
            EVENTS.put(tx, event_key(&event), &event).map_err(error::storage)
        })
        .await?;
        self.schedule_drain(&f.account, &f.region, now);
        Ok(())
    }

    /// Makes sure a drain of the account's and region's queue runs at `due_ms` (or earlier).
    fn schedule_drain(&self, account: &str, region: &str, due_ms: i64) {
        let key = (account.to_owned(), region.to_owned());
        {
            let mut draining = lock(&self.shared.draining);
            if draining.get(&key).is_some_and(|&at| at <= due_ms) {
                return;
            }
            draining.insert(key.clone(), due_ms);
        }
        let delay = Duration::from_millis(u64::try_from(due_ms - self.now_ms()).unwrap_or(0));
        let lambda = self.clone();
        self.shared.scheduler.after(delay, move || {
            let Some(handle) = lambda.shared.settings.runtime.get().cloned() else {
                // Only right after start, before the binary has its runtime running.
                lock(&lambda.shared.draining).remove(&key);
                let soon = lambda.now_ms() + 100;
                lambda.schedule_drain(&key.0, &key.1, soon);
                return;
            };
            handle.spawn(async move {
                lock(&lambda.shared.draining).remove(&key);
                let one_at_a_time = lock(&lambda.shared.drain_locks).entry(key.clone()).or_default().clone();
                let _draining = one_at_a_time.lock().await;
                lambda.drain(&key.0, &key.1).await;
            });
        });
    }

    /// Runs every due event of the queue of `account` and `region`, then schedules the next.
    async fn drain(&self, account: &str, region: &str) {
        loop {
            let Ok(store) = self.store(account, region) else { return };
            let Ok(queued) = EVENTS.scan(&*store, &KeyRange::all(), Direction::Forward, Some(16)) else {
                return;
            };
            let now = self.now_ms();
            let due: Vec<QueuedEvent> = queued
                .iter()
                .map(|(_, e)| e.clone())
                .filter(|e| e.due_ms <= now)
                .collect();
            if due.is_empty() {
                if let Some((_, next)) = queued.first() {
                    self.schedule_drain(account, region, next.due_ms);
                }
                return;
            }
            for event in due {
                self.deliver(account, region, event).await;
            }
        }
    }

    /// Runs one queued event, and retries, gives up or reports it as Lambda does.
    async fn deliver(&self, account: &str, region: &str, event: QueuedEvent) {
        let f = FunctionRef {
            account: account.to_owned(),
            region: region.to_owned(),
            name: event.function.clone(),
            qualifier: event.qualifier.clone(),
        };
        let record = self.function(&f, &f.arn()).ok();
        let eic_key = f.qualifier.clone().unwrap_or_else(|| LATEST.to_owned());
        let eic = record
            .as_ref()
            .and_then(|r| r.event_invoke.get(&eic_key).cloned())
            .unwrap_or_default();
        let dead_letter = record
            .as_ref()
            .and_then(|r| target(r, &f).ok())
            .and_then(|c| c.dead_letter_target);
        let attempts = event.attempts + 1;
        let outcome = match record {
            Some(_) => self.run(&f, event.payload.clone(), None, &event.id).await,
            None => Err(RunError::Aws(function_not_found(&f.arn()))),
        };
        let now = self.now_ms();
        let max_retries = u32::try_from(eic.maximum_retry_attempts.unwrap_or(2)).unwrap_or(2);
        let max_age_ms = i64::from(eic.maximum_event_age_in_seconds.unwrap_or(21_600)) * 1000;
        let failed = !matches!(&outcome, Ok(ran) if ran.function_error.is_none());
        let retry_at = now + 60_000 * i64::from(attempts);
        let retry =
            failed && record_exists(&outcome) && attempts <= max_retries && retry_at - event.queued_ms < max_age_ms;
        let old_key = event_key(&event);
        let requeued = retry.then(|| QueuedEvent {
            attempts,
            due_ms: retry_at,
            ..event.clone()
        });
        let next = requeued.clone();
        let written = self
            .transact(account, region, move |tx| {
                EVENTS.delete(tx, old_key);
                if let Some(next) = &next {
                    EVENTS.put(tx, event_key(next), next).map_err(error::storage)?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = written {
            tracing::error!(error = %e, "could not update the queue of asynchronous invocations");
            return;
        }
        if let Some(next) = requeued {
            self.schedule_drain(account, region, next.due_ms);
            return;
        }
        let destination = if failed {
            eic.on_failure.clone().or(dead_letter.clone())
        } else {
            eic.on_success.clone()
        };
        let Some(destination) = destination else { return };
        let body = if !failed || eic.on_failure.is_some() {
            destination_record(
                &f,
                &event,
                attempts,
                &outcome,
                now,
                retry_at - event.queued_ms >= max_age_ms,
            )
        } else {
            String::from_utf8_lossy(&event.payload).into_owned()
        };
        self.send_to(account, region, &destination, body).await;
    }

    /// Sends a destination record to an SQS queue; other destination types are not served.
    async fn send_to(&self, account: &str, region: &str, destination: &str, body: String) {
        let is_queue = destination.starts_with("arn:") && destination.split(':').nth(2) == Some("sqs");
        match (&self.shared.messages, is_queue) {
            (Some(queues), true) => {
                let caller = Caller::service("lambda.amazonaws.com", account, region);
                if let Err(e) = queues.send(caller, destination, body).await {
                    tracing::warn!(destination, error = %e, "could not deliver to the destination");
                }
            }
            _ => tracing::warn!(destination, "destination not served by Stratus: record dropped"),
        }
    }

    /// After a restart: drains the queues left with events in them.
    pub(crate) fn resume_queued_events(&self) {
        let Ok(namespaces) = self.shared.storage.regional_namespaces("lambda") else {
            return;
        };
        for ns in namespaces {
            let Some(region) = ns.region.as_deref() else {
                continue;
            };
            let account = ns.account.as_str();
            let Ok(store) = self.store(account, region) else {
                continue;
            };
            if let Ok(first) = EVENTS.scan(&*store, &KeyRange::all(), Direction::Forward, Some(1)) {
                if let Some((_, event)) = first.first() {
                    self.schedule_drain(account, region, event.due_ms);
                }
            }
        }
    }
}

/// Whether a failed run's function still exists (a deleted one is not retried).
fn record_exists(outcome: &Result<Ran, RunError>) -> bool {
    !matches!(outcome, Err(RunError::Aws(e)) if e.code == "ResourceNotFoundException")
}

fn event_key(event: &QueuedEvent) -> Vec<u8> {
    TupleKey::new()
        .u64(u64::try_from(event.due_ms).unwrap_or(0))
        .str(&event.id)
        .into_bytes()
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

/// A payload as a destination record carries it: parsed when it is JSON.
fn as_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// The record Lambda sends to a destination after an asynchronous invocation.
fn destination_record(
    f: &FunctionRef,
    event: &QueuedEvent,
    attempts: u32,
    outcome: &Result<Ran, RunError>,
    now_ms: i64,
    too_old: bool,
) -> String {
    let (condition, status, executed, function_error, response) = match outcome {
        Ok(ran) if ran.function_error.is_none() => (
            "Success",
            200,
            ran.executed_version.clone(),
            None,
            Some(as_json(&ran.payload)),
        ),
        Ok(ran) => (
            if too_old {
                "EventAgeExceeded"
            } else {
                "RetriesExhausted"
            },
            200,
            ran.executed_version.clone(),
            ran.function_error.clone(),
            Some(as_json(&ran.payload)),
        ),
        Err(_) => (
            if too_old {
                "EventAgeExceeded"
            } else {
                "RetriesExhausted"
            },
            500,
            f.version_or_latest().to_owned(),
            Some("Unhandled".to_owned()),
            None,
        ),
    };
    let timestamp = {
        let secs = now_ms.div_euclid(1000);
        let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(secs);
        format!(
            "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
            now_ms.rem_euclid(1000)
        )
    };
    let mut response_context = serde_json::Map::new();
    response_context.insert("statusCode".into(), json!(status));
    response_context.insert("executedVersion".into(), json!(executed));
    if let Some(e) = function_error {
        response_context.insert("functionError".into(), json!(e));
    }
    let mut record = serde_json::Map::new();
    record.insert("version".into(), json!("1.0"));
    record.insert("timestamp".into(), json!(timestamp));
    record.insert(
        "requestContext".into(),
        json!({
            "requestId": event.id,
            "functionArn": f.latest_qualified_arn(),
            "condition": condition,
            "approximateInvokeCount": attempts,
        }),
    );
    record.insert("requestPayload".into(), as_json(&event.payload));
    record.insert("responseContext".into(), Value::Object(response_context));
    if let Some(response) = response {
        record.insert("responsePayload".into(), response);
    }
    Value::Object(record).to_string()
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
    fn destination_records_have_aws_shape() {
        let f = FunctionRef {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "f".into(),
            qualifier: None,
        };
        let event = QueuedEvent {
            id: "id-1".into(),
            function: "f".into(),
            qualifier: None,
            payload: br#"{"a":1}"#.to_vec(),
            attempts: 2,
            queued_ms: 0,
            due_ms: 0,
        };
        let ran = Ran {
            payload: br#"{"errorMessage":"boom"}"#.to_vec(),
            function_error: Some("Unhandled".into()),
            log_tail: String::new(),
            executed_version: "$LATEST".into(),
        };
        let record: Value = serde_json::from_str(&destination_record(&f, &event, 3, &Ok(ran), 1_000, false)).unwrap();
        assert_eq!(record["version"], "1.0");
        assert_eq!(record["timestamp"], "1970-01-01T00:00:01.000Z");
        assert_eq!(record["requestContext"]["condition"], "RetriesExhausted");
        assert_eq!(record["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(
            record["requestContext"]["functionArn"],
            "arn:aws:lambda:us-east-1:000000000000:function:f:$LATEST"
        );
        assert_eq!(record["requestPayload"]["a"], 1);
        assert_eq!(record["responseContext"]["functionError"], "Unhandled");
        assert_eq!(record["responsePayload"]["errorMessage"], "boom");
    }

    #[test]
    fn log_results_keep_the_last_4kb() {
        let long = "x".repeat(5000);
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(log_result(&long))
            .unwrap();
        assert_eq!(decoded.len(), 4096);
    }
}
