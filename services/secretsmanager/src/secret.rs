//! A secret as stored: its metadata and every version, with the staging labels that point at
//! versions and the rules by which AWS moves them.
//!
//! A label is on at most one version. Moving `AWSCURRENT` to a version hands `AWSPREVIOUS`
//! to the version that held it (and takes `AWSPENDING` off it); a version left with no label is deprecated — kept (and
//! listed with `IncludeDeprecated`) until the secret has more than [`MAX_VERSIONS`].

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;

use crate::error::{invalid_parameter, SmError};

pub(crate) const CURRENT: &str = "AWSCURRENT";
pub(crate) const PREVIOUS: &str = "AWSPREVIOUS";
pub(crate) const PENDING: &str = "AWSPENDING";

/// How many versions a secret keeps; deprecated ones beyond it are dropped, oldest first
/// (AWS's quota: "Versions per secret: approximately 100").
pub(crate) const MAX_VERSIONS: usize = 100;

const DAY_MS: i64 = 86_400_000;

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub(crate) struct SecretRecord {
    pub(crate) name: String,
    /// The six random characters AWS appends to the name in the ARN.
    pub(crate) suffix: String,
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) description: Option<String>,
    /// The key as the caller named it; `None` is the AWS managed key
    /// `alias/aws/secretsmanager`.
    pub(crate) kms_key_id: Option<String>,
    pub(crate) created_ms: i64,
    pub(crate) last_changed_ms: i64,
    /// The day (midnight UTC) of the last GetSecretValue, as AWS reports it.
    pub(crate) last_accessed_ms: Option<i64>,
    /// When DeleteSecret was called, while the secret waits for deletion.
    pub(crate) deleted_ms: Option<i64>,
    /// When the secret goes for good.
    pub(crate) deletion_due_ms: Option<i64>,
    /// `None` until the secret is first tagged: AWS leaves `Tags` out until then, and
    /// answers `[]` once every tag is removed.
    pub(crate) tags: Option<Vec<(String, String)>>,
    pub(crate) policy: Option<String>,
    pub(crate) rotation: Option<Rotation>,
    /// Versions in the order they were made.
    pub(crate) versions: Vec<Version>,
    /// On a replica, the region of its primary.
    pub(crate) primary_region: Option<String>,
    /// On a primary, its replicas.
    pub(crate) replicas: Vec<Replica>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub(crate) struct Version {
    pub(crate) id: String,
    pub(crate) stages: BTreeSet<String>,
    pub(crate) created_ms: i64,
    pub(crate) last_accessed_ms: Option<i64>,
    /// The value, encrypted under the secret's key; `None` for a version a rotation started
    /// whose value the rotation function has not put yet.
    pub(crate) value: Option<Sealed>,
    /// The key the value is encrypted under, as the secret named it; `None` is the AWS
    /// managed key.
    pub(crate) key: Option<String>,
}

/// A value encrypted by KMS: the ciphertext names its key.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Sealed {
    /// `SecretBinary` (else `SecretString`).
    pub(crate) binary: bool,
    /// The ciphertext, base64.
    pub(crate) ciphertext: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub(crate) struct Rotation {
    pub(crate) enabled: bool,
    pub(crate) lambda_arn: Option<String>,
    pub(crate) after_days: Option<i64>,
    pub(crate) duration: Option<String>,
    pub(crate) schedule: Option<String>,
    pub(crate) last_rotated_ms: Option<i64>,
    /// When the next scheduled rotation starts, if the rules say.
    pub(crate) next_ms: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Replica {
    pub(crate) region: String,
    pub(crate) kms_key_id: Option<String>,
    /// `InSync` or `Failed`.
    pub(crate) status: String,
    pub(crate) message: String,
}

impl SecretRecord {
    pub(crate) fn arn(&self) -> String {
        arn_of(&self.region, &self.account, &self.name, &self.suffix)
    }

    pub(crate) fn is_deleted(&self) -> bool {
        self.deleted_ms.is_some()
    }

    pub(crate) fn version(&self, id: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.id == id)
    }

    pub(crate) fn version_mut(&mut self, id: &str) -> Option<&mut Version> {
        self.versions.iter_mut().find(|v| v.id == id)
    }

    /// The version holding `stage`.
    pub(crate) fn staged(&self, stage: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.stages.contains(stage))
    }

    /// Versions with at least one label, by id, as `VersionIdsToStages` shows them.
    pub(crate) fn stages_by_version(&self) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
        let map: std::collections::BTreeMap<_, _> = self
            .versions
            .iter()
            .filter(|v| !v.stages.is_empty())
            .map(|v| (v.id.clone(), v.stages.iter().cloned().collect()))
            .collect();
        (!map.is_empty()).then_some(map)
    }

    /// Adds `version` with `stages`, moving each from the version that held it.
    pub(crate) fn add_version(&mut self, version: Version, stages: &BTreeSet<String>) {
        let id = version.id.clone();
        self.versions.push(version);
        for stage in stages {
            self.attach(stage, &id);
        }
        self.prune();
    }

    /// Puts `stage` on version `to`, taking it from the version that held it; moving
    /// `AWSCURRENT` leaves `AWSPREVIOUS` on the version that held it.
    pub(crate) fn attach(&mut self, stage: &str, to: &str) {
        let holder = self.staged(stage).map(|v| v.id.clone());
        if holder.as_deref() == Some(to) {
            return;
        }
        if let Some(holder) = &holder {
            if let Some(v) = self.version_mut(holder) {
                v.stages.remove(stage);
            }
        }
        if let Some(v) = self.version_mut(to) {
            v.stages.insert(stage.to_owned());
        }
        if stage == CURRENT {
            if let Some(holder) = holder {
                // The old current version is no longer pending either (AWS's recorded
                // answers: a version labelled AWSCURRENT and AWSPENDING keeps only
                // AWSPREVIOUS once a new current version is put).
                if let Some(v) = self.version_mut(&holder) {
                    v.stages.remove(PENDING);
                }
                self.attach(PREVIOUS, &holder);
            }
        }
    }

    /// UpdateSecretVersionStage: moves `stage` to `move_to`, or off `remove_from`, checking
    /// that the caller named the version that holds it, as AWS requires.
    pub(crate) fn move_stage(
        &mut self,
        stage: &str,
        remove_from: Option<&str>,
        move_to: Option<&str>,
    ) -> Result<(), SmError> {
        for id in remove_from.iter().chain(move_to.iter()) {
            if self.version(id).is_none() {
                return Err(invalid_parameter(format!(
                    "Secrets Manager can't find the specified secret version: {id}"
                )));
            }
        }
        let holder = self.staged(stage).map(|v| v.id.clone());
        if let Some(from) = remove_from {
            if holder.as_deref() != Some(from) {
                return Err(invalid_parameter(format!(
                    "The staging label {stage} is currently not attached to version {from}, so you can't remove it."
                )));
            }
        }
        match move_to {
            Some(to) => {
                if let Some(holder) = holder.as_deref().filter(|h| *h != to) {
                    if remove_from.is_none() {
                        return Err(invalid_parameter(format!(
                            "The parameter RemoveFromVersionId can't be empty. Staging label {stage} is currently attached to version {holder}, so you must explicitly reference that version in RemoveFromVersionId."
                        )));
                    }
                }
                self.attach(stage, to);
            }
            None => {
                if stage == CURRENT {
                    return Err(invalid_parameter(
                        "You can only move staging label AWSCURRENT to a different secret version. It can't be completely removed.",
                    ));
                }
                if let Some(from) = remove_from {
                    if let Some(v) = self.version_mut(from) {
                        v.stages.remove(stage);
                    }
                }
            }
        }
        self.prune();
        Ok(())
    }

    /// Drops the oldest deprecated versions while there are more than [`MAX_VERSIONS`].
    fn prune(&mut self) {
        while self.versions.len() > MAX_VERSIONS {
            let Some(oldest) = self.versions.iter().position(|v| v.stages.is_empty()) else {
                return;
            };
            self.versions.remove(oldest);
        }
    }
}

/// A secret's ARN: the name, a hyphen and the six characters that tell apart secrets given
/// the same name after a deletion.
pub(crate) fn arn_of(region: &str, account: &str, name: &str, suffix: &str) -> String {
    Arn::new("secretsmanager", region, account, &format!("secret:{name}-{suffix}")).to_string()
}

/// Midnight (UTC) of the day of `ms`: AWS reports access dates to the day.
pub(crate) fn day_of(ms: i64) -> i64 {
    ms - ms.rem_euclid(DAY_MS)
}

pub(crate) fn days(n: i64) -> i64 {
    n * DAY_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(versions: &[&str]) -> SecretRecord {
        let mut s = SecretRecord::default();
        for id in versions {
            s.add_version(
                Version {
                    id: (*id).into(),
                    ..Version::default()
                },
                &[CURRENT.to_owned()].into(),
            );
        }
        s
    }

    fn stages(s: &SecretRecord, id: &str) -> Vec<String> {
        s.version(id).unwrap().stages.iter().cloned().collect()
    }

    #[test]
    fn a_new_current_version_makes_the_old_one_previous() {
        let s = secret(&["v1", "v2", "v3"]);
        assert_eq!(stages(&s, "v1"), Vec::<String>::new());
        assert_eq!(stages(&s, "v2"), [PREVIOUS]);
        assert_eq!(stages(&s, "v3"), [CURRENT]);
    }

    #[test]
    fn custom_labels_move_alone() {
        let mut s = secret(&["v1"]);
        let custom: BTreeSet<String> = ["one".into(), "two".into()].into();
        s.add_version(
            Version {
                id: "v2".into(),
                ..Version::default()
            },
            &custom,
        );
        s.add_version(
            Version {
                id: "v3".into(),
                ..Version::default()
            },
            &["two".into()].into(),
        );
        assert_eq!(stages(&s, "v1"), [CURRENT]);
        assert_eq!(stages(&s, "v2"), ["one"]);
        assert_eq!(stages(&s, "v3"), ["two"]);
    }

    #[test]
    fn moving_current_needs_the_holder_named_and_leaves_previous() {
        let mut s = secret(&["v1", "v2"]);
        s.add_version(
            Version {
                id: "v3".into(),
                ..Version::default()
            },
            &[PENDING.into()].into(),
        );
        let refused = s.move_stage(CURRENT, None, Some("v3")).unwrap_err();
        assert!(
            refused.0.message.contains("currently attached to version v2"),
            "{}",
            refused.0.message
        );
        s.move_stage(CURRENT, Some("v2"), Some("v3")).unwrap();
        assert_eq!(stages(&s, "v1"), Vec::<String>::new());
        assert_eq!(stages(&s, "v2"), [PREVIOUS]);
        // AWSPENDING stays where it was until a rotation function removes it.
        assert_eq!(stages(&s, "v3"), [CURRENT, PENDING]);
    }

    #[test]
    fn a_version_losing_current_loses_pending_too() {
        let mut s = secret(&["v1"]);
        s.add_version(
            Version {
                id: "v2".into(),
                ..Version::default()
            },
            &[PENDING.into()].into(),
        );
        s.move_stage(CURRENT, Some("v1"), Some("v2")).unwrap();
        assert_eq!(stages(&s, "v2"), [CURRENT, PENDING]);
        s.add_version(
            Version {
                id: "v3".into(),
                ..Version::default()
            },
            &[CURRENT.into()].into(),
        );
        assert_eq!(stages(&s, "v2"), [PREVIOUS]);
        assert_eq!(stages(&s, "v1"), Vec::<String>::new());
    }

    #[test]
    fn labels_come_off_only_from_their_version_and_current_never_does() {
        let mut s = secret(&["v1", "v2"]);
        assert!(s.move_stage(PREVIOUS, Some("v2"), None).is_err());
        s.move_stage(PREVIOUS, Some("v1"), None).unwrap();
        assert!(s.staged(PREVIOUS).is_none());
        assert!(s.move_stage(CURRENT, Some("v2"), None).is_err());
        assert!(s.move_stage("X", None, Some("nope")).is_err());
    }

    #[test]
    fn deprecated_versions_beyond_the_limit_are_dropped_oldest_first() {
        let ids: Vec<String> = (0..MAX_VERSIONS + 5).map(|i| format!("v{i}")).collect();
        let s = secret(&ids.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(s.versions.len(), MAX_VERSIONS);
        assert_eq!(s.versions[0].id, "v5");
        assert_eq!(stages(&s, &ids[ids.len() - 1]), [CURRENT]);
    }

    #[test]
    fn access_dates_are_days() {
        assert_eq!(day_of(86_400_000 * 3 + 5), 86_400_000 * 3);
    }
}
