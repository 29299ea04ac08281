//! A model test: seeded random operation sequences run against each backend and against a
//! `BTreeMap`, which must agree on every read. The redb store is also closed and reopened
//! along the way.

use std::collections::BTreeMap;
use std::ops::{Bound, RangeBounds};

use stratus_storage::{Direction, KeyRange, KeyValue, StorageError, Tx};

use crate::common::{Backend, Harness};

const SEEDS: u64 = 6;
const STEPS: usize = 250;
const REOPEN_EVERY: usize = 100;
const TABLES: [&str; 2] = ["a", "b"];

#[test]
fn redb_matches_model() {
    check(Backend::Redb);
}

#[test]
fn memory_matches_model() {
    check(Backend::Memory);
}

/// The model: table → key → value.
type Model = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

/// xorshift64*: small, seeded, good enough to pick operations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn table(&mut self) -> &'static str {
        TABLES[self.below(TABLES.len())]
    }

    /// Short keys over a tiny alphabet, so that operations collide and edges (0x00, 0xff,
    /// the empty key) come up often.
    fn key(&mut self) -> Vec<u8> {
        let len = self.below(4);
        (0..len).map(|_| [0x00, b'a', b'b', 0xff][self.below(4)]).collect()
    }

    fn bound(&mut self) -> Bound<Vec<u8>> {
        match self.below(3) {
            0 => Bound::Unbounded,
            1 => Bound::Included(self.key()),
            _ => Bound::Excluded(self.key()),
        }
    }

    fn scan(&mut self) -> (KeyRange, Direction, Option<usize>) {
        let range = if self.below(4) == 0 {
            KeyRange::prefix(&self.key())
        } else {
            let (start, end) = (self.bound(), self.bound());
            KeyRange::between(start.as_ref().map(Vec::as_slice), end.as_ref().map(Vec::as_slice))
        };
        let direction = if self.below(2) == 0 {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let limit = (self.below(3) > 0).then(|| self.below(6));
        (range, direction, limit)
    }
}

fn model_scan(model: &Model, table: &str, scan: &(KeyRange, Direction, Option<usize>)) -> Vec<KeyValue> {
    let (range, direction, limit) = scan;
    let bounds = (range.start(), range.end());
    let mut entries: Vec<KeyValue> = model
        .get(table)
        .into_iter()
        .flatten()
        .filter(|(key, _)| RangeBounds::<&[u8]>::contains(&bounds, &key.as_slice()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if *direction == Direction::Backward {
        entries.reverse();
    }
    entries.truncate(limit.unwrap_or(usize::MAX));
    entries
}

fn check(backend: Backend) {
    for seed in 1..=SEEDS {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut harness = Harness::open(backend);
        let mut model = Model::new();
        for step in 0..STEPS {
            let at = format!("{backend:?}, seed {seed}, step {step}");
            if step % REOPEN_EVERY == REOPEN_EVERY - 1 {
                harness = harness.reopen();
            }
            let store = harness.store();
            match rng.below(10) {
                0..=3 => {
                    let commit = rng.below(4) > 0;
                    let ops = 1 + rng.below(5);
                    let mut staged = model.clone();
                    let result = store.transact(|tx| {
                        for _ in 0..ops {
                            tx_step(tx, &mut staged, &mut rng, &at)?;
                        }
                        if commit {
                            Ok(())
                        } else {
                            Err(None)
                        }
                    });
                    match result {
                        Ok(()) => model = staged,
                        Err(None) => {}
                        Err(Some(err)) => panic!("{at}: {err}"),
                    }
                }
                4..=6 => {
                    let (table, key) = (rng.table(), rng.key());
                    let expected = model.get(table).and_then(|rows| rows.get(&key)).cloned();
                    assert_eq!(store.get(table, &key).unwrap(), expected, "{at}: get {key:?}");
                }
                _ => {
                    let (table, scan) = (rng.table(), rng.scan());
                    let found = store.scan(table, &scan.0, scan.1, scan.2).unwrap();
                    assert_eq!(found, model_scan(&model, table, &scan), "{at}: scan {scan:?}");
                }
            }
        }
        let store = harness.store();
        for table in TABLES {
            let everything = (KeyRange::all(), Direction::Forward, None);
            let found = store.scan(table, &everything.0, everything.1, everything.2).unwrap();
            assert_eq!(
                found,
                model_scan(&model, table, &everything),
                "seed {seed}: final {table}"
            );
        }
    }
}

/// One random operation inside a transaction, mirrored on the transaction's staged model.
fn tx_step(tx: &mut Tx<'_>, staged: &mut Model, rng: &mut Rng, at: &str) -> Result<(), Option<StorageError>> {
    let table = rng.table();
    match rng.below(4) {
        0 => {
            let (key, value) = (rng.key(), rng.key());
            tx.put(table, key.clone(), value.clone());
            staged.entry(table.to_owned()).or_default().insert(key, value);
        }
        1 => {
            let key = rng.key();
            tx.delete(table, key.clone());
            staged.entry(table.to_owned()).or_default().remove(&key);
        }
        2 => {
            let key = rng.key();
            let expected = staged.get(table).and_then(|rows| rows.get(&key)).cloned();
            assert_eq!(tx.get(table, &key)?, expected, "{at}: tx get {key:?}");
        }
        _ => {
            let scan = rng.scan();
            let found = tx.scan(table, &scan.0, scan.1, scan.2)?;
            assert_eq!(found, model_scan(staged, table, &scan), "{at}: tx scan {scan:?}");
        }
    }
    Ok(())
}
