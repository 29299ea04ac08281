//! The records of an `ssm` store, and how they read back as the model's shapes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::DateTime;
use stratus_gen_ssm::{
    Parameter, ParameterHistory, ParameterInlinePolicy, ParameterMetadata, ParameterTier, ParameterType,
};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{StorageError, Table, Tx};

use crate::filters::Subject;
use crate::policies::Policy;

/// Each parameter's head: its current version and what belongs to the parameter as a whole.
pub(crate) const PARAMETERS: Table<ParameterRecord> = Table::new("parameters");
/// Every kept version of every parameter, by (key, version).
pub(crate) const VERSIONS: Table<VersionRecord> = Table::new("versions");
/// The parameters an Expiration policy deletes, by (moment in ms, key).
pub(crate) const EXPIRATIONS: Table<String> = Table::new("expirations");
/// How many parameters of each tier the account has in the region, by tier name.
pub(crate) const COUNTS: Table<u64> = Table::new("counts");

/// A parameter: its name as created, its current version, tags, and labels.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct ParameterRecord {
    pub(crate) name: String,
    pub(crate) current: VersionRecord,
    /// The oldest version still kept (AWS keeps the last 100).
    pub(crate) oldest: i64,
    pub(crate) tags: BTreeMap<String, String>,
    /// Each label and the version it is on.
    pub(crate) labels: BTreeMap<String, i64>,
}

/// One version of a parameter. A SecureString's value is its KMS ciphertext, base64.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct VersionRecord {
    pub(crate) version: i64,
    pub(crate) kind: String,
    pub(crate) value: String,
    pub(crate) key_id: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) allowed_pattern: Option<String>,
    pub(crate) data_type: String,
    pub(crate) tier: String,
    pub(crate) policies: Vec<Policy>,
    pub(crate) modified_ms: i64,
    pub(crate) modified_by: String,
}

pub(crate) fn version_key(key: &str, version: i64) -> Vec<u8> {
    TupleKey::new().str(key).i64(version).into_bytes()
}

pub(crate) fn versions_prefix(key: &str) -> Vec<u8> {
    TupleKey::new().str(key).into_bytes()
}

pub(crate) fn expiration_key(at_ms: i64, key: &str) -> Vec<u8> {
    TupleKey::new().i64(at_ms).str(key).into_bytes()
}

impl ParameterRecord {
    /// The labels on `version`, in label order.
    pub(crate) fn labels_of(&self, version: i64) -> Vec<String> {
        self.labels
            .iter()
            .filter(|(_, v)| **v == version)
            .map(|(l, _)| l.clone())
            .collect()
    }

    /// What filters look at.
    pub(crate) fn subject<'a>(&'a self, key: &'a str) -> Subject<'a> {
        let v = &self.current;
        Subject {
            key,
            kind: &v.kind,
            key_id: v.key_id.as_deref(),
            tier: &v.tier,
            data_type: &v.data_type,
            labels: self.labels.keys().map(String::as_str).collect(),
            tags: &self.tags,
        }
    }
}

impl VersionRecord {
    fn modified(&self) -> DateTime {
        DateTime::from_millis(self.modified_ms)
    }

    fn policies(&self) -> Option<Vec<ParameterInlinePolicy>> {
        Some(
            self.policies
                .iter()
                .map(|p| ParameterInlinePolicy {
                    policy_text: Some(p.text.clone()),
                    policy_type: Some(p.kind.clone()),
                    policy_status: Some("Pending".into()),
                })
                .collect(),
        )
    }

    /// As GetParameter(s) answer it, named as the request spelled it, with `value` (the
    /// stored one, or decrypted).
    pub(crate) fn parameter(&self, name: &str, arn: String, value: String, selector: Option<String>) -> Parameter {
        Parameter {
            name: Some(name.to_owned()),
            r#type: Some(ParameterType::from_wire(&self.kind)),
            value: Some(value),
            version: self.version,
            selector,
            source_result: None,
            last_modified_date: Some(self.modified()),
            arn: Some(arn),
            data_type: Some(self.data_type.clone()),
        }
    }

    /// As DescribeParameters answers it.
    pub(crate) fn metadata(&self, name: &str, arn: String) -> ParameterMetadata {
        ParameterMetadata {
            name: Some(name.to_owned()),
            arn: Some(arn),
            r#type: Some(ParameterType::from_wire(&self.kind)),
            key_id: self.key_id.clone(),
            last_modified_date: Some(self.modified()),
            last_modified_user: Some(self.modified_by.clone()),
            description: self.description.clone(),
            allowed_pattern: self.allowed_pattern.clone(),
            version: self.version,
            tier: Some(ParameterTier::from_wire(&self.tier)),
            policies: self.policies(),
            data_type: Some(self.data_type.clone()),
        }
    }

    /// As GetParameterHistory answers it.
    pub(crate) fn history(&self, name: &str, value: String, labels: Vec<String>) -> ParameterHistory {
        ParameterHistory {
            name: Some(name.to_owned()),
            r#type: Some(ParameterType::from_wire(&self.kind)),
            key_id: self.key_id.clone(),
            last_modified_date: Some(self.modified()),
            last_modified_user: Some(self.modified_by.clone()),
            description: self.description.clone(),
            value: Some(value),
            allowed_pattern: self.allowed_pattern.clone(),
            version: self.version,
            labels: Some(labels),
            tier: Some(ParameterTier::from_wire(&self.tier)),
            policies: self.policies(),
            data_type: Some(self.data_type.clone()),
        }
    }
}

/// Adds `delta` to the count of `tier`'s parameters; answers the new count.
pub(crate) fn adjust_count(tx: &mut Tx<'_>, tier: &str, delta: i64) -> Result<u64, StorageError> {
    let count = COUNTS.get(tx, tier)?.unwrap_or(0).saturating_add_signed(delta);
    COUNTS.put(tx, tier, &count)?;
    Ok(count)
}

/// Deletes the parameter stored under `key`: its head, its versions, its pending expiration
/// and its place in its tier's count.
pub(crate) fn remove(tx: &mut Tx<'_>, key: &str, record: &ParameterRecord) -> Result<(), StorageError> {
    PARAMETERS.delete(tx, key.as_bytes().to_vec());
    for (at, _) in VERSIONS.scan_prefix(tx, versions_prefix(key))? {
        VERSIONS.delete(tx, at);
    }
    if let Some(at) = crate::policies::expiry(&record.current.policies) {
        EXPIRATIONS.delete(tx, expiration_key(at, key));
    }
    adjust_count(tx, &record.current.tier, -1)?;
    Ok(())
}
