//! XML ↔ [`Value`], guided by a shape: the body format of restXml and of awsQuery's answers.
//!
//! The rules are Smithy's XML bindings. A member is an element named by its `@xmlName` (else
//! its member name); `@xmlAttribute` members are attributes of their structure's element;
//! lists are wrapped (`<Name><member>…</member></Name>`, the item name from the list member's
//! `@xmlName`) unless `@xmlFlattened` (`<Name>…</Name>` repeated); maps are
//! `<Name><entry><key/><value/></entry></Name>` (key and value names from `@xmlName`), or
//! `<Name><key/><value/></Name>` repeated when flattened; `@xmlNamespace` on a member or shape
//! adds an `xmlns` to its element. Scalars are text (see the timestamp rules in the crate),
//! timestamps date-time by default. Only members bound to the body take part.
//!
//! ```
//! use stratus_core::prelude_shapes::STRING;
//! use stratus_core::schema::{Member, Shape, ShapeType};
//! use stratus_core::Value;
//! use stratus_protocol::xml::{from_document, to_document};
//!
//! static GREETING: Shape = Shape {
//!     members: &[Member::plain("Name", &STRING)],
//!     ..Shape::simple("Greeting", ShapeType::Structure)
//! };
//! let value = Value::Struct(vec![Some(Value::String("Ada & co".into()))]);
//! let xml = to_document("Greeting", None, &GREETING, &value);
//! assert_eq!(xml, "<Greeting><Name>Ada &amp; co</Name></Greeting>");
//! assert_eq!(from_document(&GREETING, xml.as_bytes()).unwrap(), value);
//! ```

use crate::xml_writer::{ElWriter, ScopeWriter, XmlWriter};
use aws_smithy_xml::decode::{try_data, Document, ScopedDecoder};
use stratus_core::json;
use stratus_core::schema::{HttpBinding, Member, Shape, ShapeType, TimestampFormat, XmlNamespace};
use stratus_core::Value;

use crate::failure::{message_index, Failure};
use crate::{text, timestamp, MAX_DEPTH};

/// The element (or attribute) name of a member.
pub fn member_name(member: &Member) -> &'static str {
    member.xml_name.unwrap_or(member.name)
}

/// The root element name of a structure written on its own (a restXml body or payload).
pub fn root_name(shape: &Shape) -> &'static str {
    shape.xml_name.unwrap_or(shape.name)
}

/// Whether a member travels in the body of a request, or of a `response` (where request-only
/// bindings such as `@httpQuery` bind nothing).
fn in_body(member: &Member, response: bool) -> bool {
    if response {
        member.http.in_response_body()
    } else {
        member.http == HttpBinding::Body
    }
}

fn ts_format(member: Option<&Member>) -> TimestampFormat {
    timestamp::format_of(member, TimestampFormat::DateTime)
}

/// Writes `value`, a value of `shape`, as a document with root element `root`, declaring
/// `namespace` (else the shape's own `@xmlNamespace`) on it.
pub fn to_document(
    root: &'static str,
    namespace: Option<XmlNamespace>,
    shape: &'static Shape,
    value: &Value,
) -> String {
    dated_document(root, namespace, false, shape, value)
}

/// [`to_document`], with date-times carrying milliseconds when `millisecond_dates` (S3's).
pub(crate) fn dated_document(
    root: &'static str,
    namespace: Option<XmlNamespace>,
    millisecond_dates: bool,
    shape: &'static Shape,
    value: &Value,
) -> String {
    let mut out = String::new();
    let mut writer = XmlWriter::dated(&mut out, millisecond_dates);
    let mut el = writer.start_el(root);
    if let Some(ns) = namespace.or(shape.xml_namespace) {
        el = el.write_ns(ns.uri, ns.prefix);
    }
    fill(el, shape, None, value);
    out
}

/// The members of structure `value` that a response writes as child elements, with their
/// indexes in `shape`.
pub(crate) fn body_members<'v>(
    shape: &'static Shape,
    value: &'v Value,
) -> impl Iterator<Item = (usize, &'static Member, &'v Value)> {
    let slots = match value {
        Value::Struct(slots) => slots.as_slice(),
        _ => &[],
    };
    shape
        .members
        .iter()
        .zip(slots)
        .enumerate()
        .filter_map(|(i, (m, v))| match v {
            Some(v) if in_body(m, true) && !m.xml_attribute => Some((i, m, v)),
            _ => None,
        })
}

/// Writes the body members of a structure (or the member of a union) as children of `scope`.
pub(crate) fn write_members(scope: &mut ScopeWriter<'_, '_>, shape: &'static Shape, value: &Value) {
    match value {
        Value::EncodedJson(text) => write_members(scope, shape, &json::decode_encoded(shape, text)),
        Value::Struct(_) => {
            for (_, m, v) in body_members(shape, value) {
                write_member(scope, m, v);
            }
        }
        Value::Union(i, v) => {
            if let Some(m) = shape.members.get(*i) {
                write_member(scope, m, v);
            }
        }
        _ => {}
    }
}

/// Writes one member, repeating the element for flattened lists and maps.
pub(crate) fn write_member(scope: &mut ScopeWriter<'_, '_>, member: &'static Member, value: &Value) {
    let name = member_name(member);
    match (member.target.kind, value) {
        (_, Value::EncodedJson(text)) => write_member(scope, member, &json::decode_encoded(member.target, text)),
        (ShapeType::List, Value::List(items)) if member.xml_flattened => {
            let item = member.target.members.first();
            // Flattened items stand in for the list's members, and so take their namespace.
            let namespace = member.xml_namespace.or(item.and_then(|i| i.xml_namespace));
            for v in items {
                let target = item.map_or(member.target, |i| i.target);
                write_element(scope, name, namespace, target, item, v);
            }
        }
        (ShapeType::Map, Value::Map(entries)) if member.xml_flattened => {
            for (k, v) in entries {
                let mut el = scope.start_el(name);
                if let Some(ns) = member.xml_namespace {
                    el = el.write_ns(ns.uri, ns.prefix);
                }
                let mut entry = el.finish();
                write_entry(&mut entry, member.target, k, v);
            }
        }
        _ => write_element(scope, name, member.xml_namespace, member.target, Some(member), value),
    }
}

fn write_element(
    scope: &mut ScopeWriter<'_, '_>,
    name: &'static str,
    namespace: Option<XmlNamespace>,
    shape: &'static Shape,
    member: Option<&Member>,
    value: &Value,
) {
    let mut el = scope.start_el(name);
    // A structure's own `@xmlNamespace` counts only at the root; below it, the member's does.
    if let Some(ns) = namespace {
        el = el.write_ns(ns.uri, ns.prefix);
    }
    fill(el, shape, member, value);
}

/// Writes attributes and content of an element that has been opened for `value`.
fn fill(mut el: ElWriter<'_, '_>, shape: &'static Shape, member: Option<&Member>, value: &Value) {
    if let Value::EncodedJson(text) = value {
        return fill(el, shape, member, &json::decode_encoded(shape, text));
    }
    let millis = el.millisecond_dates();
    if let Value::Struct(slots) = value {
        for (m, v) in shape.members.iter().zip(slots) {
            if let (Some(v), true) = (v, m.xml_attribute) {
                if let Some(text) = scalar_text(v, ts_format(Some(m)), millis) {
                    el.write_attribute(member_name(m), &text);
                }
            }
        }
    }
    let mut scope = el.finish();
    match value {
        Value::Struct(_) | Value::Union(..) => write_members(&mut scope, shape, value),
        Value::List(items) => {
            let item = shape.members.first();
            let name = item.and_then(|i| i.xml_name).unwrap_or("member");
            for v in items {
                let target = item.map_or(shape, |i| i.target);
                write_element(&mut scope, name, item.and_then(|i| i.xml_namespace), target, item, v);
            }
        }
        Value::Map(entries) => {
            for (k, v) in entries {
                let mut entry = scope.start_el("entry").finish();
                write_entry(&mut entry, shape, k, v);
            }
        }
        other => {
            if let Some(text) = scalar_text(other, ts_format(member), millis) {
                scope.data(&text);
            }
        }
    }
}

/// A scalar's text, date-times with milliseconds when the document writes them so.
fn scalar_text(value: &Value, ts: TimestampFormat, millis: bool) -> Option<std::borrow::Cow<'_, str>> {
    match value {
        Value::Timestamp(t) if millis && ts == TimestampFormat::DateTime => {
            Some(std::borrow::Cow::Owned(timestamp::format_millis(t)))
        }
        _ => text::format(value, ts),
    }
}

fn write_entry(scope: &mut ScopeWriter<'_, '_>, map: &'static Shape, key: &str, value: &Value) {
    if let [k, v] = map.members {
        let key = Value::String(key.to_owned());
        write_element(
            scope,
            k.xml_name.unwrap_or("key"),
            k.xml_namespace,
            k.target,
            Some(k),
            &key,
        );
        write_element(
            scope,
            v.xml_name.unwrap_or("value"),
            v.xml_namespace,
            v.target,
            Some(v),
            value,
        );
    }
}

/// The children of an XML `<Error>`: `Type` (when `with_type`), `Code`, `Message`, then a
/// common error's details or the modelled error's other body members.
pub(crate) fn write_error_fields(scope: &mut ScopeWriter<'_, '_>, failure: &Failure, code: &str, with_type: bool) {
    if with_type {
        scope.start_el("Type").finish().data(failure.sender_or_receiver());
    }
    scope.start_el("Code").finish().data(code);
    if let Some(message) = failure.message {
        scope.start_el("Message").finish().data(message);
    }
    for (name, value) in failure.details {
        scope.start_el(name).finish().data(value);
    }
    if let Some((shape, Value::Struct(slots))) = failure.modeled {
        let message = message_index(shape);
        for (i, (m, v)) in shape.members.iter().zip(slots).enumerate() {
            if let (Some(v), true, false) = (v, in_body(m, true), Some(i) == message) {
                write_member(scope, m, v);
            }
        }
    }
}

/// Reads an XML document as a value of `shape`: for a structure, the root element's
/// attributes and children. The root element's own name is not checked, as AWS does not.
pub fn from_document(shape: &'static Shape, bytes: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the XML document is not UTF-8".to_owned())?;
    refuse_doctype(text)?;
    let mut doc = Document::new(text);
    let mut root = doc.root_element().map_err(|e| e.to_string())?;
    read_value(&mut root, shape, None, 0)
}

/// Refuses a document with a document type declaration: no AWS request has one, and its
/// entities (internal ones that expand, external ones that fetch) are never honoured. Only
/// the prolog, before the root element, is read.
fn refuse_doctype(text: &str) -> Result<(), String> {
    for token in xmlparser::Tokenizer::from(text) {
        match token {
            Ok(xmlparser::Token::DtdStart { .. } | xmlparser::Token::EmptyDtd { .. }) => {
                return Err("a document type declaration (DOCTYPE) is not allowed".into())
            }
            Ok(xmlparser::Token::ElementStart { .. }) | Err(_) => return Ok(()),
            Ok(_) => {}
        }
    }
    Ok(())
}

fn read_value(
    dec: &mut ScopedDecoder<'_, '_>,
    shape: &'static Shape,
    member: Option<&Member>,
    depth: usize,
) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("XML nesting is too deep".into());
    }
    match shape.kind {
        ShapeType::Structure | ShapeType::Union => read_struct(dec, shape, depth),
        ShapeType::List => {
            let item = shape.list_member();
            let mut items = Vec::new();
            while let Some(mut child) = dec.next_tag() {
                items.push(read_value(&mut child, item.target, Some(item), depth + 1)?);
            }
            Ok(Value::List(items))
        }
        ShapeType::Map => {
            let mut entries = Vec::new();
            while let Some(mut entry) = dec.next_tag() {
                entries.push(read_entry(&mut entry, shape, depth + 1)?);
            }
            Ok(Value::Map(entries))
        }
        ShapeType::Document => Err(format!("{} cannot travel in XML", shape.name)),
        _ => {
            let data = try_data(dec).map_err(|e| e.to_string())?;
            text::parse(shape, &data, ts_format(member))
        }
    }
}

/// Whether an element's local name is `name` (whose prefix, if any, is not compared).
fn is_named(dec: &ScopedDecoder<'_, '_>, name: &str) -> bool {
    let local = name.rsplit(':').next().unwrap_or(name);
    dec.start_el().local() == local
}

fn read_struct(dec: &mut ScopedDecoder<'_, '_>, shape: &'static Shape, depth: usize) -> Result<Value, String> {
    let mut slots: Vec<Option<Value>> = vec![None; shape.members.len()];
    for (slot, m) in slots.iter_mut().zip(shape.members) {
        if let (true, Some(text)) = (m.xml_attribute, dec.start_el().attr(member_name(m))) {
            *slot = Some(text::parse(m.target, text, ts_format(Some(m)))?);
        }
    }
    while let Some(mut child) = dec.next_tag() {
        let found = shape
            .members
            .iter()
            .position(|m| in_body(m, false) && !m.xml_attribute && is_named(&child, member_name(m)));
        let Some(i) = found else { continue };
        let m = &shape.members[i];
        match m.target.kind {
            ShapeType::List if m.xml_flattened => {
                let item = m.target.list_member();
                let v = read_value(&mut child, item.target, Some(item), depth + 1)?;
                match &mut slots[i] {
                    Some(Value::List(items)) => items.push(v),
                    slot => *slot = Some(Value::List(vec![v])),
                }
            }
            ShapeType::Map if m.xml_flattened => {
                let entry = read_entry(&mut child, m.target, depth + 1)?;
                match &mut slots[i] {
                    Some(Value::Map(entries)) => entries.push(entry),
                    slot => *slot = Some(Value::Map(vec![entry])),
                }
            }
            _ => slots[i] = Some(read_value(&mut child, m.target, Some(m), depth + 1)?),
        }
    }
    if shape.kind != ShapeType::Union {
        return Ok(Value::Struct(slots));
    }
    let mut set = slots.into_iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v)));
    match (set.next(), set.next()) {
        (Some((i, v)), None) => Ok(Value::Union(i, Box::new(v))),
        (None, _) => Err(format!("union {} has no member set", shape.name)),
        _ => Err(format!("union {} has more than one member set", shape.name)),
    }
}

fn read_entry(dec: &mut ScopedDecoder<'_, '_>, map: &'static Shape, depth: usize) -> Result<(String, Value), String> {
    let (k, v) = map.map_members();
    let (mut key, mut value) = (None, None);
    while let Some(mut child) = dec.next_tag() {
        if is_named(&child, k.xml_name.unwrap_or("key")) {
            key = Some(try_data(&mut child).map_err(|e| e.to_string())?.into_owned());
        } else if is_named(&child, v.xml_name.unwrap_or("value")) {
            value = Some(read_value(&mut child, v.target, Some(v), depth + 1)?);
        }
    }
    match (key, value) {
        (Some(key), Some(value)) => Ok((key, value)),
        (Some(key), None) if map.sparse => Ok((key, Value::Null)),
        _ => Err(format!("an entry of {} lacks its key or value", map.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::prelude_shapes::{INTEGER, STRING, TIMESTAMP};
    use stratus_core::DateTime;

    static LIST: Shape = Shape {
        members: &[Member {
            xml_name: Some("item"),
            ..Member::plain("member", &STRING)
        }],
        ..Shape::simple("L", ShapeType::List)
    };
    static MAP: Shape = Shape {
        members: &[
            Member {
                xml_name: Some("K"),
                ..Member::plain("key", &STRING)
            },
            Member::plain("value", &INTEGER),
        ],
        ..Shape::simple("M", ShapeType::Map)
    };
    static SHAPE: Shape = Shape {
        members: &[
            Member {
                xml_attribute: true,
                xml_name: Some("id"),
                ..Member::plain("Id", &STRING)
            },
            Member::plain("Wrapped", &LIST),
            Member {
                xml_flattened: true,
                xml_name: Some("Flat"),
                ..Member::plain("FlatList", &LIST)
            },
            Member::plain("Map", &MAP),
            Member {
                xml_flattened: true,
                ..Member::plain("FlatMap", &MAP)
            },
            Member::plain("At", &TIMESTAMP),
            Member {
                xml_namespace: Some(XmlNamespace {
                    uri: "urn:x",
                    prefix: Some("x"),
                }),
                ..Member::plain("Spaced", &STRING)
            },
        ],
        ..Shape::simple("S", ShapeType::Structure)
    };

    fn sample() -> Value {
        let strings = |v: &[&str]| Value::List(v.iter().map(|s| Value::String((*s).into())).collect());
        let map = |k: &str, v| Value::Map(vec![(k.into(), Value::Int(v))]);
        Value::Struct(vec![
            Some(Value::String("i\"d".into())),
            Some(strings(&["a", "b"])),
            Some(strings(&["c", "d"])),
            Some(map("k", 1)),
            Some(map("f", 2)),
            Some(Value::Timestamp(DateTime::from_secs(0))),
            Some(Value::String("<&>".into())),
        ])
    }

    #[test]
    fn writes_smithy_xml_bindings_and_reads_them_back() {
        let xml = to_document("S", None, &SHAPE, &sample());
        assert_eq!(
            xml,
            "<S id=\"i&quot;d\"><Wrapped><item>a</item><item>b</item></Wrapped><Flat>c</Flat><Flat>d</Flat>\
             <Map><entry><K>k</K><value>1</value></entry></Map><FlatMap><K>f</K><value>2</value></FlatMap>\
             <At>1970-01-01T00:00:00Z</At><Spaced xmlns:x=\"urn:x\">&lt;&amp;&gt;</Spaced></S>"
        );
        assert_eq!(from_document(&SHAPE, xml.as_bytes()).unwrap(), sample());
    }

    /// A value handed over as JSON (as DynamoDB hands its items) is written as the value it
    /// stands for, whole or member by member, flattened members included.
    #[test]
    fn writes_encoded_json_as_the_value_it_stands_for() {
        let expected = to_document("S", None, &SHAPE, &sample());
        let as_json = |shape, value: &Value| Value::EncodedJson(json::encode(shape, value, json::KeyNames::Member));
        assert_eq!(to_document("S", None, &SHAPE, &as_json(&SHAPE, &sample())), expected);
        let mut members = sample();
        if let Value::Struct(slots) = &mut members {
            for (slot, member) in slots.iter_mut().zip(SHAPE.members).skip(1) {
                *slot = slot.as_ref().map(|v| as_json(member.target, v));
            }
        }
        assert_eq!(to_document("S", None, &SHAPE, &members), expected);
    }

    #[test]
    fn refuses_mismatches_and_deep_nesting() {
        assert!(from_document(&SHAPE, b"<S><At>soon</At></S>").is_err());
        assert!(from_document(&SHAPE, b"<S><Map><entry><value>1</value></entry></Map></S>").is_err());
        assert!(from_document(&SHAPE, b"").is_err());
        assert!(from_document(&SHAPE, b"\xff").is_err());
        let deep = format!("<S>{}{}</S>", "<Wrapped>".repeat(5000), "</Wrapped>".repeat(5000));
        assert!(from_document(&SHAPE, deep.as_bytes()).is_err());
        // Unknown elements are skipped, however deep.
        let unknown = format!(
            "<S>{}{}<At>1970-01-01T00:00:00Z</At></S>",
            "<X>".repeat(5000),
            "</X>".repeat(5000)
        );
        assert!(from_document(&SHAPE, unknown.as_bytes()).is_ok());
    }

    #[test]
    fn refuses_document_type_declarations_and_expands_no_entity() {
        let refused = |doc: &str| from_document(&SHAPE, doc.as_bytes()).unwrap_err();
        let declared =
            r#"<!DOCTYPE S [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><S><Spaced>&b;</Spaced></S>"#;
        assert!(refused(declared).contains("DOCTYPE"));
        let external =
            r#"<?xml version="1.0"?><!-- x --><!DOCTYPE S SYSTEM "file:///etc/passwd"><S><Spaced>&xxe;</Spaced></S>"#;
        assert!(refused(external).contains("DOCTYPE"));
        assert!(refused(r#"<!DOCTYPE S><S/>"#).contains("DOCTYPE"));
        // An entity no declaration names is refused, not expanded or passed through.
        assert!(from_document(&SHAPE, b"<S><Spaced>&xxe;</Spaced></S>").is_err());
        // DOCTYPE as text, after the root element begins, is only text.
        assert!(from_document(&SHAPE, b"<S><Spaced>&lt;!DOCTYPE x&gt;</Spaced></S>").is_ok());
    }

    #[test]
    fn mutated_declarations_never_expand_an_entity() {
        let seed = br#"<?xml version="1.0"?><!DOCTYPE S [<!ENTITY a "EXPANDED">]><S><Spaced>&a;</Spaced></S>"#;
        for n in 1..2000u64 {
            let mut rng = stratus_test_support::Rng(n);
            let bytes = stratus_test_support::mutate(&mut rng, seed, &[b"<!DOCTYPE", b"<!ENTITY", b"&a;", b"]>", b"<"]);
            // Whatever the mutation left of the declaration, its entity is never expanded.
            if let Ok(value) = from_document(&SHAPE, &bytes) {
                assert!(!format!("{value:?}").contains("EXPANDED"), "seed {n}: {bytes:?}");
            }
        }
    }
}
