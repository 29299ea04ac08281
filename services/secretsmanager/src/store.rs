//! The tables of a `secretsmanager` store.

use stratus_storage::Table;

use crate::secret::SecretRecord;

/// Secrets by name, each with its versions.
pub(crate) const SECRETS: Table<SecretRecord> = Table::new("secrets");

/// The outbox of rotations started and not yet run (`stratus-outbox`).
pub(crate) const ROTATIONS: &str = "rotations";
