//! Test-case `params` as Stratus values (a `null` structure member is an absent one), and the semantic comparison of values: floats (NaN
//! equals NaN; a float member compares at `f32` precision), maps in any order, timestamps to
//! the millisecond.

use serde_json::Value as Json;
use stratus_core::schema::{Shape, ShapeType};
use stratus_core::value::Document;
use stratus_core::{DateTime, Value};

/// `params` (absent: an empty object) as a value of `shape`.
pub(crate) fn to_value(shape: &'static Shape, params: &Json) -> Result<Value, String> {
    let empty = Json::Object(Default::default());
    let params = if params.is_null() && shape.kind == ShapeType::Structure {
        &empty
    } else {
        params
    };
    convert(shape, params)
}

fn convert(shape: &'static Shape, json: &Json) -> Result<Value, String> {
    let mismatch = || format!("{json} is not a {:?} ({})", shape.kind, shape.name);
    Ok(match (shape.kind, json) {
        (_, Json::Null) => Value::Null,
        (ShapeType::Structure, Json::Object(o)) => Value::Struct(
            shape
                .members
                .iter()
                .map(|m| {
                    o.get(m.name)
                        .filter(|v| !v.is_null())
                        .map(|v| convert(m.target, v))
                        .transpose()
                })
                .collect::<Result<_, _>>()?,
        ),
        (ShapeType::Union, Json::Object(o)) => {
            let (name, v) = o.iter().next().ok_or_else(mismatch)?;
            let i = shape.member_index(name).ok_or_else(mismatch)?;
            Value::Union(i, Box::new(convert(shape.members[i].target, v)?))
        }
        (ShapeType::List, Json::Array(a)) => {
            let member = shape.list_member().target;
            Value::List(a.iter().map(|v| convert(member, v)).collect::<Result<_, _>>()?)
        }
        (ShapeType::Map, Json::Object(o)) => {
            let (_, value) = shape.map_members();
            Value::Map(
                o.iter()
                    .map(|(k, v)| Ok((k.clone(), convert(value.target, v)?)))
                    .collect::<Result<_, String>>()?,
            )
        }
        (ShapeType::Boolean, Json::Bool(b)) => Value::Bool(*b),
        (kind, Json::Number(n)) if kind.is_integral() => Value::Int(n.as_i64().ok_or_else(mismatch)?),
        (ShapeType::Float | ShapeType::Double, Json::Number(n)) => Value::Float(n.as_f64().ok_or_else(mismatch)?),
        (ShapeType::Float | ShapeType::Double, Json::String(s)) => Value::Float(match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            _ => return Err(mismatch()),
        }),
        (ShapeType::String | ShapeType::Enum | ShapeType::BigInteger | ShapeType::BigDecimal, Json::String(s)) => {
            Value::String(s.clone())
        }
        (ShapeType::BigInteger | ShapeType::BigDecimal, Json::Number(n)) => Value::String(n.to_string()),
        (ShapeType::Blob, Json::String(s)) => Value::Blob(s.as_bytes().to_vec()),
        (ShapeType::Timestamp, Json::Number(n)) => {
            Value::Timestamp(DateTime::from_secs_f64(n.as_f64().ok_or_else(mismatch)?))
        }
        (ShapeType::Document, json) => Value::Document(Box::new(document(json))),
        _ => return Err(mismatch()),
    })
}

fn document(json: &Json) -> Document {
    match json {
        Json::Null => Document::Null,
        Json::Bool(b) => Document::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map_or_else(|| Document::Float(n.as_f64().unwrap_or(f64::NAN)), Document::Int),
        Json::String(s) => Document::String(s.clone()),
        Json::Array(a) => Document::List(a.iter().map(document).collect()),
        Json::Object(o) => Document::Map(o.iter().map(|(k, v)| (k.clone(), document(v))).collect()),
    }
}

/// Whether `actual` and `expected` mean the same; the error names the first difference.
pub(crate) fn equivalent(actual: &Value, expected: &Value) -> Result<(), String> {
    let differ = || Err(format!("{actual:?} differs from {expected:?}"));
    match (actual, expected) {
        (Value::Float(a), Value::Float(b)) => {
            if (a.is_nan() && b.is_nan()) || a == b || (*a as f32) == (*b as f32) {
                Ok(())
            } else {
                differ()
            }
        }
        (Value::Timestamp(a), Value::Timestamp(b)) => {
            if (a.as_secs_f64() - b.as_secs_f64()).abs() < 0.0005 {
                Ok(())
            } else {
                differ()
            }
        }
        (Value::List(a), Value::List(b)) => {
            if a.len() != b.len() {
                return differ();
            }
            a.iter().zip(b).try_for_each(|(a, b)| equivalent(a, b))
        }
        (Value::Struct(a), Value::Struct(b)) => {
            if a.len() != b.len() {
                return differ();
            }
            a.iter().zip(b).try_for_each(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => equivalent(a, b),
                (None, None) => Ok(()),
                (a, b) => Err(format!("member {a:?} differs from {b:?}")),
            })
        }
        (Value::Map(a), Value::Map(b)) => {
            if a.len() != b.len() {
                return differ();
            }
            a.iter().try_for_each(|(k, v)| match b.iter().find(|(k2, _)| k2 == k) {
                Some((_, v2)) => equivalent(v, v2),
                None => Err(format!("unexpected key {k:?}")),
            })
        }
        (Value::Union(i, a), Value::Union(j, b)) if i == j => equivalent(a, b),
        (Value::Document(a), Value::Document(b)) if documents_equivalent(a, b) => Ok(()),
        (a, b) if a == b => Ok(()),
        _ => differ(),
    }
}

fn documents_equivalent(a: &Document, b: &Document) -> bool {
    match (a, b) {
        (Document::Int(a), Document::Float(b)) | (Document::Float(b), Document::Int(a)) => *a as f64 == *b,
        (Document::List(a), Document::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| documents_equivalent(a, b))
        }
        (Document::Map(a), Document::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.iter().any(|(k2, v2)| k2 == k && documents_equivalent(v, v2)))
        }
        (a, b) => a == b,
    }
}

/// Standard base64, as CBOR bodies are given.
pub(crate) fn base64(text: &str) -> Result<Vec<u8>, String> {
    aws_smithy_types::base64::decode(text).map_err(|e| format!("base64 body: {e}"))
}

/// A JSON error body whose `message` matches `regex`.
pub(crate) fn check_message_regex(body: &[u8], regex: &str) -> Result<(), String> {
    let json: Json = serde_json::from_slice(body).map_err(|e| format!("error body is not JSON: {e}"))?;
    let message = json
        .get("message")
        .or_else(|| json.get("Message"))
        .and_then(Json::as_str)
        .ok_or_else(|| format!("error body has no message: {json}"))?;
    let re = regex::Regex::new(regex).map_err(|e| format!("messageRegex {regex}: {e}"))?;
    if re.is_match(message) {
        Ok(())
    } else {
        Err(format!("message {message:?} does not match {regex:?}"))
    }
}
