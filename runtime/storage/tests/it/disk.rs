//! What only the redb backend has: files, a lock, schema versions, durability.
// These tests time real disk writes and crashes in the machine's time.
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError, SCHEMA_VERSION};

use crate::common::{namespace, write, Backend, Harness};

fn open(dir: &Path) -> Result<Storage, StorageError> {
    Storage::open(StorageConfig::DataDir(dir.into()))
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn data_survives_reopen() {
    let harness = Harness::open(Backend::Redb);
    let store = harness.store();
    write(&*store, "t", &[("a", Some("1")), ("b", Some("2"))]);
    store.put_blob("body", &mut &b"blob"[..]).unwrap();
    drop(store);
    let harness = harness.reopen();
    let store = harness.store();
    assert_eq!(store.get("t", b"a").unwrap(), Some(b"1".to_vec()));
    assert_eq!(store.get("t", b"b").unwrap(), Some(b"2".to_vec()));
    assert_eq!(store.get_blob("body").unwrap(), Some(b"blob".to_vec()));
}

#[test]
fn relaxed_writes_survive_a_clean_close() {
    let harness = Harness::open(Backend::Redb);
    let relaxed = harness.storage.store(&namespace(), Durability::Relaxed).unwrap();
    for i in 0..50 {
        write(&*relaxed, "metrics", &[(&format!("m{i:02}"), Some("1"))]);
    }
    relaxed.put_blob("log", &mut &b"events"[..]).unwrap();
    drop(relaxed);
    let harness = harness.reopen();
    let store = harness.store();
    assert_eq!(store.get("metrics", b"m49").unwrap(), Some(b"1".to_vec()));
    assert_eq!(store.get_blob("log").unwrap(), Some(b"events".to_vec()));
}

#[test]
fn reads_create_nothing() {
    let harness = Harness::open(Backend::Redb);
    let dir = harness.dir.as_ref().unwrap().path();
    let store = harness.store();
    assert_eq!(store.get("t", b"k").unwrap(), None);
    assert!(store
        .scan("t", &stratus_storage::KeyRange::all(), Default::default(), None)
        .unwrap()
        .is_empty());
    assert!(store.open_blob("b").unwrap().is_none());
    assert!(!store.delete_blob("b").unwrap());
    // Transactions that read only, or fail, write nothing either.
    store.transact(|tx| tx.get("t", b"k").map(drop)).unwrap();
    let failed: Result<(), Option<StorageError>> = store.transact(|tx| {
        tx.put("t", b"k", b"v");
        Err(None)
    });
    assert!(failed.is_err());
    assert_eq!(files(dir), [PathBuf::from("stratus.lock")]);

    write(&*store, "t", &[("k", Some("v"))]);
    let iam = harness
        .storage
        .store(&Namespace::global("000000000000", "iam"), Durability::Strict)
        .unwrap();
    write(&*iam, "users", &[("alice", Some("{}"))]);
    store.put_blob("b", &mut &b"x"[..]).unwrap();
    assert_eq!(
        files(dir),
        [
            PathBuf::from("000000000000/iam.redb"),
            PathBuf::from("000000000000/us-east-1/test.blobs/b"),
            PathBuf::from("000000000000/us-east-1/test.redb"),
            PathBuf::from("stratus.lock"),
        ]
    );
}

#[test]
fn newer_schema_is_refused() {
    let harness = Harness::open(Backend::Redb);
    write(&*harness.store(), "t", &[("k", Some("v"))]);
    let dir = harness.dir.as_ref().unwrap().path().to_path_buf();
    let harness = harness.reopen();
    drop(harness.storage);

    let path = dir.join("000000000000/us-east-1/test.redb");
    let meta: redb::TableDefinition<&str, u32> = redb::TableDefinition::new("stratus:meta");
    let db = redb::Database::open(&path).unwrap();
    let txn = db.begin_write().unwrap();
    txn.open_table(meta)
        .unwrap()
        .insert("schema_version", SCHEMA_VERSION + 1)
        .unwrap();
    txn.commit().unwrap();
    drop(db);

    let storage = open(&dir).unwrap();
    let err = storage.store(&namespace(), Durability::Strict).err().unwrap();
    match &err {
        StorageError::NewerSchema { found, supported, .. } => {
            assert_eq!((*found, *supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    assert!(err.to_string().contains("newer Stratus"), "{err}");
}

#[test]
fn second_open_of_a_data_dir_is_refused_at_once() {
    let harness = Harness::open(Backend::Redb);
    let dir = harness.dir.as_ref().unwrap().path();
    let started = Instant::now();
    let err = open(dir).err().unwrap();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(matches!(err, StorageError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("stratus.lock"), "{err}");

    // The lock lives as long as any store of the storage.
    let store = harness.store();
    drop(harness.storage);
    assert!(open(dir).is_err());
    drop(store);
    // Another test of this binary that starts a process at that moment holds a copy of the
    // lock's descriptor between its fork and its exec; the lock is free once that is gone.
    let deadline = Instant::now() + Duration::from_secs(5);
    while open(dir).is_err() {
        assert!(
            Instant::now() < deadline,
            "the lock outlived every store of the storage"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn data_dir_that_cannot_be_created_is_a_clear_error() {
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("file");
    fs::write(&file, "not a directory").unwrap();
    let err = open(&file.join("data")).err().unwrap();
    assert!(matches!(err, StorageError::Io { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("create the data directory") && message.contains("file"),
        "{message}"
    );
}

#[test]
fn store_directory_that_cannot_be_created_fails_that_write_only() {
    let harness = Harness::open(Backend::Redb);
    let dir = harness.dir.as_ref().unwrap().path();
    let blocked = Namespace::regional("222222222222", "us-east-1", "sqs");
    let store = harness.storage.store(&blocked, Durability::Strict).unwrap();
    // A file where the account's directory belongs.
    let blocker = dir.join("222222222222");
    fs::write(&blocker, "in the way").unwrap();
    let put = |value: &'static str| {
        store.transact(|tx| {
            tx.put("t", b"k", value);
            Ok::<_, StorageError>(())
        })
    };
    let err = put("lost").err().unwrap();
    assert!(matches!(err, StorageError::Io { .. }), "{err}");
    assert!(err.to_string().contains("222222222222"), "{err}");
    // Other stores are unaffected, and this one recovers once the path is clear.
    write(&*harness.store(), "t", &[("k", Some("v"))]);
    fs::remove_file(&blocker).unwrap();
    put("kept").unwrap();
    assert_eq!(store.get("t", b"k").unwrap(), Some(b"kept".to_vec()));
}

#[test]
fn regional_namespaces_are_found_after_a_restart() {
    let harness = Harness::open(Backend::Redb);
    let ddb = |account: &str, region: &str| Namespace::regional(account, region, "dynamodb");
    for namespace in [ddb("111111111111", "us-west-2"), ddb("000000000000", "eu-west-1")] {
        let store = harness.storage.store(&namespace, Durability::Strict).unwrap();
        write(&*store, "tables", &[("t", Some("1"))]);
    }
    // Opened but never written: no file, so not listed.
    harness
        .storage
        .store(&ddb("000000000000", "ap-south-1"), Durability::Strict)
        .unwrap();
    let sqs = harness.storage.store(
        &Namespace::regional("000000000000", "eu-west-1", "sqs"),
        Durability::Strict,
    );
    write(&*sqs.unwrap(), "queues", &[("q", Some("1"))]);
    let harness = harness.reopen();
    assert_eq!(
        harness.storage.regional_namespaces("dynamodb").unwrap(),
        vec![ddb("000000000000", "eu-west-1"), ddb("111111111111", "us-west-2")]
    );
    assert!(harness.storage.regional_namespaces("kinesis").unwrap().is_empty());
}
