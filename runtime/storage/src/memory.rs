//! The in-memory backend, for `--ephemeral` and for tests: ordered maps and blobs behind
//! locks, gone when the process ends.
//!
//! It behaves like the redb backend in every observable way except persistence. A write
//! transaction holds the write lock while its closure runs, which makes transactions
//! serializable; its writes are applied only once the closure has succeeded.

use std::collections::{BTreeMap, HashMap};
use std::io::{Cursor, Read};
use std::panic::resume_unwind;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::api::{check_blob_name, Blob, KeyValue, Store};
use crate::error::{Result, StorageError};
use crate::range::{Direction, KeyRange};
use crate::tx::{run, Ran, ReadView, Tx, WriteSet};

/// Tables by name, each an ordered map.
type Tables = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

/// One namespace's store, held in memory.
#[derive(Default)]
pub(crate) struct MemoryStore {
    tables: RwLock<Tables>,
    blobs: Mutex<HashMap<String, Arc<[u8]>>>,
}

impl ReadView for Tables {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.get(table).and_then(|rows| rows.get(key)).cloned())
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: usize) -> Result<Vec<KeyValue>> {
        let (Some(rows), Some(bounds)) = (self.get(table), range.bounds()) else {
            return Ok(Vec::new());
        };
        let rows = rows.range::<[u8], _>(bounds);
        let owned = |(key, value): (&Vec<u8>, &Vec<u8>)| (key.clone(), value.clone());
        Ok(match direction {
            Direction::Forward => rows.take(limit).map(owned).collect(),
            Direction::Backward => rows.rev().take(limit).map(owned).collect(),
        })
    }
}

fn apply(tables: &mut Tables, writes: WriteSet) {
    for (table, table_writes) in writes.tables() {
        let rows = tables.entry(table.to_owned()).or_default();
        for (key, value) in table_writes {
            match value {
                Some(value) => rows.insert(key.clone(), value.clone()),
                None => rows.remove(key),
            };
        }
        if rows.is_empty() {
            tables.remove(table);
        }
    }
}

impl Store for MemoryStore {
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        ReadView::get(&*self.tables.read().unwrap_or_else(PoisonError::into_inner), table, key)
    }

    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: Option<usize>) -> Result<Vec<KeyValue>> {
        let tables = self.tables.read().unwrap_or_else(PoisonError::into_inner);
        ReadView::scan(&*tables, table, range, direction, limit.unwrap_or(usize::MAX))
    }

    fn transact_dyn(&self, body: &mut dyn FnMut(&mut Tx<'_>) -> bool) -> Result<()> {
        let mut tables = self.tables.write().unwrap_or_else(PoisonError::into_inner);
        match run(&*tables, body) {
            Ran::Commit(writes) => apply(&mut tables, writes),
            Ran::Abort => {}
            Ran::Panic(payload) => {
                drop(tables);
                resume_unwind(payload);
            }
        }
        Ok(())
    }

    fn put_blob(&self, name: &str, body: &mut dyn Read) -> Result<u64> {
        check_blob_name(name)?;
        let mut bytes = Vec::new();
        body.read_to_end(&mut bytes)
            .map_err(|err| StorageError::io("read the body of blob", name.as_ref(), err))?;
        let len = bytes.len() as u64;
        self.blobs().insert(name.to_owned(), bytes.into());
        Ok(len)
    }

    fn open_blob(&self, name: &str) -> Result<Option<Blob>> {
        check_blob_name(name)?;
        Ok(self
            .blobs()
            .get(name)
            .map(|bytes| Blob::new(bytes.len() as u64, Cursor::new(bytes.clone()))))
    }

    fn delete_blob(&self, name: &str) -> Result<bool> {
        check_blob_name(name)?;
        Ok(self.blobs().remove(name).is_some())
    }
}

impl MemoryStore {
    fn blobs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<[u8]>>> {
        self.blobs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
