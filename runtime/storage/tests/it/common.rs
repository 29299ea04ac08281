//! Helpers shared by the integration tests: a storage of either backend, and short forms.

use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, StorageConfig};
use stratus_storage::{StorageError, Store};
use tempfile::TempDir;

/// The backends every behaviour test runs against.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Backend {
    Redb,
    Memory,
}

/// An open storage, with the temporary data directory it lives in (redb).
pub(crate) struct Harness {
    pub storage: Storage,
    pub dir: Option<TempDir>,
}

impl Harness {
    pub(crate) fn open(backend: Backend) -> Self {
        match backend {
            Backend::Redb => {
                let dir = tempfile::tempdir().unwrap();
                let storage = Storage::open(StorageConfig::DataDir(dir.path().into())).unwrap();
                Harness {
                    storage,
                    dir: Some(dir),
                }
            }
            Backend::Memory => Harness {
                storage: Storage::open(StorageConfig::Ephemeral).unwrap(),
                dir: None,
            },
        }
    }

    /// Closes the storage and opens it again on the same data directory (redb); an
    /// ephemeral storage is kept as it is.
    pub(crate) fn reopen(self) -> Self {
        let Harness { storage, dir } = self;
        let Some(dir) = dir else {
            return Harness { storage, dir: None };
        };
        drop(storage);
        let storage = relock(dir.path());
        Harness {
            storage,
            dir: Some(dir),
        }
    }

    /// The test namespace's store.
    pub(crate) fn store(&self) -> Arc<dyn Store> {
        self.storage.store(&namespace(), Durability::Strict).unwrap()
    }
}

/// Opens the data directory at `path` that this process has just released.
///
/// The lock is an `flock` on an open file, and a sibling test spawning a process (the crash
/// tests do) shares every open file with its child for the moment between fork and exec;
/// a release that falls in that moment takes effect only at the exec, so a reopen may find
/// the directory locked for a few milliseconds.
#[allow(clippy::disallowed_methods)]
fn relock(path: &Path) -> Storage {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match Storage::open(StorageConfig::DataDir(path.into())) {
            Err(StorageError::Locked { .. }) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            opened => return opened.unwrap(),
        }
    }
}

pub(crate) fn namespace() -> Namespace {
    Namespace::regional("000000000000", "us-east-1", "test")
}

/// Commits `writes` (`Some` puts, `None` deletes) to `table` in one transaction.
pub(crate) fn write(store: &dyn Store, table: &str, writes: &[(&str, Option<&str>)]) {
    store
        .transact(|tx| {
            for (key, value) in writes {
                match value {
                    Some(value) => tx.put(table, key.as_bytes(), value.as_bytes()),
                    None => tx.delete(table, key.as_bytes()),
                }
            }
            Ok::<_, StorageError>(())
        })
        .unwrap();
}

/// The keys of a scan, as strings.
pub(crate) fn keys(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Vec<String> {
    entries
        .into_iter()
        .map(|(key, _)| String::from_utf8(key).unwrap())
        .collect()
}

/// The keys a store scan returns.
pub(crate) fn scan_keys(
    store: &dyn Store,
    table: &str,
    range: KeyRange,
    direction: Direction,
    limit: Option<usize>,
) -> Vec<String> {
    keys(store.scan(table, &range, direction, limit).unwrap())
}
