//! Storage benchmarks: strict write latency, group commit under 16 writers, and the
//! overhead of the redb backend over raw redb for writes, point reads and scans.
//!
//! ```text
//! cargo bench -p stratus-storage --bench storage
//! ```
//!
//! Criterion measures each benchmark in turn; sample counts and measurement times are kept
//! small so the run takes under a minute. A strict write is dominated by the disk's fsync
//! latency, which on a shared machine drifts between benchmarks by more than the overhead
//! over raw redb, so the run ends with paired medians (Stratus and raw redb taking turns op
//! by op), the figures to judge that overhead by.
// A benchmark measures the machine's time.
#![allow(clippy::disallowed_methods)]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{black_box, criterion_group, BenchmarkGroup, Criterion};
use redb::{Database, ReadableDatabase, TableDefinition};
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, StorageConfig};
use stratus_storage::{StorageError, Store};
use tempfile::TempDir;

const TABLE: &str = "t";
/// The raw redb table that holds the same data as Stratus table `t`.
const RAW: TableDefinition<&[u8], &[u8]> = TableDefinition::new("t:t");
/// The page cache the storage crate gives each store.
const CACHE_BYTES: usize = 64 << 20;
const VALUE: [u8; 100] = [7; 100];
const PRELOADED: u64 = 10_000;
const WRITERS: usize = 16;

fn key(n: u64) -> Vec<u8> {
    format!("key{n:010}").into_bytes()
}

/// A Stratus store and a raw redb database, both in fresh directories.
struct Fixture {
    _dirs: (TempDir, TempDir),
    store: Arc<dyn Store>,
    raw: Database,
    next: AtomicU64,
}

impl Fixture {
    fn new() -> Self {
        let (ours, theirs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let storage = Storage::open(StorageConfig::DataDir(ours.path().into())).unwrap();
        let namespace = Namespace::regional("000000000000", "us-east-1", "bench");
        let store = storage.store(&namespace, Durability::Strict).unwrap();
        let raw = Database::builder()
            .set_cache_size(CACHE_BYTES)
            .create(theirs.path().join("raw.redb"))
            .unwrap();
        Fixture {
            _dirs: (ours, theirs),
            store,
            raw,
            next: AtomicU64::new(PRELOADED),
        }
    }

    /// Loads keys `0..PRELOADED` into both.
    fn preload(&self) {
        self.store
            .transact(|tx| {
                for n in 0..PRELOADED {
                    tx.put(TABLE, key(n), VALUE);
                }
                Ok::<_, StorageError>(())
            })
            .unwrap();
        let txn = self.raw.begin_write().unwrap();
        {
            let mut table = txn.open_table(RAW).unwrap();
            for n in 0..PRELOADED {
                table.insert(key(n).as_slice(), VALUE.as_slice()).unwrap();
            }
        }
        txn.commit().unwrap();
    }

    fn fresh_key(&self) -> Vec<u8> {
        key(self.next.fetch_add(1, Ordering::Relaxed))
    }

    fn stratus_write(&self) {
        put(&*self.store, self.fresh_key());
    }

    fn raw_write(&self) {
        let key = self.fresh_key();
        let txn = self.raw.begin_write().unwrap();
        txn.open_table(RAW)
            .unwrap()
            .insert(key.as_slice(), VALUE.as_slice())
            .unwrap();
        txn.commit().unwrap();
    }
}

fn writes(c: &mut Criterion) {
    let fixture = Fixture::new();
    let mut group = c.benchmark_group("strict_write");
    group.bench_function("stratus_lone_writer", |b| b.iter(|| fixture.stratus_write()));
    group.bench_function("raw_redb_commit", |b| b.iter(|| fixture.raw_write()));

    concurrent(&mut group, "stratus_16_concurrent_total", fixture.store.clone());
    // The same 16 threads against the in-memory backend: what the thread hand-offs alone cost.
    let memory = Storage::open(StorageConfig::Ephemeral).unwrap();
    let namespace = Namespace::regional("000000000000", "us-east-1", "bench");
    concurrent(
        &mut group,
        "memory_16_concurrent_total",
        memory.store(&namespace, Durability::Strict).unwrap(),
    );
    group.finish();
}

/// 16 writer threads, released together; one iteration is all 16 writes committed.
fn concurrent(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, store: Arc<dyn Store>) {
    let start = Arc::new(Barrier::new(WRITERS + 1));
    let done = Arc::new(Barrier::new(WRITERS + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..WRITERS as u64)
        .map(|writer| {
            let (store, start, done, stop) = (store.clone(), start.clone(), done.clone(), stop.clone());
            thread::spawn(move || {
                for n in ((writer + 1) << 32).. {
                    start.wait();
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    put(&*store, key(n));
                    done.wait();
                }
            })
        })
        .collect();
    group.bench_function(name, |b| {
        b.iter_custom(|iterations| {
            let began = Instant::now();
            for _ in 0..iterations {
                start.wait();
                done.wait();
            }
            began.elapsed()
        })
    });
    stop.store(true, Ordering::Relaxed);
    start.wait();
    for writer in writers {
        writer.join().unwrap();
    }
}

fn put(store: &dyn Store, key: Vec<u8>) {
    store
        .transact(|tx| {
            tx.put(TABLE, key, VALUE);
            Ok::<_, StorageError>(())
        })
        .unwrap();
}

/// Point reads and 10,000-key scans, Stratus and raw redb over the same data.
struct Reads {
    fixture: Fixture,
    last: Cell<u64>,
}

impl Reads {
    fn new() -> Self {
        let fixture = Fixture::new();
        fixture.preload();
        Reads {
            fixture,
            last: Cell::new(0),
        }
    }

    fn next_key(&self) -> Vec<u8> {
        self.last.set((self.last.get() + 7919) % PRELOADED);
        key(self.last.get())
    }

    fn stratus_point(&self) -> Vec<u8> {
        self.fixture.store.get(TABLE, &self.next_key()).unwrap().unwrap()
    }

    fn raw_point(&self) -> Vec<u8> {
        let txn = self.fixture.raw.begin_read().unwrap();
        let table = txn.open_table(RAW).unwrap();
        let value = table.get(self.next_key().as_slice()).unwrap().unwrap();
        value.value().to_vec()
    }

    fn stratus_scan(&self) -> usize {
        let entries = self
            .fixture
            .store
            .scan(TABLE, &KeyRange::all(), Direction::Forward, None)
            .unwrap();
        entries.len()
    }

    fn raw_scan(&self) -> usize {
        let txn = self.fixture.raw.begin_read().unwrap();
        let table = txn.open_table(RAW).unwrap();
        let entries: Vec<(Vec<u8>, Vec<u8>)> = table
            .range::<&[u8]>(..)
            .unwrap()
            .map(|row| {
                let (key, value) = row.unwrap();
                (key.value().to_vec(), value.value().to_vec())
            })
            .collect();
        entries.len()
    }
}

fn reads(c: &mut Criterion) {
    let reads = Reads::new();
    let mut group = c.benchmark_group("read");
    group.bench_function("stratus_point", |b| b.iter(|| reads.stratus_point()));
    group.bench_function("raw_redb_point", |b| b.iter(|| reads.raw_point()));
    group.bench_function("stratus_scan_10k", |b| b.iter(|| reads.stratus_scan()));
    group.bench_function("raw_redb_scan_10k", |b| b.iter(|| reads.raw_scan()));
    group.finish();
}

/// Stratus against raw redb, op for op: the two take turns and every op is timed, so both
/// see the same conditions. On a shared machine fsync latency drifts between criterion's
/// separate benchmarks by far more than the overhead being measured; these medians do not.
fn paired() {
    let writes = Fixture::new();
    compare("strict write", 400, || writes.stratus_write(), || writes.raw_write());
    let reads = Reads::new();
    compare("point read", 20_000, || reads.stratus_point(), || reads.raw_point());
    compare("10k-key scan", 200, || reads.stratus_scan(), || reads.raw_scan());
}

fn compare<A, B>(what: &str, rounds: usize, stratus: impl Fn() -> A, raw: impl Fn() -> B) {
    fn timed<R>(op: &impl Fn() -> R) -> Duration {
        let began = Instant::now();
        black_box(op());
        began.elapsed()
    }
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) = (0..rounds).map(|_| (timed(&stratus), timed(&raw))).unzip();
    let median = |times: &mut Vec<Duration>| {
        times.sort_unstable();
        times[times.len() / 2]
    };
    let (ours, theirs) = (median(&mut ours), median(&mut theirs));
    let overhead = (ours.as_secs_f64() / theirs.as_secs_f64() - 1.0) * 100.0;
    println!("paired {what}: stratus {ours:?}, raw redb {theirs:?} (median of {rounds}; {overhead:+.1}%)");
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group! {
    name = benches;
    config = config();
    targets = writes, reads
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // Only when benchmarking: `cargo test --benches` runs each benchmark once, as a test.
    if std::env::args().any(|arg| arg == "--bench") {
        paired();
    }
}
