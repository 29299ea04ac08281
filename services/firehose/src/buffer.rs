//! Each stream's buffer, in storage: the records acknowledged and not yet delivered, and one
//! head per stream that counts them and remembers the batch being delivered.
//!
//! Records are appended in the transaction that acknowledges them (PutRecord, a Kinesis
//! read, another service's put), each under (stream, sequence). A delivery takes a *batch*
//! — the oldest records, up to the size hint — and writes it into the head before anything is
//! sent, with an id the delivery's object names derive from; a restart finds the batch and
//! delivers the same records under the same names. The batch's records leave the buffer in
//! the transaction that marks it delivered. A head exists only while its stream buffers
//! something, so an idle service has nothing to sweep.

use std::ops::Bound;

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Codec, Direction, KeyRange, Read, Result, Table, Tx};

use crate::destination::Hints;

/// Buffered records by (stream, sequence).
pub(crate) const RECORDS: Table<Buffered, RecordCodec> = Table::new("buffered_records");
/// Each buffering stream's head, by stream name.
pub(crate) const HEADS: Table<Head> = Table::new("buffers");

const MIB: u64 = 1024 * 1024;

/// One record waiting for delivery.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Buffered {
    /// When Firehose took the record, in epoch milliseconds.
    pub(crate) arrival_ms: i64,
    /// Where it was read, for a stream fed by Kinesis.
    pub(crate) kinesis: Option<KinesisMeta>,
    pub(crate) data: Vec<u8>,
}

/// A Kinesis record's place in its stream (the transformation event's
/// `kinesisRecordMetadata`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KinesisMeta {
    pub(crate) shard_id: String,
    pub(crate) partition_key: String,
    pub(crate) sequence_number: String,
    pub(crate) arrival_ms: i64,
}

/// A buffered record as stored: its arrival (8 bytes, big-endian), the length of its Kinesis
/// metadata as JSON (4 bytes) and that JSON, then its data as it came.
pub(crate) struct RecordCodec;

impl Codec<Buffered> for RecordCodec {
    fn encode(value: &Buffered) -> std::result::Result<Vec<u8>, String> {
        let meta = match &value.kinesis {
            Some(meta) => serde_json::to_vec(meta).map_err(|e| e.to_string())?,
            None => Vec::new(),
        };
        let mut out = Vec::with_capacity(12 + meta.len() + value.data.len());
        out.extend_from_slice(&value.arrival_ms.to_be_bytes());
        out.extend_from_slice(&(meta.len() as u32).to_be_bytes());
        out.extend_from_slice(&meta);
        out.extend_from_slice(&value.data);
        Ok(out)
    }

    fn decode(bytes: &[u8]) -> std::result::Result<Buffered, String> {
        let too_short = || "a buffered record shorter than its header".to_owned();
        let arrival = bytes.get(..8).ok_or_else(too_short)?;
        let meta_len = bytes.get(8..12).ok_or_else(too_short)?;
        let meta_len = u32::from_be_bytes(meta_len.try_into().map_err(|_| too_short())?) as usize;
        let meta = bytes.get(12..12 + meta_len).ok_or_else(too_short)?;
        Ok(Buffered {
            arrival_ms: i64::from_be_bytes(arrival.try_into().map_err(|_| too_short())?),
            kinesis: if meta.is_empty() {
                None
            } else {
                Some(serde_json::from_slice(meta).map_err(|e| e.to_string())?)
            },
            data: bytes[12 + meta_len..].to_vec(),
        })
    }
}

/// A stream's buffer: the records not yet in a batch, and the batch under delivery.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Head {
    /// The next record's sequence number.
    pub(crate) next_seq: u64,
    /// The records after the batch (all of them, without one).
    pub(crate) open: Open,
    pub(crate) batch: Option<Batch>,
}

/// The records waiting for a batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Open {
    pub(crate) start_seq: u64,
    pub(crate) count: u64,
    pub(crate) bytes: u64,
    /// When the first of them arrived: the buffering interval runs from there.
    pub(crate) opened_ms: i64,
}

/// The records of one delivery, and how it has gone so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Batch {
    /// What the delivery's object names and request ids derive from.
    pub(crate) id: String,
    pub(crate) start_seq: u64,
    pub(crate) end_seq: u64,
    /// When the delivery began: the time in its object names.
    pub(crate) started_ms: i64,
    pub(crate) attempts: u32,
    /// When the next attempt is due.
    pub(crate) due_ms: i64,
    /// When the first attempt failed, which retry durations count from.
    pub(crate) failing_since_ms: Option<i64>,
    /// Whether the destination was given up on and the records go to the S3 backup.
    pub(crate) backing_up: bool,
    /// The last failure, for the error records.
    pub(crate) last_error: Option<(String, String)>,
}

/// The key of record `seq` of `stream`.
pub(crate) fn record_key(stream: &str, seq: u64) -> Vec<u8> {
    TupleKey::new().str(stream).u64(seq).into_bytes()
}

fn records_between(stream: &str, start: u64, end: u64) -> KeyRange {
    let (start, end) = (record_key(stream, start), record_key(stream, end));
    KeyRange::between(Bound::Included(&start), Bound::Excluded(&end))
}

impl Head {
    /// When the buffer next needs a delivery, under `hints`: its batch's next attempt, else
    /// the interval from its oldest record, else at once when the size hint is reached.
    pub(crate) fn due_ms(&self, hints: Hints) -> Option<i64> {
        if let Some(batch) = &self.batch {
            return Some(batch.due_ms);
        }
        if self.open.count == 0 {
            return None;
        }
        if self.open.bytes >= hints.size_mb * MIB {
            return Some(self.open.opened_ms);
        }
        let interval = i64::try_from(hints.interval_secs.saturating_mul(1000)).unwrap_or(i64::MAX / 2);
        Some(self.open.opened_ms.saturating_add(interval))
    }
}

/// Appends `records` to `stream`'s buffer in `tx`, answering the head after.
pub(crate) fn append(tx: &mut Tx<'_>, stream: &str, records: &[Buffered]) -> Result<Head> {
    let mut head = HEADS.get(tx, stream.as_bytes())?.unwrap_or_default();
    for record in records {
        RECORDS.put(tx, record_key(stream, head.next_seq), record)?;
        if head.open.count == 0 {
            head.open.start_seq = head.next_seq;
            head.open.opened_ms = record.arrival_ms;
        }
        head.open.count += 1;
        head.open.bytes += record.data.len() as u64;
        head.next_seq += 1;
    }
    HEADS.put(tx, stream.as_bytes(), &head)?;
    Ok(head)
}

/// The batch to deliver for `stream`: the one under way, else a new one of the oldest open
/// records up to the size hint (and `most` records), begun at `now`. `None` with nothing
/// buffered.
pub(crate) fn take_batch(
    tx: &mut Tx<'_>,
    stream: &str,
    hints: Hints,
    most: usize,
    now: i64,
) -> Result<Option<(Batch, Vec<Buffered>)>> {
    let Some(mut head) = HEADS.get(tx, stream.as_bytes())? else {
        return Ok(None);
    };
    if let Some(batch) = &head.batch {
        let records = RECORDS.scan(
            tx,
            &records_between(stream, batch.start_seq, batch.end_seq),
            Direction::Forward,
            None,
        )?;
        return Ok(Some((batch.clone(), records.into_iter().map(|(_, r)| r).collect())));
    }
    if head.open.count == 0 {
        return Ok(None);
    }
    let open = RECORDS.scan(
        tx,
        &records_between(stream, head.open.start_seq, head.next_seq),
        Direction::Forward,
        None,
    )?;
    let limit = hints.size_mb * MIB;
    let mut taken = Vec::new();
    let mut bytes = 0u64;
    let mut rest = open.into_iter();
    for (_, record) in rest.by_ref() {
        bytes += record.data.len() as u64;
        taken.push(record);
        if bytes >= limit || taken.len() >= most {
            break;
        }
    }
    let start = head.open.start_seq;
    let end = start + taken.len() as u64;
    head.open = match rest.next() {
        Some((_, next)) => Open {
            start_seq: end,
            count: head.open.count - taken.len() as u64,
            bytes: head.open.bytes.saturating_sub(bytes),
            opened_ms: next.arrival_ms,
        },
        None => Open {
            start_seq: end,
            ..Open::default()
        },
    };
    let batch = Batch {
        id: stratus_core::id::uuid(),
        start_seq: start,
        end_seq: end,
        started_ms: now,
        attempts: 0,
        due_ms: now,
        failing_since_ms: None,
        backing_up: false,
        last_error: None,
    };
    head.batch = Some(batch.clone());
    HEADS.put(tx, stream.as_bytes(), &head)?;
    Ok(Some((batch, taken)))
}

/// Marks batch `id` of `stream` delivered (or given up on): its records leave the buffer,
/// and the head with them once nothing is left. Answers the head after, if any.
pub(crate) fn finish_batch(tx: &mut Tx<'_>, stream: &str, id: &str) -> Result<Option<Head>> {
    let Some(mut head) = HEADS.get(tx, stream.as_bytes())? else {
        return Ok(None);
    };
    let Some(batch) = head.batch.take().filter(|b| b.id == id) else {
        return Ok(Some(head));
    };
    for (key, _) in RECORDS.scan(
        tx,
        &records_between(stream, batch.start_seq, batch.end_seq),
        Direction::Forward,
        None,
    )? {
        RECORDS.delete(tx, key);
    }
    if head.open.count == 0 {
        HEADS.delete(tx, stream.as_bytes());
        return Ok(None);
    }
    HEADS.put(tx, stream.as_bytes(), &head)?;
    Ok(Some(head))
}

/// Stores how batch `id` of `stream` went after a failed attempt.
pub(crate) fn retry_batch(tx: &mut Tx<'_>, stream: &str, batch: &Batch) -> Result<()> {
    let Some(mut head) = HEADS.get(tx, stream.as_bytes())? else {
        return Ok(());
    };
    if head.batch.as_ref().is_some_and(|b| b.id == batch.id) {
        head.batch = Some(batch.clone());
        HEADS.put(tx, stream.as_bytes(), &head)?;
    }
    Ok(())
}

/// Drops everything `stream` buffers (its deletion).
pub(crate) fn discard(tx: &mut Tx<'_>, stream: &str) -> Result<()> {
    let prefix = TupleKey::new().str(stream).into_bytes();
    for (key, _) in RECORDS.scan_prefix(tx, &prefix)? {
        RECORDS.delete(tx, key);
    }
    HEADS.delete(tx, stream.as_bytes());
    Ok(())
}

/// Every head in a store, by stream name.
pub(crate) fn heads(r: &(impl Read + ?Sized)) -> Result<Vec<(String, Head)>> {
    Ok(HEADS
        .scan_prefix(r, [])?
        .into_iter()
        .map(|(key, head)| (String::from_utf8_lossy(&key).into_owned(), head))
        .collect())
}

#[cfg(test)]
mod tests {
    use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError};

    use super::*;

    fn record(at: i64, data: &str) -> Buffered {
        Buffered {
            arrival_ms: at,
            kinesis: None,
            data: data.as_bytes().to_vec(),
        }
    }

    fn store() -> std::sync::Arc<dyn stratus_storage::Store> {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        storage
            .store(&Namespace::regional("1", "us-east-1", "firehose"), Durability::Strict)
            .unwrap()
    }

    const HINTS: Hints = Hints {
        size_mb: 1,
        interval_secs: 60,
    };

    #[test]
    fn records_round_trip_through_their_codec() {
        let plain = record(-7, "data");
        let encoded = RecordCodec::encode(&plain).unwrap();
        assert_eq!(RecordCodec::decode(&encoded).unwrap(), plain);
        let read = Buffered {
            kinesis: Some(KinesisMeta {
                shard_id: "shardId-000000000000".into(),
                partition_key: "pk".into(),
                sequence_number: "4959".into(),
                arrival_ms: 3,
            }),
            ..record(9, "")
        };
        assert_eq!(RecordCodec::decode(&RecordCodec::encode(&read).unwrap()).unwrap(), read);
        assert!(RecordCodec::decode(&encoded[..5]).is_err());
    }

    #[test]
    fn the_interval_runs_from_the_oldest_record_and_the_size_hint_makes_it_due_at_once() {
        let store = store();
        let head = store
            .transact(|tx| append(tx, "s", &[record(1_000, "a"), record(5_000, "b")]))
            .unwrap();
        assert_eq!((head.open.count, head.open.bytes, head.next_seq), (2, 2, 2));
        assert_eq!(head.due_ms(HINTS), Some(61_000));
        let big = "x".repeat(1024 * 1024);
        let head = store.transact(|tx| append(tx, "s", &[record(9_000, &big)])).unwrap();
        assert_eq!(head.due_ms(HINTS), Some(1_000));
        assert_eq!(Head::default().due_ms(HINTS), None);
    }

    #[test]
    fn a_batch_takes_the_oldest_records_up_to_the_hint_and_leaves_when_delivered() {
        let store = store();
        let big = "x".repeat(1024 * 1024);
        store
            .transact(|tx| append(tx, "s", &[record(1, "a"), record(2, &big), record(3, "c")]))
            .unwrap();
        let (batch, records) = store
            .transact(|tx| take_batch(tx, "s", HINTS, usize::MAX, 10))
            .unwrap()
            .unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!((batch.start_seq, batch.end_seq, batch.started_ms), (0, 2, 10));
        // The same batch again, as after a restart; records put meanwhile wait behind it.
        store.transact(|tx| append(tx, "s", &[record(4, "d")])).unwrap();
        let (again, records) = store
            .transact(|tx| take_batch(tx, "s", HINTS, usize::MAX, 99))
            .unwrap()
            .unwrap();
        assert_eq!((again.id.as_str(), records.len()), (batch.id.as_str(), 2));
        let head = store.transact(|tx| finish_batch(tx, "s", &batch.id)).unwrap().unwrap();
        assert_eq!(
            (
                head.open.start_seq,
                head.open.count,
                head.open.bytes,
                head.open.opened_ms
            ),
            (2, 2, 2, 3)
        );
        assert_eq!(RECORDS.scan_prefix(&*store, []).unwrap().len(), 2);
        let (last, records) = store.transact(|tx| take_batch(tx, "s", HINTS, 1, 20)).unwrap().unwrap();
        assert_eq!(records, [record(3, "c")]);
        store.transact(|tx| finish_batch(tx, "s", &last.id)).unwrap();
        let (last, _) = store.transact(|tx| take_batch(tx, "s", HINTS, 5, 30)).unwrap().unwrap();
        assert_eq!(store.transact(|tx| finish_batch(tx, "s", &last.id)).unwrap(), None);
        assert!(heads(&*store).unwrap().is_empty());
        assert!(RECORDS.scan_prefix(&*store, []).unwrap().is_empty());
    }

    #[test]
    fn a_retried_batch_is_due_when_its_next_attempt_is() {
        let store = store();
        store.transact(|tx| append(tx, "s", &[record(1, "a")])).unwrap();
        let (mut batch, _) = store.transact(|tx| take_batch(tx, "s", HINTS, 9, 10)).unwrap().unwrap();
        batch.attempts = 1;
        batch.due_ms = 5_010;
        store.transact(|tx| retry_batch(tx, "s", &batch)).unwrap();
        let [(name, head)] = &heads(&*store).unwrap()[..] else {
            panic!("one head")
        };
        assert_eq!((name.as_str(), head.due_ms(HINTS)), ("s", Some(5_010)));
        store
            .transact(|tx| {
                discard(tx, "s")?;
                Ok::<_, StorageError>(())
            })
            .unwrap();
        assert!(heads(&*store).unwrap().is_empty());
    }
}
