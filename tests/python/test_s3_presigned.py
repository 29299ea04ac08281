"""Presigned S3 URLs (SigV4 and SigV2) through boto3 and plain HTTP: they work until they
expire, then AWS's refusal (S3 API reference, "Authenticating Requests: Using Query
Parameters"; signatures themselves are not verified)."""

import time
import urllib.error
import urllib.request
import uuid
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

import pytest
from botocore.handlers import validate_ascii_metadata

from conftest import Stratus


@pytest.fixture
def s3(stratus):
    return stratus.client("s3", signature_version="s3v4")


@pytest.fixture
def bucket(s3):
    name = f"presign-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="k", Body=b"presigned body")
    return name


def fetch(url, method="GET", data=None):
    """The status and body of a request to `url`, error statuses included."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method, data=data)) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def with_query(url, **changes):
    parts = urlparse(url)
    query = dict(parse_qsl(parts.query))
    query.update(changes)
    return urlunparse(parts._replace(query=urlencode(query)))


def test_sigv4_presigned_urls_work_until_they_expire():
    # The server's clock moves only when told; it starts at the time the URLs are signed at.
    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        s3 = server.client("s3", signature_version="s3v4")
        s3.create_bucket(Bucket="presign-expiry")
        s3.put_object(Bucket="presign-expiry", Key="k", Body=b"presigned body")
        params = {"Bucket": "presign-expiry", "Key": "k"}
        url = s3.generate_presigned_url("get_object", Params=params, ExpiresIn=3600)
        assert "X-Amz-Expires=3600" in url
        assert fetch(url) == (200, b"presigned body")
        short = s3.generate_presigned_url("get_object", Params=params, ExpiresIn=60)
        assert fetch(short) == (200, b"presigned body")
        server.advance(120)
        assert fetch(url)[0] == 200
        status, body = fetch(short)
    finally:
        server.stop()
    assert status == 403
    assert b"<Code>AccessDenied</Code>" in body and b"Request has expired" in body


def test_sigv2_presigned_urls_expire_too(stratus, bucket):
    v2 = stratus.client("s3", signature_version="s3")
    url = v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=300)
    assert "AWSAccessKeyId=" in url and "Expires=" in url
    assert fetch(url) == (200, b"presigned body")
    expired = with_query(url, Expires=str(int(time.time()) - 10))
    status, body = fetch(expired)
    assert (status, b"Request has expired" in body) == (403, True)


def test_presigned_uploads_and_bad_expiry_parameters(s3, bucket):
    put = s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "up"}, ExpiresIn=60)
    assert fetch(put, method="PUT", data=b"uploaded")[0] == 200
    assert s3.get_object(Bucket=bucket, Key="up")["Body"].read() == b"uploaded"
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=60)
    for value, message in [
        ("604801", b"X-Amz-Expires must be less than a week (in seconds) that is 604800"),
        ("soon", b"X-Amz-Expires should be a number"),
    ]:
        status, body = fetch(with_query(url, **{"X-Amz-Expires": value}))
        assert status == 400
        assert b"<Code>AuthorizationQueryParametersError</Code>" in body and message in body


def test_sigv2_presigned_puts_take_metadata_from_the_query(stratus, bucket):
    # botocore's `s3` (SigV2) signer carries x-amz-meta-* in the query string; S3 reads them
    # as the upload's headers, even values that are not ASCII (answered RFC 2047-encoded).
    v2 = stratus.client("s3", signature_version="s3")
    v2.meta.events.unregister("before-parameter-build.s3.PutObject", validate_ascii_metadata)
    url = v2.generate_presigned_url(
        "put_object", Params={"Bucket": bucket, "Key": "meta", "Metadata": {"colour": "blue", "word": "café"}}
    )
    assert "x-amz-meta-colour=blue" in url
    assert fetch(url, method="PUT", data=b"x")[0] == 200
    head = stratus.client("s3").head_object(Bucket=bucket, Key="meta")
    assert head["Metadata"] == {"colour": "blue", "word": "=?UTF-8?Q?caf=C3=A9?="}


def test_overrides_that_are_not_latin_1_are_refused(s3, bucket):
    url = s3.generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": "k", "ResponseCacheControl": "max-age=1 — long"}
    )
    status, body = fetch(url)
    assert status == 400
    assert b"<Code>InvalidArgument</Code>" in body
    assert b"<Message>Header value cannot be represented using ISO-8859-1.</Message>" in body
    assert b"<ArgumentName>response-cache-control</ArgumentName>" in body


def test_presigned_urls_may_carry_their_conditions(stratus, bucket):
    # A SigV4 presigned URL can sign If-None-Match as a query parameter (botocore's
    # S3SigV4QueryAuth does when asked); S3 applies it as the header.
    import botocore.auth
    import botocore.awsrequest
    import botocore.credentials

    def presigned(key, **params):
        request = botocore.awsrequest.AWSRequest(method="PUT", url=f"{stratus.endpoint}/{bucket}/{key}", params=params)
        credentials = botocore.credentials.Credentials("AKIAIOSFODNN7EXAMPLE", "secret")
        botocore.auth.S3SigV4QueryAuth(credentials, "s3", "us-east-1").add_auth(request)
        return request.url

    url = presigned("once", **{"If-None-Match": "*"})
    assert fetch(url, method="PUT", data=b"first")[0] == 200
    assert fetch(url, method="PUT", data=b"second")[0] == 412


def test_a_mangled_presigned_credential_is_refused(s3, bucket):
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}).replace("%2F", "%252F")
    status, body = fetch(url)
    assert status == 400
    assert b"<Code>AuthorizationQueryParametersError</Code>" in body
    assert b"Error parsing the X-Amz-Credential parameter; the Credential is mal-formed" in body
