"""S3 bodies stream between the socket and the blob store: uploads past the gateway's 16 MiB
buffered-request limit (plain and aws-chunked), downloads read as the client takes them, and
the server's memory does not grow with object size (the issue's bar: under 64 MB while moving
a large object)."""

import base64
import hashlib
import http.client
import socket
import uuid
import zlib
from urllib.parse import quote, urlparse

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus

MIB = 1 << 20
AUTH = (
    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/s3/aws4_request, "
    "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # A data directory: in --ephemeral mode objects live in memory by design.
    server = Stratus("--data-dir", str(tmp_path_factory.mktemp("s3-streaming")))
    yield server
    server.stop()


@pytest.fixture
def s3(server):
    return server.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"stream-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def pattern(size):
    """`size` bytes that differ from one MiB to the next, so misplaced chunks are caught."""
    block = hashlib.sha256(b"seed").digest() * (MIB // 32)
    return b"".join(bytes([i % 251]) + block[1:] for i in range(size // MIB)) + block[: size % MIB]


def connection(server):
    url = urlparse(server.endpoint)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=120)


def raw_put(server, bucket, key, chunks, length, extra=None):
    """PUTs `length` bytes from `chunks` (an iterable of bytes) without holding them; returns
    the response status and body."""
    conn = connection(server)
    conn.putrequest("PUT", f"/{bucket}/{key}")
    for name, value in {
        "Content-Length": str(length),
        "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        "x-amz-date": "20260101T000000Z",
        "Authorization": AUTH,
        **(extra or {}),
    }.items():
        conn.putheader(name, value)
    conn.endheaders()
    for chunk in chunks:
        conn.send(chunk)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body


def peak_rss_mb(server):
    with open(f"/proc/{server.proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_an_object_larger_than_the_buffered_limit_round_trips(s3, bucket):
    body = pattern(40 * MIB + 123)
    put = s3.put_object(Bucket=bucket, Key="big", Body=body)
    assert put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    got = s3.get_object(Bucket=bucket, Key="big")
    assert got["ContentLength"] == len(body)
    assert hashlib.sha256(got["Body"].read()).digest() == hashlib.sha256(body).digest()
    # A large range streams; a small one is read whole. Both cut in the right place.
    large = s3.get_object(Bucket=bucket, Key="big", Range="bytes=1000-30000000")
    assert large["ContentRange"] == f"bytes 1000-30000000/{len(body)}"
    assert large["Body"].read() == body[1000:30000001]
    small = s3.get_object(Bucket=bucket, Key="big", Range=f"bytes={20 * MIB - 5}-{20 * MIB + 4}")
    assert small["Body"].read() == body[20 * MIB - 5 : 20 * MIB + 5]
    # The checksum boto3 sent was verified and kept.
    head = s3.head_object(Bucket=bucket, Key="big", ChecksumMode="ENABLED")
    assert head["ContentLength"] == len(body)
    assert "ChecksumCRC32" in head


def test_a_streamed_upload_is_checked_against_its_digests(server, s3, bucket):
    body = pattern(3 * MIB)
    wrong_md5 = base64.b64encode(hashlib.md5(b"other").digest()).decode()
    status, answer = raw_put(server, bucket, "md5", [body], len(body), {"Content-MD5": wrong_md5})
    assert (status, b"<Code>BadDigest</Code>" in answer) == (400, True)
    wrong_crc = base64.b64encode(b"\0\0\0\0").decode()
    status, answer = raw_put(server, bucket, "crc", [body], len(body), {"x-amz-checksum-crc32": wrong_crc})
    assert (status, b"<Code>BadDigest</Code>" in answer) == (400, True)
    for key in ["md5", "crc"]:
        with pytest.raises(ClientError) as err:
            s3.head_object(Bucket=bucket, Key=key)
        assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    good_md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    assert raw_put(server, bucket, "ok", [body], len(body), {"Content-MD5": good_md5})[0] == 200


def test_an_upload_cut_short_stores_nothing(server, s3, bucket):
    url = urlparse(server.endpoint)
    sock = socket.create_connection((url.hostname, url.port))
    head = (
        f"PUT /{bucket}/cut HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: {10 * MIB}\r\n"
        f"x-amz-content-sha256: UNSIGNED-PAYLOAD\r\nx-amz-date: 20260101T000000Z\r\nAuthorization: {AUTH}\r\n\r\n"
    )
    sock.sendall(head.encode() + pattern(2 * MIB))
    sock.close()
    # The server is still serving, and no object appeared.
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="cut")
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_multipart_parts_stream_too(s3, bucket):
    part_one, part_two = pattern(20 * MIB), pattern(2 * MIB)[::-1]
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    etags = [
        s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=n, Body=body)["ETag"]
        for n, body in [(1, part_one), (2, part_two)]
    ]
    assert etags[0] == f'"{hashlib.md5(part_one).hexdigest()}"'
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key="mp",
        UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": n, "ETag": e} for n, e in zip([1, 2], etags)]},
    )
    assert s3.get_object(Bucket=bucket, Key="mp")["Body"].read() == part_one + part_two


def chunk_pieces(size, chunk=64 * 1024):
    """`size` bytes of `pattern` as the list of chunks an SDK frames (64 KiB each), sharing
    one MiB of memory."""
    block = pattern(MIB)
    pieces = [block[i : i + chunk] for i in range(0, MIB, chunk)]
    whole, rest = divmod(size, MIB)
    pieces *= whole
    if rest:
        pieces.append(block[:rest])
    return pieces


def crc32(pieces):
    value = 0
    for piece in pieces:
        value = zlib.crc32(piece, value)
    return base64.b64encode(value.to_bytes(4, "big")).decode()


def aws_chunked_put(server, bucket, key, pieces, checksum, decoded_length=None):
    """PUTs `pieces` as botocore frames an upload over TLS: aws-chunked, each piece a chunk,
    STREAMING-UNSIGNED-PAYLOAD-TRAILER with the CRC32 `checksum` in the trailer, streamed from
    a generator. Returns the response status and body."""
    headers = [b"%x\r\n" % len(piece) for piece in pieces]
    final = b"0\r\nx-amz-checksum-crc32:%s\r\n\r\n" % checksum.encode()
    length = sum(len(h) + len(p) + 2 for h, p in zip(headers, pieces)) + len(final)
    decoded = sum(map(len, pieces))

    def framed():
        for header, piece in zip(headers, pieces):
            yield header + piece + b"\r\n"
        yield final

    return raw_put(
        server,
        bucket,
        key,
        framed(),
        length,
        {
            "Content-Encoding": "aws-chunked",
            "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
            "x-amz-decoded-content-length": str(decoded if decoded_length is None else decoded_length),
            "x-amz-trailer": "x-amz-checksum-crc32",
            "x-amz-sdk-checksum-algorithm": "CRC32",
        },
    )


def sha256(pieces):
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    return digest.digest()


def stored_sha256(s3, bucket, key):
    body = s3.get_object(Bucket=bucket, Key=key)["Body"]
    digest = hashlib.sha256()
    while data := body.read(MIB):
        digest.update(data)
    return digest.digest()


def test_a_large_aws_chunked_upload_streams(server, s3, bucket):
    pieces = chunk_pieces(40 * MIB + 123)
    status, answer = aws_chunked_put(server, bucket, "chunked", pieces, crc32(pieces))
    assert status == 200, answer
    head = s3.head_object(Bucket=bucket, Key="chunked", ChecksumMode="ENABLED")
    assert head["ContentLength"] == 40 * MIB + 123
    assert head["ChecksumCRC32"] == crc32(pieces)
    assert head["ETag"] == f'"{hashlib.md5(b"".join(pieces)).hexdigest()}"'
    # aws-chunked is the transfer's framing, not the object's encoding.
    assert "ContentEncoding" not in head
    assert stored_sha256(s3, bucket, "chunked") == sha256(pieces)
    assert peak_rss_mb(server) < 64


def test_a_large_aws_chunked_part_streams(server, s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    first = chunk_pieces(40 * MIB)
    key = f"mp?partNumber=1&uploadId={quote(upload, safe='')}"
    status, answer = aws_chunked_put(server, bucket, key, first, crc32(first))
    assert status == 200, answer
    last = pattern(MIB)[::-1]
    s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=2, Body=last, ChecksumAlgorithm="CRC32")
    parts = s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)["Parts"]
    assert [(p["Size"], p["ChecksumCRC32"]) for p in parts] == [(40 * MIB, crc32(first)), (MIB, crc32([last]))]
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key="mp",
        UploadId=upload,
        MultipartUpload={
            "Parts": [{k: p[k] for k in ("PartNumber", "ETag", "ChecksumCRC32")} for p in parts],
        },
    )
    assert stored_sha256(s3, bucket, "mp") == sha256(first + [last])
    assert peak_rss_mb(server) < 64


def test_a_streamed_aws_chunked_upload_is_checked(server, s3, bucket):
    pieces = chunk_pieces(3 * MIB)
    wrong = base64.b64encode(b"\0\0\0\0").decode()
    status, answer = aws_chunked_put(server, bucket, "wrong", pieces, wrong)
    assert status == 400 and b"<Code>BadDigest</Code>" in answer, answer
    assert b"The CRC32 you specified did not match the calculated checksum." in answer
    # x-amz-decoded-content-length must be the size the chunks add up to.
    status, answer = aws_chunked_put(server, bucket, "short", pieces, crc32(pieces), decoded_length=3 * MIB - 1)
    assert status == 400 and b"<Code>IncompleteBody</Code>" in answer, answer
    assert f"<NumberBytesExpected>{3 * MIB - 1}</NumberBytesExpected>".encode() in answer
    # Nor does a refused part stay.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    key = f"mp?partNumber=1&uploadId={quote(upload, safe='')}"
    status, answer = aws_chunked_put(server, bucket, key, pieces, wrong)
    assert status == 400 and b"<Code>BadDigest</Code>" in answer, answer
    assert s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload).get("Parts", []) == []
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_memory_does_not_grow_with_object_size(server, bucket):
    size = 256 * MIB
    chunk = pattern(MIB)
    expected = hashlib.sha256()
    for _ in range(size // MIB):
        expected.update(chunk)
    status, answer = raw_put(server, bucket, "huge", (chunk for _ in range(size // MIB)), size)
    assert status == 200, answer
    conn = connection(server)
    conn.request(
        "GET",
        f"/{bucket}/huge",
        headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-date": "20260101T000000Z", "Authorization": AUTH},
    )
    response = conn.getresponse()
    assert response.status == 200
    assert int(response.getheader("Content-Length")) == size
    received = hashlib.sha256()
    while data := response.read(MIB):
        received.update(data)
    conn.close()
    assert received.digest() == expected.digest()
    assert peak_rss_mb(server) < 64
