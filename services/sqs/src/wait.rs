//! Long polling without a timer driver: per-queue arrival signals and one alarm thread.
//!
//! A receive that finds nothing waits for whichever comes first: a send (or a visibility
//! change) on its queue, signalled through the queue's [`Notify`], or an alarm at its
//! deadline (or at the moment the queue's next delayed or in-flight message becomes visible).
//! Alarms are kept by one thread, started by the first long poll, that sleeps on a condition
//! variable until the earliest alarm is due and without a timeout when none is pending, so an
//! idle server has no wakeups.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

use tokio::sync::{oneshot, Notify};

/// The arrival signal of every queue that has been polled, by `account/region/name`.
#[derive(Default)]
pub struct Arrivals {
    queues: Mutex<HashMap<String, Arc<Notify>>>,
}

impl Arrivals {
    /// The signal for queue `key`, created on first use.
    pub fn of(&self, key: &str) -> Arc<Notify> {
        let mut queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        queues.entry(key.to_owned()).or_default().clone()
    }

    /// Wakes every receive waiting on queue `key`, if any.
    pub fn signal(&self, key: &str) {
        let queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(notify) = queues.get(key) {
            notify.notify_waiters();
        }
    }

    /// Forgets a deleted queue's signal, waking its waiters.
    pub fn remove(&self, key: &str) {
        let removed = self.queues.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
        if let Some(notify) = removed {
            notify.notify_waiters();
        }
    }
}

/// A pending alarm: ordered by time, then by creation.
struct Alarm {
    at: Instant,
    id: u64,
    fire: oneshot::Sender<()>,
}

impl PartialEq for Alarm {
    fn eq(&self, other: &Alarm) -> bool {
        (self.at, self.id) == (other.at, other.id)
    }
}
impl Eq for Alarm {}
impl PartialOrd for Alarm {
    fn partial_cmp(&self, other: &Alarm) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Alarm {
    fn cmp(&self, other: &Alarm) -> std::cmp::Ordering {
        (self.at, self.id).cmp(&(other.at, other.id))
    }
}

#[derive(Default)]
struct Alarms {
    pending: Mutex<(BinaryHeap<Reverse<Alarm>>, u64)>,
    changed: Condvar,
}

static ALARMS: OnceLock<Arc<Alarms>> = OnceLock::new();

/// A receiver that completes at `at` (or is dropped harmlessly before).
pub fn alarm(at: Instant) -> oneshot::Receiver<()> {
    let alarms = ALARMS.get_or_init(|| {
        let alarms = Arc::new(Alarms::default());
        let worker = alarms.clone();
        std::thread::Builder::new()
            .name("sqs-alarms".into())
            .spawn(move || worker.run())
            .expect("spawning the SQS alarm thread");
        alarms
    });
    let (fire, receiver) = oneshot::channel();
    let mut pending = alarms.pending.lock().unwrap_or_else(|e| e.into_inner());
    pending.1 += 1;
    let id = pending.1;
    pending.0.push(Reverse(Alarm { at, id, fire }));
    alarms.changed.notify_one();
    receiver
}

impl Alarms {
    fn run(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            while pending.0.peek().is_some_and(|Reverse(a)| a.at <= now) {
                if let Some(Reverse(due)) = pending.0.pop() {
                    // The waiter may have gone (its receive already answered): nothing to do.
                    let _ = due.fire.send(());
                }
            }
            pending = match pending.0.peek().map(|Reverse(a)| a.at) {
                Some(at) => {
                    self.changed
                        .wait_timeout(pending, at.saturating_duration_since(now))
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(pending).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn alarms_fire_in_order_of_time() {
        let start = Instant::now();
        let late = alarm(start + Duration::from_millis(80));
        let early = alarm(start + Duration::from_millis(20));
        early.blocking_recv().unwrap();
        assert!(start.elapsed() >= Duration::from_millis(20));
        late.blocking_recv().unwrap();
        assert!(start.elapsed() >= Duration::from_millis(80));
    }
}
