//! The behaviour both backends share, each check run once per backend.

use std::io::{Read, Seek, SeekFrom};
use std::ops::Bound;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread;

use stratus_storage::{Direction, Durability, KeyRange, Namespace, StorageError};

use crate::common::{keys, scan_keys, write, Backend, Harness};

/// Runs each named check as one test per backend: `<check>::redb` and `<check>::memory`.
macro_rules! on_both_backends {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            #[test]
            fn redb() {
                super::$check(crate::common::Backend::Redb);
            }

            #[test]
            fn memory() {
                super::$check(crate::common::Backend::Memory);
            }
        }
    )*};
}

on_both_backends!(
    point_reads_and_writes,
    range_scans,
    prefix_scans,
    transaction_reads_its_own_writes,
    failed_transaction_leaves_nothing,
    concurrent_transactions_serialize,
    blobs,
    namespaces_are_isolated,
);

/// A service's own error type, as `transact` closures return it.
#[derive(Debug)]
enum ServiceError {
    Storage(StorageError),
    Conflict,
}

impl From<StorageError> for ServiceError {
    fn from(err: StorageError) -> Self {
        ServiceError::Storage(err)
    }
}

fn point_reads_and_writes(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    assert_eq!(store.get("t", b"a").unwrap(), None);
    write(&*store, "t", &[("a", Some("1")), ("b", Some("2"))]);
    write(&*store, "other", &[("a", Some("other"))]);
    assert_eq!(store.get("t", b"a").unwrap(), Some(b"1".to_vec()));
    assert_eq!(store.get("other", b"a").unwrap(), Some(b"other".to_vec()));
    write(&*store, "t", &[("a", Some("3")), ("b", None), ("missing", None)]);
    assert_eq!(store.get("t", b"a").unwrap(), Some(b"3".to_vec()));
    assert_eq!(store.get("t", b"b").unwrap(), None);
    assert_eq!(store.get("nope", b"a").unwrap(), None);
    // Empty keys and values are ordinary.
    write(&*store, "t", &[("", Some(""))]);
    assert_eq!(store.get("t", b"").unwrap(), Some(Vec::new()));
}

fn range_scans(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    let all: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
    let writes: Vec<_> = all.iter().map(|key| (key.as_str(), Some("v"))).collect();
    write(&*store, "t", &writes);
    let scan = |range, direction, limit| scan_keys(&*store, "t", range, direction, limit);
    let reversed: Vec<String> = all.iter().rev().cloned().collect();

    assert_eq!(scan(KeyRange::all(), Direction::Forward, None), all);
    assert_eq!(scan(KeyRange::all(), Direction::Backward, None), reversed);
    assert_eq!(
        scan(KeyRange::all(), Direction::Forward, Some(3)),
        ["k00", "k01", "k02"]
    );
    assert_eq!(
        scan(KeyRange::all(), Direction::Backward, Some(3)),
        ["k19", "k18", "k17"]
    );
    assert!(scan(KeyRange::all(), Direction::Forward, Some(0)).is_empty());

    let half_open = KeyRange::new("k05".."k08");
    assert_eq!(scan(half_open.clone(), Direction::Forward, None), ["k05", "k06", "k07"]);
    assert_eq!(
        scan(half_open.clone(), Direction::Backward, None),
        ["k07", "k06", "k05"]
    );
    assert_eq!(scan(half_open, Direction::Backward, Some(2)), ["k07", "k06"]);

    let page = KeyRange::between(Bound::Excluded(b"k17".as_slice()), Bound::Unbounded);
    assert_eq!(scan(page, Direction::Forward, Some(5)), ["k18", "k19"]);
    let closed = KeyRange::new("k18"..="k19");
    assert_eq!(scan(closed, Direction::Backward, None), ["k19", "k18"]);
    let before = KeyRange::new(.."k02");
    assert_eq!(scan(before, Direction::Backward, None), ["k01", "k00"]);
    let between = KeyRange::new("k015".."k03");
    assert_eq!(scan(between, Direction::Forward, None), ["k02"]);

    // Ranges that hold nothing, even backwards ones, are empty rather than a panic.
    let backwards = KeyRange::new("k09".."k01");
    assert!(scan(backwards, Direction::Forward, None).is_empty());
    let excluded = KeyRange::between(Bound::Excluded(b"k05".as_slice()), Bound::Excluded(b"k05".as_slice()));
    assert!(scan(excluded, Direction::Backward, None).is_empty());
    assert!(scan_keys(&*store, "none", KeyRange::all(), Direction::Forward, None).is_empty());
}

fn prefix_scans(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    let stored: [&[u8]; 8] = [b"a", b"ab", b"abc", b"abd", b"ac", b"a\xff", b"a\xff\xff", b"b"];
    store
        .transact(|tx| {
            for key in stored {
                tx.put("t", key, b"v");
            }
            Ok::<_, StorageError>(())
        })
        .unwrap();
    let prefix = |prefix: &[u8], direction, limit| -> Vec<Vec<u8>> {
        let entries = store.scan("t", &KeyRange::prefix(prefix), direction, limit).unwrap();
        entries.into_iter().map(|(key, _)| key).collect()
    };
    assert_eq!(prefix(b"ab", Direction::Forward, None), [&b"ab"[..], b"abc", b"abd"]);
    assert_eq!(prefix(b"ab", Direction::Backward, Some(2)), [&b"abd"[..], b"abc"]);
    assert_eq!(
        prefix(b"a\xff", Direction::Forward, None),
        [&b"a\xff"[..], b"a\xff\xff"]
    );
    assert_eq!(prefix(b"", Direction::Forward, None).len(), stored.len());
    assert!(prefix(b"c", Direction::Forward, None).is_empty());
}

fn transaction_reads_its_own_writes(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    write(
        &*store,
        "t",
        &[
            ("k1", Some("1")),
            ("k3", Some("3")),
            ("k5", Some("5")),
            ("k7", Some("7")),
            ("k9", Some("9")),
        ],
    );
    let seen = store
        .transact(|tx| {
            tx.put("t", b"k2", b"2");
            tx.put("t", b"k4", b"4");
            tx.delete("t", b"k3");
            tx.put("t", b"k5", b"new");
            tx.put("fresh", b"x", b"y");
            assert_eq!(tx.get("t", b"k3")?, None);
            assert_eq!(tx.get("t", b"k5")?, Some(b"new".to_vec()));
            assert_eq!(tx.get("t", b"k7")?, Some(b"7".to_vec()));
            assert_eq!(tx.get("fresh", b"x")?, Some(b"y".to_vec()));
            let scan = |range: KeyRange, direction, limit| -> Result<Vec<String>, StorageError> {
                Ok(keys(tx.scan("t", &range, direction, limit)?))
            };
            assert_eq!(scan(KeyRange::all(), Direction::Backward, Some(3))?, ["k9", "k7", "k5"]);
            let middle = KeyRange::new("k2"..="k5");
            assert_eq!(scan(middle, Direction::Backward, None)?, ["k5", "k4", "k2"]);
            let from_k3 = KeyRange::new("k3"..);
            assert_eq!(scan(from_k3, Direction::Forward, Some(2))?, ["k4", "k5"]);
            assert!(scan(KeyRange::all(), Direction::Forward, Some(0))?.is_empty());
            let entries = tx.scan("t", &KeyRange::prefix(b"k5"), Direction::Forward, None)?;
            assert_eq!(entries, [(b"k5".to_vec(), b"new".to_vec())]);
            scan(KeyRange::all(), Direction::Forward, None)
        })
        .unwrap();
    assert_eq!(seen, ["k1", "k2", "k4", "k5", "k7", "k9"]);
    assert_eq!(scan_keys(&*store, "t", KeyRange::all(), Direction::Forward, None), seen);
    assert_eq!(store.get("t", b"k5").unwrap(), Some(b"new".to_vec()));
}

fn failed_transaction_leaves_nothing(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    write(&*store, "t", &[("keep", Some("1"))]);
    let before = store.scan("t", &KeyRange::all(), Direction::Forward, None).unwrap();

    let result: Result<(), ServiceError> = store.transact(|tx| {
        tx.put("t", b"new", b"x");
        tx.put("other", b"new", b"x");
        tx.delete("t", b"keep");
        Err(ServiceError::Conflict)
    });
    assert!(matches!(result, Err(ServiceError::Conflict)));

    let panicked = catch_unwind(AssertUnwindSafe(|| {
        store.transact::<(), StorageError>(|tx| {
            tx.put("t", b"new", b"x");
            tx.delete("t", b"keep");
            panic!("service bug");
        })
    }));
    assert!(panicked.is_err(), "the panic reaches the caller");

    assert_eq!(
        store.scan("t", &KeyRange::all(), Direction::Forward, None).unwrap(),
        before
    );
    assert_eq!(store.get("other", b"new").unwrap(), None);
    // The store still takes writes.
    write(&*store, "t", &[("after", Some("1"))]);
    assert_eq!(store.get("t", b"after").unwrap(), Some(b"1".to_vec()));
}

/// 16 threads increment one counter (read-modify-write) and each write keys of their own;
/// one transaction fails after writing. Every successful increment must count exactly once
/// and the failed one leave no trace, whichever commit group it shared.
fn concurrent_transactions_serialize(backend: Backend) {
    const THREADS: usize = 16;
    const ROUNDS: usize = 20;
    let harness = Harness::open(backend);
    let store = harness.store();
    thread::scope(|scope| {
        for thread in 0..THREADS {
            let store = Arc::clone(&store);
            scope.spawn(move || {
                for round in 0..ROUNDS {
                    let result = store.transact(|tx| {
                        let count = tx.get("counter", b"n")?.map_or(0, |n| decode(&n));
                        tx.put("counter", b"n", (count + 1).to_be_bytes());
                        tx.put("keys", format!("{thread:02}-{round:02}"), count.to_be_bytes());
                        if (thread, round) == (7, 10) {
                            return Err(ServiceError::Conflict);
                        }
                        Ok(count)
                    });
                    match result {
                        Ok(_) => assert_ne!((thread, round), (7, 10)),
                        Err(ServiceError::Conflict) => assert_eq!((thread, round), (7, 10)),
                        Err(ServiceError::Storage(err)) => panic!("storage failed: {err}"),
                    }
                }
            });
        }
    });
    let total = THREADS * ROUNDS - 1;
    assert_eq!(
        store.get("counter", b"n").unwrap().map(|n| decode(&n)),
        Some(total as u64)
    );
    let written = store.scan("keys", &KeyRange::all(), Direction::Forward, None).unwrap();
    assert_eq!(written.len(), total);
    assert!(store.get("keys", b"07-10").unwrap().is_none());
    // Each transaction saw a distinct count: they ran one after another.
    let mut counts: Vec<u64> = written.iter().map(|(_, count)| decode(count)).collect();
    counts.sort_unstable();
    assert_eq!(counts, (0..total as u64).collect::<Vec<_>>());
}

fn decode(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes.try_into().expect("an 8-byte counter"))
}

fn blobs(backend: Backend) {
    let harness = Harness::open(backend);
    let store = harness.store();
    assert!(store.open_blob("obj").unwrap().is_none());
    assert!(!store.delete_blob("obj").unwrap());

    assert_eq!(store.put_blob("obj", &mut &b"hello world"[..]).unwrap(), 11);
    let mut blob = store.open_blob("obj").unwrap().unwrap();
    assert_eq!(blob.len(), 11);
    blob.seek(SeekFrom::Start(6)).unwrap();
    let mut tail = String::new();
    blob.read_to_string(&mut tail).unwrap();
    assert_eq!(tail, "world");

    let large: Vec<u8> = (0..1 << 20).map(|i: u32| i as u8).collect();
    store.put_blob("obj", &mut large.as_slice()).unwrap();
    assert_eq!(store.get_blob("obj").unwrap(), Some(large));
    store.put_blob("empty.bin", &mut &b""[..]).unwrap();
    assert!(store.open_blob("empty.bin").unwrap().unwrap().is_empty());

    assert!(store.delete_blob("obj").unwrap());
    assert_eq!(store.get_blob("obj").unwrap(), None);
    for bad in ["", "../escape", "a/b", ".hidden", "sp ace", &"x".repeat(201)] {
        let err = store.put_blob(bad, &mut &b"x"[..]).unwrap_err();
        assert!(matches!(err, StorageError::InvalidName { .. }), "{bad:?}: {err}");
        assert!(store.open_blob(bad).is_err());
    }
}

fn namespaces_are_isolated(backend: Backend) {
    let harness = Harness::open(backend);
    let open = |namespace: &Namespace| harness.storage.store(namespace, Durability::Strict).unwrap();
    let east = open(&Namespace::regional("000000000000", "us-east-1", "sqs"));
    let west = open(&Namespace::regional("000000000000", "us-west-2", "sqs"));
    let other_account = open(&Namespace::regional("111111111111", "us-east-1", "sqs"));
    let global = open(&Namespace::global("000000000000", "sqs"));
    write(&*east, "t", &[("k", Some("east"))]);
    write(&*global, "t", &[("k", Some("global"))]);
    assert_eq!(west.get("t", b"k").unwrap(), None);
    assert_eq!(other_account.get("t", b"k").unwrap(), None);
    assert_eq!(global.get("t", b"k").unwrap(), Some(b"global".to_vec()));
    // Another handle on the same namespace sees the same store, whatever its durability.
    let again = harness
        .storage
        .store(
            &Namespace::regional("000000000000", "us-east-1", "sqs"),
            Durability::Relaxed,
        )
        .unwrap();
    assert_eq!(again.get("t", b"k").unwrap(), Some(b"east".to_vec()));

    for bad in [
        Namespace::regional("../etc", "us-east-1", "sqs"),
        Namespace::regional("000000000000", "", "sqs"),
        Namespace::global("000000000000", "s3.redb"),
    ] {
        let err = harness.storage.store(&bad, Durability::Strict).err().unwrap();
        assert!(matches!(err, StorageError::InvalidName { .. }), "{bad:?}: {err}");
    }
}
