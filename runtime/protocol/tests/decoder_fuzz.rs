//! Property test: no decoder panics, whatever the request. Inputs are seeded random mutations
//! of realistic requests of every protocol — bodies (JSON, form, XML, CBOR), URIs (labels,
//! query strings) and header values — plus deeply nested documents, so failures reproduce
//! from the printed seed. Whatever decodes is encoded back, which must not panic either.

mod support;

use stratus_core::schema::{Protocol, Service};
use stratus_protocol::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use stratus_protocol::{cbor, decode, encode_output, operation_for, xml, Request};
use stratus_test_support::{mutate, Rng};

/// Fragments that tend to break parsers of every format.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\\u00",
    b"null",
    b"-",
    b"1e309",
    b"18446744073709551616",
    b"&",
    b"=",
    b"%",
    b"%ff",
    b"%2F",
    b".member.",
    b".1",
    b".0",
    b".entry.",
    b"+",
    b"<",
    b">",
    b"</",
    b"/>",
    b"<![CDATA[",
    b"&amp;",
    b"&#0;",
    b"xmlns=\"",
    b"\xbf",
    b"\xff",
    b"\x9f",
    b"\xc1",
    b"\xfb",
    b"\x7f",
    b"\x1b\xff\xff\xff\xff",
    b"/",
    b"//",
    b"{x}",
    b" ",
    b"\"a,b\"",
];

/// One realistic request to mutate.
struct Case {
    protocol: Protocol,
    service: &'static Service,
    method: &'static str,
    uri: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Vec<u8>,
}

fn cases() -> Vec<Case> {
    const JSON10: &[(&str, &str)] = &[
        ("x-amz-target", "DynamoDB_20120810.PutItem"),
        ("content-type", "application/x-amz-json-1.0"),
    ];
    const FORM: &[(&str, &str)] = &[("content-type", "application/x-www-form-urlencoded")];
    const JSON: &[(&str, &str)] = &[("content-type", "application/json")];
    const CBOR: &[(&str, &str)] = &[("smithy-protocol", "rpc-v2-cbor"), ("content-type", "application/cbor")];
    const INVOKE: &[(&str, &str)] = &[
        ("x-amz-invocation-type", "Event"),
        ("x-amz-client-context", "e30="),
        ("content-type", "application/json"),
    ];
    const PUT_OBJECT: &[(&str, &str)] = &[
        ("content-length", "3"),
        ("x-amz-meta-a", "b"),
        ("x-amz-object-lock-retain-until-date", "2019-12-16T23:48:18Z"),
        ("x-amz-checksum-algorithm", "CRC32"),
    ];
    let metric_body = {
        let mut e = aws_smithy_cbor::Encoder::new(Vec::new());
        e.begin_map().str("Namespace").str("App").str("MetricData").array(1);
        e.begin_map().str("MetricName").str("L").str("Value").double(1.5);
        e.str("Timestamp")
            .timestamp(&stratus_core::DateTime::from_secs(1))
            .str("Values")
            .array(1)
            .float(2.0);
        e.str("Dimensions").array(0).end();
        e.end();
        e.into_writer()
    };
    vec![
        Case {
            protocol: Protocol::AwsJson1_0,
            service: &stratus_gen_dynamodb::SERVICE,
            method: "POST",
            uri: "/",
            headers: JSON10,
            body: br#"{"TableName":"t","Item":{"id":{"S":"u1"},"n":{"N":"1"},"l":{"L":[{"M":{"b":{"BOOL":true}}}]},"raw":{"B":"AAE="}},"Expected":{"x":{"Value":{"NULL":true}}}}"#.to_vec(),
        },
        Case {
            protocol: Protocol::AwsQuery,
            service: &stratus_gen_sts::SERVICE,
            method: "POST",
            uri: "/",
            headers: FORM,
            body: b"Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aa&RoleSessionName=s&DurationSeconds=900&PolicyArns.member.1.arn=x&Tags.member.1.Key=k&Tags.member.1.Value=v&TransitiveTagKeys.member.1=k&ProvidedContexts.member.1.ProviderArn=p".to_vec(),
        },
        Case {
            protocol: Protocol::AwsQuery,
            service: &stratus_gen_sqs::SERVICE,
            method: "POST",
            uri: "/?Action=SendMessage",
            headers: FORM,
            body: b"Action=SendMessage&QueueUrl=q&MessageBody=m&DelaySeconds=1&MessageAttribute.1.Name=a&MessageAttribute.1.Value.StringValue=v&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.BinaryListValue.1=AAE%3D".to_vec(),
        },
        Case {
            protocol: Protocol::RestJson1,
            service: &stratus_gen_lambda::SERVICE,
            method: "POST",
            uri: "/2015-03-31/functions/my%3Afn/invocations?Qualifier=1",
            headers: INVOKE,
            body: br#"{"k":[1,2]}"#.to_vec(),
        },
        Case {
            protocol: Protocol::RestJson1,
            service: &stratus_gen_lambda::SERVICE,
            method: "POST",
            uri: "/2015-03-31/functions",
            headers: JSON,
            body: br#"{"FunctionName":"f","Code":{"ZipFile":"UEsDBA=="},"Timeout":3,"Environment":{"Variables":{"A":"1"}},"Layers":["l"],"MemorySize":128}"#.to_vec(),
        },
        Case {
            protocol: Protocol::RestXml,
            service: &stratus_gen_route_53::SERVICE,
            method: "POST",
            uri: "/2013-04-01/hostedzone/Z1/rrset",
            headers: &[],
            body: br#"<?xml version="1.0"?><ChangeResourceRecordSetsRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><ChangeBatch><Changes><Change><Action>UPSERT</Action><ResourceRecordSet><Name>a</Name><Type>A</Type><TTL>1</TTL><GeoLocation><CountryCode>DE</CountryCode></GeoLocation><ResourceRecords><ResourceRecord><Value>1.2.3.4</Value></ResourceRecord></ResourceRecords></ResourceRecordSet></Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>"#.to_vec(),
        },
        Case {
            protocol: Protocol::RestXml,
            service: &stratus_gen_s3::SERVICE,
            method: "PUT",
            uri: "/bucket/a/b%20c?x-id=PutObject",
            headers: PUT_OBJECT,
            body: b"abc".to_vec(),
        },
        Case {
            protocol: Protocol::RestXml,
            service: &stratus_gen_s3::SERVICE,
            method: "POST",
            uri: "/bucket?delete",
            headers: &[],
            body: b"<Delete><Object><Key>a</Key><VersionId>1</VersionId></Object><Quiet>true</Quiet></Delete>".to_vec(),
        },
        Case {
            protocol: Protocol::RpcV2Cbor,
            service: &stratus_gen_cloudwatch::SERVICE,
            method: "POST",
            uri: "/service/GraniteServiceVersion20100801/operation/PutMetricData",
            headers: CBOR,
            body: metric_body,
        },
    ]
}

/// Runs the request through routing, decoding and the encoders; returns whether it decoded.
fn exercise(case: &Case, method: &Method, uri: &Uri, headers: &HeaderMap, body: &[u8]) -> bool {
    let req = Request {
        method,
        uri,
        headers,
        body,
    };
    let Ok(op) = operation_for(case.protocol, case.service, &req) else {
        return false;
    };
    let Ok(value) = decode(case.protocol, case.service, op, &req) else {
        return false;
    };
    // Encoding what was decoded exercises the writers on odd values (as the input shape).
    let _ = xml::to_document("Root", None, op.input, &value);
    let _ = cbor::to_cbor(op.input, &value);
    let _ = stratus_core::json::encode(op.input, &value, stratus_core::json::KeyNames::JsonName);
    let _ = encode_output(case.protocol, case.service, op, value, "r");
    true
}

fn header_map(headers: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        map.append(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    map
}

#[test]
fn decoders_never_panic() {
    let seed = 0x5eed_0bad_f00d_cafe;
    let mut rng = Rng(seed);
    let (mut decoded, mut refused) = (0, 0);
    for case in cases() {
        let method = Method::from_bytes(case.method.as_bytes()).unwrap();
        let uri: Uri = case.uri.parse().unwrap();
        let headers = header_map(case.headers);
        assert!(
            exercise(&case, &method, &uri, &headers, &case.body),
            "seed request of {} must decode",
            case.uri
        );
        for round in 0..2_000 {
            let (mut m_uri, mut m_headers, mut body) = (uri.clone(), headers.clone(), case.body.clone());
            match round % 4 {
                0 | 1 => body = mutate(&mut rng, &case.body, TOKENS),
                2 => match Uri::try_from(mutate(&mut rng, case.uri.as_bytes(), TOKENS)) {
                    Ok(u) => m_uri = u,
                    Err(_) => continue,
                },
                _ => {
                    let Some((name, value)) = case.headers.get(rng.below(case.headers.len().max(1))) else {
                        continue;
                    };
                    match HeaderValue::from_bytes(&mutate(&mut rng, value.as_bytes(), TOKENS)) {
                        Ok(v) => {
                            m_headers.insert(*name, v);
                        }
                        Err(_) => continue,
                    }
                }
            }
            if exercise(&case, &method, &m_uri, &m_headers, &body) {
                decoded += 1;
            } else {
                refused += 1;
            }
        }
    }
    println!("seed {seed:#x}: {decoded} decoded, {refused} refused");
    assert!(
        decoded > 1_000 && refused > 1_000,
        "mutations should both pass and fail: {decoded}/{refused}"
    );
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let depth = 100_000;
    let all = cases();
    let case = |uri: &str| all.iter().find(|c| c.uri.contains(uri)).unwrap();
    let run = |case: &Case, body: String| {
        let method = Method::from_bytes(case.method.as_bytes()).unwrap();
        let uri: Uri = case.uri.parse().unwrap();
        exercise(case, &method, &uri, &header_map(case.headers), body.as_bytes())
    };
    // DynamoDB's AttributeValue is recursive, so this meets the depth cap.
    let json = format!(r#"{{"TableName":"t","Item":{{"a":{}"#, r#"{"L":["#.repeat(depth));
    assert!(!run(case("/"), json));
    let closed = format!(
        r#"{{"TableName":"t","Item":{{"a":{}{{"S":"x"}}{}}}}}"#,
        r#"{"L":["#.repeat(depth),
        "]}".repeat(depth)
    );
    assert!(!run(case("/"), closed));
    // Unknown elements and parameters nest without recursion.
    run(
        case("rrset"),
        format!("<R><ChangeBatch>{}", "<Changes><Change><X>".repeat(depth)),
    );
    run(
        case("/?Action=SendMessage"),
        format!("Action=SendMessage&{}=1", "MessageAttribute.1.Value.".repeat(depth)),
    );
    let cbor_case = case("PutMetricData");
    let method = Method::POST;
    let uri: Uri = cbor_case.uri.parse().unwrap();
    let body = [
        b"\xbf\x61X".as_slice(),
        &b"\x9f".repeat(depth),
        &b"\xff".repeat(depth),
        b"\xff",
    ]
    .concat();
    // CBOR nesting is measured before decoding, unknown items too: refused, not skipped.
    assert!(!exercise(
        cbor_case,
        &method,
        &uri,
        &header_map(cbor_case.headers),
        &body
    ));
}
