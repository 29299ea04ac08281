//! Where a service's answers depart from the protocol's general rules, as its schema's
//! [`Departures`] flags say (they come from the model's customization traits and from
//! `models/manifest.toml`). S3's restXml answers: an output written as its one member
//! (`s3UnwrappedXmlOutput`), versions and delete markers interleaved in one listing, and S3's
//! envelope (a host id header, `Server: AmazonS3`, XML declarations); the bare `<Error>`
//! document (`noErrorWrapping`) is
//! [`rest_xml::ErrorStyle::Bare`](crate::rest_xml::ErrorStyle). In any protocol: output
//! members the model requires but the service leaves out while they hold their default (IAM's
//! ListServiceSpecificCredentials answers no `IsTruncated` for a complete listing).

use std::cmp::Reverse;

use crate::xml_writer::XmlWriter;
use stratus_core::schema::{Departures, HttpBinding, Member, Operation, Service, Shape, ShapeType, XmlNamespace};
use stratus_core::value::fill_defaults;
use stratus_core::{DateTime, Value};

use crate::reply::{respond, set_header};
use crate::{urlencoded, xml, Response};

/// Adjusts the restXml answer to `op`, whose output value is `output`, to the service's
/// departures.
pub(crate) fn finish_output(service: &Service, op: &Operation, output: &Value, response: &mut Response) {
    let departures = &service.departures;
    if departures.unwraps_output(op.name) {
        replace_body(response, unwrapped_output(service.xml_namespace, op.output, output));
    } else if departures.interleaves_versions(op.name) {
        if let Some(body) = interleaved_versions(service.xml_namespace, op.output, output) {
            replace_body(response, body);
        }
    }
    if departures.s3_envelope && writes_document(op.output) {
        declare_xml(response);
    }
    finish(departures, response);
}

/// Whether an answer of `shape` is an XML document when it has a body: its body members, or a
/// structure or union payload (not a blob or string one, such as GetObject's).
fn writes_document(shape: &Shape) -> bool {
    match shape.members.iter().find(|m| m.http == HttpBinding::Payload) {
        Some(payload) => matches!(payload.target.kind, ShapeType::Structure | ShapeType::Union),
        None => shape.members.iter().any(|m| m.http.in_response_body()),
    }
}

/// What S3's XML documents open with.
pub(crate) const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// Opens a non-empty body with the XML declaration.
fn declare_xml(response: &mut Response) {
    if response.body().is_empty() {
        return;
    }
    let mut body = Vec::with_capacity(XML_DECLARATION.len() + response.body().len());
    body.extend_from_slice(XML_DECLARATION.as_bytes());
    body.extend_from_slice(response.body());
    *response.body_mut() = body;
    if response.headers().contains_key(http::header::CONTENT_LENGTH) {
        set_header(response, "content-length", &response.body().len().to_string());
    }
}

/// Clears the members of `output` (defaults filled in) that the service's answers to `op`
/// leave out while they hold their default, so that no protocol writes them.
pub(crate) fn omit_default_members(service: &Service, op: &Operation, output: &mut Value) {
    let mut omitted = service.departures.omitted_default_members(op.name).peekable();
    if omitted.peek().is_none() {
        return;
    }
    let Value::Struct(slots) = output else {
        return;
    };
    // What each member holds when it is not set: its default, if it has one.
    let mut defaults = Value::Struct(vec![None; slots.len()]);
    fill_defaults(op.output, &mut defaults);
    let Value::Struct(defaults) = defaults else {
        return;
    };
    for member in omitted {
        let Some(i) = op.output.member_index(member) else {
            continue;
        };
        if let (Some(slot), Some(Some(default))) = (slots.get_mut(i), defaults.get(i)) {
            if slot.as_ref() == Some(default) {
                *slot = None;
            }
        }
    }
}

/// The host id of a service whose answers carry one: Stratus has no hosts to name, so it is a
/// fixed token.
pub(crate) const HOST_ID: &str = "stratus";

/// Adds what every answer of the service carries (an output's, an error's, a preflight's).
pub(crate) fn finish(departures: &Departures, response: &mut Response) {
    if departures.s3_envelope {
        set_header(response, "x-amz-id-2", HOST_ID);
        set_header(response, "server", "AmazonS3");
    }
}

/// The output's one body member as the document: `<LocationConstraint xmlns="…">eu-west-1
/// </LocationConstraint>`, an empty-element tag when the member is absent (as S3 answers for a
/// us-east-1 bucket).
fn unwrapped_output(namespace: Option<XmlNamespace>, shape: &'static Shape, output: &Value) -> String {
    let Some((i, member)) = shape
        .members
        .iter()
        .enumerate()
        .find(|(_, m)| m.http.in_response_body())
    else {
        return String::new();
    };
    let root = member.xml_name.unwrap_or(member.name);
    let namespace = shape.xml_namespace.or(namespace);
    let present = match output {
        Value::Struct(slots) => slots.get(i).and_then(Option::as_ref),
        _ => None,
    };
    match present {
        Some(value) => xml::dated_document(root, namespace, true, member.target, value),
        None => {
            let mut body = String::new();
            {
                let mut writer = XmlWriter::new(&mut body);
                let mut el = writer.start_el(root);
                if let Some(ns) = namespace {
                    el = el.write_ns(ns.uri, ns.prefix);
                }
                el.finish_empty();
            }
            body
        }
    }
}

/// Gives `response` a new XML body, keeping its other headers.
fn replace_body(response: &mut Response, body: String) {
    let headers = std::mem::take(response.headers_mut());
    *response = respond(200, Some("application/xml"), body.into_bytes());
    for (name, value) in headers.iter().filter(|(n, _)| *n != http::header::CONTENT_LENGTH) {
        response.headers_mut().insert(name.clone(), value.clone());
    }
}

/// ListObjectVersions' body with its `<Version>` and `<DeleteMarker>` elements in one sequence,
/// in S3's listing order: by key, then newest first. The model makes them two flattened lists,
/// which restXml writes one after the other; S3 interleaves them. The service fills
/// `LastModified` to the millisecond so that one key's versions and delete markers merge in
/// the order they were written; S3 writes it to the second, and so does this.
fn interleaved_versions(namespace: Option<XmlNamespace>, shape: &'static Shape, output: &Value) -> Option<String> {
    let (versions, markers) = (shape.member_index("Versions")?, shape.member_index("DeleteMarkers")?);
    let url_keys = shape
        .member_index("EncodingType")
        .and_then(|i| match output {
            Value::Struct(slots) => slots.get(i)?.as_ref(),
            _ => None,
        })
        .is_some();
    let mut entries: Vec<(&'static Member, Value)> = Vec::new();
    for (i, member, value) in xml::body_members(shape, output) {
        if let (true, Value::List(items)) = (i == versions || i == markers, value) {
            entries.extend(items.iter().map(|item| (member, item.clone())));
        }
    }
    entries.sort_by_cached_key(|(member, item)| listing_order(member.target.list_member().target, item, url_keys));
    let mut body = String::new();
    {
        let mut writer = XmlWriter::dated(&mut body, true);
        let mut root = writer.start_el(xml::root_name(shape));
        if let Some(ns) = shape.xml_namespace.or(namespace) {
            root = root.write_ns(ns.uri, ns.prefix);
        }
        let mut scope = root.finish();
        let mut merged = std::mem::take(&mut entries).into_iter();
        for (i, member, value) in xml::body_members(shape, output) {
            if i != versions && i != markers {
                xml::write_member(&mut scope, member, value);
                continue;
            }
            // All of them where the first of the two lists goes.
            for (member, item) in merged.by_ref() {
                let item = to_seconds(member.target.list_member().target, item);
                xml::write_member(&mut scope, member, &Value::List(vec![item]));
            }
        }
    }
    Some(body)
}

/// Where a version or delete marker goes in a listing: its key (as stored, so decoded when
/// the listing URL-encodes keys), the latest first, then newest first.
fn listing_order(shape: &Shape, item: &Value, url_keys: bool) -> (String, bool, Reverse<(i64, u32)>) {
    let field = |name: &str| match item {
        Value::Struct(slots) => shape.member_index(name).and_then(|i| slots.get(i)?.as_ref()),
        _ => None,
    };
    let key = match field("Key") {
        Some(Value::String(key)) if url_keys => {
            urlencoded::decode(key, true).map_or_else(|| key.clone(), |k| k.into_owned())
        }
        Some(Value::String(key)) => key.clone(),
        _ => String::new(),
    };
    let latest = matches!(field("IsLatest"), Some(Value::Bool(true)));
    let modified = match field("LastModified") {
        Some(Value::Timestamp(t)) => (t.secs(), t.subsec_nanos()),
        _ => (0, 0),
    };
    (key, !latest, Reverse(modified))
}

/// `item` with its `LastModified` cut to the second.
fn to_seconds(shape: &Shape, mut item: Value) -> Value {
    if let (Some(i), Value::Struct(slots)) = (shape.member_index("LastModified"), &mut item) {
        if let Some(Some(Value::Timestamp(t))) = slots.get_mut(i) {
            *t = DateTime::from_secs(t.secs());
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::prelude_shapes::{BOOLEAN, STRING, TIMESTAMP};
    use stratus_core::schema::ShapeType;

    const FIELDS: &[Member] = &[
        Member::plain("Key", &STRING),
        Member::plain("IsLatest", &BOOLEAN),
        Member::plain("LastModified", &TIMESTAMP),
    ];
    static ENTRY: Shape = Shape {
        members: FIELDS,
        ..Shape::simple("Entry", ShapeType::Structure)
    };
    static ENTRIES: Shape = Shape {
        members: &[Member::plain("member", &ENTRY)],
        ..Shape::simple("Entries", ShapeType::List)
    };
    static OUTPUT: Shape = Shape {
        members: &[
            Member::plain("Name", &STRING),
            Member {
                xml_name: Some("Version"),
                xml_flattened: true,
                ..Member::plain("Versions", &ENTRIES)
            },
            Member {
                xml_name: Some("DeleteMarker"),
                xml_flattened: true,
                ..Member::plain("DeleteMarkers", &ENTRIES)
            },
            Member::plain("EncodingType", &STRING),
        ],
        xml_name: Some("ListVersionsResult"),
        ..Shape::simple("Output", ShapeType::Structure)
    };

    fn entry(key: &str, latest: bool, ms: i64) -> Value {
        Value::Struct(vec![
            Some(Value::String(key.into())),
            Some(Value::Bool(latest)),
            Some(Value::Timestamp(DateTime::from_millis(ms))),
        ])
    }

    /// The keys of the entries, in document order.
    fn keys(xml: &str) -> Vec<&str> {
        xml.split("<Key>")
            .skip(1)
            .filter_map(|rest| rest.split_once("</Key>"))
            .map(|(k, _)| k)
            .collect()
    }

    /// The entries' element names, in document order.
    fn elements(xml: &str) -> Vec<&str> {
        xml.split('<')
            .filter_map(|tag| {
                ["Version>", "DeleteMarker>"]
                    .into_iter()
                    .find(|name| tag.starts_with(name))
            })
            .collect()
    }

    #[test]
    fn versions_and_delete_markers_interleave_by_key_then_newest_first() {
        // Key "a": marker (latest, 3 ms), version (2 ms), marker (1 ms); key "b": version.
        let output = Value::Struct(vec![
            Some(Value::String("bucket".into())),
            Some(Value::List(vec![entry("a", false, 2), entry("b", true, 0)])),
            Some(Value::List(vec![entry("a", true, 3), entry("a", false, 1)])),
            None,
        ]);
        let xml = interleaved_versions(None, &OUTPUT, &output).unwrap();
        assert!(
            xml.starts_with("<ListVersionsResult><Name>bucket</Name><DeleteMarker>"),
            "{xml}"
        );
        assert_eq!(
            elements(&xml),
            ["DeleteMarker>", "Version>", "DeleteMarker>", "Version>"]
        );
        assert_eq!(keys(&xml), ["a", "a", "a", "b"]);
        assert!(
            xml.contains("00:00:00.000Z</LastModified>") && !xml.contains(".003"),
            "times are written to the second, as S3 writes them: {xml}"
        );
    }

    static LOCATION: Shape = Shape {
        members: &[Member::plain("LocationConstraint", &STRING)],
        ..Shape::simple("GetBucketLocationOutput", ShapeType::Structure)
    };
    const NS: Option<XmlNamespace> = Some(XmlNamespace {
        uri: "urn:x",
        prefix: None,
    });

    #[test]
    fn an_unwrapped_output_is_its_member_as_the_root() {
        let output = Value::Struct(vec![Some(Value::String("eu-west-1".into()))]);
        assert_eq!(
            unwrapped_output(NS, &LOCATION, &output),
            r#"<LocationConstraint xmlns="urn:x">eu-west-1</LocationConstraint>"#
        );
        assert_eq!(
            unwrapped_output(NS, &LOCATION, &Value::Struct(vec![None])),
            r#"<LocationConstraint xmlns="urn:x"/>"#
        );
    }

    #[test]
    fn url_encoded_keys_order_as_stored() {
        // "a b" sorts before "a!", though "a+b" sorts after "a%21".
        let output = Value::Struct(vec![
            None,
            Some(Value::List(vec![entry("a%21", true, 0)])),
            Some(Value::List(vec![entry("a+b", true, 0)])),
            Some(Value::String("url".into())),
        ]);
        let xml = interleaved_versions(None, &OUTPUT, &output).unwrap();
        assert_eq!(keys(&xml), ["a+b", "a%21"]);
    }
}
