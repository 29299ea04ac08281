//! Retention: a sweep on the scheduler deletes the events older than their group's
//! retention. It exists only while some log group has a retention policy: PutRetentionPolicy
//! (and a restart finding such groups) starts it, and it stops itself when none is left.

use std::time::Duration;

use stratus_core::scheduler::Repeat;
use stratus_storage::{Direction, KeyRange, Read, Store};

use crate::error::Result;
use crate::ingest::remove_events;
use crate::records::{GroupRecord, GROUPS};
use crate::service::{lock, LogsService};

/// How often the sweep runs. AWS deletes expired events within days; an hour keeps a driven
/// clock's test short and an idle server quiet.
const SWEEP_INTERVAL: Duration = Duration::from_secs(3600);
const DAY_MS: i64 = 24 * 3600 * 1000;

impl LogsService {
    /// Starts the sweep unless it runs.
    pub(crate) fn ensure_retention_sweep(&self) {
        let mut job = lock(&self.shared.retention_job);
        if job.is_none() {
            let service = self.clone();
            *job = Some(self.shared.scheduler.every(SWEEP_INTERVAL, move || service.sweep()));
        }
    }

    /// After a restart: starts the sweep when a stored group has a retention policy.
    pub(crate) fn resume_retention(&self) {
        if self.stores().iter().any(|(_, _, store)| has_retention(&**store)) {
            self.ensure_retention_sweep();
        }
    }

    fn sweep(&self) -> Repeat {
        let now = self.now_ms();
        for (account, region, store) in self.stores() {
            match expire(&*store, now) {
                Ok(freed) => self.add_used(&account, &region, -freed),
                Err(e) => tracing::warn!(account, region, "log retention sweep failed: {:?}", e),
            }
        }
        // Decided under the lock PutRetentionPolicy's `ensure_retention_sweep` takes after its
        // commit, so a policy set meanwhile is seen here or starts a new sweep.
        let mut job = lock(&self.shared.retention_job);
        if self.stores().iter().any(|(_, _, store)| has_retention(&**store)) {
            Repeat::Again
        } else {
            *job = None;
            Repeat::Stop
        }
    }
}

fn has_retention(store: &dyn Store) -> bool {
    groups_with_retention(store).is_ok_and(|groups| !groups.is_empty())
}

fn groups_with_retention(r: &(impl Read + ?Sized)) -> Result<Vec<GroupRecord>> {
    Ok(GROUPS
        .scan(r, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| g.retention_days.is_some())
        .collect())
}

/// Deletes, in one transaction, every event older than its group's retention at `now`;
/// answers the bytes freed.
pub(crate) fn expire(store: &dyn Store, now: i64) -> Result<i64> {
    store.transact(|tx| {
        let mut freed = 0;
        for group in groups_with_retention(&*tx)? {
            let days = group.retention_days.unwrap_or_default();
            let before = now - i64::from(days) * DAY_MS;
            freed += remove_events(tx, &group.name, None, Some(before))?;
        }
        Ok(freed)
    })
}
