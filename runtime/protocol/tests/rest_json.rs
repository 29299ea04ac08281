//! restJson1: Lambda Invoke and CreateFunction as the SDKs send them (labels, query,
//! headers, payload, body), Smithy's restJson1 protocol tests on headers and labels, errors.

mod support;

use stratus_core::prelude_shapes::{STRING, TIMESTAMP, UNIT};
use stratus_core::schema::*;
use stratus_core::{AwsError, DateTime, OperationError, Value};
use stratus_protocol::{decode, encode_error, encode_output, operation_for};
use support::{at, body_text, build, s, Owned};

const P: Protocol = Protocol::RestJson1;

#[test]
fn lambda_invoke_binds_label_query_headers_and_blob_payload() {
    let service = &stratus_gen_lambda::SERVICE;
    let req = Owned::new(
        "POST",
        "/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A000000000000%3Afunction%3Amy-fn/invocations?Qualifier=live",
        &[
            ("x-amz-invocation-type", "RequestResponse"),
            ("x-amz-log-type", "Tail"),
            ("content-type", "application/json"),
        ],
        br#"{"key":"value"}"#.to_vec(),
    );
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "Invoke");
    let v = decode(P, service, op, &req.req()).unwrap();
    let shape = op.input;
    assert_eq!(
        at(shape, &v, "FunctionName"),
        Some(&s("arn:aws:lambda:us-east-1:000000000000:function:my-fn"))
    );
    assert_eq!(at(shape, &v, "Qualifier"), Some(&s("live")));
    assert_eq!(at(shape, &v, "InvocationType"), Some(&s("RequestResponse")));
    assert_eq!(at(shape, &v, "LogType"), Some(&s("Tail")));
    assert_eq!(
        at(shape, &v, "Payload"),
        Some(&Value::Blob(br#"{"key":"value"}"#.to_vec()))
    );
    assert_eq!(at(shape, &v, "ClientContext"), None);

    let output = build(
        op.output,
        vec![
            ("StatusCode", Value::Int(200)),
            ("FunctionError", s("Unhandled")),
            ("ExecutedVersion", s("$LATEST")),
            ("Payload", Value::Blob(br#"{"ok":true}"#.to_vec())),
        ],
    );
    let response = encode_output(P, service, op, output, "RID");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-amz-function-error"], "Unhandled");
    assert_eq!(response.headers()["x-amz-executed-version"], "$LATEST");
    assert_eq!(response.headers()["content-type"], "application/octet-stream");
    assert_eq!(response.headers()["x-amzn-requestid"], "RID");
    assert_eq!(response.body(), br#"{"ok":true}"#);
    // An asynchronous invocation answers 202 through @httpResponseCode.
    let accepted = encode_output(
        P,
        service,
        op,
        build(op.output, vec![("StatusCode", Value::Int(202))]),
        "RID",
    );
    assert_eq!(accepted.status(), 202);
    assert!(accepted.body().is_empty());
}

#[test]
fn lambda_create_function_reads_the_json_body() {
    let service = &stratus_gen_lambda::SERVICE;
    let req = Owned::new(
        "POST",
        "/2015-03-31/functions",
        &[("content-type", "application/json")],
        r#"{"FunctionName":"my-fn","Runtime":"python3.12","Role":"arn:aws:iam::000000000000:role/r","Handler":"app.handler","Code":{"ZipFile":"UEsDBA=="},"Timeout":30,"Environment":{"Variables":{"A":"1"}},"Tags":{"team":"x"}}"#,
    );
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "CreateFunction");
    let v = decode(P, service, op, &req.req()).unwrap();
    assert_eq!(
        at(op.input, &v, "Code.ZipFile"),
        Some(&Value::Blob(b"PK\x03\x04".to_vec()))
    );
    assert_eq!(at(op.input, &v, "Timeout"), Some(&Value::Int(30)));
    assert_eq!(at(op.input, &v, "Environment.Variables.A"), Some(&s("1")));

    let output = build(
        op.output,
        vec![("FunctionName", s("my-fn")), ("Timeout", Value::Int(30))],
    );
    let response = encode_output(P, service, op, output, "RID");
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["content-type"], "application/json");
    // CodeSize is left out, and sent with its modelled default.
    assert_eq!(
        body_text(&response),
        r#"{"FunctionName":"my-fn","CodeSize":0,"Timeout":30}"#
    );

    let json = [("content-type", "application/json")];
    let bad = Owned::new("POST", "/2015-03-31/functions", &json, r#"{"Timeout":"long"}"#);
    let e = decode(P, service, op, &bad.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("SerializationException", 400));

    // A JSON body must say so, and the client must accept JSON back.
    let untyped = Owned::new("POST", "/2015-03-31/functions", &[], "{}");
    let e = decode(P, service, op, &untyped.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("UnsupportedMediaTypeException", 415));
    let picky = Owned::new(
        "POST",
        "/2015-03-31/functions",
        &[("content-type", "application/json"), ("accept", "text/html")],
        "{}",
    );
    let e = decode(P, service, op, &picky.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("NotAcceptableException", 406));
    let lenient = Owned::new(
        "POST",
        "/2015-03-31/functions",
        &[
            ("content-type", "application/json; charset=utf-8"),
            ("accept", "application/*"),
        ],
        "{}",
    );
    assert!(decode(P, service, op, &lenient.req()).is_ok());
}

#[test]
fn lambda_routes_pick_the_most_specific_operation() {
    let service = &stratus_gen_lambda::SERVICE;
    let route = |method: &str, uri: &str| {
        let req = Owned::new(method, uri, &[], "");
        operation_for(P, service, &req.req()).map(|op| op.name)
    };
    assert_eq!(route("GET", "/2015-03-31/functions/"), Ok("ListFunctions"));
    assert_eq!(route("GET", "/2015-03-31/functions/my-fn"), Ok("GetFunction"));
    assert_eq!(
        route("GET", "/2015-03-31/functions/my-fn/configuration"),
        Ok("GetFunctionConfiguration")
    );
    assert_eq!(route("DELETE", "/2015-03-31/functions/my-fn"), Ok("DeleteFunction"));
    let e = route("PATCH", "/2015-03-31/functions/my-fn")
        .unwrap_err()
        .to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("UnknownOperationException", 404));
}

#[test]
fn lambda_errors_use_the_errortype_header_and_header_members() {
    let service = &stratus_gen_lambda::SERVICE;
    let shape = &stratus_gen_lambda::schema::TOO_MANY_REQUESTS_EXCEPTION;
    let error = OperationError::Modeled {
        shape,
        value: build(
            shape,
            vec![
                ("retryAfterSeconds", s("3")),
                ("Type", s("User")),
                ("message", s("Rate exceeded")),
            ],
        ),
    };
    let response = encode_error(P, service, None, &error, "RID");
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["x-amzn-errortype"], "TooManyRequestsException");
    assert_eq!(response.headers()["retry-after"], "3");
    assert_eq!(body_text(&response), r#"{"Type":"User","message":"Rate exceeded"}"#);

    let common = OperationError::Aws(AwsError::not_implemented("Invoke"));
    let response = encode_error(P, service, None, &common, "RID");
    assert_eq!(response.status(), 501);
    assert_eq!(response.headers()["x-amzn-errortype"], "NotImplemented");
    assert_eq!(
        body_text(&response),
        r#"{"message":"The operation Invoke is not implemented by Stratus"}"#
    );
}

// Smithy's restJson1 protocol tests (smithy-aws-protocol-tests/model/restJson1), on shapes
// written like the tests' own.
static STRING_LIST: Shape = Shape {
    members: &[Member::plain("member", &STRING)],
    ..Shape::simple("StringList", ShapeType::List)
};
static TIMESTAMP_LIST: Shape = Shape {
    members: &[Member::plain("member", &TIMESTAMP)],
    ..Shape::simple("TimestampList", ShapeType::List)
};
static HEADERS_IO: Shape = Shape {
    members: &[
        Member {
            http: HttpBinding::Header("X-String"),
            ..Member::plain("headerString", &STRING)
        },
        Member {
            http: HttpBinding::Header("X-StringList"),
            ..Member::plain("headerStringList", &STRING_LIST)
        },
        Member {
            http: HttpBinding::Header("X-TimestampList"),
            ..Member::plain("headerTimestampList", &TIMESTAMP_LIST)
        },
    ],
    ..Shape::simple("InputAndOutputWithHeadersIO", ShapeType::Structure)
};
static GREEDY_INPUT: Shape = Shape {
    members: &[
        Member {
            http: HttpBinding::Label,
            ..Member::plain("foo", &STRING)
        },
        Member {
            http: HttpBinding::Label,
            ..Member::plain("baz", &STRING)
        },
    ],
    ..Shape::simple("HttpRequestWithGreedyLabelInPathInput", ShapeType::Structure)
};
static SERVICE: Service = Service {
    sdk_id: "Rest Json Protocol",
    namespace: "aws.protocoltests.restjson",
    shape_name: "RestJson",
    version: "2019-12-16",
    signing_name: "restjson",
    endpoint_prefix: "restjson",
    protocols: &[Protocol::RestJson1],
    query_compatible: false,
    xml_namespace: None,
    operations: &[
        Operation {
            name: "HttpRequestWithGreedyLabelInPath",
            input: &GREEDY_INPUT,
            output: &UNIT,
            errors: &[],
            http: Some(HttpRoute {
                method: "GET",
                path: &[
                    PathSegment::Literal("HttpRequestWithGreedyLabelInPath"),
                    PathSegment::Literal("foo"),
                    PathSegment::Label("foo"),
                    PathSegment::Literal("baz"),
                    PathSegment::Greedy("baz"),
                ],
                query: &[],
                code: 200,
            }),
            unsigned: false,
        },
        Operation {
            name: "InputAndOutputWithHeaders",
            input: &HEADERS_IO,
            output: &HEADERS_IO,
            errors: &[],
            http: Some(HttpRoute {
                method: "POST",
                path: &[PathSegment::Literal("InputAndOutputWithHeaders")],
                query: &[],
                code: 200,
            }),
            unsigned: false,
        },
    ],
    validation: ValidationStyle {
        code: "ValidationException",
        http_status: 400,
        missing_code: None,
        path_from_input: false,
        unanchored_patterns: false,
        missing_parameter_message: false,
        framework_error: None,
    },
    departures: Departures::NONE,
    model_sha256: "",
    authorization: &stratus_core::authz::Authorization::NONE,
};

fn decode_test(method: &str, uri: &str, headers: &[(&str, &str)]) -> (&'static Operation, Value) {
    let req = Owned::new(method, uri, headers, "");
    let op = operation_for(P, &SERVICE, &req.req()).unwrap();
    (op, decode(P, &SERVICE, op, &req.req()).unwrap())
}

#[test]
fn smithy_rest_json_label_and_header_tests() {
    // RestJsonHttpRequestWithGreedyLabelInPath
    let (op, v) = decode_test(
        "GET",
        "/HttpRequestWithGreedyLabelInPath/foo/hello%2Fescape/baz/there/guy",
        &[],
    );
    assert_eq!(
        v,
        build(op.input, vec![("foo", s("hello/escape")), ("baz", s("there/guy"))])
    );
    // RestJsonInputAndOutputWithStringHeaders
    let (op, v) = decode_test(
        "POST",
        "/InputAndOutputWithHeaders",
        &[("X-String", "Hello"), ("X-StringList", "a, b, c")],
    );
    let abc = Value::List(vec![s("a"), s("b"), s("c")]);
    assert_eq!(
        v,
        build(op.input, vec![("headerString", s("Hello")), ("headerStringList", abc)])
    );
    // RestJsonInputAndOutputWithQuotedStringHeaders
    let (_, v) = decode_test(
        "POST",
        "/InputAndOutputWithHeaders",
        &[("X-StringList", r#""b,c", "\"def\"", a"#)],
    );
    assert_eq!(
        at(&HEADERS_IO, &v, "headerStringList"),
        Some(&Value::List(vec![s("b,c"), s("\"def\""), s("a")]))
    );
    // RestJsonInputAndOutputWithTimestampHeaders
    let dates = "Mon, 16 Dec 2019 23:48:18 GMT, Mon, 16 Dec 2019 23:48:18 GMT";
    let (op, v) = decode_test("POST", "/InputAndOutputWithHeaders", &[("X-TimestampList", dates)]);
    let t = Value::Timestamp(DateTime::from_secs(1_576_540_098));
    assert_eq!(
        at(op.input, &v, "headerTimestampList"),
        Some(&Value::List(vec![t.clone(), t.clone()]))
    );
    // ... and the same headers on the way out.
    let response = encode_output(
        P,
        &SERVICE,
        op,
        build(
            op.output,
            vec![("headerTimestampList", Value::List(vec![t.clone(), t]))],
        ),
        "r",
    );
    assert_eq!(response.headers()["x-timestamplist"], dates);
    let quoted = build(
        op.output,
        vec![("headerStringList", Value::List(vec![s("b,c"), s("\"def\""), s("a")]))],
    );
    let response = encode_output(P, &SERVICE, op, quoted, "r");
    assert_eq!(response.headers()["x-stringlist"], r#""b,c", "\"def\"", a"#);
}
