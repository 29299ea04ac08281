//! The pollers of enabled stream event source mappings (Kinesis and DynamoDB Streams, through
//! the [`StreamSource`] capability): one task per shard, started with the mapping's poller and
//! stopped with it. A shard's task reads from its checkpoint — the position after the last
//! record it is done with, stored in the `stream_checkpoints` table with strict durability
//! before the next batch is read, so a restart neither loses nor re-delivers a committed
//! batch — drops the records no `FilterCriteria` pattern matches, invokes the function with
//! the source's event ([`crate::stream_events`]), and waits for the stream's next write when
//! the shard is read to its tip (woken by the write, no periodic timer).
//!
//! A failed batch holds the shard: it is retried (with a growing pause on the scheduler's
//! clock) until `MaximumRetryAttempts` or `MaximumRecordAgeInSeconds` is spent, split in two
//! first when `BisectBatchOnFunctionError` is on, and with `ReportBatchItemFailures` retried
//! from the first record the function names; a batch given up is reported to the `OnFailure`
//! destination and the shard reads on.
//!
//! `ParallelizationFactor` above 1 reads that many batches at once and runs them side by
//! side, each holding the records of some partition keys, so one key's records stay in order;
//! the checkpoint moves past all of them once all are done. `TumblingWindowInSeconds` groups
//! records by aligned windows of arrival time: each invocation gets the window's `state` and
//! must answer a new one, and the window ends with an invocation marked
//! `isFinalInvokeForWindow`, when a record of a later window arrives or, while the shard is
//! idle, when the scheduler's clock reaches the window's end. The open window is stored with
//! the checkpoint. Windows run one batch at a time (no parallelization).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use serde_json::{json, Value};
use stratus_core::service::capabilities::{ObjectToPut, QueueMessage};
use stratus_core::service::{Caller, ShardRead, ShardRecord, StreamSource, StreamStart};
use stratus_event_pattern::Pattern;
use stratus_storage::Table;
use tokio::sync::watch;

use crate::error;
use crate::invoke::Ran;
use crate::mappings::{MappingRecord, StreamSettings};
use crate::names::FunctionRef;
use crate::polling::{failures, run_mapped};
use crate::queued::Sent;
use crate::service::LambdaService;
use crate::stream_events::{answered_state, failure_record, FailedBatch, Shard, StreamKind, Window};

/// Each shard's checkpoint by `UUID/SHARD`: the position its next read starts at.
pub(crate) const CHECKPOINTS: Table<String> = Table::new("stream_checkpoints");
/// Each shard's open tumbling window by `UUID/SHARD`, written with its checkpoint.
pub(crate) const WINDOWS: Table<Window> = Table::new("stream_windows");

const PRINCIPAL: &str = "lambda.amazonaws.com";
/// The longest pause between retries of a failed batch.
const MAX_BACKOFF_SECS: u64 = 30;

fn checkpoint_key(uuid: &str, shard: &str) -> String {
    format!("{uuid}/{shard}")
}

/// Starts a task per shard of the mapping's stream. Spawned work runs once every service has
/// registered (the binary's spawner is held until then), so the stream's provider, registered
/// after Lambda, is known.
pub(crate) async fn poll(
    lambda: LambdaService,
    account: String,
    region: String,
    mapping: MappingRecord,
    stopped: watch::Receiver<()>,
) {
    let Some(settings) = mapping.stream.clone() else {
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
    let kind = StreamKind::of_arn(&mapping.event_source_arn);
    let patterns = Arc::new(mapping.patterns());
    let mapping = Arc::new(mapping);
    for shard in shards {
        let poller = ShardPoller {
            lambda: lambda.clone(),
            source: source.clone(),
            account: account.clone(),
            region: region.clone(),
            mapping: mapping.clone(),
            settings: settings.clone(),
            kind,
            patterns: patterns.clone(),
            shard,
            reported: Mutex::new(None),
        };
        lambda.shared.spawner.spawn(poller.run(stopped.clone()));
    }
}

/// Deletes the checkpoints and windows of mapping `uuid`, as its deletion does.
pub(crate) fn forget_checkpoints(tx: &mut stratus_storage::Tx<'_>, uuid: &str) -> Result<(), stratus_core::AwsError> {
    let prefix = format!("{uuid}/");
    for (key, _) in CHECKPOINTS.scan_prefix(tx, prefix.as_bytes()).map_err(error::storage)? {
        CHECKPOINTS.delete(tx, key);
    }
    for (key, _) in WINDOWS.scan_prefix(tx, prefix.as_bytes()).map_err(error::storage)? {
        WINDOWS.delete(tx, key);
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
    kind: StreamKind,
    /// The mapping's compiled `FilterCriteria`; empty when every record passes.
    patterns: Arc<Vec<Pattern>>,
    shard: String,
    /// The `LastProcessingResult` this poller last stored.
    reported: Mutex<Option<&'static str>>,
}

/// `LastProcessingResult` after a batch the function processed, and after one it failed.
const PROCESSED: &str = "OK";
const FAILED: &str = "PROBLEM: Function call failed";

/// How one invocation of a batch went.
enum Outcome {
    /// Done, with the window state the function answered when the mapping has windows.
    Done(Option<Value>),
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

    fn tumbling(&self) -> bool {
        self.settings.tumbling_window > 0
    }

    async fn run(self, mut stopped: watch::Receiver<()>) {
        let (mut position, mut window) = match self.start().await {
            Ok(start) => start,
            Err(e) => {
                tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, error = %e, "cannot start reading the shard");
                return;
            }
        };
        let size = usize::try_from(self.mapping.batch_size).unwrap_or(1);
        let lanes = if self.tumbling() {
            1
        } else {
            usize::try_from(self.settings.parallelization_factor)
                .unwrap_or(1)
                .max(1)
        };
        loop {
            let seen = self.source.appends(self.caller(), self.arn());
            let read = tokio::select! {
                read = self.source.read(self.caller(), self.arn(), &self.shard, &position, size * lanes) => read,
                _ = stopped.changed() => return,
            };
            let mut read = match read {
                Ok(read) => read,
                Err(e) => {
                    tracing::warn!(mapping = %self.mapping.uuid, shard = %self.shard, error = %e, "stopped reading the shard");
                    return;
                }
            };
            if !read.records.is_empty() && read.records.len() < size * lanes && self.mapping.maximum_batching_window > 0
            {
                match self.gather(&position, size * lanes, &mut stopped).await {
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
                    if window.is_some() {
                        self.close_window(&mut window, &position, &stopped).await;
                    }
                    return;
                }
                let window_end = self.until_window_end(window.as_ref());
                tokio::select! {
                    _ = self.source.appended(self.caller(), self.arn(), seen) => continue,
                    _ = window_end => {
                        if !self.close_window(&mut window, &position, &stopped).await {
                            return;
                        }
                        continue;
                    }
                    _ = stopped.changed() => return,
                }
            };
            let end = last.next.clone();
            let records = self.passing(read.records);
            // One batch at a time commits as it goes, up to the last record it delivered.
            let committed = lanes == 1 && records.last().is_some_and(|r| r.next == end);
            let done = if self.tumbling() {
                self.process_windowed(records, &mut window, &stopped).await
            } else if lanes > 1 {
                self.process_lanes(records, lanes, size, &stopped).await
            } else {
                self.process(records, &stopped, &mut window, true).await
            };
            if !done {
                return;
            }
            // Past the records filtered out, or run side by side, too.
            if !committed && !self.checkpoint(&end, &window).await {
                return;
            }
            position = end;
        }
    }

    /// The records a `FilterCriteria` pattern matches (all when the mapping has none); the
    /// others are dropped, as Lambda drops them.
    fn passing(&self, records: Vec<ShardRecord>) -> Vec<ShardRecord> {
        if self.patterns.is_empty() {
            return records;
        }
        let at = self.at("");
        records
            .into_iter()
            .filter(|r| {
                let seen = self.kind.filterable(&self.kind.record(r, &at));
                self.patterns.iter().any(|p| p.matches(&seen))
            })
            .collect()
    }

    /// Resolves when the scheduler's clock reaches the end of the open window; never when
    /// there is none.
    async fn until_window_end(&self, window: Option<&Window>) {
        let Some(end_ms) = window.map(|w| w.end_ms) else {
            return std::future::pending().await;
        };
        let wait = u64::try_from(end_ms - self.lambda.now_ms()).unwrap_or(0);
        let scheduler = &self.lambda.shared.scheduler;
        scheduler
            .sleep_until(scheduler.clock().moment_after(Duration::from_millis(wait)))
            .await;
    }

    /// Runs `records` window by window: the open window ends (its final invocation) before a
    /// record of a later one is delivered.
    async fn process_windowed(
        &self,
        records: Vec<ShardRecord>,
        window: &mut Option<Window>,
        stopped: &watch::Receiver<()>,
    ) -> bool {
        let mut records = VecDeque::from(records);
        while let Some(first) = records.front() {
            let arrival = first.arrival_ms;
            if window.as_ref().is_some_and(|w| !w.holds(arrival)) && !self.end_window(window, stopped).await {
                return false;
            }
            let open = window.get_or_insert_with(|| Window::of(arrival, self.settings.tumbling_window));
            let run_end = records
                .iter()
                .position(|r| !open.holds(r.arrival_ms))
                .unwrap_or(records.len());
            let run: Vec<ShardRecord> = records.drain(..run_end).collect();
            if !self.process(run, stopped, window, true).await {
                return false;
            }
        }
        true
    }

    /// Ends the open window with its final invocation, then stores that no window is open
    /// at `position`; `false` when the poller was stopped first.
    async fn close_window(&self, window: &mut Option<Window>, position: &str, stopped: &watch::Receiver<()>) -> bool {
        if !self.end_window(window, stopped).await {
            return false;
        }
        match self.commit(position, None).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not store a checkpoint");
                false
            }
        }
    }

    /// The window's final invocation, retried until it succeeds (Lambda's guide: a failed
    /// final invocation holds the shard); `false` when the poller was stopped first.
    async fn end_window(&self, window: &mut Option<Window>, stopped: &watch::Receiver<()>) -> bool {
        let Some(open) = window.as_ref() else {
            return true;
        };
        let event = open.event(Vec::new(), &self.at(&self.role()), true);
        let mut attempts = 0u32;
        loop {
            if stopped.has_changed().is_err() {
                return false;
            }
            attempts += 1;
            let ran = run_mapped(
                &self.lambda,
                &self.mapping,
                &self.account,
                &self.region,
                event.to_string().into_bytes(),
            )
            .await;
            if ran.is_some_and(|r| r.function_error.is_none()) {
                *window = None;
                return true;
            }
            self.pause(attempts).await;
        }
    }

    /// Runs `records` as `lanes` batches side by side, each of the records of some partition
    /// keys (in their order), `size` at a time; the caller commits past all of them.
    async fn process_lanes(
        &self,
        records: Vec<ShardRecord>,
        lanes: usize,
        size: usize,
        stopped: &watch::Receiver<()>,
    ) -> bool {
        let mut by_lane: Vec<Vec<ShardRecord>> = vec![Vec::new(); lanes];
        for r in records {
            by_lane[lane_of(&r.partition_key, lanes)].push(r);
        }
        let runs = by_lane.into_iter().filter(|l| !l.is_empty()).map(|lane| async move {
            for chunk in lane.chunks(size.max(1)) {
                if !self.process(chunk.to_vec(), stopped, &mut None, false).await {
                    return false;
                }
            }
            true
        });
        all_done(runs.collect()).await
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

    /// The stored checkpoint and open window, else the mapping's starting position, stored at
    /// once so that a `LATEST` mapping restarted later reads on from where it began.
    async fn start(&self) -> Result<(String, Option<Window>), stratus_core::AwsError> {
        let store = self.lambda.store(&self.account, &self.region)?;
        let key = checkpoint_key(&self.mapping.uuid, &self.shard);
        if let Some(position) = CHECKPOINTS.get(&*store, key.as_bytes()).map_err(error::storage)? {
            let window = WINDOWS.get(&*store, key.as_bytes()).map_err(error::storage)?;
            return Ok((position, window));
        }
        let start = match self.settings.starting_position.as_str() {
            "TRIM_HORIZON" => StreamStart::TrimHorizon,
            "AT_TIMESTAMP" => StreamStart::AtTimestamp(self.settings.starting_timestamp_ms.unwrap_or_default()),
            _ => StreamStart::Latest,
        };
        let position = self.source.start(self.caller(), self.arn(), &self.shard, start).await?;
        self.commit(&position, None).await?;
        Ok((position, None))
    }

    /// Stores the shard's checkpoint, and its open window when the mapping has windows.
    async fn commit(&self, position: &str, window: Option<&Window>) -> Result<(), stratus_core::AwsError> {
        let (key, position) = (checkpoint_key(&self.mapping.uuid, &self.shard), position.to_owned());
        let (uuid, window, tumbling) = (self.mapping.uuid.clone(), window.cloned(), self.tumbling());
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
                CHECKPOINTS.put(tx, key.as_bytes(), &position).map_err(error::storage)?;
                match window.filter(|_| tumbling) {
                    Some(window) => WINDOWS.put(tx, key.as_bytes(), &window).map_err(error::storage),
                    None => {
                        WINDOWS.delete(tx, key.as_bytes());
                        Ok(())
                    }
                }
            })
            .await
    }

    /// Waits before another attempt, longer after each (on the scheduler's clock).
    async fn pause(&self, attempts: u32) {
        let pause = Duration::from_secs((1u64 << attempts.min(5)).min(MAX_BACKOFF_SECS) / 2);
        let scheduler = &self.lambda.shared.scheduler;
        scheduler.sleep_until(scheduler.clock().moment_after(pause)).await;
    }

    /// The function's role, which Kinesis records name as `invokeIdentityArn`.
    fn role(&self) -> String {
        FunctionRef::parse(&self.mapping.function_arn, None, &self.account, &self.region)
            .ok()
            .and_then(|f| self.lambda.function(&f, &f.arn()).ok())
            .map(|f| f.latest.role)
            .unwrap_or_default()
    }

    fn at<'a>(&'a self, role: &'a str) -> Shard<'a> {
        Shard {
            stream_arn: self.arn(),
            shard_id: &self.shard,
            region: &self.region,
            role,
        }
    }

    /// Delivers `records` until each part of them is done or given up, committing the
    /// checkpoint (and the window's new state) after each when `checkpoints` is on; `false`
    /// when the poller was stopped first.
    async fn process(
        &self,
        records: Vec<ShardRecord>,
        stopped: &watch::Receiver<()>,
        window: &mut Option<Window>,
        checkpoints: bool,
    ) -> bool {
        let mut pending = VecDeque::from([records]);
        while let Some(mut batch) = pending.pop_front() {
            if batch.is_empty() {
                continue;
            }
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
                let ran = self.invoke(&batch, window.as_ref()).await;
                let ran = match self.outcome(&batch, ran) {
                    Outcome::Done(state) => {
                        if let (Some(open), Some(state)) = (window.as_mut(), state) {
                            open.state = state;
                        }
                        self.report(PROCESSED).await;
                        break;
                    }
                    Outcome::FailedFrom(index, ran) => {
                        if index > 0 {
                            if checkpoints && !self.checkpoint(&batch[index - 1].next, window).await {
                                return false;
                            }
                            batch.drain(..index);
                            // The narrower batch is a batch of its own, with its own retries
                            // (recorded against AWS: its invoke count starts again).
                            attempts = 0;
                            continue;
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
                self.report(FAILED).await;
                let retries = i64::from(attempts) - 1;
                let max_retries = i64::from(self.settings.maximum_retry_attempts);
                if max_retries >= 0 && retries >= max_retries {
                    self.discard(&batch, "RetryAttemptsExhausted", attempts, ran.as_ref())
                        .await;
                    break;
                }
                self.pause(attempts).await;
            }
            if let Some(last) = batch.last() {
                if checkpoints && !self.checkpoint(&last.next, window).await {
                    return false;
                }
            }
        }
        true
    }

    /// Stores `result` as the mapping's `LastProcessingResult` when it differs from what this
    /// poller stored last (a write only when the result changes).
    async fn report(&self, result: &'static str) {
        {
            let mut reported = self.reported.lock().unwrap_or_else(PoisonError::into_inner);
            if *reported == Some(result) {
                return;
            }
            *reported = Some(result);
        }
        let uuid = self.mapping.uuid.clone();
        let stored = self
            .lambda
            .transact(&self.account, &self.region, move |tx| {
                let Some(mut mapping) = crate::mappings::MAPPINGS
                    .get(tx, uuid.as_bytes())
                    .map_err(error::storage)?
                else {
                    return Ok(());
                };
                if let Some(stream) = mapping.stream.as_mut() {
                    stream.last_processing_result = Some(result.to_owned());
                }
                crate::mappings::MAPPINGS
                    .put(tx, uuid.as_bytes(), &mapping)
                    .map_err(error::storage)
            })
            .await;
        if let Err(e) = stored {
            tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not store the processing result");
        }
    }

    /// [`commit`](Self::commit), logging a failure; `false` then.
    async fn checkpoint(&self, position: &str, window: &Option<Window>) -> bool {
        match self.commit(position, window.as_ref()).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not store a checkpoint");
                false
            }
        }
    }

    /// The event the function is given for `batch`.
    fn event(&self, batch: &[ShardRecord], window: Option<&Window>) -> Value {
        let role = self.role();
        let at = self.at(&role);
        let records: Vec<Value> = batch.iter().map(|r| self.kind.record(r, &at)).collect();
        match window {
            Some(window) => window.event(records, &at, false),
            None => json!({ "Records": records }),
        }
    }

    async fn invoke(&self, batch: &[ShardRecord], window: Option<&Window>) -> Option<Ran> {
        let event = self.event(batch, window);
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
        // With windows, an answer without `state` fails the batch (Lambda's guide).
        let state = if self.tumbling() {
            match answered_state(&ran.payload) {
                Some(state) => Some(state),
                None => return Outcome::Failed(Some(ran)),
            }
        } else {
            None
        };
        if !self.mapping.report_batch_item_failures {
            return Outcome::Done(state);
        }
        let ids: Vec<&str> = batch.iter().map(|r| r.sequence_number.as_str()).collect();
        match failures(&ran.payload, &ids) {
            Some(failed) if failed.is_empty() => Outcome::Done(state),
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
        let now_ms = self.lambda.now_ms();
        let mut record = failure_record(
            FailedBatch {
                kind: self.kind,
                function_arn: &self.mapping.function_arn,
                stream_arn: self.arn(),
                shard: &self.shard,
                batch,
            },
            condition,
            attempts,
            ran,
            now_ms,
        );
        if let Some(bucket) = destination.strip_prefix("arn:aws:s3:::") {
            // An S3 destination gets the invocation's event too (Lambda's guide, "Retain
            // discarded records for a DynamoDB event source").
            record["payload"] = self.event(batch, None);
            self.write_failure(bucket, &record, now_ms).await;
            return;
        }
        self.lambda
            .send_to(
                &self.account,
                &self.region,
                destination,
                Sent::plain(QueueMessage::plain(record.to_string())),
            )
            .await;
    }

    /// Writes a failure record to `bucket` at the key AWS uses:
    /// `aws/lambda/<mapping UUID>/<shard>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<UUID>`.
    async fn write_failure(&self, bucket: &str, record: &Value, now_ms: i64) {
        let Some(objects) = self.lambda.shared.late.get().and_then(|p| p.object_sink.clone()) else {
            tracing::warn!(mapping = %self.mapping.uuid, bucket, "S3 is not served: failure record dropped");
            return;
        };
        let (y, mo, d, h, mi, sec) = stratus_core::calendar::civil_from_seconds(now_ms.div_euclid(1000));
        let key = format!(
            "aws/lambda/{}/{}/{y:04}/{mo:02}/{d:02}/{y:04}-{mo:02}-{d:02}T{h:02}.{mi:02}.{sec:02}-{}",
            self.mapping.uuid,
            self.shard,
            stratus_core::id::uuid()
        );
        let object = ObjectToPut {
            bucket: bucket.to_owned(),
            key,
            body: record.to_string().into_bytes(),
            ..ObjectToPut::default()
        };
        if let Err(e) = objects.put_object(self.caller(), object).await {
            tracing::warn!(mapping = %self.mapping.uuid, bucket, error = %e, "could not write a failure record");
        }
    }
}

/// The lane of `ParallelizationFactor` a partition key's records run in (FNV-1a, so a key
/// keeps its lane across reads and restarts).
fn lane_of(partition_key: &str, lanes: usize) -> usize {
    let hash = partition_key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % lanes.max(1) as u64) as usize
}

/// Runs `runs` side by side on this task; whether every one of them finished.
async fn all_done<F: Future<Output = bool>>(runs: Vec<F>) -> bool {
    let mut runs: Vec<Option<Pin<Box<F>>>> = runs.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut all = true;
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for slot in &mut runs {
            if let Some(run) = slot {
                match run.as_mut().poll(cx) {
                    Poll::Ready(done) => {
                        all &= done;
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(all)
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_key_keeps_its_lane() {
        let lanes: Vec<usize> = (0..100).map(|i| lane_of(&format!("key-{i}"), 4)).collect();
        assert!(lanes.iter().all(|&l| l < 4));
        assert!((0..4).all(|l| lanes.contains(&l)), "keys spread over every lane");
        assert_eq!(lane_of("key-7", 4), lanes[7]);
        assert_eq!(lane_of("anything", 1), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn runs_side_by_side_all_finish() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let waiting = async move { rx.await.is_ok() };
        let sending = async move { tx.send(()).is_ok() };
        // The first waits on the second: done only if both run at once.
        assert!(
            all_done(vec![
                Box::pin(waiting) as Pin<Box<dyn Future<Output = bool>>>,
                Box::pin(sending)
            ])
            .await
        );
        let outcomes: Vec<Pin<Box<dyn Future<Output = bool>>>> =
            vec![Box::pin(async { true }), Box::pin(async { false })];
        assert!(!all_done(outcomes).await);
    }
}
