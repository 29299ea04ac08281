//! The redb backend: one redb database file per namespace, opened lazily.
//!
//! - The file is created by the first transaction that writes, never by a read: reads of a
//!   store whose file does not exist answer empty.
//! - An existing file is opened when its store is first asked for, and its schema version
//!   (in the `stratus:meta` table) checked in a read transaction; the version is written when
//!   the file is created.
//! - Service tables are redb tables named `t:<table>`, mapping bytes to bytes.
//! - Writes go through [`GroupCommit`]. Strict commits are fsynced; relaxed ones are not,
//!   except that the first relaxed commit after [`RELAXED_FLUSH_INTERVAL`] without a durable
//!   one is made durable, bounding what a crash can lose (redb also makes pending commits
//!   durable when the database closes).
//! - After a failed write (a full disk, an I/O error) the database is closed and reopened by
//!   the next operation, which lets redb recover the file; only the failed transactions see
//!   an error.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use redb::{
    Builder, Database, ReadOnlyTable, ReadableDatabase, ReadableTable, TableDefinition, TableError, WriteTransaction,
};

use crate::api::{Blob, Durability, KeyValue, Store};
use crate::blob::BlobDir;
use crate::error::{Result, StorageError};
use crate::group_commit::{CommitTarget, GroupCommit};
use crate::layout::{create_dirs, sync_dir, DataDir};
use crate::range::{Direction, KeyRange};
use crate::tx::{run, EmptyView, ReadView, Tx, WriteSet};

/// The newest store schema this build reads and the one it writes.
pub const SCHEMA_VERSION: u32 = 1;

/// How long relaxed commits may go without a durable one.
pub(crate) const RELAXED_FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// The table that holds a store's metadata.
const META: TableDefinition<&str, u32> = TableDefinition::new("stratus:meta");

/// The metadata key of the schema version.
const SCHEMA_KEY: &str = "schema_version";

/// redb's page cache per store (its default, 1 GiB, is meant for one database per process).
const CACHE_BYTES: usize = 64 << 20;

type DataTable = ReadOnlyTable<&'static [u8], &'static [u8]>;

/// The redb table that holds service table `name`.
/// Calls `f` with the redb table that holds the service table `name` (`t:` and the name),
/// spelled on the stack for the short names services use: a point read is a few hundred
/// nanoseconds, and allocating the name was a tenth of them.
fn with_data_table<R>(name: &str, f: impl FnOnce(&str) -> R) -> R {
    const PREFIX: &[u8] = b"t:";
    let mut buf = [0u8; 64];
    match buf.get_mut(..PREFIX.len() + name.len()) {
        Some(spelled) => {
            spelled[..PREFIX.len()].copy_from_slice(PREFIX);
            spelled[PREFIX.len()..].copy_from_slice(name.as_bytes());
            f(std::str::from_utf8(spelled).expect("an ASCII prefix and a str"))
        }
        None => f(&format!("t:{name}")),
    }
}

fn definition(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

/// One namespace's database file and blob directory, shared by its [`RedbStore`] handles.
pub(crate) struct RedbFile {
    path: PathBuf,
    blobs: BlobDir,
    /// The open database; `None` until the file exists, and after a failed write.
    db: RwLock<Option<Arc<Database>>>,
    group: GroupCommit<Option<WriteTransaction>>,
    last_durable: Mutex<Instant>,
    /// Keeps the data directory locked while the file is in use.
    _data_dir: Arc<DataDir>,
}

impl RedbFile {
    /// The store at `path`; an existing file is opened (and its schema checked) now.
    // How much a crash may lose is measured in the machine's time, not the services' clock.
    #[allow(clippy::disallowed_methods)]
    pub(crate) fn open(path: PathBuf, blob_dir: PathBuf, data_dir: Arc<DataDir>) -> Result<Self> {
        let file = RedbFile {
            path,
            blobs: BlobDir::new(blob_dir),
            db: RwLock::default(),
            group: GroupCommit::default(),
            last_durable: Mutex::new(Instant::now()),
            _data_dir: data_dir,
        };
        file.existing()?;
        Ok(file)
    }

    fn current(&self) -> Option<Arc<Database>> {
        self.db.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The database, if its file exists.
    fn existing(&self) -> Result<Option<Arc<Database>>> {
        if let Some(db) = self.current() {
            return Ok(Some(db));
        }
        let exists = self
            .path
            .try_exists()
            .map_err(|err| StorageError::io("look for", &self.path, err))?;
        exists.then(|| self.created()).transpose()
    }

    /// The database, creating its file if needed.
    fn created(&self) -> Result<Arc<Database>> {
        if let Some(db) = self.current() {
            return Ok(db);
        }
        let mut slot = self.db.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(db) = &*slot {
            return Ok(db.clone());
        }
        let db = Arc::new(open_database(&self.path)?);
        *slot = Some(db.clone());
        Ok(db)
    }

    /// Closes the database after a failed write, so the next operation reopens (and redb
    /// recovers) the file; returns the failure.
    fn failed(&self, err: impl Into<redb::Error>) -> StorageError {
        *self.db.write().unwrap_or_else(PoisonError::into_inner) = None;
        redb_error(&self.path, err)
    }

    /// Runs `read` on table `name` in a read transaction; a missing file or table reads as
    /// empty (`R::default()`).
    fn read<R: Default>(
        &self,
        name: &str,
        read: impl FnOnce(&DataTable) -> Result<R, redb::StorageError>,
    ) -> Result<R> {
        let Some(db) = self.existing()? else {
            return Ok(R::default());
        };
        let txn = db.begin_read().map_err(|err| redb_error(&self.path, err))?;
        with_data_table(name, |table| match txn.open_table(definition(table)) {
            Ok(table) => read(&table).map_err(|err| redb_error(&self.path, err)),
            Err(TableError::TableDoesNotExist(_)) => Ok(R::default()),
            Err(err) => Err(redb_error(&self.path, err)),
        })
    }
}

impl CommitTarget for RedbFile {
    /// `None` while the file does not exist: the transaction reads as empty, and the file is
    /// created when a closure first has something to write.
    type Txn = Option<WriteTransaction>;

    fn begin(&self) -> Result<Self::Txn> {
        match self.existing()? {
            Some(db) => db.begin_write().map(Some).map_err(|err| self.failed(err)),
            None => Ok(None),
        }
    }

    fn apply(&self, txn: &mut Self::Txn, writes: WriteSet) -> Result<()> {
        let txn = match txn {
            Some(txn) => txn,
            None => txn.insert(self.created()?.begin_write().map_err(|err| self.failed(err))?),
        };
        write_all(txn, &writes).map_err(|err| self.failed(err))
    }

    // How much a crash may lose is measured in the machine's time, not the services' clock.
    #[allow(clippy::disallowed_methods)]
    fn commit(&self, txn: Self::Txn, strict: bool) -> Result<()> {
        let Some(mut txn) = txn else {
            return Ok(());
        };
        let mut last_durable = self.last_durable.lock().unwrap_or_else(PoisonError::into_inner);
        let durable = strict || last_durable.elapsed() >= RELAXED_FLUSH_INTERVAL;
        if !durable {
            txn.set_durability(redb::Durability::None)
                .map_err(|err| self.failed(err))?;
        }
        txn.commit().map_err(|err| self.failed(err))?;
        if durable {
            *last_durable = Instant::now();
        }
        Ok(())
    }
}

fn write_all(txn: &WriteTransaction, writes: &WriteSet) -> Result<(), redb::Error> {
    for (name, table_writes) in writes.tables() {
        let mut table = with_data_table(name, |table| txn.open_table(definition(table)))?;
        for (key, value) in table_writes {
            match value {
                Some(value) => drop(table.insert(key.as_slice(), value.as_slice())?),
                None => drop(table.remove(key.as_slice())?),
            }
        }
    }
    Ok(())
}

/// A transaction's view of the open write transaction. (Opening a table that does not exist
/// creates it empty, which no reader can tell from a missing one.)
struct WriteView<'t> {
    txn: &'t WriteTransaction,
    path: &'t Path,
}

impl WriteView<'_> {
    fn open(&self, name: &str) -> Result<redb::Table<'_, &'static [u8], &'static [u8]>> {
        with_data_table(name, |table| self.txn.open_table(definition(table))).map_err(|err| redb_error(self.path, err))
    }
}

impl ReadView for WriteView<'_> {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        table_get(&self.open(table)?, key).map_err(|err| redb_error(self.path, err))
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: usize) -> Result<Vec<KeyValue>> {
        table_scan(&self.open(table)?, range, direction, limit).map_err(|err| redb_error(self.path, err))
    }
}

fn table_get(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    key: &[u8],
) -> Result<Option<Vec<u8>>, redb::StorageError> {
    Ok(table.get(key)?.map(|value| value.value().to_vec()))
}

fn table_scan(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    range: &KeyRange,
    direction: Direction,
    limit: usize,
) -> Result<Vec<KeyValue>, redb::StorageError> {
    let Some(bounds) = range.bounds() else {
        return Ok(Vec::new());
    };
    let rows = table.range::<&[u8]>(bounds)?;
    match direction {
        Direction::Forward => collect_rows(rows, limit),
        Direction::Backward => collect_rows(rows.rev(), limit),
    }
}

type Row<'a> = (
    redb::AccessGuard<'a, &'static [u8]>,
    redb::AccessGuard<'a, &'static [u8]>,
);

/// The first `limit` rows, copied out of the database.
fn collect_rows<'a>(
    rows: impl Iterator<Item = Result<Row<'a>, redb::StorageError>>,
    limit: usize,
) -> Result<Vec<KeyValue>, redb::StorageError> {
    let mut entries = Vec::new();
    for row in rows.take(limit) {
        let (key, value) = row?;
        entries.push((key.value().to_vec(), value.value().to_vec()));
    }
    Ok(entries)
}

/// A handle on a [`RedbFile`] with the durability its service asked for.
pub(crate) struct RedbStore {
    file: Arc<RedbFile>,
    durability: Durability,
}

impl RedbStore {
    pub(crate) fn new(file: Arc<RedbFile>, durability: Durability) -> Self {
        RedbStore { file, durability }
    }

    fn strict(&self) -> bool {
        self.durability == Durability::Strict
    }
}

impl Store for RedbStore {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.file.read(table, |table| table_get(table, key))
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>> {
        let limit = limit.unwrap_or(usize::MAX);
        self.file
            .read(table, |table| table_scan(table, range, direction, limit))
    }

    fn transact_dyn(&self, body: &mut dyn FnMut(&mut Tx<'_>) -> bool) -> Result<()> {
        let path = &self.file.path;
        self.file.group.execute(&*self.file, self.strict(), |txn| match txn {
            Some(txn) => run(&WriteView { txn, path }, body),
            None => run(&EmptyView, body),
        })
    }

    fn put_blob(&self, name: &str, body: &mut dyn Read) -> Result<u64> {
        self.file.blobs.put(name, body, self.strict())
    }

    fn open_blob(&self, name: &str) -> Result<Option<Blob>> {
        self.file.blobs.open(name)
    }

    fn delete_blob(&self, name: &str) -> Result<bool> {
        self.file.blobs.delete(name, self.strict())
    }
}

/// Opens (creating if needed) the database at `path` and checks its schema version.
fn open_database(path: &Path) -> Result<Database> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_dirs(dir).map_err(|err| StorageError::io("create the directory", dir, err))?;
    let created = !path
        .try_exists()
        .map_err(|err| StorageError::io("look for", path, err))?;
    let db = Builder::new()
        .set_cache_size(CACHE_BYTES)
        .create(path)
        .map_err(|err| redb_error(path, err))?;
    if created {
        sync_dir(dir).map_err(|err| StorageError::io("sync the directory", dir, err))?;
    }
    check_schema(&db, path)?;
    Ok(db)
}

/// Refuses a store of a newer schema; records the current version in a new one.
fn check_schema(db: &Database, path: &Path) -> Result<()> {
    let error = |err: redb::Error| redb_error(path, err);
    let found = match db.begin_read().map_err(|err| error(err.into()))?.open_table(META) {
        Ok(meta) => meta
            .get(SCHEMA_KEY)
            .map_err(|err| error(err.into()))?
            .map(|version| version.value()),
        Err(TableError::TableDoesNotExist(_)) => None,
        Err(err) => return Err(error(err.into())),
    };
    match found {
        Some(found) if found > SCHEMA_VERSION => Err(StorageError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        }),
        Some(_) => Ok(()),
        None => write_schema_version(db).map_err(error),
    }
}

fn write_schema_version(db: &Database) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    txn.open_table(META)?.insert(SCHEMA_KEY, SCHEMA_VERSION)?;
    txn.commit()?;
    Ok(())
}

/// Words a redb error for the user.
fn redb_error(path: &Path, err: impl Into<redb::Error>) -> StorageError {
    let path = path.to_path_buf();
    match err.into() {
        redb::Error::Io(err) => StorageError::io("access", &path, err),
        redb::Error::Corrupted(detail) => StorageError::Corrupt { path, detail },
        err @ (redb::Error::UpgradeRequired(_)
        | redb::Error::TableTypeMismatch { .. }
        | redb::Error::TableIsMultimap(_)) => StorageError::Corrupt {
            path,
            detail: err.to_string(),
        },
        err => StorageError::Database {
            path,
            detail: err.to_string(),
        },
    }
}
