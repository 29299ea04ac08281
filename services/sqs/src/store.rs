//! The tables of an `sqs` store and their keys.

use stratus_storage::{Direction, KeyRange, Read, Table, Tx};

use crate::error::SqsError;
use crate::message::StoredMessage;
use crate::queue::QueueRecord;

pub(crate) const QUEUES: Table<QueueRecord> = Table::new("queues");
pub(crate) const MESSAGES: Table<StoredMessage> = Table::new("messages");
pub(crate) const DEDUP: Table<Dedup> = Table::new("dedup");
/// When each recently deleted queue name was deleted (milliseconds since the epoch).
pub(crate) const DELETED: &str = "deleted";

/// A FIFO deduplication entry.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Dedup {
    pub(crate) message_id: String,
    pub(crate) sequence: u64,
    pub(crate) expires_ms: u64,
}

/// Reads queue `name` from a store or inside a transaction.
pub(crate) fn load_queue(r: &(impl Read + ?Sized), name: &str) -> Result<QueueRecord, SqsError> {
    QUEUES.get(r, name)?.ok_or(SqsError::QueueDoesNotExist)
}

pub(crate) fn queue_prefix(name: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(name.len() + 9);
    key.extend_from_slice(name.as_bytes());
    key.push(0);
    key
}

pub(crate) fn message_key(name: &str, sequence: u64) -> Vec<u8> {
    let mut key = queue_prefix(name);
    key.extend_from_slice(&sequence.to_be_bytes());
    key
}

/// Deletes every entry of `table` under queue `name`.
pub(crate) fn delete_all(tx: &mut Tx<'_>, table: &str, name: &str) -> Result<(), SqsError> {
    let keys = tx.scan(table, &KeyRange::prefix(&queue_prefix(name)), Direction::Forward, None)?;
    for (key, _) in keys {
        tx.delete(table, key);
    }
    Ok(())
}

/// The names of the queues whose RedrivePolicy targets `dlq_arn`, in name order.
pub(crate) fn dead_letter_sources(r: &(impl Read + ?Sized), dlq_arn: &str) -> Result<Vec<String>, SqsError> {
    let mut names = Vec::new();
    for (_, record) in QUEUES.scan(r, &KeyRange::all(), Direction::Forward, None)? {
        if record
            .redrive_policy()
            .is_some_and(|p| p.dead_letter_target_arn == dlq_arn)
        {
            names.push(record.name);
        }
    }
    Ok(names)
}
