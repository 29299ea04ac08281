"""Signature verification (`--verify-signatures`): requests signed with a secret Stratus knows
are served, every other is refused with AWS's error in its protocol.

Known secrets: `test`/`test` (and a 12-digit account id with `test`), IAM users' access
keys, and STS's sessions with their session token.
"""

import http.client
import json
import os
import subprocess
import sys
import urllib.parse

import pytest
import requests
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
DEFAULT = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
WRONG = {"aws_access_key_id": "test", "aws_secret_access_key": "not-the-secret"}
UNKNOWN = {"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
TRUST_EVERYONE = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
)


@pytest.fixture(scope="module")
def stratus():
    # A manual clock, so that the server can be moved away from the signer's time.
    server = Stratus("--ephemeral", "--verify-signatures", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bucket(stratus):
    stratus.client("s3", **DEFAULT).create_bucket(Bucket="signed")
    return "signed"


CALLS = {
    "sts": lambda c: c.get_caller_identity(),
    "sqs": lambda c: c.list_queues(),
    "dynamodb": lambda c: c.list_tables(),
    "s3": lambda c: c.list_buckets(),
    "iam": lambda c: c.list_users(),
}


def refusal(call, client):
    with pytest.raises(ClientError) as err:
        call(client)
    response = err.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"], response


@pytest.mark.parametrize("service", sorted(CALLS))
def test_the_default_key_signs_for_every_service(stratus, service):
    CALLS[service](stratus.client(service, **DEFAULT))
    # A 12-digit key is an account's, with the same secret.
    CALLS[service](stratus.client(service, aws_access_key_id="111111111111", aws_secret_access_key="test"))


@pytest.mark.parametrize(
    "service, code, status",
    [
        ("sts", "SignatureDoesNotMatch", 403),
        ("iam", "SignatureDoesNotMatch", 403),
        ("sqs", "SignatureDoesNotMatch", 403),
        ("dynamodb", "InvalidSignatureException", 400),
        ("s3", "SignatureDoesNotMatch", 403),
    ],
)
def test_a_wrong_secret_is_refused(stratus, service, code, status):
    assert refusal(CALLS[service], stratus.client(service, **WRONG))[:2] == (code, status)


def test_s3_shows_what_it_signed_when_a_signature_does_not_match(stratus):
    _, _, response = refusal(CALLS["s3"], stratus.client("s3", **WRONG))
    error = response["Error"]
    assert error["AWSAccessKeyId"] == "test"
    assert error["StringToSign"].startswith("AWS4-HMAC-SHA256\n")
    assert error["CanonicalRequest"].startswith("GET\n/\n")


@pytest.mark.parametrize(
    "service, code, status",
    [
        ("sts", "InvalidClientTokenId", 403),
        ("sqs", "InvalidClientTokenId", 403),
        ("dynamodb", "UnrecognizedClientException", 400),
        ("s3", "InvalidAccessKeyId", 403),
    ],
)
def test_a_key_stratus_does_not_know_is_refused(stratus, service, code, status):
    assert refusal(CALLS[service], stratus.client(service, **UNKNOWN))[:2] == (code, status)


def test_an_iam_users_key_signs_with_its_secret(stratus):
    iam = stratus.client("iam", **DEFAULT)
    iam.create_user(UserName="signer")
    key = iam.create_access_key(UserName="signer")["AccessKey"]
    sts = stratus.client("sts", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    assert sts.get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/signer"
    forged = stratus.client("sts", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key="x" * 40)
    assert refusal(CALLS["sts"], forged)[0] == "SignatureDoesNotMatch"


def test_a_session_signs_only_with_its_token(stratus):
    stratus.client("iam", **DEFAULT).create_role(RoleName="signed-role", AssumeRolePolicyDocument=TRUST_EVERYONE)
    creds = stratus.client("sts", **DEFAULT).assume_role(
        RoleArn=f"arn:aws:iam::{ACCOUNT}:role/signed-role", RoleSessionName="signed-session"
    )["Credentials"]
    secret = {"aws_access_key_id": creds["AccessKeyId"], "aws_secret_access_key": creds["SecretAccessKey"]}
    with_token = stratus.client("sqs", aws_session_token=creds["SessionToken"], **secret)
    with_token.list_queues()
    assert refusal(CALLS["sqs"], stratus.client("sqs", **secret))[:2] == ("InvalidClientTokenId", 403)
    assert refusal(CALLS["s3"], stratus.client("s3", **secret))[:2] == ("InvalidToken", 400)
    wrong_token = stratus.client("sqs", aws_session_token=creds["SessionToken"][:-4] + "AAAA", **secret)
    assert refusal(CALLS["sqs"], wrong_token)[0] == "InvalidClientTokenId"


def test_unsigned_requests_are_served_only_where_aws_serves_them(stratus, bucket):
    # SQS's query protocol, unsigned.
    answer = requests.post(stratus.endpoint, data={"Action": "ListQueues", "Version": "2012-11-05"})
    assert answer.status_code == 403
    assert "<Code>MissingAuthenticationToken</Code>" in answer.text
    answer = requests.post(
        stratus.endpoint,
        headers={"X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"},
        data="{}",
    )
    assert answer.status_code == 400
    assert answer.json()["__type"] == "com.amazon.coral.service#MissingAuthenticationTokenException"
    # S3 serves an anonymous caller (whom only bucket policies could refuse).
    assert requests.get(f"{stratus.endpoint}/{bucket}").status_code == 200
    # STS's web identity federation is unsigned by design (its model has no auth scheme).
    answer = requests.post(
        stratus.endpoint,
        data={
            "Action": "AssumeRoleWithWebIdentity",
            "Version": "2011-06-15",
            "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/none",
            "RoleSessionName": "web",
            "WebIdentityToken": "x" * 20,
        },
    )
    assert "MissingAuthenticationToken" not in answer.text


def with_param(url, name, edit):
    """`url` with its query parameter `name` replaced by `edit(value)`."""
    parts = urllib.parse.urlsplit(url)
    query = [(k, edit(v) if k == name else v) for k, v in urllib.parse.parse_qsl(parts.query)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


@pytest.mark.parametrize("version, param", [("s3v4", "X-Amz-Signature"), ("s3", "Signature")])
def test_presigned_urls_verify(stratus, bucket, version, param):
    s3 = stratus.client("s3", signature_version=version, **DEFAULT)
    s3.put_object(Bucket=bucket, Key="report.txt", Body=b"quarterly")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "report.txt"}, ExpiresIn=60)
    assert requests.get(url).content == b"quarterly"
    tampered = with_param(url, param, lambda sig: ("0" if sig[0] != "0" else "1") + sig[1:])
    answer = requests.get(tampered)
    assert answer.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in answer.text
    assert "<Code>SignatureDoesNotMatch</Code>" in requests.get(url.replace("report.txt", "other.txt")).text


def test_sigv2_signs_s3(stratus, bucket):
    s3 = stratus.client("s3", signature_version="s3", **DEFAULT)
    s3.put_object(Bucket=bucket, Key="v2.txt", Body=b"two")
    assert s3.get_object(Bucket=bucket, Key="v2.txt")["Body"].read() == b"two"
    wrong = stratus.client("s3", signature_version="s3", **WRONG)
    assert refusal(lambda c: c.get_object(Bucket=bucket, Key="v2.txt"), wrong)[:2] == ("SignatureDoesNotMatch", 403)


def test_the_body_must_match_its_signed_hash(stratus, bucket):
    s3 = stratus.client("s3", **DEFAULT)

    def swap_body(request, **_):
        request.body = b"something else"

    s3.meta.events.register_first("before-send.s3.PutObject", swap_body)
    code, status, _ = refusal(lambda c: c.put_object(Bucket=bucket, Key="swapped", Body=b"original"), s3)
    assert (code, status) == ("XAmzContentSHA256Mismatch", 400)


def test_sigv4a_is_refused_by_name(stratus, bucket):
    host = urllib.parse.urlparse(stratus.endpoint).netloc
    conn = http.client.HTTPConnection(host, timeout=10)
    conn.request(
        "GET",
        f"/{bucket}",
        headers={
            "Authorization": "AWS4-ECDSA-P256-SHA256 Credential=test/20260101/s3/aws4_request, "
            "SignedHeaders=host;x-amz-date;x-amz-region-set, Signature=3045",
            "x-amz-date": "20260101T000000Z",
            "x-amz-region-set": "*",
            "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        },
    )
    answer = conn.getresponse()
    assert answer.status == 501
    assert b"SigV4a" in answer.read()


def test_a_large_upload_streams_with_its_signature_verified(stratus, bucket):
    body = os.urandom(3 << 20)
    stratus.client("s3", **DEFAULT).put_object(Bucket=bucket, Key="large", Body=body)
    assert stratus.client("s3", **DEFAULT).get_object(Bucket=bucket, Key="large")["Body"].read() == body
    assert refusal(lambda c: c.put_object(Bucket=bucket, Key="large2", Body=body), stratus.client("s3", **WRONG))[0] == (
        "SignatureDoesNotMatch"
    )


def test_the_aws_cli_signs_with_the_default_pair(stratus, bucket, tmp_path):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PAGER": "",
    }
    source = tmp_path / "upload.bin"
    source.write_bytes(os.urandom(9 << 20))  # multipart, in aws-chunked parts
    run = lambda *args: subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, *args], capture_output=True, text=True, env=env, timeout=120
    )
    done = run("s3", "cp", str(source), f"s3://{bucket}/cli.bin")
    assert done.returncode == 0, done.stderr
    done = run("sts", "get-caller-identity")
    assert done.returncode == 0 and json.loads(done.stdout)["Account"] == ACCOUNT
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "sts", "get-caller-identity"],
        capture_output=True,
        text=True,
        env={**env, "AWS_SECRET_ACCESS_KEY": "wrong"},
        timeout=60,
    )
    assert done.returncode != 0 and "SignatureDoesNotMatch" in done.stderr


def signed_chunked_put(stratus, bucket, key, chunks, secret="test", tamper=None):
    """PUT `chunks` as a SigV4 streaming (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) upload, signed by
    hand as the S3 API Reference's "Signature Calculations … in Multiple Chunks" describes;
    `tamper(i, data)` may change chunk `i`'s data after it is signed."""
    import datetime
    import hashlib
    import hmac

    sha = lambda data: hashlib.sha256(data).hexdigest()
    mac = lambda k, msg: hmac.new(k, msg.encode(), hashlib.sha256).digest()
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    scope = f"{day}/us-east-1/s3/aws4_request"
    signing_key = mac(mac(mac(mac(f"AWS4{secret}".encode(), day), "us-east-1"), "s3"), "aws4_request")
    host = urllib.parse.urlparse(stratus.endpoint).netloc
    frames = [c for c in chunks] + [b""]
    encoded_length = sum(len(f"{len(c):x};chunk-signature=") + 64 + 4 + len(c) for c in frames)
    headers = {
        "host": host,
        "content-encoding": "aws-chunked",
        "content-length": str(encoded_length),
        "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        "x-amz-date": amz_date,
        "x-amz-decoded-content-length": str(sum(len(c) for c in chunks)),
    }
    names = sorted(headers)
    canonical = "\n".join(
        ["PUT", f"/{bucket}/{key}", ""]
        + [f"{n}:{headers[n]}" for n in names]
        + ["", ";".join(names), "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"]
    )
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{sha(canonical.encode())}"
    previous = hmac.new(signing_key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential=test/{scope}, SignedHeaders={';'.join(names)}, Signature={previous}"
    )
    body = b""
    for i, data in enumerate(frames):
        chunk_to_sign = "\n".join(
            ["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, previous, sha(b""), sha(data)]
        )
        previous = hmac.new(signing_key, chunk_to_sign.encode(), hashlib.sha256).hexdigest()
        sent = tamper(i, data) if tamper else data
        body += f"{len(sent):x};chunk-signature={previous}\r\n".encode() + sent + b"\r\n"
    conn = http.client.HTTPConnection(host, timeout=30)
    conn.request("PUT", f"/{bucket}/{key}", body=body, headers={k: v for k, v in headers.items() if k != "host"})
    answer = conn.getresponse()
    return answer.status, answer.read()


def test_signed_chunks_are_checked_one_by_one(stratus, bucket):
    chunks = [os.urandom(64 * 1024), os.urandom(1000)]
    status, _ = signed_chunked_put(stratus, bucket, "chunked", chunks)
    assert status == 200
    got = stratus.client("s3", **DEFAULT).get_object(Bucket=bucket, Key="chunked")["Body"].read()
    assert got == b"".join(chunks)
    # The same upload with the second chunk changed after signing is refused, and not stored.
    flip = lambda i, data: bytes([data[0] ^ 1]) + data[1:] if i == 1 else data
    status, text = signed_chunked_put(stratus, bucket, "tampered", chunks, tamper=flip)
    assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in text
    assert refusal(lambda c: c.head_object(Bucket=bucket, Key="tampered"), stratus.client("s3", **DEFAULT))[1] == 404


# Last: it moves the server's clock away from the signers'.
def test_a_request_far_from_the_servers_time_is_refused(stratus, bucket):
    url = stratus.client("s3", **DEFAULT).generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": "report.txt"}, ExpiresIn=60
    )
    stratus.advance(16 * 60)
    expired = requests.get(url)
    assert expired.status_code == 403 and "<Message>Request has expired</Message>" in expired.text
    assert refusal(CALLS["s3"], stratus.client("s3", **DEFAULT))[:2] == ("RequestTimeTooSkewed", 403)
    code, status, response = refusal(CALLS["sts"], stratus.client("sts", **DEFAULT))
    assert (code, status) == ("SignatureDoesNotMatch", 403)
    assert response["Error"]["Message"].startswith("Signature expired:")
