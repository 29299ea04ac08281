//! Long polling: per-queue arrival signals.
//!
//! A receive that finds nothing waits for whichever comes first: a send (or a visibility
//! change) on its queue, signalled through the queue's [`Notify`], or its deadline (or the
//! moment the queue's next delayed or in-flight message becomes visible), a
//! [`Scheduler::sleep_until`](stratus_core::scheduler::Scheduler::sleep_until) — the runtime
//! has no timer driver, and the scheduler's thread runs only while some deadline is pending.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// The arrival signal of every queue that has been polled, by `account/region/name`.
#[derive(Default)]
pub(crate) struct Arrivals {
    queues: Mutex<HashMap<String, Arc<Notify>>>,
}

impl Arrivals {
    /// The signal for queue `key`, created on first use.
    pub(crate) fn of(&self, key: &str) -> Arc<Notify> {
        let mut queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        queues.entry(key.to_owned()).or_default().clone()
    }

    /// Wakes every receive waiting on queue `key`, if any.
    pub(crate) fn signal(&self, key: &str) {
        let queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(notify) = queues.get(key) {
            notify.notify_waiters();
        }
    }

    /// Forgets a deleted queue's signal, waking its waiters.
    pub(crate) fn remove(&self, key: &str) {
        let removed = self.queues.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
        if let Some(notify) = removed {
            notify.notify_waiters();
        }
    }
}
