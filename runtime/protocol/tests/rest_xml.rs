//! restXml: S3 PutObject and ListObjectsV2, Route 53 ChangeResourceRecordSets as the SDKs
//! send them, and the XML error documents.

mod support;

use stratus_core::schema::Protocol;
use stratus_core::{AwsError, DateTime, OperationError, Value};
use stratus_protocol::rest_xml::{encode_error as encode_xml_error, ErrorStyle};
use stratus_protocol::{decode, encode_empty, encode_error, encode_output, operation_for};
use support::{at, body_text, build, s, Owned};

const P: Protocol = Protocol::RestXml;

#[test]
fn s3_put_object_binds_greedy_key_headers_metadata_and_body() {
    let service = &stratus_gen_s3::SERVICE;
    let req = Owned::new(
        "PUT",
        "/photos/2024/cat%20one.jpg?x-id=PutObject",
        &[
            ("content-type", "image/jpeg"),
            ("content-length", "4"),
            ("x-amz-meta-color", "orange"),
            ("x-amz-meta-Owner", "ada"),
            ("expires", "Mon, 16 Dec 2019 23:48:18 GMT"),
            ("x-amz-acl", "private"),
        ],
        b"\xff\xd8\xff\xe0".to_vec(),
    );
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "PutObject");
    let v = decode(P, service, op, &req.req()).unwrap();
    let shape = op.input;
    assert_eq!(at(shape, &v, "Bucket"), Some(&s("photos")));
    assert_eq!(at(shape, &v, "Key"), Some(&s("2024/cat one.jpg")));
    assert_eq!(at(shape, &v, "ContentType"), Some(&s("image/jpeg")));
    assert_eq!(at(shape, &v, "ContentLength"), Some(&Value::Int(4)));
    assert_eq!(at(shape, &v, "Metadata.color"), Some(&s("orange")));
    assert_eq!(at(shape, &v, "Metadata.owner"), Some(&s("ada")));
    // The current S3 model types `Expires` as a string.
    assert_eq!(at(shape, &v, "Expires"), Some(&s("Mon, 16 Dec 2019 23:48:18 GMT")));
    assert_eq!(at(shape, &v, "Body"), Some(&Value::Blob(b"\xff\xd8\xff\xe0".to_vec())));

    let output = build(op.output, vec![("ETag", s("\"abc\"")), ("VersionId", s("v1"))]);
    let response = encode_output(P, service, op, output, "RID");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["etag"], "\"abc\"");
    assert_eq!(response.headers()["x-amz-version-id"], "v1");
    assert_eq!(response.headers()["x-amz-request-id"], "RID");
    assert!(response.body().is_empty());
    assert!(response.headers().get("content-type").is_none());

    let bad = Owned::new("PUT", "/b/k?x-id=PutObject", &[("content-length", "many")], "");
    let e = decode(P, service, op, &bad.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("InvalidArgument", 400));
}

#[test]
fn s3_list_objects_v2_routes_on_list_type_and_writes_flattened_contents() {
    let service = &stratus_gen_s3::SERVICE;
    let req = Owned::new("GET", "/photos?list-type=2&prefix=2024%2F&max-keys=10", &[], "");
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "ListObjectsV2");
    let v = decode(P, service, op, &req.req()).unwrap();
    assert_eq!(at(op.input, &v, "Prefix"), Some(&s("2024/")));
    assert_eq!(at(op.input, &v, "MaxKeys"), Some(&Value::Int(10)));
    let v1 = Owned::new("GET", "/photos/", &[], "");
    assert_eq!(operation_for(P, service, &v1.req()).unwrap().name, "ListObjects");

    let object = |key: &str| {
        build(
            &stratus_gen_s3::schema::OBJECT,
            vec![
                ("Key", s(key)),
                ("LastModified", Value::Timestamp(DateTime::from_secs(1_576_540_098))),
                ("Size", Value::Int(3)),
            ],
        )
    };
    let output = build(
        op.output,
        vec![
            ("IsTruncated", Value::Bool(false)),
            ("Contents", Value::List(vec![object("2024/a"), object("2024/b")])),
            ("Name", s("photos")),
            ("KeyCount", Value::Int(2)),
        ],
    );
    let response = encode_output(P, service, op, output, "RID");
    assert_eq!(response.headers()["content-type"], "application/xml");
    assert_eq!(
        body_text(&response),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><IsTruncated>false</IsTruncated>\
         <Contents><Key>2024/a</Key><LastModified>2019-12-16T23:48:18.000Z</LastModified><Size>3</Size></Contents>\
         <Contents><Key>2024/b</Key><LastModified>2019-12-16T23:48:18.000Z</LastModified><Size>3</Size></Contents>\
         <Name>photos</Name><KeyCount>2</KeyCount></ListBucketResult>"
    );
}

#[test]
fn s3_errors_are_bare() {
    let service = &stratus_gen_s3::SERVICE;
    let shape = &stratus_gen_s3::schema::NO_SUCH_KEY;
    let error = OperationError::Modeled {
        shape,
        value: Value::Struct(vec![]),
    };
    let response = encode_xml_error(service, &error, "RID", ErrorStyle::Bare);
    assert_eq!(response.status(), 404);
    assert_eq!(
        body_text(&response),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><RequestId>RID</RequestId><HostId>stratus</HostId></Error>"
    );
    // S3's noErrorWrapping: the protocol answers S3 with the bare document, and its host id.
    let response = encode_error(P, service, None, &error, "RID");
    assert_eq!(
        body_text(&response),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><RequestId>RID</RequestId><HostId>stratus</HostId></Error>"
    );
    assert!(response.headers().contains_key("x-amz-id-2"));
}

#[test]
fn s3_error_details_follow_the_message() {
    // A refused CORS preflight, as AWS answers it (LocalStack's AWS-validated snapshot).
    let error = AwsError::new("AccessForbidden", "CORSResponse: Bucket not found", 403)
        .with_detail("Method", "PUT")
        .with_detail("ResourceType", "BUCKET");
    let response = encode_error(P, &stratus_gen_s3::SERVICE, None, &error.into(), "RID");
    assert_eq!(
        body_text(&response),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessForbidden</Code><Message>CORSResponse: Bucket not found</Message>\
         <Method>PUT</Method><ResourceType>BUCKET</ResourceType><RequestId>RID</RequestId><HostId>stratus</HostId></Error>"
    );
}

#[test]
fn s3_empty_answers_carry_its_request_ids() {
    let response = encode_empty(P, &stratus_gen_s3::SERVICE, "RID");
    assert_eq!(response.status(), 200);
    assert!(response.body().is_empty());
    assert_eq!(response.headers()["content-length"], "0");
    assert_eq!(response.headers()["x-amz-request-id"], "RID");
    assert!(response.headers().contains_key("x-amz-id-2"));
    assert_eq!(response.headers()["server"], "AmazonS3");
    // S3 names the request id only as x-amz-request-id.
    assert!(!response.headers().contains_key("x-amzn-requestid"));
}

#[test]
fn route53_change_resource_record_sets_reads_nested_wrapped_lists() {
    // As the AWS SDKs serialize it.
    let body = r#"<?xml version="1.0" encoding="UTF-8"?>
<ChangeResourceRecordSetsRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/">
  <ChangeBatch>
    <Comment>add www</Comment>
    <Changes>
      <Change>
        <Action>UPSERT</Action>
        <ResourceRecordSet>
          <Name>www.example.com</Name>
          <Type>A</Type>
          <TTL>300</TTL>
          <ResourceRecords><ResourceRecord><Value>192.0.2.1</Value></ResourceRecord><ResourceRecord><Value>192.0.2.2</Value></ResourceRecord></ResourceRecords>
        </ResourceRecordSet>
      </Change>
    </Changes>
  </ChangeBatch>
</ChangeResourceRecordSetsRequest>"#;
    let service = &stratus_gen_route_53::SERVICE;
    let req = Owned::new(
        "POST",
        "/2013-04-01/hostedzone/Z123/rrset/",
        &[("content-type", "application/xml")],
        body,
    );
    let op = operation_for(P, service, &req.req()).unwrap();
    assert_eq!(op.name, "ChangeResourceRecordSets");
    let v = decode(P, service, op, &req.req()).unwrap();
    let shape = op.input;
    assert_eq!(at(shape, &v, "HostedZoneId"), Some(&s("Z123")));
    assert_eq!(at(shape, &v, "ChangeBatch.Comment"), Some(&s("add www")));
    assert_eq!(at(shape, &v, "ChangeBatch.Changes.0.Action"), Some(&s("UPSERT")));
    assert_eq!(
        at(shape, &v, "ChangeBatch.Changes.0.ResourceRecordSet.TTL"),
        Some(&Value::Int(300))
    );
    assert_eq!(
        at(
            shape,
            &v,
            "ChangeBatch.Changes.0.ResourceRecordSet.ResourceRecords.1.Value"
        ),
        Some(&s("192.0.2.2"))
    );

    let info = build(
        &stratus_gen_route_53::schema::CHANGE_INFO,
        vec![
            ("Id", s("/change/C1")),
            ("Status", s("PENDING")),
            ("SubmittedAt", Value::Timestamp(DateTime::from_secs(1_576_540_098))),
        ],
    );
    let response = encode_output(P, service, op, build(op.output, vec![("ChangeInfo", info)]), "RID");
    assert_eq!(
        body_text(&response),
        "<ChangeResourceRecordSetsResponse xmlns=\"https://route53.amazonaws.com/doc/2013-04-01/\"><ChangeInfo>\
         <Id>/change/C1</Id><Status>PENDING</Status><SubmittedAt>2019-12-16T23:48:18Z</SubmittedAt></ChangeInfo>\
         </ChangeResourceRecordSetsResponse>"
    );
    // The body read back gives the same value.
    let back = stratus_protocol::xml::from_document(op.output, response.body()).unwrap();
    assert_eq!(at(op.output, &back, "ChangeInfo.Status"), Some(&s("PENDING")));

    let broken = Owned::new(
        "POST",
        "/2013-04-01/hostedzone/Z123/rrset",
        &[],
        "<ChangeResourceRecordSetsRequest><ChangeBatch><Changes><Change><ResourceRecordSet><TTL>soon</TTL>",
    );
    let e = decode(P, service, op, &broken.req()).unwrap_err().to_aws_error();
    assert_eq!((e.code.as_str(), e.http_status), ("MalformedXML", 400));
}
