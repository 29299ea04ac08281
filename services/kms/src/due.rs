//! The work that falls due with time: deleting keys whose waiting period is over, and
//! rotating keys whose automatic rotation date has come. One scheduler job, at the earliest
//! such moment across every account and region, exists only while something is pending; it
//! is found again from the stores after a restart.

use stratus_storage::{Store, Tx};

use crate::error::KmsError;
use crate::ops::rotation::rotate;
use crate::service::KmsService;
use crate::store::{key_prefix, ALIASES, GRANTS, KEYS};

const DAY_MS: i64 = 86_400_000;

impl KmsService {
    /// Makes sure the job runs by `due_ms`.
    pub(crate) fn schedule_due(&self, due_ms: i64) {
        let kms = self.clone();
        self.shared.due.by(due_ms, move || kms.sweep(true));
    }

    /// Schedules what the stores hold pending (after a restart).
    pub(crate) fn resume(&self) {
        if let Some(due) = self.sweep(false) {
            self.schedule_due(due);
        }
    }

    /// Deletes and rotates what is due (when `act`), and answers when the next work is due.
    fn sweep(&self, act: bool) -> Option<i64> {
        let now = self.now_ms();
        let mut earliest: Option<i64> = None;
        let namespaces = self.shared.storage.regional_namespaces("kms").ok()?;
        for ns in namespaces {
            let Some(region) = ns.region.as_deref() else { continue };
            let Ok(store) = self.store(&ns.account, region) else {
                continue;
            };
            match sweep_store(&*store, now, act) {
                Ok(Some(due)) => earliest = Some(earliest.map_or(due, |e| e.min(due))),
                Ok(None) => {}
                Err(e) => tracing::warn!("kms: sweeping {}/{region}: {:?}", ns.account, e.0),
            }
        }
        earliest
    }
}

/// One store's sweep: the next due moment of what remains.
fn sweep_store(store: &dyn Store, now: i64, act: bool) -> Result<Option<i64>, KmsError> {
    let due_of = |key: &crate::keys::KeyRecord| match (&key.deletion_ms, &key.rotation) {
        (Some(at), _) => Some(*at),
        (None, Some(r)) => Some(r.next_ms),
        (None, None) => None,
    };
    if !act {
        return Ok(KEYS.scan_prefix(store, [])?.iter().filter_map(|(_, k)| due_of(k)).min());
    }
    store.transact(|tx: &mut Tx<'_>| {
        let mut earliest = None;
        for (_, mut key) in KEYS.scan_prefix(tx, [])? {
            match (key.deletion_ms, key.rotation.clone()) {
                (Some(at), _) if at <= now => {
                    delete_key(tx, &key.id)?;
                    continue;
                }
                (None, Some(mut r)) if r.next_ms <= now && key.state == "Enabled" => {
                    rotate(&mut key, r.next_ms, "AUTOMATIC");
                    while r.next_ms <= now {
                        r.next_ms += i64::from(r.period_days) * DAY_MS;
                    }
                    key.rotation = Some(r);
                    KEYS.put(tx, key.id.as_str(), &key)?;
                }
                _ => {}
            }
            if let Some(due) = due_of(&key) {
                earliest = Some(earliest.map_or(due, |e: i64| e.min(due)));
            }
        }
        Ok(earliest)
    })
}

/// Deletes a key with its aliases and grants.
fn delete_key(tx: &mut Tx<'_>, id: &str) -> Result<(), KmsError> {
    KEYS.delete(tx, id);
    for (name, alias) in ALIASES.scan_prefix(tx, [])? {
        if alias.target == id {
            ALIASES.delete(tx, name);
        }
    }
    for (at, _) in GRANTS.scan_prefix(tx, key_prefix(id))? {
        GRANTS.delete(tx, at);
    }
    Ok(())
}
