"""S3's static website endpoint (`<bucket>.s3-website…` hosts), driven with plain HTTP after
boto3 configured the buckets. What AWS does is documented in the S3 user guide's "Hosting a
static website" chapters (index documents, custom error documents, redirects, routing rules)."""

import http.client
import urllib.parse
import uuid

import pytest


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def site(s3):
    """A bucket with an index and an error document, and its website host."""
    name = f"site-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_website(
        Bucket=name,
        WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "oops.html"}},
    )
    return name


def host_of(bucket, stratus, style="localstack"):
    port = urllib.parse.urlparse(stratus.endpoint).port
    return {
        "localstack": f"{bucket}.s3-website.localhost.localstack.cloud:{port}",
        "dash-region": f"{bucket}.s3-website-us-east-1.amazonaws.com",
        "dot-region": f"{bucket}.s3-website.eu-west-1.amazonaws.com",
    }[style]


def visit(stratus, bucket, path="/", method="GET", headers=None, style="localstack"):
    """One unsigned request to the bucket's website host: (status, headers, body)."""
    address = urllib.parse.urlparse(stratus.endpoint)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    conn.request(method, path, headers={"Host": host_of(bucket, stratus, style), **(headers or {})})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def put(s3, bucket, key, body=b"", **extra):
    return s3.put_object(Bucket=bucket, Key=key, Body=body, **extra)


@pytest.mark.parametrize("style", ["localstack", "dash-region", "dot-region"])
def test_the_index_document_answers_the_root_on_every_host_form(stratus, s3, site, style):
    put(s3, site, "index.html", b"<h1>home</h1>", ContentType="text/html")
    status, headers, body = visit(stratus, site, "/", style=style)
    assert (status, body) == (200, b"<h1>home</h1>")
    assert headers["content-type"] == "text/html"
    assert headers["server"] == "AmazonS3" and headers["x-amz-request-id"]


def test_objects_come_with_their_headers_and_conditions(stratus, s3, site):
    put_answer = put(
        s3, site, "app.js", b"console.log(1)", ContentType="application/javascript", CacheControl="max-age=60",
        Metadata={"build": "7"},
    )
    status, headers, body = visit(stratus, site, "/app.js")
    assert (status, body) == (200, b"console.log(1)")
    assert headers["etag"] == put_answer["ETag"]
    assert headers["cache-control"] == "max-age=60" and headers["x-amz-meta-build"] == "7"
    assert headers["last-modified"].endswith(" GMT")

    assert visit(stratus, site, "/app.js", headers={"If-None-Match": put_answer["ETag"]})[0] == 304
    assert visit(stratus, site, "/app.js", headers={"If-Match": '"not-it"'})[0] == 412
    status, headers, body = visit(stratus, site, "/app.js", headers={"Range": "bytes=0-6"})
    assert (status, body, headers["content-range"]) == (206, b"console", "bytes 0-6/14")

    status, headers, body = visit(stratus, site, "/app.js", method="HEAD")
    assert (status, body, headers["etag"]) == (200, b"", put_answer["ETag"])


def test_a_directory_gets_its_index_and_a_slash(stratus, s3, site):
    put(s3, site, "docs/index.html", b"docs home")
    assert visit(stratus, site, "/docs/")[0::2] == (200, b"docs home")
    status, headers, body = visit(stratus, site, "/docs")
    assert (status, headers["location"], body) == (302, "/docs/", b"")


def test_the_error_document_answers_what_is_missing_with_404(stratus, s3, site):
    oops = put(s3, site, "oops.html", b"not here", ContentType="text/html")
    status, headers, body = visit(stratus, site, "/missing/page.html")
    assert (status, body, headers["etag"]) == (404, b"not here", oops["ETag"])


def test_without_its_error_document_the_page_says_both_failures(stratus, s3, site):
    status, headers, body = visit(stratus, site, "/gone/")
    page = body.decode()
    assert status == 404 and headers["content-type"] == "text/html; charset=utf-8"
    assert page.startswith("<html>\n<head><title>404 Not Found</title></head>")
    assert "<li>Code: NoSuchKey</li>\n<li>Message: The specified key does not exist.</li>\n<li>Key: gone/index.html</li>" in page
    custom = page.split("<h3>An Error Occurred While Attempting to Retrieve a Custom Error Document</h3>")[1]
    assert "<li>Key: oops.html</li>" in custom


def test_buckets_without_a_site_and_missing_buckets(stratus, s3):
    plain = f"plain-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=plain)
    status, _, body = visit(stratus, plain)
    assert status == 404
    assert b"<li>Code: NoSuchWebsiteConfiguration</li>" in body and f"<li>BucketName: {plain}</li>".encode() in body
    status, _, body = visit(stratus, "never-made-" + uuid.uuid4().hex[:8], "/a.html")
    assert status == 404 and b"<li>Code: NoSuchBucket</li>" in body


def test_only_reads_are_served(stratus, site):
    status, _, body = visit(stratus, site, "/", method="DELETE")
    assert status == 405
    assert b"<li>Code: MethodNotAllowed</li>" in body and b"<li>Method: DELETE</li>" in body
    assert b"<li>ResourceType: OBJECT</li>" in body


def test_an_objects_own_redirect(stratus, s3, site):
    put(s3, site, "old.html", WebsiteRedirectLocation="/new.html")
    status, headers, _ = visit(stratus, site, "/old.html")
    assert (status, headers["location"]) == (301, "/new.html")


def test_routing_rules_come_before_object_redirects_and_after_errors(stratus, s3):
    bucket = f"rules-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_website(
        Bucket=bucket,
        WebsiteConfiguration={
            "IndexDocument": {"Suffix": "index.html"},
            "RoutingRules": [
                {"Condition": {"KeyPrefixEquals": "blog/"}, "Redirect": {"ReplaceKeyPrefixWith": "posts/"}},
                {"Condition": {"KeyPrefixEquals": "ext/"}, "Redirect": {"HostName": "example.org", "Protocol": "https", "HttpRedirectCode": "307"}},
                {"Condition": {"KeyPrefixEquals": "index"}, "Redirect": {"ReplaceKeyWith": "never.html"}},
                {"Condition": {"HttpErrorCodeReturnedEquals": "404"}, "Redirect": {"ReplaceKeyWith": "404.html"}},
            ],
        },
    )
    put(s3, bucket, "blog/a b.html", WebsiteRedirectLocation="/ignored.html")
    put(s3, bucket, "index.html", b"home")
    host = host_of(bucket, stratus)

    status, headers, _ = visit(stratus, bucket, "/blog/a%20b.html")
    assert (status, headers["location"]) == (301, f"http://{host}/posts/a%20b.html")
    status, headers, _ = visit(stratus, bucket, "/ext/x")
    assert (status, headers["location"]) == (307, "https://example.org/ext/x")
    # The root's key is empty: a prefix rule on the index document's name does not take it.
    assert visit(stratus, bucket, "/")[0::2] == (200, b"home")
    status, headers, _ = visit(stratus, bucket, "/nothing")
    assert (status, headers["location"]) == (301, f"http://{host}/404.html")


def test_a_bucket_can_redirect_every_request(stratus, s3):
    bucket = f"moved-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_website(
        Bucket=bucket,
        WebsiteConfiguration={"RedirectAllRequestsTo": {"HostName": "www.example.com", "Protocol": "https"}},
    )
    status, headers, body = visit(stratus, bucket, "/some/page")
    assert (status, headers["location"], body) == (301, "https://www.example.com/some/page", b"")


def test_the_site_goes_with_its_configuration(stratus, s3, site):
    put(s3, site, "index.html", b"home")
    assert visit(stratus, site)[0] == 200
    s3.delete_bucket_website(Bucket=site)
    status, _, body = visit(stratus, site)
    assert status == 404 and b"NoSuchWebsiteConfiguration" in body
