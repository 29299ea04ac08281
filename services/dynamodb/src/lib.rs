//! Amazon DynamoDB for Stratus: the data model and the expression languages, without the
//! operations (which wire these into the storage engine).
//!
//! - [`number`]: exact decimal numbers with DynamoDB's precision, range and printed form;
//! - [`key`]: an order-preserving byte encoding of key attributes for byte-ordered scans;
//! - [`size`]: item sizes computed as AWS computes them, and the 400 KB limit;
//! - [`value`]: input validation, equality and ordering of attribute values;
//! - [`expr`]: condition, filter, key condition, projection and update expressions —
//!   parsed and validated with AWS's messages, then evaluated against items.

pub mod expr;
pub mod key;
pub mod number;
pub mod size;
pub mod value;

pub use stratus_gen_dynamodb::AttributeValue;

/// An item: attribute names to values.
pub type Item = std::collections::BTreeMap<String, AttributeValue>;
