//! The pollers of enabled stream event source mappings (Kinesis, through the
//! [`StreamSource`] capability): one task per shard, started with the mapping's poller and
//! stopped with it. A shard's task reads from its checkpoint — the position after the last
//! record it is done with, stored in the `stream_checkpoints` table with strict durability
//! before the next batch is read, so a restart neither loses nor re-delivers a committed
//! batch — invokes the function with Lambda's Kinesis event, and waits for the stream's next
//! put when the shard is read to its tip (woken by the put, no periodic timer).
//!
//! A failed batch holds the shard: it is retried (with a growing pause on the scheduler's
//! clock) until `MaximumRetryAttempts` or `MaximumRecordAgeInSeconds` is spent, split in two
//! first when `BisectBatchOnFunctionError` is on, and with `ReportBatchItemFailures` retried
//! from the first record the function names; a batch given up is reported to the `OnFailure`
//! destination and the shard reads on.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use stratus_core::service::capabilities::QueueMessage;
use stratus_core::service::{Caller, ShardRead, ShardRecord, StreamSource, StreamStart};
use stratus_storage::Table;
use tokio::sync::watch;

use crate::error;
use crate::invoke::Ran;
use crate::mappings::{MappingRecord, StreamSettings};
use crate::names::FunctionRef;
use crate::polling::{failures, run_mapped};
use crate::queued::iso_millis;
use crate::service::LambdaService;

/// Each shard's checkpoint by `UUID/SHARD`: the position its next read starts at.
pub(crate) const CHECKPOINTS: Table<String> = Table::new("stream_checkpoints");

const PRINCIPAL: &str = "lambda.amazonaws.com";
/// The longest pause between retries of a failed batch.
const MAX_BACKOFF_SECS: u64 = 30;

fn checkpoint_key(uuid: &str, shard: &str) -> String {
    format!("{uuid}/{shard}")
}

/// Starts a task per shard of the mapping's stream, once every service has registered (the
/// stream's provider registers after Lambda).
pub(crate) async fn poll(
    lambda: LambdaService,
    account: String,
    region: String,
    mapping: MappingRecord,
    stopped: watch::Receiver<()>,
) {
    let late = lambda.shared.late.clone();
    let registered = stratus_storage::run_blocking(move || {
        late.wait();
        Ok::<_, stratus_storage::StorageError>(())
    })
    .await;
    let (Ok(()), Some(settings)) = (registered, mapping.stream.clone()) else {
        return;
    };
    let Some(source) = lambda.stream_source(&mapping.event_source_arn) else {
        tracing::warn!(mapping = %mapping.uuid, "the mapping's stream is not served");
        return;
    };
    let caller = Caller::service(PRINCIPAL, &account, &region);
    let shards = match source.shards(caller, &mapping.event_source_arn).await {
        Ok(shards) => shards,
        Err(e) => {
            tracing::warn!(mapping = %mapping.uuid, error = %e, "the mapping's stream cannot be read");
            return;
        }
    };
    let mapping = Arc::new(mapping);
    for shard in shards {
        let poller = ShardPoller {
            lambda: lambda.clone(),
            source: source.clone(),
            account: account.clone(),
            region: region.clone(),
            mapping: mapping.clone(),
            settings: settings.clone(),
            shard,
        };
        lambda.shared.spawner.spawn(poller.run(stopped.clone()));
    }
}

/// Deletes the checkpoints of mapping `uuid`, as its deletion does.
pub(crate) fn forget_checkpoints(tx: &mut stratus_storage::Tx<'_>, uuid: &str) -> Result<(), stratus_core::AwsError> {
    let prefix = format!("{uuid}/");
    for (key, _) in CHECKPOINTS.scan_prefix(tx, prefix.as_bytes()).map_err(error::storage)? {
        CHECKPOINTS.delete(tx, key);
    }
    Ok(())
}

struct ShardPoller {
    lambda: LambdaService,
    source: Arc<dyn StreamSource>,
    account: String,
    region: String,
    mapping: Arc<MappingRecord>,
    settings: StreamSettings,
    shard: String,
}

/// How one invocation of a batch went.
enum Outcome {
    Done,
    /// The function names records it failed: the first of them, by index, and what ran.
    FailedFrom(usize, Ran),
    /// The whole batch failed; what ran, if the function ran.
    Failed(Option<Ran>),
}

impl ShardPoller {
    fn caller(&self) -> Caller<'_> {
        Caller::service(PRINCIPAL, &self.account, &self.region)
    }

    fn arn(&self) -> &str {
        &self.mapping.event_source_arn
    }

    async fn run(self, mut stopped: watch::Receiver<()>) {
        let mut position = match self.start().await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, error = %e, "cannot start reading the shard");
                return;
            }
        };
        let size = usize::try_from(self.mapping.batch_size).unwrap_or(1);
        loop {
            let seen = self.source.appends(self.caller(), self.arn());
            let read = tokio::select! {
                read = self.source.read(self.caller(), self.arn(), &self.shard, &position, size) => read,
                _ = stopped.changed() => return,
            };
            let mut read = match read {
                Ok(read) => read,
                Err(e) => {
                    tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, error = %e, "stopped reading the shard");
                    return;
                }
            };
            if !read.records.is_empty() && read.records.len() < size && self.mapping.maximum_batching_window > 0 {
                match self.gather(&position, size, &mut stopped).await {
                    Some(Ok(more)) => read = more,
                    Some(Err(e)) => {
                        tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, error = %e, "stopped reading the shard");
                        return;
                    }
                    None => return,
                }
            }
            let Some(last) = read.records.last() else {
                if read.ended {
                    return;
                }
                tokio::select! {
                    _ = self.source.appended(self.caller(), self.arn(), seen) => continue,
                    _ = stopped.changed() => return,
                }
            };
            let end = last.next.clone();
            if !self.process(read.records, &stopped).await {
                return;
            }
            position = end;
        }
    }

    /// Reads again from `position` as records arrive, until the batch is full or
    /// `MaximumBatchingWindowInSeconds` has passed on the scheduler's clock; `None` when the
    /// poller was stopped first.
    async fn gather(
        &self,
        position: &str,
        size: usize,
        stopped: &mut watch::Receiver<()>,
    ) -> Option<Result<ShardRead, stratus_core::AwsError>> {
        let window = Duration::from_secs(u64::try_from(self.mapping.maximum_batching_window).unwrap_or(0));
        let scheduler = &self.lambda.shared.scheduler;
        let deadline = scheduler.sleep_until(scheduler.clock().moment_after(window));
        tokio::pin!(deadline);
        loop {
            let seen = self.source.appends(self.caller(), self.arn());
            let read = self
                .source
                .read(self.caller(), self.arn(), &self.shard, position, size)
                .await;
            let full = read.as_ref().map_or(true, |r| r.records.len() >= size || r.ended);
            if full {
                return Some(read);
            }
            tokio::select! {
                _ = self.source.appended(self.caller(), self.arn(), seen) => {}
                _ = &mut deadline => {
                    return Some(self.source.read(self.caller(), self.arn(), &self.shard, position, size).await);
                }
                _ = stopped.changed() => return None,
            }
        }
    }

    /// The stored checkpoint, else the mapping's starting position, stored at once so that a
    /// `LATEST` mapping restarted later reads on from where it began.
    async fn start(&self) -> Result<String, stratus_core::AwsError> {
        let store = self.lambda.store(&self.account, &self.region)?;
        let key = checkpoint_key(&self.mapping.uuid, &self.shard);
        if let Some(position) = CHECKPOINTS.get(&*store, key.as_bytes()).map_err(error::storage)? {
            return Ok(position);
        }
        let start = match self.settings.starting_position.as_str() {
            "TRIM_HORIZON" => StreamStart::TrimHorizon,
            "AT_TIMESTAMP" => StreamStart::AtTimestamp(self.settings.starting_timestamp_ms.unwrap_or_default()),
            _ => StreamStart::Latest,
        };
        let position = self.source.start(self.caller(), self.arn(), &self.shard, start).await?;
        self.commit(&position).await?;
        Ok(position)
    }

    async fn commit(&self, position: &str) -> Result<(), stratus_core::AwsError> {
        let (key, position) = (checkpoint_key(&self.mapping.uuid, &self.shard), position.to_owned());
        let uuid = self.mapping.uuid.clone();
        self.lambda
            .transact(&self.account, &self.region, move |tx| {
                // A mapping deleted meanwhile keeps no checkpoint.
                if crate::mappings::MAPPINGS
                    .get(tx, uuid.as_bytes())
                    .map_err(error::storage)?
                    .is_none()
                {
                    return Ok(());
                }
                CHECKPOINTS.put(tx, key.as_bytes(), &position).map_err(error::storage)
            })
            .await
    }

    /// Delivers `records` until each part of them is done or given up, committing the
    /// checkpoint after each; `false` when the poller was stopped first.
    async fn process(&self, records: Vec<ShardRecord>, stopped: &watch::Receiver<()>) -> bool {
        let mut pending = VecDeque::from([records]);
        while let Some(mut batch) = pending.pop_front() {
            let mut attempts = 0u32;
            loop {
                if stopped.has_changed().is_err() {
                    return false;
                }
                let now = self.lambda.now_ms();
                let max_age = i64::from(self.settings.maximum_record_age);
                if max_age >= 0 && now - batch[0].arrival_ms > max_age * 1000 {
                    self.discard(&batch, "RecordAgeExceeded", attempts, None).await;
                    break;
                }
                attempts += 1;
                let ran = self.invoke(&batch).await;
                let outcome = self.outcome(&batch, ran);
                let ran = match outcome {
                    Outcome::Done => break,
                    Outcome::FailedFrom(index, ran) => {
                        if index > 0 {
                            if let Err(e) = self.commit(&batch[index - 1].next).await {
                                tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not store a checkpoint");
                                return false;
                            }
                            batch.drain(..index);
                        }
                        Some(ran)
                    }
                    Outcome::Failed(ran) => {
                        if self.settings.bisect_on_error && batch.len() > 1 {
                            // Splitting does not spend a retry (Lambda's guide).
                            let second = batch.split_off(batch.len() / 2);
                            pending.push_front(second);
                            pending.push_front(std::mem::take(&mut batch));
                            break;
                        }
                        ran
                    }
                };
                let retries = i64::from(attempts) - 1;
                let max_retries = i64::from(self.settings.maximum_retry_attempts);
                if max_retries >= 0 && retries >= max_retries {
                    self.discard(&batch, "RetryAttemptsExhausted", attempts, ran.as_ref())
                        .await;
                    break;
                }
                let pause = Duration::from_secs((1u64 << attempts.min(5)).min(MAX_BACKOFF_SECS) / 2);
                let clock = self.lambda.shared.scheduler.clock();
                self.lambda
                    .shared
                    .scheduler
                    .sleep_until(clock.moment_after(pause))
                    .await;
            }
            if let Some(last) = batch.last() {
                if let Err(e) = self.commit(&last.next).await {
                    tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not store a checkpoint");
                    return false;
                }
            }
        }
        true
    }

    async fn invoke(&self, batch: &[ShardRecord]) -> Option<Ran> {
        let role = FunctionRef::parse(&self.mapping.function_arn, None, &self.account, &self.region)
            .ok()
            .and_then(|f| self.lambda.function(&f, &f.arn()).ok())
            .map(|f| f.latest.role)
            .unwrap_or_default();
        let records: Vec<Value> = batch
            .iter()
            .map(|r| kinesis_record(r, &self.shard, self.arn(), &self.region, &role))
            .collect();
        let event = json!({ "Records": records });
        run_mapped(
            &self.lambda,
            &self.mapping,
            &self.account,
            &self.region,
            event.to_string().into_bytes(),
        )
        .await
    }

    fn outcome(&self, batch: &[ShardRecord], ran: Option<Ran>) -> Outcome {
        let Some(ran) = ran else {
            return Outcome::Failed(None);
        };
        if ran.function_error.is_some() {
            return Outcome::Failed(Some(ran));
        }
        if !self.mapping.report_batch_item_failures {
            return Outcome::Done;
        }
        let ids: Vec<&str> = batch.iter().map(|r| r.sequence_number.as_str()).collect();
        match failures(&ran.payload, &ids) {
            Some(failed) if failed.is_empty() => Outcome::Done,
            Some(failed) => {
                let first = ids.iter().position(|id| failed.iter().any(|f| f == id)).unwrap_or(0);
                Outcome::FailedFrom(first, ran)
            }
            None => Outcome::Failed(Some(ran)),
        }
    }

    /// Gives `batch` up, reporting it to the `OnFailure` destination when there is one.
    async fn discard(&self, batch: &[ShardRecord], condition: &str, attempts: u32, ran: Option<&Ran>) {
        tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, condition, "a batch was given up");
        let Some(destination) = &self.settings.on_failure else {
            return;
        };
        let record = failure_record(
            FailedBatch {
                function_arn: &self.mapping.function_arn,
                stream_arn: self.arn(),
                shard: &self.shard,
                batch,
            },
            condition,
            attempts,
            ran,
            self.lambda.now_ms(),
        );
        self.lambda
            .send_to(
                &self.account,
                &self.region,
                destination,
                QueueMessage::plain(record.to_string()),
            )
            .await;
    }
}

/// One record as Lambda's Kinesis event carries it (Lambda's guide, "Example Kinesis record
/// event"; Powertools' `KinesisDataStreamRecord`).
fn kinesis_record(r: &ShardRecord, shard: &str, stream_arn: &str, region: &str, role: &str) -> Value {
    json!({
        "kinesis": {
            "kinesisSchemaVersion": "1.0",
            "partitionKey": r.partition_key,
            "sequenceNumber": r.sequence_number,
            "data": base64::engine::general_purpose::STANDARD.encode(&r.data),
            "approximateArrivalTimestamp": r.arrival_ms as f64 / 1000.0,
        },
        "eventSource": "aws:kinesis",
        "eventVersion": "1.0",
        "eventID": format!("{shard}:{}", r.sequence_number),
        "eventName": "aws:kinesis:record",
        "invokeIdentityArn": role,
        "awsRegion": region,
        "eventSourceARN": stream_arn,
    })
}

/// The batch a failure record describes.
struct FailedBatch<'a> {
    function_arn: &'a str,
    stream_arn: &'a str,
    shard: &'a str,
    batch: &'a [ShardRecord],
}

/// The record Lambda sends to a stream mapping's `OnFailure` destination (Lambda's guide,
/// "Retain discarded batch records for a Kinesis Data Streams event source").
fn failure_record(failed: FailedBatch<'_>, condition: &str, attempts: u32, ran: Option<&Ran>, now_ms: i64) -> Value {
    let (first, last) = (failed.batch.first(), failed.batch.last());
    let response = match ran {
        Some(ran) => json!({
            "statusCode": 200,
            "executedVersion": ran.executed_version,
            // `null` when the function answered with batch item failures (recorded against AWS).
            "functionError": ran.function_error,
        }),
        None => json!({ "statusCode": 500, "executedVersion": "$LATEST", "functionError": "Unhandled" }),
    };
    let mut record = json!({
        "requestContext": {
            "requestId": stratus_core::id::uuid(),
            "functionArn": failed.function_arn,
            "condition": condition,
            "approximateInvokeCount": attempts,
        },
        "responseContext": response,
        "version": "1.0",
        "timestamp": iso_millis(now_ms),
        "KinesisBatchInfo": {
            "shardId": failed.shard,
            "startSequenceNumber": first.map(|r| r.sequence_number.clone()),
            "endSequenceNumber": last.map(|r| r.sequence_number.clone()),
            "approximateArrivalOfFirstRecord": first.map(|r| iso_millis(r.arrival_ms)),
            "approximateArrivalOfLastRecord": last.map(|r| iso_millis(r.arrival_ms)),
            "batchSize": failed.batch.len(),
            "streamArn": failed.stream_arn,
        },
    });
    // A batch given up for its age has no response to report (recorded against AWS).
    if condition == "RecordAgeExceeded" {
        if let Some(fields) = record.as_object_mut() {
            fields.remove("responseContext");
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: &str, arrival_ms: i64) -> ShardRecord {
        ShardRecord {
            sequence_number: seq.into(),
            next: format!("{seq}+"),
            arrival_ms,
            partition_key: "pk".into(),
            data: b"hello".to_vec(),
        }
    }

    #[test]
    fn records_have_the_kinesis_event_shape() {
        let r = kinesis_record(
            &record("49", 1_545_084_650_987),
            "shardId-000000000000",
            "arn:aws:kinesis:us-east-1:000000000000:stream/s",
            "us-east-1",
            "arn:aws:iam::000000000000:role/r",
        );
        assert_eq!(r["kinesis"]["data"], "aGVsbG8=");
        assert_eq!(r["kinesis"]["approximateArrivalTimestamp"], 1_545_084_650.987);
        assert_eq!(r["eventID"], "shardId-000000000000:49");
        assert_eq!(r["eventName"], "aws:kinesis:record");
        assert_eq!(r["invokeIdentityArn"], "arn:aws:iam::000000000000:role/r");
    }

    #[test]
    fn failure_records_describe_the_batch() {
        let batch = [record("1", 0), record("2", 1_000)];
        let failed = FailedBatch {
            function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f",
            stream_arn: "arn:aws:kinesis:us-east-1:000000000000:stream/s",
            shard: "shardId-000000000000",
            batch: &batch,
        };
        let r = failure_record(failed, "RetryAttemptsExhausted", 3, None, 1_000);
        assert_eq!(r["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(r["responseContext"]["functionError"], "Unhandled");
        assert_eq!(r["KinesisBatchInfo"]["startSequenceNumber"], "1");
        assert_eq!(r["KinesisBatchInfo"]["endSequenceNumber"], "2");
        assert_eq!(r["KinesisBatchInfo"]["batchSize"], 2);
        assert_eq!(
            r["KinesisBatchInfo"]["approximateArrivalOfLastRecord"],
            "1970-01-01T00:00:01.000Z"
        );
        assert_eq!(r["timestamp"], "1970-01-01T00:00:01.000Z");
    }
}
