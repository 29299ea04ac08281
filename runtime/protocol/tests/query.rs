//! awsQuery: STS AssumeRole and SQS SendMessage as the SDKs send them, Smithy's awsQuery
//! protocol tests, and the Query error document.

mod support;

use stratus_core::prelude_shapes::STRING;
use stratus_core::schema::*;
use stratus_core::{AwsError, DateTime, OperationError, Value};
use stratus_protocol::{decode, encode_error, encode_output, operation_for, ProtocolError};
use support::{at, body_text, build, s, Owned};

const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded; charset=utf-8");

fn sts_request(body: &str) -> Owned {
    Owned::new("POST", "/", &[FORM], body)
}

#[test]
fn sts_assume_role_decodes_nested_lists_and_scalars() {
    // As botocore's QuerySerializer writes it.
    let req = sts_request(
        "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fdemo\
         &RoleSessionName=s1&DurationSeconds=900\
         &PolicyArns.member.1.arn=arn%3Aaws%3Aiam%3A%3Aaws%3Apolicy%2FReadOnly\
         &Tags.member.1.Key=team&Tags.member.1.Value=a+b&Tags.member.2.Key=env&Tags.member.2.Value=dev\
         &TransitiveTagKeys.member.1=team",
    );
    let service = &stratus_gen_sts::SERVICE;
    let op = operation_for(Protocol::AwsQuery, service, &req.req()).unwrap();
    assert_eq!(op.name, "AssumeRole");
    let v = decode(Protocol::AwsQuery, service, op, &req.req()).unwrap();
    let shape = op.input;
    assert_eq!(
        at(shape, &v, "RoleArn"),
        Some(&s("arn:aws:iam::123456789012:role/demo"))
    );
    assert_eq!(at(shape, &v, "DurationSeconds"), Some(&Value::Int(900)));
    assert_eq!(
        at(shape, &v, "PolicyArns.0.arn"),
        Some(&s("arn:aws:iam::aws:policy/ReadOnly"))
    );
    assert_eq!(at(shape, &v, "Tags.0.Value"), Some(&s("a b")));
    assert_eq!(at(shape, &v, "Tags.1.Key"), Some(&s("env")));
    assert_eq!(at(shape, &v, "TransitiveTagKeys.0"), Some(&s("team")));
    assert_eq!(at(shape, &v, "ExternalId"), None);
    // The same parameters in a GET query string.
    let get = Owned::new("GET", "/?Action=GetCallerIdentity&Version=2011-06-15", &[], "");
    assert_eq!(
        operation_for(Protocol::AwsQuery, service, &get.req()).unwrap().name,
        "GetCallerIdentity"
    );
}

#[test]
fn type_mismatches_missing_and_unknown_actions_are_refused() {
    let service = &stratus_gen_sts::SERVICE;
    let op = service.operation("AssumeRole").unwrap();
    let bad = sts_request("Action=AssumeRole&DurationSeconds=soon");
    let err = decode(Protocol::AwsQuery, service, op, &bad.req()).unwrap_err();
    assert!(
        matches!(&err, ProtocolError::MalformedParameter { name, .. } if name == "DurationSeconds"),
        "{err:?}"
    );
    assert_eq!(err.to_aws_error().code, "InvalidQueryParameter");
    let none = sts_request("Version=2011-06-15");
    assert_eq!(
        operation_for(Protocol::AwsQuery, service, &none.req()).unwrap_err(),
        ProtocolError::MissingAction
    );
    let unknown = sts_request("Action=AssumeNothing");
    let e = operation_for(Protocol::AwsQuery, service, &unknown.req())
        .unwrap_err()
        .to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("InvalidAction", 400));
    assert_eq!(e.message, "The action AssumeNothing is not valid for this web service.");
}

#[test]
fn sts_assume_role_response_is_wrapped_in_result_and_metadata() {
    let service = &stratus_gen_sts::SERVICE;
    let op = service.operation("AssumeRole").unwrap();
    let creds = build(
        &stratus_gen_sts::schema::CREDENTIALS,
        vec![
            ("AccessKeyId", s("ASIAEXAMPLE")),
            ("SecretAccessKey", s("secret")),
            ("SessionToken", s("token")),
            ("Expiration", Value::Timestamp(DateTime::from_secs(1_700_000_000))),
        ],
    );
    let user = build(
        &stratus_gen_sts::schema::ASSUMED_ROLE_USER,
        vec![
            ("AssumedRoleId", s("AROA:s1")),
            ("Arn", s("arn:aws:sts::1:assumed-role/demo/s1")),
        ],
    );
    let output = build(
        op.output,
        vec![
            ("Credentials", creds),
            ("AssumedRoleUser", user),
            ("PackedPolicySize", Value::Int(6)),
        ],
    );
    let response = encode_output(Protocol::AwsQuery, service, op, output, "req-1");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/xml");
    assert_eq!(response.headers()["x-amzn-requestid"], "req-1");
    assert_eq!(
        body_text(&response),
        "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>\
         <Credentials><AccessKeyId>ASIAEXAMPLE</AccessKeyId><SecretAccessKey>secret</SecretAccessKey>\
         <SessionToken>token</SessionToken><Expiration>2023-11-14T22:13:20Z</Expiration></Credentials>\
         <AssumedRoleUser><AssumedRoleId>AROA:s1</AssumedRoleId><Arn>arn:aws:sts::1:assumed-role/demo/s1</Arn></AssumedRoleUser>\
         <PackedPolicySize>6</PackedPolicySize></AssumeRoleResult>\
         <ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></AssumeRoleResponse>"
    );
}

#[test]
fn sqs_send_message_over_query_reads_flattened_renamed_maps() {
    // As botocore sends SendMessage with message attributes to the Query endpoint.
    let req = Owned::new(
        "POST",
        "/",
        &[FORM],
        "Action=SendMessage&Version=2012-11-05&QueueUrl=http%3A%2F%2Flocalhost%3A4566%2F000000000000%2Fq\
         &MessageBody=hello&DelaySeconds=5\
         &MessageAttribute.1.Name=color&MessageAttribute.1.Value.StringValue=red&MessageAttribute.1.Value.DataType=String\
         &MessageAttribute.2.Name=bits&MessageAttribute.2.Value.BinaryValue=AAE%3D&MessageAttribute.2.Value.DataType=Binary",
    );
    let service = &stratus_gen_sqs::SERVICE;
    let op = operation_for(Protocol::AwsQuery, service, &req.req()).unwrap();
    let v = decode(Protocol::AwsQuery, service, op, &req.req()).unwrap();
    assert_eq!(at(op.input, &v, "MessageBody"), Some(&s("hello")));
    assert_eq!(at(op.input, &v, "MessageAttributes.color.StringValue"), Some(&s("red")));
    assert_eq!(
        at(op.input, &v, "MessageAttributes.bits.BinaryValue"),
        Some(&Value::Blob(vec![0, 1]))
    );
    assert_eq!(at(op.input, &v, "MessageAttributes.bits.DataType"), Some(&s("Binary")));
}

/// As recorded from SQS (LocalStack's `test_non_existent_queue`): over Query the error has
/// its Query code, the wording for the wsdl version and an empty `<Detail/>`.
#[test]
fn sqs_modelled_error_uses_its_query_code_and_awss_namespace() {
    let service = &stratus_gen_sqs::SERVICE;
    let shape = &stratus_gen_sqs::schema::QUEUE_DOES_NOT_EXIST;
    let error = OperationError::Modeled {
        shape,
        value: build(shape, vec![("message", s("The specified queue does not exist."))]),
    };
    let response = encode_error(Protocol::AwsQuery, service, None, &error, "r2");
    assert_eq!(response.status(), 400);
    assert_eq!(
        body_text(&response),
        "<ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error><Type>Sender</Type>\
         <Code>AWS.SimpleQueueService.NonExistentQueue</Code><Message>The specified queue does not exist for this wsdl version.</Message>\
         <Detail/></Error><RequestId>r2</RequestId></ErrorResponse>"
    );
}

// Smithy's awsQuery protocol tests (smithy-aws-protocol-tests/model/awsQuery), on shapes
// written like the tests' own.
static STRING_LIST_ITEM: Shape = Shape {
    members: &[Member {
        xml_name: Some("item"),
        ..Member::plain("member", &STRING)
    }],
    ..Shape::simple("ListWithXmlName", ShapeType::List)
};
static MAP_WITH_XML_NAME: Shape = Shape {
    members: &[
        Member {
            xml_name: Some("K"),
            ..Member::plain("key", &STRING)
        },
        Member {
            xml_name: Some("V"),
            ..Member::plain("value", &STRING)
        },
    ],
    ..Shape::simple("MapWithXmlName", ShapeType::Map)
};
static STRING_MAP: Shape = Shape {
    members: &[Member::plain("key", &STRING), Member::plain("value", &STRING)],
    ..Shape::simple("StringMap", ShapeType::Map)
};
static INPUT: Shape = Shape {
    members: &[
        Member::plain("ListArgWithXmlNameMember", &STRING_LIST_ITEM),
        Member {
            xml_flattened: true,
            xml_name: Some("Hi"),
            ..Member::plain("FlattenedListArgWithXmlName", &STRING_LIST_ITEM)
        },
        Member::plain("MapWithXmlMemberName", &MAP_WITH_XML_NAME),
        Member {
            xml_flattened: true,
            ..Member::plain("FlattenedMap", &STRING_MAP)
        },
    ],
    ..Shape::simple("QueryInput", ShapeType::Structure)
};
static INVALID_GREETING: Shape = Shape {
    members: &[Member::plain("Message", &STRING)],
    error: Some(ErrorInfo {
        fault: Fault::Client,
        http_status: 400,
        query_error: None,
    }),
    ..Shape::simple("InvalidGreeting", ShapeType::Structure)
};
static SERVICE: Service = Service {
    sdk_id: "Query Protocol",
    namespace: "aws.protocoltests.query",
    shape_name: "AwsQuery",
    version: "2020-01-08",
    signing_name: "awsquery",
    endpoint_prefix: "awsquery",
    protocols: &[Protocol::AwsQuery],
    query_compatible: false,
    xml_namespace: Some(XmlNamespace {
        uri: "https://example.com/",
        prefix: None,
    }),
    operations: &[Operation {
        name: "QueryLists",
        input: &INPUT,
        output: &stratus_core::prelude_shapes::UNIT,
        errors: &[&INVALID_GREETING],
        http: None,
        unsigned: false,
    }],
    validation: ValidationStyle {
        code: "ValidationError",
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

fn decode_test_body(body: &str) -> Value {
    let req = Owned::new("POST", "/", &[FORM], body);
    let op = operation_for(Protocol::AwsQuery, &SERVICE, &req.req()).unwrap();
    decode(Protocol::AwsQuery, &SERVICE, op, &req.req()).unwrap()
}

#[test]
fn smithy_query_list_and_map_tests() {
    let strings = |v: &[&str]| Value::List(v.iter().map(|x| s(x)).collect());
    // QueryListArgWithXmlNameMember
    let v = decode_test_body(
        "Action=QueryLists&Version=2020-01-08&ListArgWithXmlNameMember.item.1=A&ListArgWithXmlNameMember.item.2=B",
    );
    assert_eq!(at(&INPUT, &v, "ListArgWithXmlNameMember"), Some(&strings(&["A", "B"])));
    // QueryFlattenedListArgWithXmlName
    let v = decode_test_body("Action=QueryLists&Version=2020-01-08&Hi.1=A&Hi.2=B");
    assert_eq!(
        at(&INPUT, &v, "FlattenedListArgWithXmlName"),
        Some(&strings(&["A", "B"]))
    );
    // QueryQueryMapWithMemberXmlName
    let v = decode_test_body(
        "Action=QueryLists&Version=2020-01-08&MapWithXmlMemberName.entry.1.K=bar&MapWithXmlMemberName.entry.1.V=Bar\
         &MapWithXmlMemberName.entry.2.K=foo&MapWithXmlMemberName.entry.2.V=Foo",
    );
    assert_eq!(
        at(&INPUT, &v, "MapWithXmlMemberName"),
        Some(&Value::Map(vec![("bar".into(), s("Bar")), ("foo".into(), s("Foo"))]))
    );
    // QueryFlattenedQueryMaps
    let v = decode_test_body("Action=QueryLists&Version=2020-01-08&FlattenedMap.1.key=bar&FlattenedMap.1.value=Bar&FlattenedMap.2.key=foo&FlattenedMap.2.value=Foo");
    assert_eq!(at(&INPUT, &v, "FlattenedMap.foo"), Some(&s("Foo")));
    // An empty list is `Name=`.
    let v = decode_test_body("Action=QueryLists&ListArgWithXmlNameMember=");
    assert_eq!(at(&INPUT, &v, "ListArgWithXmlNameMember"), Some(&Value::List(vec![])));
}

#[test]
fn smithy_query_invalid_greeting_error() {
    // QueryInvalidGreetingError (xml-errors.smithy), plus the service's namespace.
    let error = OperationError::Modeled {
        shape: &INVALID_GREETING,
        value: build(&INVALID_GREETING, vec![("Message", s("Hi"))]),
    };
    let response = encode_error(Protocol::AwsQuery, &SERVICE, None, &error, "foo-id");
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["content-type"], "text/xml");
    assert_eq!(
        body_text(&response),
        "<ErrorResponse xmlns=\"https://example.com/\"><Error><Type>Sender</Type><Code>InvalidGreeting</Code>\
         <Message>Hi</Message></Error><RequestId>foo-id</RequestId></ErrorResponse>"
    );
    let common = OperationError::Aws(AwsError::internal("boom"));
    let response = encode_error(Protocol::AwsQuery, &SERVICE, None, &common, "x");
    assert_eq!(response.status(), 500);
    assert!(body_text(&response).contains("<Type>Receiver</Type><Code>InternalFailure</Code>"));
}

#[test]
fn unit_output_has_no_result_element() {
    let op = SERVICE.operation("QueryLists").unwrap();
    let response = encode_output(Protocol::AwsQuery, &SERVICE, op, Value::Struct(vec![]), "id");
    assert_eq!(
        body_text(&response),
        "<QueryListsResponse xmlns=\"https://example.com/\"><ResponseMetadata><RequestId>id</RequestId></ResponseMetadata></QueryListsResponse>"
    );
}

/// A listing whose output requires `IsTruncated` (with a `@default`), answered by a service that
/// leaves it out while it is false, as IAM's ListServiceSpecificCredentials does.
static LISTING_OUTPUT: Shape = Shape {
    members: &[
        Member::plain("Marker", &STRING),
        Member {
            required: true,
            default: Some(DefaultValue::Bool(false)),
            ..Member::plain("IsTruncated", &stratus_core::prelude_shapes::PRIMITIVE_BOOLEAN)
        },
    ],
    ..Shape::simple("ListThingsOutput", ShapeType::Structure)
};
static OMITTING: Service = Service {
    sdk_id: "Omitting",
    namespace: "stratus.test",
    shape_name: "Omitting",
    version: "2020-01-08",
    signing_name: "omitting",
    endpoint_prefix: "omitting",
    protocols: &[Protocol::AwsQuery],
    query_compatible: false,
    xml_namespace: Some(XmlNamespace {
        uri: "https://example.com/",
        prefix: None,
    }),
    operations: &[
        Operation {
            name: "ListThings",
            input: &stratus_core::prelude_shapes::UNIT,
            output: &LISTING_OUTPUT,
            errors: &[],
            http: None,
            unsigned: false,
        },
        Operation {
            name: "ListOthers",
            input: &stratus_core::prelude_shapes::UNIT,
            output: &LISTING_OUTPUT,
            errors: &[],
            http: None,
            unsigned: false,
        },
    ],
    authorization: &stratus_core::authz::Authorization::NONE,
    departures: Departures {
        omitted_default_members: &[("ListThings", "IsTruncated")],
        ..Departures::NONE
    },
    validation: ValidationStyle {
        code: "ValidationError",
        http_status: 400,
        missing_code: None,
        path_from_input: false,
        unanchored_patterns: false,
        missing_parameter_message: false,
        framework_error: None,
    },
    model_sha256: "",
};

#[test]
fn members_omitted_at_their_default_are_written_only_when_set_otherwise() {
    let body = |name: &str, value: Value| {
        let op = OMITTING.operations.iter().find(|op| op.name == name).unwrap();
        body_text(&encode_output(Protocol::AwsQuery, &OMITTING, op, value, "id")).to_owned()
    };
    for complete in [
        Value::Struct(vec![None, Some(Value::Bool(false))]),
        Value::Struct(vec![None, None]),
    ] {
        let listed = body("ListThings", complete);
        assert!(!listed.contains("IsTruncated"), "{listed}");
    }
    let truncated = body(
        "ListThings",
        Value::Struct(vec![Some(s("next")), Some(Value::Bool(true))]),
    );
    assert!(
        truncated.contains("<Marker>next</Marker><IsTruncated>true</IsTruncated>"),
        "{truncated}"
    );
    // The departure names one operation; the other keeps the member, filled with its default.
    let other = body("ListOthers", Value::Struct(vec![None, None]));
    assert!(other.contains("<IsTruncated>false</IsTruncated>"), "{other}");
}
