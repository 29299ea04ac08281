//! What the integration tests share: zips built in the test, function specs, and the
//! interpreters the tests need (missing ones fail the test with what to install).

#![allow(dead_code, unreachable_pub)] // each test binary uses its own part

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use stratus_lambda_host::{CodeArchive, FunctionResult, FunctionSpec, Host, HostConfig, InvokeOutcome, InvokeRequest};

pub const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:test";

/// A file in a test zip: path, content, Unix mode.
pub type File<'a> = (&'a str, &'a str, u32);

/// A zip of `files`, stored uncompressed.
pub fn zip_bytes(files: &[File<'_>]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut out);
        for (name, content, mode) in files {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .unix_permissions(*mode);
            writer.start_file(*name, options).expect("zip entry");
            writer.write_all(content.as_bytes()).expect("zip write");
        }
        writer.finish().expect("zip finish");
    }
    out.into_inner()
}

/// A directory for this test process's zips (under the target directory, not /tmp).
fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("lambda-host-zips-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `files` zipped into a file, keyed by a hash of its content.
pub fn archive(files: &[File<'_>]) -> CodeArchive {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let bytes = zip_bytes(files);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    let key = format!("{:016x}", hasher.finish());
    let path = scratch().join(format!("{key}-{}.zip", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, &bytes).expect("write zip");
    CodeArchive {
        zip_path: path,
        sha256: key,
    }
}

pub fn host() -> Host {
    host_with_idle(Duration::from_secs(60))
}

pub fn host_with_idle(idle_timeout: Duration) -> Host {
    Host::new(HostConfig {
        work_dir: None,
        endpoint_url: "http://127.0.0.1:4566".into(),
        idle_timeout,
    })
}

pub fn spec(runtime: &str, handler: &str, code: CodeArchive) -> FunctionSpec {
    FunctionSpec {
        function_arn: ARN.into(),
        function_name: "test".into(),
        version: "$LATEST".into(),
        revision: "r1".into(),
        runtime: runtime.into(),
        handler: handler.into(),
        code,
        layers: Vec::new(),
        memory_mb: 128,
        timeout: Duration::from_secs(5),
        ephemeral_storage_mb: 512,
        environment: Vec::new(),
        credentials: None,
        region: "us-east-1".into(),
        log_group: "/aws/lambda/test".into(),
        max_concurrency: 10,
    }
}

pub fn request(payload: &str) -> InvokeRequest {
    InvokeRequest {
        request_id: stratus_core::id::uuid(),
        payload: payload.as_bytes().to_vec(),
        invoked_function_arn: ARN.into(),
        client_context: None,
        cognito_identity: None,
        trace_id: None,
    }
}

/// Invokes and returns the outcome, failing the test on a host error.
pub async fn invoke(host: &Host, spec: &FunctionSpec, payload: &str) -> InvokeOutcome {
    match host.invoke(spec, request(payload)).await {
        Ok(outcome) => outcome,
        Err(error) => panic!("invoke failed: {error}"),
    }
}

/// The response payload, failing the test (with the log) on a function error.
pub fn response(outcome: &InvokeOutcome) -> String {
    match &outcome.result {
        FunctionResult::Response(body) => String::from_utf8_lossy(body).into_owned(),
        FunctionResult::Error(body) => panic!(
            "function failed: {}\nlog:\n{}",
            String::from_utf8_lossy(body),
            outcome.log_tail
        ),
    }
}

/// The error document, failing the test if the function answered.
pub fn error(outcome: &InvokeOutcome) -> String {
    match &outcome.result {
        FunctionResult::Error(body) => String::from_utf8_lossy(body).into_owned(),
        FunctionResult::Response(body) => panic!("function answered {}", String::from_utf8_lossy(body)),
    }
}

/// Fails with what to install when `program` is not on PATH.
pub fn require(program: &str, install: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    assert!(
        found,
        "these tests run real functions and need `{program}` on PATH: {install}"
    );
}

pub fn require_python() {
    require("python3", "install Python 3 (e.g. apt-get install python3)");
}

pub fn require_node() {
    require("node", "install Node.js (e.g. apt-get install nodejs)");
}
