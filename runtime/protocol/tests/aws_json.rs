//! awsJson1_0 / awsJson1_1: DynamoDB PutItem and SQS SendMessage as the SDKs send them, and
//! the JSON error shapes (with SQS's Query-compatible header).

mod support;

use stratus_core::schema::Protocol;
use stratus_core::{AwsError, OperationError, Value};
use stratus_protocol::{decode, encode_error, encode_output, operation_for};
use support::{at, body_text, build, s, Owned};

fn json_request(target: &str, version: &str, body: &str) -> Owned {
    Owned::new(
        "POST",
        "/",
        &[("x-amz-target", target), ("content-type", version)],
        body,
    )
}

#[test]
fn dynamodb_put_item_round_trip() {
    let service = &stratus_gen_dynamodb::SERVICE;
    let req = json_request(
        "DynamoDB_20120810.PutItem",
        "application/x-amz-json-1.0",
        r#"{"TableName":"users","Item":{"id":{"S":"u1"},"age":{"N":"42"},"tags":{"SS":["a","b"]},"raw":{"B":"AAE="}},"ReturnValues":"ALL_OLD"}"#,
    );
    let op = operation_for(Protocol::AwsJson1_0, service, &req.req()).unwrap();
    assert_eq!(op.name, "PutItem");
    let v = decode(Protocol::AwsJson1_0, service, op, &req.req()).unwrap();
    assert_eq!(at(op.input, &v, "TableName"), Some(&s("users")));
    assert_eq!(at(op.input, &v, "Item.id.S"), Some(&s("u1")));
    assert_eq!(at(op.input, &v, "Item.tags.SS.1"), Some(&s("b")));
    assert_eq!(at(op.input, &v, "Item.raw.B"), Some(&Value::Blob(vec![0, 1])));

    let attributes = at(op.input, &v, "Item").unwrap().clone();
    let output = build(op.output, vec![("Attributes", attributes)]);
    let response = encode_output(Protocol::AwsJson1_0, service, op, output, "RID");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-amz-json-1.0");
    assert_eq!(response.headers()["x-amzn-requestid"], "RID");
    assert_eq!(
        body_text(&response),
        r#"{"Attributes":{"id":{"S":"u1"},"age":{"N":"42"},"tags":{"SS":["a","b"]},"raw":{"B":"AAE="}}}"#
    );
}

#[test]
fn unknown_targets_and_bad_bodies_answer_like_dynamodb() {
    let service = &stratus_gen_dynamodb::SERVICE;
    for target in ["DynamoDB_20120810.Nope", "Other_20120810.PutItem", "", "PutItem"] {
        let req = json_request(target, "application/x-amz-json-1.0", "{}");
        let e = operation_for(Protocol::AwsJson1_0, service, &req.req())
            .unwrap_err()
            .to_aws_error();
        assert_eq!(
            (e.code.as_str(), e.http_status),
            ("UnknownOperationException", 400),
            "{target}"
        );
    }
    let op = service.operation("PutItem").unwrap();
    for body in [r#"{"TableName":5}"#, r#"{"TableName":"t""#, r#"{"Item":{"a":{"N":1}}}"#] {
        let req = json_request("DynamoDB_20120810.PutItem", "application/x-amz-json-1.0", body);
        let e = decode(Protocol::AwsJson1_0, service, op, &req.req())
            .unwrap_err()
            .to_aws_error();
        assert_eq!(
            (e.code.as_str(), e.http_status),
            ("SerializationException", 400),
            "{body}"
        );
    }
}

#[test]
fn dynamodb_errors_carry_namespaced_type() {
    let service = &stratus_gen_dynamodb::SERVICE;
    let shape = &stratus_gen_dynamodb::schema::RESOURCE_NOT_FOUND_EXCEPTION;
    let error = OperationError::Modeled {
        shape,
        value: build(shape, vec![("message", s("Requested resource not found"))]),
    };
    let response = encode_error(Protocol::AwsJson1_0, service, None, &error, "RID");
    assert_eq!(response.status(), 400);
    assert_eq!(
        body_text(&response),
        r#"{"__type":"com.amazonaws.dynamodb#ResourceNotFoundException","message":"Requested resource not found"}"#
    );
    assert!(response.headers().get("x-amzn-query-error").is_none());
}

#[test]
fn sqs_json_send_message_and_query_compatible_errors() {
    let service = &stratus_gen_sqs::SERVICE;
    let req = json_request(
        "AmazonSQS.SendMessage",
        "application/x-amz-json-1.0",
        r#"{"QueueUrl":"http://localhost:4566/000000000000/q","MessageBody":"hi","MessageAttributes":{"n":{"DataType":"Number","StringValue":"1"}}}"#,
    );
    let op = operation_for(Protocol::AwsJson1_0, service, &req.req()).unwrap();
    let v = decode(Protocol::AwsJson1_0, service, op, &req.req()).unwrap();
    assert_eq!(at(op.input, &v, "MessageAttributes.n.DataType"), Some(&s("Number")));

    let shape = &stratus_gen_sqs::schema::QUEUE_DOES_NOT_EXIST;
    let error = OperationError::Modeled {
        shape,
        value: build(shape, vec![("message", s("The specified queue does not exist."))]),
    };
    let response = encode_error(Protocol::AwsJson1_0, service, Some(op), &error, "RID");
    assert_eq!(response.status(), 400);
    assert_eq!(
        response.headers()["x-amzn-query-error"],
        "AWS.SimpleQueueService.NonExistentQueue;Sender"
    );
    assert_eq!(
        body_text(&response),
        r#"{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}"#
    );
    let throttled = OperationError::Aws(AwsError::new("ThrottlingException", "slow down", 400));
    let response = encode_error(Protocol::AwsJson1_0, service, None, &throttled, "RID");
    assert_eq!(response.headers()["x-amzn-query-error"], "ThrottlingException;Sender");
    assert_eq!(
        body_text(&response),
        r#"{"__type":"com.amazonaws.sqs#ThrottlingException","message":"slow down"}"#
    );
}

#[test]
fn json_1_1_content_type_and_empty_body() {
    // An empty body is an empty input structure; awsJson1_1 answers in its own media type.
    let service = &stratus_gen_sqs::SERVICE;
    let req = json_request("AmazonSQS.ListQueues", "application/x-amz-json-1.0", "");
    let op = operation_for(Protocol::AwsJson1_0, service, &req.req()).unwrap();
    let v = decode(Protocol::AwsJson1_0, service, op, &req.req()).unwrap();
    assert_eq!(v, Value::empty_struct(op.input.members.len()));
    let response = encode_output(
        Protocol::AwsJson1_1,
        service,
        op,
        Value::empty_struct(op.output.members.len()),
        "r",
    );
    assert_eq!(response.headers()["content-type"], "application/x-amz-json-1.1");
    assert_eq!(response.body(), b"{}");
}
