//! SubscribeToShard: an enhanced fan-out consumer's subscription to a shard, answered as an
//! event stream (`stratus_protocol::event_stream`) that the gateway sends as the client reads
//! it — chunked over HTTP/1.1 (boto3, the CLI) or as HTTP/2 data frames (the Java and Rust
//! SDKs, KCL 2).
//!
//! The body is a blocking reader on the blocking pool: it sends the `initial-response` event,
//! then a `SubscribeToShardEvent` with whatever the shard holds from the starting position,
//! then waits on the stream's arrival signal (`Shared::arrivals`) and sends each put's
//! records as they commit, or an empty event every [`HEARTBEAT`] while nothing arrives. At the
//! end of a closed shard the last event carries `ChildShards` and the stream ends; otherwise
//! it ends after [`SUBSCRIPTION_MS`] by the service's clock, as AWS ends a subscription after
//! five minutes, or when the client goes away (the next write fails).

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use stratus_core::clock::Clock;
use stratus_core::{AwsError, IntoValue, RequestContext};
use stratus_gen_kinesis::schema::SUBSCRIBE_TO_SHARD_EVENT_STREAM;
use stratus_gen_kinesis::*;
use stratus_protocol::event_stream;
use stratus_storage::Store;

use crate::error::{in_use, Result};
use crate::ops::consumers;
use crate::ops::records::{find_shard, read_shard, start_counter};
use crate::sequence::Sequence;
use crate::service::{of_consumer_arn, KinesisService, Shared, StreamAt};

/// How long a subscription lasts (API reference, SubscribeToShard: "the subscription
/// expires after 5 minutes").
const SUBSCRIPTION_MS: i64 = 5 * 60 * 1000;
/// How long a subscription waits for records before it sends an empty event.
const HEARTBEAT: Duration = Duration::from_secs(5);
/// Records per event: GetRecords' own bound.
const EVENT_RECORDS: usize = 10_000;

pub(crate) async fn subscribe_to_shard(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: SubscribeToShardInput,
) -> Result<SubscribeToShardOutput, AwsError> {
    let (at, consumer) = of_consumer_arn(&input.consumer_arn)?;
    let now = ctx.clock.epoch_millis();
    let store = kinesis.store(&at.account, &at.region)?;
    let (read_at, shard_id, position) = (at.clone(), input.shard_id, input.starting_position);
    let (shard, from) = kinesis
        .read(&at.account, &at.region, move |store| {
            let stream = read_at.load(store)?;
            consumers::find(store, &read_at, &consumer)?;
            let found = find_shard(&stream, &read_at, &shard_id)?;
            let from = start_counter(store, (&read_at, &stream, found), &position, now)?;
            Ok((found.index, from))
        })
        .await?;
    let reader = Subscription {
        shared: kinesis.shared.clone(),
        store,
        at,
        shard,
        from,
        clock: ctx.clock.clone(),
        ends_ms: now + SUBSCRIPTION_MS,
        sent: 0,
        pending: event_stream::initial_response(),
        state: State::First,
    };
    ctx.streams.set_response(Box::new(reader));
    // The value is not sent: the streamed body above replaces it.
    Ok(SubscribeToShardOutput {
        event_stream: SubscribeToShardEventStream::SubscribeToShardEvent(SubscribeToShardEvent::default()),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The first event goes out at once, records or not.
    First,
    /// Later ones as records arrive, or as heartbeats.
    Waiting,
    /// The shard is read to its end, or the subscription is over.
    Done,
}

struct Subscription {
    shared: Arc<Shared>,
    store: Arc<dyn Store>,
    at: StreamAt,
    shard: u32,
    /// The counter the next event's records start at.
    from: u64,
    clock: Clock,
    ends_ms: i64,
    /// Bytes of `pending` already handed to the reader.
    sent: usize,
    pending: Vec<u8>,
    state: State,
}

impl Subscription {
    fn arrival_key(&self) -> (String, String, String) {
        (self.at.account.clone(), self.at.region.clone(), self.at.name.clone())
    }

    /// The next message, or `None` once the stream ends.
    fn next_message(&mut self) -> Option<Vec<u8>> {
        if self.state == State::Done {
            return None;
        }
        let key = self.arrival_key();
        let seen = self.shared.arrivals.current(&key);
        let first = self.state == State::First;
        self.state = State::Waiting;
        match self.event() {
            Ok(Some(event)) => return Some(event),
            Ok(None) if first => return Some(self.empty_event()),
            Ok(None) => {}
            Err(refusal) => return Some(self.fail(refusal)),
        }
        if self.clock.epoch_millis() >= self.ends_ms {
            self.state = State::Done;
            return None;
        }
        self.shared.arrivals.wait(&key, seen, HEARTBEAT);
        match self.event() {
            Ok(Some(event)) => Some(event),
            Ok(None) => Some(self.empty_event()),
            Err(refusal) => Some(self.fail(refusal)),
        }
    }

    /// An event with the records from `from`, if there are any or the shard has ended.
    fn event(&mut self) -> Result<Option<Vec<u8>>> {
        let stream = self.at.load(&*self.store)?;
        let shard = stream
            .shard(self.shard)
            .ok_or_else(|| in_use("the shard no longer exists"))?;
        let now = self.clock.epoch_millis();
        let batch = read_shard(&*self.store, &stream, shard, self.from, EVENT_RECORDS, now)?;
        let ended = batch.next.is_none();
        if batch.records.is_empty() && !ended {
            return Ok(None);
        }
        if let Some(next) = batch.next {
            self.from = next;
        }
        if ended {
            self.state = State::Done;
        }
        Ok(Some(self.encode(batch.records, batch.millis_behind, batch.children)))
    }

    fn empty_event(&self) -> Vec<u8> {
        self.encode(Vec::new(), 0, None)
    }

    fn encode(&self, records: Vec<Record>, millis_behind: i64, children: Option<Vec<ChildShard>>) -> Vec<u8> {
        let event = SubscribeToShardEvent {
            records,
            continuation_sequence_number: Sequence {
                shard: self.shard,
                counter: self.from,
            }
            .render(),
            millis_behind_latest: millis_behind,
            child_shards: children,
        };
        let value = SubscribeToShardEventStream::SubscribeToShardEvent(event).into_value();
        event_stream::message(&SUBSCRIBE_TO_SHARD_EVENT_STREAM, &value)
    }

    /// The exception that ends the stream: the stream or shard is gone, or the store failed.
    fn fail(&mut self, refusal: crate::error::KinesisError) -> Vec<u8> {
        self.state = State::Done;
        let e = AwsError::from(refusal);
        let message = Some(e.message);
        let event = match e.code.as_str() {
            "ResourceNotFoundException" => {
                SubscribeToShardEventStream::ResourceNotFoundException(ResourceNotFoundException { message })
            }
            "ResourceInUseException" => {
                SubscribeToShardEventStream::ResourceInUseException(ResourceInUseException { message })
            }
            _ => SubscribeToShardEventStream::InternalFailureException(InternalFailureException { message }),
        };
        event_stream::message(&SUBSCRIBE_TO_SHARD_EVENT_STREAM, &event.into_value())
    }
}

impl Read for Subscription {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.sent == self.pending.len() {
            match self.next_message() {
                Some(message) => {
                    self.pending = message;
                    self.sent = 0;
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len() - self.sent);
        buf[..n].copy_from_slice(&self.pending[self.sent..self.sent + n]);
        self.sent += n;
        Ok(n)
    }
}
