//! What can go wrong in the storage layer, worded for the person running Stratus.
//!
//! Every variant names the file or directory involved and says what to do about it. The
//! type is `Clone` (I/O errors are shared behind an [`Arc`]) because one failed group commit
//! is reported to every transaction that shared it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A `Result` whose error is a [`StorageError`].
pub type Result<T, E = StorageError> = std::result::Result<T, E>;

/// An error of the storage layer.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// Another process (or another `Storage` in this one) holds the data directory.
    #[error(
        "data directory {} is in use by another Stratus process (it holds the lock on {}); \
         stop that process or give this one another data directory",
        dir.display(),
        lock.display()
    )]
    Locked {
        /// The data directory.
        dir: PathBuf,
        /// The lock file inside it.
        lock: PathBuf,
    },

    /// A file-system operation failed: permissions, a full disk, a path that is not a
    /// directory.
    #[error(
        "cannot {action} {}: {source}; check that the data directory is writable and its disk \
         has free space",
        path.display()
    )]
    Io {
        /// What was being done, as a verb phrase ("create the directory").
        action: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: Arc<io::Error>,
    },

    /// The store was written by a newer Stratus whose format this build cannot read.
    #[error(
        "{} was written by a newer Stratus (store schema version {found}; this build reads up to \
         {supported}); run that newer Stratus, or give this one another data directory",
        path.display()
    )]
    NewerSchema {
        /// The store's file.
        path: PathBuf,
        /// The schema version found in it.
        found: u32,
        /// The newest schema version this build reads.
        supported: u32,
    },

    /// The store's file is damaged or is not a Stratus store.
    #[error(
        "{} is damaged or not a Stratus store ({detail}); move it aside to start that service \
         afresh, or restore it from a backup",
        path.display()
    )]
    Corrupt {
        /// The store's file.
        path: PathBuf,
        /// What the database engine reported.
        detail: String,
    },

    /// Any other failure of the database engine.
    #[error("storage failure in {}: {detail}", path.display())]
    Database {
        /// The store's file.
        path: PathBuf,
        /// What the database engine reported.
        detail: String,
    },

    /// A namespace component or blob name that cannot be used as a file name.
    #[error("invalid {what} {name:?}: {rule}")]
    InvalidName {
        /// Which kind of name ("account", "blob name", …).
        what: &'static str,
        /// The name given.
        name: String,
        /// The rule it broke.
        rule: &'static str,
    },

    /// A stored record that its [`Table`](crate::Table)'s codec cannot read: written by
    /// something else, or damaged.
    #[error(
        "the record {key:?} in table {table} cannot be read ({reason}); it was written by another \
         program or is damaged"
    )]
    CorruptRecord {
        /// The table.
        table: &'static str,
        /// The record's key, with bytes that are not UTF-8 replaced.
        key: String,
        /// What the codec reported.
        reason: String,
    },

    /// A value that its [`Table`](crate::Table)'s codec cannot write (for JSON: a map whose
    /// keys are not strings, a failing `Serialize`).
    #[error("the record {key:?} for table {table} cannot be encoded: {reason}")]
    UnencodableRecord {
        /// The table.
        table: &'static str,
        /// The record's key, with bytes that are not UTF-8 replaced.
        key: String,
        /// What the codec reported.
        reason: String,
    },

    /// Blocking storage work run from async code ended without an answer: it panicked, or
    /// the runtime shut down first.
    #[error("storage work on a blocking thread failed: {detail}")]
    TaskFailed {
        /// What the async runtime reported.
        detail: String,
    },
}

impl StorageError {
    /// An [`StorageError::Io`] for `action` on `path`.
    pub(crate) fn io(action: &'static str, path: &Path, source: io::Error) -> Self {
        StorageError::Io {
            action,
            path: path.to_path_buf(),
            source: Arc::new(source),
        }
    }
}
