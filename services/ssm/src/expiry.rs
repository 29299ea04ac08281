//! Expiration policies: a parameter is deleted at its policy's timestamp. One scheduler job,
//! at the earliest pending expiration across every account and region, exists only while
//! one is pending; it is found again from the stores' `expirations` tables after a restart.

use stratus_storage::tuple::TupleReader;
use stratus_storage::{Direction, KeyRange, Read, Store};

use crate::error::SsmError;
use crate::records::{remove, EXPIRATIONS, PARAMETERS};
use crate::service::SsmService;

impl SsmService {
    /// Makes sure the job runs by `due_ms`.
    pub(crate) fn expire_by(&self, due_ms: i64) {
        let ssm = self.clone();
        self.shared.due.by(due_ms, move || ssm.sweep(true));
    }

    /// Schedules the expirations the stores hold (after a restart).
    pub(crate) fn resume(&self) {
        if let Some(due) = self.sweep(false) {
            self.expire_by(due);
        }
    }

    /// Deletes what has expired (when `act`); answers when the next expiration is due.
    fn sweep(&self, act: bool) -> Option<i64> {
        let now = self.now_ms();
        let mut earliest: Option<i64> = None;
        for ns in self.shared.storage.regional_namespaces("ssm").ok()? {
            let Some(region) = ns.region.as_deref() else { continue };
            let Ok(store) = self.store(&ns.account, region) else {
                continue;
            };
            match sweep_store(&*store, now, act) {
                Ok(Some(due)) => earliest = Some(earliest.map_or(due, |e| e.min(due))),
                Ok(None) => {}
                Err(e) => tracing::warn!("ssm: expiring parameters of {}/{region}: {:?}", ns.account, e.0),
            }
        }
        earliest
    }
}

/// The moment an `expirations` key names.
fn due_of(key: &[u8]) -> Option<i64> {
    TupleReader::new(key).i64().ok()
}

/// One store's sweep: the next expiration left.
fn sweep_store(store: &dyn Store, now: i64, act: bool) -> Result<Option<i64>, SsmError> {
    if !act {
        return first(store);
    }
    store.transact(|tx| {
        for (at, key) in EXPIRATIONS.scan(tx, &KeyRange::all(), Direction::Forward, None)? {
            if due_of(&at).is_none_or(|due| due > now) {
                break;
            }
            EXPIRATIONS.delete(tx, at);
            if let Some(record) = PARAMETERS.get(tx, &key)? {
                remove(tx, &key, &record)?;
            }
        }
        first(&*tx)
    })
}

/// When the first expiration left is due.
fn first(r: &(impl Read + ?Sized)) -> Result<Option<i64>, SsmError> {
    let next = EXPIRATIONS.scan(r, &KeyRange::all(), Direction::Forward, Some(1))?;
    Ok(next.first().and_then(|(k, _)| due_of(k)))
}
