//! restJson1: the HTTP bindings of [`http_binding`] with a JSON body
//! keyed by `@jsonName` (else member names); timestamps in the body are epoch seconds.
//!
//! Errors carry their code in the `X-Amzn-Errortype` header — the header SDKs read first —
//! and the modelled error's members in the body (header-bound ones as headers), or
//! `{"message":"…"}` for a common error, as Smithy's restJson1 specification and the SDKs'
//! parsers expect; the status is the error's `@httpError`.

use stratus_core::json::{self, KeyNames};
use stratus_core::prelude_shapes::STRING;
use stratus_core::schema::{Operation, Protocol, Shape, XmlNamespace};
use stratus_core::{OperationError, Value};

use crate::failure::Failure;
use crate::http_binding::{self, BodyCodec};
use crate::reply::{respond, set_header};
use crate::Response;

/// The restJson1 body codec.
pub(crate) struct Json;

impl BodyCodec for Json {
    const PROTOCOL: Protocol = Protocol::RestJson1;
    const MEDIA_TYPE: &'static str = "application/json";
    const EMPTY_BODY: Option<&'static [u8]> = Some(b"{}");

    fn read(shape: &'static Shape, body: &[u8]) -> Result<Value, String> {
        json::decode(shape, body, KeyNames::JsonName).map_err(|e| e.message)
    }

    fn write(shape: &'static Shape, value: &Value, _: Option<XmlNamespace>) -> Vec<u8> {
        json::encode(shape, value, KeyNames::JsonName).into_bytes()
    }
}

pub(crate) fn encode_output(op: &'static Operation, output: &Value, request_id: &str) -> Response {
    let status = op.http.map_or(200, |r| r.code);
    let mut response = http_binding::encode::<Json>(op.output, output, status, None);
    set_header(&mut response, "x-amzn-requestid", request_id);
    response
}

pub(crate) fn encode_error(error: &OperationError, request_id: &str) -> Response {
    let failure = Failure::of(error);
    let mut response = match failure.modeled {
        Some((shape, value)) => http_binding::encode::<Json>(shape, value, failure.status, None),
        None => {
            let message = Value::String(failure.message.unwrap_or_default().to_owned());
            let body = format!("{{\"message\":{}}}", json::encode(&STRING, &message, KeyNames::Member));
            respond(failure.status, Some(Json::MEDIA_TYPE), body.into_bytes())
        }
    };
    set_header(&mut response, "x-amzn-errortype", failure.code);
    set_header(&mut response, "x-amzn-requestid", request_id);
    response
}
