//! Real Node.js functions on the host's node, through the runtime client Stratus ships.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread")]
async fn commonjs_async_handler() {
    require_node();
    let host = host();
    let code = "exports.handler = async (event, context) => ({ got: event, name: context.functionName });\n";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let outcome = invoke(&host, &spec, r#"{"a":1}"#).await;
    assert_eq!(response(&outcome), r#"{"got":{"a":1},"name":"test"}"#);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn es_module_handler_and_context() {
    require_node();
    let host = host();
    let code = "\
export const handler = async (event, context) => ({
  version: context.functionVersion,
  arn: context.invokedFunctionArn,
  memory: context.memoryLimitInMB,
  requestId: context.awsRequestId,
  group: context.logGroupName,
  stream: context.logStreamName,
  waits: context.callbackWaitsForEmptyEventLoop,
  remaining: context.getRemainingTimeInMillis() > 3000,
  env: process.env.AWS_EXECUTION_ENV,
});
";
    let spec = spec(
        "nodejs20.x",
        "src/app.handler",
        archive(&[("src/app.mjs", code, 0o644)]),
    );
    let request = request("{}");
    let id = request.request_id.clone();
    let body = response(&host.invoke(&spec, request).await.expect("invoke"));
    assert!(body.contains(r#""version":"$LATEST""#), "{body}");
    assert!(body.contains(&format!(r#""arn":"{ARN}""#)), "{body}");
    assert!(body.contains(r#""memory":"128""#), "{body}");
    assert!(body.contains(&format!(r#""requestId":"{id}""#)), "{body}");
    assert!(body.contains(r#""group":"/aws/lambda/test""#), "{body}");
    assert!(body.contains(r#""stream":"20"#), "{body}");
    assert!(body.contains(r#""waits":true"#), "{body}");
    assert!(body.contains(r#""remaining":true"#), "{body}");
    assert!(body.contains(r#""env":"AWS_Lambda_nodejs20.x""#), "{body}");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn type_module_package_js() {
    require_node();
    let host = host();
    let spec = spec(
        "nodejs20.x",
        "index.handler",
        archive(&[
            ("package.json", r#"{"type":"module"}"#, 0o644),
            ("index.js", "export async function handler() { return 'esm'; }\n", 0o644),
        ]),
    );
    assert_eq!(response(&invoke(&host, &spec, "{}").await), r#""esm""#);
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn callback_handler_waits_for_the_event_loop() {
    require_node();
    let host = host();
    let code = "\
let later = 'not yet';
exports.handler = (event, context, callback) => {
  setTimeout(() => { later = 'ran'; console.log('timer ran'); }, 50);
  callback(null, { callback: true, later });
};
";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.cjs", code, 0o644)]));
    let outcome = invoke(&host, &spec, "{}").await;
    assert_eq!(response(&outcome), r#"{"callback":true,"later":"not yet"}"#);
    assert!(outcome.log_tail.contains("\tINFO\ttimer ran\n"), "{}", outcome.log_tail);
    // A warm second invoke works after the event loop emptied.
    assert_eq!(
        response(&invoke(&host, &spec, "{}").await),
        r#"{"callback":true,"later":"ran"}"#
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn thrown_error_is_aws_error_document() {
    require_node();
    let host = host();
    let code = "exports.handler = async () => { throw new TypeError('bad thing'); };\n";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let outcome = invoke(&host, &spec, "{}").await;
    let body = error(&outcome);
    assert!(
        body.starts_with(
            r#"{"errorType":"TypeError","errorMessage":"bad thing","trace":["TypeError: bad thing","    at "#
        ),
        "{body}"
    );
    assert!(
        outcome.log_tail.contains("\tERROR\tTypeError: bad thing"),
        "{}",
        outcome.log_tail
    );
    let callback = "exports.handler = (e, c, cb) => cb(new Error('via callback'));\n";
    let mut spec = common::spec("nodejs20.x", "index.handler", archive(&[("index.js", callback, 0o644)]));
    spec.revision = "r2".into();
    let body = error(&invoke(&host, &spec, "{}").await);
    assert!(
        body.starts_with(r#"{"errorType":"Error","errorMessage":"via callback""#),
        "{body}"
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn init_errors() {
    require_node();
    let host = host();
    let code = archive(&[
        ("index.js", "exports.handler = async () => 1;\n", 0o644),
        ("broken.js", "exports.handler = async () => {;\n", 0o644),
    ]);
    let cases = [
        (
            "missing.handler",
            r#"{"errorType":"Runtime.ImportModuleError","errorMessage":"Error: Cannot find module 'missing'"#,
        ),
        (
            "index.nope",
            r#"{"errorType":"Runtime.HandlerNotFound","errorMessage":"index.nope is undefined or not exported""#,
        ),
        (
            "broken.handler",
            r#"{"errorType":"Runtime.UserCodeSyntaxError","errorMessage":"SyntaxError: "#,
        ),
    ];
    for (handler, expected) in cases {
        let outcome = invoke(&host, &spec("nodejs20.x", handler, code.clone()), "{}").await;
        let body = error(&outcome);
        assert!(body.starts_with(expected), "{handler}: {body}");
        assert_eq!(host.instance_count(ARN), 0);
    }
    host.shutdown();
}

/// Reads a whole response stream: its chunks and its outcome.
async fn stream_all(
    host: &stratus_lambda_host::Host,
    spec: &stratus_lambda_host::FunctionSpec,
) -> (Vec<String>, stratus_lambda_host::InvokeOutcome) {
    let mut stream = host
        .invoke_streaming(spec, request("{}"))
        .await
        .expect("invoke_streaming");
    let mut chunks = Vec::new();
    while let Some(chunk) = stream.next_chunk().await {
        chunks.push(String::from_utf8_lossy(&chunk).into_owned());
    }
    (chunks, stream.outcome().await)
}

#[tokio::test(flavor = "multi_thread")]
async fn streamed_response_arrives_in_chunks() {
    require_node();
    let host = host();
    let code = "\
exports.handler = awslambda.streamifyResponse(async (event, responseStream, context) => {
  responseStream.setContentType('text/plain');
  for (const part of ['one ', 'two ', 'three']) {
    responseStream.write(part);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  responseStream.end();
});
";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let (chunks, outcome) = stream_all(&host, &spec).await;
    assert_eq!(chunks.concat(), "one two three");
    assert!(chunks.len() >= 2, "{chunks:?}");
    assert_eq!(
        outcome.result,
        stratus_lambda_host::FunctionResult::Response(Vec::new())
    );
    assert!(outcome.log_tail.contains("REPORT RequestId: "), "{}", outcome.log_tail);
    // Invoked normally, the same function's stream is buffered.
    assert_eq!(response(&invoke(&host, &spec, "{}").await), "one two three");
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_error_mid_stream_ends_it_with_the_error_document() {
    require_node();
    let host = host();
    let code = "\
exports.handler = awslambda.streamifyResponse(async (event, responseStream) => {
  responseStream.write('partial');
  await new Promise((resolve) => setTimeout(resolve, 20));
  throw new RangeError('mid-stream');
});
";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let (chunks, outcome) = stream_all(&host, &spec).await;
    assert_eq!(chunks.concat(), "partial");
    let body = error(&outcome);
    assert!(
        body.starts_with(r#"{"errorType":"RangeError","errorMessage":"mid-stream""#),
        "{body}"
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_buffered_function_streams_as_one_chunk() {
    require_node();
    let host = host();
    let code = "exports.handler = async () => ({ whole: true });\n";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let (chunks, outcome) = stream_all(&host, &spec).await;
    assert_eq!(chunks, vec![r#"{"whole":true}"#.to_owned()]);
    assert_eq!(
        outcome.result,
        stratus_lambda_host::FunctionResult::Response(Vec::new())
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn callback_without_waiting_for_the_event_loop() {
    require_node();
    let host = host();
    let code = "\
exports.handler = (event, context, callback) => {
  context.callbackWaitsForEmptyEventLoop = false;
  setTimeout(() => {}, 10000);
  callback(null, 'early');
};
";
    let mut spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    spec.timeout = std::time::Duration::from_secs(3);
    let outcome = invoke(&host, &spec, "{}").await;
    assert_eq!(response(&outcome), r#""early""#);
    assert!(
        outcome.duration < std::time::Duration::from_secs(2),
        "{:?}",
        outcome.duration
    );
    host.shutdown();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_uncaught_exception_fails_the_invocation_and_the_instance() {
    require_node();
    let host = host();
    let code = "exports.handler = async () => { setTimeout(() => { throw new Error('async boom'); }, 10); await new Promise(() => {}); };\n";
    let spec = spec("nodejs20.x", "index.handler", archive(&[("index.js", code, 0o644)]));
    let body = error(&invoke(&host, &spec, "{}").await);
    assert!(
        body.starts_with(r#"{"errorType":"Error","errorMessage":"async boom""#),
        "{body}"
    );
    assert!(
        common_eventually(|| host.instance_count(ARN) == 0).await,
        "the instance exits after an uncaught exception"
    );
    host.shutdown();
}

async fn common_eventually(done: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    done()
}
