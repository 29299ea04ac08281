//! The Smithy prelude (`smithy.api#String`, `smithy.api#Unit`, …) as static shapes, shared by
//! every generated crate.

use crate::schema::{Shape, ShapeType};
use crate::value::{ConvertError, FromValue, IntoValue, Value};

macro_rules! prelude {
    ($($name:ident = $smithy:literal, $kind:ident;)*) => {
        $(
            #[doc = concat!(
                "The prelude's `smithy.api#", $smithy, "`, for generated members whose model targets it."
            )]
            pub static $name: Shape = Shape::simple($smithy, ShapeType::$kind);
        )*
    };
}

prelude! {
    STRING = "String", String;
    BLOB = "Blob", Blob;
    BIG_INTEGER = "BigInteger", BigInteger;
    BIG_DECIMAL = "BigDecimal", BigDecimal;
    TIMESTAMP = "Timestamp", Timestamp;
    DOCUMENT = "Document", Document;
    BOOLEAN = "Boolean", Boolean;
    PRIMITIVE_BOOLEAN = "PrimitiveBoolean", Boolean;
    BYTE = "Byte", Byte;
    PRIMITIVE_BYTE = "PrimitiveByte", Byte;
    SHORT = "Short", Short;
    PRIMITIVE_SHORT = "PrimitiveShort", Short;
    INTEGER = "Integer", Integer;
    PRIMITIVE_INTEGER = "PrimitiveInteger", Integer;
    LONG = "Long", Long;
    PRIMITIVE_LONG = "PrimitiveLong", Long;
    FLOAT = "Float", Float;
    PRIMITIVE_FLOAT = "PrimitiveFloat", Float;
    DOUBLE = "Double", Double;
    PRIMITIVE_DOUBLE = "PrimitiveDouble", Double;
    UNIT = "Unit", Structure;
}

/// The value of `smithy.api#Unit`: an operation without input or output, a union member
/// without a value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unit;

impl FromValue for Unit {
    fn from_value(value: Value) -> Result<Unit, ConvertError> {
        match value {
            Value::Struct(_) => Ok(Unit),
            other => Err(ConvertError::new("structure", &other)),
        }
    }
}

impl IntoValue for Unit {
    fn into_value(self) -> Value {
        Value::Struct(Vec::new())
    }
}
