"""S3 additional checksums (CRC32, CRC32C, CRC64NVME, SHA1, SHA256, SHA512, MD5, XXHASH64,
XXHASH3, XXHASH128), aws-chunked bodies and
multipart composite checksums, through boto3 (default checksum settings: botocore >= 1.36 sends
CRC32 on every upload and validates what GET returns) against the real binary.

Sources: AWS S3 user guide "Checking object integrity"; error wordings as S3 sends them
(BadDigest "The CRC32 you specified did not match the calculated checksum.", InvalidRequest
"Value for x-amz-checksum-crc32 header is invalid.")."""

import base64
import hashlib
import http.client
import io
import os
import urllib.parse
import uuid
import zlib

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError


def _crc_reflected(data, poly, init, xorout, width):
    crc = init
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return (crc ^ xorout).to_bytes(width, "big")


def b64(digest):
    return base64.b64encode(digest).decode()


# Bitwise reference implementations (awscrt, botocore's own, is not installed): slow, so the
# tests use them on small bodies only.
DIGESTS = {
    "CRC32": lambda d: zlib.crc32(d).to_bytes(4, "big"),
    "CRC32C": lambda d: _crc_reflected(d, 0x82F63B78, 0xFFFFFFFF, 0xFFFFFFFF, 4),
    "CRC64NVME": lambda d: _crc_reflected(d, 0x9A6C9329AC4BC9B5, 2**64 - 1, 2**64 - 1, 8),
    "SHA1": lambda d: hashlib.sha1(d).digest(),
    "SHA256": lambda d: hashlib.sha256(d).digest(),
    "SHA512": lambda d: hashlib.sha512(d).digest(),
    "MD5": lambda d: hashlib.md5(d).digest(),
}

# xxHash of b"hello world", seed 0, big-endian (the reference C library's XXH64, XXH3_64bits and
# XXH3_128bits; XXH64 is 45ab6734b21e6968): hashlib has no xxHash.
HELLO_XXHASH = {
    "XXHASH64": "RatnNLIeaWg=",
    "XXHASH3": "1Eex6kDmmIs=",
    "XXHASH128": "340J6T+HSQCpm4d1zBW2xw==",
}


def checksum(algorithm, data):
    return b64(DIGESTS[algorithm](data))


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"ck-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def error(err):
    e = err.value.response["Error"]
    return e["Code"], e["Message"]


def test_default_upload_sends_crc32_and_get_validates_it(s3, bucket):
    body = b"hello world"
    put = s3.put_object(Bucket=bucket, Key="k", Body=body)
    assert put["ChecksumCRC32"] == checksum("CRC32", body) == "DUoRhQ=="
    assert put["ChecksumType"] == "FULL_OBJECT"
    # botocore asks with x-amz-checksum-mode: ENABLED and checks the answer itself.
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["Body"].read() == body
    assert got["ChecksumCRC32"] == "DUoRhQ=="
    assert got["ChecksumType"] == "FULL_OBJECT"
    # Listings name each object's algorithm and type.
    listed = s3.list_objects_v2(Bucket=bucket)["Contents"][0]
    assert listed["ChecksumAlgorithm"] == ["CRC32"]
    assert listed["ChecksumType"] == "FULL_OBJECT"
    # Without checksum mode, no checksum; nor for a range.
    raw = s3.head_object(Bucket=bucket, Key="k")
    assert "ChecksumCRC32" not in raw
    ranged = s3.get_object(Bucket=bucket, Key="k", Range="bytes=0-3", ChecksumMode="ENABLED")
    assert "ChecksumCRC32" not in ranged


@pytest.mark.parametrize("algorithm", list(DIGESTS))
def test_each_algorithm_round_trips(s3, bucket, algorithm):
    body = os.urandom(1000)
    value = checksum(algorithm, body)
    member = f"Checksum{algorithm}"
    put = s3.put_object(Bucket=bucket, Key=algorithm, Body=body, ChecksumAlgorithm=algorithm, **{member: value})
    assert put[member] == value
    head = s3.head_object(Bucket=bucket, Key=algorithm, ChecksumMode="ENABLED")
    assert head[member] == value
    assert head["ChecksumType"] == "FULL_OBJECT"
    # A copy keeps a full-object checksum.
    copy = s3.copy_object(Bucket=bucket, Key=f"{algorithm}-copy", CopySource=f"{bucket}/{algorithm}")
    assert copy["CopyObjectResult"][member] == value


@pytest.mark.parametrize("algorithm", list(DIGESTS))
def test_wrong_checksum_is_bad_digest(s3, bucket, algorithm):
    wrong = checksum(algorithm, b"something else")
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"data", **{f"Checksum{algorithm}": wrong})
    assert error(err) == ("BadDigest", f"The {algorithm} you specified did not match the calculated checksum.")
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="k")


@pytest.mark.parametrize("algorithm", list(HELLO_XXHASH))
def test_xxhash_checksums(s3, bucket, algorithm):
    member = f"Checksum{algorithm}"
    value = HELLO_XXHASH[algorithm]
    put = s3.put_object(Bucket=bucket, Key=algorithm, Body=b"hello world", **{member: value})
    assert put[member] == value
    head = s3.head_object(Bucket=bucket, Key=algorithm, ChecksumMode="ENABLED")
    assert head[member] == value
    attributes = s3.get_object_attributes(Bucket=bucket, Key=algorithm, ObjectAttributes=["Checksum"])
    assert attributes["Checksum"][member] == value
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="wrong", Body=b"hello World", **{member: value})
    assert error(err) == ("BadDigest", f"The {algorithm} you specified did not match the calculated checksum.")


def test_new_digest_algorithms_are_composite_only(s3, bucket):
    bodies = [b"m" * (5 * 1024 * 1024), b"tail"]
    for algorithm in ["SHA512", "MD5"]:
        with pytest.raises(ClientError) as err:
            s3.create_multipart_upload(
                Bucket=bucket, Key="k", ChecksumAlgorithm=algorithm, ChecksumType="FULL_OBJECT"
            )
        assert error(err)[0] == "InvalidRequest"
    created = s3.create_multipart_upload(Bucket=bucket, Key="md5", ChecksumAlgorithm="MD5")
    assert created["ChecksumType"] == "COMPOSITE"
    upload = created["UploadId"]
    parts = upload_parts(s3, bucket, "md5", upload, bodies, "MD5")
    done = s3.complete_multipart_upload(Bucket=bucket, Key="md5", UploadId=upload, MultipartUpload={"Parts": parts})
    expected = b64(hashlib.md5(b"".join(hashlib.md5(b).digest() for b in bodies)).digest()) + "-2"
    assert done["ChecksumMD5"] == expected
    assert s3.head_object(Bucket=bucket, Key="md5", ChecksumMode="ENABLED")["ChecksumMD5"] == expected


def test_malformed_and_conflicting_checksums(s3, bucket):
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"data", ChecksumSHA256="AAAA")
    assert error(err) == ("InvalidRequest", "Value for x-amz-checksum-sha256 header is invalid.")
    with pytest.raises(ClientError) as err:
        s3.put_object(
            Bucket=bucket,
            Key="k",
            Body=b"data",
            ChecksumSHA1=checksum("SHA1", b"data"),
            ChecksumSHA256=checksum("SHA256", b"data"),
        )
    assert error(err) == (
        "InvalidRequest",
        "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.",
    )


def test_object_without_checksum_gets_crc64nvme(stratus, bucket):
    # With checksums only when required, botocore sends none: S3 adds CRC64NVME.
    s3 = stratus.client("s3")
    s3.meta.config.request_checksum_calculation = "when_required"
    s3.meta.config.response_checksum_validation = "when_required"
    body = b"no checksum sent"
    put = s3.put_object(Bucket=bucket, Key="k", Body=body)
    assert put["ChecksumCRC64NVME"] == checksum("CRC64NVME", body)
    head = s3.head_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")
    assert head["ChecksumCRC64NVME"] == checksum("CRC64NVME", body)


def trailer_client(stratus):
    """A client that sends its checksums as botocore does over TLS: an aws-chunked body
    (STREAMING-UNSIGNED-PAYLOAD-TRAILER) with the checksum in a trailer."""
    s3 = stratus.client("s3")

    def to_trailer(params, **_):
        algorithm = params.get("context", {}).get("checksum", {}).get("request_algorithm")
        if isinstance(algorithm, dict):
            algorithm["in"] = "trailer"

    s3.meta.events.register("before-call.s3.PutObject", to_trailer)
    s3.meta.events.register("before-call.s3.UploadPart", to_trailer)
    s3.sent = []
    s3.meta.events.register("before-send.s3", lambda request, **_: s3.sent.append(dict(request.headers)))
    return s3


def test_aws_chunked_trailer_put_and_upload_part(stratus, bucket):
    s3 = trailer_client(stratus)
    body = os.urandom(100_000)
    put = s3.put_object(Bucket=bucket, Key="chunked", Body=body, ContentType="text/plain")
    assert put["ChecksumCRC32"] == checksum("CRC32", body)
    sent = s3.sent[-1]
    assert sent["Content-Encoding"] == b"aws-chunked" or sent["Content-Encoding"] == "aws-chunked"
    assert "X-Amz-Trailer" in sent
    got = s3.get_object(Bucket=bucket, Key="chunked")
    assert got["Body"].read() == body
    # aws-chunked is a transfer framing: it is not stored as the object's encoding.
    assert "ContentEncoding" not in got
    assert got["ContentLength"] == len(body)

    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    part1 = os.urandom(5 * 1024 * 1024)
    part2 = b"tail"
    parts = []
    for n, data in ((1, part1), (2, part2)):
        r = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=n, Body=data, ChecksumAlgorithm="CRC32")
        assert r["ChecksumCRC32"] == checksum("CRC32", data)
        parts.append({"PartNumber": n, "ETag": r["ETag"], "ChecksumCRC32": r["ChecksumCRC32"]})
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": parts})
    assert s3.get_object(Bucket=bucket, Key="mp")["Body"].read() == part1 + part2


def raw_put(stratus, path, body, headers):
    url = urllib.parse.urlparse(stratus.endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    base = {
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20250101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host, Signature=0",
        "x-amz-date": "20250101T000000Z",
    }
    conn.request("PUT", path, body=body, headers={**base, **headers})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, dict(resp.getheaders()), data


def test_signed_streaming_chunks(stratus, s3, bucket):
    # STREAMING-AWS4-HMAC-SHA256-PAYLOAD: each chunk carries a signature extension.
    sig = "0" * 64
    framed = (
        f"5;chunk-signature={sig}\r\nhello\r\n6;chunk-signature={sig}\r\n world\r\n0;chunk-signature={sig}\r\n\r\n"
    ).encode()
    status, _, data = raw_put(
        stratus,
        f"/{bucket}/signed",
        framed,
        {
            "Content-Encoding": "aws-chunked",
            "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            "x-amz-decoded-content-length": "11",
        },
    )
    assert status == 200, data
    assert s3.get_object(Bucket=bucket, Key="signed")["Body"].read() == b"hello world"


def test_trailer_checksum_is_verified(stratus, s3, bucket):
    framed = b"b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"
    headers = {
        "Content-Encoding": "aws-chunked",
        "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        "x-amz-decoded-content-length": "11",
        "x-amz-trailer": "x-amz-checksum-crc32",
        "x-amz-sdk-checksum-algorithm": "CRC32",
    }
    status, _, data = raw_put(stratus, f"/{bucket}/bad", framed, headers)
    assert status == 400 and b"<Code>BadDigest</Code>" in data, data
    good = framed.replace(b"AAAAAA==", b"DUoRhQ==")
    status, resp_headers, data = raw_put(stratus, f"/{bucket}/good", good, headers)
    assert status == 200, data
    assert s3.get_object(Bucket=bucket, Key="good")["Body"].read() == b"hello world"
    # A body cut short is refused.
    status, _, data = raw_put(stratus, f"/{bucket}/cut", framed[:8], headers)
    assert status == 400 and b"<Code>IncompleteBody</Code>" in data, data


def upload_parts(s3, bucket, key, upload, bodies, algorithm):
    parts = []
    for n, data in enumerate(bodies, 1):
        r = s3.upload_part(
            Bucket=bucket,
            Key=key,
            UploadId=upload,
            PartNumber=n,
            Body=data,
            ChecksumAlgorithm=algorithm,
            **{f"Checksum{algorithm}": checksum(algorithm, data)},
        )
        assert r[f"Checksum{algorithm}"] == checksum(algorithm, data)
        parts.append({"PartNumber": n, "ETag": r["ETag"], f"Checksum{algorithm}": r[f"Checksum{algorithm}"]})
    return parts


def test_multipart_composite_checksum(s3, bucket):
    bodies = [b"a" * (5 * 1024 * 1024), b"the last part"]
    created = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="SHA256")
    assert created["ChecksumAlgorithm"] == "SHA256"
    assert created["ChecksumType"] == "COMPOSITE"
    upload = created["UploadId"]
    parts = upload_parts(s3, bucket, "mp", upload, bodies, "SHA256")
    listed = s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)
    assert [p["ChecksumSHA256"] for p in listed["Parts"]] == [checksum("SHA256", b) for b in bodies]
    assert listed["ChecksumAlgorithm"] == "SHA256"
    # Each part's checksum must be in the completion of a composite upload.
    with pytest.raises(ClientError) as err:
        s3.complete_multipart_upload(
            Bucket=bucket,
            Key="mp",
            UploadId=upload,
            MultipartUpload={"Parts": [{"PartNumber": p["PartNumber"], "ETag": p["ETag"]} for p in parts]},
        )
    assert error(err) == (
        "InvalidRequest",
        "The upload was created using a sha256 checksum. The complete request must include the checksum for "
        "each part. It was missing for part 1 in the request.",
    )
    done = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": parts})
    expected = b64(hashlib.sha256(b"".join(hashlib.sha256(b).digest() for b in bodies)).digest()) + "-2"
    assert done["ChecksumSHA256"] == expected
    assert done["ChecksumType"] == "COMPOSITE"
    head = s3.head_object(Bucket=bucket, Key="mp", ChecksumMode="ENABLED")
    assert head["ChecksumSHA256"] == expected
    assert head["ChecksumType"] == "COMPOSITE"
    # botocore does not try to validate a composite checksum on GET.
    got = s3.get_object(Bucket=bucket, Key="mp", ChecksumMode="ENABLED")
    assert got["ChecksumSHA256"] == expected
    assert got["Body"].read() == b"".join(bodies)


def test_multipart_full_object_crc(s3, bucket):
    bodies = [os.urandom(5 * 1024 * 1024), b"end"]
    created = s3.create_multipart_upload(
        Bucket=bucket, Key="full", ChecksumAlgorithm="CRC32", ChecksumType="FULL_OBJECT"
    )
    assert created["ChecksumType"] == "FULL_OBJECT"
    parts = upload_parts(s3, bucket, "full", created["UploadId"], bodies, "CRC32")
    whole = b"".join(bodies)
    done = s3.complete_multipart_upload(
        Bucket=bucket,
        Key="full",
        UploadId=created["UploadId"],
        MultipartUpload={"Parts": parts},
        ChecksumCRC32=checksum("CRC32", whole),
        ChecksumType="FULL_OBJECT",
    )
    assert done["ChecksumCRC32"] == checksum("CRC32", whole)
    assert done["ChecksumType"] == "FULL_OBJECT"


def test_multipart_checksum_rules(s3, bucket):
    # CRC64NVME is full-object only; SHA algorithms composite only.
    with pytest.raises(ClientError) as err:
        s3.create_multipart_upload(Bucket=bucket, Key="x", ChecksumAlgorithm="CRC64NVME", ChecksumType="COMPOSITE")
    assert error(err)[0] == "InvalidRequest"
    with pytest.raises(ClientError) as err:
        s3.create_multipart_upload(Bucket=bucket, Key="x", ChecksumAlgorithm="SHA1", ChecksumType="FULL_OBJECT")
    assert error(err)[0] == "InvalidRequest"
    # A part sent with another algorithm than the upload's is refused.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="x", ChecksumAlgorithm="SHA256")["UploadId"]
    with pytest.raises(ClientError) as err:
        s3.upload_part(
            Bucket=bucket, Key="x", UploadId=upload, PartNumber=1, Body=b"p", ChecksumCRC32=checksum("CRC32", b"p")
        )
    assert error(err) == (
        "InvalidRequest",
        "Checksum Type mismatch occurred, expected checksum Type: sha256, actual checksum Type: crc32",
    )
    with pytest.raises(ClientError) as err:
        s3.upload_part(
            Bucket=bucket, Key="x", UploadId=upload, PartNumber=1, Body=b"p", ChecksumSHA256=checksum("SHA256", b"q")
        )
    assert error(err) == ("BadDigest", "The SHA256 you specified did not match the calculated checksum.")
    # Completing with a part checksum in another algorithm than the upload's is a bad digest.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="y", ChecksumAlgorithm="CRC32")["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="y", UploadId=upload, PartNumber=1, Body=b"p", ChecksumAlgorithm="CRC32")
    with pytest.raises(ClientError) as err:
        s3.complete_multipart_upload(
            Bucket=bucket, Key="y", UploadId=upload,
            MultipartUpload={"Parts": [{"ETag": part["ETag"], "PartNumber": 1, "ChecksumSHA256": checksum("SHA256", b"p")}]},
        )
    assert error(err) == ("BadDigest", "The sha256 you specified for part 1 did not match what we received.")


def test_upload_and_download_fileobj_with_default_checksums(s3, bucket):
    # 12 MiB crosses boto3's 8 MiB multipart threshold: CreateMultipartUpload with CRC32
    # (s3transfer's default), parts with CRC32 headers, completion listing their checksums.
    data = os.urandom(12 * 1024 * 1024)
    s3.upload_fileobj(io.BytesIO(data), bucket, "big")
    out = io.BytesIO()
    s3.download_fileobj(bucket, "big", out)
    assert out.getvalue() == data
    head = s3.head_object(Bucket=bucket, Key="big", ChecksumMode="ENABLED")
    assert head["ContentLength"] == len(data)
    assert head["ChecksumCRC32"].endswith("-2")
    assert head["ChecksumType"] == "COMPOSITE"
    # And a small one, uploaded in one PutObject.
    s3.upload_fileobj(io.BytesIO(b"small"), bucket, "small")
    out = io.BytesIO()
    s3.download_fileobj(bucket, "small", out)
    assert out.getvalue() == b"small"


def test_get_object_attributes(s3, bucket):
    # As LocalStack's AWS-validated snapshots show: the ETag without quotes, the composite
    # checksum without its part count, parts paged by part-number marker.
    body = b"attributes"
    s3.put_object(Bucket=bucket, Key="plain", Body=body, ChecksumSHA1=checksum("SHA1", body))
    attrs = s3.get_object_attributes(
        Bucket=bucket, Key="plain", ObjectAttributes=["ETag", "Checksum", "ObjectSize", "StorageClass", "ObjectParts"]
    )
    assert attrs["ETag"] == hashlib.md5(body).hexdigest()
    assert attrs["Checksum"] == {"ChecksumSHA1": checksum("SHA1", body), "ChecksumType": "FULL_OBJECT"}
    assert attrs["ObjectSize"] == len(body)
    assert attrs["StorageClass"] == "STANDARD"
    assert "ObjectParts" not in attrs
    only_size = s3.get_object_attributes(Bucket=bucket, Key="plain", ObjectAttributes=["ObjectSize"])
    assert "ETag" not in only_size and "Checksum" not in only_size

    bodies = [b"x" * (5 * 1024 * 1024), b"y" * (5 * 1024 * 1024), b"z"]
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="SHA256")["UploadId"]
    parts = upload_parts(s3, bucket, "mp", upload, bodies, "SHA256")
    done = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": parts})
    page = s3.get_object_attributes(
        Bucket=bucket, Key="mp", ObjectAttributes=["ObjectParts", "Checksum", "ETag"], MaxParts=2
    )
    assert page["ETag"] == done["ETag"].strip('"')
    assert page["Checksum"]["ChecksumSHA256"] == done["ChecksumSHA256"].split("-")[0]
    assert page["Checksum"]["ChecksumType"] == "COMPOSITE"
    op = page["ObjectParts"]
    assert op["TotalPartsCount"] == 3 and op["IsTruncated"] is True and op["MaxParts"] == 2
    assert [(p["PartNumber"], p["Size"]) for p in op["Parts"]] == [(1, len(bodies[0])), (2, len(bodies[1]))]
    assert op["Parts"][0]["ChecksumSHA256"] == checksum("SHA256", bodies[0])
    rest = s3.get_object_attributes(
        Bucket=bucket, Key="mp", ObjectAttributes=["ObjectParts"], PartNumberMarker=op["NextPartNumberMarker"]
    )["ObjectParts"]
    assert [p["PartNumber"] for p in rest["Parts"]] == [3] and rest["IsTruncated"] is False

    with pytest.raises(ClientError) as err:
        s3.get_object_attributes(Bucket=bucket, Key="missing", ObjectAttributes=["ETag"])
    assert error(err)[0] == "NoSuchKey"


def test_get_object_attributes_of_a_version(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"three")
    attrs = s3.get_object_attributes(Bucket=bucket, Key="k", VersionId=first, ObjectAttributes=["ObjectSize"])
    assert attrs["ObjectSize"] == 3
    assert attrs["VersionId"] == first
