//! Custom runtimes: a `bootstrap` that speaks the Runtime API itself (here bash, over
//! `/dev/tcp`, so the test needs no HTTP client on the host).

mod common;

use common::*;
use stratus_lambda_host::HostError;

/// Answers every event with `{"echo":EVENT,"handler":_HANDLER}`.
const BOOTSTRAP: &str = r#"#!/bin/bash
set -eu
host=${AWS_LAMBDA_RUNTIME_API%:*}
port=${AWS_LAMBDA_RUNTIME_API##*:}
api=/2018-06-01/runtime
while true; do
  exec 3<>"/dev/tcp/$host/$port"
  printf 'GET %s/invocation/next HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$api" "$host" >&3
  id=; length=0
  while IFS= read -r line <&3; do
    line=${line%$'\r'}
    [ -z "$line" ] && break
    case "${line,,}" in
      lambda-runtime-aws-request-id:*) id=${line#*: } ;;
      content-length:*) length=${line#*: } ;;
    esac
  done
  event=
  [ "$length" -gt 0 ] && read -r -N "$length" event <&3
  exec 3<&-
  echo "handling $id"
  body="{\"echo\":$event,\"handler\":\"$_HANDLER\"}"
  exec 3<>"/dev/tcp/$host/$port"
  printf 'POST %s/invocation/%s/response HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$api" "$id" "$host" "${#body}" "$body" >&3
  while IFS= read -r line <&3; do :; done
  exec 3<&-
done
"#;

#[tokio::test(flavor = "multi_thread")]
async fn bash_bootstrap() {
    require("bash", "install bash");
    let host = host();
    let spec = spec(
        "provided.al2023",
        "any.thing",
        archive(&[("bootstrap", BOOTSTRAP, 0o755)]),
    );
    let outcome = invoke(&host, &spec, r#"{"n":1}"#).await;
    assert_eq!(response(&outcome), r#"{"echo":{"n":1},"handler":"any.thing"}"#);
    assert!(outcome.log_tail.contains("handling "), "{}", outcome.log_tail);
    let warm = invoke(&host, &spec, r#"{"n":2}"#).await;
    assert_eq!(response(&warm), r#"{"echo":{"n":2},"handler":"any.thing"}"#);
    assert_eq!(host.instance_count(ARN), 1);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn bootstrap_from_a_layer() {
    require("bash", "install bash");
    let host = host();
    let mut spec = spec("provided", "h", archive(&[("README", "no bootstrap here", 0o644)]));
    spec.layers = vec![archive(&[("bootstrap", BOOTSTRAP, 0o755)])];
    assert_eq!(
        response(&invoke(&host, &spec, "1").await),
        r#"{"echo":1,"handler":"h"}"#
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_bootstrap_is_invalid_entrypoint() {
    let host = host();
    let spec = spec("provided.al2", "h", archive(&[("README", "nothing", 0o644)]));
    let request = request("{}");
    let id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    assert_eq!(
        error(&outcome),
        format!(
            r#"{{"errorMessage":"RequestId: {id} Error: Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]","errorType":"Runtime.InvalidEntrypoint"}}"#
        )
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn unsupported_runtimes_are_unavailable() {
    let host = host();
    for runtime in ["java21", "dotnet8", "ruby3.3", "go1.x", "cobol", ""] {
        let spec = spec(runtime, "h", archive(&[("a", "b", 0o644)]));
        match host.invoke(&spec, request("{}")).await {
            Err(HostError::RuntimeUnavailable(message)) => assert!(message.contains("not supported"), "{message}"),
            other => panic!("{runtime}: {:?}", other.map(|o| o.result)),
        }
    }
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn not_a_zip_is_a_code_error() {
    let host = host();
    let mut code = archive(&[("a", "b", 0o644)]);
    std::fs::write(&code.zip_path, b"not a zip").expect("write");
    code.sha256 = "bm90IGEgemlw".into();
    let spec = spec("provided", "h", code);
    assert!(matches!(
        host.invoke(&spec, request("{}")).await,
        Err(HostError::Code(_))
    ));
    host.shutdown();
}

/// An external extension: registers for INVOKE and SHUTDOWN and writes each INVOKE's request
/// id, each SHUTDOWN, and its registration answer to `$RECORD`.
const RECORDER: &str = r#"#!/bin/bash
set -eu
host=${AWS_LAMBDA_RUNTIME_API%:*}
port=${AWS_LAMBDA_RUNTIME_API##*:}
call() { # METHOD PATH HEADERS BODY -> sets $headers and $body
  exec 3<>"/dev/tcp/$host/$port"
  printf '%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%sContent-Length: %d\r\n\r\n%s' \
    "$1" "$2" "$host" "$3" "${#4}" "$4" >&3
  headers=; length=0
  while IFS= read -r line <&3; do
    line=${line%$'\r'}
    [ -z "$line" ] && break
    headers+="${line,,}"$'\n'
    case "${line,,}" in content-length:*) length=${line#*: } ;; esac
  done
  body=
  [ "$length" -gt 0 ] && read -r -N "$length" body <&3
  exec 3<&-
}
call POST /2020-01-01/extension/register $'Lambda-Extension-Name: recorder\r\n' '{"events":["INVOKE","SHUTDOWN"]}'
id=$(printf '%s' "$headers" | sed -n 's/^lambda-extension-identifier: //p')
echo "registered $body" >> "$RECORD"
while true; do
  call GET /2020-01-01/extension/event/next "Lambda-Extension-Identifier: $id"$'\r\n' ''
  [[ $body =~ \"requestId\":\"([^\"]+)\" ]] && echo "invoke ${BASH_REMATCH[1]}" >> "$RECORD"
  [[ $body =~ \"eventType\":\"SHUTDOWN\",\"shutdownReason\":\"spindown\" ]] && echo "shutdown" >> "$RECORD"
done
"#;

#[tokio::test(flavor = "multi_thread")]
async fn external_extensions_see_every_invoke() {
    require("bash", "install bash");
    require_python();
    for namespaces in [true, false] {
        extension_sees_every_invoke(namespaces).await;
    }
}

async fn extension_sees_every_invoke(namespaces: bool) {
    let host = host();
    host.set_namespaces(namespaces);
    let code = "import os\ndef handler(event, context):\n    return open(os.environ['RECORD']).read()\n";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.layers = vec![archive(&[("extensions/recorder", RECORDER, 0o755)])];
    let record = format!("/tmp/stratus-extension-test-{}", stratus_core::id::uuid());
    spec.environment = vec![("RECORD".into(), record.clone())];
    let first = request("{}");
    let first_id = first.request_id.clone();
    let outcome = host.invoke(&spec, first).await.expect("invoke");
    let seen = response(&outcome);
    assert!(
        seen.contains(
            r#"registered {\"functionName\":\"test\",\"functionVersion\":\"$LATEST\",\"handler\":\"app.handler\"}"#
        ),
        "{seen}"
    );
    // The second event waits until the extension is done with the first.
    let seen = response(&invoke(&host, &spec, "{}").await);
    assert!(seen.contains(&format!("invoke {first_id}")), "{seen}");
    host.shutdown();
    let _ = std::fs::remove_file(&record);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_instance_tells_its_extensions_it_shuts_down() {
    require("bash", "install bash");
    require_python();
    let host = host_with_idle(std::time::Duration::from_millis(200));
    // A plain process, so the record is in the host's /tmp once the instance is gone.
    host.set_namespaces(false);
    let code = "def handler(event, context):\n    return 1\n";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.layers = vec![archive(&[("extensions/recorder", RECORDER, 0o755)])];
    let record = format!("/tmp/stratus-extension-test-{}", stratus_core::id::uuid());
    spec.environment = vec![("RECORD".into(), record.clone())];
    response(&invoke(&host, &spec, "{}").await);
    let mut shut_down = false;
    for _ in 0..150 {
        if std::fs::read_to_string(&record).is_ok_and(|text| text.contains("shutdown\n")) {
            shut_down = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let text = std::fs::read_to_string(&record).unwrap_or_default();
    let _ = std::fs::remove_file(&record);
    assert!(shut_down, "no SHUTDOWN recorded: {text}");
    assert_eq!(host.instance_count(ARN), 0);
    host.shutdown();
}
