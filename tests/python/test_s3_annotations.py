"""S3 object annotations through boto3 against the real binary: PutObjectAnnotation,
GetObjectAnnotation, DeleteObjectAnnotation, ListObjectAnnotations and CopyObject's
annotation directive.

Sources: the S3 user guide's "Annotating objects" and "Managing annotations" pages, the
PutObjectAnnotation API reference, and the 2026-08 model's documentation of the four
operations and their errors."""

import base64
import hashlib
import uuid
import zlib

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"ann-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def versioned(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    return bucket


def refused(call, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return err.value.response["Error"]["Code"], err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def names(s3, bucket, key, **kwargs):
    listed = s3.list_object_annotations(Bucket=bucket, Key=key, **kwargs)
    return [a["AnnotationName"] for a in listed.get("Annotations", [])]


def test_put_get_leaves_the_object_as_it_was(s3, bucket):
    put = s3.put_object(Bucket=bucket, Key="doc", Body=b"body", Metadata={"m": "1"})
    before = s3.head_object(Bucket=bucket, Key="doc")
    payload = '{"label": "café"}'.encode()
    answer = s3.put_object_annotation(Bucket=bucket, Key="doc", AnnotationName="ml.labels", AnnotationPayload=payload)
    assert answer["ETag"] == f'"{hashlib.md5(payload).hexdigest()}"'
    assert answer["ServerSideEncryption"] == "AES256"
    got = s3.get_object_annotation(Bucket=bucket, Key="doc", AnnotationName="ml.labels", ChecksumMode="ENABLED")
    assert got["AnnotationPayload"].read() == payload
    assert got["ContentLength"] == len(payload)
    assert got["ETag"] == answer["ETag"]
    assert "LastModified" in got
    sums = {k: v for k, v in answer.items() if k.startswith("Checksum") and k != "ChecksumType"}
    assert sums and all(got[k] == v for k, v in sums.items())
    after = s3.head_object(Bucket=bucket, Key="doc")
    for unchanged in ["ETag", "LastModified", "Metadata", "ContentLength"]:
        assert after[unchanged] == before[unchanged]
    assert after["ETag"] == put["ETag"]
    # Re-putting a name replaces its payload.
    s3.put_object_annotation(Bucket=bucket, Key="doc", AnnotationName="ml.labels", AnnotationPayload=b"v2")
    got = s3.get_object_annotation(Bucket=bucket, Key="doc", AnnotationName="ml.labels")
    assert got["AnnotationPayload"].read() == b"v2"
    assert names(s3, bucket, "doc") == ["ml.labels"]


def test_checksums_are_verified_and_returned(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    payload = b"checked"
    crc32 = base64.b64encode(zlib.crc32(payload).to_bytes(4, "big")).decode()
    answer = s3.put_object_annotation(
        Bucket=bucket, Key="k", AnnotationName="c", AnnotationPayload=payload, ChecksumCRC32=crc32
    )
    assert answer["ChecksumCRC32"] == crc32
    got = s3.get_object_annotation(Bucket=bucket, Key="k", AnnotationName="c", ChecksumMode="ENABLED")
    assert got["ChecksumCRC32"] == crc32
    wrong = base64.b64encode(zlib.crc32(b"other").to_bytes(4, "big")).decode()
    assert refused(
        s3.put_object_annotation, Bucket=bucket, Key="k", AnnotationName="c", AnnotationPayload=payload, ChecksumCRC32=wrong
    ) == ("BadDigest", 400)
    listed = s3.list_object_annotations(Bucket=bucket, Key="k")["Annotations"][0]
    assert listed["ChecksumAlgorithm"] == ["CRC32"]
    assert listed["Size"] == len(payload)


def test_refusals(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    put = s3.put_object_annotation
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="aws-x", AnnotationPayload=b"p") == (
        "InvalidAnnotationName",
        400,
    )
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="S3thing", AnnotationPayload=b"p")[0] == (
        "InvalidAnnotationName"
    )
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="a" * 513, AnnotationPayload=b"p") == (
        "AnnotationNameTooLong",
        400,
    )
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="bin", AnnotationPayload=b"\xff\xfe") == (
        "UnsupportedMediaType",
        415,
    )
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="big", AnnotationPayload=b"a" * ((1 << 20) + 1))[1] == 400
    assert refused(put, Bucket=bucket, Key="missing", AnnotationName="n", AnnotationPayload=b"p") == ("NoSuchKey", 404)
    assert refused(put, Bucket=f"{bucket}-none", Key="k", AnnotationName="n", AnnotationPayload=b"p") == (
        "NoSuchBucket",
        404,
    )
    assert refused(s3.get_object_annotation, Bucket=bucket, Key="k", AnnotationName="none") == ("NoSuchAnnotation", 404)
    assert refused(s3.delete_object_annotation, Bucket=bucket, Key="k", AnnotationName="none") == (
        "NoSuchAnnotation",
        404,
    )
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k", MaxAnnotationResults=0)[1] == 400
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k", AnnotationPrefix="p" * 513) == (
        "InvalidPrefix",
        400,
    )


def test_object_if_match(s3, bucket):
    etag = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["ETag"]
    put = s3.put_object_annotation
    assert refused(put, Bucket=bucket, Key="k", AnnotationName="n", AnnotationPayload=b"p", ObjectIfMatch='"0"') == (
        "PreconditionFailed",
        412,
    )
    put(Bucket=bucket, Key="k", AnnotationName="n", AnnotationPayload=b"p", ObjectIfMatch=etag)
    assert refused(s3.delete_object_annotation, Bucket=bucket, Key="k", AnnotationName="n", ObjectIfMatch='"0"') == (
        "PreconditionFailed",
        412,
    )
    answer = s3.delete_object_annotation(Bucket=bucket, Key="k", AnnotationName="n", ObjectIfMatch=etag)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(s3.get_object_annotation, Bucket=bucket, Key="k", AnnotationName="n")[0] == "NoSuchAnnotation"


def test_listing_pages_in_name_order_with_a_prefix(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    for name in ["b.two", "a.one", "c", "a.three", "b.one"]:
        s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName=name, AnnotationPayload=name.encode())
    assert names(s3, bucket, "k") == ["a.one", "a.three", "b.one", "b.two", "c"]
    assert names(s3, bucket, "k", AnnotationPrefix="b.") == ["b.one", "b.two"]
    first = s3.list_object_annotations(Bucket=bucket, Key="k", MaxAnnotationResults=2)
    assert [a["AnnotationName"] for a in first["Annotations"]] == ["a.one", "a.three"]
    assert first["AnnotationCount"] == 2
    assert first["MaxAnnotationResults"] == 2
    token = first["NextContinuationToken"]
    rest = s3.list_object_annotations(Bucket=bucket, Key="k", MaxAnnotationResults=2, ContinuationToken=token)
    assert [a["AnnotationName"] for a in rest["Annotations"]] == ["b.one", "b.two"]
    assert rest["ContinuationToken"] == token
    last = s3.list_object_annotations(
        Bucket=bucket, Key="k", MaxAnnotationResults=2, ContinuationToken=rest["NextContinuationToken"]
    )
    assert [a["AnnotationName"] for a in last["Annotations"]] == ["c"]
    assert "NextContinuationToken" not in last
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k", ContinuationToken="not-a-token")[1] == 400


def test_a_thousand_per_version(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    for i in range(1000):
        s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName=f"n{i:04}", AnnotationPayload=b"p")
    assert refused(s3.put_object_annotation, Bucket=bucket, Key="k", AnnotationName="one-more", AnnotationPayload=b"p") == (
        "AnnotationLimitExceeded",
        400,
    )
    # Replacing one of the thousand is no new annotation.
    s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName="n0000", AnnotationPayload=b"q")
    assert s3.list_object_annotations(Bucket=bucket, Key="k")["AnnotationCount"] == 1000


def test_annotations_belong_to_a_version(s3, versioned):
    bucket = versioned
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    answer = s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName="n", AnnotationPayload=b"on v1")
    assert answer["ObjectVersionId"] == v1
    v2 = s3.put_object(Bucket=bucket, Key="k", Body=b"two")["VersionId"]
    # The new version has none; the old one keeps its own.
    assert names(s3, bucket, "k") == []
    assert names(s3, bucket, "k", VersionId=v1) == ["n"]
    s3.put_object_annotation(Bucket=bucket, Key="k", VersionId=v1, AnnotationName="m", AnnotationPayload=b"p")
    got = s3.get_object_annotation(Bucket=bucket, Key="k", VersionId=v1, AnnotationName="n")
    assert got["AnnotationPayload"].read() == b"on v1"
    assert got["ObjectVersionId"] == v1
    # A delete marker hides the key; named by its id it is a 405, as for other subresources.
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k")[1] == 404
    assert refused(s3.get_object_annotation, Bucket=bucket, Key="k", VersionId=marker, AnnotationName="n")[1] == 405
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k", VersionId="0" * 32)[0] == "NoSuchVersion"
    # Deleting the version for good takes its annotations; a version put back has none.
    s3.delete_object(Bucket=bucket, Key="k", VersionId=v1)
    assert refused(s3.list_object_annotations, Bucket=bucket, Key="k", VersionId=v1)[0] == "NoSuchVersion"
    assert names(s3, bucket, "k", VersionId=v2) == []


def test_overwriting_an_unversioned_key_drops_its_annotations(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"one")
    s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName="n", AnnotationPayload=b"p")
    # Versioning's start keeps them: the object becomes the null version.
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    assert names(s3, bucket, "k", VersionId="null") == ["n"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"two")
    assert names(s3, bucket, "k") == []
    s3.put_object_annotation(Bucket=bucket, Key="k", AnnotationName="n", AnnotationPayload=b"p")
    s3.delete_object(Bucket=bucket, Key="k", VersionId="null")
    s3.put_object(Bucket=bucket, Key="k", Body=b"three")
    assert names(s3, bucket, "k") == []


def test_copy_object_annotation_directive(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"x")
    for name in ["a", "b"]:
        s3.put_object_annotation(Bucket=bucket, Key="src", AnnotationName=name, AnnotationPayload=name.encode())
    source = {"Bucket": bucket, "Key": "src"}
    s3.copy_object(Bucket=bucket, Key="copied", CopySource=source)
    assert names(s3, bucket, "copied") == ["a", "b"]
    got = s3.get_object_annotation(Bucket=bucket, Key="copied", AnnotationName="b")
    assert got["AnnotationPayload"].read() == b"b"
    s3.copy_object(Bucket=bucket, Key="excluded", CopySource=source, AnnotationDirective="EXCLUDE")
    assert names(s3, bucket, "excluded") == []
    # Copying onto itself (with new metadata) keeps them: they are read before the source is replaced.
    s3.copy_object(Bucket=bucket, Key="src", CopySource=source, MetadataDirective="REPLACE", Metadata={"m": "2"})
    assert names(s3, bucket, "src") == ["a", "b"]
    assert refused(s3.copy_object, Bucket=bucket, Key="bad", CopySource=source, AnnotationDirective="MOVE") == (
        "InvalidArgument",
        400,
    )


def test_annotations_survive_a_restart(tmp_path):
    server = Stratus("--data-dir", str(tmp_path))
    s3 = server.client("s3")
    s3.create_bucket(Bucket="durable-annotations")
    s3.put_object(Bucket="durable-annotations", Key="k", Body=b"x")
    s3.put_object_annotation(Bucket="durable-annotations", Key="k", AnnotationName="n", AnnotationPayload=b"kept")
    server.stop()
    server = Stratus("--data-dir", str(tmp_path))
    try:
        got = server.client("s3").get_object_annotation(Bucket="durable-annotations", Key="k", AnnotationName="n")
        assert got["AnnotationPayload"].read() == b"kept"
    finally:
        server.stop()
