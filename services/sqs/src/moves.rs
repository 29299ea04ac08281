//! Moving messages between queues: dead-letter redrive on receive, and message move tasks
//! that take messages back out of a dead-letter queue.
//!
//! Both move a stored message in the transaction that decides to: it leaves its source
//! queue's key range and enters the destination's at the destination's next sequence number,
//! visible at once. A queue and its dead-letter queue share an account and region, hence a
//! store, so a move is one transaction.
//!
//! A move task is a [`MoveTask`] in the `move_tasks` table, keyed by its source queue's name,
//! a zero byte, its start time (big-endian) and its id, so a queue's tasks list newest first
//! by scanning backwards. Its runner moves a batch per transaction — at most
//! `MaxNumberOfMessagesPerSecond` a second when the task sets a rate — and stops when the
//! source has no visible message left, the task has moved what it counted at its start, or it
//! is cancelled. A task found running with no runner (the process restarted) gets one again
//! when its queue's tasks are next looked at.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use serde::{Deserialize, Serialize};
use stratus_gen_sqs::ListMessageMoveTasksResultEntry;
use stratus_storage::{Direction, KeyRange, Read, Table, Tx};

use crate::error::SqsError;
use crate::message::{State, StoredMessage};
use crate::queue::{self, QueueRecord, RedrivePolicy};
use crate::store::{load_queue, message_key, queue_prefix, MESSAGES, QUEUES};

/// [`MoveTask`]s by source queue name, a zero byte and the task id.
pub(crate) const MOVE_TASKS: Table<MoveTask> = Table::new("move_tasks");
/// Messages moved per transaction by a task without a rate.
const UNLIMITED_BATCH: usize = 1000;
/// AWS's bounds on `MaxNumberOfMessagesPerSecond`.
pub(crate) const RATE_RANGE: std::ops::RangeInclusive<i32> = 1..=500;

/// Moves message `m`, stored under `key`, to the end of queue `to` (whose record the caller
/// stores), visible at `now_ms`.
fn transfer(
    tx: &mut Tx<'_>,
    key: &[u8],
    mut m: StoredMessage,
    to: &mut QueueRecord,
    now_ms: u64,
) -> Result<(), SqsError> {
    MESSAGES.delete(tx, key);
    m.sequence = to.next_sequence;
    to.next_sequence += 1;
    m.visible_at_ms = now_ms;
    m.receipt_token = 0;
    MESSAGES.put(tx, message_key(&to.name, m.sequence), &m)?;
    QUEUES.put(tx, to.name.as_bytes(), to)?;
    Ok(())
}

/// Moves message `m` of queue `source` (ARN `source_arn`), received too often, to the
/// dead-letter queue `policy` names. Returns that queue's name, or `None` when the message
/// stays (the dead-letter queue is gone, of another kind, or does not allow this source).
pub(crate) fn dead_letter(
    tx: &mut Tx<'_>,
    source: &QueueRecord,
    source_arn: &str,
    policy: &RedrivePolicy,
    key: &[u8],
    m: &StoredMessage,
    now_ms: u64,
) -> Result<Option<String>, SqsError> {
    let Some(target) = queue::parse_arn(&policy.dead_letter_target_arn) else {
        return Ok(None);
    };
    let same_scope =
        queue::parse_arn(source_arn).is_some_and(|s| s.region == target.region && s.account == target.account);
    if !same_scope || target.resource == source.name {
        return Ok(None);
    }
    let Ok(mut dlq) = load_queue(tx, &target.resource) else {
        return Ok(None);
    };
    if dlq.is_fifo() != source.is_fifo() || !dlq.allows_redrive_from(source_arn) {
        return Ok(None);
    }
    let mut moved = m.clone();
    moved.dead_letter_source = Some(source_arn.to_owned());
    transfer(tx, key, moved, &mut dlq, now_ms)?;
    Ok(Some(dlq.name))
}

/// A message move task as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct MoveTask {
    pub id: String,
    pub source_arn: String,
    pub destination_arn: Option<String>,
    pub rate: Option<i32>,
    pub status: Status,
    pub moved: i64,
    pub to_move: i64,
    pub failure_reason: Option<String>,
    pub started_ms: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Running,
    Completed,
    Cancelled,
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Running => "RUNNING",
            Status::Completed => "COMPLETED",
            Status::Cancelled => "CANCELLED",
            Status::Failed => "FAILED",
        }
    }
}

impl MoveTask {
    /// The task's key under source queue `queue`.
    pub(crate) fn key(&self, queue: &str) -> Vec<u8> {
        let mut key = queue_prefix(queue);
        key.extend_from_slice(&self.started_ms.to_be_bytes());
        key.extend_from_slice(self.id.as_bytes());
        key
    }

    /// The handle CancelMessageMoveTask takes, in AWS's form: the base64 of a JSON object
    /// naming the task id and the source ARN.
    pub(crate) fn handle(&self) -> String {
        let document = serde_json::json!({ "taskId": self.id, "sourceArn": self.source_arn });
        BASE64_STANDARD.encode(document.to_string())
    }

    pub(crate) fn to_entry(&self) -> ListMessageMoveTasksResultEntry {
        ListMessageMoveTasksResultEntry {
            task_handle: (self.status == Status::Running).then(|| self.handle()),
            status: Some(self.status.as_str().to_owned()),
            source_arn: Some(self.source_arn.clone()),
            destination_arn: self.destination_arn.clone(),
            max_number_of_messages_per_second: self.rate,
            approximate_number_of_messages_moved: self.moved,
            approximate_number_of_messages_to_move: Some(self.to_move),
            failure_reason: self.failure_reason.clone(),
            started_timestamp: i64::try_from(self.started_ms).unwrap_or(i64::MAX),
        }
    }
}

/// The task id and source ARN a handle carries.
pub(crate) fn parse_handle(handle: &str) -> Option<(String, String)> {
    let bytes = BASE64_STANDARD.decode(handle).ok()?;
    let document: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let field = |name: &str| document.get(name)?.as_str().map(str::to_owned);
    Some((field("taskId")?, field("sourceArn")?))
}

/// Source queue `queue`'s tasks in `direction` order (backwards: newest first), at most
/// `limit`.
pub(crate) fn tasks(
    r: &(impl Read + ?Sized),
    queue: &str,
    direction: Direction,
    limit: Option<usize>,
) -> Result<Vec<MoveTask>, SqsError> {
    let found = MOVE_TASKS.scan(r, &KeyRange::prefix(&queue_prefix(queue)), direction, limit)?;
    Ok(found.into_iter().map(|(_, task)| task).collect())
}

/// The visible messages of queue `queue`: what a task started now would move.
pub(crate) fn visible_count(tx: &Tx<'_>, queue: &str, now_ms: u64) -> Result<i64, SqsError> {
    let mut count = 0;
    for (_, m) in MESSAGES.scan_prefix(tx, queue_prefix(queue))? {
        if m.state(now_ms) == State::Visible {
            count += 1;
        }
    }
    Ok(count)
}

/// One step of task `key` (of source queue `queue`): moves up to a batch of messages and
/// stores the task's progress. Returns the task as it now stands and the destination queues
/// that received messages.
pub(crate) fn step(tx: &mut Tx<'_>, queue: &str, key: &[u8], now_ms: u64) -> Result<(MoveTask, Vec<String>), SqsError> {
    let mut task = MOVE_TASKS
        .get(tx, key)?
        .ok_or_else(|| SqsError::ResourceNotFoundException("Task does not exist.".into()))?;
    if task.status != Status::Running {
        return Ok((task, Vec::new()));
    }
    let batch = task.rate.map_or(UNLIMITED_BATCH, |r| usize::try_from(r).unwrap_or(1));
    let remaining = usize::try_from(task.to_move - task.moved).unwrap_or(0);
    let wanted = batch.min(remaining);
    let candidates = MESSAGES.scan_prefix(tx, queue_prefix(queue))?;
    let mut destinations: Vec<String> = Vec::new();
    let mut moved_now = 0;
    for (message_key, mut m) in candidates {
        if moved_now == wanted {
            break;
        }
        if m.state(now_ms) != State::Visible {
            continue;
        }
        let target = task.destination_arn.clone().or_else(|| m.dead_letter_source.clone());
        let Some(name) = target.as_deref().and_then(queue::parse_arn).map(|arn| arn.resource) else {
            task.status = Status::Failed;
            task.failure_reason = Some("CouldNotDetermineMessageSource".into());
            break;
        };
        let Ok(mut destination) = load_queue(tx, &name) else {
            task.status = Status::Failed;
            task.failure_reason = Some("AWS.SimpleQueueService.NonExistentQueue".into());
            break;
        };
        m.receive_count = 0;
        m.first_receive_ms = None;
        m.dead_letter_source = None;
        transfer(tx, &message_key, m, &mut destination, now_ms)?;
        moved_now += 1;
        if !destinations.contains(&name) {
            destinations.push(name);
        }
    }
    task.moved += i64::try_from(moved_now).unwrap_or(0);
    if task.status == Status::Running && (moved_now < wanted || task.moved >= task.to_move) {
        task.status = Status::Completed;
    }
    MOVE_TASKS.put(tx, key, &task)?;
    Ok((task, destinations))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip() {
        let task = MoveTask {
            id: "t-1".into(),
            source_arn: "arn:aws:sqs:us-east-1:000000000000:dlq".into(),
            destination_arn: None,
            rate: None,
            status: Status::Running,
            moved: 0,
            to_move: 0,
            failure_reason: None,
            started_ms: 5,
        };
        assert_eq!(
            parse_handle(&task.handle()),
            Some(("t-1".into(), "arn:aws:sqs:us-east-1:000000000000:dlq".into()))
        );
        let decoded = BASE64_STANDARD.decode(task.handle()).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&decoded).unwrap(),
            serde_json::json!({ "taskId": "t-1", "sourceArn": "arn:aws:sqs:us-east-1:000000000000:dlq" })
        );
        assert_eq!(parse_handle("foobared"), None);
        assert_eq!(parse_handle(&BASE64_STANDARD.encode("{\"taskId\":\"t\"}")), None);
    }
}
