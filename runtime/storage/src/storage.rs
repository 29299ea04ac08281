//! The [`Storage`] handle: opens the configured backend and hands out one [`Store`] per
//! namespace.
//!
//! ```
//! use stratus_storage::{Durability, Namespace, Storage, StorageConfig};
//!
//! let dir = tempfile::tempdir()?;
//! let storage = Storage::open(StorageConfig::DataDir(dir.path().into()))?;
//! // A second Stratus on the same directory is refused at once.
//! assert!(Storage::open(StorageConfig::DataDir(dir.path().into())).is_err());
//!
//! let iam = storage.store(&Namespace::global("000000000000", "iam"), Durability::Strict)?;
//! assert_eq!(iam.get("users", b"alice")?, None); // reads create nothing
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::api::{Durability, Namespace, Store};
use crate::error::Result;
use crate::layout::DataDir;
use crate::memory::MemoryStore;
use crate::redb_store::{RedbFile, RedbStore};

/// Which backend to open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageConfig {
    /// Durable stores (redb) under this data directory, which is created if missing and
    /// locked against a second Stratus.
    DataDir(PathBuf),
    /// In-memory stores, gone when the process ends (`--ephemeral`, tests).
    Ephemeral,
}

/// The storage of one Stratus process.
pub struct Storage {
    backend: Backend,
}

enum Backend {
    Disk {
        dir: Arc<DataDir>,
        files: Mutex<HashMap<Namespace, Arc<RedbFile>>>,
    },
    Memory {
        stores: Mutex<HashMap<Namespace, Arc<MemoryStore>>>,
    },
}

impl Storage {
    /// Opens the backend. For a data directory this takes its lock, failing at once with
    /// [`StorageError::Locked`](crate::StorageError::Locked) when another process holds it;
    /// no store is opened or created yet.
    pub fn open(config: StorageConfig) -> Result<Self> {
        let backend = match config {
            StorageConfig::DataDir(root) => Backend::Disk {
                dir: Arc::new(DataDir::lock(&root)?),
                files: Mutex::default(),
            },
            StorageConfig::Ephemeral => Backend::Memory {
                stores: Mutex::default(),
            },
        };
        Ok(Storage { backend })
    }

    /// The data directory, unless ephemeral.
    pub fn data_dir(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Disk { dir, .. } => Some(dir.root()),
            Backend::Memory { .. } => None,
        }
    }

    /// The regional namespaces of `service` that hold a store (written at least once, in
    /// this process or an earlier one), in account and region order: for a service that must
    /// resume work on its own after a restart, such as DynamoDB's time to live.
    pub fn regional_namespaces(&self, service: &str) -> Result<Vec<Namespace>> {
        match &self.backend {
            Backend::Disk { dir, .. } => dir.regional_namespaces(service),
            Backend::Memory { stores } => {
                let stores = stores.lock().unwrap_or_else(PoisonError::into_inner);
                let mut found: Vec<Namespace> = stores
                    .keys()
                    .filter(|n| n.service == service && n.region.is_some())
                    .cloned()
                    .collect();
                found.sort_by(|a, b| (&a.account, &a.region).cmp(&(&b.account, &b.region)));
                Ok(found)
            }
        }
    }

    /// Every regional store of `service`, opened with `durability`, with its account and
    /// region: what a service's sweeps and restarts walk. Stores that fail to open are left
    /// out (each is reported when next used on its own).
    pub fn regional_stores(&self, service: &str, durability: Durability) -> Vec<(String, String, Arc<dyn Store>)> {
        let Ok(namespaces) = self.regional_namespaces(service) else {
            return Vec::new();
        };
        namespaces
            .into_iter()
            .filter_map(|ns| {
                let store = self.store(&ns, durability).ok()?;
                Some((ns.account, ns.region?, store))
            })
            .collect()
    }

    /// The store of `namespace`, with the durability its service needs.
    ///
    /// An existing store is opened now (so a damaged or newer store is reported here); a new
    /// one is created by its first write. Handles to the same namespace share one store;
    /// each commits with its own durability.
    pub fn store(&self, namespace: &Namespace, durability: Durability) -> Result<Arc<dyn Store>> {
        namespace.validate()?;
        match &self.backend {
            Backend::Disk { dir, files } => {
                let file = cached(files, namespace, || {
                    RedbFile::open(dir.store_path(namespace), dir.blob_dir(namespace), dir.clone())
                })?;
                Ok(Arc::new(RedbStore::new(file, durability)))
            }
            Backend::Memory { stores } => Ok(cached(stores, namespace, || Ok(MemoryStore::default()))?),
        }
    }
}

/// The value cached for `namespace`, made (and cached) if missing.
fn cached<T>(
    cache: &Mutex<HashMap<Namespace, Arc<T>>>,
    namespace: &Namespace,
    make: impl FnOnce() -> Result<T>,
) -> Result<Arc<T>> {
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(value) = cache.get(namespace) {
        return Ok(value.clone());
    }
    let value = Arc::new(make()?);
    cache.insert(namespace.clone(), value.clone());
    Ok(value)
}
