//! [`Read`]: the reads a committed store and a write transaction share, so a service writes
//! each lookup once and calls it with either.
//!
//! A [`Store`] reads committed data; a [`Tx`] reads the committed data plus its own writes.
//! `Arc<dyn Store>` (what [`Storage::store`](crate::Storage::store) returns) reads as its store.
//!
//! ```
//! use stratus_storage::{Durability, Namespace, Read, Storage, StorageConfig, StorageError};
//!
//! fn greeting(r: &(impl Read + ?Sized)) -> Result<Option<Vec<u8>>, StorageError> {
//!     r.get("greetings", b"en")
//! }
//!
//! let storage = Storage::open(StorageConfig::Ephemeral)?;
//! let store = storage.store(&Namespace::global("000000000000", "demo"), Durability::Strict)?;
//! store.transact(|tx| {
//!     tx.put("greetings", b"en".as_slice(), b"hello".as_slice());
//!     assert_eq!(greeting(tx)?.as_deref(), Some(&b"hello"[..])); // its own write
//!     Ok::<_, StorageError>(())
//! })?;
//! assert_eq!(greeting(&store)?.as_deref(), Some(&b"hello"[..]));
//! # Ok::<_, StorageError>(())
//! ```

use std::sync::Arc;

use crate::api::{KeyValue, Store};
use crate::error::Result;
use crate::range::{Direction, KeyRange};
use crate::tx::Tx;

/// Point reads and range scans, over a store or a transaction.
pub trait Read {
    /// The value of `key` in `table`.
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Entries of `table` within `range`, in `direction` order, at most `limit`.
    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>>;
}

impl Read for dyn Store + '_ {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Store::get(self, table, key)
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>> {
        Store::scan(self, table, range, direction, limit)
    }
}

impl Read for Tx<'_> {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Tx::get(self, table, key)
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>> {
        Tx::scan(self, table, range, direction, limit)
    }
}

impl<R: Read + ?Sized> Read for Arc<R> {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        (**self).get(table, key)
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>> {
        (**self).scan(table, range, direction, limit)
    }
}
