//! Helpers for the protocol tests: owned requests, and values addressed by member names.
#![allow(dead_code)]

use stratus_core::schema::{Shape, ShapeType};
use stratus_core::Value;
use stratus_protocol::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use stratus_protocol::Request;

/// A request that owns its parts; [`Owned::req`] lends them out.
pub(crate) struct Owned {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Owned {
    pub(crate) fn new(method: &str, uri: &str, headers: &[(&str, &str)], body: impl Into<Vec<u8>>) -> Owned {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        Owned {
            method: Method::from_bytes(method.as_bytes()).unwrap(),
            uri: uri.parse().unwrap(),
            headers: map,
            body: body.into(),
        }
    }

    pub(crate) fn req(&self) -> Request<'_> {
        Request {
            method: &self.method,
            uri: &self.uri,
            headers: &self.headers,
            body: &self.body,
        }
    }
}

/// The value at a dotted path of member names (and list indices), e.g. `Tags.0.Key`.
pub(crate) fn at<'v>(shape: &'static Shape, value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut shape = shape;
    let mut value = value;
    for step in path.split('.') {
        match (shape.kind, value) {
            (ShapeType::Structure, Value::Struct(slots)) => {
                let i = shape.member_index(step)?;
                value = slots[i].as_ref()?;
                shape = shape.members[i].target;
            }
            (ShapeType::Union, Value::Union(i, v)) => {
                let m = &shape.members[*i];
                if m.name != step {
                    return None;
                }
                value = v;
                shape = m.target;
            }
            (ShapeType::List, Value::List(items)) => {
                value = items.get(step.parse::<usize>().ok()?)?;
                shape = shape.members[0].target;
            }
            (ShapeType::Map, Value::Map(entries)) => {
                value = &entries.iter().find(|(k, _)| k == step)?.1;
                shape = shape.members[1].target;
            }
            _ => return None,
        }
    }
    Some(value)
}

pub(crate) fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

/// A structure value of `shape` with the named members set.
pub(crate) fn build(shape: &'static Shape, members: Vec<(&str, Value)>) -> Value {
    let mut slots = vec![None; shape.members.len()];
    for (name, v) in members {
        let i = shape
            .member_index(name)
            .unwrap_or_else(|| panic!("{} has no member {name}", shape.name));
        slots[i] = Some(v);
    }
    Value::Struct(slots)
}

pub(crate) fn body_text(response: &stratus_protocol::Response) -> &str {
    std::str::from_utf8(response.body()).unwrap()
}
