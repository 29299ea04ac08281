//! Receiving, and acting on received messages by receipt handle.

use std::time::Duration;

use stratus_core::clock::Moment;
use stratus_core::id;
use stratus_storage::{Direction, KeyRange, Tx};

use crate::error::SqsError;
use crate::message::{self, State, StoredMessage};
use crate::moves;
use crate::queue_ref::QueueRef;
use crate::service::SqsService;
use crate::store::{load_queue, message_key, queue_prefix, MESSAGES};

/// Messages read per storage scan while looking for deliverable ones.
const SCAN_CHUNK: usize = 256;

/// What one receive attempt found.
pub(crate) struct Taken {
    pub(crate) delivered: Vec<StoredMessage>,
    /// Whether the queue is a FIFO queue (whose messages carry sequence numbers).
    pub(crate) fifo: bool,
    /// When the queue's next delayed or in-flight message becomes visible, if any.
    pub(crate) next_visible: Option<u64>,
    /// Dead-letter queues that received messages received too often.
    pub(crate) dead_lettered: Vec<String>,
}

impl SqsService {
    /// Applies `change` to the message each receipt handle names, in one transaction: the
    /// message if it still exists, and whether the handle is its latest receive's.
    pub(crate) async fn with_received<R, F>(
        &self,
        queue: &QueueRef,
        handles: Vec<String>,
        change: F,
    ) -> Result<Vec<Result<R, SqsError>>, SqsError>
    where
        R: Send + 'static,
        F: Fn(&mut Tx<'_>, usize, Vec<u8>, Option<(StoredMessage, bool)>, &str) -> Result<R, SqsError> + Send + 'static,
    {
        let name = queue.name.clone();
        self.write(queue, move |tx| {
            load_queue(tx, &name)?;
            let results = handles
                .iter()
                .enumerate()
                .map(|(i, handle)| {
                    let (sequence, token) = message::parse_receipt_handle(handle)?;
                    let key = message_key(&name, sequence);
                    let found = MESSAGES.get(tx, &key)?;
                    let found = found.map(|m| {
                        let latest = m.receipt_token == token;
                        (m, latest)
                    });
                    change(tx, i, key, found, handle)
                })
                .collect();
            Ok(results)
        })
        .await
    }

    pub(crate) async fn delete_messages(
        &self,
        queue: &QueueRef,
        handles: Vec<String>,
    ) -> Result<Vec<Result<(), SqsError>>, SqsError> {
        // A stale handle (the message was received again, or is gone) succeeds without effect.
        // A FIFO message's handle expires with its visibility timeout: the message may
        // already be on its way to another consumer.
        let fifo = self.queue(queue)?.is_fifo();
        let now = self.now_ms();
        let results = self
            .with_received(queue, handles, move |tx, _, key, found, handle| match found {
                Some((m, true)) if fifo && m.state(now) == State::Visible => Err(SqsError::invalid_value(
                    "ReceiptHandle",
                    handle,
                    "The receipt handle has expired.",
                )),
                Some((_, true)) => {
                    MESSAGES.delete(tx, key);
                    Ok(())
                }
                _ => Ok(()),
            })
            .await?;
        // Deleting a FIFO group's message in flight releases the group to a waiting long poll;
        // a standard queue's delete frees nothing a poll waits for.
        if fifo {
            self.shared.arrivals.signal(&queue.signal_key());
        }
        Ok(results)
    }

    pub(crate) async fn change_visibility(
        &self,
        queue: &QueueRef,
        changes: Vec<(String, i32)>,
    ) -> Result<Vec<Result<(), SqsError>>, SqsError> {
        let (handles, timeouts): (Vec<String>, Vec<i32>) = changes.into_iter().unzip();
        let now = self.now_ms();
        let results = self
            .with_received(queue, handles, move |tx, i, key, found, handle| {
                let seconds = visibility_timeout(timeouts[i])?;
                // AWS changes the message's visibility by any of its receipt handles, and also
                // once its visibility timeout has expired.
                let (mut m, _) = found.ok_or_else(|| {
                    SqsError::invalid_value(
                        "ReceiptHandle",
                        handle,
                        "Message does not exist or is not available for visibility timeout change.",
                    )
                })?;
                if m.receive_count == 0 {
                    return Err(SqsError::MessageNotInflight);
                }
                m.visible_at_ms = now + seconds * 1000;
                MESSAGES.put(tx, key, &m)?;
                Ok(())
            })
            .await?;
        // A message made visible again may be what a long poll waits for.
        self.shared.arrivals.signal(&queue.signal_key());
        Ok(results)
    }

    /// Receives up to `max` messages, waiting while there are none: until `deadline` (a long
    /// poll), or without one for as long as it takes. A send or a visibility change on the
    /// queue wakes the wait, as does the moment its next delayed or in-flight message becomes
    /// visible; nothing else does. Answers the messages and whether the queue is FIFO.
    pub(crate) async fn receive_waiting(
        &self,
        queue: &QueueRef,
        max: usize,
        visibility: Option<u64>,
        deadline: Option<Moment>,
    ) -> Result<(Vec<StoredMessage>, bool), SqsError> {
        let clock = self.shared.scheduler.clock();
        let arrivals = self.shared.arrivals.of(&queue.signal_key());
        loop {
            let notified = arrivals.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let Taken {
                delivered,
                fifo,
                next_visible,
                ..
            } = self.take(queue, max, visibility).await?;
            if !delivered.is_empty() || deadline.is_some_and(|d| clock.moment() >= d) {
                return Ok((delivered, fifo));
            }
            let visible =
                next_visible.map(|at| clock.moment_after(Duration::from_millis(at.saturating_sub(self.now_ms()))));
            let wake = match (visible, deadline) {
                (Some(v), Some(d)) => Some(v.min(d)),
                (v, d) => v.or(d),
            };
            match wake {
                Some(wake) => {
                    let alarm = self.shared.scheduler.sleep_until(wake);
                    tokio::select! {
                        _ = &mut notified => {}
                        _ = alarm => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// One attempt at a receive: the messages delivered and, when none is deliverable, when
    /// the next one becomes visible.
    pub(crate) async fn take(&self, queue: &QueueRef, max: usize, visibility: Option<u64>) -> Result<Taken, SqsError> {
        let name = queue.name.clone();
        let arn = queue.arn();
        let now = self.now_ms();
        let taken = self
            .write(queue, move |tx| {
                let record = load_queue(tx, &name)?;
                let retention_ms = record.number("MessageRetentionPeriod") * 1000;
                let visibility = visibility.unwrap_or_else(|| record.number("VisibilityTimeout"));
                let prefix = queue_prefix(&name);
                let redrive = record.redrive_policy();
                let fifo = record.is_fifo();
                let mut dead_lettered = Vec::new();
                let mut seen: Vec<(Vec<u8>, StoredMessage)> = Vec::new();
                let mut after: Option<Vec<u8>> = None;
                let chosen = loop {
                    let range = match &after {
                        Some(last) => {
                            KeyRange::between(std::ops::Bound::Excluded(last), KeyRange::prefix(&prefix).end())
                        }
                        None => KeyRange::prefix(&prefix),
                    };
                    let chunk = MESSAGES.scan(tx, &range, Direction::Forward, Some(SCAN_CHUNK))?;
                    let exhausted = chunk.len() < SCAN_CHUNK;
                    after = chunk.last().map(|(k, _)| k.clone());
                    for (key, m) in chunk {
                        if m.sent_ms + retention_ms <= now {
                            MESSAGES.delete(tx, key);
                            continue;
                        }
                        // A visible message already received as often as the redrive policy
                        // allows goes to the dead-letter queue instead of being received again.
                        let over_limit = redrive
                            .as_ref()
                            .filter(|p| m.state(now) == State::Visible && m.receive_count >= p.max_receive_count);
                        if let Some(policy) = over_limit {
                            if let Some(dlq) = moves::dead_letter(tx, &record, &arn, policy, &key, &m, now)? {
                                dead_lettered.push(dlq);
                                continue;
                            }
                        }
                        seen.push((key, m));
                    }
                    // A FIFO receive sees the whole queue: a group's turn and run depend on
                    // all of its messages.
                    if !exhausted && fifo {
                        continue;
                    }
                    let chosen = message::deliverable(seen.iter().map(|(_, m)| m), now, max, fifo);
                    if exhausted || chosen.len() == max {
                        break chosen;
                    }
                };
                let next_visible = seen.iter().map(|(_, m)| m.visible_at_ms).filter(|&t| t > now).min();
                let mut delivered = Vec::with_capacity(chosen.len());
                for i in chosen {
                    let (key, m) = &mut seen[i];
                    m.receive(now, visibility, id::random_u64() | 1);
                    MESSAGES.put(tx, key.clone(), m)?;
                    delivered.push(m.clone());
                }
                Ok(Taken {
                    delivered,
                    fifo,
                    next_visible,
                    dead_lettered,
                })
            })
            .await?;
        for dlq in &taken.dead_lettered {
            self.shared.arrivals.signal(&queue.sibling(dlq).signal_key());
        }
        Ok(taken)
    }
}

pub(crate) fn visibility_timeout(seconds: i32) -> Result<u64, SqsError> {
    match u64::try_from(seconds) {
        Ok(s) if s <= 43_200 => Ok(s),
        _ => Err(SqsError::invalid_value(
            "VisibilityTimeout",
            seconds,
            "Must be between 0 and 43200, if provided.",
        )),
    }
}
