//! `stratus validate` prints what the emulator would answer, with the right exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn validate(service: &str, operation: &str, body: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stratus"))
        .args(["validate", service, operation, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("stratus runs");
    // A command that fails on its arguments exits without reading stdin: the write may then
    // meet a closed pipe, which is not the test's concern.
    let _ = child.stdin.take().unwrap().write_all(body.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn valid_request() {
    let out = validate(
        "dynamodb",
        "PutItem",
        include_str!("../fixtures/dynamodb-put-item.json"),
    );
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), "valid"));
}

#[test]
fn dynamodb_refusal_as_json() {
    let out = validate("DynamoDB", "DescribeGlobalTable", r#"{"GlobalTableName":"a;"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        r#"{"status":400,"code":"ValidationException","message":"2 validation errors detected: Value 'a;' at 'globalTableName' failed to satisfy constraint: Member must have length greater than or equal to 3; Value 'a;' at 'globalTableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"}"#
    );
}

#[test]
fn query_services_answer_validation_error() {
    // STS rejects `a:b` for `[\w+=,.@-]*`: the pattern is matched against the whole value.
    let out = validate(
        "sts",
        "AssumeRole",
        r#"{"RoleArn":"arn:aws:iam::123456789012:role/r","RoleSessionName":"a:b"}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.starts_with(r#"{"status":400,"code":"ValidationError","message":"1 validation error detected: Value 'a:b' at 'roleSessionName'"#), "{text}");
}

#[test]
fn malformed_json_and_unknown_names() {
    let out = validate("sqs", "DeleteQueue", r#"{"QueueUrl": "#);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains(r#""code":"SerializationException""#));
    let out = validate("sqs", "DeleteQueue", "{}");
    assert!(
        stdout(&out).contains(r#""code":"MissingParameter""#),
        "{}",
        stdout(&out)
    );
    assert_eq!(validate("nope", "X", "{}").status.code(), Some(2));
    assert_eq!(validate("sqs", "Nope", "{}").status.code(), Some(2));
}
