//! A KMS key as stored: its metadata, state, policy, tags and key material (every version,
//! the current one last), and how it reads back as AWS's `KeyMetadata`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use stratus_core::hex;
use stratus_core::value::DateTime;
use stratus_gen_kms::{
    CustomerMasterKeySpec, ExpirationModelType, KeyManagerType, KeyMetadata, KeySpec, KeyState, KeyUsageType,
    MultiRegionConfiguration, MultiRegionKey, MultiRegionKeyType, OriginType,
};

use crate::blob::MATERIAL_ID_LEN;
use crate::crypto::{self, Family};
use crate::error::{disabled, invalid_state, wrong_usage, KmsError};
use crate::spec;

/// One version of a key's material.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct Material {
    /// 64 hex digits, as AWS's `KeyMaterialId`; the blob carries its bytes.
    pub(crate) id: String,
    /// The secret, base64: an AES or HMAC key, or a PKCS #8 private key.
    pub(crate) secret: String,
    /// When it became current (ms), and how (`AUTOMATIC`, `ON_DEMAND`); `None` for the
    /// material the key was created or first imported with.
    pub(crate) rotated: Option<(i64, String)>,
    /// `KeyMaterialDescription`, for imported material.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// When imported material expires (ms), if it does.
    #[serde(default)]
    pub(crate) valid_to_ms: Option<i64>,
}

impl Material {
    pub(crate) fn new(secret: &[u8], rotated: Option<(i64, String)>) -> Material {
        let id = crypto::random_bytes(MATERIAL_ID_LEN);
        Material {
            id: hex::encode(&id),
            secret: STANDARD.encode(secret),
            rotated,
            description: None,
            valid_to_ms: None,
        }
    }

    pub(crate) fn secret(&self) -> Vec<u8> {
        STANDARD.decode(&self.secret).unwrap_or_default()
    }

    /// The id's bytes, as a blob carries them.
    pub(crate) fn id_bytes(&self) -> [u8; MATERIAL_ID_LEN] {
        let mut out = [0; MATERIAL_ID_LEN];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = self
                .id
                .get(2 * i..2 * i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .unwrap_or(0);
        }
        out
    }
}

/// Automatic rotation, when enabled.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct Rotation {
    pub(crate) period_days: i32,
    pub(crate) next_ms: i64,
}

/// A multi-region key's place in its set.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct MultiRegion {
    /// The primary key's region.
    pub(crate) primary_region: String,
    /// The regions of the replicas (kept on the primary).
    pub(crate) replicas: Vec<String>,
}

/// Import parameters handed out by GetParametersForImport, until they expire.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct ImportParameters {
    /// The wrapping key's private half, PKCS #8, base64.
    pub(crate) wrapping_key: String,
    /// The wrapping algorithm, as AWS names it.
    pub(crate) algorithm: String,
    /// The import token handed out with it.
    pub(crate) token: String,
    pub(crate) expires_ms: i64,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct KeyRecord {
    pub(crate) id: String,
    pub(crate) arn: String,
    pub(crate) account: String,
    pub(crate) created_ms: i64,
    pub(crate) description: String,
    /// `KeySpec`, `KeyUsage`, `Origin`, `KeyManager` and `KeyState` as AWS writes them.
    pub(crate) spec: String,
    pub(crate) usage: String,
    pub(crate) origin: String,
    pub(crate) manager: String,
    pub(crate) state: String,
    /// When a key pending deletion is deleted (ms), and the window asked for.
    pub(crate) deletion_ms: Option<i64>,
    pub(crate) pending_window_days: Option<i32>,
    pub(crate) policy: String,
    /// Tags in the order they were first set.
    pub(crate) tags: Vec<(String, String)>,
    /// Every version of the material, the current one last; empty for a key whose material
    /// is yet to be imported.
    pub(crate) materials: Vec<Material>,
    /// Imported material waiting for RotateKeyOnDemand to become current.
    #[serde(default)]
    pub(crate) pending_material: Option<Material>,
    pub(crate) rotation: Option<Rotation>,
    /// On-demand rotations made so far (AWS allows ten per key).
    #[serde(default)]
    pub(crate) on_demand_rotations: u32,
    pub(crate) multi_region: Option<MultiRegion>,
    #[serde(default)]
    pub(crate) import: Option<ImportParameters>,
}

impl KeyRecord {
    pub(crate) fn key_spec(&self) -> KeySpec {
        KeySpec::from_wire(&self.spec)
    }

    pub(crate) fn key_usage(&self) -> KeyUsageType {
        KeyUsageType::from_wire(&self.usage)
    }

    pub(crate) fn family(&self) -> Result<Family, KmsError> {
        spec::family(&self.key_spec())
    }

    pub(crate) fn is_external(&self) -> bool {
        self.origin == "EXTERNAL"
    }

    pub(crate) fn current(&self) -> Option<&Material> {
        self.materials.last()
    }

    /// Whether the key has usable material (imported material may have been deleted).
    pub(crate) fn has_material(&self) -> bool {
        self.current().is_some_and(|m| !m.secret.is_empty())
    }

    pub(crate) fn material(&self, id: &[u8; MATERIAL_ID_LEN]) -> Option<&Material> {
        self.materials.iter().find(|m| &m.id_bytes() == id)
    }

    /// Whether the key may be used for cryptography now, with AWS's refusal when not.
    pub(crate) fn check_enabled(&self) -> Result<(), KmsError> {
        match self.state.as_str() {
            "Enabled" => Ok(()),
            "Disabled" => Err(disabled(&self.arn)),
            _ => Err(self.state_error()),
        }
    }

    /// The current material of a key that may be used now.
    pub(crate) fn check_usable(&self) -> Result<&Material, KmsError> {
        self.check_enabled()?;
        self.current().ok_or_else(|| self.state_error())
    }

    /// Refuses a key whose usage is not `usage` for `operation`, in AWS's words.
    pub(crate) fn check_usage(&self, usage: &str, operation: &str) -> Result<(), KmsError> {
        if self.usage == usage {
            Ok(())
        } else {
            Err(wrong_usage(&self.arn, &self.usage, operation))
        }
    }

    /// `KMSInvalidStateException` for the key's state, in AWS's words.
    pub(crate) fn state_error(&self) -> KmsError {
        match self.state.as_str() {
            "PendingDeletion" => invalid_state(format!("{} is pending deletion.", self.arn)),
            "PendingImport" => invalid_state(format!("{} is pending import.", self.arn)),
            other => invalid_state(format!("{} is {}.", self.arn, other)),
        }
    }

    /// Refuses a change to a key pending deletion (EnableKey, DisableKey, rotation, …).
    pub(crate) fn check_not_pending_deletion(&self) -> Result<(), KmsError> {
        if self.state == "PendingDeletion" {
            Err(self.state_error())
        } else {
            Ok(())
        }
    }

    /// AWS's `KeyMetadata` of this key; `primary` is the primary's record when this key
    /// is a replica (its replica list is the primary's).
    pub(crate) fn metadata(&self, region: &str, primary: Option<&KeyRecord>) -> KeyMetadata {
        let spec = self.key_spec();
        let usage = self.key_usage();
        let symmetric = spec == KeySpec::SymmetricDefault;
        KeyMetadata {
            aws_account_id: Some(self.account.clone()),
            key_id: self.id.clone(),
            arn: Some(self.arn.clone()),
            creation_date: Some(DateTime::from_millis(self.created_ms)),
            enabled: self.state == "Enabled",
            description: Some(self.description.clone()),
            key_usage: Some(usage.clone()),
            key_state: Some(KeyState::from_wire(&self.state)),
            deletion_date: self.deletion_ms.map(DateTime::from_millis),
            valid_to: self
                .current()
                .filter(|_| self.has_material())
                .and_then(|m| m.valid_to_ms)
                .map(DateTime::from_millis),
            origin: Some(OriginType::from_wire(&self.origin)),
            expiration_model: (self.is_external() && self.has_material()).then(|| {
                if self.current().is_some_and(|m| m.valid_to_ms.is_some()) {
                    ExpirationModelType::KeyMaterialExpires
                } else {
                    ExpirationModelType::KeyMaterialDoesNotExpire
                }
            }),
            key_manager: Some(KeyManagerType::from_wire(&self.manager)),
            customer_master_key_spec: Some(CustomerMasterKeySpec::from_wire(&self.spec)),
            key_spec: Some(spec.clone()),
            encryption_algorithms: spec::encryption_algorithms(&spec, &usage),
            signing_algorithms: spec::signing_algorithms(&spec, &usage),
            key_agreement_algorithms: spec::key_agreement_algorithms(&usage),
            multi_region: Some(self.multi_region.is_some()),
            multi_region_configuration: self
                .multi_region
                .as_ref()
                .map(|m| self.multi_region_configuration(m, region, primary)),
            pending_deletion_window_in_days: self.pending_window_days.filter(|_| self.deletion_ms.is_some()),
            mac_algorithms: spec::mac_algorithm(&spec).map(|a| vec![a]),
            current_key_material_id: self.current().filter(|_| symmetric).map(|m| m.id.clone()),
            ..KeyMetadata::default()
        }
    }

    fn multi_region_configuration(
        &self,
        m: &MultiRegion,
        region: &str,
        primary: Option<&KeyRecord>,
    ) -> MultiRegionConfiguration {
        let replicas = primary
            .and_then(|p| p.multi_region.as_ref())
            .map_or(&m.replicas, |p| &p.replicas);
        let arn_in = |r: &str| replace_region(&self.arn, region, r);
        MultiRegionConfiguration {
            multi_region_key_type: Some(if m.primary_region == region {
                MultiRegionKeyType::Primary
            } else {
                MultiRegionKeyType::Replica
            }),
            primary_key: Some(MultiRegionKey {
                arn: Some(arn_in(&m.primary_region)),
                region: Some(m.primary_region.clone()),
            }),
            replica_keys: Some(
                replicas
                    .iter()
                    .map(|r| MultiRegionKey {
                        arn: Some(arn_in(r)),
                        region: Some(r.clone()),
                    })
                    .collect(),
            ),
        }
    }
}

/// The ARN `arn` (of a resource in `from`) names in region `to`.
pub(crate) fn replace_region(arn: &str, from: &str, to: &str) -> String {
    arn.replacen(&format!(":{from}:"), &format!(":{to}:"), 1)
}

/// A fresh key id: a UUID (version 4), or `mrk-` and 32 hex digits for a multi-region key.
pub(crate) fn new_key_id(multi_region: bool) -> String {
    if multi_region {
        format!("mrk-{}", hex::encode(&crypto::random_bytes(16)))
    } else {
        stratus_core::id::uuid()
    }
}

/// Whether `s` has the form of a key id KMS makes (it may still name no key).
pub(crate) fn is_key_id(s: &str) -> bool {
    let hex_digits = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(rest) = s.strip_prefix("mrk-") {
        return hex_digits(rest, 32);
    }
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5 && parts.iter().zip([8, 4, 4, 4, 12]).all(|(p, n)| hex_digits(p, n))
}

/// The default key policy, as AWS writes it for a key created without one.
pub(crate) fn default_policy(account: &str, partition: &str) -> String {
    format!(
        "{{\n  \"Version\" : \"2012-10-17\",\n  \"Id\" : \"key-default-1\",\n  \"Statement\" : [ {{\n    \"Sid\" : \"Enable IAM User Permissions\",\n    \"Effect\" : \"Allow\",\n    \"Principal\" : {{\n      \"AWS\" : \"arn:{partition}:iam::{account}:root\"\n    }},\n    \"Action\" : \"kms:*\",\n    \"Resource\" : \"*\"\n  }} ]\n}}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ids_have_kms_forms() {
        let id = new_key_id(false);
        assert!(is_key_id(&id), "{id}");
        let mrk = new_key_id(true);
        assert!(mrk.starts_with("mrk-") && is_key_id(&mrk));
        for bad in ["fake-key-id", "134f2428cec14b25a1ae9048164dba47", "mrk-fake-key-id", ""] {
            assert!(!is_key_id(bad), "{bad}");
        }
    }

    #[test]
    fn material_ids_round_trip_through_bytes() {
        let m = Material::new(b"k", None);
        assert_eq!(hex::encode(&m.id_bytes()), m.id);
    }

    #[test]
    fn default_policy_is_json() {
        let p: serde_json::Value = serde_json::from_str(&default_policy("111122223333", "aws")).unwrap();
        assert_eq!(p["Statement"][0]["Principal"]["AWS"], "arn:aws:iam::111122223333:root");
    }
}
