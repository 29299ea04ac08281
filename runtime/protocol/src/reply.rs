//! Building responses without ever failing: a header value that HTTP cannot carry is left
//! out rather than turned into a panic or a 500.

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use http::StatusCode;

use crate::Response;

/// A response with `status` and `body`, its `Content-Length` (stated even when zero, as
/// clients may require, unless the status allows no body) and `Content-Type` when given. A
/// member bound to `Content-Length` (S3's `HeadObject`) overrides it afterwards.
pub(crate) fn respond(status: u16, content_type: Option<&'static str>, body: Vec<u8>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let bodiless = status.is_informational() || status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED;
    let length = HeaderValue::from(body.len());
    let mut response = Response::new(body);
    if !bodiless {
        response.headers_mut().insert(CONTENT_LENGTH, length);
    }
    *response.status_mut() = status;
    // A static value is shared, not copied.
    if let Some(Ok(ct)) = content_type.map(|ct| HeaderValue::from_maybe_shared(Bytes::from_static(ct.as_bytes()))) {
        response.headers_mut().insert(CONTENT_TYPE, ct);
    }
    response
}

/// The header the JSON, Query, rpcv2 and REST protocols answer the request id in.
const REQUEST_ID: HeaderName = HeaderName::from_static("x-amzn-requestid");

/// Sets `x-amzn-requestid`, unless the id is not valid HTTP.
pub(crate) fn set_request_id(response: &mut Response, request_id: &str) {
    if let Ok(value) = HeaderValue::from_str(request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
}

/// Sets header `name`, unless name or value are not valid HTTP.
pub(crate) fn set_header(response: &mut Response, name: &str, value: &str) {
    if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
        response.headers_mut().insert(name, value);
    }
}

/// Adds a value to header `name` (kept beside earlier ones), unless not valid HTTP.
pub(crate) fn append_header(response: &mut Response, name: &str, value: &str) {
    if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
        response.headers_mut().append(name, value);
    }
}
