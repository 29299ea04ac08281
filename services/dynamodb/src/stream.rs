//! DynamoDB Streams records, appended in the same storage transaction as the item change
//! they describe, for the DynamoDB Streams service to serve.
//!
//! Records live in the `streams` storage table under `table 00 label 00 sequence`, the
//! sequence a big-endian `u64` counting from 1 per stream, so a stream reads in order and a
//! re-enabled stream (a new label) starts afresh. Each record is an item in the
//! [`crate::codec`] encoding: `eventName`, `created` (milliseconds), `Keys`, and the
//! `OldImage`/`NewImage` the stream's view type asks for.

use stratus_storage::{Direction, KeyRange, StorageError, Store, Tx};

use crate::codec::{self, CodecError};
use crate::table::TableRecord;
use crate::{AttributeValue, Item};

pub(crate) const STREAMS: &str = "streams";

/// What happened to the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventName {
    Insert,
    Modify,
    Remove,
}

impl EventName {
    pub fn as_str(self) -> &'static str {
        match self {
            EventName::Insert => "INSERT",
            EventName::Modify => "MODIFY",
            EventName::Remove => "REMOVE",
        }
    }
}

/// One change to one item.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRecord {
    pub sequence: u64,
    pub event: EventName,
    pub created_ms: i64,
    pub keys: Item,
    pub old_image: Option<Item>,
    pub new_image: Option<Item>,
}

#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("stream store: {0}")]
    Storage(#[from] StorageError),
    #[error("corrupt stream record: {0}")]
    Codec(#[from] CodecError),
    #[error("corrupt stream record: missing {0}")]
    Missing(&'static str),
}

/// `table 00 label 00`: the prefix of one stream's records.
pub(crate) fn stream_prefix(table: &str, label: &str) -> Vec<u8> {
    let mut out = crate::keys::table_prefix(table);
    out.extend_from_slice(label.as_bytes());
    out.push(0);
    out
}

/// Appends the record of an item change, if the table has a stream and the item changed.
pub(crate) fn append(
    tx: &mut Tx<'_>,
    table: &TableRecord,
    old: Option<&Item>,
    new: Option<&Item>,
    now_ms: i64,
) -> Result<(), StreamError> {
    let Some(stream) = &table.stream else { return Ok(()) };
    let event = match (old, new) {
        (None, Some(_)) => EventName::Insert,
        (Some(old), Some(new)) if old != new => EventName::Modify,
        (Some(_), None) => EventName::Remove,
        _ => return Ok(()),
    };
    let prefix = stream_prefix(&table.name, &stream.label);
    let last = tx.scan(STREAMS, &KeyRange::prefix(&prefix), Direction::Backward, Some(1))?;
    let sequence = last
        .first()
        .map_or(Ok(0), |(key, _)| sequence_of(&key[prefix.len()..]))?
        + 1;
    let (with_old, with_new) = match stream.view_type.as_str() {
        "NEW_IMAGE" => (false, true),
        "OLD_IMAGE" => (true, false),
        "NEW_AND_OLD_IMAGES" => (true, true),
        _ => (false, false),
    };
    let either = new.or(old).expect("one side exists");
    let mut record = Item::new();
    record.insert("eventName".into(), AttributeValue::S(event.as_str().into()));
    record.insert("created".into(), AttributeValue::N(now_ms.to_string()));
    record.insert("Keys".into(), AttributeValue::M(table.key_of(either)));
    if let Some(old) = old.filter(|_| with_old) {
        record.insert("OldImage".into(), AttributeValue::M(old.clone()));
    }
    if let Some(new) = new.filter(|_| with_new) {
        record.insert("NewImage".into(), AttributeValue::M(new.clone()));
    }
    let mut key = prefix;
    key.extend_from_slice(&sequence.to_be_bytes());
    tx.put(STREAMS, key, codec::encode(&record));
    Ok(())
}

fn sequence_of(bytes: &[u8]) -> Result<u64, StreamError> {
    Ok(u64::from_be_bytes(
        bytes.try_into().map_err(|_| StreamError::Missing("sequence"))?,
    ))
}

/// Up to `limit` records of the table's stream `label` after sequence `after`, in order.
pub fn read(
    store: &dyn Store,
    table: &str,
    label: &str,
    after: u64,
    limit: usize,
) -> Result<Vec<StreamRecord>, StreamError> {
    let prefix = stream_prefix(table, label);
    let mut start = prefix.clone();
    start.extend_from_slice(&(after + 1).to_be_bytes());
    let all = KeyRange::prefix(&prefix);
    let range = KeyRange::between(std::ops::Bound::Included(&start), all.end());
    store
        .scan(STREAMS, &range, Direction::Forward, Some(limit))?
        .into_iter()
        .map(|(key, value)| {
            let mut record = codec::decode(&value)?;
            let mut image = |name: &'static str| match record.remove(name) {
                Some(AttributeValue::M(map)) => Some(map),
                _ => None,
            };
            let (keys, old_image, new_image) = (image("Keys"), image("OldImage"), image("NewImage"));
            let event = match record.get("eventName") {
                Some(AttributeValue::S(name)) if name == "INSERT" => EventName::Insert,
                Some(AttributeValue::S(name)) if name == "MODIFY" => EventName::Modify,
                Some(AttributeValue::S(name)) if name == "REMOVE" => EventName::Remove,
                _ => return Err(StreamError::Missing("eventName")),
            };
            let created_ms = match record.get("created") {
                Some(AttributeValue::N(n)) => n.parse().map_err(|_| StreamError::Missing("created"))?,
                _ => return Err(StreamError::Missing("created")),
            };
            Ok(StreamRecord {
                sequence: sequence_of(&key[prefix.len()..])?,
                event,
                created_ms,
                keys: keys.ok_or(StreamError::Missing("Keys"))?,
                old_image,
                new_image,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::KeyType;
    use crate::table::{KeyAttr, KeySchema, Stream};
    use std::collections::BTreeMap;
    use stratus_storage::{Durability, Namespace, Storage, StorageConfig};

    fn events(records: &[StreamRecord]) -> Vec<&'static str> {
        records.iter().map(|r| r.event.as_str()).collect()
    }

    fn table(view_type: &str) -> TableRecord {
        TableRecord {
            name: "t".into(),
            id: "id".into(),
            created_ms: 0,
            attributes: vec![],
            key: KeySchema {
                hash: KeyAttr {
                    name: "pk".into(),
                    kind: KeyType::S,
                },
                range: None,
            },
            throughput: None,
            on_demand_since_ms: None,
            indexes: vec![],
            stream: Some(Stream {
                view_type: view_type.into(),
                label: "L".into(),
            }),
            tags: vec![],
            table_class: None,
            deletion_protection: false,
            ttl: None,
            recovery: None,
        }
    }

    fn item(v: &str) -> Item {
        BTreeMap::from([
            ("pk".to_string(), AttributeValue::S("k".into())),
            ("v".to_string(), AttributeValue::S(v.into())),
        ])
    }

    #[test]
    fn changes_are_recorded_in_order_with_the_view_types_images() {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        let store = storage
            .store(&Namespace::regional("1", "r", "dynamodb"), Durability::Strict)
            .unwrap();
        let t = table("NEW_AND_OLD_IMAGES");
        let (a, b) = (item("a"), item("b"));
        store
            .transact(|tx| {
                append(tx, &t, None, Some(&a), 5)?;
                append(tx, &t, Some(&a), Some(&a), 6)?;
                append(tx, &t, Some(&a), Some(&b), 7)?;
                append(tx, &t, Some(&b), None, 8)
            })
            .unwrap();
        let records = read(&*store, "t", "L", 0, 10).unwrap();
        assert_eq!(events(&records), ["INSERT", "MODIFY", "REMOVE"]);
        assert_eq!(records[1].old_image.as_ref(), Some(&a));
        assert_eq!(records[1].new_image.as_ref(), Some(&b));
        assert_eq!(
            records[2].keys,
            BTreeMap::from([("pk".to_string(), AttributeValue::S("k".into()))])
        );
        assert_eq!(records.iter().map(|r| r.sequence).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(read(&*store, "t", "L", 2, 10).unwrap().len(), 1);
    }

    #[test]
    fn keys_only_streams_carry_no_images() {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        let store = storage
            .store(&Namespace::regional("1", "r", "dynamodb"), Durability::Strict)
            .unwrap();
        let t = table("KEYS_ONLY");
        store.transact(|tx| append(tx, &t, None, Some(&item("a")), 1)).unwrap();
        let records = read(&*store, "t", "L", 0, 10).unwrap();
        assert!(records[0].new_image.is_none() && records[0].old_image.is_none());
    }
}
