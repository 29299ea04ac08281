//! Which service and operation each request lands on. For every operation of every generated
//! service, in every protocol the service is served over, the request an AWS SDK sends for it
//! is built from the schema — signed for the service's signing name as SDKs sign, and again
//! unsigned — and handed to the gateway's router, which must name that service and operation.
//! Requests no service claims must go to S3, the service that takes unclaimed requests.
//!
//! The router is called directly (no sockets), so the whole table runs in well under a second
//! in a release build; `cargo test -p stratus-server --release --test routing -- --nocapture`
//! prints how many requests it routed.

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use stratus_core::schema::{HttpBinding, HttpRoute, Operation, PathSegment, Protocol, Service};
use stratus_core::service::{ServiceHandler, Unimplemented};
use stratus_protocol::Request;
use stratus_server::{pipeline, Config, Gateway};

/// A request a test builds: owned parts, lent to the router as a [`Request`].
struct Sent {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Sent {
    /// `method path_and_query` to the endpoint SDKs are pointed at.
    fn new(method: &str, path_and_query: &str) -> Sent {
        Sent {
            method: method.parse().expect("a method from the model"),
            uri: path_and_query.parse().expect("a URI the test built"),
            headers: HeaderMap::new(),
            body: Vec::new(),
        }
        .header("host", "localhost:4566")
    }

    fn header(mut self, name: &str, value: &str) -> Sent {
        let name = HeaderName::from_bytes(name.as_bytes()).expect("a header name from the model");
        self.headers.insert(
            name,
            HeaderValue::from_str(value).expect("a header value the test built"),
        );
        self
    }

    fn body(mut self, content_type: &str, body: &[u8]) -> Sent {
        self.body = body.to_vec();
        self.header("content-type", content_type)
    }

    /// Signed with SigV4 for `signing_name` in us-east-1, as every SDK signs by default (the
    /// signature itself is never checked).
    fn signed(self, signing_name: &str) -> Sent {
        let credential = format!("AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/{signing_name}/aws4_request");
        let signature = "0".repeat(64);
        self.header("x-amz-date", "20260101T000000Z").header(
            "authorization",
            &format!("AWS4-HMAC-SHA256 Credential={credential}, SignedHeaders=host;x-amz-date, Signature={signature}"),
        )
    }

    fn without(mut self, name: &str) -> Sent {
        self.headers.remove(name);
        self
    }
}

/// Where a request landed.
#[derive(Debug, PartialEq, Eq)]
struct Landing {
    service: &'static str,
    operation: &'static str,
    protocol: Protocol,
    /// The path-style URI of a request that named its bucket in the host.
    path_style: Option<String>,
}

fn land(gateway: &Gateway, sent: &Sent) -> Result<Landing, String> {
    let req = Request {
        method: &sent.method,
        uri: &sent.uri,
        headers: &sent.headers,
        body: &sent.body,
    };
    match pipeline::route(gateway, &req) {
        Ok(route) => Ok(Landing {
            service: route.handler.schema().sdk_id,
            operation: route.operation.name,
            protocol: route.protocol,
            path_style: route.uri.map(|uri| uri.to_string()),
        }),
        Err(unrouted) => Err(format!(
            "unrouted ({}: {}) for {}",
            unrouted.error.code,
            unrouted.error.message,
            unrouted.target.map_or("no service".to_string(), |(h, p)| format!(
                "{} in {}",
                h.schema().sdk_id,
                p.name()
            ))
        )),
    }
}

/// Every generated service, each answering not-implemented: routing does not depend on which
/// are hand-written.
fn gateway() -> Gateway {
    let handlers: Vec<Arc<dyn ServiceHandler>> = stratus_gen_registry::SERVICES
        .iter()
        .map(|(_, service)| Arc::new(Unimplemented(service)) as Arc<dyn ServiceHandler>)
        .collect();
    Gateway::new(Config::default(), handlers).with_unclaimed(service("s3"))
}

fn service(sdk_id: &str) -> &'static Service {
    stratus_gen_registry::find(sdk_id).expect("a generated service")
}

/// A plausible value for the URI label `name`: an ARN (percent-encoded, as SDKs encode a label)
/// for labels that name one, else a word.
fn label_value(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    if name.ends_with("arn") {
        "arn%3Aaws%3Aexample%3Aus-east-1%3A000000000000%3Aresource%2Fexample-1".to_string()
    } else {
        let word: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        format!("example-{word}")
    }
}

/// The REST request an SDK sends for `op`: its route's method and path with every label filled,
/// its literal query parameters (S3's `x-id` only if `with_x_id`) and every required query
/// parameter and header.
fn rest_request(protocol: Protocol, op: &Operation, route: &HttpRoute, with_x_id: bool) -> Sent {
    let mut path = String::new();
    for segment in route.path {
        path.push('/');
        match segment {
            PathSegment::Literal(literal) => path.push_str(literal),
            PathSegment::Label(name) => path.push_str(&label_value(name)),
            PathSegment::Greedy(name) => path.push_str(&format!("folder/{}.txt", label_value(name))),
        }
    }
    if path.is_empty() {
        path.push('/');
    }
    let mut query: Vec<String> = route
        .query
        .iter()
        .filter(|(name, _)| with_x_id || *name != "x-id")
        .map(|(name, value)| value.map_or(name.to_string(), |v| format!("{name}={v}")))
        .collect();
    let mut headers = Vec::new();
    for member in op.input.members.iter().filter(|m| m.required) {
        match member.http {
            HttpBinding::Query(name) if !route.query.iter().any(|(n, _)| *n == name) => query.push(format!("{name}=1")),
            HttpBinding::Header(name) => headers.push(name),
            _ => {}
        }
    }
    let uri = match query.is_empty() {
        true => path,
        false => format!("{path}?{}", query.join("&")),
    };
    let mut sent = Sent::new(route.method, &uri);
    for name in headers {
        let value = match name.eq_ignore_ascii_case("x-amz-copy-source") {
            true => "source-bucket/source-key",
            false => "example",
        };
        sent = sent.header(name, value);
    }
    match (protocol, route.method) {
        (Protocol::RestJson1, "POST" | "PUT" | "PATCH") => sent.body("application/json", b"{}"),
        _ => sent,
    }
}

/// The request an SDK sends for `op` of `service` in `protocol`, unsigned.
fn sdk_request(service: &Service, op: &Operation, protocol: Protocol) -> Sent {
    match protocol {
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 => {
            let content_type = match protocol {
                Protocol::AwsJson1_0 => "application/x-amz-json-1.0",
                _ => "application/x-amz-json-1.1",
            };
            Sent::new("POST", "/")
                .header("x-amz-target", &format!("{}.{}", service.shape_name, op.name))
                .body(content_type, b"{}")
        }
        Protocol::AwsQuery | Protocol::Ec2Query => {
            let form = format!("Action={}&Version={}", op.name, service.version);
            Sent::new("POST", "/").body("application/x-www-form-urlencoded; charset=utf-8", form.as_bytes())
        }
        Protocol::RpcV2Cbor => Sent::new(
            "POST",
            &format!("/service/{}/operation/{}", service.shape_name, op.name),
        )
        .header("smithy-protocol", "rpc-v2-cbor")
        .header("accept", "application/cbor")
        // An empty CBOR map.
        .body("application/cbor", &[0xa0]),
        Protocol::RestJson1 | Protocol::RestXml => {
            let route = op.http.as_ref().expect("a REST operation has a route");
            rest_request(protocol, op, route, true)
        }
    }
}

/// Collects what landed somewhere else than it should.
#[derive(Default)]
struct Table {
    routed: usize,
    wrong: Vec<String>,
}

impl Table {
    fn expect(&mut self, gateway: &Gateway, what: &str, sent: &Sent, want: &Landing) {
        self.routed += 1;
        match land(gateway, sent) {
            Ok(landed) if landed == *want => {}
            Ok(landed) => self.wrong.push(format!(
                "{what} ({} {}): want {}.{} in {}, landed on {}.{} in {}{}",
                sent.method,
                sent.uri,
                want.service,
                want.operation,
                want.protocol.name(),
                landed.service,
                landed.operation,
                landed.protocol.name(),
                landed.path_style.map(|p| format!(" as {p}")).unwrap_or_default(),
            )),
            Err(e) => self.wrong.push(format!("{what} ({} {}): {e}", sent.method, sent.uri)),
        }
    }

    fn assert_all_right(self, name: &str) {
        println!(
            "{name}: {} requests routed, {} misrouted",
            self.routed,
            self.wrong.len()
        );
        assert!(
            self.wrong.is_empty(),
            "{} of {} requests misrouted:\n{}",
            self.wrong.len(),
            self.routed,
            self.wrong.join("\n")
        );
    }
}

/// Where an unsigned request for `operation` of `service` lands when another service has the
/// same route: at the first REST service in registration order. On AWS they are different
/// hosts, and the SDKs sign both, so only a hand-made request meets this.
fn shared_route(service: &str, operation: &str) -> Option<(&'static str, &'static str)> {
    match (service, operation) {
        // `GET /tags/{arn}` and `DELETE /tags/{arn}?…` are API Gateway's tag operations too.
        ("Scheduler", "ListTagsForResource") => Some(("API Gateway", "GetTags")),
        ("Scheduler", "UntagResource") => Some(("API Gateway", "UntagResource")),
        _ => None,
    }
}

#[test]
fn every_operation_of_every_service_lands_on_itself() {
    let gateway = gateway();
    let mut table = Table::default();
    for (id, service) in stratus_gen_registry::SERVICES {
        for &protocol in service.protocols {
            for op in service.operations {
                let want = Landing {
                    service: service.sdk_id,
                    operation: op.name,
                    protocol,
                    path_style: None,
                };
                let signed = sdk_request(service, op, protocol).signed(service.signing_name);
                table.expect(&gateway, &format!("{id} {} signed", protocol.name()), &signed, &want);
                let unsigned = signed.without("authorization");
                let want = match shared_route(service.sdk_id, op.name) {
                    Some((service, operation)) => Landing {
                        service,
                        operation,
                        ..want
                    },
                    None => want,
                };
                table.expect(
                    &gateway,
                    &format!("{id} {} unsigned", protocol.name()),
                    &unsigned,
                    &want,
                );
            }
        }
    }
    table.assert_all_right("every operation");
}

/// S3 as SDKs that send no `x-id` (boto3, the CLI) address it, path style and virtual-host
/// style (`<bucket>.s3.<endpoint>`, `<bucket>.localhost`).
#[test]
fn s3_lands_without_x_id_and_by_virtual_host() {
    let gateway = gateway();
    let s3 = service("s3");
    let mut table = Table::default();
    for op in s3.operations {
        let route = op.http.as_ref().expect("S3 operations have routes");
        let want = |path_style: Option<String>| Landing {
            service: s3.sdk_id,
            operation: op.name,
            protocol: Protocol::RestXml,
            path_style,
        };
        let plain = rest_request(Protocol::RestXml, op, route, false).signed("s3");
        let without_x_id = match op.name {
            // Without its `x-id`, `GET /` is ListBuckets: on AWS only the host
            // (s3express-control) tells the directory buckets' listing apart.
            "ListDirectoryBuckets" => Landing {
                operation: "ListBuckets",
                ..want(None)
            },
            _ => want(None),
        };
        table.expect(&gateway, "s3 without x-id", &plain, &without_x_id);
        if route.path.first() != Some(&PathSegment::Label("Bucket")) {
            continue;
        }
        // The same request with the bucket moved from the path into the host; it is decoded
        // as the path-style request it stands for.
        let path_style = rest_request(Protocol::RestXml, op, route, true).uri;
        let path_and_query = path_style.path_and_query().map_or("/", |pq| pq.as_str()).to_string();
        let bucket = label_value("Bucket");
        let rest = path_and_query.strip_prefix(&format!("/{bucket}")).unwrap_or_default();
        let virtual_path = match rest.starts_with('/') {
            true => rest.to_string(),
            false => format!("/{rest}"),
        };
        for host in [
            format!("{bucket}.s3.localhost.localstack.cloud:4566"),
            format!("{bucket}.localhost:4566"),
        ] {
            let mut virtual_host = rest_request(Protocol::RestXml, op, route, true).signed("s3");
            virtual_host.uri = virtual_path.parse().expect("a path the test built");
            let virtual_host = virtual_host.header("host", &host);
            let want = want(Some(path_and_query.clone()));
            table.expect(&gateway, &format!("s3 virtual host {host}"), &virtual_host, &want);
        }
    }
    table.assert_all_right("S3 addressed as SDKs address it");
}

/// Requests no other service claims go to S3: objects and buckets by path or host, anonymous,
/// presigned or signed with SigV2 — and, signed for S3, buckets named like the first segment of
/// another service's routes (`/restapis`, `/2015-03-31`, `/v2`), which are S3's on its endpoint.
#[test]
fn s3_keeps_what_is_unclaimed() {
    let gateway = gateway();
    let mut table = Table::default();
    let s3 = |operation: &'static str, path_style: Option<&str>| Landing {
        service: "S3",
        operation,
        protocol: Protocol::RestXml,
        path_style: path_style.map(String::from),
    };
    let presigned = "/some-bucket/some/key?X-Amz-Algorithm=AWS4-HMAC-SHA256\
        &X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request\
        &X-Amz-Date=20260101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00";
    let cases = [
        (
            "anonymous read",
            Sent::new("GET", "/some-bucket/some/key"),
            s3("GetObject", None),
        ),
        (
            "anonymous listing",
            Sent::new("GET", "/some-bucket"),
            s3("ListObjects", None),
        ),
        ("anonymous bucket list", Sent::new("GET", "/"), s3("ListBuckets", None)),
        (
            "anonymous virtual host",
            Sent::new("GET", "/some/key").header("host", "some-bucket.s3.localhost.localstack.cloud:4566"),
            s3("GetObject", Some("/some-bucket/some/key")),
        ),
        (
            "anonymous virtual host listing",
            Sent::new("GET", "/?list-type=2").header("host", "some-bucket.localhost:4566"),
            s3("ListObjectsV2", Some("/some-bucket?list-type=2")),
        ),
        (
            "anonymous virtual host, a key named like an API Gateway path",
            Sent::new("GET", "/restapis").header("host", "some-bucket.s3.localhost.localstack.cloud:4566"),
            s3("GetObject", Some("/some-bucket/restapis")),
        ),
        ("presigned read", Sent::new("GET", presigned), s3("GetObject", None)),
        (
            "SigV2 write",
            Sent::new("PUT", "/some-bucket/some/key").header("authorization", "AWS AKIAIOSFODNN7EXAMPLE:c2lnbmF0dXJl"),
            s3("PutObject", None),
        ),
    ];
    for (what, sent, want) in &cases {
        table.expect(&gateway, what, sent, want);
    }
    for (id, other) in stratus_gen_registry::SERVICES.iter().filter(|(id, _)| *id != "s3") {
        let mut firsts: Vec<&str> = other
            .operations
            .iter()
            .filter_map(|op| match op.http?.path.first()? {
                PathSegment::Literal(literal) => Some(*literal),
                _ => None,
            })
            .collect();
        firsts.sort_unstable();
        firsts.dedup();
        for first in firsts {
            let what = format!("S3 bucket named like a path of {id}");
            for (method, path, operation) in [
                ("GET", format!("/{first}"), "ListObjects"),
                ("PUT", format!("/{first}"), "CreateBucket"),
                ("GET", format!("/{first}/some/key"), "GetObject"),
                ("DELETE", format!("/{first}/some/key"), "DeleteObject"),
            ] {
                let sent = Sent::new(method, &path).signed("s3");
                table.expect(&gateway, &what, &sent, &s3(operation, None));
            }
        }
    }
    table.assert_all_right("unclaimed requests");
}

/// The Query protocol's other forms: parameters in the query string, a queue URL as the path,
/// no `Version`, SigV2, and SES's Query API beside SESv2's REST one under one signing name.
#[test]
fn query_requests_in_their_other_forms() {
    let gateway = gateway();
    let mut table = Table::default();
    let query = |service: &'static str, operation: &'static str| Landing {
        service,
        operation,
        protocol: Protocol::AwsQuery,
        path_style: None,
    };
    let form = |path: &str, body: &str| {
        Sent::new("POST", path).body("application/x-www-form-urlencoded; charset=utf-8", body.as_bytes())
    };
    let cases = [
        (
            "in the query string",
            Sent::new("GET", "/?Action=GetCallerIdentity&Version=2011-06-15").signed("sts"),
            query("STS", "GetCallerIdentity"),
        ),
        (
            "to a queue URL",
            form(
                "/000000000000/my-queue",
                "Action=SendMessage&Version=2012-11-05&MessageBody=hi",
            )
            .signed("sqs"),
            query("SQS", "SendMessage"),
        ),
        (
            "without Version",
            form("/", "Action=ListMetrics").signed("monitoring"),
            query("CloudWatch", "ListMetrics"),
        ),
        (
            "unsigned without Version",
            form("/", "Action=AssumeRoleWithWebIdentity&RoleArn=arn"),
            query("STS", "AssumeRoleWithWebIdentity"),
        ),
        (
            "SigV2",
            form(
                "/",
                "Action=ListTopics&Version=2010-03-31&AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&SignatureVersion=2",
            ),
            query("SNS", "ListTopics"),
        ),
        (
            "SES v1 under the signing name SESv2 shares",
            form("/", "Action=SendEmail&Version=2010-12-01").signed("ses"),
            query("SES", "SendEmail"),
        ),
    ];
    for (what, sent, want) in &cases {
        table.expect(&gateway, what, sent, want);
    }
    table.assert_all_right("Query forms");
}

/// A request signed for a service stays with it when none of its operations match: it is
/// answered as that service's unknown operation, in its protocol, not handed to another.
#[test]
fn signed_requests_stay_with_their_service() {
    let gateway = gateway();
    let cases = [
        (
            Sent::new("GET", "/2015-03-31/no-such-resource").signed("lambda"),
            "Lambda in restJson1",
        ),
        (
            Sent::new("GET", "/v2/no-such-resource").signed("apigateway"),
            "API Gateway in restJson1",
        ),
        (
            Sent::new("POST", "/")
                .body("application/x-www-form-urlencoded", b"Version=2011-06-15")
                .signed("sts"),
            "STS in awsQuery",
        ),
    ];
    for (sent, answered_by) in &cases {
        match land(&gateway, sent) {
            Ok(landed) => panic!("{} {} landed on {landed:?}", sent.method, sent.uri),
            Err(unrouted) => assert!(unrouted.ends_with(answered_by), "{unrouted}"),
        }
    }
}

/// A gateway whose binary names no service for unclaimed requests (S3 not served) guesses
/// none: S3's requests are unrouted, and everything else still lands.
#[test]
fn without_an_unclaimed_service_nothing_is_guessed() {
    let handlers: Vec<Arc<dyn ServiceHandler>> = ["sts", "lambda"]
        .into_iter()
        .map(|id| Arc::new(Unimplemented(service(id))) as Arc<dyn ServiceHandler>)
        .collect();
    let gateway = Gateway::new(Config::default(), handlers);
    let read = Sent::new("GET", "/some-bucket/some/key");
    assert_eq!(land(&gateway, &read).unwrap_err(), "unrouted (UnknownOperationException: Stratus could not tell which AWS service this request is for) for no service");
    let lambda = Sent::new("GET", "/2015-03-31/functions");
    assert_eq!(land(&gateway, &lambda).map(|l| l.operation), Ok("ListFunctions"));
}
