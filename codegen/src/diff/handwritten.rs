//! Which operations the hand-written service crates implement.
//!
//! A service crate is a folder under the services root (`services/` in the repository) whose
//! `Cargo.toml` depends on generated crates: depending on `stratus-gen-<sdk-id>` is what makes
//! it the implementation of that service (`services/dynamodb` implements both `dynamodb` and
//! `dynamodb-streams`), so no table maps services to folders.
//!
//! An operation counts as implemented when the crate's `src/` defines a function named as the
//! generated trait's method (`fn receive_message(`, as a trait impl or the operation function
//! an `operations!` table wires up), or starts a row of such a table with the method
//! (`list_tags_of_resource in run => control::list_tags`, `create_bucket => …`). This reads
//! the source as text: a helper function that happens to bear an operation's name counts too,
//! which errs towards reporting an operation as affected.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::names;
use crate::Error;

/// The generated crates are named `stratus-gen-<sdk-id>`.
const GENERATED_CRATE_PREFIX: &str = "stratus-gen-";

/// The service crates under one root, by the sdk id each implements.
#[derive(Debug, Default)]
pub struct ServiceCrates {
    by_sdk_id: BTreeMap<String, ServiceCrate>,
}

/// One service crate's source, read once.
#[derive(Debug, Clone)]
pub struct ServiceCrate {
    /// The crate's folder, as the services root was given joined with the folder name.
    pub dir: PathBuf,
    source: String,
}

#[derive(Deserialize)]
struct CargoManifest {
    #[serde(default)]
    dependencies: BTreeMap<String, serde::de::IgnoredAny>,
}

impl ServiceCrates {
    /// Reads every crate folder directly under `root`.
    pub fn scan(root: &Path) -> Result<ServiceCrates, Error> {
        let mut crates = ServiceCrates::default();
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
            .map_err(|e| Error::io(root, e))?
            .flatten()
            .map(|entry| entry.path())
            .filter(|dir| dir.join("Cargo.toml").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            let manifest_path = dir.join("Cargo.toml");
            let text = std::fs::read_to_string(&manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
            let manifest: CargoManifest =
                toml::from_str(&text).map_err(|e| Error::Manifest(format!("{}: {e}", manifest_path.display())))?;
            let sdk_ids: BTreeSet<&str> = manifest
                .dependencies
                .keys()
                .filter_map(|name| name.strip_prefix(GENERATED_CRATE_PREFIX))
                .filter(|sdk_id| *sdk_id != "registry")
                .collect();
            if sdk_ids.is_empty() {
                continue;
            }
            let service_crate = ServiceCrate {
                source: read_sources(&dir.join("src"))?,
                dir: dir.clone(),
            };
            for sdk_id in sdk_ids {
                crates.by_sdk_id.insert(sdk_id.to_string(), service_crate.clone());
            }
        }
        Ok(crates)
    }

    /// The crate implementing `sdk_id`, if any.
    pub fn for_service(&self, sdk_id: &str) -> Option<&ServiceCrate> {
        self.by_sdk_id.get(sdk_id)
    }

    /// A crate standing for `source`, for tests.
    #[cfg(test)]
    pub(crate) fn from_source(sdk_id: &str, source: &str) -> ServiceCrates {
        let service_crate = ServiceCrate {
            dir: PathBuf::from("services").join(sdk_id),
            source: source.to_string(),
        };
        ServiceCrates {
            by_sdk_id: BTreeMap::from([(sdk_id.to_string(), service_crate)]),
        }
    }
}

impl ServiceCrate {
    /// Whether the crate implements operation `operation` (its Smithy name).
    pub fn implements(&self, operation: &str) -> bool {
        let method = names::field_name(operation);
        self.source.contains(&format!("fn {method}("))
            || occurs_as_word(&self.source, &format!("{method} =>"))
            || occurs_as_word(&self.source, &format!("{method} in "))
    }
}

/// Whether `needle` occurs in `text` not preceded by an identifier character.
fn occurs_as_word(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Every `.rs` file under `dir`, joined.
fn read_sources(dir: &Path) -> Result<String, Error> {
    let mut source = String::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                source.push_str(&std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?);
                source.push('\n');
            }
        }
    }
    Ok(source)
}
