//! DynamoDB's expression languages: condition and filter expressions, key condition
//! expressions, projection expressions and update expressions.
//!
//! Each `parse_*` function checks an expression as AWS does — syntax, reserved words,
//! placeholders, functions and operand types — and returns a tree ready to evaluate against
//! items, borrowing the expression text and the request's placeholder maps. All the
//! expressions of one request share one [`Placeholders`], which records the placeholders
//! they use, so [`Placeholders::check_unused`] can refuse the ones none of them used.
//!
//! ```
//! use std::collections::BTreeMap;
//! use stratus_service_dynamodb::expr::{parse_condition, parse_update, ExpressionKind, Placeholders};
//! use stratus_service_dynamodb::{AttributeValue, Item};
//!
//! let names = BTreeMap::from([("#s".to_string(), "status".to_string())]);
//! let values = BTreeMap::from([
//!     (":open".to_string(), AttributeValue::S("open".into())),
//!     (":one".to_string(), AttributeValue::N("1".into())),
//! ]);
//! let mut placeholders = Placeholders::new(Some(&names), Some(&values)).unwrap();
//! let condition = parse_condition("#s = :open", ExpressionKind::Condition, &mut placeholders).unwrap();
//! let update = parse_update("ADD hits :one", &mut placeholders).unwrap();
//! placeholders.check_unused().unwrap();
//!
//! let item = Item::from([("status".to_string(), AttributeValue::S("open".into()))]);
//! assert!(condition.evaluate(&item));
//! let updated = update.apply(&item).unwrap();
//! assert_eq!(updated["hits"], AttributeValue::N("1".into()));
//! ```

mod ast;
mod check;
mod condition;
mod document;
mod error;
mod key_condition;
mod lexer;
mod parser;
mod projection;
mod reserved;
mod update;

use std::collections::{BTreeMap, BTreeSet};

pub use ast::{ArithOp, Comparator, Element, Expr, Func, Path};
pub use check::MAX_IN_OPERANDS;
pub use condition::{parse_condition, Condition};
pub use error::{ExprError, ExpressionKind, Reason, UpdateError};
pub use key_condition::{parse_key_condition, KeyCondition, SortCondition};
pub use parser::MAX_EXPRESSION_BYTES;
pub use projection::{parse_projection, Projection};
pub use reserved::is_reserved;
pub use update::{parse_update, Action, Update};

use crate::value::validate;
use crate::AttributeValue;

/// A request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, and which of them
/// the request's expressions have used so far.
#[derive(Debug)]
pub struct Placeholders<'a> {
    names: Option<&'a BTreeMap<String, String>>,
    values: Option<&'a BTreeMap<String, AttributeValue>>,
    used_names: BTreeSet<&'a str>,
    used_values: BTreeSet<&'a str>,
}

fn is_placeholder(key: &str, sigil: char) -> bool {
    key.strip_prefix(sigil)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

impl<'a> Placeholders<'a> {
    /// Checks the maps as AWS does before looking at any expression: neither may be empty,
    /// keys must be `#word` and `:word`, values must be valid attribute values.
    pub fn new(
        names: Option<&'a BTreeMap<String, String>>,
        values: Option<&'a BTreeMap<String, AttributeValue>>,
    ) -> Result<Placeholders<'a>, ExprError> {
        if let Some(names) = names {
            if names.is_empty() {
                return Err(ExprError::EmptyNames);
            }
            if let Some(key) = names.keys().find(|key| !is_placeholder(key, '#')) {
                return Err(ExprError::InvalidNameKey(key.clone()));
            }
        }
        if let Some(values) = values {
            if values.is_empty() {
                return Err(ExprError::EmptyValues);
            }
            if let Some(key) = values.keys().find(|key| !is_placeholder(key, ':')) {
                return Err(ExprError::InvalidValueKey(key.clone()));
            }
            for (key, value) in values {
                validate(value).map_err(|error| ExprError::InvalidValue(key.clone(), error))?;
            }
        }
        Ok(Placeholders {
            names,
            values,
            used_names: BTreeSet::new(),
            used_values: BTreeSet::new(),
        })
    }

    /// No placeholders at all, for requests without the maps.
    pub fn none() -> Placeholders<'a> {
        Placeholders {
            names: None,
            values: None,
            used_names: BTreeSet::new(),
            used_values: BTreeSet::new(),
        }
    }

    pub(crate) fn name(&mut self, placeholder: &'a str) -> Option<&'a str> {
        let (key, name) = self.names?.get_key_value(placeholder)?;
        self.used_names.insert(key);
        Some(name)
    }

    pub(crate) fn value(&mut self, placeholder: &'a str) -> Option<&'a AttributeValue> {
        let (key, value) = self.values?.get_key_value(placeholder)?;
        self.used_values.insert(key);
        Some(value)
    }

    /// Refuses names, then values, that no expression parsed with these placeholders used.
    pub fn check_unused(&self) -> Result<(), ExprError> {
        let unused = |keys: &mut dyn Iterator<Item = &String>, used: &BTreeSet<&str>| {
            let unused: Vec<&str> = keys.map(String::as_str).filter(|key| !used.contains(key)).collect();
            (!unused.is_empty()).then(|| unused.join(", "))
        };
        if let Some(keys) = self.names.and_then(|names| unused(&mut names.keys(), &self.used_names)) {
            return Err(ExprError::UnusedNames(keys));
        }
        if let Some(keys) = self
            .values
            .and_then(|values| unused(&mut values.keys(), &self.used_values))
        {
            return Err(ExprError::UnusedValues(keys));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
