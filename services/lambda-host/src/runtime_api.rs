//! The Lambda Runtime API one instance talks to, on `127.0.0.1:<ephemeral port>`
//! (`AWS_LAMBDA_RUNTIME_API`): the runtime long-polls `GET …/invocation/next` for its event
//! and answers with `POST …/invocation/{id}/response` or `…/error`, or reports a failed
//! start with `POST …/init/error`.
//!
//! Between the server and the invocation waiting for an answer sits a [`Mailbox`]: an
//! invocation is queued in it, `/next` takes it (the invocation is told: [`Event::Picked`]),
//! and the answer, or the process's exit, completes it ([`Event::Done`]).
//!
//! Status codes and error documents follow AWS's Runtime API
//! (docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html): `202 Accepted` with
//! `{"status":"OK"}`; `400` for an unknown or already answered request id; `413` for a
//! response over 6 MB (the invoker then gets `Function.ResponseSizeTooLarge`); `404` for any
//! other path. Nothing the process sends can make the server panic. The same server answers
//! the Extensions API ([`crate::extensions_api`]), whose extensions hold events back until
//! they are ready.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use stratus_core::clock::{Clock, Moment};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify};
use tokio::task::{JoinHandle, JoinSet};

use crate::extensions_api::{self, Extensions};
use crate::log::LogBuffer;
use crate::InvokeRequest;

/// The largest synchronous response Lambda returns: 6 MB (6291556 bytes, the figure AWS's
/// `Function.ResponseSizeTooLarge` message names).
pub(crate) const MAX_RESPONSE_BYTES: u64 = 6_291_556;

/// How much of an oversized body is read to tell its size before the connection is dropped.
const MAX_COUNTED_BYTES: u64 = 256 * 1024 * 1024;

const PREFIX: &str = "/2018-06-01/runtime/";

/// One invocation, queued for an instance.
pub(crate) struct Invocation {
    pub(crate) request: InvokeRequest,
    pub(crate) version: String,
    pub(crate) timeout: Duration,
    /// Whether the log keeps what the process printed before this invocation (its init).
    pub(crate) cold: bool,
    pub(crate) events: mpsc::UnboundedSender<Event>,
    /// Where a streamed response's chunks go (`invoke_streaming`), if anywhere.
    pub(crate) stream: Option<mpsc::Sender<Bytes>>,
}

/// What an invocation hears.
pub(crate) enum Event {
    /// The runtime took the event at this moment.
    Picked(Moment),
    /// It ended.
    Done(Completion),
}

/// How an invocation ended, as far as the instance can tell.
pub(crate) enum Completion {
    /// `POST …/response`.
    Response(Bytes),
    /// `POST …/error`: the error document and `Lambda-Runtime-Function-Error-Type`.
    Error(Bytes, Option<String>),
    /// `POST …/init/error`.
    InitError(Bytes, Option<String>),
    /// A streamed response ended (its chunks went to the invocation's stream), with the
    /// error document its trailers carried, if any.
    Streamed(Option<Bytes>),
    /// A response over [`MAX_RESPONSE_BYTES`], of this many bytes (or more).
    TooLarge(u64),
    /// The process ended: Go's wording of its status (`exit status 1`, `signal: killed`).
    Exited(String),
}

enum Slot {
    Empty,
    Queued(Invocation),
    Running {
        request_id: String,
        events: mpsc::UnboundedSender<Event>,
        stream: Option<mpsc::Sender<Bytes>>,
    },
}

/// Where an instance's invocation waits for the runtime.
pub(crate) struct Mailbox {
    slot: Mutex<Slot>,
    notify: Notify,
    clock: Clock,
    log: LogBuffer,
    extensions: Extensions,
}

impl Mailbox {
    pub(crate) fn new(clock: Clock, log: LogBuffer, extensions: Extensions) -> Mailbox {
        Mailbox {
            slot: Mutex::new(Slot::Empty),
            notify: Notify::new(),
            clock,
            log,
            extensions,
        }
    }

    /// Queues `invocation` for the next `/next` (the instance runs one at a time).
    pub(crate) fn queue(&self, invocation: Invocation) {
        *self.lock() = Slot::Queued(invocation);
        self.notify.notify_one();
    }

    /// Ends whatever invocation is queued or running with `completion` (the process exited).
    pub(crate) fn fail(&self, completion: Completion) {
        let slot = std::mem::replace(&mut *self.lock(), Slot::Empty);
        let events = match slot {
            Slot::Empty => return,
            Slot::Queued(invocation) => invocation.events,
            Slot::Running { events, .. } => events,
        };
        let _ = events.send(Event::Done(completion));
    }

    /// The instance's extensions.
    pub(crate) fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// Forgets the running invocation (it timed out).
    pub(crate) fn clear(&self) {
        *self.lock() = Slot::Empty;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for an invocation and marks it running.
    async fn next(&self) -> Result<(InvokeRequest, i64), Refusal> {
        loop {
            let notified = self.notify.notified();
            let extensions_changed = self.extensions.changed.notified();
            {
                let mut slot = self.lock();
                match std::mem::replace(&mut *slot, Slot::Empty) {
                    // Extensions still busy (or not yet registered) hold the event back.
                    queued @ Slot::Queued(_) if !self.extensions.ready() => *slot = queued,
                    Slot::Queued(invocation) => {
                        let now = self.clock.moment();
                        let timeout_ms = i64::try_from(invocation.timeout.as_millis()).unwrap_or(i64::MAX);
                        let deadline_ms = self.clock.epoch_millis().saturating_add(timeout_ms);
                        self.log
                            .start(&invocation.request.request_id, &invocation.version, invocation.cold);
                        self.extensions.invoked(&invocation.request, deadline_ms);
                        let _ = invocation.events.send(Event::Picked(now));
                        *slot = Slot::Running {
                            request_id: invocation.request.request_id.clone(),
                            events: invocation.events,
                            stream: invocation.stream,
                        };
                        return Ok((invocation.request, deadline_ms));
                    }
                    running @ Slot::Running { .. } => {
                        *slot = running;
                        return Err(Refusal::InvalidState);
                    }
                    Slot::Empty => {}
                }
            }
            tokio::select! {
                () = notified => {}
                () = extensions_changed => {}
            }
        }
    }

    /// Where the chunks of running invocation `request_id`'s response go: `None` when it was
    /// not invoked for a stream (its response is buffered).
    fn stream_of(&self, request_id: &str) -> Result<Option<mpsc::Sender<Bytes>>, Refusal> {
        match &*self.lock() {
            Slot::Running {
                request_id: running,
                stream,
                ..
            } if running == request_id => Ok(stream.clone()),
            _ => Err(Refusal::UnknownRequestId),
        }
    }

    /// Ends the running invocation `request_id` with `completion`.
    fn complete(&self, request_id: &str, completion: Completion) -> Result<(), Refusal> {
        let mut slot = self.lock();
        match &*slot {
            Slot::Running {
                request_id: running, ..
            } if running == request_id => {}
            _ => return Err(Refusal::UnknownRequestId),
        }
        if let Slot::Running { events, .. } = std::mem::replace(&mut *slot, Slot::Empty) {
            let _ = events.send(Event::Done(completion));
        }
        Ok(())
    }
}

/// Why the Runtime API refused a call from the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// `/next` while the event it took is unanswered.
    InvalidState,
    /// An answer for a request id that is not running (unknown, or answered already).
    UnknownRequestId,
}

impl Refusal {
    fn response(self) -> Response<Full<Bytes>> {
        match self {
            Refusal::InvalidState => error(
                StatusCode::FORBIDDEN,
                "InvalidStateTransition",
                "State transition from Running to Ready is not allowed: post the current invocation's response or error first",
            ),
            Refusal::UnknownRequestId => error(StatusCode::BAD_REQUEST, "InvalidRequestID", "Invalid request ID"),
        }
    }
}

/// A running Runtime API server; it stops when dropped.
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the Runtime API of one instance on an ephemeral loopback port.
pub(crate) async fn serve(mailbox: Arc<Mailbox>) -> std::io::Result<Server> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        // Dropping the set (when the server is aborted) ends every connection.
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let _ = stream.set_nodelay(true);
                    let mailbox = mailbox.clone();
                    connections.spawn(async move {
                        let service = hyper::service::service_fn(move |request| {
                            let mailbox = mailbox.clone();
                            async move { Ok::<_, Infallible>(route(&mailbox, request).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    });
    Ok(Server { addr, task })
}

async fn route(mailbox: &Mailbox, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    if path.starts_with(extensions_api::PREFIX) {
        return mailbox.extensions.route(request).await;
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return not_found();
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let method = request.method().clone();
    match (method, parts.as_slice()) {
        (Method::GET, ["invocation", "next"]) => match mailbox.next().await {
            Ok((event, deadline_ms)) => next_response(event, deadline_ms),
            Err(refusal) => refusal.response(),
        },
        (Method::POST, ["invocation", id, "response"]) => {
            let id = (*id).to_owned();
            let streaming = request
                .headers()
                .get("lambda-runtime-function-response-mode")
                .is_some_and(|mode| mode.as_bytes().eq_ignore_ascii_case(b"streaming"));
            if streaming {
                match mailbox.stream_of(&id) {
                    Ok(Some(stream)) => {
                        let error = forward(request.into_body(), &stream).await;
                        return accepted(mailbox.complete(&id, Completion::Streamed(error)));
                    }
                    // Invoked to be buffered: the stream is read whole, as Invoke does.
                    Ok(None) => {}
                    Err(refusal) => return refusal.response(),
                }
            }
            match read_body(request.into_body()).await {
                Body::Complete(body) => accepted(mailbox.complete(&id, Completion::Response(body))),
                Body::TooLarge(size) => match mailbox.complete(&id, Completion::TooLarge(size)) {
                    Ok(()) => error(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "RequestEntityTooLarge",
                        &format!("Exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."),
                    ),
                    Err(refusal) => refusal.response(),
                },
                Body::Broken => bad_body(),
            }
        }
        (Method::POST, ["invocation", id, "error"]) => {
            let id = (*id).to_owned();
            let error_type = error_type(&request);
            match read_body(request.into_body()).await {
                Body::Complete(body) => accepted(mailbox.complete(&id, Completion::Error(body, error_type))),
                Body::TooLarge(size) => accepted(mailbox.complete(&id, Completion::TooLarge(size))),
                Body::Broken => bad_body(),
            }
        }
        (Method::POST, ["init", "error"]) => {
            let error_type = error_type(&request);
            match read_body(request.into_body()).await {
                Body::Complete(body) => {
                    mailbox.fail(Completion::InitError(body, error_type));
                    accepted(Ok(()))
                }
                Body::TooLarge(_) | Body::Broken => bad_body(),
            }
        }
        (_, ["invocation", "next"] | ["invocation", _, "response" | "error"] | ["init", "error"]) => {
            error(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed", "Method not allowed")
        }
        _ => not_found(),
    }
}

fn next_response(event: InvokeRequest, deadline_ms: i64) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(event.payload)));
    let headers = response.headers_mut();
    headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let mut set = |name: &'static str, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    };
    set("lambda-runtime-aws-request-id", &event.request_id);
    set("lambda-runtime-deadline-ms", &deadline_ms.to_string());
    set("lambda-runtime-invoked-function-arn", &event.invoked_function_arn);
    if let Some(trace_id) = &event.trace_id {
        set("lambda-runtime-trace-id", trace_id);
    }
    if let Some(client_context) = &event.client_context {
        set("lambda-runtime-client-context", client_context);
    }
    if let Some(cognito_identity) = &event.cognito_identity {
        set("lambda-runtime-cognito-identity", cognito_identity);
    }
    response
}

fn error_type(request: &Request<Incoming>) -> Option<String> {
    request
        .headers()
        .get("lambda-runtime-function-error-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

enum Body {
    Complete(Bytes),
    TooLarge(u64),
    Broken,
}

/// Reads a body of at most [`MAX_RESPONSE_BYTES`]; past that only counts it.
async fn read_body(mut body: Incoming) -> Body {
    let mut kept = Vec::new();
    let mut size = 0u64;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return Body::Broken };
        let Ok(data) = frame.into_data() else { continue };
        size = size.saturating_add(data.len() as u64);
        if size <= MAX_RESPONSE_BYTES {
            kept.extend_from_slice(&data);
        } else if size > MAX_COUNTED_BYTES {
            break;
        }
    }
    if size > MAX_RESPONSE_BYTES {
        Body::TooLarge(size)
    } else {
        Body::Complete(Bytes::from(kept))
    }
}

/// Passes a streamed body's chunks on as they come; returns the error its trailers report
/// (`Lambda-Runtime-Function-Error-Type`, `Lambda-Runtime-Function-Error-Body` in base64).
async fn forward(mut body: Incoming, stream: &mpsc::Sender<Bytes>) -> Option<Bytes> {
    let mut listening = true;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Some(Bytes::from(crate::invocation::error_document(
                "Runtime.StreamError",
                "The response stream was interrupted",
            )));
        };
        match frame.into_data() {
            Ok(data) => {
                // A consumer that went away stops listening; the body is still read.
                if listening && stream.send(data).await.is_err() {
                    listening = false;
                }
            }
            Err(frame) => {
                let Ok(trailers) = frame.into_trailers() else { continue };
                let text = |name: &str| trailers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
                let error_type = text("lambda-runtime-function-error-type");
                let error_body = text("lambda-runtime-function-error-body")
                    .and_then(|b64| aws_smithy_types::base64::decode(b64.trim()).ok())
                    .filter(|doc| !doc.is_empty());
                match (error_type, error_body) {
                    (_, Some(document)) => return Some(Bytes::from(document)),
                    (Some(error_type), None) => {
                        return Some(Bytes::from(crate::invocation::error_document(&error_type, "")))
                    }
                    (None, None) => {}
                }
            }
        }
    }
    None
}

fn accepted(done: Result<(), Refusal>) -> Response<Full<Bytes>> {
    match done {
        Ok(()) => json(StatusCode::ACCEPTED, r#"{"status":"OK"}"#.to_owned()),
        Err(refusal) => refusal.response(),
    }
}

fn bad_body() -> Response<Full<Bytes>> {
    error(
        StatusCode::BAD_REQUEST,
        "InvalidRequest",
        "The request body could not be read",
    )
}

fn not_found() -> Response<Full<Bytes>> {
    error(StatusCode::NOT_FOUND, "NotFound", "Not found")
}

/// The Runtime API's error document.
pub(crate) fn error(status: StatusCode, error_type: &str, message: &str) -> Response<Full<Bytes>> {
    json(status, crate::invocation::error_document(error_type, message))
}

pub(crate) fn json(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// `text` as a JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    stratus_core::json::write_string(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;

    /// Sends `raw` on a new connection and reads the whole answer.
    async fn send(addr: SocketAddr, raw: &[u8]) -> String {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(raw).await.expect("write");
        // Nothing more comes: a server waiting for a promised body sees the end.
        let _ = stream.shutdown().await;
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    }

    fn post(path: &str, body: &str) -> Vec<u8> {
        format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }

    fn get(path: &str) -> Vec<u8> {
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes()
    }

    fn request(id: &str) -> InvokeRequest {
        InvokeRequest {
            request_id: id.into(),
            payload: b"{}".to_vec(),
            invoked_function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f".into(),
            client_context: None,
            cognito_identity: None,
            trace_id: Some("Root=1-2-3".into()),
        }
    }

    async fn server() -> (Arc<Mailbox>, Server) {
        let extensions = Extensions::new(0, extensions_api::FunctionInfo::default());
        let mailbox = Arc::new(Mailbox::new(Clock::system(), LogBuffer::default(), extensions));
        let server = serve(mailbox.clone()).await.expect("serve");
        (mailbox, server)
    }

    #[tokio::test]
    async fn malformed_calls_get_4xx_and_the_server_keeps_serving() {
        let (_mailbox, server) = server().await;
        let addr = server.addr;
        let answer = send(addr, &get("/2018-06-01/runtime/nothing")).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        let answer = send(addr, &get("/elsewhere")).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        let answer = send(addr, &get("/2018-06-01/runtime/invocation/abc/response")).await;
        assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
        let answer = send(addr, &post("/2018-06-01/runtime/invocation/abc/response", "{}")).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert!(
            answer.ends_with(r#"{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}"#),
            "{answer}"
        );
        let answer = send(addr, b"\x00\x01 not http at all\r\n\r\n").await;
        assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 400"), "{answer}");
        let answer = send(
            addr,
            b"POST /2018-06-01/runtime/init/error HTTP/1.1\r\nContent-Length: 99\r\n\r\nshort",
        )
        .await;
        assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 400"), "{answer}");
        let answer = send(addr, &get("/2018-06-01/runtime/invocation/next/../next")).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    }

    #[tokio::test]
    async fn an_invocation_goes_through_next_and_response() {
        let (mailbox, server) = server().await;
        let (events, mut heard) = mpsc::unbounded_channel();
        mailbox.queue(Invocation {
            request: request("req-1"),
            version: "$LATEST".into(),
            timeout: Duration::from_secs(3),
            cold: true,
            events,
            stream: None,
        });
        let answer = send(server.addr, &get("/2018-06-01/runtime/invocation/next")).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("lambda-runtime-aws-request-id: req-1\r\n"), "{answer}");
        assert!(answer.contains("lambda-runtime-trace-id: Root=1-2-3\r\n"), "{answer}");
        assert!(answer.contains("lambda-runtime-deadline-ms: "), "{answer}");
        assert!(answer.ends_with("\r\n\r\n{}"), "{answer}");
        assert!(matches!(heard.recv().await, Some(Event::Picked(_))));
        // A second /next before the answer is refused.
        let answer = send(server.addr, &get("/2018-06-01/runtime/invocation/next")).await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        let answer = send(
            server.addr,
            &post("/2018-06-01/runtime/invocation/req-1/response", "42"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
        assert!(matches!(heard.recv().await, Some(Event::Done(Completion::Response(body))) if &body[..] == b"42"));
        let answer = send(
            server.addr,
            &post("/2018-06-01/runtime/invocation/req-1/response", "43"),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 400"), "answered twice: {answer}");
    }

    #[tokio::test]
    async fn errors_carry_their_type() {
        let (mailbox, server) = server().await;
        let (events, mut heard) = mpsc::unbounded_channel();
        mailbox.queue(Invocation {
            request: request("req-2"),
            version: "1".into(),
            timeout: Duration::from_secs(3),
            cold: false,
            events,
            stream: None,
        });
        send(server.addr, &get("/2018-06-01/runtime/invocation/next")).await;
        let raw = "POST /2018-06-01/runtime/invocation/req-2/error HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
                   Lambda-Runtime-Function-Error-Type: Custom.Thing\r\nContent-Length: 2\r\n\r\n{}";
        let answer = send(server.addr, raw.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
        assert!(heard.recv().await.is_some()); // picked
        match heard.recv().await {
            Some(Event::Done(Completion::Error(body, error_type))) => {
                assert_eq!(&body[..], b"{}");
                assert_eq!(error_type.as_deref(), Some("Custom.Thing"));
            }
            _ => panic!("expected an error completion"),
        }
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n\u{1}"), r#""a\"b\\c\n\u0001""#);
    }
}
