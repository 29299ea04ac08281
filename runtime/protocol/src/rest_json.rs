//! restJson1: the HTTP bindings of [`http_binding`] with a JSON body
//! keyed by `@jsonName` (else member names); timestamps in the body are epoch seconds.
//!
//! Requests must say what they carry and accept what the operation answers, as Smithy's server
//! frameworks require: a body needs the `Content-Type` of its input (`application/json`, or a
//! payload's media type) and an operation whose input binds nothing to the body takes none;
//! an `Accept` must admit the response's media type (refused with 415 and 406). A blob payload
//! without `@mediaType` is any media type (botocore sends such payloads without a
//! `Content-Type`), and a member bound to `Content-Type` or `Accept` makes that header data.
//!
//! Errors carry their code in the `X-Amzn-Errortype` header — the header SDKs read first —
//! and the modelled error's members in the body (header-bound ones as headers), or
//! `{"message":"…"}` for a common error, as Smithy's restJson1 specification and the SDKs'
//! parsers expect; the status is the error's `@httpError`.

use stratus_core::json::{self, KeyNames};
use stratus_core::prelude_shapes::{STRING, UNIT};
use stratus_core::schema::{Member, Operation, Protocol, Shape, ShapeType};
use stratus_core::{OperationError, Value};

use crate::failure::Failure;
use crate::http_binding::{self, BodyCodec, BodyStyle};
use crate::reply::{respond, set_header, set_request_id};
use crate::{ProtocolError, Request, Response};

/// The restJson1 body codec.
pub(crate) struct Json;

impl BodyCodec for Json {
    const PROTOCOL: Protocol = Protocol::RestJson1;
    const MEDIA_TYPE: &'static str = "application/json";
    const EMPTY_BODY: Option<&'static [u8]> = Some(b"{}");

    fn read(shape: &'static Shape, body: &[u8]) -> Result<Value, String> {
        json::decode(shape, body, KeyNames::JsonName).map_err(|e| e.message)
    }

    fn write(shape: &'static Shape, _: Option<&Member>, value: &Value, _: BodyStyle) -> Vec<u8> {
        json::encode(shape, value, KeyNames::JsonName).into_bytes()
    }
}

/// Decodes a restJson1 request into a value of `op.input`, after checking its media types.
pub(crate) fn decode(op: &'static Operation, req: &Request) -> Result<Value, ProtocolError> {
    check_content_type(op.input, req)?;
    check_accept(op, req)?;
    http_binding::decode::<Json>(op, req)
}

/// The type and subtype of a media type, without parameters, lower-cased.
fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn check_content_type(input: &'static Shape, req: &Request) -> Result<(), ProtocolError> {
    if req.body.is_empty() || http_binding::binds_header(input, "content-type") || takes_any_blob(input) {
        return Ok(());
    }
    // A structure with no members at all still reads a JSON body (`{}`); `Unit` and an input
    // whose members all travel elsewhere read none.
    let expected = if input.members.is_empty() && !std::ptr::eq(input, &UNIT) {
        Some(Json::MEDIA_TYPE)
    } else {
        http_binding::body_media_type::<Json>(input)
    };
    let (expected, found) = match (expected, req.header("content-type")) {
        (None, None) => return Ok(()),
        (None, Some(found)) => (NO_BODY, found),
        (Some(expected), None) => (expected, ""),
        (Some(expected), Some(found)) if essence(found) != essence(expected) => (expected, found),
        (Some(_), Some(_)) => return Ok(()),
    };
    Err(ProtocolError::UnsupportedMediaType {
        expected,
        found: found.to_owned(),
    })
}

/// What an input that binds nothing to the body reads.
const NO_BODY: &str = "no body";

/// A blob payload without `@mediaType` is any media type.
fn takes_any_blob(shape: &Shape) -> bool {
    http_binding::payload_member(shape)
        .is_some_and(|m| m.target.kind == ShapeType::Blob && m.target.media_type.is_none())
}

fn check_accept(op: &'static Operation, req: &Request) -> Result<(), ProtocolError> {
    let Some(accept) = req.header("accept") else {
        return Ok(());
    };
    if http_binding::binds_header(op.input, "accept") || takes_any_blob(op.output) {
        return Ok(());
    }
    let answers = http_binding::body_media_type::<Json>(op.output).unwrap_or(Json::MEDIA_TYPE);
    let (kind, _) = answers.split_once('/').unwrap_or((answers, ""));
    let admits = accept
        .split(',')
        .map(essence)
        .any(|range| range == "*/*" || range == answers || range.strip_suffix("/*") == Some(kind));
    if admits {
        Ok(())
    } else {
        Err(ProtocolError::NotAcceptable {
            expected: answers,
            found: accept.to_owned(),
        })
    }
}

pub(crate) fn encode_output(op: &'static Operation, output: &Value, request_id: &str) -> Response {
    let status = op.http.map_or(200, |r| r.code);
    let mut response = http_binding::encode::<Json>(op.output, output, status, BodyStyle::default());
    set_request_id(&mut response, request_id);
    response
}

pub(crate) fn encode_error(error: &OperationError, request_id: &str) -> Response {
    let failure = Failure::of(error);
    let mut response = match failure.modeled {
        Some((shape, value)) => http_binding::encode::<Json>(shape, value, failure.status, BodyStyle::default()),
        None => {
            let message = Value::String(failure.message.unwrap_or_default().to_owned());
            let body = format!("{{\"message\":{}}}", json::encode(&STRING, &message, KeyNames::Member));
            respond(failure.status, Some(Json::MEDIA_TYPE), body.into_bytes())
        }
    };
    set_header(&mut response, "x-amzn-errortype", failure.code);
    set_request_id(&mut response, request_id);
    response
}
