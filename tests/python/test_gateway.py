"""The gateway: routing, health, errors for what no service implements, shutdown."""

import http.client
import json
import os
import signal
import socket
import urllib.error
import urllib.parse
import urllib.request

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_health_endpoints(stratus):
    own = get_json(stratus.endpoint + "/_stratus/health")
    assert own["services"]["sts"] in ("available", "running")
    assert own["services"]["stepfunctions"] == "not_implemented"
    localstack = get_json(stratus.endpoint + "/_localstack/health")
    assert localstack["services"]["sts"] in ("available", "running")
    assert "stepfunctions" not in localstack["services"]
    assert "version" in localstack


def test_unimplemented_service_validates_then_answers_not_implemented(stratus):
    sfn = stratus.client("stepfunctions")
    with pytest.raises(ClientError) as err:
        sfn.describe_state_machine(stateMachineArn="")
    assert err.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as err:
        sfn.list_state_machines()
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501


def test_unknown_query_action(stratus):
    request = urllib.request.Request(
        stratus.endpoint + "/",
        data=b"Action=NoSuchThing&Version=2011-06-15",
        headers={"Content-Type": "application/x-www-form-urlencoded",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=x"},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400
    assert b"<Code>InvalidAction</Code>" in err.value.read()


def test_presigned_query_request_is_routed_and_signed_by_its_query(stratus):
    """A presigned URL carries Action, Version and the SigV4 scope (percent-encoded) in its query
    string alone: routing and caller identity come from there, as a GET."""
    sts = stratus.client("sts", aws_access_key_id="123456789012")
    url = sts.generate_presigned_url("get_caller_identity", ExpiresIn=300)
    assert "X-Amz-Credential=123456789012%2F" in url
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        body = response.read()
    assert b"<Account>123456789012</Account>" in body
    assert b"<Arn>arn:aws:iam::123456789012:root</Arn>" in body


def test_body_in_several_chunks_is_read_whole(stratus):
    """A body that arrives in pieces (chunked transfer encoding, two chunks) is joined before
    it is decoded."""
    host, port = stratus.endpoint.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.putrequest("POST", "/")
    conn.putheader("Content-Type", "application/x-www-form-urlencoded")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.putheader("Authorization", "AWS4-HMAC-SHA256 Credential=123456789012/20240101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=x")
    conn.endheaders()
    for piece in (b"Action=GetCallerIdentity&", b"Version=2011-06-15"):
        conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
    conn.send(b"0\r\n\r\n")
    response = conn.getresponse()
    body = response.read()
    assert response.status == 200, body
    assert b"<Account>123456789012</Account>" in body


def test_form_body_with_bytes_that_are_not_utf8_is_refused_by_its_service(stratus):
    """One pair that is not UTF-8 does not hide the Action beside it: the request reaches STS,
    whose Query protocol refuses the body in its own error shape."""
    request = urllib.request.Request(
        stratus.endpoint + "/",
        data=b"Action=GetCallerIdentity&Version=2011-06-15&Bad=\xff\xfe",
        headers={"Content-Type": "application/x-www-form-urlencoded",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=x"},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    body = err.value.read()
    # AWS's common errors list MalformedQueryString with HTTP status 404.
    assert err.value.code == 404, body
    assert b'<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">' in body
    assert b"<Code>MalformedQueryString</Code>" in body


def test_sigterm_exits_cleanly():
    server = Stratus("--ephemeral")
    server.client("sts").get_caller_identity()
    assert server.stop(signal.SIGTERM) == 0


def test_sigterm_exits_while_a_client_holds_a_refused_upload_open():
    """A streamed upload refused before its body is read (here: its bucket does not exist) is
    answered at once; the connection is then closed, not held for a body that the client
    (one that waits for `100 Continue`, as botocore does) will never send — so it cannot
    hold shutdown either."""
    server = Stratus("--ephemeral")
    conn = socket.create_connection(("127.0.0.1", urllib.parse.urlparse(server.endpoint).port), timeout=10)
    conn.sendall(
        b"PUT /no-such-bucket/large HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3145728\r\n"
        b"Expect: 100-continue\r\nx-amz-content-sha256: UNSIGNED-PAYLOAD\r\n\r\n"
    )
    assert conn.recv(4096).startswith(b"HTTP/1.1 404 ")  # not `100 Continue` first
    assert server.stop(signal.SIGTERM) == 0
    conn.close()


def test_services_flag_limits_what_is_served():
    server = Stratus("--ephemeral", "--services", "sts")
    try:
        services = get_json(server.endpoint + "/_stratus/health")["services"]
        assert list(services) == ["sts"]
    finally:
        server.stop()


def test_no_wakeups_while_idle():
    """An idle server does nothing: no timers, no tickers (its threads stay asleep)."""
    import time

    server = Stratus("--ephemeral")
    try:
        client = server.client("sts")
        client.get_caller_identity()
        client.close()  # no client connection left to come and go during the measurement
        pid = server.proc.pid

        def switches():
            total = 0
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/status") as status:
                    for line in status:
                        if line.startswith("voluntary_ctxt_switches"):
                            total += int(line.split()[1])
            return total

        time.sleep(0.5)  # let the workers finish the request and park
        before = switches()
        time.sleep(2)
        assert switches() - before == 0
    finally:
        server.stop()


def post(stratus, body, headers):
    request = urllib.request.Request(stratus.endpoint + "/", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


SIGNED_STS = "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=x"


def test_body_too_large(stratus):
    status, _, body = post(stratus, b"Action=GetCallerIdentity&" + b"x" * (17 << 20),
                           {"Content-Type": "application/x-www-form-urlencoded", "Authorization": SIGNED_STS})
    assert status == 413
    assert b"RequestEntityTooLarge" in body


def test_malformed_json_body(stratus):
    status, headers, body = post(stratus, b'{"TableName": ', {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.DescribeTable",
    })
    assert status == 400
    assert json.loads(body)["__type"].endswith("SerializationException")
    assert len({k.lower(): v for k, v in headers.items()}["x-amzn-requestid"]) == 36


def test_query_value_of_the_wrong_type(stratus):
    status, _, body = post(
        stratus,
        b"Action=AssumeRole&Version=2011-06-15&RoleArn=arn:aws:iam::123456789012:role/r&RoleSessionName=ss&DurationSeconds=soon",
        {"Content-Type": "application/x-www-form-urlencoded", "Authorization": SIGNED_STS},
    )
    assert status == 400
    assert b"<Code>InvalidQueryParameter</Code>" in body
    assert b"<RequestId>" in body


def test_the_clock_moves_only_when_manual(stratus):
    assert get_json(stratus.endpoint + "/_stratus/clock")["manual"] is False
    with pytest.raises(urllib.error.HTTPError) as refused:
        stratus.advance(60)
    assert refused.value.code == 403
    assert b"--clock manual" in refused.value.read()

    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        before = server.now()
        assert server.advance(86_400.5)["epochMillis"] == round((before + 86_400.5) * 1000)
        with pytest.raises(urllib.error.HTTPError) as bad:
            server.advance(-1)
        assert bad.value.code == 400
    finally:
        server.stop()


def test_deep_json_is_refused_as_a_serialization_error(stratus):
    deep = b'{"TableName":"t","ExclusiveStartKey":{"k":{"M":' + b'{"a":{"M":' * 200 + b"{}" + b"}}" * 200 + b"}}}"
    status, _, body = post(stratus, deep, {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.Scan",
    })
    assert status == 400
    assert json.loads(body)["__type"].endswith("SerializationException")


@pytest.mark.parametrize("document", [
    # An entity that would expand a thousandfold, and an external one.
    b'<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    b"<Tagging><TagSet><Tag><Key>&b;</Key><Value>v</Value></Tag></TagSet></Tagging>",
    b'<?xml version="1.0"?><!DOCTYPE t SYSTEM "file:///etc/passwd">'
    b"<Tagging><TagSet><Tag><Key>&xxe;</Key><Value>v</Value></Tag></TagSet></Tagging>",
])
def test_xml_with_a_doctype_is_malformed_xml(stratus, document):
    s3 = stratus.client("s3")
    s3.create_bucket(Bucket="doctype")
    request = urllib.request.Request(
        stratus.endpoint + "/doctype?tagging", data=document, method="PUT",
        headers={"Content-Type": "application/xml",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=x",
                 "x-amz-content-sha256": "UNSIGNED-PAYLOAD"},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400
    assert b"<Code>MalformedXML</Code>" in err.value.read()
