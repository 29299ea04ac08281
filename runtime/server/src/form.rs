//! Browsers' HTML form uploads (S3's POST Object), which no AWS model has an operation for. A
//! `POST` without a query string that no operation takes goes to the form uploads of the
//! service that takes unclaimed requests (S3), when they accept its path. Its body streams to
//! the service whatever its size (a form is one part after another, read as it arrives), and
//! the service's answer — status, headers, body — is sent as it gives it. What a form means is
//! the service's to say ([`FormUpload`](stratus_core::service::FormUpload)).

use http::header::{CONTENT_LENGTH, CONTENT_TYPE, ORIGIN};
use stratus_core::schema::Protocol;
use stratus_core::service::{FormAnswer, FormPost, FormUpload};
use stratus_core::{PayloadFraming, Streams};
use stratus_protocol::{Request, Response};

use crate::request_body::RequestBody;
use crate::route::X_AMZ_TARGET;
use crate::{cors, health, pipeline, streaming, Gateway};

/// A request the form uploads of a service take.
pub struct Claim<'g> {
    uploads: &'g dyn FormUpload,
    protocol: Protocol,
    /// The path-style URI the request stands for, when it addressed an S3 bucket by host.
    path_style: Option<http::Uri>,
}

/// The form uploads that take the request `parts` heads, if any do.
pub fn claim<'g>(gateway: &'g Gateway, parts: &http::request::Parts) -> Option<Claim<'g>> {
    if parts.method != http::Method::POST
        || parts.uri.query().is_some_and(|q| !q.is_empty())
        || sdk_call(&parts.headers)
    {
        return None;
    }
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &[],
    };
    let unclaimed = gateway.services.unclaimed(&req)?;
    let uploads = gateway.form_upload(unclaimed.handler.schema())?;
    if !uploads.accepts(unclaimed.uri.as_ref().unwrap_or(req.uri).path()) {
        return None;
    }
    if pipeline::route(gateway, &req).is_ok() {
        return None;
    }
    Some(Claim {
        uploads,
        protocol: unclaimed.protocol,
        path_style: unclaimed.uri,
    })
}

/// Whether the headers mark an SDK's operation call, never a browser form: a target header, or
/// the JSON, CBOR or urlencoded Query body that every other POST protocol sends. Checked first,
/// so that those requests — most of all traffic — do not pay for routing twice.
fn sdk_call(headers: &http::HeaderMap) -> bool {
    if headers.contains_key(&X_AMZ_TARGET) {
        return true;
    }
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    [
        "application/x-www-form-urlencoded",
        "application/json",
        "application/cbor",
    ]
    .iter()
    .any(|t| essence.eq_ignore_ascii_case(t))
        || essence
            .get(..18)
            .is_some_and(|p| p.eq_ignore_ascii_case("application/x-amz-"))
}

/// Hands the claimed request `parts`, whose body is `body`, to its form uploads.
pub async fn upload(
    gateway: &Gateway,
    claim: Claim<'_>,
    parts: &http::request::Parts,
    body: RequestBody,
    request_id: &str,
) -> Response {
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &[],
    };
    let service = claim.uploads.service();
    let params = pipeline::routing_params(&req);
    let signer = pipeline::signer(&req, &params).ok().flatten();
    let streams = Streams::with_request(streaming::request_reader(body));
    let ctx = pipeline::context(
        gateway,
        &req,
        signer,
        None,
        request_id,
        streams,
        PayloadFraming::default(),
    );
    health::mark_used(gateway, service);
    let url = format!(
        "http://{}{}",
        ctx.host.as_deref().unwrap_or("localhost"),
        req.uri.path()
    );
    let form = FormPost {
        path: claim.path_style.as_ref().unwrap_or(req.uri).path(),
        url: &url,
        content_type: parts.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()),
    };
    let mut response = match claim.uploads.upload(&ctx, form).await {
        Ok(answer) => answered(claim.protocol, service, answer, request_id),
        Err(error) => stratus_protocol::encode_error(claim.protocol, service, None, &error, request_id),
    };
    if let Some(origin) = parts.headers.get(ORIGIN) {
        cors::allow(gateway, &req, service, claim.path_style.as_ref(), origin, &mut response);
    }
    response
}

/// The response for the service's `answer`, with the protocol's request ids.
fn answered(
    protocol: Protocol,
    service: &'static stratus_core::schema::Service,
    answer: FormAnswer,
    request_id: &str,
) -> Response {
    let mut response = stratus_protocol::encode_empty(protocol, service, request_id);
    *response.status_mut() = http::StatusCode::from_u16(answer.status).unwrap_or(http::StatusCode::OK);
    cors::add(&mut response, answer.headers);
    // The empty answer's length goes; hyper gives the body's (and none for a 204).
    response.headers_mut().remove(CONTENT_LENGTH);
    *response.body_mut() = answer.body;
    response
}
