//! Log events at rest and PutLogEvents' rules.
//!
//! An event row is keyed by [`event_key`](crate::records::event_key) (group, stream,
//! timestamp, sequence number) and holds its ingestion time (8 bytes, big-endian) followed by
//! the message, so a stream reads back in time order without decoding anything else.

use std::ops::Range;

use stratus_storage::tuple::TupleReader;
use stratus_storage::StorageError;

use crate::error::{invalid_parameter, Result};

/// AWS's PutLogEvents limits (API reference, PutLogEvents).
pub(crate) const MAX_BATCH_BYTES: usize = 1_048_576;
/// What each event adds to the batch size beside its message.
pub(crate) const EVENT_OVERHEAD: usize = 26;
/// Events older than this are refused as too old.
const MAX_AGE_MS: i64 = 14 * 24 * 3600 * 1000;
/// Events further in the future than this are refused as too new.
const MAX_AHEAD_MS: i64 = 2 * 3600 * 1000;
const DAY_MS: i64 = 24 * 3600 * 1000;

/// A stored event, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredEvent {
    pub stream: String,
    pub timestamp: i64,
    pub seq: u64,
    pub ingestion: i64,
    pub message: String,
}

impl StoredEvent {
    /// The event's size as AWS counts it for batches and stored bytes.
    pub(crate) fn size(&self) -> usize {
        self.message.len() + EVENT_OVERHEAD
    }
}

pub(crate) fn encode_row(ingestion: i64, message: &str) -> Vec<u8> {
    let mut row = Vec::with_capacity(8 + message.len());
    row.extend_from_slice(&ingestion.to_be_bytes());
    row.extend_from_slice(message.as_bytes());
    row
}

/// Reads back an event row and its key.
pub(crate) fn decode_row(key: &[u8], row: &[u8]) -> Result<StoredEvent, StorageError> {
    let corrupt = || StorageError::CorruptRecord {
        table: crate::records::EVENTS,
        key: String::from_utf8_lossy(key).into_owned(),
        reason: "not an event row".to_owned(),
    };
    let mut reader = TupleReader::new(key);
    let _group = reader.bytes().map_err(|_| corrupt())?;
    let stream = reader.string().map_err(|_| corrupt())?;
    let timestamp = reader.i64().map_err(|_| corrupt())?;
    let seq = reader.u64().map_err(|_| corrupt())?;
    if row.len() < 8 {
        return Err(corrupt());
    }
    let ingestion = i64::from_be_bytes(row[..8].try_into().map_err(|_| corrupt())?);
    let message = String::from_utf8(row[8..].to_vec()).map_err(|_| corrupt())?;
    Ok(StoredEvent {
        stream,
        timestamp,
        seq,
        ingestion,
        message,
    })
}

/// Which events of a batch are stored, and what `rejectedLogEventsInfo` says of the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Admission {
    /// The indexes of the events stored: those after the too old and before the too new.
    pub stored: Range<usize>,
    pub too_old_end: Option<usize>,
    pub expired_end: Option<usize>,
    pub too_new_start: Option<usize>,
}

impl Admission {
    pub(crate) fn rejected_any(&self) -> bool {
        self.too_old_end.is_some() || self.expired_end.is_some() || self.too_new_start.is_some()
    }
}

/// Checks a batch of `(timestamp, message)` against AWS's rules, at `now_ms` for a group
/// retaining events `retention_days`: the batch is refused when out of order or too large;
/// events older than 14 days (or than the retention) and more than two hours ahead are left
/// out and reported by index.
pub(crate) fn admit<'a>(
    events: impl ExactSizeIterator<Item = (i64, &'a str)> + Clone,
    now_ms: i64,
    retention_days: Option<i32>,
) -> Result<Admission> {
    let count = events.len();
    let mut size = 0usize;
    let mut previous = i64::MIN;
    for (timestamp, message) in events.clone() {
        if timestamp < previous {
            return Err(invalid_parameter(
                "Log events in a single PutLogEvents request must be in chronological order.",
            ));
        }
        previous = timestamp;
        size += message.len() + EVENT_OVERHEAD;
    }
    if size > MAX_BATCH_BYTES {
        return Err(invalid_parameter(format!(
            "Upload too large: {size} bytes exceeds limit of {MAX_BATCH_BYTES}"
        )));
    }
    let too_old_before = now_ms.saturating_sub(MAX_AGE_MS);
    let expired_before = retention_days.map(|days| now_ms.saturating_sub(i64::from(days) * DAY_MS));
    let too_new_after = now_ms.saturating_add(MAX_AHEAD_MS);
    let mut admission = Admission {
        stored: 0..count,
        ..Admission::default()
    };
    for (index, (timestamp, _)) in events.enumerate() {
        if expired_before.is_some_and(|before| timestamp < before) {
            admission.expired_end = Some(index);
            admission.stored.start = index + 1;
        } else if timestamp < too_old_before {
            admission.too_old_end = Some(index);
            admission.stored.start = index + 1;
        } else if timestamp > too_new_after {
            admission.too_new_start = Some(index);
            admission.stored.end = index;
            break;
        }
    }
    admission.stored.end = admission.stored.end.max(admission.stored.start);
    Ok(admission)
}

/// An opaque 56-digit number, as AWS's sequence tokens and event ids look, from two numbers.
pub(crate) fn digits(high: u64, low: u64) -> String {
    format!("{:016}{:020}{:020}", (high ^ low) % 10_000_000_000_000_000, high, low)
}

/// AWS's 56-digit event id, unique within the group: event `seq` of `stream`.
pub(crate) fn event_id(stream: &str, seq: u64) -> String {
    let stream_hash = stream.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    digits(stream_hash % 100_000_000_000_000_000, seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_700_000_000_000;

    fn batch(timestamps: &[i64]) -> Vec<(i64, &'static str)> {
        timestamps.iter().map(|&t| (t, "m")).collect()
    }

    // API reference, PutLogEvents: "The log events in the batch must be in chronological order".
    #[test]
    fn an_unordered_batch_is_refused() {
        let events = batch(&[NOW, NOW - 1]);
        assert!(admit(events.iter().copied(), NOW, None).is_err());
    }

    // API reference, PutLogEvents: the batch size counts each message plus 26 bytes.
    #[test]
    fn the_batch_size_counts_26_bytes_per_event() {
        let message = "x".repeat(MAX_BATCH_BYTES - EVENT_OVERHEAD);
        assert!(admit([(NOW, message.as_str())].into_iter(), NOW, None).is_ok());
        let message = "x".repeat(MAX_BATCH_BYTES - EVENT_OVERHEAD + 1);
        assert!(admit([(NOW, message.as_str())].into_iter(), NOW, None).is_err());
    }

    // API reference, PutLogEvents: 14 days past and 2 hours ahead are rejected by index.
    #[test]
    fn too_old_and_too_new_events_are_left_out_by_index() {
        let events = batch(&[NOW - MAX_AGE_MS - 1, NOW - MAX_AGE_MS - 1, NOW, NOW + MAX_AHEAD_MS + 1]);
        let a = admit(events.iter().copied(), NOW, None).unwrap();
        assert_eq!(a.stored, 2..3);
        assert_eq!(
            (a.too_old_end, a.too_new_start, a.expired_end),
            (Some(1), Some(3), None)
        );
    }

    #[test]
    fn events_older_than_the_retention_are_expired() {
        let events = batch(&[NOW - 2 * DAY_MS, NOW]);
        let a = admit(events.iter().copied(), NOW, Some(1)).unwrap();
        assert_eq!((a.stored, a.expired_end, a.too_old_end), (1..2, Some(0), None));
    }

    #[test]
    fn a_batch_wholly_too_new_stores_nothing() {
        let events = batch(&[NOW + MAX_AHEAD_MS + 1]);
        let a = admit(events.iter().copied(), NOW, None).unwrap();
        assert!(a.stored.is_empty());
    }

    #[test]
    fn rows_read_back() {
        let key = crate::records::event_key("g", "s", -5, 7);
        let e = decode_row(&key, &encode_row(42, "héllo")).unwrap();
        assert_eq!(
            (e.stream.as_str(), e.timestamp, e.seq, e.ingestion, e.message.as_str()),
            ("s", -5, 7, 42, "héllo")
        );
        assert_eq!(digits(1, 2).len(), 56);
    }
}
