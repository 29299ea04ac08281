//! Item sizes computed the way DynamoDB bills and limits them (Developer Guide, "Item sizes
//! and formats"): attribute names count their UTF-8 bytes; strings their UTF-8 bytes;
//! binaries their length; numbers one byte per two significant digits plus one; null and
//! booleans one byte; sets the sum of their members; lists and maps three bytes plus one per
//! element plus their contents (map keys count as names).

use crate::number::Number;
use crate::{AttributeValue, Item};

/// The largest item DynamoDB stores: 400 KB.
pub const MAX_ITEM_SIZE: usize = 400 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("Item size has exceeded the maximum allowed size")]
    ItemTooLarge,
    /// UpdateItem's wording for an update whose result would be too large.
    #[error("Item size to update has exceeded the maximum allowed size")]
    UpdateTooLarge,
}

/// The size of a whole item in bytes.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

/// The size of one value, without its attribute name.
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(text) => text.len(),
        AttributeValue::B(bytes) => bytes.len(),
        AttributeValue::N(text) => number_size(text),
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Bs(set) => set.iter().map(Vec::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Null(_) | AttributeValue::Bool(_) => 1,
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => 3 + map.iter().map(|(k, v)| 1 + k.len() + value_size(v)).sum::<usize>(),
    }
}

/// The size of a number written as `text`: one byte per two significant digits, plus one.
pub fn number_size(text: &str) -> usize {
    let digits = match plain_significant_digits(text.as_bytes()) {
        Some(digits) => digits,
        // An unparseable number is refused elsewhere; size it by its text meanwhile.
        None => text
            .parse::<Number>()
            .map_or(text.len(), |n| n.significant_digits() as usize),
    };
    digits.div_ceil(2) + 1
}

/// The significant digits of a plain decimal (`-12.50`: 3), counted on the text; `None`
/// for anything else (exponents, stray characters), which the full parser sizes. Stored
/// numbers are plain decimals, so scans never parse them.
fn plain_significant_digits(text: &[u8]) -> Option<usize> {
    let body = match text.first()? {
        b'-' | b'+' => &text[1..],
        _ => text,
    };
    let mut first = None;
    let mut last = 0;
    let mut count = 0;
    let mut dot = false;
    for &b in body {
        match b {
            b'0'..=b'9' => {
                if b != b'0' {
                    first.get_or_insert(count);
                    last = count + 1;
                }
                count += 1;
            }
            b'.' if !dot => dot = true,
            _ => return None,
        }
    }
    if count == 0 {
        return None;
    }
    let digits = first.map_or(0, |first| last - first);
    // Too precise to be a number: the parser decides.
    (digits <= 38).then_some(digits)
}

/// Refuses an item over 400 KB with PutItem's message.
pub fn check_item(item: &Item) -> Result<usize, SizeError> {
    let size = item_size(item);
    if size > MAX_ITEM_SIZE {
        Err(SizeError::ItemTooLarge)
    } else {
        Ok(size)
    }
}

/// Refuses the result of an update over 400 KB with UpdateItem's message.
pub fn check_updated_item(item: &Item) -> Result<usize, SizeError> {
    check_item(item).map_err(|_| SizeError::UpdateTooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn item(pairs: Vec<(&str, AttributeValue)>) -> Item {
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    #[test]
    fn sizes_scalars() {
        assert_eq!(value_size(&AttributeValue::S("héllo".into())), 6);
        assert_eq!(value_size(&AttributeValue::B(vec![1, 2, 3])), 3);
        assert_eq!(value_size(&AttributeValue::N("1".into())), 2);
        assert_eq!(value_size(&AttributeValue::N("123".into())), 3);
        assert_eq!(value_size(&AttributeValue::N("1000000".into())), 2);
        assert_eq!(value_size(&AttributeValue::N("-0.0012".into())), 2);
        assert_eq!(value_size(&AttributeValue::Bool(true)), 1);
        assert_eq!(value_size(&AttributeValue::Null(true)), 1);
    }

    #[test]
    fn sizes_documents_and_sets() {
        assert_eq!(value_size(&AttributeValue::L(vec![])), 3);
        assert_eq!(value_size(&AttributeValue::M(BTreeMap::new())), 3);
        let list = AttributeValue::L(vec![AttributeValue::S("ab".into()), AttributeValue::Bool(false)]);
        assert_eq!(value_size(&list), 3 + (1 + 2) + (1 + 1));
        let map = AttributeValue::M(BTreeMap::from([("key".to_string(), AttributeValue::S("v".into()))]));
        assert_eq!(value_size(&map), 3 + 1 + 3 + 1);
        assert_eq!(value_size(&AttributeValue::Ss(vec!["a".into(), "bc".into()])), 3);
        assert_eq!(value_size(&AttributeValue::Ns(vec!["1".into(), "22".into()])), 4);
        assert_eq!(item_size(&item(vec![("name", AttributeValue::S("abc".into()))])), 7);
    }

    #[test]
    fn plain_numbers_are_sized_like_parsed_ones() {
        for text in [
            "0",
            "-0",
            "0.0",
            "1",
            "10",
            "1000",
            "-0.0012",
            "12.50",
            "+7",
            "99999999999999999999999999999999999999",
            "0.000000000000000000000000000000000000001",
            "1.",
            ".5",
            "100.001",
            "123456789.987654321",
        ] {
            let parsed = text.parse::<Number>().unwrap().significant_digits() as usize;
            assert_eq!(plain_significant_digits(text.as_bytes()), Some(parsed), "{text}");
        }
        for text in ["1e5", "", "-", ".", "1.2.3", "abc"] {
            assert_eq!(plain_significant_digits(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn enforces_400_kb() {
        let exactly = item(vec![("a", AttributeValue::S("x".repeat(MAX_ITEM_SIZE - 1)))]);
        assert_eq!(check_item(&exactly), Ok(MAX_ITEM_SIZE));
        let over = item(vec![("ab", AttributeValue::S("x".repeat(MAX_ITEM_SIZE - 1)))]);
        assert_eq!(
            check_item(&over).unwrap_err().to_string(),
            "Item size has exceeded the maximum allowed size"
        );
        assert_eq!(
            check_updated_item(&over).unwrap_err().to_string(),
            "Item size to update has exceeded the maximum allowed size"
        );
    }
}
