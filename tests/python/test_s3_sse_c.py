"""SSE-C, server-side encryption with customer-provided keys ("Using server-side encryption
with customer-provided keys (SSE-C)" in the S3 user guide), through boto3: writes name a key,
S3 keeps its MD5, and every read must bring the same key."""

import base64
import hashlib
import io
import os
import uuid

import pytest
from botocore.exceptions import ClientError


def key_headers(raw, prefix=""):
    """boto3's parameters for the 32-byte key `raw`, with its MD5 given as AWS's docs show."""
    return {
        f"{prefix}SSECustomerAlgorithm": "AES256",
        f"{prefix}SSECustomerKey": base64.b64encode(raw).decode(),
        f"{prefix}SSECustomerKeyMD5": base64.b64encode(hashlib.md5(raw).digest()).decode(),
    }


KEY = os.urandom(32)
OTHER_KEY = os.urandom(32)
KEY_MD5 = base64.b64encode(hashlib.md5(KEY).digest()).decode()


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"ssec-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def refusal(err):
    e = err.value.response["Error"]
    return e["Code"], e.get("Message"), err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_an_object_under_a_customer_key(s3, bucket):
    put = s3.put_object(Bucket=bucket, Key="secret", Body=b"classified", **key_headers(KEY))
    assert (put["SSECustomerAlgorithm"], put["SSECustomerKeyMD5"]) == ("AES256", KEY_MD5)
    assert "ServerSideEncryption" not in put
    got = s3.get_object(Bucket=bucket, Key="secret", **key_headers(KEY))
    assert got["Body"].read() == b"classified"
    assert (got["SSECustomerAlgorithm"], got["SSECustomerKeyMD5"]) == ("AES256", KEY_MD5)
    head = s3.head_object(Bucket=bucket, Key="secret", **key_headers(KEY))
    assert head["ContentLength"] == 10 and "ServerSideEncryption" not in head
    attrs = s3.get_object_attributes(Bucket=bucket, Key="secret", ObjectAttributes=["ObjectSize"], **key_headers(KEY))
    assert attrs["ObjectSize"] == 10


def test_reads_need_the_same_key(s3, bucket):
    s3.put_object(Bucket=bucket, Key="secret", Body=b"x", **key_headers(KEY))
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="secret")
    assert refusal(err) == (
        "InvalidRequest",
        "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.",
        400,
    )
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="secret", **key_headers(OTHER_KEY))
    assert refusal(err) == (
        "AccessDenied",
        "Requests specifying Server Side Encryption with Customer provided keys must provide the correct secret key.",
        403,
    )
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="secret", **key_headers(OTHER_KEY))
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    # A key for an object stored without one is refused too.
    s3.put_object(Bucket=bucket, Key="plain", Body=b"y")
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="plain", **key_headers(KEY))
    assert refusal(err)[0] == "InvalidRequest"


@pytest.mark.parametrize(
    "change, code, message",
    [
        ({"ServerSideEncryption": "AES256"}, "InvalidArgument", "Server Side Encryption with Customer provided key is incompatible with the encryption method specified"),
        ({"SSECustomerAlgorithm": "aws:kms"}, "InvalidEncryptionAlgorithmError", "The Encryption request you specified is not valid. Supported value: AES256."),
        ({"SSECustomerKeyMD5": base64.b64encode(b"0" * 16).decode()}, "InvalidArgument", "The calculated MD5 hash of the key did not match the hash that was provided."),
        ({"SSECustomerKey": base64.b64encode(b"short").decode(), "SSECustomerKeyMD5": base64.b64encode(hashlib.md5(b"short").digest()).decode()}, "InvalidArgument", "The secret key was invalid for the specified algorithm."),
    ],
)
def test_bad_customer_keys_are_refused_on_writes(s3, bucket, change, code, message):
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", **{**key_headers(KEY), **change})
    assert refusal(err) == (code, message, 400)
    assert err.value.response["Error"]["ArgumentName"] == "x-amz-server-side-encryption"


def test_copies_read_with_the_source_key_and_write_with_their_own(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"copied", **key_headers(KEY))
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/src")
    assert refusal(err)[0] == "InvalidRequest"
    plain = s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/src", **key_headers(KEY, "CopySource"))
    assert plain["ServerSideEncryption"] == "AES256"
    assert s3.get_object(Bucket=bucket, Key="dst")["Body"].read() == b"copied"
    rekeyed = s3.copy_object(
        Bucket=bucket, Key="dst2", CopySource=f"{bucket}/src", **key_headers(KEY, "CopySource"), **key_headers(OTHER_KEY)
    )
    assert "ServerSideEncryption" not in rekeyed and rekeyed["SSECustomerAlgorithm"] == "AES256"
    assert s3.get_object(Bucket=bucket, Key="dst2", **key_headers(OTHER_KEY))["Body"].read() == b"copied"


def test_multipart_uploads_keep_their_key(s3, bucket):
    made = s3.create_multipart_upload(Bucket=bucket, Key="big", **key_headers(KEY))
    assert made["SSECustomerKeyMD5"] == KEY_MD5 and "ServerSideEncryption" not in made
    upload = made["UploadId"]
    with pytest.raises(ClientError) as err:
        s3.upload_part(Bucket=bucket, Key="big", UploadId=upload, PartNumber=1, Body=b"p")
    assert refusal(err) == (
        "InvalidRequest",
        "The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.",
        400,
    )
    with pytest.raises(ClientError) as err:
        s3.upload_part(Bucket=bucket, Key="big", UploadId=upload, PartNumber=1, Body=b"p", **key_headers(OTHER_KEY))
    assert refusal(err)[1] == "The provided encryption parameters did not match the ones used originally."
    part = s3.upload_part(Bucket=bucket, Key="big", UploadId=upload, PartNumber=1, Body=b"part", **key_headers(KEY))
    assert part["SSECustomerKeyMD5"] == KEY_MD5
    s3.complete_multipart_upload(
        Bucket=bucket, Key="big", UploadId=upload, MultipartUpload={"Parts": [{"ETag": part["ETag"], "PartNumber": 1}]}
    )
    with pytest.raises(ClientError):
        s3.get_object(Bucket=bucket, Key="big")
    assert s3.get_object(Bucket=bucket, Key="big", **key_headers(KEY))["Body"].read() == b"part"


def test_versions_each_keep_their_own_key(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=bucket, Key="v", Body=b"one", **key_headers(KEY))["VersionId"]
    s3.put_object(Bucket=bucket, Key="v", Body=b"two", **key_headers(OTHER_KEY))
    assert s3.get_object(Bucket=bucket, Key="v", **key_headers(OTHER_KEY))["Body"].read() == b"two"
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="v", VersionId=first, **key_headers(OTHER_KEY))
    assert refusal(err)[2] == 403
    assert s3.get_object(Bucket=bucket, Key="v", VersionId=first, **key_headers(KEY))["Body"].read() == b"one"


def test_boto3_transfers_with_a_customer_key(s3, bucket):
    # s3transfer passes the SSE-C parameters to every part and every ranged GET.
    data = os.urandom(9 * 1024 * 1024)
    extra = key_headers(KEY)
    s3.upload_fileobj(io.BytesIO(data), bucket, "transfer", ExtraArgs=extra)
    out = io.BytesIO()
    s3.download_fileobj(bucket, "transfer", out, ExtraArgs=extra)
    assert out.getvalue() == data
