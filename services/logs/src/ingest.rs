//! The one write path for log events: PutLogEvents and other services' logs
//! ([`LogWriter`](stratus_core::service::LogWriter)) store through [`append`], and deletions
//! and the retention sweep give their bytes back through [`remove_events`].

use stratus_storage::{Direction, KeyRange, Tx};

use crate::error::{limit_exceeded, Result};
use crate::events::{decode_row, encode_row, EVENT_OVERHEAD};
use crate::records::{event_key, pair_key, GroupRecord, StreamRecord, EVENTS, GROUPS, STREAMS, USAGE, USAGE_KEY};

/// The most event bytes (messages plus 26 bytes each) kept per account and region: a put
/// that would pass it is refused until retention, or deleting groups or streams, makes room.
pub(crate) const MAX_STORED_BYTES: i64 = 1 << 30;

/// Appends `events` (in order) to `stream` of `group`, at ingestion time `now_ms`; answers
/// the stream's sequence number after them.
pub(crate) fn append(
    tx: &mut Tx<'_>,
    group: &mut GroupRecord,
    stream_name: &str,
    stream: &mut StreamRecord,
    events: &[(i64, &str)],
    now_ms: i64,
) -> Result<u64> {
    if events.is_empty() {
        return Ok(stream.next_seq);
    }
    let bytes: i64 = events.iter().map(|(_, m)| (m.len() + EVENT_OVERHEAD) as i64).sum();
    let used = USAGE.get(&*tx, USAGE_KEY)?.unwrap_or(0);
    if used + bytes > MAX_STORED_BYTES {
        return Err(limit_exceeded(format!(
            "Stratus keeps at most {MAX_STORED_BYTES} bytes of log events per account and region; \
             set a retention policy or delete log groups to make room."
        )));
    }
    for &(timestamp, message) in events {
        tx.put(
            EVENTS,
            event_key(&group.name, stream_name, timestamp, stream.next_seq),
            encode_row(now_ms, message),
        );
        stream.next_seq += 1;
    }
    let (first, last) = (events[0].0, events[events.len() - 1].0);
    stream.first_event = Some(stream.first_event.map_or(first, |f| f.min(first)));
    stream.last_event = Some(stream.last_event.map_or(last, |l| l.max(last)));
    stream.last_ingestion = Some(now_ms);
    group.stored_bytes += bytes;
    STREAMS.put(tx, pair_key(&group.name, stream_name), stream)?;
    GROUPS.put(tx, group.name.as_bytes().to_vec(), group)?;
    USAGE.put(tx, USAGE_KEY.to_vec(), &(used + bytes))?;
    Ok(stream.next_seq)
}

/// Deletes the events under `prefix` (a group's, a stream's) older than `before` (all when
/// `None`), and answers the bytes they held, which the caller takes off its group; the
/// account's usage is updated here.
pub(crate) fn remove_events(tx: &mut Tx<'_>, prefix: &[u8], before: Option<i64>) -> Result<i64> {
    let rows = tx.scan(EVENTS, &KeyRange::prefix(prefix), Direction::Forward, None)?;
    let mut freed = 0i64;
    for (key, row) in rows {
        let event = decode_row(&key, &row)?;
        if before.is_some_and(|b| event.timestamp >= b) {
            continue;
        }
        freed += event.size() as i64;
        tx.delete(EVENTS, key);
    }
    if freed > 0 {
        let used = USAGE.get(&*tx, USAGE_KEY)?.unwrap_or(0);
        USAGE.put(tx, USAGE_KEY.to_vec(), &(used - freed).max(0))?;
    }
    Ok(freed)
}
