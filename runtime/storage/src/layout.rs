//! Where stores live in the data directory, and the lock that keeps it to one Stratus.
//!
//! ```text
//! <data-dir>/stratus.lock                          held (flock) while Stratus runs
//! <data-dir>/<account>/<region>/<service>.redb     a regional service's store
//! <data-dir>/<account>/<region>/<service>.blobs/   its blobs
//! <data-dir>/<account>/<service>.redb              a global service's store (IAM, STS)
//! <data-dir>/<account>/<service>.blobs/
//! ```
//!
//! Directories and files are created on a store's first write, never by a read.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use crate::api::Namespace;
use crate::error::{Result, StorageError};

/// The name of the lock file in the data directory.
pub(crate) const LOCK_FILE: &str = "stratus.lock";

/// A data directory this process holds the lock on; released when dropped.
#[derive(Debug)]
pub(crate) struct DataDir {
    root: PathBuf,
    _lock: File,
}

impl DataDir {
    /// Creates the data directory if needed and takes its lock, failing at once (with
    /// [`StorageError::Locked`]) if another process holds it.
    pub(crate) fn lock(root: &Path) -> Result<Self> {
        fs::create_dir_all(root).map_err(|err| StorageError::io("create the data directory", root, err))?;
        let lock_path = root.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|err| StorageError::io("create the lock file", &lock_path, err))?;
        match lock.try_lock() {
            Ok(()) => Ok(DataDir {
                root: root.to_path_buf(),
                _lock: lock,
            }),
            Err(TryLockError::WouldBlock) => Err(StorageError::Locked {
                dir: root.to_path_buf(),
                lock: lock_path,
            }),
            Err(TryLockError::Error(err)) => Err(StorageError::io("lock the data directory with", &lock_path, err)),
        }
    }

    /// The data directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The database file of `namespace`.
    pub(crate) fn store_path(&self, namespace: &Namespace) -> PathBuf {
        self.namespace_dir(namespace)
            .join(format!("{}.redb", namespace.service))
    }

    /// The blob directory of `namespace`.
    pub(crate) fn blob_dir(&self, namespace: &Namespace) -> PathBuf {
        self.namespace_dir(namespace)
            .join(format!("{}.blobs", namespace.service))
    }

    /// The regional namespaces of `service` that have a store on disk.
    pub(crate) fn regional_namespaces(&self, service: &str) -> Result<Vec<Namespace>> {
        let file = format!("{service}.redb");
        let mut found = Vec::new();
        for account in subdirectories(&self.root)? {
            for region in subdirectories(&self.root.join(&account))? {
                let namespace = Namespace::regional(&account, &region, service);
                if namespace.validate().is_ok() && self.root.join(&account).join(&region).join(&file).is_file() {
                    found.push(namespace);
                }
            }
        }
        found.sort_by(|a, b| (&a.account, &a.region).cmp(&(&b.account, &b.region)));
        Ok(found)
    }

    fn namespace_dir(&self, namespace: &Namespace) -> PathBuf {
        let account = self.root.join(&namespace.account);
        match &namespace.region {
            Some(region) => account.join(region),
            None => account,
        }
    }
}

/// The names of the directories in `dir` that are valid UTF-8.
fn subdirectories(dir: &Path) -> Result<Vec<String>> {
    let entries = fs::read_dir(dir).map_err(|err| StorageError::io("list the directory", dir, err))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| StorageError::io("list the directory", dir, err))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            names.extend(entry.file_name().into_string().ok());
        }
    }
    Ok(names)
}

/// Creates `dir` and its missing parents, fsyncing each new directory's parent so that the
/// new entries survive a crash.
pub(crate) fn create_dirs(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut existing = dir;
    while !existing.try_exists()? {
        missing.push(existing);
        match existing.parent() {
            Some(parent) => existing = parent,
            None => break,
        }
    }
    for new_dir in missing.into_iter().rev() {
        match fs::create_dir(new_dir) {
            Err(err) if err.kind() != io::ErrorKind::AlreadyExists => return Err(err),
            _ => {}
        }
        if let Some(parent) = new_dir.parent() {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

/// Fsyncs a directory, making the creation, renaming or removal of its entries durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
