//! Where S3 departs from restXml, beyond what its model says: errors as a bare `<Error>`
//! document (its `noErrorWrapping`), GetBucketLocation's output as a lone
//! `<LocationConstraint>` element (`s3UnwrappedXmlOutput`), `206 Partial Content` for a
//! ranged read, and the `x-amz-id-2` header beside the request id.

use crate::xml_writer::XmlWriter;
use stratus_core::schema::{Operation, Service};
use stratus_core::Value;

use crate::reply::{respond, set_header};
use crate::Response;

/// Whether `service` is S3.
pub(crate) fn is_s3(service: &Service) -> bool {
    service.sdk_id == "S3"
}

/// Adjusts S3's encoded answer to `op`, whose output value is `output`.
pub(crate) fn finish_output(service: &Service, op: &Operation, output: &Value, response: &mut Response) {
    match op.name {
        "GetObject" if response.headers().contains_key(http::header::CONTENT_RANGE) => {
            *response.status_mut() = http::StatusCode::PARTIAL_CONTENT;
        }
        "GetBucketLocation" => {
            let constraint = op.output.member_index("LocationConstraint").and_then(|i| match output {
                Value::Struct(slots) => slots.get(i).cloned().flatten(),
                _ => None,
            });
            let mut body = String::new();
            {
                let mut writer = XmlWriter::new(&mut body);
                let mut root = writer.start_el("LocationConstraint");
                if let Some(ns) = service.xml_namespace {
                    root = root.write_ns(ns.uri, ns.prefix);
                }
                let mut root = root.finish();
                if let Some(Value::String(region)) = constraint {
                    root.data(&region);
                }
            }
            let headers = std::mem::take(response.headers_mut());
            *response = respond(200, Some("application/xml"), body.into_bytes());
            for (name, value) in headers.iter().filter(|(n, _)| *n != http::header::CONTENT_LENGTH) {
                response.headers_mut().insert(name.clone(), value.clone());
            }
        }
        _ => {}
    }
    host_id(response);
}

/// S3's extended request id; Stratus has no hosts to name, so it is a fixed token.
pub(crate) fn host_id(response: &mut Response) {
    set_header(response, "x-amz-id-2", "stratus");
}
