"""S3 CORS against the real binary: bucket rules put with boto3, then what a browser sends —
preflight OPTIONS requests and requests with an Origin — sent raw. The expected answers are
AWS's as LocalStack's AWS-validated snapshots record them
(tests/aws/services/s3/test_s3_cors.snapshot.json); each test names the case it follows."""

import http.client
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

import pytest

NOT_ALLOWED = (
    "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, "
    "request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted "
    "by the resource's CORS spec."
)
VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"
APP = "https://app.example.com"


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"cors-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="hello.txt", Body=b"hello")
    return name


def put_rules(s3, bucket, *rules):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": list(rules)})


class Answer:
    def __init__(self, response):
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.body = response.read()

    def cors(self):
        """The Access-Control-* headers and Vary."""
        return {k: v for k, v in self.headers.items() if k.startswith("access-control-") or k == "vary"}

    def error(self):
        """The S3 error document's elements other than the request ids."""
        root = ET.fromstring(self.body)
        return {child.tag: child.text for child in root if child.tag not in ("RequestId", "HostId")}


def send(stratus, method, path, headers=None, host=None):
    """Sends a raw, unsigned request, as a browser does; `host` addresses a bucket by host."""
    netloc = urllib.parse.urlsplit(stratus.endpoint).netloc
    connection = http.client.HTTPConnection(netloc, timeout=10)
    headers = dict(headers or {})
    if host:
        headers["Host"] = host
    try:
        connection.request(method, path, headers=headers)
        return Answer(connection.getresponse())
    finally:
        connection.close()


def preflight(stratus, path, origin=APP, method="GET", request_headers=None, host=None):
    headers = {}
    if origin is not None:
        headers["Origin"] = origin
    if method is not None:
        headers["Access-Control-Request-Method"] = method
    if request_headers is not None:
        headers["Access-Control-Request-Headers"] = request_headers
    return send(stratus, "OPTIONS", path, headers, host)


WEB_RULE = {
    "AllowedOrigins": [APP],
    "AllowedMethods": ["GET", "PUT"],
    "AllowedHeaders": ["x-amz-*", "Content-Type"],
    "ExposeHeaders": ["ETag", "x-amz-request-id"],
    "MaxAgeSeconds": 3000,
}


def test_preflight_with_a_matching_origin(stratus, s3, bucket):
    # opt-right-origin, opt-get-two, test_cors_expose_headers.
    put_rules(s3, bucket, WEB_RULE)
    answer = preflight(stratus, f"/{bucket}/hello.txt", method="PUT", request_headers="Content-Type, X-Amz-Date")
    assert answer.status == 200
    assert answer.body == b""
    assert answer.headers["content-length"] == "0"
    assert answer.headers["x-amz-request-id"]
    assert answer.cors() == {
        "access-control-allow-origin": APP,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "GET, PUT",
        "access-control-allow-headers": "content-type, x-amz-date",
        "access-control-expose-headers": "ETag, x-amz-request-id",
        "access-control-max-age": "3000",
        "vary": VARY,
    }


def test_preflight_addressed_by_host(stratus, s3, bucket):
    put_rules(s3, bucket, WEB_RULE)
    port = urllib.parse.urlsplit(stratus.endpoint).port
    for host in (f"{bucket}.s3.localhost:{port}", f"{bucket}.localhost:{port}"):
        answer = preflight(stratus, "/hello.txt", host=host)
        assert answer.status == 200, answer.body
        assert answer.headers["access-control-allow-origin"] == APP
        refused = preflight(stratus, "/hello.txt", method="DELETE", host=host)
        assert refused.status == 403
        assert refused.error()["ResourceType"] == "OBJECT"


def test_preflight_wildcard_origins(stratus, s3, bucket):
    # test_cors_options_match_partial_origin and ..._fails_partial_origin, opt-random-wildcard-origin.
    put_rules(s3, bucket, {"AllowedOrigins": ["http://*.example.com"], "AllowedMethods": ["GET"]})
    answer = preflight(stratus, f"/{bucket}", origin="http://test.example.com")
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == "http://test.example.com"
    assert answer.headers["access-control-allow-credentials"] == "true"
    for origin in ("http://test.example.com/", "https://test.example.com", "http://example.com.evil"):
        refused = preflight(stratus, f"/{bucket}", origin=origin)
        assert refused.status == 403
        assert refused.error() == {
            "Code": "AccessForbidden",
            "Message": NOT_ALLOWED,
            "Method": "GET",
            "ResourceType": "BUCKET",
        }
    put_rules(s3, bucket, {"AllowedOrigins": ["*"], "AllowedMethods": ["GET"]})
    answer = preflight(stratus, f"/{bucket}/hello.txt", origin="http://random:1234")
    assert answer.status == 200
    assert answer.cors() == {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET",
        "vary": VARY,
    }


def test_preflight_for_a_method_no_rule_allows(stratus, s3, bucket):
    # opt-put: a GET-only rule refuses a PUT preflight.
    put_rules(s3, bucket, {"AllowedOrigins": [APP], "AllowedMethods": ["GET"]})
    answer = preflight(stratus, f"/{bucket}/new-key", method="PUT")
    assert answer.status == 403
    assert answer.headers["content-type"] == "application/xml"
    assert "access-control-allow-origin" not in answer.headers
    assert answer.error() == {
        "Code": "AccessForbidden",
        "Message": NOT_ALLOWED,
        "Method": "PUT",
        "ResourceType": "OBJECT",
    }


def test_preflight_for_a_header_no_rule_allows(stratus, s3, bucket):
    # opt-get-non-allowed, opt-get-allowed-diff-casing, opt-get-headers (no AllowedHeaders).
    put_rules(s3, bucket, {"AllowedOrigins": [APP], "AllowedMethods": ["GET"], "AllowedHeaders": ["x-amz-expected-bucket-owner"]})
    refused = preflight(stratus, f"/{bucket}/hello.txt", request_headers="x-amz-request-payer")
    assert refused.status == 403
    assert refused.error()["Message"] == NOT_ALLOWED
    allowed = preflight(stratus, f"/{bucket}/hello.txt", request_headers="x-AMZ-expected-BUCKET-owner")
    assert allowed.status == 200
    assert allowed.headers["access-control-allow-headers"] == "x-amz-expected-bucket-owner"
    put_rules(s3, bucket, {"AllowedOrigins": [APP], "AllowedMethods": ["GET"]})
    assert preflight(stratus, f"/{bucket}/hello.txt", request_headers="x-amz-request-payer").status == 403


def test_preflight_without_a_configuration(stratus, s3, bucket):
    # test_cors_http_options_no_config: ResourceType BUCKET even for a key; Method OPTIONS
    # when none is asked about.
    answer = preflight(stratus, f"/{bucket}/hello.txt", method="PUT")
    assert answer.status == 403
    assert answer.error() == {
        "Code": "AccessForbidden",
        "Message": "CORSResponse: CORS is not enabled for this bucket.",
        "Method": "PUT",
        "ResourceType": "BUCKET",
    }
    assert preflight(stratus, f"/{bucket}/hello.txt", method=None).error()["Method"] == "OPTIONS"
    put_rules(s3, bucket, WEB_RULE)
    s3.delete_bucket_cors(Bucket=bucket)
    assert preflight(stratus, f"/{bucket}/hello.txt").status == 403


def test_preflight_missing_headers_or_bucket(stratus, s3, bucket):
    # options-no-origin (400 even for a missing bucket), options-with-origin on a missing bucket.
    for path in (f"/{bucket}/hello.txt", f"/missing-{uuid.uuid4().hex[:8]}/key"):
        answer = preflight(stratus, path, origin=None)
        assert answer.status == 400
        assert answer.error() == {
            "Code": "BadRequest",
            "Message": "Insufficient information. Origin request header needed.",
        }
    answer = preflight(stratus, f"/missing-{uuid.uuid4().hex[:8]}/key", method=None)
    assert answer.status == 403
    assert answer.error() == {
        "Code": "AccessForbidden",
        "Message": "CORSResponse: Bucket not found",
        "Method": "OPTIONS",
        "ResourceType": "BUCKET",
    }
    # With rules but no method to evaluate them for: the answer S3-compatible stores give.
    put_rules(s3, bucket, WEB_RULE)
    answer = preflight(stratus, f"/{bucket}/hello.txt", method=None)
    assert answer.status == 400
    assert answer.error() == {"Code": "BadRequest", "Message": "Invalid Access-Control-Request-Method: null"}


def test_requests_with_an_origin_get_the_rules_headers(stratus, s3, bucket):
    # get-right-origin, get-wrong-origin, get-no-origin, get-wrong-op, get-non-allowed-with-acl.
    put_rules(s3, bucket, {"AllowedOrigins": [APP], "AllowedMethods": ["GET"], "AllowedHeaders": ["*"], "MaxAgeSeconds": 3000})
    answer = send(stratus, "GET", f"/{bucket}/hello.txt", {"Origin": APP, "x-amz-request-payer": "requester"})
    assert answer.status == 200
    assert answer.body == b"hello"
    assert answer.cors() == {
        "access-control-allow-origin": APP,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "GET",
        "access-control-max-age": "3000",
        "vary": VARY,
    }
    assert send(stratus, "GET", f"/{bucket}/hello.txt").cors() == {}
    assert send(stratus, "GET", f"/{bucket}/hello.txt", {"Origin": "http://localhost:4200"}).cors() == {}
    asks_put = {"Origin": APP, "Access-Control-Request-Method": "PUT"}
    assert send(stratus, "GET", f"/{bucket}/hello.txt", asks_put).cors() == {}
    # A PUT is no method of the rule: its answer gets no CORS headers, but it is served.
    put = send(stratus, "PUT", f"/{bucket}/other.txt", {"Origin": APP, "Content-Length": "0"})
    assert put.status == 200
    assert put.cors() == {}


def test_error_answers_get_the_rules_headers_too(stratus, s3, bucket):
    put_rules(s3, bucket, {"AllowedOrigins": ["*"], "AllowedMethods": ["GET", "HEAD"], "ExposeHeaders": ["ETag"]})
    answer = send(stratus, "GET", f"/{bucket}/missing.txt", {"Origin": APP})
    assert answer.status == 404
    assert answer.error()["Code"] == "NoSuchKey"
    assert answer.cors() == {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, HEAD",
        "access-control-expose-headers": "ETag",
        "vary": VARY,
    }
    head = send(stratus, "HEAD", f"/{bucket}/missing.txt", {"Origin": APP})
    assert head.status == 404
    assert head.headers["access-control-allow-origin"] == "*"
    # A bucket that does not exist has no rules to give.
    assert send(stratus, "GET", f"/missing-{uuid.uuid4().hex[:8]}/k", {"Origin": APP}).cors() == {}
