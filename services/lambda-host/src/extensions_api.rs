//! The Lambda Extensions API of one instance, beside its Runtime API: external extensions
//! (the executables in a layer's `extensions/` directory, started with the runtime) register
//! with `POST /2020-01-01/extension/register` and long-poll
//! `GET /2020-01-01/extension/event/next` for `INVOKE` events.
//!
//! As in Lambda (docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html), the
//! runtime gets its first event only once every extension has registered and asked for its
//! next event, and each next one only once every extension is done with the previous one
//! (has asked again): [`Extensions::ready`]. An instance stopped for being idle sends
//! `SHUTDOWN` (reason `spindown`) to the extensions that asked for it and gives them until
//! they ask for their next event, 2 seconds at most, before it is killed; an instance stopped
//! because its function changed or Stratus stops is killed at once.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use tokio::sync::Notify;

use crate::runtime_api::{error, json, json_string};
use crate::InvokeRequest;

/// The path prefix of the Extensions API.
pub(crate) const PREFIX: &str = "/2020-01-01/extension/";

/// What an extension learns when it registers.
#[derive(Debug, Clone, Default)]
pub(crate) struct FunctionInfo {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) handler: String,
}

struct Extension {
    id: String,
    invoke: bool,
    shutdown: bool,
    events: VecDeque<String>,
    /// In `/event/next` with nothing to do: done with what it was given.
    waiting: bool,
    notify: Arc<Notify>,
}

/// The extensions of one instance.
pub(crate) struct Extensions {
    expected: usize,
    info: FunctionInfo,
    registered: Mutex<Vec<Extension>>,
    /// Woken when an extension becomes ready (the runtime's `/next` may be waiting).
    pub(crate) changed: Notify,
}

impl Extensions {
    /// Extensions for an instance that starts `expected` of them.
    pub(crate) fn new(expected: usize, info: FunctionInfo) -> Extensions {
        Extensions {
            expected,
            info,
            registered: Mutex::default(),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Extension>> {
        self.registered.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the runtime may be handed an event: every extension registered and waiting.
    pub(crate) fn ready(&self) -> bool {
        if self.expected == 0 {
            return true;
        }
        let registered = self.lock();
        registered.len() >= self.expected && registered.iter().all(|e| e.waiting && e.events.is_empty())
    }

    /// Tells every extension that subscribed to `INVOKE` about `request`.
    pub(crate) fn invoked(&self, request: &InvokeRequest, deadline_ms: i64) {
        if self.expected == 0 {
            return;
        }
        let tracing = request.trace_id.as_deref().map_or_else(String::new, |trace| {
            format!(
                r#","tracing":{{"type":"X-Amzn-Trace-Id","value":{}}}"#,
                json_string(trace)
            )
        });
        let event = format!(
            r#"{{"eventType":"INVOKE","deadlineMs":{deadline_ms},"requestId":{},"invokedFunctionArn":{}{tracing}}}"#,
            json_string(&request.request_id),
            json_string(&request.invoked_function_arn),
        );
        for extension in self.lock().iter_mut().filter(|e| e.invoke) {
            extension.events.push_back(event.clone());
            extension.notify.notify_one();
        }
    }

    /// Sends `SHUTDOWN` to the extensions that subscribed; `false` if none did.
    pub(crate) fn shut_down(&self, deadline_ms: i64) -> bool {
        let event = format!(r#"{{"eventType":"SHUTDOWN","shutdownReason":"spindown","deadlineMs":{deadline_ms}}}"#);
        let mut any = false;
        for extension in self.lock().iter_mut().filter(|e| e.shutdown) {
            extension.events.push_back(event.clone());
            extension.notify.notify_one();
            any = true;
        }
        any
    }

    /// Whether every extension is done with what it was sent.
    pub(crate) fn idle(&self) -> bool {
        self.lock().iter().all(|e| e.waiting && e.events.is_empty())
    }

    /// Serves a call under [`PREFIX`].
    pub(crate) async fn route(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let path = request.uri().path().trim_start_matches(PREFIX).to_owned();
        match (request.method().clone(), path.as_str()) {
            (Method::POST, "register") => self.register(request).await,
            (Method::GET, "event/next") => match identifier(&request) {
                Some(id) => self.next(&id).await,
                None => forbidden(),
            },
            (Method::POST, "init/error" | "exit/error") => {
                let _ = request.into_body().collect().await;
                json(StatusCode::ACCEPTED, r#"{"status":"OK"}"#.to_owned())
            }
            _ => error(StatusCode::NOT_FOUND, "NotFound", "Not found"),
        }
    }

    async fn register(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let named = request
            .headers()
            .get("lambda-extension-name")
            .is_some_and(|name| !name.is_empty());
        let Ok(body) = request.into_body().collect().await else {
            return error(
                StatusCode::BAD_REQUEST,
                "InvalidRequest",
                "The request body could not be read",
            );
        };
        if !named {
            return error(
                StatusCode::BAD_REQUEST,
                "InvalidRequest",
                "Lambda-Extension-Name header is missing",
            );
        }
        // {"events": ["INVOKE", "SHUTDOWN"]}: the event names are all that matter here.
        let body = String::from_utf8_lossy(&body.to_bytes()).into_owned();
        let id = stratus_core::id::uuid();
        self.lock().push(Extension {
            id: id.clone(),
            invoke: body.contains("\"INVOKE\""),
            shutdown: body.contains("\"SHUTDOWN\""),
            events: VecDeque::new(),
            waiting: false,
            notify: Arc::new(Notify::new()),
        });
        let info = &self.info;
        let mut response = json(
            StatusCode::OK,
            format!(
                r#"{{"functionName":{},"functionVersion":{},"handler":{}}}"#,
                json_string(&info.name),
                json_string(&info.version),
                json_string(&info.handler)
            ),
        );
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert("lambda-extension-identifier", value);
        }
        response
    }

    async fn next(&self, id: &str) -> Response<Full<Bytes>> {
        loop {
            let notify = {
                let mut registered = self.lock();
                let Some(extension) = registered.iter_mut().find(|e| e.id == id) else {
                    return forbidden();
                };
                if let Some(event) = extension.events.pop_front() {
                    extension.waiting = false;
                    let mut response = json(StatusCode::OK, event);
                    if let Ok(value) = HeaderValue::from_str(&stratus_core::id::uuid()) {
                        response
                            .headers_mut()
                            .insert("lambda-extension-event-identifier", value);
                    }
                    return response;
                }
                extension.waiting = true;
                extension.notify.clone()
            };
            self.changed.notify_one();
            notify.notified().await;
        }
    }
}

fn identifier(request: &Request<Incoming>) -> Option<String> {
    request
        .headers()
        .get("lambda-extension-identifier")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn forbidden() -> Response<Full<Bytes>> {
    error(
        StatusCode::FORBIDDEN,
        "Extension.InvalidExtensionId",
        "Unknown extension identifier",
    )
}
