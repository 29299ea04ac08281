"""S3 Object Lock through boto3 against the real binary: the bucket configuration, default
retention, per-version retention and legal holds, and the deletes they refuse.

Wordings and rules follow moto's AWS-verified tests (tests/test_s3/test_s3_locking.py) and the
S3 API reference (PutObjectLockConfiguration, PutObjectRetention, PutObjectLegalHold)."""

import datetime
import uuid

import pytest
from botocore.exceptions import ClientError

PROTECTED = ("AccessDenied", "Access Denied because object protected by object lock.")


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


def new_bucket(s3, lock=False):
    name = f"lk-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=lock)
    return name


def error(err):
    e = err.value.response["Error"]
    return e["Code"], e["Message"]


def later(**delta):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(**delta)


def test_configuration_needs_versioning(s3):
    bucket = new_bucket(s3)
    config = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 1}}}
    with pytest.raises(ClientError) as err:
        s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration=config)
    assert error(err) == (
        "InvalidBucketState",
        "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration",
    )
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409
    # Once versioned, an existing bucket can take Object Lock.
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration=config)
    got = s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"]
    assert got == config
    with pytest.raises(ClientError) as err:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    assert error(err)[0] == "InvalidBucketState"


def test_configuration_is_checked(s3):
    bucket = new_bucket(s3, lock=True)
    bad = [
        ({"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1, "Years": 1}}}, "MalformedXML"),
        ({"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 0}}}, "InvalidArgument"),
        ({}, "MalformedXML"),
    ]
    for config, code in bad:
        with pytest.raises(ClientError) as err:
            s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration=config)
        assert error(err)[0] == code, config
    with pytest.raises(ClientError) as err:
        s3.put_object_lock_configuration(Bucket=bucket)
    assert error(err) == ("MissingRequestBodyError", "Request Body is empty")
    # Without a rule: Object Lock on, no default retention.
    s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    assert s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"] == {"ObjectLockEnabled": "Enabled"}


def test_default_retention_applies_to_new_versions(s3):
    bucket = new_bucket(s3, lock=True)
    s3.put_object_lock_configuration(
        Bucket=bucket,
        ObjectLockConfiguration={"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 1}}},
    )
    version = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    head = s3.head_object(Bucket=bucket, Key="k")
    assert head["ObjectLockMode"] == "COMPLIANCE"
    until = head["ObjectLockRetainUntilDate"]
    assert later(hours=23) < until < later(hours=25)
    retention = s3.get_object_retention(Bucket=bucket, Key="k", VersionId=version)["Retention"]
    assert retention["Mode"] == "COMPLIANCE"
    # COMPLIANCE: no delete of the version, bypass or not; a delete marker is fine.
    for bypass in (False, True):
        with pytest.raises(ClientError) as err:
            s3.delete_object(Bucket=bucket, Key="k", VersionId=version, BypassGovernanceRetention=bypass)
        assert error(err) == PROTECTED
        assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    marker = s3.delete_object(Bucket=bucket, Key="k")
    assert marker["DeleteMarker"] is True
    # Shortening COMPLIANCE retention is refused; extending it is allowed.
    with pytest.raises(ClientError) as err:
        s3.put_object_retention(
            Bucket=bucket, Key="k", VersionId=version, Retention={"Mode": "COMPLIANCE", "RetainUntilDate": later(hours=2)}
        )
    assert error(err) == PROTECTED
    with pytest.raises(ClientError) as err:
        s3.put_object_retention(
            Bucket=bucket,
            Key="k",
            VersionId=version,
            BypassGovernanceRetention=True,
            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": later(days=3)},
        )
    assert error(err) == PROTECTED
    s3.put_object_retention(
        Bucket=bucket, Key="k", VersionId=version, Retention={"Mode": "COMPLIANCE", "RetainUntilDate": later(days=2)}
    )


def test_governance_retention_and_bypass(s3):
    bucket = new_bucket(s3, lock=True)
    version = s3.put_object(
        Bucket=bucket, Key="g", Body=b"x", ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=later(hours=1)
    )["VersionId"]
    head = s3.head_object(Bucket=bucket, Key="g", VersionId=version)
    assert head["ObjectLockMode"] == "GOVERNANCE"
    with pytest.raises(ClientError) as err:
        s3.delete_object(Bucket=bucket, Key="g", VersionId=version)
    assert error(err) == PROTECTED
    # DeleteObjects reports the refusal per key.
    out = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "g", "VersionId": version}]})
    assert out["Errors"] == [{"Key": "g", "VersionId": version, "Code": PROTECTED[0], "Message": PROTECTED[1]}]
    # Shortening GOVERNANCE needs the bypass.
    with pytest.raises(ClientError) as err:
        s3.put_object_retention(
            Bucket=bucket, Key="g", VersionId=version, Retention={"Mode": "GOVERNANCE", "RetainUntilDate": later(minutes=30)}
        )
    assert error(err) == PROTECTED
    s3.put_object_retention(
        Bucket=bucket,
        Key="g",
        VersionId=version,
        BypassGovernanceRetention=True,
        Retention={"Mode": "GOVERNANCE", "RetainUntilDate": later(minutes=30)},
    )
    out = s3.delete_objects(
        Bucket=bucket, Delete={"Objects": [{"Key": "g", "VersionId": version}]}, BypassGovernanceRetention=True
    )
    assert out["Deleted"] == [{"Key": "g", "VersionId": version}]


def test_legal_hold(s3):
    bucket = new_bucket(s3, lock=True)
    version = s3.put_object(Bucket=bucket, Key="h", Body=b"x", ObjectLockLegalHoldStatus="ON")["VersionId"]
    assert s3.head_object(Bucket=bucket, Key="h")["ObjectLockLegalHoldStatus"] == "ON"
    assert s3.get_object_legal_hold(Bucket=bucket, Key="h")["LegalHold"] == {"Status": "ON"}
    with pytest.raises(ClientError) as err:
        s3.delete_object(Bucket=bucket, Key="h", VersionId=version, BypassGovernanceRetention=True)
    assert error(err) == PROTECTED
    s3.put_object_legal_hold(Bucket=bucket, Key="h", VersionId=version, LegalHold={"Status": "OFF"})
    assert s3.get_object_legal_hold(Bucket=bucket, Key="h", VersionId=version)["LegalHold"] == {"Status": "OFF"}
    s3.delete_object(Bucket=bucket, Key="h", VersionId=version)
    # An object that never had a hold or retention.
    s3.put_object(Bucket=bucket, Key="plain", Body=b"x")
    for call in (s3.get_object_legal_hold, s3.get_object_retention):
        with pytest.raises(ClientError) as err:
            call(Bucket=bucket, Key="plain")
        assert error(err)[0] == "NoSuchObjectLockConfiguration"


def test_lock_needs_a_lock_bucket(s3):
    bucket = new_bucket(s3)
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=later(hours=1))
    assert error(err) == ("InvalidRequest", "Bucket is missing Object Lock Configuration")
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(ClientError) as err:
        s3.put_object_legal_hold(Bucket=bucket, Key="k", LegalHold={"Status": "ON"})
    assert error(err) == ("InvalidRequest", "Bucket is missing Object Lock Configuration")
    with pytest.raises(ClientError) as err:
        s3.get_object_retention(Bucket=bucket, Key="k")
    assert error(err) == ("InvalidRequest", "Bucket is missing Object Lock Configuration")


def test_lock_headers_are_checked(s3):
    bucket = new_bucket(s3, lock=True)
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ObjectLockMode="GOVERNANCE")
    assert error(err)[0] == "InvalidArgument"
    with pytest.raises(ClientError) as err:
        s3.put_object(
            Bucket=bucket,
            Key="k",
            Body=b"x",
            ObjectLockMode="GOVERNANCE",
            ObjectLockRetainUntilDate=later(hours=-1),
        )
    assert error(err) == ("InvalidArgument", "The retain until date must be in the future!")


def test_copy_and_multipart_take_lock_headers(s3):
    bucket = new_bucket(s3, lock=True)
    s3.put_object(Bucket=bucket, Key="src", Body=b"x", ObjectLockLegalHoldStatus="ON")
    # A copy's lock is the request's, not the source's.
    s3.copy_object(
        Bucket=bucket,
        Key="copy",
        CopySource=f"{bucket}/src",
        ObjectLockMode="GOVERNANCE",
        ObjectLockRetainUntilDate=later(hours=1),
    )
    head = s3.head_object(Bucket=bucket, Key="copy")
    assert head["ObjectLockMode"] == "GOVERNANCE"
    assert "ObjectLockLegalHoldStatus" not in head
    upload = s3.create_multipart_upload(
        Bucket=bucket, Key="mp", ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=later(hours=1)
    )["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"p")
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key="mp",
        UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]},
    )
    assert s3.head_object(Bucket=bucket, Key="mp")["ObjectLockMode"] == "COMPLIANCE"
