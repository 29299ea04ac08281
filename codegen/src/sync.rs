//! `make models`: copy the pinned model files into `models/json/`, checking their hashes.
//!
//! The source directory is either a flat folder of `<sdk-id>.json` files (as in
//! `../shared/aws-models`) or AWS's published layout
//! `<sdk-id>/service/<version>/<sdk-id>-<version>.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::manifest::{Manifest, ServiceEntry};
use crate::Error;

/// What to do when a file's hash differs from its pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnMismatch {
    Refuse,
    Repin,
}

/// Copies every pinned model from `source` into `dest`; with [`OnMismatch::Repin`] rewrites
/// the manifest's hashes instead of refusing. Returns the services whose pin changed.
pub fn sync_models(
    manifest_path: &Path,
    source: &Path,
    dest: &Path,
    on_mismatch: OnMismatch,
) -> Result<Vec<String>, Error> {
    let manifest = Manifest::load(manifest_path)?;
    std::fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))?;
    let mut manifest_text = std::fs::read_to_string(manifest_path).map_err(|e| Error::io(manifest_path, e))?;
    let mut repinned = Vec::new();
    for entry in &manifest.service {
        let file = locate(source, entry)?;
        let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
        let hash = sha256_hex(&bytes);
        if hash != entry.sha256 {
            match on_mismatch {
                OnMismatch::Refuse => {
                    return Err(Error::HashMismatch {
                        file,
                        pinned: entry.sha256.clone(),
                        found: hash,
                    })
                }
                OnMismatch::Repin => {
                    manifest_text = manifest_text.replace(&entry.sha256, &hash);
                    repinned.push(entry.sdk_id.clone());
                }
            }
        }
        let target = dest.join(&entry.model);
        std::fs::write(&target, &bytes).map_err(|e| Error::io(&target, e))?;
    }
    if !repinned.is_empty() {
        std::fs::write(manifest_path, manifest_text).map_err(|e| Error::io(manifest_path, e))?;
    }
    Ok(repinned)
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Finds a service's model in either supported layout.
fn locate(source: &Path, entry: &ServiceEntry) -> Result<PathBuf, Error> {
    let flat = source.join(&entry.model);
    if flat.is_file() {
        return Ok(flat);
    }
    newest_published(source, &entry.sdk_id).ok_or_else(|| Error::ModelMissing {
        sdk_id: entry.sdk_id.clone(),
        source_dir: source.to_path_buf(),
    })
}

/// Every model in `source` by sdk id, whichever layout each is in: `<sdk-id>.json`, or the
/// newest `<sdk-id>/service/<version>/<sdk-id>-<version>.json`.
pub fn model_files(source: &Path) -> Result<BTreeMap<String, PathBuf>, Error> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(source).map_err(|e| Error::io(source, e))? {
        let path = entry.map_err(|e| Error::io(source, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let model = match name.strip_suffix(".json") {
            Some(_) if path.is_file() => Some(path.clone()),
            _ if path.is_dir() => newest_published(source, name),
            _ => None,
        };
        if let Some(model) = model {
            found.insert(name.trim_end_matches(".json").to_string(), model);
        }
    }
    Ok(found)
}

/// The newest version of `sdk_id`'s model in AWS's published layout under `source`.
fn newest_published(source: &Path, sdk_id: &str) -> Option<PathBuf> {
    let versions = source.join(sdk_id).join("service");
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&versions)
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| {
            let v = version.file_name().to_string_lossy().into_owned();
            version.path().join(format!("{sdk_id}-{v}.json"))
        })
        .filter(|p| p.is_file())
        .collect();
    candidates.sort();
    candidates.pop()
}
