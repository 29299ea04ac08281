//! Crash safety: the `crash_writer` example is killed (SIGKILL) mid-write, or runs into a
//! file-size limit, and every key it acknowledged must be in the store afterwards.
// These tests time real disk writes and crashes in the machine's time.
#![allow(clippy::disallowed_methods)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use stratus_storage::{Durability, Namespace, Storage, StorageConfig};

const ROUNDS: usize = 5;

/// The example binary, built on first use with this test's profile; it lands in
/// `<target>/<profile>/examples/`, beside this test's own `deps/` directory.
fn crash_writer() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let test_binary = std::env::current_exe().unwrap();
        let profile_dir = test_binary.parent().and_then(Path::parent).unwrap();
        let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
            Some("debug") => "dev",
            Some(other) => other,
            None => panic!("no profile directory above {}", test_binary.display()),
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "stratus-storage", "--example", "crash_writer"])
            .args(["--profile", profile])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the crash_writer example failed");
        profile_dir.join("examples").join("crash_writer")
    })
}

/// The complete lines of a writer's stdout: the keys it acknowledged.
fn acknowledged(stdout: &str) -> impl Iterator<Item = &str> {
    stdout.split_inclusive('\n').filter_map(|line| line.strip_suffix('\n'))
}

/// Asserts that every key in `keys` is in the crash writers' store under `dir`.
fn assert_stored(dir: &Path, keys: &[String]) {
    let storage = Storage::open(StorageConfig::DataDir(dir.into())).unwrap();
    let namespace = Namespace::regional("000000000000", "us-east-1", "crash");
    let store = storage.store(&namespace, Durability::Strict).unwrap();
    for key in keys {
        assert!(
            store.get("acked", key.as_bytes()).unwrap().is_some(),
            "acknowledged key {key} was lost"
        );
    }
}

/// A delay of 50 to 300 ms, different each time.
fn random_delay() -> Duration {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos();
    Duration::from_millis(50 + u64::from(nanos) % 250)
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut acked = Vec::new();
    for round in 0..ROUNDS {
        let mut child = Command::new(crash_writer())
            .arg(dir.path())
            .args([&format!("r{round}"), "4", "256", "1000000"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = thread::spawn(move || {
            let mut out = String::new();
            stdout.read_to_string(&mut out).unwrap();
            out
        });
        thread::sleep(random_delay());
        child.kill().unwrap();
        child.wait().unwrap();
        acked.extend(acknowledged(&reader.join().unwrap()).map(str::to_owned));
        assert_stored(dir.path(), &acked);
    }
    assert!(
        !acked.is_empty(),
        "the writer acknowledged nothing before it was killed"
    );
}

/// Under a file-size limit (as good as a full disk, and safe to provoke) writes fail with a
/// clear error and no panic, and what was acknowledged before is intact.
#[test]
fn a_full_disk_fails_writes_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // SIGXFSZ ignored, the limit surfaces as EFBIG ("File too large") from write(2).
    let output = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 8192; exec \"$0\" \"$@\""])
        .arg(crash_writer())
        .arg(dir.path())
        .args(["full", "4", "8192", "100000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("File too large") && stderr.contains("crash.redb"),
        "{stderr}"
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let acked: Vec<String> = acknowledged(&stdout).map(str::to_owned).collect();
    assert!(!acked.is_empty());
    assert_stored(dir.path(), &acked);
}
