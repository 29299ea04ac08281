//! Key checks for requests (AWS's messages as recorded in dynalite's tests: test/putItem.js,
//! getItem.js, batchWriteItem.js) and the storage keys items and index entries live under.
//!
//! Storage keys: `items` holds `table 00 key(hash) [key(range)]`; `indexes` holds
//! `table 00 index 00 key(index hash) [key(index range)] key(hash) [key(range)]`, where
//! `key()` is [`crate::key::encode`]. Table and index names cannot contain a zero byte.

use crate::error::DdbError;
use crate::key;
use crate::table::{matches_type, type_letter, IndexRecord, KeyAttr, KeySchema, TableRecord};
use crate::value::{type_name, validate};
use crate::{AttributeValue, Item};

const MAX_HASH_KEY_BYTES: usize = 2048;
const MAX_RANGE_KEY_BYTES: usize = 1024;

/// `table 00`: the prefix of a table's items.
pub(crate) fn table_prefix(table: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(table.len() + 1);
    out.extend_from_slice(table.as_bytes());
    out.push(0);
    out
}

/// `table 00 index 00`: the prefix of an index's entries.
pub(crate) fn index_prefix(table: &str, index: &str) -> Vec<u8> {
    let mut out = table_prefix(table);
    out.extend_from_slice(index.as_bytes());
    out.push(0);
    out
}

fn append_key(schema: &KeySchema, item: &Item, out: &mut Vec<u8>) -> Option<()> {
    for attr in schema.attrs() {
        let value = item.get(&attr.name).filter(|v| matches_type(v, attr.kind))?;
        key::encode_into(value, out).ok()?;
    }
    Some(())
}

/// The storage key of an item whose primary key has been checked.
pub(crate) fn item_key(table: &TableRecord, item: &Item) -> Vec<u8> {
    let mut out = table_prefix(&table.name);
    append_key(&table.key, item, &mut out).expect("primary key checked before use");
    out
}

/// The index entry key for an item, or `None` when the item lacks the index's key
/// attributes (or has them with another type), which leaves it out of the index.
pub(crate) fn index_entry_key(table: &TableRecord, index: &IndexRecord, item: &Item) -> Option<Vec<u8>> {
    let mut out = index_prefix(&table.name, &index.name);
    append_key(&index.key, item, &mut out)?;
    append_key(&table.key, item, &mut out)?;
    Some(out)
}

fn key_mismatch() -> DdbError {
    DdbError::validation("The provided key element does not match the schema")
}

fn empty_key_value(value: &AttributeValue) -> Option<&'static str> {
    match value {
        AttributeValue::S(s) if s.is_empty() => Some("string"),
        AttributeValue::B(b) if b.is_empty() => Some("binary"),
        _ => None,
    }
}

fn check_key_size(value: &AttributeValue, hash: bool) -> Result<(), DdbError> {
    let size = crate::size::value_size(value);
    if hash && size > MAX_HASH_KEY_BYTES {
        return Err(DdbError::invalid(
            "Size of hashkey has exceeded the maximum size limit of2048 bytes",
        ));
    }
    if !hash && size > MAX_RANGE_KEY_BYTES {
        return Err(DdbError::invalid(
            "Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
        ));
    }
    Ok(())
}

/// Refuses an empty string or binary as the value of a key attribute.
pub(crate) fn check_not_empty(attr: &KeyAttr, value: &AttributeValue) -> Result<(), DdbError> {
    match empty_key_value(value) {
        Some(kind) => Err(DdbError::validation(format!(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty {kind} value. Key: {}",
            attr.name
        ))),
        None => Ok(()),
    }
}

fn check_primary_value(attr: &KeyAttr, value: &AttributeValue, hash: bool) -> Result<(), DdbError> {
    check_not_empty(attr, value)?;
    check_key_size(value, hash)
}

/// Checks a `Key` parameter (GetItem, DeleteItem, UpdateItem, batches, transactions) and
/// returns its storage key.
pub(crate) fn check_key(table: &TableRecord, key: &Item) -> Result<Vec<u8>, DdbError> {
    key.values().try_for_each(validate)?;
    if key.len() != table.key.attrs().count() {
        return Err(key_mismatch());
    }
    for (i, attr) in table.key.attrs().enumerate() {
        let value = key.get(&attr.name).ok_or_else(key_mismatch)?;
        if !matches_type(value, attr.kind) {
            return Err(key_mismatch());
        }
        check_primary_value(attr, value, i == 0)?;
    }
    Ok(item_key(table, key))
}

/// How a missing primary key attribute of a whole item is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MissingKey {
    /// PutItem and transactions: "Missing the key X in the item".
    Named,
    /// BatchWriteItem: "The provided key element does not match the schema".
    Schema,
}

/// Checks an item's primary and index key attributes; returns its storage key.
pub(crate) fn check_item_keys(table: &TableRecord, item: &Item, missing: MissingKey) -> Result<Vec<u8>, DdbError> {
    for (i, attr) in table.key.attrs().enumerate() {
        let Some(value) = item.get(&attr.name) else {
            return Err(match missing {
                MissingKey::Named => DdbError::invalid(format!("Missing the key {} in the item", attr.name)),
                MissingKey::Schema => key_mismatch(),
            });
        };
        if !matches_type(value, attr.kind) {
            return Err(DdbError::invalid(format!(
                "Type mismatch for key {} expected: {} actual: {}",
                attr.name,
                type_letter(attr.kind),
                type_name(value)
            )));
        }
        check_primary_value(attr, value, i == 0)?;
    }
    check_index_keys(table, item)?;
    Ok(item_key(table, item))
}

/// Refuses index key attributes of the wrong type or empty (absent ones are fine: the item
/// is simply not in that index).
pub(crate) fn check_index_keys(table: &TableRecord, item: &Item) -> Result<(), DdbError> {
    for index in &table.indexes {
        for attr in index.key.attrs() {
            let Some(value) = item.get(&attr.name) else { continue };
            if !matches_type(value, attr.kind) {
                return Err(DdbError::invalid(format!(
                    "Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                    attr.name,
                    type_letter(attr.kind),
                    type_name(value),
                    index.name
                )));
            }
            if let Some(kind) = empty_key_value(value) {
                return Err(DdbError::invalid(format!(
                    "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {kind} value. IndexName: {}, IndexKey: {}",
                    index.name, attr.name
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::KeyType;

    fn table() -> TableRecord {
        let attr = |name: &str, kind| KeyAttr {
            name: name.into(),
            kind,
        };
        TableRecord {
            name: "t".into(),
            id: "id".into(),
            created_ms: 0,
            attributes: vec![attr("pk", KeyType::S), attr("sk", KeyType::N), attr("g", KeyType::S)],
            key: KeySchema::simple(attr("pk", KeyType::S), Some(attr("sk", KeyType::N))),
            throughput: None,
            on_demand_since_ms: None,
            indexes: vec![IndexRecord {
                name: "gi".into(),
                global: true,
                key: KeySchema::simple(attr("g", KeyType::S), None),
                projection: crate::table::IndexProjection::KeysOnly,
                throughput: None,
            }],
            stream: None,
            tags: vec![],
            table_class: None,
            deletion_protection: false,
            ttl: None,
            recovery: None,
            insights: Vec::new(),
            policy: None,
            settings_replication: None,
            warm: None,
            kinesis: Vec::new(),
            sse_key: None,
        }
    }

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn item_keys_are_checked_with_aws_messages() {
        let t = table();
        let s = |v: &str| AttributeValue::S(v.into());
        let n = |v: &str| AttributeValue::N(v.into());
        let message = |i: Item| match check_item_keys(&t, &i, MissingKey::Named) {
            Err(DdbError::Validation(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            message(item(&[("pk", s("a"))])),
            "One or more parameter values were invalid: Missing the key sk in the item"
        );
        assert_eq!(
            message(item(&[("pk", n("1")), ("sk", n("1"))])),
            "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"
        );
        assert_eq!(
            message(item(&[("pk", s("a")), ("sk", n("1")), ("g", n("2"))])),
            "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gi"
        );
        assert!(message(item(&[("pk", s("")), ("sk", n("1"))])).ends_with("empty string value. Key: pk"));
        assert!(check_item_keys(&t, &item(&[("pk", s("a")), ("sk", n("1"))]), MissingKey::Named).is_ok());
    }

    #[test]
    fn keys_sort_by_partition_then_sort_key() {
        let t = table();
        let key = |pk: &str, sk: &str| {
            check_key(
                &t,
                &item(&[
                    ("pk", AttributeValue::S(pk.into())),
                    ("sk", AttributeValue::N(sk.into())),
                ]),
            )
            .unwrap()
        };
        assert!(key("a", "9") < key("a", "10"));
        assert!(key("a", "10") < key("b", "-5"));
        assert!(matches!(
            check_key(&t, &item(&[("pk", AttributeValue::S("a".into()))])),
            Err(DdbError::Validation(m)) if m == "The provided key element does not match the schema"
        ));
    }

    #[test]
    fn items_without_index_keys_stay_out_of_the_index() {
        let t = table();
        let base = item(&[
            ("pk", AttributeValue::S("a".into())),
            ("sk", AttributeValue::N("1".into())),
        ]);
        assert!(index_entry_key(&t, &t.indexes[0], &base).is_none());
        let mut with = base.clone();
        with.insert("g".into(), AttributeValue::S("x".into()));
        assert!(index_entry_key(&t, &t.indexes[0], &with).is_some());
    }
}
