//! The one write path for log events: PutLogEvents and other services' logs
//! ([`LogWriter`](stratus_core::service::LogWriter)) store through [`append`], and deletions
//! and the retention sweep give their bytes back through [`remove_events`]. Each stream
//! counts its bytes; the account's total, which the bound is kept against, is counted in
//! memory from them ([`LogsService::used`]).

use std::collections::BTreeMap;

use stratus_outbox::Outbox;
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange, Store, Tx};

use crate::error::{limit_exceeded, Result};
use crate::events::{decode_row, encode_row, EVENT_OVERHEAD};
use crate::metric_filters::{metrics_of, Published};
use crate::records::{
    event_key, group_key, pair_key, StreamRecord, EVENTS, METRIC_FILTERS, STREAMS, SUBSCRIPTION_FILTERS,
};
use crate::service::{lock, LogsService};
use crate::subscriptions::{deliveries_of, Delivery, Ingested};

/// The most event bytes (messages plus 26 bytes each) kept per account and region: a put
/// that would pass it is refused until retention, or deleting groups or streams, makes room.
pub(crate) const MAX_STORED_BYTES: i64 = 1 << 30;

/// What [`append`] did.
pub(crate) struct Appended {
    /// The stream's next sequence number.
    pub next_seq: u64,
    /// The bytes added.
    pub bytes: i64,
    /// What the group's metric filters make of the events, to publish once they are stored.
    pub metrics: Published,
    /// Whether subscription filters queued deliveries (the outbox is to be woken).
    pub queued: bool,
}

/// Where events are written: a stream of a group in an account.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    pub account: &'a str,
    pub group: &'a str,
    pub stream: &'a str,
}

/// Appends `events` (in order) to `target`'s stream, whose record is `stream`, at ingestion
/// time `now_ms`, when `used` bytes are already held; queues the group's subscription
/// deliveries in `deliveries` in the same transaction.
pub(crate) fn append(
    tx: &mut Tx<'_>,
    deliveries: &Outbox<Delivery>,
    target: Target<'_>,
    stream: &mut StreamRecord,
    events: &[(i64, &str)],
    now_ms: i64,
    used: i64,
) -> Result<Appended> {
    let Target {
        account,
        group,
        stream: stream_name,
    } = target;
    if events.is_empty() {
        return Ok(Appended {
            next_seq: stream.next_seq,
            bytes: 0,
            metrics: Published::new(),
            queued: false,
        });
    }
    let bytes: i64 = events.iter().map(|(_, m)| (m.len() + EVENT_OVERHEAD) as i64).sum();
    if used + bytes > MAX_STORED_BYTES {
        return Err(limit_exceeded(format!(
            "Stratus keeps at most {MAX_STORED_BYTES} bytes of log events per account and region; \
             set a retention policy or delete log groups to make room."
        )));
    }
    let first_seq = stream.next_seq;
    for &(timestamp, message) in events {
        tx.put(
            EVENTS,
            event_key(group, stream_name, timestamp, stream.next_seq),
            encode_row(now_ms, message),
        );
        stream.next_seq += 1;
    }
    let (first, last) = (events[0].0, events[events.len() - 1].0);
    stream.first_event = Some(stream.first_event.map_or(first, |f| f.min(first)));
    stream.last_event = Some(stream.last_event.map_or(last, |l| l.max(last)));
    stream.last_ingestion = Some(now_ms);
    stream.stored_bytes += bytes;
    STREAMS.put(tx, pair_key(group, stream_name), stream)?;
    let filters: Vec<_> = METRIC_FILTERS
        .scan_prefix(&*tx, group_key(group))?
        .into_iter()
        .map(|(_, filter)| filter)
        .collect();
    let subscriptions: Vec<_> = SUBSCRIPTION_FILTERS
        .scan_prefix(&*tx, group_key(group))?
        .into_iter()
        .map(|(_, filter)| filter)
        .collect();
    let ingested: Vec<Ingested<'_>> = (first_seq..)
        .zip(events)
        .map(|(seq, &(timestamp, message))| Ingested {
            timestamp,
            seq,
            message,
        })
        .collect();
    let queued = deliveries_of(account, group, stream_name, &subscriptions, &ingested);
    let any_queued = !queued.is_empty();
    for delivery in queued {
        deliveries.put(tx, delivery)?;
    }
    Ok(Appended {
        next_seq: stream.next_seq,
        bytes,
        metrics: metrics_of(&filters, events),
        queued: any_queued,
    })
}

/// Deletes the events of `group` (of its stream `stream` alone when given) older than
/// `before` (all when `None`), takes their bytes off their streams, and answers the bytes
/// freed.
pub(crate) fn remove_events(tx: &mut Tx<'_>, group: &str, stream: Option<&str>, before: Option<i64>) -> Result<i64> {
    let prefix = match stream {
        Some(stream) => pair_key(group, stream),
        None => TupleKey::new().str(group).into_bytes(),
    };
    let rows = tx.scan(EVENTS, &KeyRange::prefix(&prefix), Direction::Forward, None)?;
    let mut freed: BTreeMap<String, i64> = BTreeMap::new();
    for (key, row) in rows {
        let event = decode_row(&key, &row)?;
        if before.is_some_and(|b| event.timestamp >= b) {
            continue;
        }
        *freed.entry(event.stream.clone()).or_default() += event.size() as i64;
        tx.delete(EVENTS, key);
    }
    for (stream, bytes) in &freed {
        let key = pair_key(group, stream);
        if let Some(mut record) = STREAMS.get(&*tx, &key)? {
            record.stored_bytes = (record.stored_bytes - bytes).max(0);
            STREAMS.put(tx, key, &record)?;
        }
    }
    Ok(freed.values().sum())
}

impl LogsService {
    /// The event bytes `account` holds in `region`, counted from its streams on first use.
    pub(crate) fn used(&self, account: &str, region: &str, store: &dyn Store) -> Result<i64> {
        let place = (account.to_owned(), region.to_owned());
        if let Some(&used) = lock(&self.shared.usage).get(&place) {
            return Ok(used);
        }
        let counted = STREAMS
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .iter()
            .map(|(_, s)| s.stored_bytes)
            .sum();
        Ok(*lock(&self.shared.usage).entry(place).or_insert(counted))
    }

    /// Adds `delta` (negative for bytes freed) to what `account` holds in `region`, after the
    /// transaction that changed it committed.
    pub(crate) fn add_used(&self, account: &str, region: &str, delta: i64) {
        if let Some(used) = lock(&self.shared.usage).get_mut(&(account.to_owned(), region.to_owned())) {
            *used = (*used + delta).max(0);
        }
    }
}
