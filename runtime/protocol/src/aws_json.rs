//! awsJson1_0 and awsJson1_1: `POST /` with `X-Amz-Target: <ServiceShape>.<Operation>` and a
//! JSON body keyed by member names; JSON answers.
//!
//! Errors are `{"__type":"<namespace>#<Code>","message":"…"}` (awsJson1_1: the bare `<Code>`)
//! plus the modelled error's members,
//! with the status of the error's `@httpError`. Services with `@awsQueryCompatible` (SQS) also
//! send `x-amzn-query-error: <QueryCode>;<Sender|Receiver>`, so that SDKs that used to speak
//! Query see the codes they know.
//!
//! A request whose body is `application/x-amz-cbor-1.1` (Kinesis's Java SDK) is read as CBOR
//! and answered in CBOR, timestamps as tag 1 over epoch milliseconds
//! ([`BodyFormat::AmzCbor`](crate::BodyFormat)); an operation whose output is an event stream
//! answers its head only ([`crate::event_stream`]).
//!
//! ```
//! use stratus_core::schema::Protocol;
//! use stratus_protocol::aws_json::content_type;
//! assert_eq!(content_type(Protocol::AwsJson1_1), "application/x-amz-json-1.1");
//! ```

use stratus_core::json::{self, KeyNames};
use stratus_core::prelude_shapes::UNIT;
use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::{OperationError, Value};

use crate::cbor::{self, Epoch};
use crate::event_stream;
use crate::failure::Failure;
use crate::reply::{respond, set_header, set_request_id};
use crate::{BodyFormat, ProtocolError, Request, Response};

/// The `Content-Type` of the JSON protocols' CBOR form, requests and answers.
pub const CBOR_MEDIA_TYPE: &str = "application/x-amz-cbor-1.1";

/// Whether `req` is in the CBOR form (`application/x-amz-cbor-1.1`).
pub(crate) fn is_cbor(req: &Request) -> bool {
    req.header("content-type")
        .is_some_and(|ct| ct.trim().eq_ignore_ascii_case(CBOR_MEDIA_TYPE))
}

/// The `Content-Type` of the protocol's requests and responses.
pub fn content_type(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::AwsJson1_1 => "application/x-amz-json-1.1",
        _ => "application/x-amz-json-1.0",
    }
}

/// The operation named by `X-Amz-Target`.
pub(crate) fn operation_for(service: &'static Service, req: &Request) -> Result<&'static Operation, ProtocolError> {
    let target = req.header("x-amz-target").unwrap_or_default();
    let unknown = || ProtocolError::UnknownOperation {
        protocol: Protocol::AwsJson1_0,
        name: target.to_owned(),
    };
    let (prefix, name) = target.rsplit_once('.').ok_or_else(unknown)?;
    if prefix != service.shape_name {
        return Err(unknown());
    }
    service.operation(name).ok_or_else(unknown)
}

pub(crate) fn decode(protocol: Protocol, op: &'static Operation, req: &Request) -> Result<Value, ProtocolError> {
    if is_cbor(req) {
        if req.body.is_empty() {
            return Ok(Value::empty_struct(op.input.members.len()));
        }
        return cbor::read(op.input, req.body, Epoch::Millis)
            .map_err(|message| ProtocolError::MalformedBody { protocol, message });
    }
    json::decode(op.input, req.body, KeyNames::Member).map_err(|e| ProtocolError::MalformedBody {
        protocol,
        message: e.message,
    })
}

/// An operation without output (`Unit`) answers with no body at all; any modelled output,
/// even an empty one, with a JSON object (a CBOR map in the CBOR form). An event stream's
/// answer is its head: the service streams the body ([`event_stream`]).
pub(crate) fn encode_output(
    protocol: Protocol,
    format: BodyFormat,
    service: &'static Service,
    op: &'static Operation,
    output: &Value,
    request_id: &str,
) -> Response {
    if event_stream::is_event_stream(op.output) {
        let mut response = respond(200, Some(event_stream::MEDIA_TYPE), Vec::new());
        // The body streams: its length is not known.
        response.headers_mut().remove(http::header::CONTENT_LENGTH);
        set_request_id(&mut response, request_id);
        return response;
    }
    let unit = std::ptr::eq(op.output, &UNIT);
    if format == BodyFormat::AmzCbor {
        let body = match unit {
            true => Vec::new(),
            false => cbor::write(op.output, output, Epoch::Millis),
        };
        return answer(CBOR_MEDIA_TYPE, 200, body, request_id);
    }
    let body = if unit {
        String::new()
    } else if service.query_compatible {
        json::encode_query_compatible(op.output, output)
    } else {
        json::encode(op.output, output, KeyNames::Member)
    };
    json_response(protocol, 200, body, request_id)
}

pub(crate) fn encode_error(
    protocol: Protocol,
    format: BodyFormat,
    service: &'static Service,
    error: &OperationError,
    request_id: &str,
) -> Response {
    let mut failure = Failure::of(error);
    if service.query_compatible {
        failure.code = failure.query_compatible_json_code();
    }
    let mut response = match format {
        BodyFormat::AmzCbor => {
            let body = cbor::error_body(&failure, &error_type(protocol, service, &failure), Epoch::Millis);
            answer(CBOR_MEDIA_TYPE, failure.status, body, request_id)
        }
        BodyFormat::Native => json_response(
            protocol,
            failure.status,
            error_body(protocol, service, &failure),
            request_id,
        ),
    };
    if service.query_compatible {
        let value = format!("{};{}", failure.query_code, failure.sender_or_receiver());
        set_header(&mut response, "x-amzn-query-error", &value);
    }
    response
}

/// `{"__type":…}` and the modelled error's members, or `message` for a common error. The type
/// is `<namespace>#<Code>` under awsJson1_0 and the bare code under awsJson1_1, as AWS's
/// services answer (DynamoDB and SQS namespace it; KMS, CloudWatch Logs, Kinesis and SSM do
/// not).
fn error_body(protocol: Protocol, service: &Service, failure: &Failure) -> String {
    let error_type = error_type(protocol, service, failure);
    let type_field = json::encode(
        &stratus_core::prelude_shapes::STRING,
        &Value::String(error_type),
        KeyNames::Member,
    );
    let members = match failure.modeled {
        Some((shape, value)) => json::encode(shape, value, KeyNames::Member),
        None => {
            let message = Value::String(failure.message.unwrap_or_default().to_owned());
            format!(
                "{{\"message\":{}}}",
                json::encode(&stratus_core::prelude_shapes::STRING, &message, KeyNames::Member)
            )
        }
    };
    prepend_key(&members, "__type", &type_field)
}

fn error_type(protocol: Protocol, service: &Service, failure: &Failure) -> String {
    match protocol {
        Protocol::AwsJson1_1 => failure.code.to_owned(),
        _ => failure.qualified_type(service.namespace),
    }
}

/// Puts `"key":json` first in the JSON object `object`.
fn prepend_key(object: &str, key: &str, json: &str) -> String {
    match object.strip_prefix('{') {
        Some("}") => format!("{{\"{key}\":{json}}}"),
        Some(rest) => format!("{{\"{key}\":{json},{rest}"),
        None => format!("{{\"{key}\":{json}}}"),
    }
}

fn json_response(protocol: Protocol, status: u16, body: String, request_id: &str) -> Response {
    answer(content_type(protocol), status, body.into_bytes(), request_id)
}

fn answer(content_type: &'static str, status: u16, body: Vec<u8>, request_id: &str) -> Response {
    let mut response = respond(status, Some(content_type), body);
    set_request_id(&mut response, request_id);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepends_keys_to_empty_and_full_objects() {
        assert_eq!(prepend_key("{}", "__type", "\"A\""), r#"{"__type":"A"}"#);
        assert_eq!(prepend_key(r#"{"m":1}"#, "__type", "\"A\""), r#"{"__type":"A","m":1}"#);
    }
}
