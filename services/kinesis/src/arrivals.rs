//! Arrival signals: a put wakes the enhanced fan-out subscriptions of its stream, which wait on
//! a blocking thread (their event stream is a blocking reader) rather than poll, and the
//! consumers of [`StreamSource`](stratus_core::service::StreamSource), which wait as tasks.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

/// Per stream (account, region, name), how many puts have committed since the process began.
#[derive(Default)]
pub(crate) struct Arrivals {
    counts: Mutex<HashMap<(String, String, String), u64>>,
    changed: Condvar,
    /// The counts again, for tasks: a stream's channel is made when a task first waits on it.
    watched: Mutex<HashMap<Key, watch::Sender<u64>>>,
}

type Key = (String, String, String);

impl Arrivals {
    /// Records a committed put to the stream and wakes its waiters.
    pub(crate) fn notify(&self, key: Key) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(key.clone()).or_default();
        *count += 1;
        let count = *count;
        self.changed.notify_all();
        drop(counts);
        if let Some(watch) = self.watched.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            watch.send_replace(count);
        }
    }

    /// Waits, as a task, until the stream's count differs from `seen`.
    pub(crate) async fn changed(&self, key: Key, seen: u64) {
        let mut receiver = {
            let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
            let sender = watched.entry(key.clone()).or_insert_with(|| watch::channel(0).0);
            // Under the lock of `watched`, so a put after this read sends to this channel.
            sender.send_replace(self.current(&key));
            sender.subscribe()
        };
        // The sender lives in the map, so the channel never closes while this waits.
        let _ = receiver.wait_for(|count| *count != seen).await;
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

    #[tokio::test(flavor = "current_thread")]
    async fn a_put_wakes_a_task() {
        let arrivals = Arc::new(Arrivals::default());
        let seen = arrivals.current(&key());
        let waiter = tokio::spawn({
            let arrivals = arrivals.clone();
            async move { arrivals.changed(key(), seen).await }
        });
        tokio::task::yield_now().await;
        arrivals.notify(key());
        waiter.await.unwrap();
        arrivals.changed(key(), seen).await;
    }

    #[test]
    fn a_wait_without_puts_ends_at_its_bound() {
        let arrivals = Arrivals::default();
        assert_eq!(arrivals.wait(&key(), 0, Duration::from_millis(10)), 0);
    }
}
