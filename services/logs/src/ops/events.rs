//! PutLogEvents, GetLogEvents and FilterLogEvents.

use std::ops::Bound;

use stratus_core::paging::Token;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::tuple::{TupleKey, TupleReader};
use stratus_storage::{Direction, KeyRange, Read, Store};

use crate::error::{invalid_parameter, invalid_token, Result};
use crate::events::{admit, decode_row, digits, event_id, StoredEvent, MAX_BATCH_BYTES};
use crate::filter_pattern::FilterPattern;
use crate::ingest::{append, Target};
use crate::records::{event_key, pair_key, EVENTS};
use crate::service::{group_named, load_group, load_stream, LogsService};

/// GetLogEvents' tokens: `f/` or `b/` and a sealed position (timestamp, sequence number).
const GET_TOKENS: Token = Token::for_listing("logs:GetLogEvents");
const FILTER_TOKENS: Token = Token::for_listing("logs:FilterLogEvents");
/// Both reads answer at most 10,000 events and 1 MB (API reference, GetLogEvents).
const DEFAULT_LIMIT: usize = 10_000;
/// Rows read at a time from each stream by FilterLogEvents.
const CHUNK: usize = 512;

pub(crate) async fn put_log_events(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutLogEventsRequest,
) -> Result<PutLogEventsResponse, AwsError> {
    let now = ctx.clock.epoch_millis();
    let (group_name, stream_name) = (input.log_group_name, input.log_stream_name);
    let events = input.log_events;
    let used = logs.used(
        &ctx.account_id,
        &ctx.region,
        &*logs.store(&ctx.account_id, &ctx.region)?,
    )?;
    let (account, deliveries) = (ctx.account_id.clone(), logs.shared.deliveries.clone());
    let (answer, appended) = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let group = load_group(&*tx, &group_name)?;
            let mut stream = load_stream(&*tx, &group_name, &stream_name)?;
            let batch = events.iter().map(|e| (e.timestamp, e.message.as_str()));
            let admission = admit(batch.clone(), now, group.retention_days)?;
            let stored: Vec<(i64, &str)> = batch
                .skip(admission.stored.start)
                .take(admission.stored.len())
                .collect();
            let target = Target {
                account: &account,
                group: &group_name,
                stream: &stream_name,
            };
            let appended = append(tx, &deliveries, target, &mut stream, &stored, now, used)?;
            let as_index = |i: usize| Some(i as i32);
            let answer = PutLogEventsResponse {
                // Sequence tokens are accepted and ignored, as AWS has done since 2023; one is
                // still answered for clients that pass it on.
                next_sequence_token: Some(digits(1, appended.next_seq)),
                rejected_log_events_info: admission.rejected_any().then(|| RejectedLogEventsInfo {
                    too_new_log_event_start_index: admission.too_new_start.and_then(as_index),
                    too_old_log_event_end_index: admission.too_old_end.and_then(as_index),
                    expired_log_event_end_index: admission.expired_end.and_then(as_index),
                }),
                rejected_entity_info: None,
            };
            Ok((answer, appended))
        })
        .await?;
    logs.add_used(&ctx.account_id, &ctx.region, appended.bytes);
    if appended.queued {
        logs.shared.deliveries.wake(&ctx.account_id, &ctx.region);
    }
    logs.publish(&ctx.account_id, &ctx.region, appended.metrics).await;
    Ok(answer)
}

/// A place between two events of a stream: the key of the event it follows or precedes.
type Position = (i64, u64);

fn encode_position(direction: char, (timestamp, seq): Position) -> String {
    let bytes = TupleKey::new().i64(timestamp).u64(seq).into_bytes();
    format!("{direction}/{}", GET_TOKENS.encode(&bytes))
}

fn decode_position(token: &str) -> Result<(bool, Position)> {
    let (forward, rest) = match token.split_once('/') {
        Some(("f", rest)) => (true, rest),
        Some(("b", rest)) => (false, rest),
        _ => return Err(invalid_token()),
    };
    let bytes = GET_TOKENS.decode(rest).map_err(|_| invalid_token())?;
    let mut reader = TupleReader::new(&bytes);
    let timestamp = reader.i64().map_err(|_| invalid_token())?;
    let seq = reader.u64().map_err(|_| invalid_token())?;
    Ok((forward, (timestamp, seq)))
}

/// The end of a stream's key range: after every event key under `prefix`.
fn after_all(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    end.extend_from_slice(&[0xFF; 17]);
    end
}

/// The tighter of two bounds, `upper` saying which side they bound.
fn tighter(a: Bound<Vec<u8>>, b: Bound<Vec<u8>>, upper: bool) -> Bound<Vec<u8>> {
    let key = |x: &Bound<Vec<u8>>| match x {
        Bound::Included(k) | Bound::Excluded(k) => k.clone(),
        Bound::Unbounded => Vec::new(),
    };
    let (ka, kb) = (key(&a), key(&b));
    match ka.cmp(&kb) {
        std::cmp::Ordering::Equal => {
            if matches!(a, Bound::Excluded(_)) {
                a
            } else {
                b
            }
        }
        std::cmp::Ordering::Less => {
            if upper {
                a
            } else {
                b
            }
        }
        std::cmp::Ordering::Greater => {
            if upper {
                b
            } else {
                a
            }
        }
    }
}

/// The events of one stream from `lo` to `hi`, at most `limit` and 1 MB, read in `direction`
/// and answered in time order.
fn read_events(
    r: &(impl Read + ?Sized),
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    direction: Direction,
    limit: usize,
) -> Result<Vec<StoredEvent>> {
    let range = KeyRange::between(lo.as_ref().map(Vec::as_slice), hi.as_ref().map(Vec::as_slice));
    let mut bytes = 0;
    let mut events = Vec::new();
    for (key, row) in r.scan(EVENTS, &range, direction, Some(limit))? {
        let event = decode_row(&key, &row)?;
        bytes += event.size();
        if bytes > MAX_BATCH_BYTES && !events.is_empty() {
            break;
        }
        events.push(event);
    }
    if direction == Direction::Backward {
        events.reverse();
    }
    Ok(events)
}

pub(crate) async fn get_log_events(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetLogEventsRequest,
) -> Result<GetLogEventsResponse, AwsError> {
    let group = group_named(input.log_group_name.as_deref(), input.log_group_identifier.as_deref())?;
    let stream = input.log_stream_name;
    let token = input.next_token.as_deref().map(decode_position).transpose()?;
    let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l.max(1) as usize);
    let from_head = input.start_from_head.unwrap_or(false);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        load_group(store, &group)?;
        load_stream(store, &group, &stream)?;
        let prefix = pair_key(&group, &stream);
        let mut lo = match input.start_time {
            Some(t) => Bound::Included(event_key(&group, &stream, t, 0)),
            None => Bound::Included(prefix.clone()),
        };
        let mut hi = match input.end_time {
            Some(t) => Bound::Excluded(event_key(&group, &stream, t, 0)),
            None => Bound::Excluded(after_all(&prefix)),
        };
        let forward = match token {
            Some((forward, (t, seq))) => {
                let at = event_key(&group, &stream, t, seq);
                if forward {
                    lo = tighter(lo, Bound::Excluded(at), false);
                } else {
                    hi = tighter(hi, Bound::Excluded(at), true);
                }
                forward
            }
            None => from_head,
        };
        let direction = if forward {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let events = read_events(store, lo, hi, direction, limit)?;
        let (first, last) = match (events.first(), events.last(), token) {
            (Some(f), Some(l), _) => ((f.timestamp, f.seq), (l.timestamp, l.seq)),
            (_, _, Some((_, at))) => (at, at),
            _ => {
                let at = (input.start_time.unwrap_or(i64::MIN), 0);
                (at, at)
            }
        };
        Ok(GetLogEventsResponse {
            events: Some(
                events
                    .into_iter()
                    .map(|e| OutputLogEvent {
                        timestamp: Some(e.timestamp),
                        message: Some(e.message),
                        ingestion_time: Some(e.ingestion),
                    })
                    .collect(),
            ),
            next_forward_token: Some(encode_position('f', last)),
            next_backward_token: Some(encode_position('b', first)),
        })
    })
    .await
}

/// One stream's cursor in FilterLogEvents' merge: the rows read ahead, undecoded, and where
/// to read on from.
struct Cursor<'s> {
    stream: &'s str,
    rows: std::collections::VecDeque<(Vec<u8>, Vec<u8>)>,
    next: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    done: bool,
}

/// The timestamp and sequence number that end an event key.
fn key_tail(key: &[u8]) -> (i64, u64) {
    let tail = &key[key.len().saturating_sub(16)..];
    let mut reader = TupleReader::new(tail);
    (reader.i64().unwrap_or(i64::MIN), reader.u64().unwrap_or(0))
}

impl Cursor<'_> {
    /// The timestamp and sequence number of the next row, reading on when the buffer is empty.
    fn head(&mut self, store: &dyn Store) -> Result<Option<(i64, u64)>> {
        if self.rows.is_empty() && !self.done {
            let range = KeyRange::between(
                self.next.as_ref().map(Vec::as_slice),
                self.hi.as_ref().map(Vec::as_slice),
            );
            let rows = store.scan(EVENTS, &range, Direction::Forward, Some(CHUNK))?;
            self.done = rows.len() < CHUNK;
            if let Some((key, _)) = rows.last() {
                self.next = Bound::Excluded(key.clone());
            }
            self.rows.extend(rows);
        }
        Ok(self.rows.front().map(|(key, _)| key_tail(key)))
    }
}

/// FilterLogEvents' order and token position: timestamp, stream, sequence number.
fn filter_position(e: &StoredEvent) -> Vec<u8> {
    TupleKey::new().i64(e.timestamp).str(&e.stream).u64(e.seq).into_bytes()
}

fn decode_filter_position(bytes: &[u8]) -> Result<(i64, String, u64)> {
    let mut reader = TupleReader::new(bytes);
    let timestamp = reader.i64().map_err(|_| invalid_token())?;
    let stream = reader.string().map_err(|_| invalid_token())?;
    let seq = reader.u64().map_err(|_| invalid_token())?;
    Ok((timestamp, stream, seq))
}

pub(crate) async fn filter_log_events(
    logs: &LogsService,
    ctx: &RequestContext,
    input: FilterLogEventsRequest,
) -> Result<FilterLogEventsResponse, AwsError> {
    let group = group_named(input.log_group_name.as_deref(), input.log_group_identifier.as_deref())?;
    if input.log_stream_names.is_some() && input.log_stream_name_prefix.is_some() {
        return Err(
            invalid_parameter("logStreamNames and logStreamNamePrefix are mutually exclusive parameters.").into(),
        );
    }
    let pattern = FilterPattern::parse(input.filter_pattern.as_deref().unwrap_or(""))
        .map_err(|e| invalid_parameter(e.to_string()))?;
    let after = match input.next_token.as_deref() {
        Some(token) => Some(FILTER_TOKENS.decode(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let limit = input.limit.map_or(DEFAULT_LIMIT, |l| l.max(1) as usize);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        load_group(store, &group)?;
        let names: Vec<String> = super::streams::streams_of(store, &group)?
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| input.log_stream_names.as_ref().is_none_or(|n| n.contains(name)))
            .filter(|name| {
                input
                    .log_stream_name_prefix
                    .as_deref()
                    .is_none_or(|p| name.starts_with(p))
            })
            .collect();
        let after = after.as_deref().map(decode_filter_position).transpose()?;
        let start = input.start_time.max(after.as_ref().map(|a| a.0)).unwrap_or(i64::MIN);
        let mut cursors: Vec<Cursor> = names
            .iter()
            .map(|stream| Cursor {
                stream,
                rows: Default::default(),
                next: Bound::Included(event_key(&group, stream, start, 0)),
                hi: match input.end_time {
                    Some(t) => Bound::Included(event_key(&group, stream, t, u64::MAX)),
                    None => Bound::Excluded(after_all(&pair_key(&group, stream))),
                },
                done: false,
            })
            .collect();
        let (mut found, mut bytes, mut more) = (Vec::new(), 0usize, false);
        loop {
            // The earliest head; streams are in name order, so ties go to the first.
            let mut best: Option<(usize, (i64, u64))> = None;
            for (i, cursor) in cursors.iter_mut().enumerate() {
                if let Some(head) = cursor.head(store)? {
                    if best.is_none_or(|(_, b)| head.0 < b.0) {
                        best = Some((i, head));
                    }
                }
            }
            let Some((i, (timestamp, seq))) = best else { break };
            let stream = cursors[i].stream;
            let (key, row) = cursors[i].rows.pop_front().expect("a head was just read");
            if after
                .as_ref()
                .is_some_and(|(t, s, q)| (timestamp, stream, seq) <= (*t, s.as_str(), *q))
            {
                continue;
            }
            let message = row.get(8..).and_then(|m| std::str::from_utf8(m).ok()).unwrap_or("");
            if !pattern.matches(message) {
                continue;
            }
            let event = decode_row(&key, &row)?;
            if found.len() == limit || bytes + event.size() > MAX_BATCH_BYTES {
                more = true;
                break;
            }
            bytes += event.size();
            found.push(event);
        }
        let next_token = more
            .then(|| found.last().map(|e| FILTER_TOKENS.encode(&filter_position(e))))
            .flatten();
        Ok(FilterLogEventsResponse {
            events: Some(
                found
                    .into_iter()
                    .map(|e| FilteredLogEvent {
                        event_id: Some(event_id(&e.stream, e.seq)),
                        timestamp: Some(e.timestamp),
                        ingestion_time: Some(e.ingestion),
                        log_stream_name: Some(e.stream),
                        message: Some(e.message),
                    })
                    .collect(),
            ),
            searched_log_streams: Some(Vec::new()),
            next_token,
        })
    })
    .await
}
