//! The interface services are written against: a [`Store`] per [`Namespace`].
//!
//! A store holds any number of tables (ordered maps from byte-string keys to byte-string
//! values, named by a `&str` in every call) and a set of blobs (large bodies, kept as files
//! beside the database). Reads see committed data; writes go through
//! [`transact`](Store#method.transact), whose closure reads its own writes and commits all of them
//! or, when it returns `Err`, none.
//!
//! The interface is synchronous: async callers run it on a blocking thread
//! (`tokio::task::spawn_blocking`), since a strict commit waits for the disk.
//!
//! ```
//! use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, StorageConfig};
//! use stratus_storage::StorageError;
//!
//! let storage = Storage::open(StorageConfig::Ephemeral)?;
//! let store = storage.store(&Namespace::regional("000000000000", "us-east-1", "sqs"), Durability::Strict)?;
//! store.transact(|tx| {
//!     if tx.get("queues", b"orders")?.is_none() {
//!         tx.put("queues", b"orders", b"{}");
//!     }
//!     Ok::<_, StorageError>(())
//! })?;
//! let queues = store.scan("queues", &KeyRange::prefix(b"ord"), Direction::Forward, Some(10))?;
//! assert_eq!(queues, vec![(b"orders".to_vec(), b"{}".to_vec())]);
//! # Ok::<_, StorageError>(())
//! ```

use std::io::{self, Read, Seek, SeekFrom};

use crate::error::{Result, StorageError};
use crate::range::{Direction, KeyRange};
use crate::tx::Tx;

/// A key and its value.
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// Whose data a store holds: one service in one account, in one region or global.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Namespace {
    /// The AWS account ID.
    pub account: String,
    /// The region; `None` for a global service such as IAM, kept once per account.
    pub region: Option<String>,
    /// The service's name, e.g. `sqs`.
    pub service: String,
}

impl Namespace {
    /// A regional service's namespace.
    pub fn regional(account: &str, region: &str, service: &str) -> Self {
        Namespace {
            account: account.to_owned(),
            region: Some(region.to_owned()),
            service: service.to_owned(),
        }
    }

    /// A global service's namespace, one per account.
    pub fn global(account: &str, service: &str) -> Self {
        Namespace {
            account: account.to_owned(),
            region: None,
            service: service.to_owned(),
        }
    }

    /// Checks that every component can name a directory or file.
    pub(crate) fn validate(&self) -> Result<()> {
        let component = |what, name: &str| {
            let valid = (1..=64).contains(&name.len())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            check_name(what, name, valid, "use 1 to 64 ASCII letters, digits, '-' or '_'")
        };
        component("account", &self.account)?;
        if let Some(region) = &self.region {
            component("region", region)?;
        }
        component("service", &self.service)
    }
}

/// How a store's commits reach the disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// A commit is on disk (fsynced) before [`transact`](Store#method.transact) returns. For
    /// everything that holds user data.
    #[default]
    Strict,
    /// Commits are not fsynced one by one: a crash may lose the last second or so of them,
    /// never the store's consistency. For high-volume disposable data such as metrics and log
    /// events.
    Relaxed,
}

/// One service's storage in one namespace. Obtained from [`Storage::store`](crate::Storage::store).
///
/// Call [`transact`](Store#method.transact) (on `dyn Store`) rather than
/// [`transact_dyn`](Store::transact_dyn). Do not start a transaction inside another
/// transaction's closure on the same store: it would wait for itself.
pub trait Store: Send + Sync {
    /// The committed value of `key` in `table`.
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Committed entries of `table` within `range`, in `direction` order, at most `limit`.
    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>>;

    /// Runs `body` once as a write transaction: its writes commit when it returns `true` and
    /// are dropped when it returns `false`. The object-safe core of
    /// [`transact`](Store#method.transact).
    fn transact_dyn(&self, body: &mut dyn FnMut(&mut Tx<'_>) -> bool) -> Result<()>;

    /// Stores `body` as blob `name`, replacing any blob of that name atomically: a reader sees
    /// the old body or the new one, never a mix. Returns the number of bytes written.
    ///
    /// Write the blob before committing the record that refers to it, and delete it after the
    /// record is gone, so that no record points at a missing blob.
    fn put_blob(&self, name: &str, body: &mut dyn Read) -> Result<u64>;

    /// The blob `name`, open for reading, if it exists.
    fn open_blob(&self, name: &str) -> Result<Option<Blob>>;

    /// Deletes the blob `name`; returns whether it existed.
    fn delete_blob(&self, name: &str) -> Result<bool>;
}

impl dyn Store + '_ {
    /// Runs `body` as a write transaction and returns its result.
    ///
    /// The closure's reads see the committed state plus its own writes; concurrent
    /// transactions on the store run one after another, each seeing all earlier ones. When the
    /// closure returns `Ok`, its writes commit (for a [`Durability::Strict`] store: reach the
    /// disk) before `transact` returns; when it returns `Err` (or panics), none of them are
    /// applied. A storage failure while committing is returned as `E::from(StorageError)`.
    pub fn transact<R, E>(&self, body: impl FnOnce(&mut Tx<'_>) -> Result<R, E>) -> Result<R, E>
    where
        E: From<StorageError>,
    {
        let mut body = Some(body);
        let mut outcome = None;
        self.transact_dyn(&mut |tx| {
            body.take().is_some_and(|body| {
                let result = body(tx);
                let commit = result.is_ok();
                outcome = Some(result);
                commit
            })
        })?;
        outcome.expect("a store runs the transaction body exactly once")
    }

    /// The whole of blob `name`, if it exists.
    pub fn get_blob(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(mut blob) = self.open_blob(name)? else {
            return Ok(None);
        };
        let mut body = Vec::new();
        blob.read_to_end(&mut body)
            .map_err(|err| StorageError::io("read blob", name.as_ref(), err))?;
        Ok(Some(body))
    }
}

/// A blob open for reading: `Read` + `Seek`, with its length known up front.
pub struct Blob {
    len: u64,
    source: Box<dyn BlobSource>,
}

trait BlobSource: Read + Seek + Send {}

impl<T: Read + Seek + Send> BlobSource for T {}

impl Blob {
    pub(crate) fn new(len: u64, source: impl Read + Seek + Send + 'static) -> Self {
        Blob {
            len,
            source: Box::new(source),
        }
    }

    /// The blob's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the blob is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Read for Blob {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.source.read(buf)
    }
}

impl Seek for Blob {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.source.seek(pos)
    }
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blob").field("len", &self.len).finish_non_exhaustive()
    }
}

/// Checks a blob name: it becomes a file name, so it is limited to a safe alphabet.
pub(crate) fn check_blob_name(name: &str) -> Result<()> {
    let valid = (1..=200).contains(&name.len())
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    check_name(
        "blob name",
        name,
        valid,
        "use 1 to 200 ASCII letters, digits, '-', '_' or '.', not starting with '.'",
    )
}

fn check_name(what: &'static str, name: &str, valid: bool, rule: &'static str) -> Result<()> {
    if valid {
        return Ok(());
    }
    Err(StorageError::InvalidName {
        what,
        name: name.to_owned(),
        rule,
    })
}
