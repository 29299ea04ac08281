//! The work that falls due with time: deleting secrets whose recovery window is over, and
//! starting rotations their schedule says are due. One scheduler job, at the earliest such
//! moment across every account and region, exists only while something is pending; it is
//! found again from the stores after a restart.

use stratus_storage::{Store, Tx};

use crate::error::SmError;
use crate::ops::rotation::start_rotation;
use crate::secret::SecretRecord;
use crate::service::{SecretsService, SERVICE_NAME};
use crate::store::SECRETS;

/// When `secret` next needs the job: its deletion, else its next scheduled rotation.
pub(crate) fn due_of(secret: &SecretRecord) -> Option<i64> {
    if secret.deletion_due_ms.is_some() {
        return secret.deletion_due_ms;
    }
    let rotation = secret
        .rotation
        .as_ref()
        .filter(|r| r.enabled && r.lambda_arn.is_some())?;
    rotation.next_ms
}

impl SecretsService {
    /// Makes sure the job runs by `due_ms`.
    pub(crate) fn schedule_due(&self, due_ms: i64) {
        let sm = self.clone();
        self.shared.due.by(due_ms, move || sm.sweep(true));
    }

    /// Schedules what the stores hold pending (after a restart).
    pub(crate) fn resume(&self) {
        if let Some(due) = self.sweep(false) {
            self.schedule_due(due);
        }
    }

    /// Does what is due (when `act`), and answers when the next work is due.
    fn sweep(&self, act: bool) -> Option<i64> {
        let now = self.now_ms();
        let mut earliest: Option<i64> = None;
        let namespaces = self.shared.storage.regional_namespaces(SERVICE_NAME).ok()?;
        for ns in namespaces {
            let Some(region) = ns.region.as_deref() else { continue };
            let Ok(store) = self.store(&ns.account, region) else {
                continue;
            };
            match self.sweep_store(&*store, now, act) {
                Ok((due, rotations)) => {
                    if rotations {
                        self.shared.rotations.wake(&ns.account, region);
                    }
                    if let Some(due) = due {
                        earliest = Some(earliest.map_or(due, |e| e.min(due)));
                    }
                }
                Err(e) => tracing::warn!("secretsmanager: sweeping {}/{region}: {:?}", ns.account, e.0),
            }
        }
        earliest
    }

    /// One store's sweep: the next due moment of what remains, and whether rotations
    /// were started.
    fn sweep_store(&self, store: &dyn Store, now: i64, act: bool) -> Result<(Option<i64>, bool), SmError> {
        if !act {
            let due = SECRETS
                .scan_prefix(store, [])?
                .iter()
                .filter_map(|(_, s)| due_of(s))
                .min();
            return Ok((due, false));
        }
        store.transact(|tx: &mut Tx<'_>| {
            let mut earliest = None;
            let mut started = false;
            for (key, mut secret) in SECRETS.scan_prefix(&*tx, [])? {
                match due_of(&secret) {
                    Some(at) if at <= now && secret.deletion_due_ms.is_some() => {
                        SECRETS.delete(tx, key);
                        continue;
                    }
                    Some(at) if at <= now => {
                        start_rotation(self, tx, &mut secret, crate::ops::new_token(), false, now)?;
                        SECRETS.put(tx, key, &secret)?;
                        started = true;
                    }
                    _ => {}
                }
                if let Some(due) = due_of(&secret) {
                    earliest = Some(earliest.map_or(due, |e: i64| e.min(due)));
                }
            }
            Ok((earliest, started))
        })
    }
}
