//! Kinesis as a [`StreamSource`]: the shards of a stream, read from a position, for Lambda's
//! event source mappings; and as a [`StreamWriter`], for the services that put records into
//! streams (DynamoDB's Kinesis streaming destinations). A position is a sequence number in Stratus's form
//! ([`crate::sequence`]) naming the first record to read; it need not be a record's own (the
//! position after a shard's newest record is the one the next put there will get, or later).

use stratus_core::clock::Clock;
use stratus_core::service::{BoxFuture, Caller, ShardRead, ShardRecord, StreamSource, StreamStart, StreamWriter};
use stratus_core::{AwsError, DateTime};
use stratus_gen_kinesis::{ShardIteratorType, StartingPosition};

use crate::error::invalid_argument;
use crate::ops::records::{find_shard, put_for_service, read_shard, start_counter};
use crate::sequence::Sequence;
use crate::service::{KinesisService, StreamAt};

/// Kinesis's streams, read on the clock of the process.
pub(crate) struct KinesisStreams {
    pub(crate) kinesis: KinesisService,
    pub(crate) clock: Clock,
}

/// The counter a position of shard `shard` names.
fn counter_at(position: &str, shard: u32) -> Result<u64, AwsError> {
    match Sequence::parse(position) {
        Some(at) if at.shard == shard => Ok(at.counter),
        _ => Err(invalid_argument(format!("Invalid position {position} for shard {shard}.")).into()),
    }
}

impl StreamSource for KinesisStreams {
    fn arn_service(&self) -> &'static str {
        "kinesis"
    }

    fn shards<'a>(&'a self, _: Caller<'a>, stream_arn: &'a str) -> BoxFuture<'a, Result<Vec<String>, AwsError>> {
        Box::pin(async move {
            let at = StreamAt::of_arn(stream_arn)?;
            let read_at = at.clone();
            self.kinesis
                .read(&at.account, &at.region, move |store| {
                    let stream = read_at.load(store)?;
                    Ok(stream.shards.iter().map(|s| s.id()).collect())
                })
                .await
        })
    }

    fn start<'a>(
        &'a self,
        _: Caller<'a>,
        stream_arn: &'a str,
        shard_id: &'a str,
        start: StreamStart,
    ) -> BoxFuture<'a, Result<String, AwsError>> {
        Box::pin(async move {
            let at = StreamAt::of_arn(stream_arn)?;
            let (read_at, shard_id) = (at.clone(), shard_id.to_owned());
            let now = self.clock.epoch_millis();
            let position = match start {
                StreamStart::TrimHorizon => iterator_start(ShardIteratorType::TrimHorizon, None),
                StreamStart::Latest => iterator_start(ShardIteratorType::Latest, None),
                // A time still to come reads from the tip, as AWS starts such a mapping.
                StreamStart::AtTimestamp(ms) => {
                    iterator_start(ShardIteratorType::AtTimestamp, Some(DateTime::from_millis(ms.min(now))))
                }
            };
            self.kinesis
                .read(&at.account, &at.region, move |store| {
                    let stream = read_at.load(store)?;
                    let shard = find_shard(&stream, &read_at, &shard_id)?;
                    let counter = start_counter(store, (&read_at, &stream, shard), &position, now)?;
                    Ok(Sequence {
                        shard: shard.index,
                        counter,
                    }
                    .render())
                })
                .await
        })
    }

    fn read<'a>(
        &'a self,
        _: Caller<'a>,
        stream_arn: &'a str,
        shard_id: &'a str,
        position: &'a str,
        max: usize,
    ) -> BoxFuture<'a, Result<ShardRead, AwsError>> {
        Box::pin(async move {
            let at = StreamAt::of_arn(stream_arn)?;
            let (read_at, shard_id, position) = (at.clone(), shard_id.to_owned(), position.to_owned());
            let now = self.clock.epoch_millis();
            self.kinesis
                .read(&at.account, &at.region, move |store| {
                    let stream = read_at.load(store)?;
                    let shard = find_shard(&stream, &read_at, &shard_id)?;
                    let from = counter_at(&position, shard.index)?;
                    let batch = read_shard(store, &stream, shard, from, max, now)?;
                    let records = batch
                        .records
                        .into_iter()
                        .map(|r| {
                            let counter = Sequence::parse(&r.sequence_number).map_or(from, |s| s.counter);
                            ShardRecord {
                                next: Sequence {
                                    shard: shard.index,
                                    counter: counter + 1,
                                }
                                .render(),
                                sequence_number: r.sequence_number,
                                arrival_ms: r
                                    .approximate_arrival_timestamp
                                    .and_then(|t| t.to_millis().ok())
                                    .unwrap_or(now),
                                partition_key: r.partition_key,
                                data: r.data,
                            }
                        })
                        .collect();
                    Ok(ShardRead {
                        records,
                        ended: batch.next.is_none(),
                    })
                })
                .await
        })
    }

    fn appends(&self, _: Caller<'_>, stream_arn: &str) -> u64 {
        match StreamAt::of_arn(stream_arn) {
            Ok(at) => self.kinesis.shared.arrivals.current(&(at.account, at.region, at.name)),
            Err(_) => 0,
        }
    }

    fn appended<'a>(&'a self, _: Caller<'a>, stream_arn: &'a str, seen: u64) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Ok(at) = StreamAt::of_arn(stream_arn) {
                self.kinesis
                    .shared
                    .arrivals
                    .changed((at.account, at.region, at.name), seen)
                    .await;
            }
        })
    }
}

fn iterator_start(kind: ShardIteratorType, timestamp: Option<DateTime>) -> StartingPosition {
    StartingPosition {
        r#type: kind,
        sequence_number: None,
        timestamp,
    }
}

impl StreamWriter for KinesisStreams {
    fn exists<'a>(&'a self, caller: Caller<'a>, stream_arn: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async move { self.shards(caller, stream_arn).await.is_ok() })
    }

    fn put_record<'a>(
        &'a self,
        _: Caller<'a>,
        stream_arn: &'a str,
        partition_key: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let at = StreamAt::of_arn(stream_arn)?;
            put_for_service(&self.kinesis, at, &self.clock, partition_key, data).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_belong_to_their_shard() {
        let p = Sequence { shard: 2, counter: 5 }.render();
        assert_eq!(counter_at(&p, 2).unwrap(), 5);
        assert!(counter_at(&p, 3).is_err());
        assert!(counter_at("garbage", 2).is_err());
    }
}
