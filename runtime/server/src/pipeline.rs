//! One request, end to end: route, decode, validate, call the service, encode — or, for a
//! CORS preflight, ask the service's CORS rules ([`cors`]), which also add their headers to
//! the answer to any request with an `Origin`; or, for an HTML form upload, hand it to the
//! service's form uploads ([`form`]).
//!
//! Every failure becomes AWS's error in the request's protocol; a panic anywhere in the
//! pipeline is caught, logged with the request id and answered as AWS's internal error, and
//! the server keeps serving.

use std::any::Any;
use std::future::Future;
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use aws_smithy_json::serialize::JsonObjectWriter;
use bytes::Bytes;
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Body as _;
use stratus_core::clock::Clock;
use stratus_core::service::Identity;
use stratus_core::validate::validate_input;
use stratus_core::{AwsError, BodyReader, OperationError, PayloadFraming, RequestContext, Streams};
use stratus_protocol::{urlencoded, Request, Response};

use crate::compression;
use crate::request_body::{RequestBody, Stalled};
use crate::request_log::{self, Outcome};
use crate::route::{Route, Unrouted};
use crate::sigv4::{PresignError, Signer};
use crate::streaming::{self, ChannelBody};
use crate::{authorize, clock_endpoint, cors, form, health, identity, verify, virtual_host, web, Gateway};

/// The body of a response: whole, or streamed from a service.
pub type GatewayBody = Either<Full<Bytes>, ChannelBody>;

/// Serves one HTTP request, and logs it ([`request_log`]).
pub async fn handle(
    gateway: &Gateway,
    req: hyper::Request<RequestBody>,
    client: IpAddr,
) -> hyper::Response<GatewayBody> {
    // How long serving took on the machine's clock, not the emulated one.
    let started = tokio::time::Instant::now();
    let request_id = stratus_core::id::uuid();
    let (mut parts, body) = req.into_parts();
    crate::sigv4::lift_presigned_headers(&mut parts);
    let outcome = Outcome::default();
    let mut read = None;
    let response = respond(gateway, &parts, body, &request_id, client, &outcome, &mut read).await;
    if !gateway.config.request_log {
        return response;
    }
    let duration = started.elapsed();
    // The answer's bytes, for the trace level only: a whole body is taken out and put back.
    let (head, body) = response.into_parts();
    let (body, answer) = match body {
        Either::Left(whole) if tracing::enabled!(target: "stratus::request", tracing::Level::TRACE) => {
            let bytes = whole.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
            (Either::Left(Full::new(bytes.clone())), Some(bytes))
        }
        body => (body, None),
    };
    request_log::log(
        &outcome,
        &request_log::Served {
            parts: &parts,
            request_id: &request_id,
            status: head.status.as_u16(),
            duration,
            body: read.as_deref(),
            answer: answer.as_deref(),
        },
    );
    hyper::Response::from_parts(head, body)
}

/// Answers one HTTP request, telling `outcome` how; leaves its body in `read` when it is read
/// whole.
async fn respond(
    gateway: &Gateway,
    parts: &http::request::Parts,
    body: RequestBody,
    request_id: &str,
    client: IpAddr,
    outcome: &Outcome,
    read: &mut Option<Bytes>,
) -> hyper::Response<GatewayBody> {
    if let Err(error) = gateway.config.limits.check_head(parts) {
        outcome.failed(&error.code);
        return unread_body(gateway, parts, &error, request_id);
    }
    if let Some(response) = health::answer(gateway, parts) {
        return into_hyper(response, None);
    }
    if let Some(response) = clock_endpoint::answer(gateway, parts).await {
        return into_hyper(response, None);
    }
    if let Some(endpoints) = web::claim(gateway, parts) {
        let answered = web::answer(gateway, endpoints, parts, body, request_id, client);
        return match CatchUnwind(std::pin::pin!(answered)).await {
            Ok(response) => response,
            Err(panic) => panicked(&panic, request_id, outcome),
        };
    }
    if let Some(claim) = form::claim(gateway, parts) {
        let uploaded = form::upload(gateway, claim, parts, body, request_id);
        return match CatchUnwind(std::pin::pin!(uploaded)).await {
            Ok(response) => into_hyper(response, None),
            Err(panic) => panicked(&panic, request_id, outcome),
        };
    }
    let (body, streams) = if streams_payload(gateway, parts) {
        (Bytes::new(), Streams::with_request(streaming::request_reader(body)))
    } else {
        match read_body(body, gateway.config.max_body_bytes).await {
            Ok(body) => (body, Streams::default()),
            Err(error) => {
                outcome.failed(&error.code);
                return unread_body(gateway, parts, &error, request_id);
            }
        }
    };
    let served = CatchUnwind(std::pin::pin!(serve(
        gateway, parts, &body, request_id, streams, client, outcome
    )))
    .await;
    *read = Some(body);
    match served {
        Ok((response, streamed)) => into_hyper(response, streamed),
        Err(panic) => panicked(&panic, request_id, outcome),
    }
}

/// The whole of a request's body, refused past `limit` bytes. A body that arrives as one frame
/// — every small request — is taken as it is, without collecting.
pub(crate) async fn read_body(body: RequestBody, limit: usize) -> Result<Bytes, AwsError> {
    let unreadable = |e: Box<dyn std::error::Error + Send + Sync>| {
        if e.is::<http_body_util::LengthLimitError>() {
            AwsError::new(
                "RequestEntityTooLarge",
                "Request body is larger than Stratus accepts",
                413,
            )
        } else if e.is::<Stalled>() {
            // S3's words for an upload whose client stopped sending.
            AwsError::new(
                "RequestTimeout",
                "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.",
                400,
            )
        } else {
            AwsError::new("IncompleteBody", "The request body could not be read", 400)
        }
    };
    let mut body = Limited::new(body, limit);
    let first = match body.frame().await {
        None => return Ok(Bytes::new()),
        Some(frame) => frame.map_err(unreadable)?.into_data().unwrap_or_default(),
    };
    if body.is_end_stream() {
        return Ok(first);
    }
    let rest = body.collect().await.map_err(unreadable)?.to_bytes();
    let mut whole = Vec::with_capacity(first.len() + rest.len());
    whole.extend_from_slice(&first);
    whole.extend_from_slice(&rest);
    Ok(whole.into())
}

/// The answer to the request `parts` heads, refused with `error` before its body was read (or
/// while it was): in the protocol of the operation its head routes to, else in the JSON
/// protocols' shape. The connection is closed after it, as AWS closes it, since the rest of the
/// body would otherwise be read as the next request.
pub(crate) fn unread_body(
    gateway: &Gateway,
    parts: &http::request::Parts,
    error: &AwsError,
    request_id: &str,
) -> hyper::Response<GatewayBody> {
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &[],
    };
    let mut response = match route(gateway, &req) {
        Ok(route) => stratus_protocol::encode_error(
            route.protocol,
            route.handler.schema(),
            Some(route.operation),
            &error.clone().into(),
            request_id,
        ),
        Err(_) => plain_json_error(error, request_id),
    };
    response
        .headers_mut()
        .insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
    into_hyper(response, None)
}

/// The answer to a request whose handling panicked with `panic`, logged.
fn panicked(panic: &Box<dyn Any + Send>, request_id: &str, outcome: &Outcome) -> hyper::Response<GatewayBody> {
    tracing::error!(request_id, panic = panic_message(panic), "request handler panicked");
    outcome.failed("InternalError");
    into_hyper(
        plain_json_error(
            &AwsError::internal("We encountered an internal error. Please try again."),
            request_id,
        ),
        None,
    )
}

/// Whether the request's payload streams to its service: a large body for an operation whose
/// input payload is `@streaming` (which only REST routing, from the method, path, query and
/// headers, can tell before the body is read).
fn streams_payload(gateway: &Gateway, parts: &http::request::Parts) -> bool {
    if !streaming::may_stream(&parts.headers) {
        return false;
    }
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &[],
    };
    route(gateway, &req).is_ok_and(|route| streaming::has_streaming_payload(route.operation))
}

/// Routes `req` by its wire signals: method, path, query string, headers and — when `req`
/// carries it — a urlencoded form body (an empty body routes a request before it is read).
pub fn route(gateway: &Gateway, req: &Request<'_>) -> Result<Route, Unrouted> {
    let params = routing_params(req);
    let signer = signer(req, &params).ok().flatten();
    gateway.services.route(req, signer.as_ref(), &params)
}

/// Serves a request whose body is `body` (empty when it streams in `streams`); returns the
/// response and the payload the service streams, if it streams one.
async fn serve(
    gateway: &Gateway,
    parts: &http::request::Parts,
    body: &Bytes,
    request_id: &str,
    streams: Streams,
    client: IpAddr,
    outcome: &Outcome,
) -> (Response, Option<BodyReader>) {
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body,
    };
    // A Query request's `Action` is in its form body, so a gzipped one is inflated to route it.
    let inflated_form = (compression::gzipped(req.headers) && is_form(req.headers))
        .then(|| compression::gunzip(body, gateway.config.max_body_bytes).ok())
        .flatten();
    let routed = Request {
        body: inflated_form.as_ref().unwrap_or(body),
        ..req
    };
    if parts.method == http::Method::OPTIONS {
        if let Some(response) = cors::preflight(gateway, &req, request_id) {
            return (response, None);
        }
    }
    let params = routing_params(&routed);
    let signed = signer(&req, &params);
    let route = match gateway
        .services
        .route(&routed, signed.as_ref().ok().and_then(Option::as_ref), &params)
    {
        Ok(route) => route,
        Err(Unrouted {
            error,
            target: Some((handler, protocol)),
        }) => {
            outcome.failed(&error.code);
            let format = stratus_protocol::body_format(protocol, &req);
            let response =
                stratus_protocol::encode_error_as(format, protocol, handler.schema(), None, &error.into(), request_id);
            return (response, None);
        }
        Err(Unrouted { error, target: None }) => {
            outcome.failed(&error.code);
            return (plain_json_error(&error, request_id), None);
        }
    };
    outcome.routed(route.handler.schema(), route.operation, route.protocol);
    let (mut response, streamed) = call(
        gateway,
        &req,
        inflated_form.as_ref(),
        &route,
        signed,
        request_id,
        streams,
        client,
        outcome,
    )
    .await;
    if let Some(origin) = parts.headers.get(http::header::ORIGIN) {
        cors::allow(
            gateway,
            &req,
            route.handler.schema(),
            route.uri.as_ref(),
            origin,
            &mut response,
        );
    }
    (response, streamed)
}

/// Calls the operation `route` found for `req` (its body already inflated when `inflated`),
/// signed as `signed` says; returns the response and the payload the service streams, if it
/// streams one.
#[allow(clippy::too_many_arguments)] // the request, its route and signer, and what it is told and tells
async fn call(
    gateway: &Gateway,
    req: &Request<'_>,
    inflated: Option<&Bytes>,
    route: &Route,
    signed: Result<Option<Signer<'_>>, PresignError>,
    request_id: &str,
    streams: Streams,
    client: IpAddr,
    outcome: &Outcome,
) -> (Response, Option<BodyReader>) {
    let refusal = presign_refusal(&signed, &gateway.config.clock);
    let signer = signed.ok().flatten();
    let service = route.handler.schema();
    let format = stratus_protocol::body_format(route.protocol, req);
    let refuse = |error: OperationError| {
        outcome.failed(error.code());
        stratus_protocol::encode_error_as(
            format,
            route.protocol,
            service,
            Some(route.operation),
            &error,
            request_id,
        )
    };
    if let Some(error) = refusal {
        return (refuse(error.into()), None);
    }
    let inflated = match inflated {
        Some(body) if compression::inflates(route.protocol) => Some(body.clone()),
        _ if compression::gzipped(req.headers) && compression::inflates(route.protocol) => {
            match compression::gunzip(req.body, gateway.config.max_body_bytes) {
                Ok(body) => Some(body),
                Err(e) => return (refuse(e.into()), None),
            }
        }
        _ => None,
    };
    // The signature covers the body as sent; the input is decoded from it inflated.
    let addressed = Request {
        uri: route.uri.as_ref().unwrap_or(req.uri),
        body: inflated.as_deref().unwrap_or(req.body),
        ..*req
    };
    let input = match stratus_protocol::decode(route.protocol, service, route.operation, &addressed) {
        Ok(input) => input,
        Err(e) => return (refuse(AwsError::from(e).into()), None),
    };
    if let Err(e) = validate_input(service, route.operation, &input) {
        return (refuse(e), None);
    }
    let mut identity = match identity::identify(
        &gateway.key_directories,
        &gateway.unknown_keys,
        signer.map(|s| s.access_key_id),
        signer.and_then(|s| s.region).unwrap_or(&gateway.config.region),
        gateway.config.clock.epoch_secs(),
        service,
        route.protocol,
    ) {
        Ok(identity) => identity,
        Err(e) => return (refuse(e.into()), None),
    };
    if gateway.config.verify_signatures {
        let target = verify::Target {
            service,
            operation: route.operation,
            protocol: route.protocol,
            host_bucket: host_bucket(req, route),
        };
        let now = gateway.config.clock.epoch_millis();
        let checked = verify::check(
            req,
            streams.has_request(),
            &target,
            identity.as_ref(),
            now,
            &gateway.signing_keys,
        );
        match checked {
            Ok(Some(chunks)) => streams.set_chunk_signatures(chunks),
            Ok(None) => {}
            Err(e) => return (refuse(e.into()), None),
        }
    }
    let framing = if streaming::has_streaming_payload(route.operation) {
        streaming::framing(req.headers)
    } else {
        PayloadFraming::default()
    };
    // The session's grants are for authorization; the context keeps the principal.
    let session = identity.as_mut().and_then(|identity| identity.session.take());
    let mut ctx = context(gateway, req, signer, identity, request_id, streams, framing);
    ctx.source_ip = Some(client);
    let call = authorize::Call {
        service,
        operation: route.operation,
        protocol: route.protocol,
        input: &input,
    };
    if let Err(e) = authorize::check(&gateway.authorizers, gateway.config.iam, &call, &ctx, session.as_ref()) {
        return (refuse(e.into()), None);
    }
    health::mark_used(gateway, service);
    match route.handler.call(&ctx, route.operation, input).await {
        Ok(output) => {
            let mut response = stratus_protocol::encode_output_as(
                format,
                route.protocol,
                service,
                route.operation,
                output,
                request_id,
            );
            for (name, value) in ctx.answer_headers.take() {
                if let Ok(value) = http::HeaderValue::from_str(&value) {
                    response.headers_mut().insert(name, value);
                }
            }
            (response, ctx.streams.take_response())
        }
        Err(error) => {
            if let OperationError::Aws(e) = &error {
                if e.http_status >= 500 && e.http_status != 501 {
                    tracing::error!(request_id, code = e.code, message = e.message, "service failed");
                }
            }
            (refuse(error), None)
        }
    }
}

/// What the service serving `req`, signed by `signer`, knows about it.
pub(crate) fn context(
    gateway: &Gateway,
    req: &Request<'_>,
    signer: Option<Signer<'_>>,
    identity: Option<Identity>,
    request_id: &str,
    streams: Streams,
    framing: PayloadFraming,
) -> RequestContext {
    let (account_id, principal) = match identity {
        Some(identity) => (identity.account_id, Some(identity.principal)),
        None => (gateway.config.account_for(signer), None),
    };
    RequestContext {
        account_id,
        region: signer
            .and_then(|s| s.region)
            .unwrap_or(&gateway.config.region)
            .to_string(),
        request_id: request_id.to_string(),
        access_key_id: signer.map(|s| s.access_key_id.to_string()),
        principal,
        source_ip: None,
        trace_header: req
            .headers
            .get("x-amzn-trace-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        host: request_host(req),
        streams,
        framing,
        clock: gateway.config.clock.clone(),
        answer_headers: Default::default(),
    }
}

/// The bucket a virtual-hosted S3 request's `Host` names: the request was routed by a path
/// the gateway rewrote.
fn host_bucket<'r>(req: &Request<'r>, route: &Route) -> Option<&'r str> {
    route.uri.as_ref()?;
    let host = req.headers.get(http::header::HOST)?.to_str().ok()?;
    virtual_host::bucket_of(host)
}

/// The authority the client addressed: the `Host` header, or HTTP/2's `:authority`.
fn request_host(req: &Request<'_>) -> Option<String> {
    authority(req.headers, req.uri).map(String::from)
}

/// The `Host` header of `headers`, or HTTP/2's `:authority` in `uri`.
pub(crate) fn authority<'r>(headers: &'r http::HeaderMap, uri: &'r http::Uri) -> Option<&'r str> {
    headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| uri.authority().map(|a| a.as_str()))
}

/// A routing parameter, borrowed from the request unless it needed decoding.
type FormParam<'r> = urlencoded::Pair<'r>;

/// The parameters routing and caller identity read; the protocol decodes the rest.
const ROUTING_PARAMS: [&str; 7] = [
    "Action",
    "Version",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "AWSAccessKeyId",
    "Expires",
];

/// The routing parameters of a request: its query string's, then its urlencoded form body's
/// (which a Query request's `Action` usually comes in). Decoded as the Query protocol decodes
/// them; a pair that does not decode is left for the protocol to refuse.
pub(crate) fn routing_params<'r>(req: &Request<'r>) -> Vec<FormParam<'r>> {
    let body: &[u8] = if is_form(req.headers) { req.body } else { &[] };
    // Pair by pair: bytes that are not UTF-8 in one pair (which the protocol refuses later, in
    // the service's error shape) do not hide the others from routing.
    let body_pairs = body
        .split(|&b| b == b'&')
        .filter_map(|pair| std::str::from_utf8(pair).ok())
        .flat_map(urlencoded::pairs);
    urlencoded::pairs(req.uri.query().unwrap_or_default())
        .chain(body_pairs)
        .filter_map(Result::ok)
        .filter(|(k, _)| ROUTING_PARAMS.contains(&k.as_ref()))
        .collect()
}

/// Whether `headers` say the body is a urlencoded form.
fn is_form(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/x-www-form-urlencoded"))
}

/// Who signed the request: its `Authorization` header, else presigned query parameters among
/// `params` (`Err` when their expiry cannot be read).
pub(crate) fn signer<'a>(req: &Request<'a>, params: &'a [FormParam<'_>]) -> Result<Option<Signer<'a>>, PresignError> {
    if let Some(auth) = req
        .headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        return Ok(Signer::from_authorization(auth));
    }
    Signer::from_query(params.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))
}

/// Why a presigned request is refused, if it is: unusable expiry parameters, or expired.
fn presign_refusal(signer: &Result<Option<Signer<'_>>, PresignError>, clock: &Clock) -> Option<AwsError> {
    match signer {
        Err(PresignError(message)) => Some(AwsError::new("AuthorizationQueryParametersError", *message, 400)),
        // Only a presigned request has an expiry: the clock is not read for any other.
        Ok(Some(signer)) if signer.expires_at.is_some() => signer
            .expired(clock.epoch_millis().div_euclid(1000))
            .then(|| AwsError::new("AccessDenied", "Request has expired", 403)),
        Ok(_) => None,
    }
}

/// An error for a request no service could be found for, in the JSON protocols' shape.
pub(crate) fn plain_json_error(error: &AwsError, request_id: &str) -> Response {
    let mut body = String::new();
    let mut object = JsonObjectWriter::new(&mut body);
    object.key("__type").string(&error.code);
    object.key("message").string(&error.message);
    object.finish();
    http::Response::builder()
        .status(error.http_status)
        .header("content-type", "application/x-amz-json-1.1")
        .header("x-amzn-requestid", request_id)
        .header("x-amzn-errortype", error.code.as_str())
        .body(body.into_bytes())
        .unwrap_or_default()
}

/// The hyper response: `response`, with `streamed` as its body when the service streams one.
pub(crate) fn into_hyper(response: Response, streamed: Option<BodyReader>) -> hyper::Response<GatewayBody> {
    match streamed {
        Some(reader) => response.map(|_| Either::Right(streaming::response_body(reader))),
        None => response.map(|body| Either::Left(Full::new(Bytes::from(body)))),
    }
}

fn panic_message(panic: &Box<dyn Any + Send>) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Polls a pinned future, turning a panic into an error.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = Pin::new(&mut self.0);
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}
