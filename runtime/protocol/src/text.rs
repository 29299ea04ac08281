//! Scalars as text: how Query parameters, XML elements and attributes, HTTP headers, labels
//! and query strings carry booleans, numbers, blobs and timestamps.

use std::borrow::Cow;

use aws_smithy_types::primitive::Encoder;
use stratus_core::schema::{Shape, ShapeType, TimestampFormat};
use stratus_core::Value;

use crate::timestamp;

/// Parses `text` as a value of the scalar `shape`; timestamps in `ts` format. The error says
/// what was expected.
pub(crate) fn parse(shape: &Shape, text: &str, ts: TimestampFormat) -> Result<Value, String> {
    let kind = shape.kind;
    let fail = || {
        Err(format!(
            "expected {} for {}, found {text:?}",
            expected(kind),
            shape.name
        ))
    };
    match kind {
        ShapeType::String | ShapeType::Enum => Ok(Value::String(text.to_owned())),
        ShapeType::BigInteger | ShapeType::BigDecimal => {
            let t = text.trim();
            let numeric = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
            if numeric {
                Ok(Value::String(t.to_owned()))
            } else {
                fail()
            }
        }
        ShapeType::Boolean => match text.trim() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => fail(),
        },
        k if k.is_integral() => match text.trim().parse::<i64>() {
            Ok(n) if k.holds(n) => Ok(Value::Int(n)),
            _ => fail(),
        },
        ShapeType::Float | ShapeType::Double => match text.trim() {
            "NaN" => Ok(Value::Float(f64::NAN)),
            "Infinity" => Ok(Value::Float(f64::INFINITY)),
            "-Infinity" => Ok(Value::Float(f64::NEG_INFINITY)),
            t if t.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) => {
                t.parse::<f64>().map(Value::Float).or_else(|_| fail())
            }
            _ => fail(),
        },
        ShapeType::Blob => aws_smithy_types::base64::decode(text.trim())
            .map(Value::Blob)
            .or_else(|_| fail()),
        ShapeType::Timestamp => timestamp::parse(text, ts).map(Value::Timestamp).map_or_else(fail, Ok),
        _ => fail(),
    }
}

fn expected(kind: ShapeType) -> &'static str {
    match kind {
        ShapeType::Boolean => "true or false",
        ShapeType::Float | ShapeType::Double => "a number",
        ShapeType::BigInteger | ShapeType::BigDecimal => "a number",
        ShapeType::Blob => "base64",
        ShapeType::Timestamp => "a timestamp",
        k if k.is_integral() => "an integer in range",
        _ => "a scalar",
    }
}

/// Writes a scalar value as text (borrowing a string's own); `None` for lists, maps,
/// structures and documents.
pub(crate) fn format(value: &Value, ts: TimestampFormat) -> Option<Cow<'_, str>> {
    Some(match value {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Bool(b) => Cow::Owned(b.to_string()),
        Value::Int(n) => Cow::Owned(n.to_string()),
        Value::Float(f) => Cow::Owned(Encoder::from(*f).encode().to_owned()),
        Value::Blob(b) => Cow::Owned(aws_smithy_types::base64::encode(b)),
        Value::Timestamp(t) => Cow::Owned(timestamp::format(t, ts)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::prelude_shapes::{BLOB, BOOLEAN, BYTE, DOUBLE, INTEGER, TIMESTAMP};

    #[test]
    fn parses_scalars_and_refuses_mismatches() {
        let dt = TimestampFormat::DateTime;
        assert_eq!(parse(&BOOLEAN, "true", dt), Ok(Value::Bool(true)));
        assert!(parse(&BOOLEAN, "yes", dt).is_err());
        assert_eq!(parse(&INTEGER, "-12", dt), Ok(Value::Int(-12)));
        assert!(parse(&INTEGER, "1.5", dt).is_err());
        assert!(parse(&BYTE, "300", dt).is_err());
        assert_eq!(parse(&DOUBLE, "1e3", dt), Ok(Value::Float(1000.0)));
        assert!(parse(&DOUBLE, "inf", dt).is_err());
        assert_eq!(parse(&BLOB, "aGk=", dt), Ok(Value::Blob(b"hi".to_vec())));
        assert!(parse(&TIMESTAMP, "2019-12-16T23:48:18Z", dt).is_ok());
        assert!(parse(&TIMESTAMP, "1576540098", dt).is_err());
    }

    #[test]
    fn formats_scalars() {
        let dt = TimestampFormat::DateTime;
        assert_eq!(format(&Value::Float(f64::NAN), dt).as_deref(), Some("NaN"));
        assert_eq!(format(&Value::Float(1.5), dt).as_deref(), Some("1.5"));
        assert_eq!(format(&Value::Blob(b"hi".to_vec()), dt).as_deref(), Some("aGk="));
        assert_eq!(format(&Value::List(vec![]), dt), None);
    }
}
