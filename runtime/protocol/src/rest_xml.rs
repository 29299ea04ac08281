//! restXml: the HTTP bindings of [`http_binding`] with an XML body
//! ([`xml`]): the root element is the structure's `@xmlName` (else its shape
//! name) and declares the service's `@xmlNamespace`.
//!
//! Errors are `<ErrorResponse><Error><Type/><Code/><Message/>…</Error><RequestId/></ErrorResponse>`
//! ([`ErrorStyle::Wrapped`], Route 53, CloudFront); S3 answers with a bare
//! `<Error><Code/><Message/>…<RequestId/><HostId/></Error>` ([`ErrorStyle::Bare`]), which its own
//! layer asks for (`HostId` in S3's envelope). Responses carry the request id as both
//! `x-amzn-RequestId` and `x-amz-request-id`, S3's only as the latter.
//!
//! ```
//! use stratus_core::{AwsError, OperationError};
//! use stratus_protocol::rest_xml::{encode_error, ErrorStyle};
//! # use stratus_core::schema::*;
//! # static SERVICE: Service = Service { sdk_id: "X", namespace: "x", shape_name: "X", version: "1",
//! #     signing_name: "x", endpoint_prefix: "x", protocols: &[], query_compatible: false, xml_namespace: None,
//! #     operations: &[], validation: ValidationStyle { code: "", http_status: 400, missing_code: None, path_from_input: false, unanchored_patterns: false, missing_parameter_message: false, framework_error: None },
//! #     departures: Departures::NONE, model_sha256: "", authorization: &stratus_core::authz::Authorization::NONE };
//! let error = OperationError::Aws(AwsError::new("NoSuchBucket", "The specified bucket does not exist", 404));
//! let response = encode_error(&SERVICE, &error, "r1", ErrorStyle::Bare);
//! assert_eq!(
//!     std::str::from_utf8(response.body()).unwrap(),
//!     "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><RequestId>r1</RequestId></Error>"
//! );
//! ```

use crate::xml_writer::XmlWriter;
use stratus_core::schema::{Member, Operation, Protocol, Service, Shape};
use stratus_core::{OperationError, Value};

use crate::failure::Failure;
use crate::http_binding::{self, BodyCodec, BodyStyle};
use crate::reply::{respond, set_header, set_request_id};
use crate::{departures, xml, Response};

/// The restXml body codec.
pub(crate) struct Xml;

impl BodyCodec for Xml {
    const PROTOCOL: Protocol = Protocol::RestXml;
    const MEDIA_TYPE: &'static str = "application/xml";
    const EMPTY_BODY: Option<&'static [u8]> = None;

    fn read(shape: &'static Shape, body: &[u8]) -> Result<Value, String> {
        xml::from_document(shape, body)
    }

    fn write(shape: &'static Shape, member: Option<&Member>, value: &Value, style: BodyStyle) -> Vec<u8> {
        let root = member.and_then(|m| m.xml_name).unwrap_or_else(|| xml::root_name(shape));
        let namespace = shape.xml_namespace.or(style.namespace);
        xml::dated_document(root, namespace, style.millisecond_dates, shape, value).into_bytes()
    }
}

/// How an XML error document is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorStyle {
    /// `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>`.
    Wrapped,
    /// S3's `<Error><Code/><Message/>…<RequestId/></Error>`.
    Bare,
}

pub(crate) fn encode_output(
    service: &'static Service,
    op: &'static Operation,
    output: &Value,
    request_id: &str,
) -> Response {
    let status = service
        .departures
        .answer_status(op.name)
        .unwrap_or_else(|| op.http.map_or(200, |r| r.code));
    let style = BodyStyle {
        namespace: service.xml_namespace,
        millisecond_dates: service.departures.s3_envelope,
    };
    let mut response = http_binding::encode::<Xml>(op.output, output, status, style);
    request_ids(service, &mut response, request_id);
    response
}

/// Encodes an error the restXml way, laid out in `style`.
pub fn encode_error(
    service: &'static Service,
    error: &OperationError,
    request_id: &str,
    style: ErrorStyle,
) -> Response {
    let failure = Failure::of(error);
    let mut body = String::new();
    if service.departures.s3_envelope {
        body.push_str(departures::XML_DECLARATION);
    }
    let mut writer = XmlWriter::new(&mut body);
    match style {
        ErrorStyle::Wrapped => {
            let mut root = writer.start_el("ErrorResponse");
            if let Some(ns) = service.xml_namespace {
                root = root.write_ns(ns.uri, ns.prefix);
            }
            let mut root = root.finish();
            xml::write_error_fields(&mut root.start_el("Error").finish(), &failure, failure.code, true);
            root.start_el("RequestId").finish().data(request_id);
        }
        ErrorStyle::Bare => {
            let mut root = writer.start_el("Error").finish();
            xml::write_error_fields(&mut root, &failure, failure.code, false);
            root.start_el("RequestId").finish().data(request_id);
            // The document repeats the host id header, as S3's does.
            if service.departures.s3_envelope {
                root.start_el("HostId").finish().data(departures::HOST_ID);
            }
        }
    }
    let mut response = respond(failure.status, Some(Xml::MEDIA_TYPE), body.into_bytes());
    if let Some((shape, value)) = failure.modeled {
        http_binding::write_headers(&mut response, shape, value);
    }
    request_ids(service, &mut response, request_id);
    response
}

pub(crate) fn request_ids(service: &Service, response: &mut Response, request_id: &str) {
    if !service.departures.s3_envelope {
        set_request_id(response, request_id);
    }
    set_header(response, "x-amz-request-id", request_id);
}
