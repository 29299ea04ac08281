//! When buffers are delivered: one scheduler job ([`DueJob`](stratus_core::scheduler::DueJob))
//! at the earliest moment any stream's buffer falls due — its interval since the oldest
//! record, its size hint reached, a failed batch's next attempt — which starts a delivery
//! task per due stream on the binary's runtime. The job exists only while some stream buffers
//! records, is found again from the stores after a restart, and on shutdown every buffer is
//! delivered whatever its hints say.

use stratus_core::service::BoxFuture;
use stratus_core::service::Shutdown;

use crate::buffer::{finish_batch, heads, retry_batch, take_batch, HEADS};
use crate::delivery::{self, Job, Outcome, HTTP_MOST_RECORDS};
use crate::destination::Delivery;
use crate::records::STREAMS;
use crate::service::{lock, FirehoseService, StreamKey};

impl FirehoseService {
    /// Makes sure buffers are looked at by `due_ms`.
    pub(crate) fn schedule(&self, due_ms: i64) {
        let firehose = self.clone();
        self.shared.due.by(due_ms, move || firehose.sweep());
    }

    /// Delivers what an earlier process left buffered, as it falls due.
    pub(crate) fn resume_buffers(&self) {
        if let Some(due) = self.sweep() {
            self.schedule(due);
        }
    }

    /// Starts a delivery of every buffer that is due, and answers when the next one is.
    fn sweep(&self) -> Option<i64> {
        let now = self.now_ms();
        let mut earliest: Option<i64> = None;
        for (account, region, store) in self.stores() {
            let Ok(heads) = heads(&*store) else { continue };
            for (name, head) in heads {
                let key = StreamKey {
                    account: account.clone(),
                    region: region.clone(),
                    name,
                };
                if lock(&self.shared.flushing).contains(&key) {
                    continue;
                }
                let Ok(Some(stream)) = STREAMS.get(&*store, key.name.as_bytes()) else {
                    continue;
                };
                let delivery = Delivery::of(stream.destination.kind, &stream.destination.config);
                let Some(due) = delivery.hints().and_then(|hints| head.due_ms(hints)) else {
                    continue;
                };
                if due <= now {
                    self.start_flush(key, false);
                } else {
                    earliest = Some(earliest.map_or(due, |e| e.min(due)));
                }
            }
        }
        earliest
    }

    /// Starts delivering `key`'s buffer unless a delivery of it is under way.
    fn start_flush(&self, key: StreamKey, force: bool) {
        if !lock(&self.shared.flushing).insert(key.clone()) {
            return;
        }
        let firehose = self.clone();
        self.shared
            .spawner
            .spawn(async move { firehose.flush(key, force).await });
    }

    /// Delivers `key`'s due batches one after another (every batch, when `force`), then
    /// leaves the job at its buffer's next due moment.
    async fn flush(&self, key: StreamKey, force: bool) {
        loop {
            match self.attempt(&key, force).await {
                Ok(Some(Outcome::Done)) => continue,
                Ok(Some(Outcome::Retry(_)) | None) => break,
                Err(e) => {
                    tracing::error!(stream = %key.name, error = %e, "firehose: a buffer could not be delivered");
                    break;
                }
            }
        }
        lock(&self.shared.flushing).remove(&key);
        let name = key.name.clone();
        let next = self
            .read(&key.account, &key.region, move |store| {
                let Some(stream) = STREAMS.get(store, name.as_bytes())? else {
                    return Ok(None);
                };
                let hints = Delivery::of(stream.destination.kind, &stream.destination.config).hints();
                Ok(HEADS
                    .get(store, name.as_bytes())?
                    .and_then(|head| hints.and_then(|h| head.due_ms(h))))
            })
            .await;
        match next {
            Ok(Some(due)) if force => self.schedule(due.max(self.now_ms() + 1)),
            Ok(Some(due)) => self.schedule(due),
            Ok(None) => {}
            Err(e) => tracing::error!(stream = %key.name, error = %e, "firehose: could not read a buffer"),
        }
    }

    /// One attempt at the stream's first batch, if one is due; `None` when nothing is.
    async fn attempt(&self, key: &StreamKey, force: bool) -> crate::error::Result<Option<Outcome>> {
        let now = self.now_ms();
        let name = key.name.clone();
        let taken = self
            .transact(&key.account, &key.region, move |tx| {
                let Some(stream) = STREAMS.get(tx, name.as_bytes())? else {
                    return Ok(None);
                };
                let delivery = Delivery::of(stream.destination.kind, &stream.destination.config);
                let Some(hints) = delivery.hints() else {
                    return Ok(None);
                };
                let due = HEADS.get(tx, name.as_bytes())?.and_then(|head| head.due_ms(hints));
                if !due.is_some_and(|due| due <= now || force) {
                    return Ok(None);
                }
                let most = match delivery {
                    Delivery::Http { .. } => HTTP_MOST_RECORDS,
                    _ => usize::MAX,
                };
                Ok(take_batch(tx, &name, hints, most, now)?.map(|(batch, records)| (stream, delivery, batch, records)))
            })
            .await?;
        let Some((stream, delivery, mut batch, records)) = taken else {
            return Ok(None);
        };
        let job = Job {
            account: &key.account,
            region: &key.region,
            stream: &stream,
            records: &records,
        };
        let outcome = match &delivery {
            Delivery::S3(s3) => delivery::to_s3(self, &job, s3, &mut batch).await,
            Delivery::Http { settings, access_key } => {
                delivery::to_http(self, &job, settings, access_key.as_deref(), &mut batch).await
            }
            Delivery::None => Outcome::Done,
        };
        let name = key.name.clone();
        self.transact(&key.account, &key.region, move |tx| {
            match outcome {
                Outcome::Done => drop(finish_batch(tx, &name, &batch.id)?),
                Outcome::Retry(_) => retry_batch(tx, &name, &batch)?,
            }
            Ok(())
        })
        .await?;
        Ok(Some(outcome))
    }

    /// Delivers every buffer now (at shutdown). A stream whose delivery is under way is left
    /// to it; if the process ends first, its batch is in storage for the next start.
    async fn deliver_everything(&self) {
        let mut keys = Vec::new();
        for (account, region, store) in self.stores() {
            for (name, _) in heads(&*store).unwrap_or_default() {
                keys.push(StreamKey {
                    account: account.clone(),
                    region: region.clone(),
                    name,
                });
            }
        }
        for key in keys {
            if lock(&self.shared.flushing).insert(key.clone()) {
                self.flush(key, true).await;
            }
        }
    }
}

impl Shutdown for FirehoseService {
    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.deliver_everything())
    }
}
