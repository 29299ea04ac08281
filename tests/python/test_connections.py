"""Connections under abuse: clients that stall, idle, flood or send oversized heads are timed
out, held back or refused as AWS refuses them, and none of them can hold shutdown.

The module's server runs with one-second timeouts so no test waits long; the connection cap and
shutdown need servers of their own.
"""

import json
import signal
import socket
import time
import urllib.parse

import pytest

from conftest import Stratus

TIMEOUT = 1.0


@pytest.fixture(scope="module")
def stratus():
    server = Stratus(
        "--ephemeral",
        "--idle-timeout", str(TIMEOUT),
        "--header-read-timeout", str(TIMEOUT),
        "--body-idle-timeout", str(TIMEOUT),
    )
    yield server
    server.stop()


def connect(server):
    port = urllib.parse.urlparse(server.endpoint).port
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def read_response(conn):
    """One response (head and Content-Length body) from `conn`: (status, head, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        assert chunk, f"connection closed mid-response: {data!r}"
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    while len(body) < length:
        chunk = conn.recv(65536)
        assert chunk, "connection closed mid-body"
        body += chunk
    return int(head.split(b" ", 2)[1]), head.decode("latin-1").lower(), body


def seconds_until_closed(conn):
    """Waits for the server to close `conn`; returns how long that took."""
    start = time.monotonic()
    while conn.recv(65536):
        pass
    return time.monotonic() - start


HEALTH = b"GET /_stratus/health HTTP/1.1\r\nHost: localhost\r\n\r\n"


def test_a_connection_that_sends_nothing_is_closed_after_the_idle_timeout(stratus):
    with connect(stratus) as conn:
        assert TIMEOUT * 0.8 < seconds_until_closed(conn) < TIMEOUT * 3


def test_a_stalled_head_is_closed_after_the_header_read_timeout(stratus):
    with connect(stratus) as conn:
        conn.sendall(b"GET /_stratus/health HTTP/1.1\r\nHost: local")
        assert TIMEOUT * 0.8 < seconds_until_closed(conn) < TIMEOUT * 3


def test_an_idle_kept_alive_connection_is_closed_and_a_busy_one_is_not(stratus):
    with connect(stratus) as conn:
        # Requests closer together than the idle timeout keep the connection.
        for _ in range(4):
            conn.sendall(HEALTH)
            assert read_response(conn)[0] == 200
            time.sleep(TIMEOUT / 2)
        assert TIMEOUT * 0.3 < seconds_until_closed(conn) < TIMEOUT * 3


def test_a_long_poll_outlasts_the_idle_timeout(stratus):
    """A request in flight is no idle connection: SQS's 2 s wait is answered in full."""
    sqs = stratus.client("sqs")
    url = sqs.create_queue(QueueName="long-poll")["QueueUrl"]
    start = time.monotonic()
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2)
    assert time.monotonic() - start >= 1.9


def test_a_stalled_body_is_answered_request_timeout_and_closed(stratus):
    """S3 answers an upload that stops arriving `RequestTimeout` (400) and closes the
    connection (`Connection: close`)."""
    with connect(stratus) as conn:
        conn.sendall(
            b"PUT /bucket/key HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n"
            b"x-amz-content-sha256: UNSIGNED-PAYLOAD\r\n\r\n" + b"x" * 10
        )
        start = time.monotonic()
        status, head, body = read_response(conn)
        assert TIMEOUT * 0.8 < time.monotonic() - start < TIMEOUT * 3
        assert status == 400, body
        assert b"<Code>RequestTimeout</Code>" in body
        assert "connection: close" in head
        assert seconds_until_closed(conn) < TIMEOUT


def refused_head(stratus, request):
    with connect(stratus) as conn:
        conn.sendall(request)
        status, head, body = read_response(conn)
        assert "connection: close" in head
        return status, body


def test_oversized_headers_are_refused_as_s3_refuses_them(stratus):
    # S3's limit on a request's header section is 8 KiB (RequestHeaderSectionTooLarge, 400).
    big = b"x-amz-meta-big: " + b"v" * 8200 + b"\r\n"
    status, body = refused_head(stratus, b"GET /bucket HTTP/1.1\r\nHost: localhost\r\n" + big + b"\r\n")
    assert status == 400
    assert b"<Code>RequestHeaderSectionTooLarge</Code>" in body


def test_an_oversized_uri_is_refused_likewise(stratus):
    # S3 counts query parameters in the header section.
    uri = b"/bucket?prefix=" + b"p" * 8200
    status, body = refused_head(stratus, b"GET " + uri + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert status == 400
    assert b"<Code>RequestHeaderSectionTooLarge</Code>" in body


def test_too_many_headers_are_refused_in_the_protocol_of_the_service(stratus):
    headers = b"".join(b"x-h%d: v\r\n" % i for i in range(120))
    status, body = refused_head(
        stratus,
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n" + headers + b"\r\n{}",
    )
    assert status == 400
    assert json.loads(body)["__type"].endswith("#RequestHeaderSectionTooLarge")


def test_far_too_many_headers_close_the_connection_before_the_request_is_read(stratus):
    headers = b"".join(b"x-h%d: v\r\n" % i for i in range(400))
    with connect(stratus) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n" + headers + b"\r\n")
        status, _, _ = read_response(conn)
        assert status == 431
        assert seconds_until_closed(conn) < TIMEOUT


def test_connections_past_the_cap_wait_for_a_free_slot():
    server = Stratus("--ephemeral", "--max-connections", "2", "--idle-timeout", "30")
    try:
        held = [connect(server), connect(server)]
        time.sleep(0.2)  # both accepted
        with connect(server) as waiting:
            waiting.sendall(HEALTH)
            waiting.settimeout(0.5)
            with pytest.raises(socket.timeout):
                waiting.recv(1)
            held.pop().close()
            waiting.settimeout(10)
            start = time.monotonic()
            assert read_response(waiting)[0] == 200
            assert time.monotonic() - start < 0.5
        for conn in held:
            conn.close()
    finally:
        server.stop()


def test_shutdown_is_not_held_by_idle_or_half_sent_connections():
    server = Stratus("--ephemeral")
    kept_alive, half_head = connect(server), connect(server)
    kept_alive.sendall(HEALTH)
    assert read_response(kept_alive)[0] == 200
    half_head.sendall(b"GET / HTTP/1.1\r\nHost: loc")
    time.sleep(0.1)
    start = time.monotonic()
    assert server.stop(signal.SIGTERM) == 0
    assert time.monotonic() - start < 0.5
    kept_alive.close()
    half_head.close()


def test_shutdown_with_a_stalled_upload_ends_within_the_shutdown_timeout():
    server = Stratus("--ephemeral", "--body-idle-timeout", "60", "--shutdown-timeout", "1")
    with connect(server) as conn:
        conn.sendall(b"PUT /bucket/key HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nxx")
        time.sleep(0.1)
        start = time.monotonic()
        assert server.stop(signal.SIGTERM) == 0
        assert 0.8 < time.monotonic() - start < 3
