//! rpcv2Cbor: CloudWatch PutMetricData as the Smithy SDKs send it, Smithy's rpcv2Cbor
//! protocol tests, and CBOR errors.

mod support;

use aws_smithy_cbor::Encoder;
use stratus_core::prelude_shapes::STRING;
use stratus_core::schema::*;
use stratus_core::{AwsError, DateTime, OperationError, Value};
use stratus_protocol::cbor::from_cbor;
use stratus_protocol::{decode, encode_error, encode_output, operation_for};
use support::{at, build, s, Owned};

const P: Protocol = Protocol::RpcV2Cbor;
const HEADERS: &[(&str, &str)] = &[
    ("smithy-protocol", "rpc-v2-cbor"),
    ("content-type", "application/cbor"),
    ("accept", "application/cbor"),
];

/// PutMetricData the way smithy-rs writes it: indefinite-length maps for structures.
fn put_metric_data_body() -> Vec<u8> {
    let mut e = Encoder::new(Vec::new());
    e.begin_map().str("Namespace").str("App").str("MetricData").array(1);
    e.begin_map()
        .str("MetricName")
        .str("Latency")
        .str("Dimensions")
        .array(1)
        .begin_map()
        .str("Name")
        .str("Host")
        .str("Value")
        .str("a")
        .end()
        .str("Timestamp")
        .timestamp(&DateTime::from_secs_f64(1_576_540_098.5))
        .str("Value")
        .double(1.5)
        .str("Values")
        .array(2)
        .double(1.0)
        .float(2.0)
        .str("Unit")
        .str("Milliseconds")
        .str("StorageResolution")
        .integer(60)
        .str("Unknown")
        .begin_map()
        .str("x")
        .array(0)
        .end()
        .end();
    e.end();
    e.into_writer()
}

#[test]
fn cloudwatch_put_metric_data_over_cbor() {
    let service = &stratus_gen_cloudwatch::SERVICE;
    let req = Owned::new(
        "POST",
        "/service/GraniteServiceVersion20100801/operation/PutMetricData",
        HEADERS,
        put_metric_data_body(),
    );
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "PutMetricData");
    let v = decode(P, service, op, &req.req()).unwrap();
    let shape = op.input;
    assert_eq!(at(shape, &v, "Namespace"), Some(&s("App")));
    assert_eq!(at(shape, &v, "MetricData.0.MetricName"), Some(&s("Latency")));
    assert_eq!(at(shape, &v, "MetricData.0.Dimensions.0.Value"), Some(&s("a")));
    assert_eq!(
        at(shape, &v, "MetricData.0.Timestamp"),
        Some(&Value::Timestamp(DateTime::from_secs_f64(1_576_540_098.5)))
    );
    assert_eq!(at(shape, &v, "MetricData.0.Values.1"), Some(&Value::Float(2.0)));
    assert_eq!(at(shape, &v, "MetricData.0.StorageResolution"), Some(&Value::Int(60)));

    let response = encode_output(P, service, op, Value::Struct(vec![]), "RID");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["smithy-protocol"], "rpc-v2-cbor");
    // no_output: a Unit output has no body and no Content-Type.
    assert!(response.body().is_empty());
    assert!(response.headers().get("content-type").is_none());
}

#[test]
fn cbor_values_round_trip_through_the_schema() {
    let service = &stratus_gen_cloudwatch::SERVICE;
    let op = service.operation("PutMetricData").unwrap();
    let req = Owned::new(
        "POST",
        "/service/GraniteServiceVersion20100801/operation/PutMetricData",
        HEADERS,
        put_metric_data_body(),
    );
    let v = decode(P, service, op, &req.req()).unwrap();
    let bytes = stratus_protocol::cbor::to_cbor(op.input, &v);
    assert_eq!(from_cbor(op.input, &bytes).unwrap(), v);
}

#[test]
fn routing_media_type_and_malformed_bodies() {
    let service = &stratus_gen_cloudwatch::SERVICE;
    for path in [
        "/service/Other/operation/PutMetricData",
        "/service/GraniteServiceVersion20100801/operation/Nope",
        "/",
    ] {
        let req = Owned::new("POST", path, HEADERS, "");
        let e = operation_for(P, service, &req.req()).unwrap_err().to_aws_error();
        assert_eq!(
            (e.code.as_str(), e.http_status),
            ("UnknownOperationException", 404),
            "{path}"
        );
    }
    let op = service.operation("PutMetricData").unwrap();
    let json = Owned::new("POST", "/", &[("content-type", "application/json")], "{}");
    let e = decode(P, service, op, &json.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("UnsupportedMediaTypeException", 415));
    let truncated = put_metric_data_body();
    let req = Owned::new("POST", "/", HEADERS, &truncated[..truncated.len() - 3]);
    let e = decode(P, service, op, &req.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("SerializationException", 400));
    // NoInputServerAllowsEmptyBody / empty_input_no_body: an empty body is an empty input.
    let empty = Owned::new("POST", "/", HEADERS, "");
    assert_eq!(
        decode(P, service, op, &empty.req()).unwrap(),
        Value::empty_struct(op.input.members.len())
    );
}

// Smithy's rpcv2Cbor protocol test `RpcV2CborInvalidGreetingError` (smithy-protocol-tests,
// model/rpcv2Cbor/errors.smithy): `InvalidGreeting { Message: "Hi" }` answers 400 with this body.
const INVALID_GREETING_BODY: &str =
    "v2ZfX3R5cGV4LnNtaXRoeS5wcm90b2NvbHRlc3RzLnJwY3YyQ2JvciNJbnZhbGlkR3JlZXRpbmdnTWVzc2FnZWJIaf8=";

static INVALID_GREETING: Shape = Shape {
    members: &[Member::plain("Message", &STRING)],
    error: Some(ErrorInfo {
        fault: Fault::Client,
        http_status: 400,
        query_error: None,
    }),
    ..Shape::simple("InvalidGreeting", ShapeType::Structure)
};
/// What a client reads from an error body.
static ERROR_BODY: Shape = Shape {
    members: &[
        Member::plain("__type", &STRING),
        Member::plain("Message", &STRING),
        Member::plain("message", &STRING),
    ],
    ..Shape::simple("ErrorBody", ShapeType::Structure)
};
static SERVICE: Service = Service {
    sdk_id: "RpcV2Protocol",
    namespace: "smithy.protocoltests.rpcv2Cbor",
    shape_name: "RpcV2Protocol",
    version: "2020-07-14",
    signing_name: "rpcv2protocol",
    endpoint_prefix: "rpcv2protocol",
    protocols: &[Protocol::RpcV2Cbor],
    query_compatible: false,
    xml_namespace: None,
    operations: &[],
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

#[test]
fn smithy_rpcv2_cbor_invalid_greeting_error() {
    let error = OperationError::Modeled {
        shape: &INVALID_GREETING,
        value: build(&INVALID_GREETING, vec![("Message", s("Hi"))]),
    };
    let response = encode_error(P, &SERVICE, None, &error, "RID");
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["smithy-protocol"], "rpc-v2-cbor");
    assert_eq!(response.headers()["content-type"], "application/cbor");
    let expected = aws_smithy_types::base64::decode(INVALID_GREETING_BODY).unwrap();
    assert_eq!(
        from_cbor(&ERROR_BODY, response.body()).unwrap(),
        from_cbor(&ERROR_BODY, &expected).unwrap()
    );

    let common = OperationError::Aws(AwsError::new("ThrottlingException", "slow", 400));
    let response = encode_error(P, &SERVICE, None, &common, "RID");
    let body = from_cbor(&ERROR_BODY, response.body()).unwrap();
    assert_eq!(
        body,
        build(
            &ERROR_BODY,
            vec![
                ("__type", s("smithy.protocoltests.rpcv2Cbor#ThrottlingException")),
                ("message", s("slow"))
            ]
        )
    );
}
