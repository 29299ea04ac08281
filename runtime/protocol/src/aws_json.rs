//! awsJson1_0 and awsJson1_1: `POST /` with `X-Amz-Target: <ServiceShape>.<Operation>` and a
//! JSON body keyed by member names; JSON answers.
//!
//! Errors are `{"__type":"<namespace>#<Code>","message":"…"}` (awsJson1_1: the bare `<Code>`)
//! plus the modelled error's members,
//! with the status of the error's `@httpError`. Services with `@awsQueryCompatible` (SQS) also
//! send `x-amzn-query-error: <QueryCode>;<Sender|Receiver>`, so that SDKs that used to speak
//! Query see the codes they know.
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

use crate::failure::Failure;
use crate::reply::{respond, set_header, set_request_id};
use crate::{ProtocolError, Request, Response};

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
    json::decode(op.input, req.body, KeyNames::Member).map_err(|e| ProtocolError::MalformedBody {
        protocol,
        message: e.message,
    })
}

/// An operation without output (`Unit`) answers with no body at all; any modelled output,
/// even an empty one, with a JSON object.
pub(crate) fn encode_output(
    protocol: Protocol,
    service: &'static Service,
    op: &'static Operation,
    output: &Value,
    request_id: &str,
) -> Response {
    let body = if std::ptr::eq(op.output, &UNIT) {
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
    service: &'static Service,
    error: &OperationError,
    request_id: &str,
) -> Response {
    let mut failure = Failure::of(error);
    if service.query_compatible {
        failure.code = failure.query_compatible_json_code();
    }
    let body = error_body(protocol, service, &failure);
    let mut response = json_response(protocol, failure.status, body, request_id);
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
    let error_type = match protocol {
        Protocol::AwsJson1_1 => failure.code.to_owned(),
        _ => failure.qualified_type(service.namespace),
    };
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

/// Puts `"key":json` first in the JSON object `object`.
fn prepend_key(object: &str, key: &str, json: &str) -> String {
    match object.strip_prefix('{') {
        Some("}") => format!("{{\"{key}\":{json}}}"),
        Some(rest) => format!("{{\"{key}\":{json},{rest}"),
        None => format!("{{\"{key}\":{json}}}"),
    }
}

fn json_response(protocol: Protocol, status: u16, body: String, request_id: &str) -> Response {
    let mut response = respond(status, Some(content_type(protocol)), body.into_bytes());
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
