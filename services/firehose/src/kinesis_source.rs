//! `KinesisStreamAsSource`: a delivery stream reading a Kinesis stream through the
//! [`StreamSource`] capability, one task per shard. Reading starts at the stream's `LATEST`
//! position when the delivery stream is created (AWS: "Firehose starts reading data from the
//! LATEST position of your Kinesis stream"), resolved before CreateDeliveryStream answers, so
//! a record put after it is read. Each read is appended to the buffer in the transaction that
//! moves the shard's checkpoint past it: a record read is buffered once, and a restart reads
//! on from the checkpoint. A shard read to its tip waits for the stream's next put (woken by
//! the put, no timer); a closed shard read to its end hands over to its children, read from
//! their start.

use std::sync::Arc;

use stratus_core::service::{Caller, StreamSource, StreamStart};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Table, Tx};
use tokio::sync::watch;

use crate::buffer::{append, Buffered, KinesisMeta};
use crate::destination::Delivery;
use crate::error::{invalid_argument, Result};
use crate::processing::FIREHOSE_PRINCIPAL;
use crate::records::{KinesisSource, STREAMS};
use crate::service::{lock, FirehoseService, StreamKey};

/// Each shard's checkpoint by (delivery stream, shard): the position the next read starts at.
pub(crate) const CHECKPOINTS: Table<String> = Table::new("kinesis_checkpoints");

/// Records asked for per read.
const READ_MOST: usize = 10_000;

fn checkpoint_key(stream: &str, shard: &str) -> Vec<u8> {
    TupleKey::new().str(stream).str(shard).into_bytes()
}

/// Where reading starts in each shard of the Kinesis stream `source` names: its `LATEST`
/// positions, refused as AWS refuses a stream Firehose cannot read.
pub(crate) async fn starting_positions(
    firehose: &FirehoseService,
    account: &str,
    region: &str,
    stream_arn: &str,
) -> Result<Vec<(String, String)>> {
    let source = firehose
        .stream_source(stream_arn)
        .ok_or_else(|| invalid_argument(format!("Kinesis stream {stream_arn} does not exist.")))?;
    let caller = Caller::service(FIREHOSE_PRINCIPAL, account, region);
    let shards = source
        .shards(caller, stream_arn)
        .await
        .map_err(|e| invalid_argument(e.message))?;
    let mut positions = Vec::with_capacity(shards.len());
    for shard in shards {
        let position = source
            .start(caller, stream_arn, &shard, StreamStart::Latest)
            .await
            .map_err(|e| invalid_argument(e.message))?;
        positions.push((shard, position));
    }
    Ok(positions)
}

/// Stores the starting checkpoints of `stream` in `tx`.
pub(crate) fn store_checkpoints(tx: &mut Tx<'_>, stream: &str, positions: &[(String, String)]) -> Result<()> {
    for (shard, position) in positions {
        CHECKPOINTS.put(tx, checkpoint_key(stream, shard), position)?;
    }
    Ok(())
}

/// Drops the checkpoints of `stream` (its deletion).
pub(crate) fn forget_checkpoints(tx: &mut Tx<'_>, stream: &str) -> Result<()> {
    for (key, _) in CHECKPOINTS.scan_prefix(tx, TupleKey::new().str(stream).into_bytes())? {
        CHECKPOINTS.delete(tx, key);
    }
    Ok(())
}

impl FirehoseService {
    /// Starts reading every shard of `stream`'s Kinesis source that has a checkpoint.
    pub(crate) fn start_reading(&self, key: StreamKey, source: KinesisSource) {
        let Some(kinesis) = self.stream_source(&source.stream_arn) else {
            tracing::warn!(stream = %key.name, "firehose: the Kinesis source is not served");
            return;
        };
        let (stop, stopped) = watch::channel(());
        lock(&self.shared.readers).insert(key.clone(), stop);
        let firehose = self.clone();
        self.shared.spawner.spawn(async move {
            let name = key.name.clone();
            let prefix = TupleKey::new().str(&name).into_bytes();
            let shards = firehose
                .read(&key.account, &key.region, move |store| {
                    Ok(CHECKPOINTS.scan_prefix(store, &prefix)?)
                })
                .await;
            let Ok(shards) = shards else { return };
            for (checkpoint_key, _) in shards {
                let mut reader = stratus_storage::tuple::TupleReader::new(&checkpoint_key);
                let (Ok(_), Ok(shard)) = (reader.string(), reader.string()) else {
                    continue;
                };
                firehose.spawn_shard(&key, &kinesis, &source.stream_arn, shard, stopped.clone());
            }
        });
    }

    /// Stops the readers of `key` (its deletion).
    pub(crate) fn stop_reading(&self, key: &StreamKey) {
        lock(&self.shared.readers).remove(key);
    }

    /// Starts the readers of every stream fed by Kinesis (after a restart).
    pub(crate) fn resume_readers(&self) {
        let now = self.now_ms();
        for (account, region, store) in self.stores() {
            let Ok(streams) = STREAMS.scan_prefix(&*store, []) else {
                continue;
            };
            for (_, stream) in streams {
                if stream.deleting_since_ms.is_some() || stream.state(now) == crate::records::StreamState::Gone {
                    continue;
                }
                if let Some(source) = stream.kinesis.clone() {
                    let key = StreamKey {
                        account: account.clone(),
                        region: region.clone(),
                        name: stream.name.clone(),
                    };
                    self.start_reading(key, source);
                }
            }
        }
    }

    fn spawn_shard(
        &self,
        key: &StreamKey,
        kinesis: &Arc<dyn StreamSource>,
        stream_arn: &str,
        shard: String,
        stopped: watch::Receiver<()>,
    ) {
        let reader = ShardReader {
            firehose: self.clone(),
            key: key.clone(),
            kinesis: kinesis.clone(),
            stream_arn: stream_arn.to_owned(),
            shard,
        };
        self.shared.spawner.spawn(reader.run(stopped));
    }
}

struct ShardReader {
    firehose: FirehoseService,
    key: StreamKey,
    kinesis: Arc<dyn StreamSource>,
    stream_arn: String,
    shard: String,
}

impl ShardReader {
    fn caller(&self) -> Caller<'_> {
        Caller::service(FIREHOSE_PRINCIPAL, &self.key.account, &self.key.region)
    }

    async fn run(self, mut stopped: watch::Receiver<()>) {
        let name = self.key.name.clone();
        let at = checkpoint_key(&name, &self.shard);
        let position = self
            .firehose
            .read(&self.key.account, &self.key.region, move |store| {
                Ok(CHECKPOINTS.get(store, &at)?)
            })
            .await;
        let Ok(Some(mut position)) = position else { return };
        loop {
            let seen = self.kinesis.appends(self.caller(), &self.stream_arn);
            let read = tokio::select! {
                read = self.kinesis.read(self.caller(), &self.stream_arn, &self.shard, &position, READ_MOST) => read,
                _ = stopped.changed() => return,
            };
            let read = match read {
                Ok(read) => read,
                Err(e) => {
                    tracing::warn!(stream = %self.key.name, shard = %self.shard, error = %e, "firehose: stopped reading a Kinesis shard");
                    return;
                }
            };
            if let Some(last) = read.records.last() {
                let next = last.next.clone();
                let now = self.firehose.now_ms();
                let records: Vec<Buffered> = read
                    .records
                    .iter()
                    .map(|r| Buffered {
                        arrival_ms: now,
                        kinesis: Some(KinesisMeta {
                            shard_id: self.shard.clone(),
                            partition_key: r.partition_key.clone(),
                            sequence_number: r.sequence_number.clone(),
                            arrival_ms: r.arrival_ms,
                        }),
                        data: r.data.clone(),
                    })
                    .collect();
                match self.buffer(&position, &next, records).await {
                    Ok(true) => position = next,
                    Ok(false) => return,
                    Err(e) => {
                        tracing::warn!(stream = %self.key.name, error = %e, "firehose: could not buffer what Kinesis gave");
                        return;
                    }
                }
                continue;
            }
            if read.ended {
                self.hand_over(&stopped).await;
                return;
            }
            tokio::select! {
                _ = self.kinesis.appended(self.caller(), &self.stream_arn, seen) => {}
                _ = stopped.changed() => return,
            }
        }
    }

    /// Buffers `records` and moves the checkpoint from `from` to `to`; `false` when the
    /// delivery stream is gone or another reader moved the checkpoint first.
    async fn buffer(&self, from: &str, to: &str, records: Vec<Buffered>) -> Result<bool> {
        let (name, shard, from, to) = (
            self.key.name.clone(),
            self.shard.clone(),
            from.to_owned(),
            to.to_owned(),
        );
        let head = self
            .firehose
            .transact(&self.key.account, &self.key.region, move |tx| {
                let Some(stream) = STREAMS.get(tx, name.as_bytes())? else {
                    return Ok(None);
                };
                let at = checkpoint_key(&name, &shard);
                if stream.deleting_since_ms.is_some() || CHECKPOINTS.get(tx, &at)?.as_deref() != Some(from.as_str()) {
                    return Ok(None);
                }
                CHECKPOINTS.put(tx, at, &to)?;
                let delivery = Delivery::of(stream.destination.kind, &stream.destination.config);
                let Some(hints) = delivery.hints() else {
                    return Ok(Some(None));
                };
                Ok(Some(append(tx, &name, &records)?.due_ms(hints)))
            })
            .await?;
        match head {
            None => Ok(false),
            Some(due) => {
                if let Some(due) = due {
                    self.firehose.schedule(due);
                }
                Ok(true)
            }
        }
    }

    /// Starts readers for the shards that follow a closed one, from their start.
    async fn hand_over(&self, stopped: &watch::Receiver<()>) {
        let Ok(shards) = self.kinesis.shards(self.caller(), &self.stream_arn).await else {
            return;
        };
        for shard in shards {
            let Ok(position) = self
                .kinesis
                .start(self.caller(), &self.stream_arn, &shard, StreamStart::TrimHorizon)
                .await
            else {
                continue;
            };
            let (name, at) = (self.key.name.clone(), checkpoint_key(&self.key.name, &shard));
            let added = self
                .firehose
                .transact(&self.key.account, &self.key.region, move |tx| {
                    if STREAMS.get(tx, name.as_bytes())?.is_none() || CHECKPOINTS.get(tx, &at)?.is_some() {
                        return Ok(false);
                    }
                    CHECKPOINTS.put(tx, at, &position)?;
                    Ok(true)
                })
                .await;
            if added.unwrap_or(false) {
                self.firehose
                    .spawn_shard(&self.key, &self.kinesis, &self.stream_arn, shard, stopped.clone());
            }
        }
    }
}
