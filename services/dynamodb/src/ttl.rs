//! Time to live: deleting expired items in the background.
//!
//! An item expires when its table's TTL attribute is a Number of epoch seconds in the past,
//! but not more than five years in the past (AWS ignores those, and any other type: "Items
//! with a TTL attribute that is not a Number type are ignored"; "a TTL more than five years in
//! the past is not eligible for expiry" — DynamoDB developer guide, time-to-live-ttl-before-
//! you-start). Expired items are deleted through the one write path ([`db::write_item_by`]),
//! so indexes, statistics and the stream follow; the stream record is a REMOVE marked as the
//! service's (`userIdentity` `Service` / `dynamodb.amazonaws.com`).
//!
//! Nothing runs until TTL is enabled somewhere: [`TtlSweeper::watch`] (called by
//! UpdateTimeToLive, and at startup for stored stores with TTL-enabled tables) registers an
//! account and region and, if none was registered, a periodic sweep on the process's
//! [`Scheduler`], which sweeps every registered store each interval (the binary's
//! `--dynamodb-ttl-interval`, default 30 seconds) and stops once no registered store has a
//! TTL-enabled table left. Expiry is judged by the scheduler's clock.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use stratus_core::scheduler::{JobId, Repeat, Scheduler};
use stratus_core::service::Arrivals;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, Store};

use crate::db::{self, ITEMS, TABLES};
use crate::error::DdbError;
use crate::keys;
use crate::stream::Origin;
use crate::stream_source::WriteScope;
use crate::table::TableRecord;
use crate::{AttributeValue, Item};

/// How often TTL-enabled tables are swept unless the binary is told otherwise.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(30);
/// AWS ignores expiry times more than five years in the past.
const FIVE_YEARS_SECS: f64 = 5.0 * 365.25 * 24.0 * 60.0 * 60.0;
/// Items examined per storage read while sweeping a table.
const CHUNK: usize = 512;

/// Whether `item` has expired at `now_secs` under the TTL attribute `attribute`.
pub fn expired(item: &Item, attribute: &str, now_secs: f64) -> bool {
    match item.get(attribute) {
        Some(AttributeValue::N(n)) => n
            .parse::<f64>()
            .is_ok_and(|at| at < now_secs && at >= now_secs - FIVE_YEARS_SECS),
        _ => false,
    }
}

/// Deletes the items of every TTL-enabled table in `store` that have expired at `now_ms`;
/// returns whether the store has any TTL-enabled table (when not, it need not be swept again).
pub fn sweep(store: &dyn Store, now_ms: i64) -> Result<bool, DdbError> {
    let tables: Vec<TableRecord> = TABLES
        .scan(store, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, table)| table)
        .filter(|t| t.ttl.as_ref().is_some_and(|ttl| ttl.enabled))
        .collect();
    for table in &tables {
        sweep_table(store, table, now_ms)?;
    }
    Ok(!tables.is_empty())
}

fn sweep_table(store: &dyn Store, table: &TableRecord, now_ms: i64) -> Result<(), DdbError> {
    let now_secs = now_ms as f64 / 1000.0;
    let Some(attribute) = table.ttl.as_ref().map(|t| t.attribute.clone()) else {
        return Ok(());
    };
    let prefix = keys::table_prefix(&table.name);
    let all = KeyRange::prefix(&prefix);
    let mut range = all.clone();
    loop {
        let chunk = store.scan(ITEMS, &range, Direction::Forward, Some(CHUNK))?;
        let Some((last, _)) = chunk.last() else { return Ok(()) };
        let last = last.clone();
        let mut doomed = Vec::new();
        for (key, bytes) in chunk {
            if expired(&crate::codec::decode(&bytes)?, &attribute, now_secs) {
                doomed.push(key);
            }
        }
        if !doomed.is_empty() {
            store.transact(|tx| {
                // The table and each item as they are now: a write since the scan wins.
                let Some(current) = db::find_table(tx, &table.name)?.filter(|t| t.id == table.id) else {
                    return Ok(());
                };
                let Some(attribute) = current.ttl.as_ref().filter(|t| t.enabled).map(|t| t.attribute.clone()) else {
                    return Ok(());
                };
                for key in &doomed {
                    if let Some(item) = db::get_item(tx, key)?.filter(|item| expired(item, &attribute, now_secs)) {
                        db::write_item_by(tx, &current, key, Some(&item), None, Origin::TimeToLive, now_ms)?;
                    }
                }
                Ok::<_, DdbError>(())
            })?;
        }
        range = KeyRange::between(std::ops::Bound::Excluded(&last), all.end());
    }
}

/// The background sweeper of one process (see the module docs).
pub struct TtlSweeper {
    storage: Arc<Storage>,
    /// Where each sweep's deletions are announced to the stores' stream readers.
    writes: Arc<Arrivals<WriteScope>>,
    scheduler: Scheduler,
    interval: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// (account, region) stores holding a TTL-enabled table.
    scopes: BTreeSet<(String, String)>,
    /// The periodic sweep, while one is registered.
    sweep: Option<JobId>,
    /// Counts `watch` calls, so a sweep never forgets a store watched while it ran.
    epoch: u64,
}

impl TtlSweeper {
    /// A sweeper that sweeps every `interval` on `scheduler` once something is watched.
    pub(crate) fn new(
        storage: Arc<Storage>,
        scheduler: Scheduler,
        interval: Duration,
        writes: Arc<Arrivals<WriteScope>>,
    ) -> Arc<TtlSweeper> {
        Arc::new(TtlSweeper {
            storage,
            writes,
            scheduler,
            interval,
            state: Mutex::default(),
        })
    }

    /// Sweeps the store of `account` and `region` from now on, registering the periodic
    /// sweep if none is.
    pub fn watch(self: &Arc<Self>, account: &str, region: &str) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.scopes.insert((account.to_owned(), region.to_owned()));
        state.epoch += 1;
        if state.sweep.is_none() {
            let sweeper = self.clone();
            state.sweep = Some(self.scheduler.every(self.interval, move || sweeper.sweep_all()));
        }
    }

    /// One sweep of every watched store; stops when none has a TTL-enabled table left.
    fn sweep_all(&self) -> Repeat {
        let (scopes, epoch): (Vec<(String, String)>, u64) = {
            let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            (state.scopes.iter().cloned().collect(), state.epoch)
        };
        let now_ms = self.scheduler.clock().epoch_millis();
        let mut idle = Vec::new();
        for (account, region) in scopes {
            let namespace = Namespace::regional(&account, &region, "dynamodb");
            let swept = self
                .storage
                .store(&namespace, Durability::Strict)
                .map_err(DdbError::from)
                .and_then(|store| sweep(&*store, now_ms));
            if swept.is_ok() {
                self.writes.notify((account.clone(), region.clone()));
            }
            // A store that failed is tried again next time.
            if let Ok(false) = swept {
                idle.push((account, region));
            }
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.epoch == epoch {
            for scope in idle {
                state.scopes.remove(&scope);
            }
        }
        if state.scopes.is_empty() {
            state.sweep = None;
            return Repeat::Stop;
        }
        Repeat::Again
    }

    /// Watches every stored DynamoDB store that has a TTL-enabled table (after a restart),
    /// looked for on a thread of its own, and only when some DynamoDB store exists at all.
    pub fn discover(self: &Arc<Self>) {
        let namespaces = match self.storage.regional_namespaces("dynamodb") {
            Ok(found) if !found.is_empty() => found,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!(error = %e, "time to live: cannot list the stored DynamoDB stores");
                return;
            }
        };
        let sweeper = self.clone();
        let _ = std::thread::Builder::new()
            .name("dynamodb-ttl-discover".into())
            .spawn(move || {
                for namespace in namespaces {
                    let Ok(store) = sweeper.storage.store(&namespace, Durability::Strict) else {
                        continue;
                    };
                    let has_ttl = TABLES
                        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
                        .is_ok_and(|tables| {
                            tables
                                .iter()
                                .any(|(_, t)| t.ttl.as_ref().is_some_and(|ttl| ttl.enabled))
                        });
                    if let (true, Some(region)) = (has_ttl, namespace.region.as_deref()) {
                        sweeper.watch(&namespace.account, region);
                    }
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn item(ttl: AttributeValue) -> Item {
        BTreeMap::from([
            ("pk".to_string(), AttributeValue::S("k".into())),
            ("exp".to_string(), ttl),
        ])
    }

    #[test]
    fn only_numbers_of_the_last_five_years_expire() {
        let now = 1_700_000_000.0;
        let n = |v: &str| item(AttributeValue::N(v.into()));
        assert!(expired(&n("1699999999"), "exp", now));
        assert!(expired(&n("1699999999.5"), "exp", now));
        assert!(!expired(&n("1700000000"), "exp", now), "not before its second");
        assert!(!expired(&n("1800000000"), "exp", now));
        assert!(expired(&n("1600000000"), "exp", now), "three years ago");
        assert!(!expired(&n("1500000000"), "exp", now), "over five years ago");
        assert!(!expired(&n("-5"), "exp", now));
        assert!(!expired(&item(AttributeValue::S("1".into())), "exp", now));
        assert!(!expired(&n("1"), "other", now));
    }
}
