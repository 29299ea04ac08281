//! Stratus's wire protocols: an AWS request, decoded into the operation's input [`Value`]; an
//! output or an error, encoded back into the answer AWS would give — for every AWS protocol,
//! driven only by the static schema tables of `stratus-core`.
//!
//! The gateway knows the service (from the SigV4 scope, the host or the route tables) and
//! asks this crate the rest:
//!
//! 1. [`operation_for`]: which operation the request names (`X-Amz-Target`, the Query
//!    `Action`, the rpcv2 path, or the REST route table);
//! 2. [`decode`]: the input value. Decoding refuses type mismatches but checks no
//!    constraints: `stratus_core::validate` runs afterwards;
//! 3. [`encode_output`] or [`encode_error`]: the HTTP response.
//!
//! Failures before the service runs are [`ProtocolError`]s, which answer with the AWS error
//! each protocol uses for them (convert with [`ProtocolError::to_aws_error`] and encode it like
//! any other error).
//!
//! | protocol | module | request | response |
//! |---|---|---|---|
//! | awsJson1_0, awsJson1_1 | [`aws_json`] | JSON by member name (or `x-amz-cbor-1.1`) | JSON (or CBOR), `__type` errors; [`event_stream`]s |
//! | awsQuery (and ec2Query) | [`query`] | form-encoded `Action=…` | XML |
//! | restJson1 | [`rest_json`] over [`http_binding`] | HTTP bindings + JSON | same |
//! | restXml | [`rest_xml`] over [`http_binding`] | HTTP bindings + XML | same |
//! | rpcv2Cbor | [`cbor`] | `/service/S/operation/O` + CBOR | CBOR |
//!
//! ```
//! use stratus_core::schema::*;
//! use stratus_core::prelude_shapes::{STRING, UNIT};
//! use stratus_core::Value;
//! use stratus_protocol::{decode, encode_output, http, operation_for, Request};
//!
//! static INPUT: Shape = Shape {
//!     members: &[Member::plain("Name", &STRING)],
//!     ..Shape::simple("GreetInput", ShapeType::Structure)
//! };
//! static SERVICE: Service = Service {
//!     sdk_id: "Greeter",
//!     namespace: "example.greeter",
//!     shape_name: "Greeter",
//!     version: "2024-01-01",
//!     signing_name: "greeter",
//!     endpoint_prefix: "greeter",
//!     protocols: &[Protocol::AwsJson1_0],
//!     query_compatible: false,
//!     xml_namespace: None,
//!     operations: &[Operation { name: "Greet", input: &INPUT, output: &UNIT, errors: &[], http: None, unsigned: false }],
//!     validation: ValidationStyle {
//!         code: "ValidationException",
//!         http_status: 400,
//!         missing_code: None,
//!         path_from_input: false,
//!         unanchored_patterns: false,
//!         missing_parameter_message: false,
//!         framework_error: None,
//!     },
//!     departures: Departures::NONE,
//!     model_sha256: "",
//!     authorization: &stratus_core::authz::Authorization::NONE,
//! };
//!
//! let mut headers = http::HeaderMap::new();
//! headers.insert("x-amz-target", http::HeaderValue::from_static("Greeter.Greet"));
//! let (method, uri) = (http::Method::POST, http::Uri::from_static("/"));
//! let req = Request { method: &method, uri: &uri, headers: &headers, body: br#"{"Name":"Ada"}"# };
//!
//! let op = operation_for(Protocol::AwsJson1_0, &SERVICE, &req).unwrap();
//! let input = decode(Protocol::AwsJson1_0, &SERVICE, op, &req).unwrap();
//! assert_eq!(input, Value::Struct(vec![Some(Value::String("Ada".into()))]));
//!
//! let response = encode_output(Protocol::AwsJson1_0, &SERVICE, op, Value::Struct(vec![]), "req-1");
//! assert_eq!(response.headers()["content-type"], "application/x-amz-json-1.0");
//! // An operation without output answers with no body.
//! assert!(response.body().is_empty());
//! ```
#![warn(missing_docs)]

pub mod aws_json;
pub mod cbor;
mod departures;
mod error;
pub mod event_stream;
mod failure;
pub mod http_binding;
pub mod query;
mod reply;
pub mod rest_json;
pub mod rest_xml;
mod text;
mod timestamp;
pub use stratus_core::urlencoded;
pub mod xml;
mod xml_writer;

pub use error::ProtocolError;
pub use http;

use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::value::fill_defaults;
use stratus_core::{OperationError, Value};

/// Deeper nesting than this is refused by every decoder rather than risking the stack.
pub const MAX_DEPTH: usize = stratus_core::json::MAX_DEPTH;

/// A request as the gateway hands it over: head plus the whole body.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The HTTP method, which REST protocols route on.
    pub method: &'a http::Method,
    /// The request's URI: the path and query string (and the host, if the client wrote an
    /// absolute URI).
    pub uri: &'a http::Uri,
    /// The headers: the JSON protocols' `X-Amz-Target`, the signature, and members bound to
    /// headers.
    pub headers: &'a http::HeaderMap,
    /// The whole body as received; empty when it streams to the service instead, or when a
    /// request is routed before its body is read.
    pub body: &'a [u8],
}

impl Request<'_> {
    /// The first value of header `name`, if it is text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A response with its whole body.
pub type Response = http::Response<Vec<u8>>;

/// Which operation a request names, for protocols where that comes from the request itself.
pub fn operation_for(
    protocol: Protocol,
    service: &'static Service,
    req: &Request,
) -> Result<&'static Operation, ProtocolError> {
    match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 => aws_json::operation_for(service, req),
        Protocol::AwsQuery | Protocol::Ec2Query => query::operation_for(protocol, service, req),
        Protocol::RestJson1 | Protocol::RestXml => http_binding::operation_for(protocol, service, req),
        Protocol::RpcV2Cbor => cbor::operation_for(service, req),
    }
}

/// Decodes the request into a value of `op.input`, with the `@default` of every member the
/// request leaves out filled in.
pub fn decode(
    protocol: Protocol,
    _service: &'static Service,
    op: &'static Operation,
    req: &Request,
) -> Result<Value, ProtocolError> {
    let mut input = match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 => aws_json::decode(protocol, op, req),
        Protocol::AwsQuery | Protocol::Ec2Query => query::decode(protocol, op, req),
        Protocol::RestJson1 => rest_json::decode(op, req),
        Protocol::RestXml => http_binding::decode::<rest_xml::Xml>(op, req),
        Protocol::RpcV2Cbor => cbor::decode(op, req),
    }?;
    fill_defaults(op.input, &mut input);
    Ok(input)
}

/// The form a request's answer takes within its protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    /// The protocol's own.
    Native,
    /// CBOR in a JSON protocol (`application/x-amz-cbor-1.1`, timestamps in epoch
    /// milliseconds), which Kinesis's Java SDK sends and expects back.
    AmzCbor,
}

/// The form `req` asks its answer in: the CBOR form when a JSON protocol's request comes in it.
pub fn body_format(protocol: Protocol, req: &Request) -> BodyFormat {
    match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 if aws_json::is_cbor(req) => BodyFormat::AmzCbor,
        _ => BodyFormat::Native,
    }
}

/// Encodes `output`, a value of `op.output`, as the operation's successful response; members
/// left out that have a `@default` are sent with it, except those the service's answers leave
/// out while they hold it ([`Departures::omitted_default_members`](stratus_core::schema::Departures)).
pub fn encode_output(
    protocol: Protocol,
    service: &'static Service,
    op: &'static Operation,
    output: Value,
    request_id: &str,
) -> Response {
    encode_output_as(BodyFormat::Native, protocol, service, op, output, request_id)
}

/// [`encode_output`] in `format` ([`body_format`] of the request).
pub fn encode_output_as(
    format: BodyFormat,
    protocol: Protocol,
    service: &'static Service,
    op: &'static Operation,
    mut output: Value,
    request_id: &str,
) -> Response {
    fill_defaults(op.output, &mut output);
    departures::omit_default_members(service, op, &mut output);
    match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 => {
            aws_json::encode_output(protocol, format, service, op, &output, request_id)
        }
        Protocol::AwsQuery | Protocol::Ec2Query => query::encode_output(service, op, &output, request_id),
        Protocol::RestJson1 => rest_json::encode_output(op, &output, request_id),
        Protocol::RestXml => {
            let mut response = rest_xml::encode_output(service, op, &output, request_id);
            departures::finish_output(service, op, &output, &mut response);
            response
        }
        Protocol::RpcV2Cbor => cbor::encode_output(op, &output, request_id),
    }
}

/// An empty `200` answer with the protocol's request id headers: an allowed CORS preflight's,
/// which no operation of the model answers.
pub fn encode_empty(protocol: Protocol, service: &'static Service, request_id: &str) -> Response {
    let mut response = reply::respond(200, None, Vec::new());
    match protocol {
        Protocol::RestXml => {
            rest_xml::request_ids(service, &mut response, request_id);
            departures::finish(&service.departures, &mut response);
        }
        _ => reply::set_request_id(&mut response, request_id),
    }
    response
}

/// Encodes `error` as the protocol's error response. `op` is the operation that failed, when
/// the request got that far.
pub fn encode_error(
    protocol: Protocol,
    service: &'static Service,
    op: Option<&'static Operation>,
    error: &OperationError,
    request_id: &str,
) -> Response {
    encode_error_as(BodyFormat::Native, protocol, service, op, error, request_id)
}

/// [`encode_error`] in `format` ([`body_format`] of the request).
pub fn encode_error_as(
    format: BodyFormat,
    protocol: Protocol,
    service: &'static Service,
    _op: Option<&'static Operation>,
    error: &OperationError,
    request_id: &str,
) -> Response {
    let mut response = match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 => {
            aws_json::encode_error(protocol, format, service, error, request_id)
        }
        Protocol::AwsQuery | Protocol::Ec2Query => query::encode_error(service, error, request_id),
        Protocol::RestJson1 => rest_json::encode_error(error, request_id),
        Protocol::RestXml => {
            let style = match service.departures.bare_xml_errors {
                true => rest_xml::ErrorStyle::Bare,
                false => rest_xml::ErrorStyle::Wrapped,
            };
            let mut response = rest_xml::encode_error(service, error, request_id, style);
            departures::finish(&service.departures, &mut response);
            response
        }
        Protocol::RpcV2Cbor => cbor::encode_error(service, error, request_id),
    };
    if let OperationError::Aws(e) = error {
        for (name, value) in &e.headers {
            reply::set_header(&mut response, name, value);
        }
    }
    response
}
