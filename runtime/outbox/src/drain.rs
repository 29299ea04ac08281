//! The outbox and its drains.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::Serialize;
use stratus_core::scheduler::Scheduler;
use stratus_core::service::{BoxFuture, Spawner};
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, StorageError, Store, Table, Tx};

use crate::entry::Entry;

/// Entries looked at per scan of a drain.
const BATCH: usize = 32;
/// How long a drain waits before trying again after its store failed it.
const STORAGE_RETRY: Duration = Duration::from_secs(1);

/// The account and region an outbox's entries belong to: each has its own store and drain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// The account that accepted the work.
    pub account: String,
    /// Its region.
    pub region: String,
}

/// What to do with an entry after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Delivered, or given up on (after whatever dead-letter hand-off the service makes):
    /// the entry is removed.
    Done,
    /// Try again after this long: the entry is kept with one more attempt counted.
    Retry(Duration),
}

/// The service's side of an outbox: one attempt at one delivery.
pub trait Courier<T>: Send + Sync + 'static {
    /// Attempts `entry` (its `attempts` counts the earlier ones) and says what comes next.
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<T>) -> BoxFuture<'a, Next>;
}

/// A service's durable queue of deliveries, one per account and region; see the crate docs.
pub struct Outbox<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for Outbox<T> {
    fn clone(&self) -> Self {
        Outbox {
            inner: self.inner.clone(),
        }
    }
}

struct Inner<T> {
    table: Table<Entry<T>>,
    service: &'static str,
    storage: Arc<Storage>,
    scheduler: Scheduler,
    spawner: Spawner,
    courier: OnceLock<Arc<dyn Courier<T>>>,
    /// The next entry's sequence number. It starts from the clock's reading in nanoseconds,
    /// so entries written after a restart sort after those written before it.
    sequence: AtomicU64,
    /// For each place with a drain on its way, the time it starts by: no second one is
    /// started for a time at or after it.
    coming: Mutex<HashMap<Place, i64>>,
    /// One drain at a time per place.
    running: Mutex<HashMap<Place, Arc<tokio::sync::Mutex<()>>>>,
}

impl<T> Outbox<T>
where
    T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    /// The outbox kept in table `table` of `service`'s regional stores.
    pub fn new(
        table: &'static str,
        service: &'static str,
        storage: &Arc<Storage>,
        scheduler: &Scheduler,
        spawner: &Spawner,
    ) -> Outbox<T> {
        Outbox {
            inner: Arc::new(Inner {
                table: Table::new(table),
                service,
                storage: storage.clone(),
                scheduler: scheduler.clone(),
                spawner: spawner.clone(),
                courier: OnceLock::new(),
                sequence: AtomicU64::new(nanoseconds(scheduler.clock().now())),
                coming: Mutex::new(HashMap::new()),
                running: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Hands the outbox its courier and resumes the deliveries an earlier process left: one
    /// deadline for each store that holds entries. Called once, when the service registers.
    pub fn start(&self, courier: Arc<dyn Courier<T>>) {
        if self.inner.courier.set(courier).is_err() {
            return;
        }
        let namespaces = match self.inner.storage.regional_namespaces(self.inner.service) {
            Ok(namespaces) => namespaces,
            Err(e) => {
                tracing::error!(service = self.inner.service, error = %e, "could not list the stores with deliveries");
                return;
            }
        };
        for namespace in namespaces {
            let Some(region) = namespace.region else { continue };
            let place = Place {
                account: namespace.account,
                region,
            };
            match self.inner.first(&place) {
                Ok(Some(first)) => self.inner.clone().drain_at(place, first.due_ms),
                Ok(None) => {}
                Err(e) => tracing::error!(service = self.inner.service, error = %e, "could not read the deliveries"),
            }
        }
    }

    /// Writes a delivery of `item`, due now, in `tx`; [`wake`](Self::wake) the outbox once
    /// `tx` has committed.
    pub fn put(&self, tx: &mut Tx<'_>, item: T) -> Result<(), StorageError> {
        let sequence = self.inner.sequence.fetch_add(1, Ordering::Relaxed);
        let entry = Entry::new(item, self.inner.now_ms(), sequence);
        self.inner.table.put(tx, entry.key(), &entry)
    }

    /// Drains `account`'s and `region`'s deliveries now.
    pub fn wake(&self, account: &str, region: &str) {
        let place = Place {
            account: account.to_owned(),
            region: region.to_owned(),
        };
        let now = self.inner.now_ms();
        self.inner.clone().drain_at(place, now);
    }

    /// The deliveries waiting for `account` and `region`, in the order they fall due.
    pub fn pending(&self, account: &str, region: &str) -> Result<Vec<Entry<T>>, StorageError> {
        let place = Place {
            account: account.to_owned(),
            region: region.to_owned(),
        };
        let store = self.inner.store(&place)?;
        let entries = self
            .inner
            .table
            .scan(&*store, &KeyRange::all(), Direction::Forward, None)?;
        Ok(entries.into_iter().map(|(_, entry)| entry).collect())
    }
}

impl<T> Inner<T>
where
    T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
{
    fn now_ms(&self) -> i64 {
        self.scheduler.clock().epoch_millis()
    }

    fn store(&self, place: &Place) -> Result<Arc<dyn Store>, StorageError> {
        let namespace = Namespace::regional(&place.account, &place.region, self.service);
        self.storage.store(&namespace, Durability::Strict)
    }

    fn first(&self, place: &Place) -> Result<Option<Entry<T>>, StorageError> {
        let store = self.store(place)?;
        let first = self
            .table
            .scan(&*store, &KeyRange::all(), Direction::Forward, Some(1))?;
        Ok(first.into_iter().next().map(|(_, entry)| entry))
    }

    /// Makes sure a drain of `place` starts by `due_ms`: at once on the runtime when that
    /// has come, else from a scheduler deadline.
    fn drain_at(self: Arc<Self>, place: Place, due_ms: i64) {
        {
            let mut coming = lock(&self.coming);
            if coming.get(&place).is_some_and(|&by| by <= due_ms) {
                return;
            }
            coming.insert(place.clone(), due_ms);
        }
        let delay = u64::try_from(due_ms - self.now_ms()).unwrap_or(0);
        if delay == 0 {
            let spawner = self.spawner.clone();
            spawner.spawn(self.drain(place, due_ms));
            return;
        }
        let scheduler = self.scheduler.clone();
        scheduler.after(Duration::from_millis(delay), move || {
            let spawner = self.spawner.clone();
            spawner.spawn(self.drain(place, due_ms));
        });
    }

    /// Attempts every due entry of `place`, in order, then leaves a deadline for the next.
    async fn drain(self: Arc<Self>, place: Place, due_ms: i64) {
        let one_at_a_time = lock(&self.running).entry(place.clone()).or_default().clone();
        let _draining = one_at_a_time.lock().await;
        {
            // From here on, what is committed is seen by this drain's scan.
            let mut coming = lock(&self.coming);
            if coming.get(&place) == Some(&due_ms) {
                coming.remove(&place);
            }
        }
        let Some(courier) = self.courier.get().cloned() else {
            tracing::error!(service = self.service, "deliveries woken before the outbox was started");
            return;
        };
        if let Err(e) = self.deliver_due(&place, &*courier).await {
            tracing::error!(service = self.service, error = %e, "could not update the deliveries; trying again shortly");
            let retry_at = self.now_ms() + i64::try_from(STORAGE_RETRY.as_millis()).unwrap_or(1_000);
            self.clone().drain_at(place, retry_at);
        }
    }

    async fn deliver_due(self: &Arc<Self>, place: &Place, courier: &dyn Courier<T>) -> Result<(), StorageError> {
        let store = self.store(place)?;
        loop {
            let pending = self
                .table
                .scan(&*store, &KeyRange::all(), Direction::Forward, Some(BATCH))?;
            let now = self.now_ms();
            let Some((_, first)) = pending.first() else {
                return Ok(());
            };
            if first.due_ms > now {
                self.clone().drain_at(place.clone(), first.due_ms);
                return Ok(());
            }
            for (key, entry) in pending.into_iter().filter(|(_, entry)| entry.due_ms <= now) {
                let next = courier.deliver(place, &entry).await;
                let again = match next {
                    Next::Done => None,
                    Next::Retry(after) => {
                        let after = i64::try_from(after.as_millis()).unwrap_or(i64::MAX / 2);
                        Some(entry.retried(self.now_ms().saturating_add(after)))
                    }
                };
                let table = self.table.name();
                store
                    .clone()
                    .transact_async(move |tx| {
                        tx.delete(table, key);
                        if let Some(again) = &again {
                            Table::<Entry<T>>::new(table).put(tx, again.key(), again)?;
                        }
                        Ok::<_, StorageError>(())
                    })
                    .await?;
            }
        }
    }
}

fn nanoseconds(at: SystemTime) -> u64 {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX / 2)
}

fn lock<V>(mutex: &Mutex<V>) -> MutexGuard<'_, V> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
