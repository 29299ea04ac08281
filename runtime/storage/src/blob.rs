//! Blobs on disk: large bodies (S3 objects, Lambda code) as files in a store's blob
//! directory, `<service>.blobs/` beside its database.
//!
//! A blob is written to a temporary file (a dot-file, which no blob name can be) and renamed
//! over its final name, so a reader sees the old body or the new one, never a torn one. For a
//! strict store the file is fsynced before the rename and the directory after it. Temporary
//! files left by a crash are swept on the first write after start-up.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use crate::api::{check_blob_name, Blob};
use crate::error::{Result, StorageError};
use crate::layout::{create_dirs, sync_dir};

/// Names temporary files apart within this process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

const TEMP_SUFFIX: &str = ".tmp";

/// One store's blob directory (created on the first write).
pub(crate) struct BlobDir {
    dir: PathBuf,
    swept: Once,
}

impl BlobDir {
    pub(crate) fn new(dir: PathBuf) -> Self {
        BlobDir {
            dir,
            swept: Once::new(),
        }
    }

    /// Writes blob `name` atomically; durably if `strict`.
    pub(crate) fn put(&self, name: &str, body: &mut dyn Read, strict: bool) -> Result<u64> {
        check_blob_name(name)?;
        create_dirs(&self.dir).map_err(|err| StorageError::io("create the blob directory", &self.dir, err))?;
        self.swept.call_once(|| self.sweep_temp_files());
        let path = self.dir.join(name);
        let temp = self.dir.join(format!(
            ".{name}.{}.{}{TEMP_SUFFIX}",
            std::process::id(),
            NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
        ));
        let written = write_then_rename(&temp, &path, body, strict);
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written.map_err(|err| StorageError::io("write blob", &path, err))
    }

    /// Opens blob `name` for reading.
    pub(crate) fn open(&self, name: &str) -> Result<Option<Blob>> {
        check_blob_name(name)?;
        let path = self.dir.join(name);
        let opened = File::open(&path).and_then(|file| Ok((file.metadata()?.len(), file)));
        match opened {
            Ok((len, file)) => Ok(Some(Blob::new(len, file))),
            Err(err) if is_absent(&err) => Ok(None),
            Err(err) => Err(StorageError::io("open blob", &path, err)),
        }
    }

    /// Deletes blob `name`; durably if `strict`.
    pub(crate) fn delete(&self, name: &str, strict: bool) -> Result<bool> {
        check_blob_name(name)?;
        let path = self.dir.join(name);
        match fs::remove_file(&path) {
            Ok(()) if strict => sync_dir(&self.dir)
                .map(|()| true)
                .map_err(|err| StorageError::io("sync the blob directory", &self.dir, err)),
            Ok(()) => Ok(true),
            Err(err) if is_absent(&err) => Ok(false),
            Err(err) => Err(StorageError::io("delete blob", &path, err)),
        }
    }

    /// Removes temporary files a crashed process left behind. Best effort: a leftover only
    /// takes space.
    fn sweep_temp_files(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

fn write_then_rename(temp: &Path, path: &Path, body: &mut dyn Read, strict: bool) -> io::Result<u64> {
    let mut file = File::create_new(temp)?;
    let written = io::copy(body, &mut file)?;
    if strict {
        file.sync_all()?;
    }
    drop(file);
    fs::rename(temp, path)?;
    if strict {
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
    }
    Ok(written)
}

/// Whether an error means the blob (or its directory) does not exist.
fn is_absent(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::NotFound
}
