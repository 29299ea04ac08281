"""SSE-KMS on S3 writes ("Using server-side encryption with AWS KMS keys" in the S3 user
guide), through boto3 with Stratus's KMS: the request's key or the AWS managed aws/s3 key, the
bucket's default encryption, and answers naming the key by its ARN."""

import uuid

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def kms(stratus):
    return stratus.client("kms")


@pytest.fixture
def bucket(s3):
    name = f"kms-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def test_a_write_names_its_key(s3, kms, bucket):
    key = kms.create_key()["KeyMetadata"]
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId=key["KeyId"], BucketKeyEnabled=True)
    assert (put["ServerSideEncryption"], put["SSEKMSKeyId"], put["BucketKeyEnabled"]) == ("aws:kms", key["Arn"], True)
    head = s3.head_object(Bucket=bucket, Key="k")
    assert (head["ServerSideEncryption"], head["SSEKMSKeyId"]) == ("aws:kms", key["Arn"])
    # By alias too.
    kms.create_alias(AliasName="alias/objects", TargetKeyId=key["KeyId"])
    put = s3.put_object(Bucket=bucket, Key="a", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId="alias/objects")
    # Without a Bucket Key, answers leave it unsaid (as recorded from AWS).
    assert put["SSEKMSKeyId"] == key["Arn"] and "BucketKeyEnabled" not in put


def test_without_a_key_the_aws_managed_key_is_used(s3, kms, bucket):
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="aws:kms")
    managed = kms.describe_key(KeyId="alias/aws/s3")["KeyMetadata"]
    assert put["SSEKMSKeyId"] == managed["Arn"] and managed["KeyManager"] == "AWS"


def test_the_bucket_default_applies_to_writes_that_ask_nothing(s3, kms, bucket):
    key = kms.create_key()["KeyMetadata"]
    s3.put_bucket_encryption(
        Bucket=bucket,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": key["Arn"]}, "BucketKeyEnabled": True}]
        },
    )
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    assert (put["ServerSideEncryption"], put["SSEKMSKeyId"], put["BucketKeyEnabled"]) == ("aws:kms", key["Arn"], True)
    # A write that asks for SSE-S3 gets it.
    assert s3.put_object(Bucket=bucket, Key="plain", Body=b"x", ServerSideEncryption="AES256")["ServerSideEncryption"] == "AES256"
    # Multipart uploads, their parts and the object follow the default too.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="big")
    assert upload["SSEKMSKeyId"] == key["Arn"]
    part = s3.upload_part(Bucket=bucket, Key="big", UploadId=upload["UploadId"], PartNumber=1, Body=b"p")
    assert part["ServerSideEncryption"] == "aws:kms" and part["SSEKMSKeyId"] == key["Arn"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="big", UploadId=upload["UploadId"], MultipartUpload={"Parts": [{"ETag": part["ETag"], "PartNumber": 1}]}
    )
    assert s3.head_object(Bucket=bucket, Key="big")["SSEKMSKeyId"] == key["Arn"]


def test_copies_take_the_encryption_they_ask_for(s3, kms, bucket):
    key = kms.create_key()["KeyMetadata"]
    s3.put_object(Bucket=bucket, Key="src", Body=b"x")
    copied = s3.copy_object(
        Bucket=bucket, Key="dst", CopySource=f"{bucket}/src", ServerSideEncryption="aws:kms", SSEKMSKeyId=key["KeyId"]
    )
    assert (copied["ServerSideEncryption"], copied["SSEKMSKeyId"]) == ("aws:kms", key["Arn"])
    # Copying onto itself to change its encryption is allowed; without asking, it is SSE-S3 again.
    s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/dst")
    assert s3.head_object(Bucket=bucket, Key="dst")["ServerSideEncryption"] == "AES256"


def test_bad_keys_are_refused(s3, kms, bucket):
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId="alias/not-there")
    assert err.value.response["Error"]["Code"] == "KMS.NotFoundException"
    key = kms.create_key()["KeyMetadata"]
    kms.disable_key(KeyId=key["KeyId"])
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId=key["KeyId"])
    assert err.value.response["Error"]["Code"] == "KMS.DisabledException"
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", SSEKMSKeyId=key["KeyId"])
    assert err.value.response["Error"]["Code"] == "InvalidArgument"
