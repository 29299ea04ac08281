"""S3 UpdateObjectEncryption through boto3 against the real binary, and the operations of the
2026-08 model that Stratus refuses by name (NotImplemented, 501).

Source: the UpdateObjectEncryption page of the S3 API reference (its "Errors" list), and
docs/services/s3.md for the refused operations' reasons."""

import datetime
import uuid

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def account(stratus):
    return stratus.client("sts").get_caller_identity()["Account"]


@pytest.fixture
def bucket(s3):
    name = f"enc-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def refused(call, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return err.value.response["Error"]["Code"], err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def kms(arn, bucket_key=None):
    sse = {"KMSKeyArn": arn}
    if bucket_key is not None:
        sse["BucketKeyEnabled"] = bucket_key
    return {"SSEKMS": sse}


def test_update_to_sse_kms_changes_only_the_encryption(s3, bucket, account):
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"hello world")
    before = s3.head_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")
    assert before["ServerSideEncryption"] == "AES256"
    arn = f"arn:aws:kms:us-east-1:{account}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    s3.update_object_encryption(Bucket=bucket, Key="k", ObjectEncryption=kms(arn, True))
    after = s3.head_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")
    assert after["ServerSideEncryption"] == "aws:kms"
    assert after["SSEKMSKeyId"] == arn
    assert after["BucketKeyEnabled"] is True
    for unchanged in ["ETag", "LastModified", "ChecksumCRC32", "ContentLength"]:
        assert after[unchanged] == before[unchanged]
    assert after["ETag"] == put["ETag"]
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["ServerSideEncryption"] == "aws:kms"
    assert got["Body"].read() == b"hello world"
    # A new write is SSE-S3 again.
    s3.put_object(Bucket=bucket, Key="k", Body=b"again")
    assert s3.head_object(Bucket=bucket, Key="k")["ServerSideEncryption"] == "AES256"


def test_update_of_one_version(s3, bucket, account):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"two")
    arn = f"arn:aws:kms:us-east-1:{account}:key/abcd"
    s3.update_object_encryption(Bucket=bucket, Key="k", VersionId=first, ObjectEncryption=kms(arn))
    old = s3.head_object(Bucket=bucket, Key="k", VersionId=first)
    assert (old["ServerSideEncryption"], old["BucketKeyEnabled"]) == ("aws:kms", False)
    assert s3.head_object(Bucket=bucket, Key="k")["ServerSideEncryption"] == "AES256"
    missing = "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrH"
    assert refused(
        s3.update_object_encryption, Bucket=bucket, Key="k", VersionId=missing, ObjectEncryption=kms(arn)
    ) == ("NoSuchVersion", 404)


def test_update_refusals(s3, bucket, account):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    mine = f"arn:aws:kms:us-east-1:{account}:key/abcd"
    other = "arn:aws:kms:us-east-1:111122223333:key/abcd"
    assert refused(s3.update_object_encryption, Bucket=bucket, Key="k", ObjectEncryption=kms(other)) == (
        "AccessDenied",
        403,
    )
    assert refused(s3.update_object_encryption, Bucket=bucket, Key="gone", ObjectEncryption=kms(mine)) == (
        "NoSuchKey",
        404,
    )
    # Not a key ARN: the model's pattern refuses it.
    alias = f"arn:aws:kms:us-east-1:{account}:alias/mine"
    assert refused(s3.update_object_encryption, Bucket=bucket, Key="k", ObjectEncryption=kms(alias))[1] == 400


def test_update_refused_under_object_lock(s3, account):
    name = f"enc-lock-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    until = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    version = s3.put_object(Bucket=name, Key="k", Body=b"x")["VersionId"]
    s3.put_object_retention(
        Bucket=name, Key="k", VersionId=version, Retention={"Mode": "COMPLIANCE", "RetainUntilDate": until}
    )
    arn = f"arn:aws:kms:us-east-1:{account}:key/abcd"
    with pytest.raises(ClientError) as err:
        s3.update_object_encryption(Bucket=name, Key="k", ObjectEncryption=kms(arn))
    assert err.value.response["Error"]["Code"] == "AccessDenied"
    assert "protected by S3 Object Lock" in err.value.response["Error"]["Message"]
    assert s3.head_object(Bucket=name, Key="k")["ServerSideEncryption"] == "AES256"


def test_operations_refused_by_name(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    calls = [
        lambda: s3.update_bucket_metadata_annotation_table_configuration(
            Bucket=bucket, AnnotationTableConfiguration={"ConfigurationState": "DISABLED"}
        ),
    ]
    for call in calls:
        with pytest.raises(ClientError) as err:
            call()
        assert err.value.response["Error"]["Code"] == "NotImplemented"
        assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
