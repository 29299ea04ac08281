//! DynamoDB Streams records, appended in the same storage transaction as the item change
//! they describe, and the streams themselves, for the DynamoDB Streams service to serve.
//!
//! Records live in the `streams` storage table under `table 00 label 00 sequence`, the
//! sequence a big-endian `u64` counting from 1 per stream, so a stream reads in order and a
//! re-enabled stream (a new label) starts afresh. Each record is an item in the
//! [`crate::codec`] encoding: `eventName`, `created` (milliseconds), `Keys`, the
//! `OldImage`/`NewImage` the stream's view type asks for, and `ttl` when the time-to-live
//! sweeper made the change. Records older than 24 hours are trimmed as new ones arrive (the
//! newest record always stays, so sequences never restart).
//!
//! An enabled stream is described by its table's record (`TableRecord::stream`). A stream that
//! was disabled, or whose table was deleted, is *closed*: its description moves to the
//! `closed_streams` storage table (same key as its records' prefix) and it stays readable for
//! 24 hours, as on AWS; the next table-level change after that purges it with its records.

use serde::{Deserialize, Serialize};
use stratus_storage::{Direction, KeyRange, StorageError, Store, Table, Tx};

use crate::codec::{self, CodecError};
use crate::table::{KeySchema, Stream, TableRecord};
use crate::{AttributeValue, Item};

pub(crate) const STREAMS: &str = "streams";
const CLOSED: Table<Closed> = Table::new("closed_streams");
/// How long records, and closed streams, are kept: AWS's 24 hours.
pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;
/// Trimming looks at the oldest records once every this many appends.
const TRIM_EVERY: u64 = 64;

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

/// Who made a change: a request, or the time-to-live sweeper (a "service" deletion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Request,
    TimeToLive,
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
    pub origin: Origin,
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

/// The label the records of a table's Kinesis feed are kept under, beside its streams' (a
/// stream's label is a timestamp, so none is this): the changes its Kinesis streaming
/// destinations are sent, with both images, read by [`crate::kinesis_feed`].
pub(crate) const KINESIS_FEED: &str = "kinesis-feed";

/// Appends the record of an item change, if the item changed: to the table's stream, if it
/// has one, and to its Kinesis feed, if it streams to Kinesis.
pub(crate) fn append(
    tx: &mut Tx<'_>,
    table: &TableRecord,
    old: Option<&Item>,
    new: Option<&Item>,
    now_ms: i64,
    origin: Origin,
) -> Result<(), StreamError> {
    let event = match (old, new) {
        (None, Some(_)) => EventName::Insert,
        (Some(old), Some(new)) if old != new => EventName::Modify,
        (Some(_), None) => EventName::Remove,
        _ => return Ok(()),
    };
    let change = Change {
        event,
        old,
        new,
        now_ms,
        origin,
    };
    if let Some(stream) = &table.stream {
        write_record(tx, table, &stream.label, &stream.view_type, &change)?;
    }
    if table.streams_to_kinesis() {
        write_record(tx, table, KINESIS_FEED, "NEW_AND_OLD_IMAGES", &change)?;
    }
    Ok(())
}

/// One item change, as [`append`] records it.
struct Change<'a> {
    event: EventName,
    old: Option<&'a Item>,
    new: Option<&'a Item>,
    now_ms: i64,
    origin: Origin,
}

/// Writes `change` as the next record under `label`, with the images `view_type` asks for.
fn write_record(
    tx: &mut Tx<'_>,
    table: &TableRecord,
    label: &str,
    view_type: &str,
    change: &Change<'_>,
) -> Result<(), StreamError> {
    let prefix = stream_prefix(&table.name, label);
    let last = tx.scan(STREAMS, &KeyRange::prefix(&prefix), Direction::Backward, Some(1))?;
    let sequence = last
        .first()
        .map_or(Ok(0), |(key, _)| sequence_of(&key[prefix.len()..]))?
        + 1;
    let (with_old, with_new) = match view_type {
        "NEW_IMAGE" => (false, true),
        "OLD_IMAGE" => (true, false),
        "NEW_AND_OLD_IMAGES" => (true, true),
        _ => (false, false),
    };
    let either = change.new.or(change.old).expect("one side exists");
    let mut record = Item::new();
    record.insert("eventName".into(), AttributeValue::S(change.event.as_str().into()));
    record.insert("created".into(), AttributeValue::N(change.now_ms.to_string()));
    record.insert("Keys".into(), AttributeValue::M(table.key_of(either)));
    if let Some(old) = change.old.filter(|_| with_old) {
        record.insert("OldImage".into(), AttributeValue::M(old.clone()));
    }
    if let Some(new) = change.new.filter(|_| with_new) {
        record.insert("NewImage".into(), AttributeValue::M(new.clone()));
    }
    if change.origin == Origin::TimeToLive {
        record.insert("ttl".into(), AttributeValue::Bool(true));
    }
    if sequence % TRIM_EVERY == 0 {
        trim(tx, &prefix, change.now_ms - RETENTION_MS)?;
    }
    let mut key = prefix;
    key.extend_from_slice(&sequence.to_be_bytes());
    tx.put(STREAMS, key, codec::encode(&record));
    Ok(())
}

/// Deletes the stream's records created before `cutoff_ms`, a bounded number at a time (the
/// caller appends a newer record in the same transaction, so the stream never empties).
fn trim(tx: &mut Tx<'_>, prefix: &[u8], cutoff_ms: i64) -> Result<(), StreamError> {
    let oldest = tx.scan(
        STREAMS,
        &KeyRange::prefix(prefix),
        Direction::Forward,
        Some(TRIM_EVERY as usize),
    )?;
    for (key, value) in oldest {
        let record = codec::decode(&value)?;
        match record.get("created") {
            Some(AttributeValue::N(n)) if n.parse::<i64>().is_ok_and(|ms| ms < cutoff_ms) => tx.delete(STREAMS, key),
            _ => break,
        }
    }
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
    start.extend_from_slice(&after.saturating_add(1).to_be_bytes());
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
            let origin = match record.get("ttl") {
                Some(AttributeValue::Bool(true)) => Origin::TimeToLive,
                _ => Origin::Request,
            };
            Ok(StreamRecord {
                sequence: sequence_of(&key[prefix.len()..])?,
                event,
                created_ms,
                keys: keys.ok_or(StreamError::Missing("Keys"))?,
                old_image,
                new_image,
                origin,
            })
        })
        .collect()
}

/// The first and last sequence numbers the stream holds, if it holds any record.
pub fn bounds(store: &dyn Store, table: &str, label: &str) -> Result<Option<(u64, u64)>, StreamError> {
    let prefix = stream_prefix(table, label);
    let range = KeyRange::prefix(&prefix);
    let edge = |direction| -> Result<Option<u64>, StreamError> {
        store
            .scan(STREAMS, &range, direction, Some(1))?
            .first()
            .map(|(key, _)| sequence_of(&key[prefix.len()..]))
            .transpose()
    };
    Ok(match (edge(Direction::Forward)?, edge(Direction::Backward)?) {
        (Some(first), Some(last)) => Some((first, last)),
        _ => None,
    })
}

/// A closed stream's description, kept for 24 hours after it closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Closed {
    view_type: String,
    key: KeySchema,
    created_ms: i64,
    closed_ms: i64,
}

/// A stream, enabled or closed, as the Streams service describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamInfo {
    pub table: String,
    pub label: String,
    pub view_type: String,
    pub key: KeySchema,
    pub created_ms: i64,
    /// When the stream was disabled (or its table deleted); `None` while enabled.
    pub closed_ms: Option<i64>,
}

/// When a stream was created: its label is the creation time (UTC, milliseconds).
fn label_ms(label: &str) -> Option<i64> {
    let time =
        aws_smithy_types::DateTime::from_str(&format!("{label}Z"), aws_smithy_types::date_time::Format::DateTime)
            .ok()?;
    time.to_millis().ok()
}

fn enabled(table: &TableRecord) -> Option<StreamInfo> {
    let stream = table.stream.as_ref()?;
    Some(StreamInfo {
        table: table.name.clone(),
        label: stream.label.clone(),
        view_type: stream.view_type.clone(),
        key: table.key.clone(),
        created_ms: label_ms(&stream.label).unwrap_or(table.created_ms),
        closed_ms: None,
    })
}

fn closed(table: &str, label: &str, closed: Closed) -> StreamInfo {
    StreamInfo {
        table: table.to_owned(),
        label: label.to_owned(),
        view_type: closed.view_type,
        key: closed.key,
        created_ms: closed.created_ms,
        closed_ms: Some(closed.closed_ms),
    }
}

/// The stream `label` of table `table`, if it is enabled or closed less than 24 hours ago.
pub fn find(store: &dyn Store, table: &str, label: &str, now_ms: i64) -> Result<Option<StreamInfo>, StreamError> {
    if let Some(record) = crate::db::TABLES.get(store, table)? {
        if let Some(info) = enabled(&record).filter(|s| s.label == label) {
            return Ok(Some(info));
        }
    }
    Ok(CLOSED
        .get(store, stream_prefix(table, label))?
        .map(|record| closed(table, label, record))
        .filter(|s| live(s, now_ms)))
}

fn live(stream: &StreamInfo, now_ms: i64) -> bool {
    stream.closed_ms.is_none_or(|closed| now_ms - closed < RETENTION_MS)
}

/// Every stream of the store, enabled or closed less than 24 hours ago, in no set order.
pub fn list(store: &dyn Store, now_ms: i64) -> Result<Vec<StreamInfo>, StreamError> {
    let mut out = Vec::new();
    for (_, table) in crate::db::TABLES.scan(store, &KeyRange::all(), Direction::Forward, None)? {
        out.extend(enabled(&table));
    }
    for (key, record) in CLOSED.scan(store, &KeyRange::all(), Direction::Forward, None)? {
        let mut parts = key.split(|b| *b == 0);
        let (Some(table), Some(label)) = (parts.next(), parts.next()) else {
            continue;
        };
        let info = closed(&String::from_utf8_lossy(table), &String::from_utf8_lossy(label), record);
        if live(&info, now_ms) {
            out.push(info);
        }
    }
    Ok(out)
}

/// Closes `stream` of the table `table` (keyed by `key`): it stays readable for 24 hours.
pub(crate) fn close(
    tx: &mut Tx<'_>,
    table: &str,
    key: &KeySchema,
    stream: &Stream,
    now_ms: i64,
) -> Result<(), StorageError> {
    let closed = Closed {
        view_type: stream.view_type.clone(),
        key: key.clone(),
        created_ms: label_ms(&stream.label).unwrap_or(now_ms),
        closed_ms: now_ms,
    };
    CLOSED.put(tx, stream_prefix(table, &stream.label), &closed)
}

/// Gives a new stream of table `table` a label no closed stream of the table holds: labels
/// are creation times in milliseconds, and a table re-created within the millisecond its
/// stream closed would otherwise reuse one.
pub(crate) fn unique_label(tx: &Tx<'_>, table: &str, stream: &mut Stream) -> Result<(), StreamError> {
    while tx.get(CLOSED.name(), &stream_prefix(table, &stream.label))?.is_some() {
        let next = label_ms(&stream.label).unwrap_or(0) + 1;
        stream.label = crate::table::stream_label(next);
    }
    Ok(())
}

/// Drops the streams closed more than 24 hours ago, with their records.
pub(crate) fn purge_closed(tx: &mut Tx<'_>, now_ms: i64) -> Result<(), StreamError> {
    let expired: Vec<Vec<u8>> = tx
        .scan(CLOSED.name(), &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .filter(|(key, bytes)| {
            CLOSED
                .decode(key, bytes)
                .map_or(true, |c| now_ms - c.closed_ms >= RETENTION_MS)
        })
        .map(|(key, _)| key)
        .collect();
    for prefix in expired {
        loop {
            let chunk = tx.scan(STREAMS, &KeyRange::prefix(&prefix), Direction::Forward, Some(1024))?;
            if chunk.is_empty() {
                break;
            }
            for (key, _) in chunk {
                tx.delete(STREAMS, key);
            }
        }
        CLOSED.delete(tx, prefix);
    }
    Ok(())
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
            key: KeySchema::simple(
                KeyAttr {
                    name: "pk".into(),
                    kind: KeyType::S,
                },
                None,
            ),
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
            insights: Vec::new(),
            policy: None,
            settings_replication: None,
            warm: None,
            kinesis: Vec::new(),
            sse_key: None,
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
                append(tx, &t, None, Some(&a), 5, Origin::Request)?;
                append(tx, &t, Some(&a), Some(&a), 6, Origin::Request)?;
                append(tx, &t, Some(&a), Some(&b), 7, Origin::Request)?;
                append(tx, &t, Some(&b), None, 8, Origin::TimeToLive)
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
        store
            .transact(|tx| append(tx, &t, None, Some(&item("a")), 1, Origin::Request))
            .unwrap();
        let records = read(&*store, "t", "L", 0, 10).unwrap();
        assert!(records[0].new_image.is_none() && records[0].old_image.is_none());
    }
}
