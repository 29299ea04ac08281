//! The storage tables behind DynamoDB and the one write path every item change takes.
//!
//! - `tables`: [`TableRecord`] (JSON) by table name;
//! - `items`: [`codec`]-encoded items by [`keys::item_key`];
//! - `indexes`: the projected item by [`keys::index_entry_key`], for every GSI and LSI;
//! - `stats`: item count and size (two big-endian `u64`s) by table name, and by
//!   [`keys::index_prefix`] for each index;
//! - `tokens`: TransactWriteItems client request tokens (see `transact`);
//! - `streams`: stream records, and `closed_streams`: disabled streams kept readable for
//!   24 hours (see [`crate::stream`]).

use std::borrow::Cow;
use std::sync::Arc;

use stratus_core::clock::Clock;
use stratus_core::RequestContext;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Read, Storage, StorageError, Store, Table, Tx};

use crate::codec;
use crate::error::DdbError;
use crate::keys;
use crate::stream;
use crate::table::{Stats, TableRecord};
use crate::Item;

/// What an operation runs against: the account and region's store.
pub struct Scope {
    pub store: Arc<dyn Store>,
    pub account: String,
    pub region: String,
    /// The request's clock.
    pub clock: Clock,
}

impl Scope {
    /// The table name a request's `TableName` stands for: AWS takes a table's ARN wherever it
    /// takes its name. An ARN of another account or region stays as it is, and names no table
    /// here (table names cannot hold a colon).
    pub(crate) fn table<'a>(&self, name: &'a str) -> Cow<'a, str> {
        match TableRecord::path_in_arn(name, &self.region, &self.account) {
            Some(path) if !path.contains('/') => Cow::Owned(path),
            _ => Cow::Borrowed(name),
        }
    }

    /// The table a request's `TableName` (a name or an ARN) names, or the item operations'
    /// ResourceNotFoundException.
    pub(crate) fn named_table(&self, name: &str) -> Result<TableRecord, DdbError> {
        table(&*self.store, &self.table(name))
    }

    /// Runs `body` on a blocking thread against the store of the request's account and region
    /// (a strict commit waits for fsync): the bridge of both the DynamoDB and the DynamoDB
    /// Streams service.
    pub async fn run<R, E, F>(storage: &Arc<Storage>, ctx: &RequestContext, body: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StorageError> + Send + 'static,
        F: FnOnce(&Scope) -> Result<R, E> + Send + 'static,
    {
        let storage = storage.clone();
        let account = ctx.account_id.clone();
        let region = ctx.region.clone();
        let clock = ctx.clock.clone();
        stratus_storage::run_blocking(move || {
            let namespace = Namespace::regional(&account, &region, "dynamodb");
            let store = storage.store(&namespace, Durability::Strict)?;
            body(&Scope {
                store,
                account,
                region,
                clock,
            })
        })
        .await
    }

    /// Now, in milliseconds since the epoch.
    pub fn now_ms(&self) -> i64 {
        self.clock.epoch_millis()
    }
}

pub(crate) const TABLES: Table<TableRecord> = Table::new("tables");
pub(crate) const ITEMS: &str = "items";
pub(crate) const INDEXES: &str = "indexes";
pub(crate) const STATS: &str = "stats";
pub(crate) const TOKENS: &str = "tokens";

/// The table named `name`, if it exists.
pub(crate) fn find_table(db: &(impl Read + ?Sized), name: &str) -> Result<Option<TableRecord>, DdbError> {
    Ok(TABLES.get(db, name)?)
}

/// Every table, in name order.
pub(crate) fn all_tables(db: &dyn Store) -> Result<Vec<TableRecord>, DdbError> {
    Ok(TABLES
        .scan(db, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, table)| table)
        .collect())
}

/// The table named `name`, or the item operations' ResourceNotFoundException.
pub(crate) fn table(db: &(impl Read + ?Sized), name: &str) -> Result<TableRecord, DdbError> {
    find_table(db, name)?.ok_or_else(DdbError::resource_not_found)
}

/// The table as it is inside a write transaction: refuses a table deleted (or deleted and
/// re-created) since the request was checked against `checked`, and picks up indexes added
/// meanwhile, so no write lands in a dropped table or misses a new index.
pub(crate) fn current(tx: &Tx<'_>, checked: &TableRecord) -> Result<TableRecord, DdbError> {
    match find_table(tx, &checked.name)? {
        Some(table) if table.id == checked.id => Ok(table),
        _ => Err(DdbError::resource_not_found()),
    }
}

pub(crate) fn save_table(tx: &mut Tx<'_>, record: &TableRecord) -> Result<(), DdbError> {
    Ok(TABLES.put(tx, record.name.as_bytes(), record)?)
}

/// The statistics under `key`: a table's name, or an index's [`keys::index_prefix`].
pub(crate) fn stats(db: &(impl Read + ?Sized), key: &[u8]) -> Result<Stats, DdbError> {
    Ok(match db.get(STATS, key)? {
        Some(bytes) if bytes.len() == 16 => Stats {
            items: u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes")),
            bytes: u64::from_be_bytes(bytes[8..].try_into().expect("8 bytes")),
        },
        _ => Stats::default(),
    })
}

pub(crate) fn save_stats(tx: &mut Tx<'_>, key: &[u8], stats: Stats) {
    let mut bytes = stats.items.to_be_bytes().to_vec();
    bytes.extend_from_slice(&stats.bytes.to_be_bytes());
    tx.put(STATS, key, bytes);
}

/// The stored item under `key`.
pub(crate) fn get_item(db: &(impl Read + ?Sized), key: &[u8]) -> Result<Option<Item>, DdbError> {
    Ok(db.get(ITEMS, key)?.map(|bytes| codec::decode(&bytes)).transpose()?)
}

/// Replaces the item under `key` (`old` is what is stored now) with `new`, or deletes it, at
/// `now_ms`, keeping every index entry, the table's statistics and its stream in step.
pub(crate) fn write_item(
    tx: &mut Tx<'_>,
    table: &TableRecord,
    key: &[u8],
    old: Option<&Item>,
    new: Option<&Item>,
    now_ms: i64,
) -> Result<(), DdbError> {
    write_item_by(tx, table, key, old, new, stream::Origin::Request, now_ms)
}

/// [`write_item`] on behalf of `origin` (the time-to-live sweeper's deletions are marked as
/// the service's in the stream).
pub(crate) fn write_item_by(
    tx: &mut Tx<'_>,
    table: &TableRecord,
    key: &[u8],
    old: Option<&Item>,
    new: Option<&Item>,
    origin: stream::Origin,
    now_ms: i64,
) -> Result<(), DdbError> {
    for index in &table.indexes {
        let old_entry = old.and_then(|item| keys::index_entry_key(table, index, item).map(|k| (k, item)));
        let new_entry = new.and_then(|item| keys::index_entry_key(table, index, item).map(|k| (k, item)));
        if old_entry.is_none() && new_entry.is_none() {
            continue;
        }
        let old_projected = old_entry.as_ref().map(|(_, item)| index.project(item, &table.key));
        let new_projected = new_entry.as_ref().map(|(_, item)| index.project(item, &table.key));
        let stats_key = keys::index_prefix(&table.name, &index.name);
        let mut index_stats = stats(tx, &stats_key)?;
        index_stats.replace(old_projected.as_ref(), new_projected.as_ref());
        save_stats(tx, &stats_key, index_stats);
        if let Some((old_key, _)) = &old_entry {
            if new_entry.as_ref().is_none_or(|(k, _)| k != old_key) {
                tx.delete(INDEXES, old_key.clone());
            }
        }
        if let (Some((new_key, _)), Some(projected)) = (new_entry, &new_projected) {
            tx.put(INDEXES, new_key, codec::encode(projected));
        }
    }
    let mut table_stats = stats(tx, table.name.as_bytes())?;
    table_stats.replace(old, new);
    save_stats(tx, table.name.as_bytes(), table_stats);
    match new {
        Some(new) => tx.put(ITEMS, key.to_vec(), codec::encode(new)),
        None => tx.delete(ITEMS, key.to_vec()),
    }
    stream::append(tx, table, old, new, now_ms, origin).map_err(|e| DdbError::Internal(e.to_string()))
}

/// Deletes every key under `prefix` in `table`, a chunk at a time.
pub(crate) fn delete_prefix(tx: &mut Tx<'_>, table: &str, prefix: &[u8]) -> Result<(), DdbError> {
    loop {
        let chunk = tx.scan(table, &KeyRange::prefix(prefix), Direction::Forward, Some(1024))?;
        if chunk.is_empty() {
            return Ok(());
        }
        for (key, _) in chunk {
            tx.delete(table, key);
        }
    }
}

/// Drops a table: its record, statistics, items and index entries. Its stream, if it has
/// one, is closed and stays readable for 24 hours (as on AWS); streams closed longer ago go.
pub(crate) fn drop_table(tx: &mut Tx<'_>, table: &TableRecord, now: i64) -> Result<(), DdbError> {
    let name = &table.name;
    if let Some(open) = &table.stream {
        stream::close(tx, name, &table.key, open, now)?;
    }
    TABLES.delete(tx, name.as_bytes());
    tx.delete(STATS, name.as_bytes());
    let prefix = keys::table_prefix(name);
    delete_prefix(tx, STATS, &prefix)?;
    delete_prefix(tx, ITEMS, &prefix)?;
    delete_prefix(tx, INDEXES, &prefix)?;
    crate::kinesis_feed::forget(tx, name)?;
    purge_streams(tx, now)
}

/// Drops the streams closed more than 24 hours ago, with their records.
pub(crate) fn purge_streams(tx: &mut Tx<'_>, now_ms: i64) -> Result<(), DdbError> {
    stream::purge_closed(tx, now_ms).map_err(|e| DdbError::Internal(e.to_string()))
}
