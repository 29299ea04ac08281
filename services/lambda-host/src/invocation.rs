//! One invocation on one instance, from handing the event over to the outcome: waits for
//! the runtime to take it (within the init limit on a cold start) and to answer (within the
//! function's timeout), and turns every way it can end into AWS's error document and log.
//!
//! The documents are AWS's:
//! - timeout: `{"errorType":"Sandbox.Timedout","errorMessage":"RequestId: ID Error: Task timed
//!   out after 3.00 seconds"}`, the current form (docs.aws.amazon.com/lambda/latest/dg/
//!   troubleshooting-invocation.html, "Sandbox.Timedout"; before 2023 the message was
//!   `<timestamp> <id> Task timed out after 3.00 seconds`, which the log line still is);
//! - process exit: `Runtime.ExitError`, `RequestId: ID Error: Runtime exited with error: exit
//!   status 1`;
//! - response over 6 MB: `Function.ResponseSizeTooLarge`, `Response payload size (N bytes)
//!   exceeded maximum allowed payload size (6291556 bytes).`

use std::time::Duration;

use bytes::Bytes;
use stratus_core::clock::{Clock, Moment};
use tokio::sync::mpsc;

use crate::instance::Instance;
use crate::log::{self, Report};
use crate::runtime_api::{json_string, Completion, Event, Invocation, MAX_RESPONSE_BYTES};
use crate::{FunctionResult, FunctionSpec, InvokeOutcome, InvokeRequest};

/// How long a new instance may take to start (Lambda's init phase limit).
pub(crate) const INIT_LIMIT: Duration = Duration::from_secs(10);

/// How an invocation ended, for the pool: can the instance take the next one?
pub(crate) struct Ran {
    pub(crate) outcome: InvokeOutcome,
    pub(crate) reusable: bool,
}

/// Runs `request` on `instance` (new if `cold`).
pub(crate) async fn run(
    instance: &Instance,
    spec: &FunctionSpec,
    request: InvokeRequest,
    cold: bool,
    clock: &Clock,
    stream: Option<mpsc::Sender<Bytes>>,
) -> Ran {
    let request_id = request.request_id.clone();
    let (events, mut heard) = mpsc::unbounded_channel();
    instance.send(Invocation {
        request,
        version: spec.version.clone(),
        timeout: spec.timeout,
        cold,
        events,
        stream,
    });
    let ending = Ending {
        instance,
        spec,
        request_id: &request_id,
        clock,
        init_duration: None,
    };
    let first_wait = if cold { INIT_LIMIT } else { spec.timeout.max(INIT_LIMIT) };
    let picked = match tokio::time::timeout(first_wait, heard.recv()).await {
        Ok(Some(Event::Picked(at))) => at,
        Ok(Some(Event::Done(completion))) => {
            let init = cold.then(|| clock.moment().since(instance.spawned));
            instance.log.start(&request_id, &spec.version, true);
            return Ending {
                init_duration: init,
                ..ending
            }
            .completed(completion, clock.moment())
            .await;
        }
        Ok(None) => {
            return ending
                .completed(Completion::Exited("exit status unknown".into()), clock.moment())
                .await
        }
        Err(_) => {
            instance.log.start(&request_id, &spec.version, true);
            return ending.timed_out(clock.moment(), INIT_LIMIT).await;
        }
    };
    let ending = Ending {
        init_duration: cold.then(|| picked.since(instance.spawned)),
        ..ending
    };
    match tokio::time::timeout(spec.timeout, heard.recv()).await {
        Ok(Some(Event::Done(completion))) => ending.completed(completion, picked).await,
        Ok(Some(Event::Picked(_)) | None) => {
            ending
                .completed(Completion::Exited("exit status unknown".into()), picked)
                .await
        }
        Err(_) => ending.timed_out(picked, spec.timeout).await,
    }
}

/// What every ending needs to write its log and outcome.
struct Ending<'a> {
    instance: &'a Instance,
    spec: &'a FunctionSpec,
    request_id: &'a str,
    clock: &'a Clock,
    init_duration: Option<Duration>,
}

impl Ending<'_> {
    async fn completed(self, completion: Completion, started: Moment) -> Ran {
        let duration = self.clock.moment().since(started);
        self.instance.drain_output().await;
        let id = self.request_id;
        match completion {
            Completion::Response(body) => {
                self.finish(FunctionResult::Response(body.to_vec()), duration, &[], None, true)
            }
            Completion::Error(body, error_type) => {
                // A runtime that posts no document still names the error in its header.
                let document = if body.is_empty() {
                    error_document(error_type.as_deref().unwrap_or("Unhandled"), "")
                } else {
                    body.to_vec()
                };
                self.finish(FunctionResult::Error(document), duration, &[], None, true)
            }
            Completion::InitError(body, error_type) => {
                let error_type = error_type.unwrap_or_else(|| "Runtime.Unknown".into());
                self.finish(
                    FunctionResult::Error(body.to_vec()),
                    duration,
                    &[],
                    Some(("error", &error_type)),
                    false,
                )
            }
            Completion::Streamed(None) => self.finish(FunctionResult::Response(Vec::new()), duration, &[], None, true),
            Completion::Streamed(Some(document)) => {
                self.finish(FunctionResult::Error(document.to_vec()), duration, &[], None, true)
            }
            Completion::TooLarge(size) => {
                let message = format!(
                    "Response payload size ({size} bytes) exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
                );
                let document = error_document("Function.ResponseSizeTooLarge", &message);
                self.finish(FunctionResult::Error(document), duration, &[], None, true)
            }
            Completion::Exited(status) => {
                let message = format!("RequestId: {id} Error: Runtime exited with error: {status}");
                let document = error_document("Runtime.ExitError", &message);
                let lines = [message, "Runtime.ExitError".to_owned()];
                self.finish(
                    FunctionResult::Error(document),
                    duration,
                    &lines,
                    Some(("error", "Runtime.ExitError")),
                    false,
                )
            }
        }
    }

    async fn timed_out(self, started: Moment, limit: Duration) -> Ran {
        self.instance.abandon();
        self.instance.kill();
        self.instance.drain_output().await;
        let duration = self.clock.moment().since(started);
        let id = self.request_id;
        let seconds = format!("{:.2}", limit.as_secs_f64());
        let document = error_document(
            "Sandbox.Timedout",
            &format!("RequestId: {id} Error: Task timed out after {seconds} seconds"),
        );
        let now = self.clock.epoch_millis();
        let stamp = format!(
            "{}.{:03}Z",
            stratus_core::calendar::format_iso8601(now.div_euclid(1000)).trim_end_matches('Z'),
            now.rem_euclid(1000)
        );
        let lines = [format!("{stamp} {id} Task timed out after {seconds} seconds")];
        self.finish(
            FunctionResult::Error(document),
            duration,
            &lines,
            Some(("timeout", "")),
            false,
        )
    }

    fn finish(
        self,
        result: FunctionResult,
        duration: Duration,
        before_end: &[String],
        status: Option<(&str, &str)>,
        reusable: bool,
    ) -> Ran {
        let report = Report {
            request_id: self.request_id,
            duration,
            memory_mb: self.spec.memory_mb,
            max_memory_used_mb: log::max_memory_used_mb(self.instance.runtime_pid()),
            init_duration: self.init_duration,
            status: status.map(|(s, _)| s),
            error_type: status.map(|(_, t)| t).filter(|t| !t.is_empty()),
        };
        let mut lines = before_end.to_vec();
        lines.push(log::end_line(self.request_id));
        lines.push(report.line());
        let log = self.instance.log.finish(&lines);
        Ran {
            outcome: InvokeOutcome {
                result,
                log_tail: log::tail(&log),
                log,
                environment_id: self.instance.environment_id.clone(),
                duration,
            },
            reusable: reusable && !self.instance.has_exited(),
        }
    }
}

/// `{"errorMessage":…,"errorType":…}`.
pub(crate) fn error_document(error_type: &str, message: &str) -> Vec<u8> {
    format!(
        r#"{{"errorMessage":{},"errorType":{}}}"#,
        json_string(message),
        json_string(error_type)
    )
    .into_bytes()
}

/// The outcome of invoking a custom runtime without a bootstrap (nothing was started).
pub(crate) fn no_bootstrap(spec: &FunctionSpec, request: &InvokeRequest, message: &str) -> InvokeOutcome {
    let id = &request.request_id;
    let message = format!("RequestId: {id} Error: {message}");
    let report = Report {
        request_id: id,
        duration: Duration::ZERO,
        memory_mb: spec.memory_mb,
        max_memory_used_mb: 0,
        init_duration: None,
        status: Some("error"),
        error_type: Some("Runtime.InvalidEntrypoint"),
    };
    let log = log::LogBuffer::default();
    log.start(id, &spec.version, false);
    let log = log.finish(&[
        message.clone(),
        "Runtime.InvalidEntrypoint".to_owned(),
        log::end_line(id),
        report.line(),
    ]);
    InvokeOutcome {
        result: FunctionResult::Error(error_document("Runtime.InvalidEntrypoint", &message)),
        log_tail: log::tail(&log),
        log,
        environment_id: crate::instance::environment_id(),
        duration: Duration::ZERO,
    }
}
