//! Write transactions: the [`Tx`] a transaction closure works on.
//!
//! A `Tx` buffers the closure's writes in a [`WriteSet`] over a read-only view of the store
//! (a backend's [`ReadView`]), so the closure reads its own writes, and a closure that fails
//! leaves the view untouched: the backend applies the write set only after the closure
//! succeeded. Both backends run closures through [`run`].

use std::any::Any;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::api::KeyValue;
use crate::error::Result;
use crate::range::{Direction, KeyRange};

/// Reads of a backend's state, as a transaction sees it before its own writes.
pub(crate) trait ReadView {
    /// The value of `key` in `table`.
    fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// At most `limit` entries of `table` within `range`, in `direction` order. Only called
    /// with a non-empty range.
    fn scan(&self, table: &str, range: &KeyRange, direction: Direction, limit: usize) -> Result<Vec<KeyValue>>;
}

/// The view of a store that does not exist yet.
pub(crate) struct EmptyView;

impl ReadView for EmptyView {
    fn get(&self, _: &str, _: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }

    fn scan(&self, _: &str, _: &KeyRange, _: Direction, _: usize) -> Result<Vec<KeyValue>> {
        Ok(Vec::new())
    }
}

/// One table's buffered writes: `Some(value)` to put, `None` to delete.
pub(crate) type TableWrites = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

/// A transaction's writes, by table.
#[derive(Default)]
pub(crate) struct WriteSet(BTreeMap<String, TableWrites>);

impl WriteSet {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }

    /// Each table's writes.
    pub(crate) fn tables(&self) -> impl Iterator<Item = (&str, &TableWrites)> {
        self.0.iter().map(|(table, writes)| (table.as_str(), writes))
    }

    fn record(&mut self, table: &str, key: Vec<u8>, value: Option<Vec<u8>>) {
        match self.0.get_mut(table) {
            Some(writes) => writes.insert(key, value),
            None => self.0.entry(table.to_owned()).or_default().insert(key, value),
        };
    }
}

/// A write transaction in progress, handed to the closure of
/// [`transact`](crate::Store#method.transact).
///
/// Reads see the store as committed by earlier transactions plus this transaction's own
/// writes. Writes are buffered and reach the store only if the closure returns `Ok`.
pub struct Tx<'a> {
    base: &'a dyn ReadView,
    writes: WriteSet,
}

impl Tx<'_> {
    /// The value of `key` in `table`.
    pub fn get(&self, table: &str, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self.writes.0.get(table).and_then(|writes| writes.get(key)) {
            Some(write) => Ok(write.clone()),
            None => self.base.get(table, key),
        }
    }

    /// Entries of `table` within `range`, in `direction` order, at most `limit`.
    pub fn scan(
        &self,
        table: &str,
        range: &KeyRange,
        direction: Direction,
        limit: Option<usize>,
    ) -> Result<Vec<KeyValue>> {
        let limit = limit.unwrap_or(usize::MAX);
        let Some(bounds) = range.bounds().filter(|_| limit > 0) else {
            return Ok(Vec::new());
        };
        let own: Vec<_> = match self.writes.0.get(table) {
            Some(writes) => match direction {
                Direction::Forward => writes.range::<[u8], _>(bounds).collect(),
                Direction::Backward => writes.range::<[u8], _>(bounds).rev().collect(),
            },
            None => Vec::new(),
        };
        // Each buffered write hides at most one base entry, so this many base entries are
        // enough to fill `limit`.
        let base = self
            .base
            .scan(table, range, direction, limit.saturating_add(own.len()))?;
        Ok(merge(base, own, direction, limit))
    }

    /// Sets `key` in `table` to `value`.
    pub fn put(&mut self, table: &str, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        self.writes.record(table, key.into(), Some(value.into()));
    }

    /// Removes `key` from `table` (nothing happens if it is absent).
    pub fn delete(&mut self, table: &str, key: impl Into<Vec<u8>>) {
        self.writes.record(table, key.into(), None);
    }
}

/// Merges base entries with a transaction's own writes (both in `direction` order): own writes
/// replace base entries of the same key, and deletions drop them.
fn merge(
    base: Vec<KeyValue>,
    own: Vec<(&Vec<u8>, &Option<Vec<u8>>)>,
    direction: Direction,
    limit: usize,
) -> Vec<KeyValue> {
    let mut base = base.into_iter().peekable();
    let mut own = own.into_iter().peekable();
    let mut merged = Vec::new();
    while merged.len() < limit {
        let take_own = match (base.peek(), own.peek()) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some((base_key, _)), Some((own_key, _))) => match direction.order(base_key, own_key) {
                Ordering::Less => false,
                Ordering::Equal => {
                    base.next();
                    true
                }
                Ordering::Greater => true,
            },
        };
        if take_own {
            if let Some((key, Some(value))) = own.next() {
                merged.push((key.clone(), value.clone()));
            }
        } else {
            merged.extend(base.next());
        }
    }
    merged
}

/// How a transaction closure ended.
pub(crate) enum Ran {
    /// It returned `Ok`: apply these writes.
    Commit(WriteSet),
    /// It returned `Err`: apply nothing.
    Abort,
    /// It panicked: apply nothing, then resume the panic on the caller's thread.
    Panic(Box<dyn Any + Send>),
}

/// Runs a transaction closure over `base`, catching a panic so that the backend can leave its
/// state consistent before resuming it.
pub(crate) fn run(base: &dyn ReadView, body: &mut dyn FnMut(&mut Tx<'_>) -> bool) -> Ran {
    let mut tx = Tx {
        base,
        writes: WriteSet::default(),
    };
    match catch_unwind(AssertUnwindSafe(|| body(&mut tx))) {
        Ok(true) => Ran::Commit(tx.writes),
        Ok(false) => Ran::Abort,
        Err(panic) => Ran::Panic(panic),
    }
}
