//! Instances' lives: warm reuse, the concurrency limit, idle stop, stop_function, revisions.

mod common;

use std::time::Duration;

use common::*;
use stratus_lambda_host::HostError;

/// Counts its invocations and says which instance it is (a pid would not do: in a PID
/// namespace every instance is 1).
const COUNTER: &str = "\
import os, time, uuid
count = 0
instance = uuid.uuid4().hex
def handler(event, context):
    global count
    count += 1
    if event and event.get('sleep'):
        time.sleep(event['sleep'])
    return {'count': count, 'pid': instance}
";

/// A function whose processes carry a marker in their environment, so the test can find
/// them from outside (whether or not they run in namespaces).
fn counter_spec() -> stratus_lambda_host::FunctionSpec {
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", COUNTER, 0o644)]));
    spec.environment = vec![("TEST_MARKER".into(), stratus_core::id::uuid())];
    spec
}

/// How many processes run with `spec`'s marker.
fn processes(spec: &stratus_lambda_host::FunctionSpec) -> usize {
    let marker = format!("TEST_MARKER={}", spec.environment[0].1);
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|entry| {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|environ| environ.split(|b| *b == 0).any(|var| var == marker.as_bytes()))
        })
        .count()
}

fn field(body: &str, name: &str) -> String {
    let start = body
        .find(&format!(r#""{name}": "#))
        .map(|i| i + name.len() + 4)
        .expect("field");
    body[start..]
        .split([',', '}'])
        .next()
        .unwrap_or_default()
        .trim_matches('"')
        .to_owned()
}

/// Waits up to `limit` for `done`, polling.
async fn eventually(limit: Duration, done: impl Fn() -> bool) -> bool {
    let step = Duration::from_millis(20);
    let mut waited = Duration::ZERO;
    while !done() {
        if waited >= limit {
            return false;
        }
        tokio::time::sleep(step).await;
        waited += step;
    }
    true
}

#[tokio::test(flavor = "multi_thread")]
async fn warm_instance_is_reused() {
    require_python();
    let host = host();
    let spec = counter_spec();
    let first = response(&invoke(&host, &spec, "{}").await);
    let second = response(&invoke(&host, &spec, "{}").await);
    assert_eq!(field(&first, "count"), "1");
    assert_eq!(field(&second, "count"), "2");
    assert_eq!(field(&first, "pid"), field(&second, "pid"));
    assert_eq!(host.instance_count(ARN), 1);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrency_limit_is_too_many_requests() {
    require_python();
    let host = host();
    let mut spec = counter_spec();
    spec.max_concurrency = 1;
    let busy = {
        let (host, spec) = (host.clone(), spec.clone());
        tokio::spawn(async move { invoke(&host, &spec, r#"{"sleep": 1}"#).await })
    };
    assert!(eventually(Duration::from_secs(5), || host.instance_count(ARN) == 1).await);
    match host.invoke(&spec, request("{}")).await {
        Err(HostError::TooManyRequests) => {}
        other => panic!("expected TooManyRequests, got {:?}", other.map(|o| o.result)),
    }
    let done = busy.await.expect("first invoke");
    assert_eq!(field(&response(&done), "count"), "1");
    // Once it is idle again, the one instance serves the next invoke.
    assert_eq!(field(&response(&invoke(&host, &spec, "{}").await), "count"), "2");
    spec.max_concurrency = 0;
    assert!(matches!(
        host.invoke(&spec, request("{}")).await,
        Err(HostError::TooManyRequests)
    ));
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_invokes_get_their_own_instances() {
    require_python();
    let host = host();
    let spec = counter_spec();
    let invokes: Vec<_> = (0..3)
        .map(|_| {
            let (host, spec) = (host.clone(), spec.clone());
            tokio::spawn(async move { response(&invoke(&host, &spec, r#"{"sleep": 0.3}"#).await) })
        })
        .collect();
    let mut pids = Vec::new();
    for invoke in invokes {
        pids.push(field(&invoke.await.expect("invoke"), "pid"));
    }
    pids.sort();
    pids.dedup();
    assert_eq!(pids.len(), 3);
    assert_eq!(host.instance_count(ARN), 3);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_instances_are_stopped() {
    require_python();
    let host = host_with_idle(Duration::from_millis(300));
    let spec = counter_spec();
    response(&invoke(&host, &spec, "{}").await);
    assert!(processes(&spec) > 0);
    assert!(eventually(Duration::from_secs(5), || host.instance_count(ARN) == 0).await);
    assert!(
        eventually(Duration::from_secs(2), || processes(&spec) == 0).await,
        "the instance still runs"
    );
    // The next invoke is a cold start.
    assert_eq!(field(&response(&invoke(&host, &spec, "{}").await), "count"), "1");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_function_kills_its_instances() {
    require_python();
    let host = host();
    let spec = counter_spec();
    response(&invoke(&host, &spec, "{}").await);
    assert!(processes(&spec) > 0);
    host.stop_function(ARN);
    assert_eq!(host.instance_count(ARN), 0);
    assert!(
        eventually(Duration::from_secs(2), || processes(&spec) == 0).await,
        "the instance still runs"
    );
    assert_eq!(field(&response(&invoke(&host, &spec, "{}").await), "count"), "1");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_revision_gets_a_new_instance() {
    require_python();
    let host = host();
    let mut spec = counter_spec();
    let old = field(&response(&invoke(&host, &spec, "{}").await), "pid");
    let one_instance = processes(&spec);
    spec.revision = "r2".into();
    let body = response(&invoke(&host, &spec, "{}").await);
    assert_eq!(field(&body, "count"), "1");
    assert_ne!(field(&body, "pid"), old);
    assert!(
        eventually(Duration::from_secs(2), || processes(&spec) == one_instance).await,
        "the old revision's instance still runs"
    );
    assert_eq!(host.instance_count(ARN), 1);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_stops_everything_and_removes_the_private_work_dir() {
    require_python();
    let host = host();
    let spec = counter_spec();
    response(&invoke(&host, &spec, "{}").await);
    let work_dir = host.work_dir().expect("a work dir once code is unpacked");
    assert!(work_dir.join("code").is_dir(), "{}", work_dir.display());
    host.shutdown();
    assert!(eventually(Duration::from_secs(2), || processes(&spec) == 0).await);
    assert!(!work_dir.exists(), "{} is left behind", work_dir.display());
}

#[tokio::test(flavor = "multi_thread")]
async fn code_is_unpacked_once_and_keeps_modes() {
    require_python();
    let host = host();
    let code = "\
import os, stat
def handler(event, context):
    root = os.environ['LAMBDA_TASK_ROOT']
    return [oct(stat.S_IMODE(os.stat(os.path.join(root, n)).st_mode)) for n in ('run.sh', 'data.txt')]
";
    let spec = spec(
        "python3.12",
        "app.handler",
        archive(&[
            ("app.py", code, 0o644),
            ("run.sh", "#!/bin/sh\n", 0o755),
            ("data.txt", "x", 0o600),
        ]),
    );
    assert_eq!(response(&invoke(&host, &spec, "{}").await), r#"["0o755", "0o600"]"#);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_work_dir_holds_the_code_and_survives_shutdown() {
    require_python();
    let work_dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lambda-host-work-{}", stratus_core::id::uuid()));
    let host = stratus_lambda_host::Host::new(stratus_lambda_host::HostConfig {
        work_dir: Some(work_dir.clone()),
        endpoint_url: "http://127.0.0.1:4566".into(),
        idle_timeout: Duration::from_secs(60),
    });
    let spec = counter_spec();
    assert!(host.work_dir().is_none(), "nothing is made before the first invoke");
    response(&invoke(&host, &spec, "{}").await);
    assert_eq!(host.work_dir(), Some(work_dir.clone()));
    assert!(work_dir.join("code").join(&spec.code.sha256).join("app.py").is_file());
    assert!(work_dir.join("runtime/bootstrap.py").is_file());
    host.shutdown();
    assert!(work_dir.join("code").is_dir(), "a configured work dir is kept");
    let _ = std::fs::remove_dir_all(&work_dir);
}

/// The service spawns invocations on tokio: the futures must be `Send`, the host shareable.
#[test]
fn host_and_its_futures_are_send() {
    fn send<T: Send>(_: &T) {}
    fn shared<T: Send + Sync + Clone + 'static>() {}
    shared::<stratus_lambda_host::Host>();
    let host = host();
    let spec = counter_spec();
    let invoke = host.invoke(&spec, request("{}"));
    send(&invoke);
    let streaming = host.invoke_streaming(&spec, request("{}"));
    send(&streaming);
    drop((invoke, streaming));
    fn stream_is_send<T: Send>() {}
    stream_is_send::<stratus_lambda_host::ResponseStream>();
}
