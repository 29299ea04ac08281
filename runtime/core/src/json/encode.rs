//! [`Value`] → JSON text, guided by a shape: the inverse of [`decode`](super::decode).
//!
//! Structures become objects keyed like the decoder reads them ([`KeyNames`]), absent members
//! are left out, blobs are base64, timestamps follow `@timestampFormat` (epoch seconds by
//! default), non-finite floats are the strings `"NaN"`, `"Infinity"` and `"-Infinity"`. What
//! is written is a response: with `@jsonName` keys, members bound to headers are left out, but
//! those bound to labels or query parameters, which only requests have, are body members.
//! The value drives the output and the shape only names and formats it, so a value that does
//! not fit its shape still encodes (as what it is) rather than failing.

use aws_smithy_types::date_time::Format;
use aws_smithy_types::Number;

use super::writer::ValueWriter;
use super::{wire_name, KeyNames};
use crate::schema::{Member, Shape, TimestampFormat};
use crate::value::{DateTime, Document, Value};

/// Encodes `value`, a value of `shape`, as a JSON document.
///
/// ```
/// use stratus_core::json::{encode, KeyNames};
/// use stratus_core::prelude_shapes::STRING;
/// use stratus_core::Value;
/// assert_eq!(encode(&STRING, &Value::String("hi".into()), KeyNames::Member), r#""hi""#);
/// ```
pub fn encode(shape: &'static Shape, value: &Value, names: KeyNames) -> String {
    encode_styled(
        shape,
        value,
        Style {
            names,
            omit_empty: false,
        },
    )
}

/// Encodes `value` as an `@awsQueryCompatible` service answers in JSON: keyed by member names,
/// and without the empty lists and maps of members the model marks required, which such a
/// service leaves out as its Query answers do: SQS's SendMessageBatch has no `Failed` when
/// nothing failed (aws/aws-sdk#657). An optional member is written as the service gives it
/// (a service leaves out what AWS leaves out).
pub fn encode_query_compatible(shape: &'static Shape, value: &Value) -> String {
    encode_styled(
        shape,
        value,
        Style {
            names: KeyNames::Member,
            omit_empty: true,
        },
    )
}

#[derive(Clone, Copy)]
struct Style {
    names: KeyNames,
    omit_empty: bool,
}

fn encode_styled(shape: &'static Shape, value: &Value, style: Style) -> String {
    let mut out = String::new();
    write_value(ValueWriter::new(&mut out), shape, None, value, style);
    out
}

fn is_empty_collection(value: &Value) -> bool {
    match value {
        Value::List(items) => items.is_empty(),
        Value::Map(entries) => entries.is_empty(),
        _ => false,
    }
}

fn write_value(w: ValueWriter<'_>, shape: &'static Shape, member: Option<&Member>, value: &Value, style: Style) {
    match value {
        Value::Null => w.null(),
        Value::Bool(b) => w.boolean(*b),
        Value::Int(n) => w.number(int(*n)),
        Value::Float(f) => w.number(Number::Float(*f)),
        Value::String(s) => w.string(s),
        Value::Blob(b) => w.string(&aws_smithy_types::base64::encode(b)),
        Value::Timestamp(t) => write_timestamp(
            w,
            t,
            member.and_then(Member::timestamp_format).or(shape.timestamp_format),
        ),
        Value::List(items) => {
            let item = shape.members.first();
            let mut array = w.start_array();
            for v in items {
                write_value(array.value(), item.map_or(shape, |m| m.target), item, v, style);
            }
            array.finish();
        }
        Value::Map(entries) => {
            let value_member = shape.members.get(1);
            let mut object = w.start_object();
            for (k, v) in entries {
                write_value(
                    object.key(k),
                    value_member.map_or(shape, |m| m.target),
                    value_member,
                    v,
                    style,
                );
            }
            object.finish();
        }
        Value::Struct(slots) => {
            let mut object = w.start_object();
            for (m, v) in shape.members.iter().zip(slots) {
                let omitted = |v: &&Value| style.omit_empty && m.required && is_empty_collection(v);
                let Some(v) = v.as_ref().filter(|v| !omitted(v)) else {
                    continue;
                };
                if let Some(key) = wire_name(m, style.names, true) {
                    write_value(object.key(key), m.target, Some(m), v, style);
                }
            }
            object.finish();
        }
        Value::Union(i, v) => {
            let mut object = w.start_object();
            if let Some(m) = shape.members.get(*i) {
                write_value(
                    object.key(wire_name(m, style.names, true).unwrap_or(m.name)),
                    m.target,
                    Some(m),
                    v,
                    style,
                );
            }
            object.finish();
        }
        Value::Document(d) => write_document(w, d),
        Value::EncodedJson(text) => w.raw(text),
    }
}

fn int(n: i64) -> Number {
    match u64::try_from(n) {
        Ok(n) => Number::PosInt(n),
        Err(_) => Number::NegInt(n),
    }
}

fn write_timestamp(w: ValueWriter<'_>, t: &DateTime, format: Option<TimestampFormat>) {
    let format = match format {
        Some(TimestampFormat::DateTime) => Format::DateTime,
        Some(TimestampFormat::HttpDate) => Format::HttpDate,
        Some(TimestampFormat::EpochSeconds) | None => Format::EpochSeconds,
    };
    // Text formats cannot write years outside 0001–9999; epoch seconds can write any instant,
    // whole seconds as an integer.
    match t.fmt(format) {
        Ok(text) if format != Format::EpochSeconds => w.string(&text),
        _ if t.subsec_nanos() == 0 => w.number(int(t.secs())),
        _ => w.number(Number::Float(t.as_secs_f64())),
    }
}

fn write_document(w: ValueWriter<'_>, d: &Document) {
    match d {
        Document::Null => w.null(),
        Document::Bool(b) => w.boolean(*b),
        Document::Int(n) => w.number(int(*n)),
        Document::Float(f) => w.number(Number::Float(*f)),
        Document::String(s) => w.string(s),
        Document::List(items) => {
            let mut array = w.start_array();
            for item in items {
                write_document(array.value(), item);
            }
            array.finish();
        }
        Document::Map(entries) => {
            let mut object = w.start_object();
            for (k, v) in entries {
                write_document(object.key(k), v);
            }
            object.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::decode;
    use crate::prelude_shapes::{BLOB, DOUBLE, INTEGER, STRING, TIMESTAMP};
    use crate::schema::{HttpBinding, ShapeType};

    static LIST: Shape = Shape {
        members: &[Member::plain("member", &STRING)],
        ..Shape::simple("L", ShapeType::List)
    };
    static SHAPE: Shape = Shape {
        members: &[
            Member {
                json_name: Some("name"),
                ..Member::plain("Name", &STRING)
            },
            Member::plain("Count", &INTEGER),
            Member::plain("Tags", &LIST),
            Member::plain("Data", &BLOB),
            Member::plain("At", &TIMESTAMP),
            Member {
                timestamp_format: Some(TimestampFormat::DateTime),
                ..Member::plain("AtText", &TIMESTAMP)
            },
            Member::plain("Ratio", &DOUBLE),
            Member {
                http: HttpBinding::Header("x-h"),
                ..Member::plain("Header", &STRING)
            },
        ],
        ..Shape::simple("S", ShapeType::Structure)
    };

    fn sample() -> Value {
        Value::Struct(vec![
            Some(Value::String("a\"b".into())),
            Some(Value::Int(-3)),
            Some(Value::List(vec![Value::String("t".into())])),
            Some(Value::Blob(b"hi".to_vec())),
            Some(Value::Timestamp(DateTime::from_secs_f64(1.5))),
            Some(Value::Timestamp(DateTime::from_secs(0))),
            Some(Value::Float(f64::NEG_INFINITY)),
            Some(Value::String("h".into())),
        ])
    }

    #[test]
    fn writes_member_names_formats_and_round_trips() {
        let text = encode(&SHAPE, &sample(), KeyNames::Member);
        assert_eq!(
            text,
            r#"{"Name":"a\"b","Count":-3,"Tags":["t"],"Data":"aGk=","At":1.5,"AtText":"1970-01-01T00:00:00Z","Ratio":"-Infinity","Header":"h"}"#
        );
        assert_eq!(decode(&SHAPE, text.as_bytes(), KeyNames::Member).unwrap(), sample());
    }

    #[test]
    fn json_names_leave_out_members_bound_elsewhere() {
        let text = encode(&SHAPE, &sample(), KeyNames::JsonName);
        assert!(text.starts_with(r#"{"name":"a\"b","#), "{text}");
        assert!(!text.contains("Header"), "{text}");
    }

    #[test]
    fn query_compatible_answers_leave_out_required_empty_lists_only() {
        static RESULT: Shape = Shape {
            members: &[
                Member {
                    required: true,
                    ..Member::plain("Failed", &LIST)
                },
                Member::plain("Optional", &LIST),
                Member::plain("Name", &STRING),
            ],
            ..Shape::simple("R", ShapeType::Structure)
        };
        let value = Value::Struct(vec![
            Some(Value::List(vec![])),
            Some(Value::List(vec![])),
            Some(Value::String("n".into())),
        ]);
        assert_eq!(
            encode(&RESULT, &value, KeyNames::Member),
            r#"{"Failed":[],"Optional":[],"Name":"n"}"#
        );
        assert_eq!(
            encode_query_compatible(&RESULT, &value),
            r#"{"Optional":[],"Name":"n"}"#
        );
    }
}
