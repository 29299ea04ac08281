//! JSON documents ↔ [`Value`], guided by a shape.
//!
//! Used by the JSON protocols and by `stratus validate`. Keys are matched against member
//! names or, for restJson1, `@jsonName`; unknown keys are skipped as AWS's services do, except
//! in a union, where one is a second member set. Nulls in dense lists and maps are refused.
//! Timestamps must be in their member's `@timestampFormat` (epoch-seconds numbers by default,
//! strings for the text formats); blobs are base64.
//! [`encode`] writes the other direction with the same rules.
//!
//! ```
//! use stratus_core::json::{decode, KeyNames};
//! use stratus_core::prelude_shapes::STRING;
//! use stratus_core::Value;
//! assert_eq!(decode(&STRING, br#""hi""#, KeyNames::Member).unwrap(), Value::String("hi".into()));
//! ```

use std::iter::Peekable;

use aws_smithy_json::deserialize::{json_token_iter, JsonTokenIterator, Token};
use aws_smithy_types::date_time::Format;
use aws_smithy_types::Number;

use crate::schema::{HttpBinding, Member, Shape, ShapeType, TimestampFormat};
use crate::value::{DateTime, Document, Value};

mod encode;
mod writer;
pub use encode::{encode, encode_query_compatible};
pub use writer::{write_string, ValueWriter};

/// Deeper nesting than this is refused rather than risking the stack.
pub const MAX_DEPTH: usize = 128;

/// Which names object keys are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyNames {
    /// Member names (awsJson1_0, awsJson1_1, and the CLI's input JSON).
    Member,
    /// `@jsonName` where set, else member names (restJson1). Only members bound to the body
    /// take part: headers, labels, query parameters and the payload travel elsewhere.
    JsonName,
}

/// A body that is not JSON, or not JSON of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JsonError {
    /// What was wrong and where, e.g. `expected a list for KeySchema`.
    pub message: String,
}

fn err<T>(message: impl Into<String>) -> Result<T, JsonError> {
    Err(JsonError {
        message: message.into(),
    })
}

type Tokens<'a> = Peekable<JsonTokenIterator<'a>>;

/// The value a [`Value::EncodedJson`] of `shape` stands for, for the encoders of the other
/// protocols. Services write that text themselves, from data they stored, so it decodes; text
/// that does not is written as a null rather than failing a response that is being encoded.
pub fn decode_encoded(shape: &'static Shape, text: &str) -> Value {
    decode(shape, text.as_bytes(), KeyNames::Member).unwrap_or(Value::Null)
}

/// Decodes `bytes` as a value of `shape`. An empty body is an empty structure.
pub fn decode(shape: &'static Shape, bytes: &[u8], names: KeyNames) -> Result<Value, JsonError> {
    if bytes.iter().all(u8::is_ascii_whitespace) && shape.kind == ShapeType::Structure {
        return Ok(Value::empty_struct(shape.members.len()));
    }
    let mut tokens = json_token_iter(bytes).peekable();
    let value = decode_value(&mut tokens, shape, None, names, 0)?;
    match tokens.next() {
        None => Ok(value),
        Some(Ok(_)) => err("unexpected data after the JSON value"),
        Some(Err(e)) => err(e.to_string()),
    }
}

fn next<'a>(tokens: &mut Tokens<'a>) -> Result<Token<'a>, JsonError> {
    match tokens.next() {
        Some(Ok(t)) => Ok(t),
        Some(Err(e)) => err(e.to_string()),
        None => err("unexpected end of JSON input"),
    }
}

/// Decodes a value of `shape`, reached through `member` (whose traits format timestamps).
fn decode_value(
    tokens: &mut Tokens<'_>,
    shape: &'static Shape,
    member: Option<&'static Member>,
    names: KeyNames,
    depth: usize,
) -> Result<Value, JsonError> {
    if depth > MAX_DEPTH {
        return err("JSON nesting is too deep");
    }
    let token = next(tokens)?;
    if let Token::ValueNull { .. } = token {
        return Ok(Value::Null);
    }
    match shape.kind {
        ShapeType::Structure | ShapeType::Union => {
            expect_start_object(&token, shape)?;
            decode_struct(tokens, shape, names, depth)
        }
        ShapeType::List => {
            if !matches!(token, Token::StartArray { .. }) {
                return err(format!("expected a list for {}", shape.name));
            }
            let member = shape.list_member();
            let mut items = Vec::new();
            loop {
                if let Some(Ok(Token::EndArray { .. })) = tokens.peek() {
                    tokens.next();
                    return Ok(Value::List(items));
                }
                let item = decode_value(tokens, member.target, Some(member), names, depth + 1)?;
                if item == Value::Null && !shape.sparse {
                    return err(format!("null entry in the dense list {}", shape.name));
                }
                items.push(item);
            }
        }
        ShapeType::Map => {
            expect_start_object(&token, shape)?;
            let (_, value) = shape.map_members();
            let mut entries = Vec::new();
            loop {
                match next(tokens)? {
                    Token::EndObject { .. } => return Ok(Value::Map(entries)),
                    Token::ObjectKey { key, .. } => {
                        let key = unescape(key)?;
                        let v = decode_value(tokens, value.target, Some(value), names, depth + 1)?;
                        if v == Value::Null && !shape.sparse {
                            return err(format!("null value in the dense map {}", shape.name));
                        }
                        entries.push((key, v));
                    }
                    _ => return err("expected an object key"),
                }
            }
        }
        ShapeType::Document => decode_document(tokens, token, depth).map(|d| Value::Document(Box::new(d))),
        _ => decode_scalar(token, shape, member),
    }
}

fn expect_start_object(token: &Token<'_>, shape: &Shape) -> Result<(), JsonError> {
    match token {
        Token::StartObject { .. } => Ok(()),
        _ => err(format!("expected an object for {}", shape.name)),
    }
}

/// The key a member travels under, or `None` when it is not in the body at all. Labels and
/// query parameters exist only in requests: in a `response`, members bound so are body members.
fn wire_name(member: &Member, names: KeyNames, response: bool) -> Option<&'static str> {
    let in_body = if response {
        member.http.in_response_body()
    } else {
        member.http == HttpBinding::Body
    };
    match names {
        KeyNames::Member => Some(member.name),
        KeyNames::JsonName if in_body => Some(member.json_name.unwrap_or(member.name)),
        KeyNames::JsonName => None,
    }
}

fn member_index(shape: &Shape, key: &str, names: KeyNames) -> Option<usize> {
    shape
        .members
        .iter()
        .position(|m| wire_name(m, names, false) == Some(key))
}

fn decode_struct(
    tokens: &mut Tokens<'_>,
    shape: &'static Shape,
    names: KeyNames,
    depth: usize,
) -> Result<Value, JsonError> {
    let mut slots: Vec<Option<Value>> = vec![None; shape.members.len()];
    let mut unknown_keys = false;
    loop {
        match next(tokens)? {
            Token::EndObject { .. } => break,
            Token::ObjectKey { key, .. } => {
                let key = unescape(key)?;
                match member_index(shape, &key, names) {
                    Some(i) => {
                        let member = &shape.members[i];
                        let v = decode_value(tokens, member.target, Some(member), names, depth + 1)?;
                        if v != Value::Null {
                            slots[i] = Some(v);
                        }
                    }
                    None => {
                        unknown_keys = true;
                        skip_value(tokens, depth)?;
                    }
                }
            }
            _ => return err("expected an object key"),
        }
    }
    if shape.kind == ShapeType::Union {
        let mut set = slots.into_iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v)));
        return match (set.next(), set.next()) {
            // A member this model does not know is one more member set.
            (Some((i, v)), None) if !unknown_keys => Ok(Value::Union(i, Box::new(v))),
            (None, _) => err(format!("union {} has no member set", shape.name)),
            _ => err(format!("union {} has more than one member set", shape.name)),
        };
    }
    Ok(Value::Struct(slots))
}

fn decode_scalar(token: Token<'_>, shape: &Shape, member: Option<&Member>) -> Result<Value, JsonError> {
    let kind = shape.kind;
    let mismatch = || err(format!("unexpected JSON value for {} ({kind:?})", shape.name));
    match (kind, token) {
        (ShapeType::Boolean, Token::ValueBool { value, .. }) => Ok(Value::Bool(value)),
        (
            ShapeType::String | ShapeType::Enum | ShapeType::BigInteger | ShapeType::BigDecimal,
            Token::ValueString { value, .. },
        ) => Ok(Value::String(unescape(value)?)),
        (ShapeType::BigInteger | ShapeType::BigDecimal, Token::ValueNumber { value, .. }) => {
            Ok(Value::String(number_text(value)))
        }
        (k, Token::ValueNumber { value, .. }) if k.is_integral() => match value {
            Number::PosInt(n) => match i64::try_from(n) {
                Ok(n) if k.holds(n) => Ok(Value::Int(n)),
                _ => mismatch(),
            },
            Number::NegInt(n) if k.holds(n) => Ok(Value::Int(n)),
            _ => mismatch(),
        },
        (ShapeType::Float | ShapeType::Double, Token::ValueNumber { value, .. }) => {
            Ok(Value::Float(value.to_f64_lossy()))
        }
        (ShapeType::Float | ShapeType::Double, Token::ValueString { value, .. }) => {
            // JSON protocols send non-finite floats as strings.
            match value.as_escaped_str() {
                "NaN" => Ok(Value::Float(f64::NAN)),
                "Infinity" => Ok(Value::Float(f64::INFINITY)),
                "-Infinity" => Ok(Value::Float(f64::NEG_INFINITY)),
                _ => mismatch(),
            }
        }
        (ShapeType::Blob, Token::ValueString { value, .. }) => aws_smithy_types::base64::decode(value.as_escaped_str())
            .map(Value::Blob)
            .or_else(|_| err(format!("invalid base64 for {}", shape.name))),
        // A timestamp must come in its member's format: a number for epoch seconds (the
        // default), a string for the text formats.
        (ShapeType::Timestamp, token) => {
            let format = member
                .and_then(Member::timestamp_format)
                .or(shape.timestamp_format)
                .unwrap_or(TimestampFormat::EpochSeconds);
            match (format, token) {
                (TimestampFormat::EpochSeconds, Token::ValueNumber { value, .. }) => {
                    let secs = value.to_f64_lossy();
                    if !secs.is_finite() {
                        return mismatch();
                    }
                    Ok(Value::Timestamp(DateTime::from_secs_f64(secs)))
                }
                (TimestampFormat::DateTime | TimestampFormat::HttpDate, Token::ValueString { value, .. }) => {
                    let text = unescape(value)?;
                    let format = if format == TimestampFormat::HttpDate {
                        Format::HttpDate
                    } else {
                        Format::DateTime
                    };
                    DateTime::from_str(&text, format)
                        .map(Value::Timestamp)
                        .or_else(|_| err(format!("invalid timestamp {text:?}")))
                }
                _ => mismatch(),
            }
        }
        _ => mismatch(),
    }
}

fn number_text(n: Number) -> String {
    match n {
        Number::PosInt(n) => n.to_string(),
        Number::NegInt(n) => n.to_string(),
        Number::Float(f) => f.to_string(),
    }
}

fn unescape(s: aws_smithy_json::deserialize::EscapedStr<'_>) -> Result<String, JsonError> {
    s.to_unescaped().map(|c| c.into_owned()).or_else(|e| err(e.to_string()))
}

fn decode_document(tokens: &mut Tokens<'_>, token: Token<'_>, depth: usize) -> Result<Document, JsonError> {
    if depth > MAX_DEPTH {
        return err("JSON nesting is too deep");
    }
    Ok(match token {
        Token::ValueNull { .. } => Document::Null,
        Token::ValueBool { value, .. } => Document::Bool(value),
        Token::ValueString { value, .. } => Document::String(unescape(value)?),
        Token::ValueNumber { value, .. } => match value {
            Number::PosInt(n) => i64::try_from(n).map_or(Document::Float(n as f64), Document::Int),
            Number::NegInt(n) => Document::Int(n),
            Number::Float(f) => Document::Float(f),
        },
        Token::StartArray { .. } => {
            let mut items = Vec::new();
            loop {
                match next(tokens)? {
                    Token::EndArray { .. } => break Document::List(items),
                    t => items.push(decode_document(tokens, t, depth + 1)?),
                }
            }
        }
        Token::StartObject { .. } => {
            let mut entries = Vec::new();
            loop {
                match next(tokens)? {
                    Token::EndObject { .. } => break Document::Map(entries),
                    Token::ObjectKey { key, .. } => {
                        let key = unescape(key)?;
                        let t = next(tokens)?;
                        entries.push((key, decode_document(tokens, t, depth + 1)?));
                    }
                    _ => return err("expected an object key"),
                }
            }
        }
        _ => return err("unexpected JSON token"),
    })
}

fn skip_value(tokens: &mut Tokens<'_>, depth: usize) -> Result<(), JsonError> {
    let token = next(tokens)?;
    decode_document(tokens, token, depth + 1).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude_shapes::{INTEGER, STRING};
    use crate::schema::Shape;

    static LIST: Shape = Shape {
        members: &[Member::plain("member", &STRING)],
        ..Shape::simple("L", ShapeType::List)
    };
    static INPUT: Shape = Shape {
        members: &[
            Member::plain("Name", &STRING),
            Member::plain("Count", &INTEGER),
            Member::plain("Tags", &LIST),
        ],
        ..Shape::simple("Input", ShapeType::Structure)
    };

    #[test]
    fn decodes_members_by_name_and_skips_unknown_keys() {
        let v = decode(
            &INPUT,
            br#"{"Name":"a\u0041","Other":{"x":[1,2]},"Count":3,"Tags":["t"]}"#,
            KeyNames::Member,
        )
        .unwrap();
        assert_eq!(
            v,
            Value::Struct(vec![
                Some(Value::String("aA".into())),
                Some(Value::Int(3)),
                Some(Value::List(vec![Value::String("t".into())])),
            ])
        );
    }

    #[test]
    fn refuses_nulls_in_dense_lists_and_timestamps_in_another_format() {
        assert!(decode(&INPUT, br#"{"Tags":["a",null]}"#, KeyNames::Member).is_err());
        static STAMPED: Shape = Shape {
            members: &[
                Member::plain("Epoch", &crate::prelude_shapes::TIMESTAMP),
                Member {
                    timestamp_format: Some(TimestampFormat::DateTime),
                    ..Member::plain("Text", &crate::prelude_shapes::TIMESTAMP)
                },
            ],
            ..Shape::simple("Stamped", ShapeType::Structure)
        };
        assert!(decode(
            &STAMPED,
            br#"{"Epoch":1.5,"Text":"1970-01-01T00:00:00Z"}"#,
            KeyNames::Member
        )
        .is_ok());
        assert!(decode(&STAMPED, br#"{"Epoch":"1970-01-01T00:00:00Z"}"#, KeyNames::Member).is_err());
        assert!(decode(&STAMPED, br#"{"Text":0}"#, KeyNames::Member).is_err());
    }

    #[test]
    fn refuses_wrong_types_truncation_and_deep_nesting() {
        assert!(decode(&INPUT, br#"{"Count":"3"}"#, KeyNames::Member).is_err());
        assert!(decode(&INPUT, br#"{"Name":"a""#, KeyNames::Member).is_err());
        assert!(decode(&INPUT, br#"{"Count":1.5}"#, KeyNames::Member).is_err());
        let deep = format!("{{\"Other\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(decode(&INPUT, deep.as_bytes(), KeyNames::Member).is_err());
    }
}
