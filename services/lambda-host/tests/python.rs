//! Real Python functions on the host's python3, through the runtime client Stratus ships.

mod common;

use std::time::Duration;

use common::*;

const ECHO: &str = "def handler(event, context):\n    return event\n";

#[tokio::test(flavor = "multi_thread")]
async fn echo() {
    require_python();
    let host = host();
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", ECHO, 0o644)]));
    let outcome = invoke(&host, &spec, r#"{"a": [1, 2, "three"]}"#).await;
    assert_eq!(response(&outcome), r#"{"a": [1, 2, "three"]}"#);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn handler_in_a_package_directory() {
    require_python();
    let host = host();
    let code = archive(&[
        ("pkg/__init__.py", "", 0o644),
        ("pkg/sub/__init__.py", "", 0o644),
        ("pkg/sub/mod.py", "def go(event, context):\n    return 'deep'\n", 0o644),
    ]);
    for handler in ["pkg/sub/mod.go", "pkg.sub.mod.go"] {
        let outcome = invoke(&host, &spec("python3.12", handler, code.clone()), "{}").await;
        assert_eq!(response(&outcome), r#""deep""#, "{handler}");
        host.stop_function(ARN);
    }
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn context_has_aws_attributes() {
    require_python();
    let host = host();
    let code = "\
import json
def handler(event, context):
    return {
        'function_name': context.function_name,
        'function_version': context.function_version,
        'invoked_function_arn': context.invoked_function_arn,
        'memory_limit_in_mb': context.memory_limit_in_mb,
        'aws_request_id': context.aws_request_id,
        'log_group_name': context.log_group_name,
        'log_stream_name': context.log_stream_name,
        'identity_id': context.identity.cognito_identity_id,
        'custom': context.client_context.custom if context.client_context else None,
        'remaining': context.get_remaining_time_in_millis(),
    }
";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let mut request = request("{}");
    request.client_context = Some(r#"{"custom":{"k":"v"},"env":{},"client":{}}"#.into());
    request.cognito_identity = Some(r#"{"cognitoIdentityId":"id-1","cognitoIdentityPoolId":"pool-1"}"#.into());
    let request_id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    let body = response(&outcome);
    assert!(body.contains(r#""function_name": "test""#), "{body}");
    assert!(body.contains(r#""function_version": "$LATEST""#), "{body}");
    assert!(body.contains(&format!(r#""invoked_function_arn": "{ARN}""#)), "{body}");
    assert!(body.contains(r#""memory_limit_in_mb": "128""#), "{body}");
    assert!(body.contains(&format!(r#""aws_request_id": "{request_id}""#)), "{body}");
    assert!(body.contains(r#""log_group_name": "/aws/lambda/test""#), "{body}");
    assert!(body.contains(r#""log_stream_name": "20"#), "{body}");
    assert!(body.contains("/[$LATEST]"), "{body}");
    assert!(body.contains(r#""identity_id": "id-1""#), "{body}");
    assert!(body.contains(r#""custom": {"k": "v"}"#), "{body}");
    let remaining: u64 = body
        .split(r#""remaining": "#)
        .nth(1)
        .and_then(|rest| rest.trim_end_matches('}').trim().parse().ok())
        .expect("remaining time");
    assert!(remaining > 3000 && remaining <= 5000, "{remaining}");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn environment_is_lambdas() {
    require_python();
    let host = host();
    let code = "\
import os
def handler(event, context):
    return {k: os.environ.get(k) for k in event}
";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.environment = vec![("MY_VAR".into(), "mine".into()), ("TZ".into(), "overridden".into())];
    spec.credentials = Some(stratus_lambda_host::Credentials {
        access_key_id: "ASIAEXAMPLE".into(),
        secret_access_key: "secret".into(),
        session_token: "token".into(),
    });
    let mut request = request(
        r#"["_HANDLER","AWS_REGION","AWS_DEFAULT_REGION","AWS_EXECUTION_ENV","AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE","AWS_LAMBDA_FUNCTION_VERSION","AWS_LAMBDA_INITIALIZATION_TYPE",
        "AWS_LAMBDA_LOG_GROUP_NAME","AWS_LAMBDA_RUNTIME_API","LANG","TZ","AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY","AWS_SESSION_TOKEN","AWS_ENDPOINT_URL","MY_VAR","_X_AMZN_TRACE_ID",
        "LAMBDA_TASK_ROOT"]"#,
    );
    request.trace_id = Some("Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1".into());
    let body = response(&host.invoke(&spec, request).await.expect("invoke"));
    for expected in [
        r#""_HANDLER": "app.handler""#,
        r#""AWS_REGION": "us-east-1""#,
        r#""AWS_DEFAULT_REGION": "us-east-1""#,
        r#""AWS_EXECUTION_ENV": "AWS_Lambda_python3.12""#,
        r#""AWS_LAMBDA_FUNCTION_NAME": "test""#,
        r#""AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128""#,
        r#""AWS_LAMBDA_FUNCTION_VERSION": "$LATEST""#,
        r#""AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand""#,
        r#""AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/test""#,
        r#""AWS_LAMBDA_RUNTIME_API": "127.0.0.1:"#,
        r#""LANG": "en_US.UTF-8""#,
        r#""TZ": "overridden""#,
        r#""AWS_ACCESS_KEY_ID": "ASIAEXAMPLE""#,
        r#""AWS_SECRET_ACCESS_KEY": "secret""#,
        r#""AWS_SESSION_TOKEN": "token""#,
        r#""AWS_ENDPOINT_URL": "http://127.0.0.1:4566""#,
        r#""MY_VAR": "mine""#,
        r#""_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1""#,
    ] {
        assert!(body.contains(expected), "{expected} not in {body}");
    }
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn handler_exception_is_aws_error_document() {
    require_python();
    let host = host();
    let code = "def handler(event, context):\n    raise ValueError('boom')\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let request = request("{}");
    let id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    let body = error(&outcome);
    assert!(
        body.starts_with(r#"{"errorMessage": "boom", "errorType": "ValueError""#),
        "{body}"
    );
    assert!(body.contains(&format!(r#""requestId": "{id}""#)), "{body}");
    assert!(body.contains(r#""stackTrace": ["  File \""#), "{body}");
    assert!(
        body.contains(r#"line 2, in handler\n    raise ValueError('boom')\n"]"#),
        "{body}"
    );
    assert!(
        outcome.log_tail.contains("[ERROR] ValueError: boom"),
        "{}",
        outcome.log_tail
    );
    // The instance survives its handler's errors.
    let again = invoke(&host, &spec, "{}").await;
    assert!(error(&again).contains("boom"));
    assert_eq!(host.instance_count(ARN), 1);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn init_errors() {
    require_python();
    let host = host();
    let code = archive(&[
        ("app.py", ECHO, 0o644),
        ("broken.py", "def handler(event, context)\n    return 1\n", 0o644),
    ]);
    let cases = [
        (
            "missing.handler",
            r#"{"errorMessage": "Unable to import module 'missing': No module named 'missing'", "errorType": "Runtime.ImportModuleError""#,
        ),
        (
            "app.nope",
            r#"{"errorMessage": "Handler 'nope' missing on module 'app'", "errorType": "Runtime.HandlerNotFound""#,
        ),
        (
            "broken.handler",
            r#"{"errorMessage": "Syntax error in module 'broken': "#,
        ),
        ("nodot", r#""errorType": "Runtime.MalformedHandlerName""#),
    ];
    for (handler, expected) in cases {
        let outcome = invoke(&host, &spec("python3.12", handler, code.clone()), "{}").await;
        let body = error(&outcome);
        assert!(body.contains(expected), "{handler}: {body}");
        assert!(outcome.log_tail.contains("REPORT RequestId: "), "{}", outcome.log_tail);
        assert_eq!(host.instance_count(ARN), 0, "{handler}: a failed instance is not kept");
    }
    let body = error(&invoke(&host, &spec("python3.12", "broken.handler", code.clone()), "{}").await);
    assert!(body.contains(r#""errorType": "Runtime.UserCodeSyntaxError""#), "{body}");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn timeout_kills_the_instance() {
    require_python();
    let host = host();
    let code = "import time, os\ndef handler(event, context):\n    time.sleep(30)\n";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.timeout = Duration::from_secs(1);
    let request = request("{}");
    let id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    assert_eq!(
        error(&outcome),
        format!(
            r#"{{"errorMessage":"RequestId: {id} Error: Task timed out after 1.00 seconds","errorType":"Sandbox.Timedout"}}"#
        )
    );
    assert!(
        outcome
            .log_tail
            .contains(&format!("{id} Task timed out after 1.00 seconds")),
        "{}",
        outcome.log_tail
    );
    assert!(outcome.log_tail.contains("Status: timeout"), "{}", outcome.log_tail);
    assert!(outcome.duration >= Duration::from_secs(1) && outcome.duration < Duration::from_secs(3));
    assert_eq!(host.instance_count(ARN), 0);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn prints_are_in_the_log() {
    require_python();
    let host = host();
    let code = "import sys, logging\nprint('at init')\nlogger = logging.getLogger()\nlogger.setLevel(logging.INFO)\ndef handler(event, context):\n    print('hello from the handler')\n    print('to stderr', file=sys.stderr)\n    logger.info('logged\\nover two lines')\n    return 1\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let request = request("{}");
    let id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    let log = &outcome.log_tail;
    assert!(
        log.contains(&format!("START RequestId: {id} Version: $LATEST\n")),
        "{log}"
    );
    assert!(log.contains("hello from the handler\n"), "{log}");
    assert!(log.contains("to stderr\n"), "{log}");
    assert!(log.contains(&format!("Z\t{id}\tlogged\rover two lines\n")), "{log}");
    assert!(log.contains("[INFO]\t20"), "{log}");
    assert!(
        log.contains(&format!("END RequestId: {id}\nREPORT RequestId: {id}\tDuration: ")),
        "{log}"
    );
    assert!(log.contains("\tMemory Size: 128 MB\tMax Memory Used: "), "{log}");
    assert!(
        log.contains("\tInit Duration: "),
        "a cold start reports its init: {log}"
    );
    assert!(log.ends_with("\t\n"), "{log:?}");
    let warm = invoke(&host, &spec, "{}").await;
    assert!(!warm.log_tail.contains("Init Duration"), "{}", warm.log_tail);
    assert!(!warm.log_tail.contains("at init"), "{}", warm.log_tail);
    assert!(warm.log_tail.starts_with("START RequestId: "), "{}", warm.log_tail);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn process_exit_is_runtime_exit_error() {
    require_python();
    let host = host();
    let code = "import os\ndef handler(event, context):\n    os._exit(3)\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let request = request("{}");
    let id = request.request_id.clone();
    let outcome = host.invoke(&spec, request).await.expect("invoke");
    assert_eq!(
        error(&outcome),
        format!(
            r#"{{"errorMessage":"RequestId: {id} Error: Runtime exited with error: exit status 3","errorType":"Runtime.ExitError"}}"#
        )
    );
    assert!(
        outcome.log_tail.contains("Error Type: Runtime.ExitError"),
        "{}",
        outcome.log_tail
    );
    assert_eq!(host.instance_count(ARN), 0);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn layers_are_on_the_path_and_merged_in_order() {
    require_python();
    let host = host();
    let code = "\
import os, layermod
def handler(event, context):
    opt = os.path.dirname(os.path.dirname(layermod.__file__))
    return [layermod.NAME, open(os.path.join(opt, 'data.txt')).read()]
";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.layers = vec![
        archive(&[
            ("python/layermod.py", "NAME = 'first'\n", 0o644),
            ("data.txt", "one", 0o644),
        ]),
        archive(&[("data.txt", "two", 0o644)]),
    ];
    assert_eq!(response(&invoke(&host, &spec, "{}").await), r#"["first", "two"]"#);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn response_over_6_mb_is_refused() {
    require_python();
    let host = host();
    let code = "def handler(event, context):\n    return 'x' * 7000000\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let outcome = invoke(&host, &spec, "{}").await;
    assert_eq!(
        error(&outcome),
        r#"{"errorMessage":"Response payload size (7000002 bytes) exceeded maximum allowed payload size (6291556 bytes).","errorType":"Function.ResponseSizeTooLarge"}"#
    );
    // Just under the limit is fine (new code: a new revision).
    let code = "def handler(event, context):\n    return 'x' * (int(event) - 2)\n";
    let mut spec = common::spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.revision = "r2".into();
    let outcome = invoke(&host, &spec, "6291556").await;
    assert_eq!(response(&outcome).len(), 6_291_556);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn files_are_where_lambda_puts_them() {
    require_python();
    let host = host();
    let code = "\
import os
def handler(event, context):
    root = os.environ['LAMBDA_TASK_ROOT']
    try:
        open(os.path.join(root, 'new.txt'), 'w').close()
        code_writable = True
    except OSError:
        code_writable = False
    open('/tmp/scratch', 'w').write('x')
    return {
        'root': root,
        'cwd': os.getcwd(),
        'code': os.path.isfile(os.path.join(root, 'app.py')),
        'opt': open('/opt/from-layer.txt').read() if os.path.exists('/opt/from-layer.txt') else None,
        'pid': os.getpid(),
        'code_writable': code_writable,
        'tmp': sorted(os.listdir('/tmp')),
    }
";
    let mut spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    spec.layers = vec![archive(&[("from-layer.txt", "layer", 0o644)])];
    let outcome = invoke(&host, &spec, "{}").await;
    let body = response(&outcome);
    println!("{body}");
    if body.contains(r#""root": "/var/task""#) {
        // In namespaces: AWS's paths, the code read-only, /opt the layers, /tmp private.
        assert!(body.contains(r#""cwd": "/var/task""#), "{body}");
        assert!(body.contains(r#""code": true"#), "{body}");
        assert!(body.contains(r#""opt": "layer""#), "{body}");
        assert!(body.contains(r#""pid": 1,"#), "{body}");
        assert!(body.contains(r#""code_writable": false"#), "{body}");
        assert!(body.contains(r#""tmp": ["scratch"]"#), "{body}");
        assert!(
            !outcome.log_tail.contains("Max Memory Used: 0 MB"),
            "{}",
            outcome.log_tail
        );
    } else {
        // Plain processes: the real directories.
        assert!(body.contains(r#""code": true"#), "{body}");
    }
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_processes_see_the_real_directories() {
    require_python();
    let host = host();
    host.set_namespaces(false);
    let code = "import os\ndef handler(event, context):\n    return [os.environ['LAMBDA_TASK_ROOT'], os.getcwd(), os.getpid()]\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let body = response(&invoke(&host, &spec, "{}").await);
    let work_dir = host.work_dir().expect("work dir");
    let root = work_dir.join("code").join(&spec.code.sha256);
    assert!(
        body.starts_with(&format!(r#"["{}", "{}", "#, root.display(), root.display())),
        "{body}"
    );
    assert!(!body.ends_with(", 1]"), "{body}");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn unserializable_results_are_marshal_errors() {
    require_python();
    let host = host();
    let code = "def handler(event, context):\n    return {1, 2}\n";
    let spec = spec("python3.12", "app.handler", archive(&[("app.py", code, 0o644)]));
    let body = error(&invoke(&host, &spec, "{}").await);
    assert!(
        body.starts_with(r#"{"errorMessage": "Unable to marshal response: Object of type set is not JSON serializable", "errorType": "Runtime.MarshalError""#),
        "{body}"
    );
    host.shutdown();
}
