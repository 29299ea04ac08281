//! The tables of a `kms` store and their keys.

use stratus_storage::tuple::TupleKey;
use stratus_storage::Table;

use crate::aliases::AliasRecord;
use crate::grants::GrantRecord;
use crate::keys::KeyRecord;

/// Keys by key id.
pub(crate) const KEYS: Table<KeyRecord> = Table::new("keys");
/// Aliases by alias name (`alias/…`).
pub(crate) const ALIASES: Table<AliasRecord> = Table::new("aliases");
/// Grants by (key id, grant id), so that a key's grants scan together.
pub(crate) const GRANTS: Table<GrantRecord> = Table::new("grants");

pub(crate) fn grant_key(key_id: &str, grant_id: &str) -> Vec<u8> {
    TupleKey::new().str(key_id).str(grant_id).into_bytes()
}

pub(crate) fn key_prefix(key_id: &str) -> Vec<u8> {
    TupleKey::new().str(key_id).into_bytes()
}
