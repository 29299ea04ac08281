//! Arrival signals: a put wakes the enhanced fan-out subscriptions of its stream, which wait on
//! a blocking thread (their event stream is a blocking reader) rather than poll.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

/// Per stream (account, region, name), how many puts have committed since the process began.
#[derive(Default)]
pub(crate) struct Arrivals {
    counts: Mutex<HashMap<(String, String, String), u64>>,
    changed: Condvar,
}

type Key = (String, String, String);

impl Arrivals {
    /// Records a committed put to the stream and wakes its waiters.
    pub(crate) fn notify(&self, key: Key) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        *counts.entry(key).or_default() += 1;
        self.changed.notify_all();
    }

    /// The stream's count now, to wait for a change from.
    pub(crate) fn current(&self, key: &Key) -> u64 {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.get(key).copied().unwrap_or_default()
    }

    /// Waits until the stream's count differs from `seen`, or `at_most` has passed; answers
    /// the count then.
    pub(crate) fn wait(&self, key: &Key, seen: u64, at_most: Duration) -> u64 {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let (counts, _) = self
            .changed
            .wait_timeout_while(counts, at_most, |counts| {
                counts.get(key).copied().unwrap_or_default() == seen
            })
            .unwrap_or_else(PoisonError::into_inner);
        counts.get(key).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn key() -> Key {
        ("1".into(), "r".into(), "s".into())
    }

    #[test]
    fn a_put_wakes_a_waiter() {
        let arrivals = Arc::new(Arrivals::default());
        let seen = arrivals.current(&key());
        let waiter = {
            let arrivals = arrivals.clone();
            std::thread::spawn(move || arrivals.wait(&key(), seen, Duration::from_secs(30)))
        };
        arrivals.notify(key());
        assert_eq!(waiter.join().unwrap(), seen + 1);
    }

    #[test]
    fn a_wait_without_puts_ends_at_its_bound() {
        let arrivals = Arrivals::default();
        assert_eq!(arrivals.wait(&key(), 0, Duration::from_millis(10)), 0);
    }
}
