//! Browsers' cross-origin requests (CORS), which no AWS model has operations for. A preflight
//! (`OPTIONS`) request is answered by the CORS rules of the service that takes requests no
//! wire signal claims (S3: a preflight carries nothing else to route by); the answer to any
//! request with an `Origin` gets the `Access-Control-*` headers the rules of the service it
//! reached give it. What the rules allow is the service's to say
//! ([`CrossOrigin`](stratus_core::service::CrossOrigin)).

use http::header::{HeaderName, HeaderValue, ACCESS_CONTROL_REQUEST_HEADERS, ACCESS_CONTROL_REQUEST_METHOD, ORIGIN};
use stratus_core::schema::Service;
use stratus_core::service::{CrossOriginRequest, Headers};
use stratus_protocol::{Request, Response};

use crate::Gateway;

/// The answer to `req`, an `OPTIONS` request, when the service it addresses has CORS rules.
pub fn preflight(gateway: &Gateway, req: &Request<'_>, request_id: &str) -> Option<Response> {
    let unclaimed = gateway.services.unclaimed(req)?;
    let service = unclaimed.handler.schema();
    let rules = gateway.cross_origin(service)?;
    let asked = asked(req, unclaimed.uri.as_ref(), req.headers.get(ORIGIN));
    Some(match rules.preflight(&asked) {
        Ok(headers) => {
            let mut response = stratus_protocol::encode_empty(unclaimed.protocol, service, request_id);
            add(&mut response, headers);
            response
        }
        Err(error) => stratus_protocol::encode_error(unclaimed.protocol, service, None, &error.into(), request_id),
    })
}

/// Adds to `response` the headers that the CORS rules of `service`, which `req` reached, give
/// the answer to `req`, which carries `origin` (`path_style` is the URI `req` stands for when
/// it addressed its bucket by host).
pub fn allow(
    gateway: &Gateway,
    req: &Request<'_>,
    service: &'static Service,
    path_style: Option<&http::Uri>,
    origin: &HeaderValue,
    response: &mut Response,
) {
    if let Some(rules) = gateway.cross_origin(service) {
        add(response, rules.allowed(&asked(req, path_style, Some(origin))));
    }
}

/// What the rules are asked about `req`, whose path-style URI is `path_style` when it
/// addressed its bucket by host.
fn asked<'r>(
    req: &Request<'r>,
    path_style: Option<&'r http::Uri>,
    origin: Option<&'r HeaderValue>,
) -> CrossOriginRequest<'r> {
    let headers = req.headers;
    let header = |name: HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    CrossOriginRequest {
        path: path_style.unwrap_or(req.uri).path(),
        method: req.method.as_str(),
        origin: origin.and_then(|v| v.to_str().ok()),
        request_method: header(ACCESS_CONTROL_REQUEST_METHOD),
        request_headers: header(ACCESS_CONTROL_REQUEST_HEADERS),
    }
}

/// Sets each of `headers` that HTTP can carry.
pub(crate) fn add(response: &mut Response, headers: Headers) {
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::try_from(value)) {
            response.headers_mut().insert(name, value);
        }
    }
}
