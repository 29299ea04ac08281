//! The request log (target `stratus::request`): one line per request at `info` — the service
//! and operation (or the method and path of a request no operation took), the status, the
//! error code when there is one, the duration and the request id; at `debug` a second line
//! with how it was routed, its headers and the body sizes; at `trace` the bodies, truncated.
//! `--quiet-requests` leaves it out; `--log-format json` writes each line as JSON.

use std::sync::OnceLock;
use std::time::Duration;

use stratus_core::schema::{Operation, Protocol, Service};

/// Bodies are logged (at `trace`) up to this many bytes.
const BODY_LOG_BYTES: usize = 1024;

/// What the pipeline learnt of a request as it served it.
#[derive(Default)]
pub struct Outcome {
    /// The operation it was routed to, in its service and protocol.
    routed: OnceLock<(&'static Service, &'static Operation, Protocol)>,
    /// The error it was answered with, if any.
    error: OnceLock<String>,
}

impl Outcome {
    /// The request was routed to `operation` of `service`, read in `protocol`.
    pub fn routed(&self, service: &'static Service, operation: &'static Operation, protocol: Protocol) {
        let _ = self.routed.set((service, operation, protocol));
    }

    /// The request was answered with the error `code` (the first one set stands).
    pub fn failed(&self, code: &str) {
        let _ = self.error.set(code.to_owned());
    }
}

/// One request, as the log tells it.
pub struct Served<'r> {
    /// The request's head.
    pub parts: &'r http::request::Parts,
    /// Its id, as its answer carries it.
    pub request_id: &'r str,
    /// Its answer's status.
    pub status: u16,
    /// How long it took to answer (a streamed body's transfer not included).
    pub duration: Duration,
    /// Its body, when read whole (a streamed one is not).
    pub body: Option<&'r [u8]>,
    /// Its answer's body, when whole.
    pub answer: Option<&'r [u8]>,
}

/// Logs `served`, whose serving `outcome` describes.
pub fn log(outcome: &Outcome, served: &Served<'_>) {
    if !tracing::enabled!(target: "stratus::request", tracing::Level::INFO) {
        return;
    }
    let routed = outcome.routed.get();
    let what = match routed {
        // As `stratus models` and `--services` name it: `sqs`, `cloudwatch-logs`.
        Some((service, operation, _)) => format!(
            "{}.{}",
            service.sdk_id.to_ascii_lowercase().replace(' ', "-"),
            operation.name
        ),
        None => format!("{} {}", served.parts.method, served.parts.uri.path()),
    };
    let error = outcome.error.get().map(String::as_str);
    let duration_ms = (served.duration.as_secs_f64() * 1e6).round() / 1e3;
    tracing::info!(
        target: "stratus::request",
        request_id = served.request_id,
        status = served.status,
        error,
        duration_ms,
        "{what}"
    );
    if tracing::enabled!(target: "stratus::request", tracing::Level::DEBUG) {
        let routing = match routed {
            Some((_, _, protocol)) => format!("{protocol:?}"),
            None => "no operation".to_owned(),
        };
        let headers: Vec<String> = served
            .parts
            .headers
            .iter()
            .map(|(name, value)| format!("{name}: {}", String::from_utf8_lossy(value.as_bytes())))
            .collect();
        tracing::debug!(
            target: "stratus::request",
            request_id = served.request_id,
            routing,
            uri = %served.parts.uri,
            headers = ?headers,
            request_bytes = served.body.map(<[u8]>::len),
            response_bytes = served.answer.map(<[u8]>::len),
            "{what}"
        );
    }
    if tracing::enabled!(target: "stratus::request", tracing::Level::TRACE) {
        tracing::trace!(
            target: "stratus::request",
            request_id = served.request_id,
            request_body = served.body.map(truncated),
            response_body = served.answer.map(truncated),
            "{what}"
        );
    }
}

/// `body` as text, cut at [`BODY_LOG_BYTES`].
fn truncated(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(BODY_LOG_BYTES)]);
    if body.len() > BODY_LOG_BYTES {
        format!("{text}… ({} bytes)", body.len())
    } else {
        text.into_owned()
    }
}
