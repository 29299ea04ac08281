//! Typed record tables: a [`Table`] names a storage table and how its records are encoded, so
//! a service puts and gets its own types and every undecodable record is reported the same
//! way ([`StorageError::CorruptRecord`]).
//!
//! Records are JSON ([`Json`]) unless the table names another [`Codec`]; keys are the raw
//! storage keys (a [`TupleKey`](crate::tuple::TupleKey), or a layout the service already has
//! on disk).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError, Table};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Queue {
//!     delay: u32,
//! }
//!
//! const QUEUES: Table<Queue> = Table::new("queues");
//!
//! let storage = Storage::open(StorageConfig::Ephemeral)?;
//! let store = storage.store(&Namespace::regional("000000000000", "us-east-1", "sqs"), Durability::Strict)?;
//! store.transact(|tx| QUEUES.put(tx, "orders", &Queue { delay: 5 }))?;
//! assert_eq!(QUEUES.get(&store, "orders")?, Some(Queue { delay: 5 }));
//! assert_eq!(QUEUES.scan_prefix(&store, "ord")?.len(), 1);
//!
//! store.transact(|tx| {
//!     tx.put("queues", b"broken".as_slice(), b"{".as_slice());
//!     Ok::<_, StorageError>(())
//! })?;
//! assert!(matches!(QUEUES.get(&store, "broken"), Err(StorageError::CorruptRecord { .. })));
//! # Ok::<_, StorageError>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Result, StorageError};
use crate::range::{Direction, KeyRange};
use crate::read::Read;
use crate::tx::Tx;

/// How a table's records of type `T` are written and read.
pub trait Codec<T> {
    /// The stored form of `value`; `Err` with the reason when it has none.
    fn encode(value: &T) -> std::result::Result<Vec<u8>, String>;

    /// The record stored as `bytes`; `Err` with the reason when they are not one.
    fn decode(bytes: &[u8]) -> std::result::Result<T, String>;
}

/// Records as JSON (`serde_json`), for any `Serialize + DeserializeOwned` type.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl<T: Serialize + DeserializeOwned> Codec<T> for Json {
    fn encode(value: &T) -> std::result::Result<Vec<u8>, String> {
        serde_json::to_vec(value).map_err(|e| e.to_string())
    }

    fn decode(bytes: &[u8]) -> std::result::Result<T, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// A storage table of `T` records, encoded by `C`.
pub struct Table<T, C = Json> {
    name: &'static str,
    types: PhantomData<fn() -> (T, C)>,
}

impl<T, C: Codec<T>> Table<T, C> {
    /// The table called `name` in the store.
    pub const fn new(name: &'static str) -> Self {
        Table {
            name,
            types: PhantomData,
        }
    }

    /// The table's name in the store.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The record at `key`, if there is one.
    pub fn get(&self, r: &(impl Read + ?Sized), key: impl AsRef<[u8]>) -> Result<Option<T>> {
        let key = key.as_ref();
        r.get(self.name, key)?.map(|bytes| self.decode(key, &bytes)).transpose()
    }

    /// Stores `value` at `key`, replacing any record there.
    pub fn put(&self, tx: &mut Tx<'_>, key: impl Into<Vec<u8>>, value: &T) -> Result<()> {
        let key = key.into();
        let bytes = C::encode(value).map_err(|reason| StorageError::UnencodableRecord {
            table: self.name,
            key: printable(&key),
            reason,
        })?;
        tx.put(self.name, key, bytes);
        Ok(())
    }

    /// Removes the record at `key` (nothing happens if there is none).
    pub fn delete(&self, tx: &mut Tx<'_>, key: impl Into<Vec<u8>>) {
        tx.delete(self.name, key);
    }

    /// The records within `range`, with their keys, in `direction` order, at most `limit`.
    pub fn scan(
        &self,
        r: &(impl Read + ?Sized),
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> Result<Vec<(Vec<u8>, T)>> {
        r.scan(self.name, range, direction, limit)?
            .into_iter()
            .map(|(key, bytes)| {
                let value = self.decode(&key, &bytes)?;
                Ok((key, value))
            })
            .collect()
    }

    /// Every record whose key starts with `prefix`, with its key, in key order.
    pub fn scan_prefix(&self, r: &(impl Read + ?Sized), prefix: impl AsRef<[u8]>) -> Result<Vec<(Vec<u8>, T)>> {
        self.scan(r, &KeyRange::prefix(prefix.as_ref()), Direction::Forward, None)
    }

    /// Decodes the record stored at `key`.
    pub fn decode(&self, key: &[u8], bytes: &[u8]) -> Result<T> {
        C::decode(bytes).map_err(|reason| StorageError::CorruptRecord {
            table: self.name,
            key: printable(key),
            reason,
        })
    }
}

impl<T, C> Clone for Table<T, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, C> Copy for Table<T, C> {}

impl<T, C> fmt::Debug for Table<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Table").field(&self.name).finish()
    }
}

/// A key as text for an error message.
fn printable(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}
