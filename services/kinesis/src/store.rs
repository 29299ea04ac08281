//! What the `kinesis` store holds: its tables, their records and their keys.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Codec, Table};

use crate::sequence::Sequence;

/// Streams by name, with their shards.
pub(crate) const STREAMS: Table<StreamRecord> = Table::new("streams");
/// Data records by (stream, shard index, counter): a shard's records scan in order.
pub(crate) const RECORDS: Table<DataRecord, DataCodec> = Table::new("records");
/// Enhanced fan-out consumers by (stream, consumer name).
pub(crate) const CONSUMERS: Table<ConsumerRecord> = Table::new("consumers");

/// A stream.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StreamRecord {
    pub name: String,
    pub created_ms: i64,
    /// `PROVISIONED` or `ON_DEMAND`.
    pub mode: String,
    pub retention_hours: i32,
    /// The KMS key records are encrypted under, as it was given, while encryption is on.
    #[serde(default)]
    pub key_id: Option<String>,
    #[serde(default)]
    pub metrics: BTreeSet<String>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub policy: Option<String>,
    /// Every shard the stream has had, by index (a shard's id is `shardId-` and its index).
    pub shards: Vec<ShardRecord>,
    /// The counter the next record's sequence number gets ([`crate::sequence`]).
    pub next_counter: u64,
}

/// A shard, open or closed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ShardRecord {
    pub index: u32,
    #[serde(default)]
    pub parent: Option<u32>,
    #[serde(default)]
    pub adjacent_parent: Option<u32>,
    pub start: u128,
    pub end: u128,
    /// The counter of the shard's `StartingSequenceNumber`.
    pub first_counter: u64,
    /// The counter of its `EndingSequenceNumber`, once closed by a reshard.
    #[serde(default)]
    pub last_counter: Option<u64>,
    pub created_ms: i64,
    #[serde(default)]
    pub closed_ms: Option<i64>,
}

impl ShardRecord {
    pub(crate) fn id(&self) -> String {
        shard_id(self.index)
    }

    pub(crate) fn is_open(&self) -> bool {
        self.last_counter.is_none()
    }

    pub(crate) fn holds(&self, hash_key: u128) -> bool {
        self.start <= hash_key && hash_key <= self.end
    }

    pub(crate) fn starting_sequence(&self) -> String {
        Sequence {
            shard: self.index,
            counter: self.first_counter,
        }
        .render()
    }

    pub(crate) fn ending_sequence(&self) -> Option<String> {
        self.last_counter.map(|counter| {
            Sequence {
                shard: self.index,
                counter,
            }
            .render()
        })
    }
}

/// `shardId-000000000007`.
pub(crate) fn shard_id(index: u32) -> String {
    format!("shardId-{index:012}")
}

/// The index a shard id names: `shardId-` and digits (AWS also accepts the digits alone).
pub(crate) fn shard_index(id: &str) -> Option<u32> {
    let digits = id.strip_prefix("shardId-").unwrap_or(id);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl StreamRecord {
    pub(crate) fn shard(&self, index: u32) -> Option<&ShardRecord> {
        self.shards.iter().find(|s| s.index == index)
    }

    pub(crate) fn open_shards(&self) -> impl Iterator<Item = &ShardRecord> {
        self.shards.iter().filter(|s| s.is_open())
    }

    /// The open shard whose range holds `hash_key` (open shards tile the whole space).
    pub(crate) fn shard_for(&self, hash_key: u128) -> Option<&ShardRecord> {
        self.open_shards().find(|s| s.holds(hash_key))
    }

    /// The shards whose parent or adjacent parent is `index`.
    pub(crate) fn children_of(&self, index: u32) -> impl Iterator<Item = &ShardRecord> {
        self.shards
            .iter()
            .filter(move |s| s.parent == Some(index) || s.adjacent_parent == Some(index))
    }
}

/// A registered consumer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ConsumerRecord {
    pub name: String,
    pub created_ms: i64,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub policy: Option<String>,
}

/// A data record as stored: when it arrived, its partition key and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DataRecord {
    pub arrival_ms: i64,
    pub partition_key: String,
    pub data: Vec<u8>,
}

/// Data records are written without JSON (a record holds up to 1 MiB of bytes): the arrival
/// time (8 bytes, big-endian), the partition key's length (2 bytes) and UTF-8, then the data.
pub(crate) struct DataCodec;

impl Codec<DataRecord> for DataCodec {
    fn encode(r: &DataRecord) -> Result<Vec<u8>, String> {
        let key = r.partition_key.as_bytes();
        let length = u16::try_from(key.len()).map_err(|_| "partition key over 65535 bytes".to_owned())?;
        let mut out = Vec::with_capacity(10 + key.len() + r.data.len());
        out.extend_from_slice(&r.arrival_ms.to_be_bytes());
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(key);
        out.extend_from_slice(&r.data);
        Ok(out)
    }

    fn decode(bytes: &[u8]) -> Result<DataRecord, String> {
        let short = || "shorter than its header".to_owned();
        let (arrival, rest) = bytes.split_first_chunk::<8>().ok_or_else(short)?;
        let (length, rest) = rest.split_first_chunk::<2>().ok_or_else(short)?;
        let length = usize::from(u16::from_be_bytes(*length));
        if rest.len() < length {
            return Err("partition key cut short".to_owned());
        }
        let (key, data) = rest.split_at(length);
        Ok(DataRecord {
            arrival_ms: i64::from_be_bytes(*arrival),
            partition_key: String::from_utf8(key.to_vec()).map_err(|_| "partition key not UTF-8".to_owned())?,
            data: data.to_vec(),
        })
    }
}

pub(crate) fn stream_key(stream: &str) -> Vec<u8> {
    TupleKey::new().str(stream).into_bytes()
}

pub(crate) fn shard_prefix(stream: &str, shard: u32) -> Vec<u8> {
    TupleKey::new().str(stream).u64(u64::from(shard)).into_bytes()
}

pub(crate) fn record_key(stream: &str, at: Sequence) -> Vec<u8> {
    TupleKey::new()
        .str(stream)
        .u64(u64::from(at.shard))
        .u64(at.counter)
        .into_bytes()
}

/// The counter a record key ends with (its last eight bytes).
pub(crate) fn counter_of(key: &[u8]) -> Option<u64> {
    let (_, tail) = key.split_last_chunk::<8>()?;
    Some(u64::from_be_bytes(*tail))
}

pub(crate) fn consumer_key(stream: &str, name: &str) -> Vec<u8> {
    TupleKey::new().str(stream).str(name).into_bytes()
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    #[test]
    fn data_records_round_trip() {
        let r = DataRecord {
            arrival_ms: 1_700_000_000_123,
            partition_key: "ünicode".into(),
            data: vec![0, 1, 2, 255],
        };
        assert_eq!(DataCodec::decode(&DataCodec::encode(&r).unwrap()), Ok(r));
        let empty = DataRecord {
            arrival_ms: 0,
            partition_key: String::new(),
            data: Vec::new(),
        };
        assert_eq!(DataCodec::decode(&DataCodec::encode(&empty).unwrap()), Ok(empty));
    }

    #[test]
    fn decoding_damaged_records_never_panics() {
        let seed = DataCodec::encode(&DataRecord {
            arrival_ms: 42,
            partition_key: "key".into(),
            data: b"payload".to_vec(),
        })
        .unwrap();
        let mut rng = Rng(17);
        for _ in 0..5000 {
            let _ = DataCodec::decode(&mutate(&mut rng, &seed, &[b"\xff", b"\x00", b"\xc3"]));
        }
    }

    #[test]
    fn record_keys_end_with_their_counter_and_sort_by_it() {
        let a = record_key("s", Sequence { shard: 1, counter: 9 });
        let b = record_key("s", Sequence { shard: 1, counter: 10 });
        assert!(a < b);
        assert!(a.starts_with(&shard_prefix("s", 1)));
        assert_eq!(counter_of(&b), Some(10));
    }

    #[test]
    fn shard_ids_read_back() {
        assert_eq!(shard_id(7), "shardId-000000000007");
        assert_eq!(shard_index("shardId-000000000007"), Some(7));
        assert_eq!(shard_index("7"), Some(7));
        assert_eq!(shard_index("shardId-"), None);
        assert_eq!(shard_index("shard-1"), None);
    }
}
