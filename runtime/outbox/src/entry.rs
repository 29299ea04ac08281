//! One delivery waiting in an outbox, and its key.

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::TupleKey;

/// A delivery on its way: the service's own record of what to deliver, and the outbox's
/// record of how it has gone so far.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Entry<T> {
    /// What the service delivers.
    pub item: T,
    /// Attempts made so far (0 on the first).
    pub attempts: u32,
    /// When the delivery was accepted, in milliseconds since the epoch.
    pub accepted_ms: i64,
    /// When the next attempt is due, in milliseconds since the epoch.
    pub due_ms: i64,
    /// Orders entries due at the same moment as they were accepted.
    sequence: u64,
}

impl<T> Entry<T> {
    /// A new delivery of `item`, accepted and due at `now_ms`, `sequence` ordering it among
    /// those due at the same moment.
    pub(crate) fn new(item: T, now_ms: i64, sequence: u64) -> Entry<T> {
        Entry {
            item,
            attempts: 0,
            accepted_ms: now_ms,
            due_ms: now_ms,
            sequence,
        }
    }

    /// The same delivery after one more failed attempt, due at `due_ms`.
    pub(crate) fn retried(self, due_ms: i64) -> Entry<T> {
        Entry {
            attempts: self.attempts + 1,
            due_ms,
            ..self
        }
    }

    /// Its key: due time, then sequence, so a scan meets entries in the order they fall due.
    pub(crate) fn key(&self) -> Vec<u8> {
        TupleKey::new()
            .u64(u64::try_from(self.due_ms).unwrap_or(0))
            .u64(self.sequence)
            .into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_sort_by_due_time_then_by_acceptance() {
        let first = Entry::new("a", 2_000, 7);
        let second = Entry::new("b", 2_000, 8);
        let earlier_due = Entry::new("c", 1_000, 9);
        assert!(first.key() < second.key());
        assert!(earlier_due.key() < first.key());
        let retried = first.clone().retried(3_000);
        assert_eq!(retried.attempts, 1);
        assert!(retried.key() > second.key());
    }
}
