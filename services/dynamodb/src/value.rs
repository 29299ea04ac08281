//! Attribute values as DynamoDB sees them: input validation with AWS's messages, type
//! names, equality (numbers by value, sets by membership) and the ordering of scalars.

use std::cmp::Ordering;
use std::fmt;

use crate::number::{Number, NumberError};
use crate::{AttributeValue, Item};

/// How deep documents may nest, counting the item itself as the first level.
pub const MAX_DEPTH: usize = 32;

/// Why an input attribute value is invalid; `Display` is AWS's ValidationException message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("{0}")]
    Number(#[from] NumberError),
    // The double space is AWS's (dynalite test/scan.js records it).
    #[error("One or more parameter values were invalid: An string set  may not be empty")]
    EmptyStringSet,
    #[error("One or more parameter values were invalid: An number set  may not be empty")]
    EmptyNumberSet,
    #[error("One or more parameter values were invalid: Binary sets should not be empty")]
    EmptyBinarySet,
    #[error("One or more parameter values were invalid: Input collection [{0}] contains duplicates.")]
    DuplicateStrings(String),
    #[error("Input collection contains duplicates")]
    DuplicateNumbers,
    #[error("One or more parameter values were invalid: Input collection [{0}]of type BS contains duplicates.")]
    DuplicateBinaries(String),
    #[error("One or more parameter values were invalid: Null attribute value types must have the value of true")]
    NullNotTrue,
    #[error(
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
    )]
    TooDeep,
}

/// Checks an item as AWS checks PutItem input: every value valid, nesting within 32 levels.
pub fn validate_item(item: &Item) -> Result<(), ValueError> {
    item.values().try_for_each(|value| validate_at(value, 1))
}

/// Checks one value (an ExpressionAttributeValues entry, a key attribute).
pub fn validate(value: &AttributeValue) -> Result<(), ValueError> {
    validate_at(value, 1)
}

fn validate_at(value: &AttributeValue, depth: usize) -> Result<(), ValueError> {
    match value {
        AttributeValue::N(text) => text.parse::<Number>().map(drop).map_err(ValueError::from),
        AttributeValue::Null(false) => Err(ValueError::NullNotTrue),
        AttributeValue::Ss(set) => {
            if set.is_empty() {
                return Err(ValueError::EmptyStringSet);
            }
            if has_duplicates(set.iter()) {
                return Err(ValueError::DuplicateStrings(set.join(", ")));
            }
            Ok(())
        }
        AttributeValue::Ns(set) => {
            if set.is_empty() {
                return Err(ValueError::EmptyNumberSet);
            }
            let numbers = set.iter().map(|n| n.parse::<Number>()).collect::<Result<Vec<_>, _>>()?;
            if has_duplicates(numbers.iter()) {
                return Err(ValueError::DuplicateNumbers);
            }
            Ok(())
        }
        AttributeValue::Bs(set) => {
            if set.is_empty() {
                return Err(ValueError::EmptyBinarySet);
            }
            if has_duplicates(set.iter()) {
                let shown: Vec<String> = set.iter().map(|b| base64(b)).collect();
                return Err(ValueError::DuplicateBinaries(shown.join(", ")));
            }
            Ok(())
        }
        AttributeValue::M(map) => {
            if depth >= MAX_DEPTH {
                return Err(ValueError::TooDeep);
            }
            map.values().try_for_each(|v| validate_at(v, depth + 1))
        }
        AttributeValue::L(list) => {
            if depth >= MAX_DEPTH {
                return Err(ValueError::TooDeep);
            }
            list.iter().try_for_each(|v| validate_at(v, depth + 1))
        }
        AttributeValue::S(_) | AttributeValue::B(_) | AttributeValue::Null(true) | AttributeValue::Bool(_) => Ok(()),
    }
}

fn has_duplicates<T: Ord>(items: impl Iterator<Item = T>) -> bool {
    let mut sorted: Vec<T> = items.collect();
    sorted.sort_unstable();
    sorted.windows(2).any(|pair| pair[0] == pair[1])
}

/// Standard base64 with padding, as AWS shows binary values in messages.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &b)| w | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(word >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The attribute's type descriptor as the wire names it: `S`, `N`, `BOOL`, `SS`, …
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::M(_) => "M",
        AttributeValue::L(_) => "L",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Bool(_) => "BOOL",
    }
}

/// The long type name some UpdateExpression messages use: `STRING`, `NUMBER`, `MAP`, …
pub fn long_type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "BINARY",
        AttributeValue::Ss(_) => "STRING_SET",
        AttributeValue::Ns(_) => "NUMBER_SET",
        AttributeValue::Bs(_) => "BINARY_SET",
        AttributeValue::M(_) => "MAP",
        AttributeValue::L(_) => "LIST",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Bool(_) => "BOOLEAN",
    }
}

/// Whether `name` is one of the ten type descriptors `attribute_type` accepts.
pub fn is_type_name(name: &str) -> bool {
    matches!(name, "S" | "N" | "B" | "SS" | "NS" | "BS" | "M" | "L" | "NULL" | "BOOL")
}

/// DynamoDB equality: numbers by value, sets regardless of order, documents element-wise.
/// Values of different types are never equal.
pub fn equal(a: &AttributeValue, b: &AttributeValue) -> bool {
    use AttributeValue as V;
    match (a, b) {
        (V::S(x), V::S(y)) => x == y,
        (V::N(x), V::N(y)) => numbers_equal(x, y),
        (V::B(x), V::B(y)) => x == y,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Null(_), V::Null(_)) => true,
        (V::Ss(x), V::Ss(y)) => x.len() == y.len() && x.iter().all(|e| y.contains(e)),
        (V::Bs(x), V::Bs(y)) => x.len() == y.len() && x.iter().all(|e| y.contains(e)),
        (V::Ns(x), V::Ns(y)) => x.len() == y.len() && x.iter().all(|e| y.iter().any(|f| numbers_equal(e, f))),
        (V::L(x), V::L(y)) => x.len() == y.len() && x.iter().zip(y).all(|(e, f)| equal(e, f)),
        (V::M(x), V::M(y)) => x.len() == y.len() && x.iter().all(|(k, e)| y.get(k).is_some_and(|f| equal(e, f))),
        _ => false,
    }
}

pub(crate) fn numbers_equal(x: &str, y: &str) -> bool {
    match (x.parse::<Number>(), y.parse::<Number>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => x == y,
    }
}

/// The order of `<`, `BETWEEN` and sort keys: strings by UTF-8 bytes, numbers by value,
/// binaries by unsigned bytes. `None` for other types and for mixed types.
pub fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    use AttributeValue as V;
    match (a, b) {
        (V::S(x), V::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (V::B(x), V::B(y)) => Some(x.cmp(y)),
        (V::N(x), V::N(y)) => Some(x.parse::<Number>().ok()?.cmp(&y.parse::<Number>().ok()?)),
        _ => None,
    }
}

/// Shows a scalar the way AWS quotes operands in messages: `AttributeValue: {N:1}`.
pub struct Quoted<'a>(pub &'a AttributeValue);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = type_name(self.0);
        match self.0 {
            AttributeValue::S(s) | AttributeValue::N(s) => write!(f, "AttributeValue: {{{name}:{s}}}"),
            AttributeValue::B(b) => write!(f, "AttributeValue: {{{name}:{}}}", base64(b)),
            AttributeValue::Bool(b) => write!(f, "AttributeValue: {{{name}:{b}}}"),
            _ => write!(f, "AttributeValue: {{{name}}}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    // Messages from dynalite test/updateItem.js "invalid values in ExpressionAttributeValues".
    #[test]
    fn rejects_bad_sets_with_aws_messages() {
        let cases = [
            (AttributeValue::Ss(vec![]), "One or more parameter values were invalid: An string set  may not be empty"),
            (AttributeValue::Ns(vec![]), "One or more parameter values were invalid: An number set  may not be empty"),
            (AttributeValue::Bs(vec![]), "One or more parameter values were invalid: Binary sets should not be empty"),
            (
                AttributeValue::Ss(vec!["a".into(), "a".into()]),
                "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
            ),
            (
                AttributeValue::Bs(vec![b"b".to_vec(), b"b".to_vec()]),
                "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates.",
            ),
            (AttributeValue::Ns(vec!["1".into(), "1.0".into()]), "Input collection contains duplicates"),
            (AttributeValue::Ns(vec!["1".into(), "b".into()]), "The parameter cannot be converted to a numeric value: b"),
            (
                AttributeValue::Null(false),
                "One or more parameter values were invalid: Null attribute value types must have the value of true",
            ),
        ];
        for (value, message) in cases {
            assert_eq!(validate(&value).unwrap_err().to_string(), message);
        }
        assert!(validate(&AttributeValue::Ss(vec!["a".into(), "b".into()])).is_ok());
    }

    #[test]
    fn limits_nesting_to_32_levels_counting_the_item() {
        let nest = |levels: usize| {
            (0..levels).fold(s("leaf"), |inner, _| {
                AttributeValue::M(BTreeMap::from([("n".to_string(), inner)]))
            })
        };
        assert!(validate_item(&BTreeMap::from([("a".to_string(), nest(31))])).is_ok());
        assert_eq!(
            validate_item(&BTreeMap::from([("a".to_string(), nest(32))])),
            Err(ValueError::TooDeep)
        );
        let list = (0..32).fold(s("x"), |inner, _| AttributeValue::L(vec![inner]));
        assert_eq!(
            validate_item(&BTreeMap::from([("a".to_string(), list)])),
            Err(ValueError::TooDeep)
        );
    }

    #[test]
    fn equality_follows_dynamodb() {
        assert!(equal(&AttributeValue::N("1.0".into()), &AttributeValue::N("1".into())));
        assert!(equal(
            &AttributeValue::Ss(vec!["a".into(), "b".into()]),
            &AttributeValue::Ss(vec!["b".into(), "a".into()])
        ));
        assert!(equal(
            &AttributeValue::Ns(vec!["1".into(), "2".into()]),
            &AttributeValue::Ns(vec!["2.0".into(), "1".into()])
        ));
        assert!(!equal(&s("1"), &AttributeValue::N("1".into())));
        assert!(!equal(
            &AttributeValue::L(vec![s("a"), s("b")]),
            &AttributeValue::L(vec![s("b"), s("a")])
        ));
    }

    #[test]
    fn compares_scalars_only() {
        assert_eq!(compare(&s("a"), &s("b")), Some(Ordering::Less));
        assert_eq!(compare(&s("Z"), &s("a")), Some(Ordering::Less));
        assert_eq!(
            compare(&AttributeValue::N("10".into()), &AttributeValue::N("9".into())),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&AttributeValue::B(vec![0x80]), &AttributeValue::B(vec![0x7f])),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&s("1"), &AttributeValue::N("1".into())), None);
        assert_eq!(compare(&AttributeValue::Bool(true), &AttributeValue::Bool(false)), None);
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"b"), "Yg==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(
            Quoted(&AttributeValue::N("1".into())).to_string(),
            "AttributeValue: {N:1}"
        );
    }
}
