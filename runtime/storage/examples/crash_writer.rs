//! Writes acknowledged keys until it is killed: the subject of the crash-safety tests.
//!
//! ```text
//! crash_writer <data-dir> <tag> <threads> <value-bytes> <keys-per-thread>
//! ```
//!
//! Each thread commits keys `<tag>-<thread>-<n>` to table `acked` of a strict store and prints
//! each key on stdout once its commit has returned, so every printed key must survive a
//! crash. A thread stops at its first failed write and reports it on stderr; the process then
//! exits with status 3.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::thread;

use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, tag, threads, value_bytes, keys] = args.as_slice() else {
        eprintln!("usage: crash_writer <data-dir> <tag> <threads> <value-bytes> <keys-per-thread>");
        return ExitCode::from(2);
    };
    let number = |arg: &str| arg.parse::<usize>().expect("a number");
    let (threads, value_bytes, keys) = (number(threads), number(value_bytes), number(keys));

    let namespace = Namespace::regional("000000000000", "us-east-1", "crash");
    let opened = Storage::open(StorageConfig::DataDir(dir.into()))
        .and_then(|storage| storage.store(&namespace, Durability::Strict));
    let store = match opened {
        Ok(store) => store,
        Err(err) => {
            eprintln!("open failed: {err}");
            return ExitCode::from(3);
        }
    };
    let value = Arc::new(vec![b'v'; value_bytes]);
    let writers: Vec<_> = (0..threads)
        .map(|thread| {
            let (store, value, tag) = (store.clone(), value.clone(), tag.clone());
            thread::spawn(move || {
                for n in 0..keys {
                    let key = format!("{tag}-{thread}-{n}");
                    let written = store.transact(|tx| {
                        tx.put("acked", key.as_bytes(), value.as_slice());
                        Ok::<_, StorageError>(())
                    });
                    if let Err(err) = written {
                        eprintln!("write failed: {err}");
                        return false;
                    }
                    // One write per line: the line is in the pipe before the next commit.
                    let _ = writeln!(std::io::stdout(), "{key}");
                }
                true
            })
        })
        .collect();
    // Join every writer: each runs until its own first failure.
    let finished: Vec<bool> = writers
        .into_iter()
        .map(|writer| writer.join().unwrap_or(false))
        .collect();
    if finished.iter().all(|&ok| ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    }
}
