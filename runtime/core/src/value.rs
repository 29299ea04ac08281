//! The protocol-neutral value model between wire codecs and generated types.
//!
//! Every codec decodes a request into a [`Value`] shaped by the operation's input
//! [`Shape`](crate::schema::Shape); the constraint engine validates that value; generated code
//! turns it into the typed input with [`FromValue`]. Outputs travel the other way through
//! [`IntoValue`].
//!
//! A structure is dense: one slot per member, in the order of `Shape::members`, so codecs and
//! validators address members by index and never by name.
//!
//! ```
//! use stratus_core::value::{FromValue, IntoValue, Value};
//! let v = "hello".to_string().into_value();
//! assert_eq!(String::from_value(v).unwrap(), "hello");
//! ```

use std::collections::BTreeMap;

pub use aws_smithy_types::DateTime;

use crate::schema::{DefaultValue, Shape, ShapeType};

/// A decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An explicit null (entries of sparse lists and maps).
    Null,
    /// boolean values.
    Bool(bool),
    /// byte, short, integer, long and intEnum values.
    Int(i64),
    /// float and double values.
    Float(f64),
    /// strings, enums, bigInteger and bigDecimal values.
    String(String),
    /// blob values, as raw bytes (codecs do any base64).
    Blob(Vec<u8>),
    /// timestamp values, whatever format they travel in.
    Timestamp(DateTime),
    /// list values, one element per entry.
    List(Vec<Value>),
    /// map values, as (key, value) pairs; Smithy map keys are strings.
    Map(Vec<(String, Value)>),
    /// A structure, one slot per member of its shape.
    Struct(Vec<Option<Value>>),
    /// A union: the index of the member that is set, and its value.
    Union(usize, Box<Value>),
    /// An untyped JSON-like document.
    Document(Box<Document>),
    /// A value of its shape already written in the JSON protocols' wire form (`@jsonName` keys,
    /// base64 blobs), which the JSON encoder copies verbatim: a service whose data is stored
    /// in a form it can transcode straight to JSON (DynamoDB's items) answers without building
    /// a tree. Other codecs decode it against the shape first
    /// ([`json::decode_encoded`](crate::json::decode_encoded)); it stands only for body
    /// members, never for ones bound to headers or XML attributes.
    EncodedJson(String),
}

/// A `document` value.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// JSON `null`.
    Null,
    /// A JSON boolean.
    Bool(bool),
    /// A JSON number without fraction or exponent that fits an `i64`.
    Int(i64),
    /// Any other JSON number.
    Float(f64),
    /// A JSON string.
    String(String),
    /// A JSON array.
    List(Vec<Document>),
    /// A JSON object, its entries in document order.
    Map(Vec<(String, Document)>),
}

/// Fills every absent member of the structures in `value` (a value of `shape`) that has a
/// `@default` with that default, at any depth: what a server hands its handler and sends back
/// when the client or the handler left such a member out.
///
/// ```
/// use stratus_core::prelude_shapes::{BOOLEAN, STRING};
/// use stratus_core::schema::{DefaultValue, Member, Shape, ShapeType};
/// use stratus_core::value::{fill_defaults, Value};
/// static INPUT: Shape = Shape {
///     members: &[
///         Member { default: Some(DefaultValue::Bool(true)), ..Member::plain("Enabled", &BOOLEAN) },
///         Member::plain("Name", &STRING),
///     ],
///     ..Shape::simple("Input", ShapeType::Structure)
/// };
/// let mut v = Value::empty_struct(2);
/// fill_defaults(&INPUT, &mut v);
/// assert_eq!(v, Value::Struct(vec![Some(Value::Bool(true)), None]));
/// ```
pub fn fill_defaults(shape: &Shape, value: &mut Value) {
    match value {
        Value::Struct(slots) => {
            for (member, slot) in shape.members.iter().zip(slots) {
                match (slot.as_mut(), member.default) {
                    (Some(v), _) => fill_defaults(member.target, v),
                    (None, Some(default)) => *slot = Some(default_value(member.target, default)),
                    (None, None) => {}
                }
            }
        }
        Value::Union(i, v) => {
            if let Some(member) = shape.members.get(*i) {
                fill_defaults(member.target, v);
            }
        }
        Value::List(items) => {
            if let Some(member) = shape.members.first() {
                items.iter_mut().for_each(|v| fill_defaults(member.target, v));
            }
        }
        Value::Map(entries) => {
            if let Some(member) = shape.members.get(1) {
                entries.iter_mut().for_each(|(_, v)| fill_defaults(member.target, v));
            }
        }
        _ => {}
    }
}

/// The value of a `@default` for a member targeting `target`.
fn default_value(target: &Shape, default: DefaultValue) -> Value {
    let document = |d| Value::Document(Box::new(d));
    match (default, target.kind == ShapeType::Document) {
        (DefaultValue::Bool(b), true) => document(Document::Bool(b)),
        (DefaultValue::Int(n), true) => document(Document::Int(n)),
        (DefaultValue::Float(x), true) => document(Document::Float(x)),
        (DefaultValue::String(s), true) => document(Document::String(s.to_owned())),
        (DefaultValue::EmptyList, true) => document(Document::List(Vec::new())),
        (DefaultValue::EmptyMap, true) => document(Document::Map(Vec::new())),
        (DefaultValue::Bool(b), _) => Value::Bool(b),
        (DefaultValue::Int(n), _) => Value::Int(n),
        (DefaultValue::Float(x), _) => Value::Float(x),
        (DefaultValue::String(s), _) => Value::String(s.to_owned()),
        (DefaultValue::EmptyList, _) => Value::List(Vec::new()),
        (DefaultValue::EmptyMap, _) => Value::Map(Vec::new()),
        (DefaultValue::Blob(b), _) => Value::Blob(b.to_vec()),
        (DefaultValue::Timestamp(secs), _) => Value::Timestamp(DateTime::from_secs(secs)),
    }
}

impl Value {
    /// A structure value with every member absent.
    pub fn empty_struct(members: usize) -> Value {
        Value::Struct(vec![None; members])
    }

    /// The kind of value, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::String(_) => "string",
            Value::Blob(_) => "blob",
            Value::Timestamp(_) => "timestamp",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Struct(_) => "structure",
            Value::Union(..) => "union",
            Value::Document(_) => "document",
            Value::EncodedJson(_) => "encoded JSON",
        }
    }
}

/// A value did not have the shape the typed model expects. Codecs produce values from the
/// schema, so this means a codec bug or a hand-built value; it is answered as an internal error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, found {found}")]
pub struct ConvertError {
    /// What the typed model wanted, e.g. `a string`.
    pub expected: &'static str,
    /// The kind of value that came instead (see [`Value::kind`]).
    pub found: &'static str,
}

impl ConvertError {
    /// `expected` was wanted but `found` came.
    pub fn new(expected: &'static str, found: &Value) -> ConvertError {
        ConvertError {
            expected,
            found: found.kind(),
        }
    }
}

/// Builds a typed value from a [`Value`].
pub trait FromValue: Sized {
    /// Converts `value`, or says what was expected instead of what came.
    fn from_value(value: Value) -> Result<Self, ConvertError>;
}

/// Turns a typed value into a [`Value`].
pub trait IntoValue {
    /// Converts `self` into the value its shape's codecs write.
    fn into_value(self) -> Value;
}

macro_rules! scalar {
    ($ty:ty, $variant:ident, $expected:literal, |$v:ident| $from:expr, |$s:ident| $into:expr) => {
        impl FromValue for $ty {
            fn from_value(value: Value) -> Result<Self, ConvertError> {
                match value {
                    Value::$variant($v) => $from,
                    other => Err(ConvertError::new($expected, &other)),
                }
            }
        }
        impl IntoValue for $ty {
            fn into_value(self) -> Value {
                let $s = self;
                Value::$variant($into)
            }
        }
    };
}

fn narrow<T: TryFrom<i64>>(v: i64) -> Result<T, ConvertError> {
    T::try_from(v).map_err(|_| ConvertError {
        expected: "a number in range",
        found: "integer",
    })
}

scalar!(bool, Bool, "boolean", |v| Ok(v), |s| s);
scalar!(i8, Int, "integer", |v| narrow(v), |s| s.into());
scalar!(i16, Int, "integer", |v| narrow(v), |s| s.into());
scalar!(i32, Int, "integer", |v| narrow(v), |s| s.into());
scalar!(i64, Int, "integer", |v| Ok(v), |s| s);
scalar!(f32, Float, "float", |v| Ok(v as f32), |s| s.into());
scalar!(f64, Float, "float", |v| Ok(v), |s| s);
scalar!(String, String, "string", |v| Ok(v), |s| s);
scalar!(Vec<u8>, Blob, "blob", |v| Ok(v), |s| s);
scalar!(DateTime, Timestamp, "timestamp", |v| Ok(v), |s| s);

impl FromValue for Document {
    fn from_value(value: Value) -> Result<Self, ConvertError> {
        match value {
            Value::Document(d) => Ok(*d),
            other => Err(ConvertError::new("document", &other)),
        }
    }
}

impl IntoValue for Document {
    fn into_value(self) -> Value {
        Value::Document(Box::new(self))
    }
}

impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(value: Value) -> Result<Self, ConvertError> {
        match value {
            Value::List(items) => items.into_iter().map(T::from_value).collect(),
            other => Err(ConvertError::new("list", &other)),
        }
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<T: FromValue> FromValue for BTreeMap<String, T> {
    fn from_value(value: Value) -> Result<Self, ConvertError> {
        match value {
            Value::Map(entries) => entries.into_iter().map(|(k, v)| Ok((k, T::from_value(v)?))).collect(),
            other => Err(ConvertError::new("map", &other)),
        }
    }
}

impl<T: IntoValue> IntoValue for BTreeMap<String, T> {
    fn into_value(self) -> Value {
        Value::Map(self.into_iter().map(|(k, v)| (k, v.into_value())).collect())
    }
}

/// Entries of sparse lists and maps may be null.
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: Value) -> Result<Self, ConvertError> {
        match value {
            Value::Null => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        match self {
            Some(v) => v.into_value(),
            None => Value::Null,
        }
    }
}

impl<T: FromValue> FromValue for Box<T> {
    fn from_value(value: Value) -> Result<Self, ConvertError> {
        T::from_value(value).map(Box::new)
    }
}

impl<T: IntoValue> IntoValue for Box<T> {
    fn into_value(self) -> Value {
        (*self).into_value()
    }
}

/// The member slots of a structure value, taken one by one by generated `FromValue` code.
pub struct Fields(std::vec::IntoIter<Option<Value>>);

impl Fields {
    /// Opens a structure value with `members` slots.
    pub fn open(value: Value, members: usize) -> Result<Fields, ConvertError> {
        match value {
            Value::Struct(slots) if slots.len() == members => Ok(Fields(slots.into_iter())),
            other => Err(ConvertError::new("structure", &other)),
        }
    }

    /// The next member, absent or converted.
    pub fn optional<T: FromValue>(&mut self) -> Result<Option<T>, ConvertError> {
        match self.0.next().flatten() {
            Some(v) => T::from_value(v).map(Some),
            None => Ok(None),
        }
    }

    /// The next member, which validation has already proved present.
    pub fn required<T: FromValue>(&mut self) -> Result<T, ConvertError> {
        match self.0.next().flatten() {
            Some(v) => T::from_value(v),
            None => Err(ConvertError {
                expected: "a required member",
                found: "nothing",
            }),
        }
    }

    /// The next member, or its default when absent.
    pub fn or_else<T: FromValue>(&mut self, default: impl FnOnce() -> T) -> Result<T, ConvertError> {
        Ok(self.optional()?.unwrap_or_else(default))
    }
}

/// Builds a structure value member by member, in member order.
pub struct StructBuilder(Vec<Option<Value>>);

impl StructBuilder {
    /// A builder for a structure of `members` members.
    pub fn new(members: usize) -> StructBuilder {
        StructBuilder(Vec::with_capacity(members))
    }

    /// Appends the next member.
    pub fn push<T: IntoValue>(mut self, member: T) -> StructBuilder {
        self.0.push(Some(member.into_value()));
        self
    }

    /// Appends the next member, absent when `None`.
    pub fn push_optional<T: IntoValue>(mut self, member: Option<T>) -> StructBuilder {
        self.0.push(member.map(IntoValue::into_value));
        self
    }

    /// The structure value, with the members pushed so far.
    pub fn build(self) -> Value {
        Value::Struct(self.0)
    }
}
