//! The HTTP bindings shared by restJson1 and restXml: routes, labels, query parameters,
//! headers, payloads and status codes. The body format is the only thing the two protocols
//! do differently, and it comes in as a body codec.
//!
//! - Routing: an operation's `@http` route matches on method, literal and label segments
//!   (`{Name+}` greedy labels take the rest of the path, slashes included) and required literal
//!   query parameters; the most specific match wins (most literal segments, then most literal
//!   query parameters, then no greedy label). S3's `x-id` query hint is optional, since
//!   not every SDK sends it. A trailing slash is ignored except in a greedy label.
//! - Labels are percent-decoded; query strings also decode `+` as a space.
//! - `@httpQuery` lists are repeated parameters; `@httpQueryParams` collects every parameter,
//!   bound ones included.
//! - `@httpHeader` lists are comma-separated (quoted items may hold commas; http-date lists
//!   are split after every second comma); timestamps are http-date by default in headers and
//!   date-time in labels and query strings; strings with a `@mediaType` are base64 in headers.
//! - `@httpPayload`: a blob is the raw body, a string its text, a structure, union or
//!   document a document of the codec.
//!
//! ```
//! use stratus_core::schema::{HttpRoute, PathSegment};
//! use stratus_protocol::http_binding::labels;
//! static ROUTE: HttpRoute = HttpRoute {
//!     method: "GET",
//!     path: &[PathSegment::Label("Bucket"), PathSegment::Greedy("Key")],
//!     query: &[],
//!     code: 200,
//! };
//! assert_eq!(
//!     labels(&ROUTE, "/photos/2024/cat%20one.jpg").unwrap(),
//!     vec![("Bucket", "photos".to_owned()), ("Key", "2024/cat one.jpg".to_owned())]
//! );
//! ```

use std::borrow::Cow;

use stratus_core::prelude_shapes::UNIT;
use stratus_core::schema::{
    HttpBinding, HttpRoute, Member, Operation, PathSegment, Protocol, Service, Shape, ShapeType, TimestampFormat,
    XmlNamespace,
};
use stratus_core::Value;

use crate::reply::{append_header, respond, set_header};
use crate::{text, timestamp, urlencoded, ProtocolError, Request, Response};

/// A REST protocol's body format.
pub(crate) trait BodyCodec {
    const PROTOCOL: Protocol;
    /// The `Content-Type` of bodies the codec writes.
    const MEDIA_TYPE: &'static str;
    /// The body of a response whose shape binds nothing to it, when it has one (JSON's `{}`;
    /// S3 sends nothing, not even a `Content-Type`).
    const EMPTY_BODY: Option<&'static [u8]>;
    /// Reads a body as a value of `shape` (only its body-bound members, for a structure).
    fn read(shape: &'static Shape, body: &[u8]) -> Result<Value, String>;
    /// Writes `value` as a body; `member` is the payload member it is bound to, if any (its
    /// `@xmlName` names the root), in the service's `style`.
    fn write(shape: &'static Shape, member: Option<&Member>, value: &Value, style: BodyStyle) -> Vec<u8>;
}

/// What a service's bodies need beyond their shapes, for the formats that use it (XML): the
/// namespace a document declares, and whether date-times carry milliseconds (S3's).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BodyStyle {
    pub namespace: Option<XmlNamespace>,
    pub millisecond_dates: bool,
}

/// The labels of `path` under `route`, percent-decoded, or `None` when the path does not
/// match the route.
pub fn labels(route: &HttpRoute, path: &str) -> Option<Vec<(&'static str, String)>> {
    let path = path.strip_prefix('/').unwrap_or(path);
    let mut segments: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').collect()
    };
    let greedy = route.path.iter().any(|s| matches!(s, PathSegment::Greedy(_)));
    if !greedy && segments.last() == Some(&"") {
        segments.pop();
    }
    let mut out = Vec::new();
    let mut i = 0;
    for (n, segment) in route.path.iter().enumerate() {
        match segment {
            PathSegment::Literal(literal) => {
                let s = segments.get(i)?;
                if s != literal && urlencoded::decode(s, false).as_deref() != Some(*literal) {
                    return None;
                }
                i += 1;
            }
            PathSegment::Label(name) => {
                let s = segments.get(i).filter(|s| !s.is_empty())?;
                out.push((*name, urlencoded::decode(s, false)?.into_owned()));
                i += 1;
            }
            PathSegment::Greedy(name) => {
                let after = route.path.len() - n - 1;
                let end = segments.len().checked_sub(after).filter(|end| *end > i)?;
                let joined = segments[i..end].join("/");
                if joined.is_empty() {
                    return None;
                }
                out.push((*name, urlencoded::decode(&joined, false)?.into_owned()));
                i = end;
            }
        }
    }
    (i == segments.len()).then_some(out)
}

/// Whether the query satisfies the route's literal query parameters; `Some(n)` counts those
/// present.
fn query_matches(route: &HttpRoute, query: &[(String, String)]) -> Option<usize> {
    let mut present = 0;
    for (name, value) in route.query {
        let found = query.iter().find(|(k, _)| k == name);
        match (found, value) {
            (Some((_, v)), Some(want)) if v != want => return None,
            (Some(_), _) => present += 1,
            (None, _) if *name == "x-id" => {}
            (None, _) => return None,
        }
    }
    Some(present)
}

fn query_pairs(protocol: Protocol, req: &Request) -> Result<Vec<(String, String)>, ProtocolError> {
    urlencoded::pairs(req.uri.query().unwrap_or_default())
        .map(|pair| pair.map(|(k, v)| (k.into_owned(), v.into_owned())))
        .collect::<Result<_, _>>()
        .map_err(|message| ProtocolError::MalformedParameter {
            protocol,
            name: "query string".into(),
            message,
        })
}

/// How well a route matches, compared in order: literal path segments, literal query
/// parameters, required headers and query parameters present, and a route without a greedy
/// label.
type RouteScore = (usize, usize, (bool, usize), bool);

/// The operation whose route matches the request best.
pub(crate) fn operation_for(
    protocol: Protocol,
    service: &'static Service,
    req: &Request,
) -> Result<&'static Operation, ProtocolError> {
    let query = query_pairs(protocol, req)?;
    let path = req.uri.path();
    let mut best: Option<(RouteScore, &'static Operation)> = None;
    for op in service.operations {
        let Some(route) = &op.http else { continue };
        if route.method != req.method.as_str() || labels(route, path).is_none() {
            continue;
        }
        let Some(query_literals) = query_matches(route, &query) else {
            continue;
        };
        let literals = route
            .path
            .iter()
            .filter(|s| matches!(s, PathSegment::Literal(_)))
            .count();
        let greedy = route.path.iter().any(|s| matches!(s, PathSegment::Greedy(_)));
        let score = (literals, query_literals, required_bindings(op, req, &query), !greedy);
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, op));
        }
    }
    best.map(|(_, op)| op).ok_or_else(|| ProtocolError::UnknownOperation {
        protocol,
        name: format!("{} {path}", req.method),
    })
}

/// Whether the request carries every header and query parameter `op` requires, and how
/// many: what tells apart routes that are otherwise the same when the client sends no `x-id`
/// (S3's `PutObject` and `CopyObject`, which requires `x-amz-copy-source`; `DeleteObject` and
/// `AbortMultipartUpload`, which requires `uploadId`).
fn required_bindings(op: &Operation, req: &Request, query: &[(String, String)]) -> (bool, usize) {
    let mut present = 0;
    for m in op.input.members.iter().filter(|m| m.required) {
        let found = match m.http {
            HttpBinding::Header(name) => req.headers.contains_key(name),
            HttpBinding::Query(name) => query.iter().any(|(k, _)| k == name),
            _ => continue,
        };
        if !found {
            return (false, present);
        }
        present += 1;
    }
    (true, present)
}

/// Decodes a REST request into a value of `op.input`.
pub(crate) fn decode<C: BodyCodec>(op: &'static Operation, req: &Request) -> Result<Value, ProtocolError> {
    let protocol = C::PROTOCOL;
    let shape = op.input;
    let mut slots: Vec<Option<Value>> = vec![None; shape.members.len()];
    let body_empty = req.body.iter().all(u8::is_ascii_whitespace);
    let malformed_body = |message| ProtocolError::MalformedBody { protocol, message };

    if let Some(i) = shape.members.iter().position(|m| m.http == HttpBinding::Payload) {
        slots[i] = read_payload::<C>(&shape.members[i], req.body).map_err(malformed_body)?;
    } else if !body_empty && shape.members.iter().any(|m| m.http == HttpBinding::Body) {
        match C::read(shape, req.body).map_err(malformed_body)? {
            Value::Struct(body) if body.len() == slots.len() => slots = body,
            other => return Err(malformed_body(format!("expected a structure, found {}", other.kind()))),
        }
    }

    let labels = op
        .http
        .as_ref()
        .and_then(|r| labels(r, req.uri.path()))
        .unwrap_or_default();
    let query = query_pairs(protocol, req)?;
    for (slot, m) in slots.iter_mut().zip(shape.members) {
        let value = match m.http {
            HttpBinding::Label => labels
                .iter()
                .find(|(name, _)| *name == m.name)
                .map(|(_, text)| parse(m.target, Some(m), text, TimestampFormat::DateTime)),
            HttpBinding::Query(name) => {
                let values: Vec<&str> = query
                    .iter()
                    .filter(|(k, _)| k == name)
                    .map(|(_, v)| v.as_str())
                    .collect();
                (!values.is_empty()).then(|| read_query(m, &values))
            }
            HttpBinding::QueryParams => read_query_params(m, &query),
            HttpBinding::Header(name) => {
                let values: Vec<&str> = req.headers.get_all(name).iter().filter_map(utf8_header).collect();
                (!values.is_empty()).then(|| read_header(m, &values.join(", ")))
            }
            HttpBinding::PrefixHeaders(prefix) => read_prefix_headers(m, prefix, req.headers),
            HttpBinding::Body | HttpBinding::Payload | HttpBinding::ResponseCode => continue,
        };
        if let Some(value) = value {
            *slot = Some(value.map_err(|message| ProtocolError::MalformedParameter {
                protocol,
                name: bound_name(m).to_owned(),
                message,
            })?);
        }
    }
    Ok(Value::Struct(slots))
}

/// The name a member goes by on the wire outside the body.
fn bound_name(m: &Member) -> &'static str {
    match m.http {
        HttpBinding::Query(name) | HttpBinding::Header(name) | HttpBinding::PrefixHeaders(name) => name,
        _ => m.name,
    }
}

fn parse(
    shape: &'static Shape,
    member: Option<&Member>,
    text: &str,
    default: TimestampFormat,
) -> Result<Value, String> {
    text::parse(shape, text, timestamp::format_of(member, default))
}

fn read_payload<C: BodyCodec>(m: &'static Member, body: &[u8]) -> Result<Option<Value>, String> {
    if body.is_empty() {
        return Ok(None);
    }
    match m.target.kind {
        ShapeType::Blob => Ok(Some(Value::Blob(body.to_vec()))),
        ShapeType::String | ShapeType::Enum => std::str::from_utf8(body)
            .map(|s| Some(Value::String(s.to_owned())))
            .map_err(|_| "the payload is not UTF-8 text".into()),
        _ => C::read(m.target, body).map(Some),
    }
}

fn read_query(m: &'static Member, values: &[&str]) -> Result<Value, String> {
    match m.target.kind {
        ShapeType::List => {
            let item = m.target.list_member();
            values
                .iter()
                .map(|v| parse(item.target, Some(item), v, TimestampFormat::DateTime))
                .collect::<Result<_, _>>()
                .map(Value::List)
        }
        _ => parse(m.target, Some(m), values[0], TimestampFormat::DateTime),
    }
}

/// `@httpQueryParams`: every query parameter, those `@httpQuery` members also bind included
/// (servers put them all in the map), as a map of strings or of lists of strings.
fn read_query_params(m: &'static Member, query: &[(String, String)]) -> Option<Result<Value, String>> {
    let (_, value) = m.target.map_members();
    let mut entries: Vec<(String, Value)> = Vec::new();
    for (k, v) in query {
        let item = match value.target.kind {
            ShapeType::List => {
                let item = value.target.list_member();
                parse(item.target, Some(item), v, TimestampFormat::DateTime)
            }
            _ => parse(value.target, Some(value), v, TimestampFormat::DateTime),
        };
        let item = match item {
            Ok(item) => item,
            Err(e) => return Some(Err(e)),
        };
        match (value.target.kind, entries.iter_mut().find(|(key, _)| key == k)) {
            (ShapeType::List, Some((_, Value::List(items)))) => items.push(item),
            (ShapeType::List, None) => entries.push((k.clone(), Value::List(vec![item]))),
            (_, Some(_)) => {}
            (_, None) => entries.push((k.clone(), item)),
        }
    }
    (!entries.is_empty()).then_some(Ok(Value::Map(entries)))
}

fn read_header(m: &'static Member, raw: &str) -> Result<Value, String> {
    let target = m.target;
    match target.kind {
        ShapeType::List => {
            let item = target.list_member();
            let http_date = item.target.kind == ShapeType::Timestamp
                && timestamp::format_of(Some(item), TimestampFormat::HttpDate) == TimestampFormat::HttpDate;
            let mut parts = split_header_list(raw);
            if http_date {
                parts = parts.chunks(2).map(|pair| pair.join(", ")).collect();
            }
            parts
                .iter()
                .map(|p| parse(item.target, Some(item), p, TimestampFormat::HttpDate))
                .collect::<Result<_, _>>()
                .map(Value::List)
        }
        ShapeType::String if target.media_type.is_some() => aws_smithy_types::base64::decode(raw.trim())
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Value::String)
            .ok_or_else(|| format!("expected base64-encoded text for {}", target.name)),
        _ => parse(target, Some(m), raw.trim(), TimestampFormat::HttpDate),
    }
}

/// Splits a comma-separated header value; double-quoted items may hold commas and `\"`.
fn split_header_list(raw: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut was_quoted) = (false, false);
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                if !quoted && current.trim().is_empty() {
                    current.clear();
                }
                quoted = !quoted;
                was_quoted = true;
            }
            '\\' if quoted => current.extend(chars.next()),
            ',' if !quoted => {
                items.push(finish_item(&mut current, was_quoted));
                was_quoted = false;
            }
            c => current.push(c),
        }
    }
    items.push(finish_item(&mut current, was_quoted));
    items
}

fn finish_item(current: &mut String, quoted: bool) -> String {
    let item = std::mem::take(current);
    if quoted {
        item
    } else {
        item.trim().to_owned()
    }
}

/// A header's value as text: UTF-8, as SDKs send values that are not ASCII (botocore sends a
/// `Cache-Control` of `ÄMÄ` as its UTF-8 bytes, and S3 gives the same bytes back).
fn utf8_header(value: &http::HeaderValue) -> Option<&str> {
    std::str::from_utf8(value.as_bytes()).ok()
}

fn read_prefix_headers(m: &'static Member, prefix: &str, headers: &http::HeaderMap) -> Option<Result<Value, String>> {
    let prefix = prefix.to_ascii_lowercase();
    let (_, value) = m.target.map_members();
    let mut entries = Vec::new();
    for (name, v) in headers {
        let (Some(key), Some(text)) = (name.as_str().strip_prefix(prefix.as_str()), utf8_header(v)) else {
            continue;
        };
        match parse(value.target, Some(value), text, TimestampFormat::HttpDate) {
            Ok(v) => entries.push((key.to_owned(), v)),
            Err(e) => return Some(Err(e)),
        }
    }
    (!entries.is_empty()).then_some(Ok(Value::Map(entries)))
}

/// Encodes a value of `shape` (an output or an error) as a response: status from
/// `@httpResponseCode` or `status`, headers, and the payload or body.
pub(crate) fn encode<C: BodyCodec>(shape: &'static Shape, value: &Value, status: u16, style: BodyStyle) -> Response {
    let slots: &[Option<Value>] = match value {
        Value::Struct(slots) => slots,
        _ => &[],
    };
    let payload = shape.members.iter().position(|m| m.http == HttpBinding::Payload);
    let (body, content_type) = match payload {
        Some(i) => match slots.get(i) {
            Some(Some(v)) => write_payload::<C>(&shape.members[i], v, style),
            _ => (Vec::new(), None),
        },
        None if shape.members.iter().any(|m| m.http.in_response_body()) => {
            (C::write(shape, None, value, style), Some(C::MEDIA_TYPE))
        }
        // A structure without body members is an empty body; `Unit` and 204 are no body.
        None => match C::EMPTY_BODY.filter(|_| status != 204 && !std::ptr::eq(shape, &UNIT)) {
            Some(empty) => (empty.to_vec(), Some(C::MEDIA_TYPE)),
            None => (Vec::new(), None),
        },
    };
    let mut response = respond(status, content_type, body);
    write_headers(&mut response, shape, value);
    // An answer carrying part of a representation is `206 Partial Content` (RFC 9110
    // §15.3.7): S3's ranged GetObject, the only output that binds `Content-Range`.
    if status == 200 && response.headers().contains_key(http::header::CONTENT_RANGE) {
        *response.status_mut() = http::StatusCode::PARTIAL_CONTENT;
    }
    response
}

fn write_payload<C: BodyCodec>(m: &'static Member, value: &Value, style: BodyStyle) -> (Vec<u8>, Option<&'static str>) {
    let media_type = Some(payload_media_type::<C>(m));
    match value {
        Value::Blob(bytes) => (bytes.clone(), media_type),
        Value::String(text) => (text.clone().into_bytes(), media_type),
        _ => (C::write(m.target, Some(m), value, style), media_type),
    }
}

/// The media type of an `@httpPayload` member's body: its `@mediaType`, else what its type
/// implies.
fn payload_media_type<C: BodyCodec>(m: &Member) -> &'static str {
    match m.target.kind {
        ShapeType::Blob => m.target.media_type.unwrap_or("application/octet-stream"),
        ShapeType::String | ShapeType::Enum => m.target.media_type.unwrap_or("text/plain"),
        _ => C::MEDIA_TYPE,
    }
}

/// The media type of a body carrying `shape` (an input or output), `None` when nothing is
/// bound to the body.
pub(crate) fn body_media_type<C: BodyCodec>(shape: &Shape) -> Option<&'static str> {
    match payload_member(shape) {
        Some(m) => Some(payload_media_type::<C>(m)),
        None if shape.members.iter().any(|m| m.http == HttpBinding::Body) => Some(C::MEDIA_TYPE),
        None => None,
    }
}

/// The `@httpPayload` member of `shape`.
pub(crate) fn payload_member(shape: &Shape) -> Option<&'static Member> {
    shape.members.iter().find(|m| m.http == HttpBinding::Payload)
}

/// Whether some member of `shape` is bound to header `name` (its value is then data, not a
/// statement about the message).
pub(crate) fn binds_header(shape: &Shape, name: &str) -> bool {
    shape
        .members
        .iter()
        .any(|m| matches!(m.http, HttpBinding::Header(h) if h.eq_ignore_ascii_case(name)))
}

/// Sets the status and headers that `value`'s members bind (`@httpResponseCode`,
/// `@httpHeader`, `@httpPrefixHeaders`).
pub(crate) fn write_headers(response: &mut Response, shape: &'static Shape, value: &Value) {
    let Value::Struct(slots) = value else { return };
    for (m, v) in shape.members.iter().zip(slots) {
        let Some(v) = v else { continue };
        match (m.http, v) {
            (HttpBinding::Header(name), v) => {
                if let Some(text) = header_text(m, v) {
                    set_header(response, name, &text);
                }
            }
            (HttpBinding::PrefixHeaders(prefix), Value::Map(entries)) => {
                let Some(value_member) = m.target.members.get(1) else {
                    continue;
                };
                for (k, v) in entries {
                    if let Some(text) = header_text(value_member, v) {
                        append_header(response, &format!("{prefix}{k}"), &text);
                    }
                }
            }
            (HttpBinding::ResponseCode, Value::Int(code)) => {
                if let Some(status) = u16::try_from(*code)
                    .ok()
                    .and_then(|c| http::StatusCode::from_u16(c).ok())
                {
                    *response.status_mut() = status;
                }
            }
            _ => {}
        }
    }
}

fn header_text(m: &Member, value: &Value) -> Option<String> {
    let ts = timestamp::format_of(Some(m), TimestampFormat::HttpDate);
    match value {
        Value::List(items) => {
            let item = m.target.members.first();
            let ts = timestamp::format_of(item, TimestampFormat::HttpDate);
            let texts: Vec<String> = items
                .iter()
                .filter_map(|v| text::format(v, ts).map(Cow::into_owned))
                .map(|t| match (is_text_item(item), t.contains([',', '"'])) {
                    (true, true) => format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\"")),
                    _ => t,
                })
                .collect();
            Some(texts.join(", "))
        }
        Value::String(s) if m.target.media_type.is_some() => Some(aws_smithy_types::base64::encode(s.as_bytes())),
        v => text::format(v, ts).map(Cow::into_owned),
    }
}

fn is_text_item(item: Option<&Member>) -> bool {
    item.is_some_and(|i| matches!(i.target.kind, ShapeType::String | ShapeType::Enum))
}

#[cfg(test)]
mod tests {
    use super::*;

    static ROUTE: HttpRoute = HttpRoute {
        method: "POST",
        path: &[
            PathSegment::Literal("2015-03-31"),
            PathSegment::Literal("functions"),
            PathSegment::Label("FunctionName"),
            PathSegment::Literal("invocations"),
        ],
        query: &[],
        code: 200,
    };

    #[test]
    fn matches_literal_label_and_trailing_slash() {
        let found = |p| labels(&ROUTE, p);
        assert_eq!(
            found("/2015-03-31/functions/my%3Afn/invocations/"),
            Some(vec![("FunctionName", "my:fn".to_owned())])
        );
        assert_eq!(found("/2015-03-31/functions//invocations"), None);
        assert_eq!(found("/2015-03-31/functions/f/invocations/x"), None);
        assert_eq!(found("/"), None);
    }

    #[test]
    fn splits_header_lists_with_quotes() {
        assert_eq!(split_header_list(r#"a, "b,c", "d\"e""#), vec!["a", "b,c", "d\"e"]);
        assert_eq!(split_header_list(""), vec![""]);
    }
}
