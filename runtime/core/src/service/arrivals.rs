//! Arrival signals: a count per key (a stream, a table's account and region) of the writes
//! committed there since the process began, which a reader waits to see change instead of
//! polling — a task as a future, a blocking reader (an event stream's body) on a condition
//! variable. A provider of [`StreamSource`](super::StreamSource) bumps the count after each
//! commit that adds records.
//!
//! Built on `std` alone, so the future runs on any executor: a waiting task leaves its waker
//! under its key, and the next arrival there wakes them all.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// Per key, how many arrivals have committed, and the tasks waiting for the next.
pub struct Arrivals<K> {
    keys: Mutex<HashMap<K, Entry>>,
    changed: Condvar,
}

#[derive(Default)]
struct Entry {
    count: u64,
    wakers: Vec<Waker>,
}

impl<K> Default for Arrivals<K> {
    fn default() -> Self {
        Arrivals {
            keys: Mutex::new(HashMap::new()),
            changed: Condvar::new(),
        }
    }
}

impl<K: Hash + Eq + Clone> Arrivals<K> {
    fn lock(&self) -> MutexGuard<'_, HashMap<K, Entry>> {
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records an arrival under `key` and wakes everyone waiting there.
    pub fn notify(&self, key: K) {
        let wakers = {
            let mut keys = self.lock();
            let entry = keys.entry(key).or_default();
            entry.count += 1;
            std::mem::take(&mut entry.wakers)
        };
        self.changed.notify_all();
        wakers.into_iter().for_each(Waker::wake);
    }

    /// The count under `key` now, to wait for a change from.
    pub fn current(&self, key: &K) -> u64 {
        self.lock().get(key).map_or(0, |e| e.count)
    }

    /// Resolves once the count under `key` differs from `seen` (at once if it already does).
    pub fn changed(&self, key: K, seen: u64) -> Changed<'_, K> {
        Changed {
            arrivals: self,
            key,
            seen,
        }
    }

    /// Blocks until the count under `key` differs from `seen`, or `at_most` has passed;
    /// answers the count then.
    pub fn wait(&self, key: &K, seen: u64, at_most: Duration) -> u64 {
        let count = |keys: &HashMap<K, Entry>| keys.get(key).map_or(0, |e| e.count);
        let (keys, _) = self
            .changed
            .wait_timeout_while(self.lock(), at_most, |keys| count(keys) == seen)
            .unwrap_or_else(PoisonError::into_inner);
        count(&keys)
    }
}

/// The future of [`Arrivals::changed`].
pub struct Changed<'a, K> {
    arrivals: &'a Arrivals<K>,
    key: K,
    seen: u64,
}

impl<K: Hash + Eq + Clone + Unpin> Future for Changed<'_, K> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut keys = self.arrivals.lock();
        let entry = keys.entry(self.key.clone()).or_default();
        if entry.count != self.seen {
            return Poll::Ready(());
        }
        if !entry.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            entry.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::task::Wake;

    use super::*;

    fn key() -> (String, String) {
        ("000000000000".into(), "s".into())
    }

    #[test]
    fn an_arrival_wakes_a_blocked_reader() {
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
    fn a_wait_without_arrivals_ends_at_its_bound() {
        let arrivals = Arrivals::<(String, String)>::default();
        assert_eq!(arrivals.wait(&key(), 0, Duration::from_millis(10)), 0);
    }

    struct Flag(Mutex<bool>);

    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            *self.0.lock().unwrap() = true;
        }
    }

    #[test]
    fn an_arrival_wakes_a_waiting_task_once_per_waker() {
        let arrivals = Arrivals::default();
        let flag = Arc::new(Flag(Mutex::new(false)));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let mut changed = arrivals.changed(key(), 0);
        assert!(Pin::new(&mut changed).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut changed).poll(&mut cx).is_pending());
        assert_eq!(arrivals.lock()[&key()].wakers.len(), 1);
        arrivals.notify(key());
        assert!(*flag.0.lock().unwrap());
        assert!(Pin::new(&mut changed).poll(&mut cx).is_ready());
        // A count already past what was seen resolves at once.
        assert!(Pin::new(&mut arrivals.changed(key(), 0)).poll(&mut cx).is_ready());
    }
}
