"""S3's answers in the detail AWS gives them: the elements an error document adds after its
message, owners named by canonical id alone, storage classes, where CreateBucket puts a bucket,
and the checks CompleteMultipartUpload makes. Each expectation is what AWS answered."""

import base64
import uuid
import zlib

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"d-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def refusal(call, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return err.value.response


def error(call, **kwargs):
    return refusal(call, **kwargs)["Error"]


def details(call, **kwargs):
    """The error's elements besides its code and message."""
    return {k: v for k, v in error(call, **kwargs).items() if k not in ("Code", "Message")}


def test_missing_bucket_configurations_name_the_bucket(s3, bucket):
    for call, code in [
        (s3.get_bucket_policy, "NoSuchBucketPolicy"),
        (s3.get_bucket_lifecycle_configuration, "NoSuchLifecycleConfiguration"),
        (s3.get_bucket_tagging, "NoSuchTagSet"),
        (s3.get_bucket_cors, "NoSuchCORSConfiguration"),
        (s3.get_bucket_website, "NoSuchWebsiteConfiguration"),
        (s3.get_bucket_replication, "ReplicationConfigurationNotFoundError"),
    ]:
        got = error(call, Bucket=bucket)
        assert (got["Code"], got["BucketName"]) == (code, bucket), code
    # A configuration kept by id names nothing but itself.
    got = error(s3.get_bucket_analytics_configuration, Bucket=bucket, Id="absent")
    assert got["Code"] == "NoSuchConfiguration" and "BucketName" not in got


def test_bucket_refusals_name_the_bucket(stratus, s3, bucket):
    # Outside us-east-1, creating one's own bucket again is refused.
    eu = stratus.client("s3", region="eu-west-1")
    mine = f"eu-{uuid.uuid4().hex[:10]}"
    eu.create_bucket(Bucket=mine, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    got = error(eu.create_bucket, Bucket=mine, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    assert (got["Code"], got["BucketName"]) == ("BucketAlreadyOwnedByYou", mine)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    got = error(s3.delete_bucket, Bucket=bucket)
    assert (got["Code"], got["BucketName"]) == ("BucketNotEmpty", bucket)
    assert details(s3.create_bucket, Bucket="Upper-Case") == {"BucketName": "Upper-Case"}


def test_an_owner_is_its_canonical_id_alone(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    acl = s3.get_bucket_acl(Bucket=bucket)
    assert set(acl["Owner"]) == {"ID"}
    assert "DisplayName" not in acl["Grants"][0]["Grantee"]
    assert set(s3.get_object_acl(Bucket=bucket, Key="k")["Owner"]) == {"ID"}
    assert set(s3.list_objects(Bucket=bucket)["Contents"][0]["Owner"]) == {"ID"}
    assert set(s3.list_objects_v2(Bucket=bucket, FetchOwner=True)["Contents"][0]["Owner"]) == {"ID"}
    assert set(s3.list_buckets()["Owner"]) == {"ID"}
    upload = s3.create_multipart_upload(Bucket=bucket, Key="m")["UploadId"]
    parts = s3.list_parts(Bucket=bucket, Key="m", UploadId=upload)
    assert set(parts["Owner"]) == {"ID"}
    # Who started the upload still has a display name.
    assert set(parts["Initiator"]) == {"ID", "DisplayName"}
    listed = s3.list_multipart_uploads(Bucket=bucket)["Uploads"][0]
    assert set(listed["Owner"]) == {"ID"} and "DisplayName" in listed["Initiator"]


def test_multipart_refusals_name_the_upload_and_part(s3, bucket):
    absent = "no-such-upload"
    got = error(s3.upload_part, Bucket=bucket, Key="k", UploadId=absent, PartNumber=1, Body=b"x")
    assert (got["Code"], got["UploadId"]) == ("NoSuchUpload", absent)
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    got = error(s3.upload_part, Bucket=bucket, Key="k", UploadId=upload, PartNumber=-1, Body=b"x")
    assert (got["ArgumentName"], got["ArgumentValue"]) == ("partNumber", "-1")
    small = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=1, Body=b"abcd")["ETag"]
    s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=2, Body=b"efgh")
    complete = dict(Bucket=bucket, Key="k", UploadId=upload)
    wrong = "d41d8cd98f00b204e9800998ecf8427e"
    got = error(s3.complete_multipart_upload, **complete, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": wrong}]})
    assert got["Code"] == "InvalidPart"
    assert (got["UploadId"], got["PartNumber"], got["ETag"]) == (upload, "1", wrong)
    got = error(
        s3.complete_multipart_upload,
        **complete,
        MultipartUpload={"Parts": [{"PartNumber": 2, "ETag": small}, {"PartNumber": 1, "ETag": small}]},
    )
    assert (got["Code"], got["UploadId"]) == ("InvalidPartOrder", upload)
    # Part 1 is too small to be followed by another.
    second = s3.list_parts(Bucket=bucket, Key="k", UploadId=upload)["Parts"][1]["ETag"]
    parts = [{"PartNumber": 1, "ETag": small}, {"PartNumber": 2, "ETag": second}]
    got = error(s3.complete_multipart_upload, **complete, MultipartUpload={"Parts": parts})
    assert got["Code"] == "EntityTooSmall"
    assert (got["PartNumber"], got["ProposedSize"], got["MinSizeAllowed"]) == ("1", "4", "5242880")
    assert got["ETag"] == small.strip('"')
    # No part list at all is another refusal than an empty one.
    got = error(s3.complete_multipart_upload, **complete)
    assert (got["Code"], got["Message"]) == ("InvalidRequest", "You must specify at least one part")


def test_complete_checks_the_declared_size_and_checksum_mode(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=1, Body=b"abcd")
    complete = dict(Bucket=bucket, Key="k", UploadId=upload)
    parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    got = error(s3.complete_multipart_upload, **complete, MultipartUpload=parts, MpuObjectSize=5)
    assert got["Message"] == "The provided 'x-amz-mp-object-size' header value 5 does not match what was computed: 4"
    got = error(s3.complete_multipart_upload, **complete, MultipartUpload=parts, ChecksumType="COMPOSITE")
    assert got["Message"] == (
        "The upload was created using the null checksum mode. The complete request must use the same checksum mode."
    )
    # An upload created without a checksum algorithm takes no part checksums.
    crc = base64.b64encode(zlib.crc32(b"abcd").to_bytes(4, "big")).decode()
    with_checksum = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"], "ChecksumCRC32": crc}]}
    assert error(s3.complete_multipart_upload, **complete, MultipartUpload=with_checksum)["Code"] == "InvalidPart"
    done = s3.complete_multipart_upload(**complete, MultipartUpload=parts, MpuObjectSize=4)
    assert done["ETag"].endswith('-1"')

    full = s3.create_multipart_upload(Bucket=bucket, Key="f", ChecksumAlgorithm="CRC32", ChecksumType="FULL_OBJECT")
    got = error(
        s3.complete_multipart_upload,
        Bucket=bucket,
        Key="f",
        UploadId=full["UploadId"],
        MultipartUpload={"Parts": []},
        ChecksumType="COMPOSITE",
    )
    assert "created using the FULL_OBJECT checksum mode" in got["Message"]


def test_reads_name_the_condition_range_and_part_they_could_not_satisfy(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"12345678")
    assert details(s3.get_object, Bucket=bucket, Key="k", IfMatch='"nope"') == {"Condition": "If-Match"}
    got = details(s3.get_object, Bucket=bucket, Key="k", Range="bytes=1024-4096")
    assert got == {"ActualObjectSize": "8", "RangeRequested": "bytes=1024-4096"}
    got = details(s3.get_object, Bucket=bucket, Key="k", PartNumber=2)
    assert got == {"ActualPartCount": "1", "PartNumberRequested": "2"}
    got = details(s3.put_object, Bucket=bucket, Key="k", Body=b"x", IfNoneMatch="*")
    assert got == {"Condition": "If-None-Match"}


def test_delete_markers_refuse_what_only_delete_may_do(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    for call, method in [(s3.get_object_acl, "GET"), (s3.get_object_tagging, "GET")]:
        got = error(call, Bucket=bucket, Key="k", VersionId=marker)
        assert (got["Code"], got["Method"], got["ResourceType"]) == ("MethodNotAllowed", method, "DeleteMarker")
    got = error(s3.put_object_tagging, Bucket=bucket, Key="k", VersionId=marker, Tagging={"TagSet": []})
    assert (got["Method"], got["ResourceType"]) == ("PUT", "DeleteMarker")
    # The same when the marker is only the latest version, not named.
    got = refusal(s3.put_object_acl, Bucket=bucket, Key="k", ACL="private")
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 405
    assert (got["Error"]["Method"], got["Error"]["ResourceType"]) == ("PUT", "DeleteMarker")
    got = error(s3.get_object_tagging, Bucket=bucket, Key="k")
    assert (got["Code"], got["Method"]) == ("MethodNotAllowed", "GET")
    # GetObjectAcl alone reads a deleted key as missing.
    assert error(s3.get_object_acl, Bucket=bucket, Key="k")["Code"] == "NoSuchKey"
    # A read of the object itself is still NoSuchKey.
    assert error(s3.get_object, Bucket=bucket, Key="k")["Code"] == "NoSuchKey"


def test_checksum_mode_is_read_in_any_case_and_parts_answer_their_own(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"test-checksum", ChecksumAlgorithm="SHA256")
    got = s3.get_object(Bucket=bucket, Key="k", ChecksumMode="enabled")
    assert got["ChecksumType"] == "FULL_OBJECT" and "ChecksumSHA256" in got
    # Part 1 of an object not uploaded in parts is the whole object.
    got = s3.head_object(Bucket=bucket, Key="k", PartNumber=1, ChecksumMode="ENABLED")
    assert got["ChecksumType"] == "FULL_OBJECT" and "ChecksumSHA256" in got

    for kind in ["COMPOSITE", "FULL_OBJECT"]:
        key = f"mp-{kind}"
        upload = s3.create_multipart_upload(Bucket=bucket, Key=key, ChecksumAlgorithm="CRC32", ChecksumType=kind)
        part = s3.upload_part(
            Bucket=bucket, Key=key, UploadId=upload["UploadId"], PartNumber=1, Body=b"part", ChecksumAlgorithm="CRC32"
        )
        s3.complete_multipart_upload(
            Bucket=bucket,
            Key=key,
            UploadId=upload["UploadId"],
            MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"], "ChecksumCRC32": part["ChecksumCRC32"]}]},
        )
        for read in (s3.get_object, s3.head_object):
            got = read(Bucket=bucket, Key=key, PartNumber=1, ChecksumMode="ENABLED")
            assert (got["ChecksumCRC32"], got["ChecksumType"]) == (part["ChecksumCRC32"], kind), (kind, read)
            assert got["ResponseMetadata"]["HTTPStatusCode"] == 206


def test_storage_classes(s3, bucket):
    s3.put_object(Bucket=bucket, Key="std", Body=b"x", StorageClass="STANDARD")
    # STANDARD goes unsaid in reads, and is what attributes and listings say.
    assert "StorageClass" not in s3.get_object(Bucket=bucket, Key="std")
    assert "StorageClass" not in s3.head_object(Bucket=bucket, Key="std")
    attrs = s3.get_object_attributes(Bucket=bucket, Key="std", ObjectAttributes=["StorageClass"])
    assert attrs["StorageClass"] == "STANDARD"
    s3.put_object(Bucket=bucket, Key="ia", Body=b"x", StorageClass="STANDARD_IA")
    assert s3.head_object(Bucket=bucket, Key="ia")["StorageClass"] == "STANDARD_IA"
    # A copy is STANDARD unless it asks otherwise.
    s3.copy_object(Bucket=bucket, Key="ia-copy", CopySource=f"{bucket}/ia")
    attrs = s3.get_object_attributes(Bucket=bucket, Key="ia-copy", ObjectAttributes=["StorageClass"])
    assert attrs["StorageClass"] == "STANDARD"
    for archived in ["GLACIER", "DEEP_ARCHIVE"]:
        s3.put_object(Bucket=bucket, Key=archived, Body=b"x", StorageClass=archived)
        answer = refusal(s3.get_object, Bucket=bucket, Key=archived)
        assert answer["ResponseMetadata"]["HTTPStatusCode"] == 403
        assert answer["Error"]["Code"] == "InvalidObjectState"
        assert answer["Error"]["StorageClass"] == archived
        assert s3.head_object(Bucket=bucket, Key=archived)["StorageClass"] == archived
    s3.put_object(Bucket=bucket, Key="ir", Body=b"x", StorageClass="GLACIER_IR")
    assert s3.get_object(Bucket=bucket, Key="ir")["Body"].read() == b"x"
    for call in (s3.put_object, s3.create_multipart_upload):
        got = error(call, Bucket=bucket, Key="o", StorageClass="OUTPOSTS")
        assert (got["Code"], got["StorageClassRequested"]) == ("InvalidStorageClass", "OUTPOSTS")


def test_where_create_bucket_puts_a_bucket(stratus, s3):
    def name():
        return f"loc-{uuid.uuid4().hex[:10]}"

    # Through us-east-1, any other region may be named; a name that is no region may not.
    remote = name()
    s3.create_bucket(Bucket=remote, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    assert s3.get_bucket_location(Bucket=remote)["LocationConstraint"] == "us-west-2"
    assert s3.head_bucket(Bucket=remote)["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == "us-west-2"
    for bad in ["us-east-1", "foo", "aws-global"]:
        got = error(s3.create_bucket, Bucket=name(), CreateBucketConfiguration={"LocationConstraint": bad})
        assert (got["Code"], got["LocationConstraint"]) == ("InvalidLocationConstraint", bad)
    # Through another region, the constraint must name that region.
    eu = stratus.client("s3", region="eu-west-1")
    for bad in ["bar", "aws-global", "us-east-1"]:
        got = error(eu.create_bucket, Bucket=name(), CreateBucketConfiguration={"LocationConstraint": bad})
        assert got["Code"] == "IllegalLocationConstraintException"
        assert got["Message"] == f"The {bad} location constraint is incompatible for the region specific endpoint this request was sent to."
    # EU is eu-west-1's old name, and the bucket keeps it.
    old = name()
    eu.create_bucket(Bucket=old, CreateBucketConfiguration={"LocationConstraint": "EU"})
    assert eu.get_bucket_location(Bucket=old)["LocationConstraint"] == "EU"
    assert [b["BucketRegion"] for b in eu.list_buckets(Prefix=old)["Buckets"]] == ["eu-west-1"]
    east2 = stratus.client("s3", region="us-east-2")
    got = error(east2.create_bucket, Bucket=name(), CreateBucketConfiguration={"LocationConstraint": "EU"})
    assert got["Code"] == "IllegalLocationConstraintException"


def test_configurations_kept_by_id_must_carry_that_id(s3, bucket):
    analytics = {"Id": "inside", "StorageClassAnalysis": {}}
    got = error(s3.put_bucket_analytics_configuration, Bucket=bucket, Id="outside", AnalyticsConfiguration=analytics)
    assert got["Code"] == "MalformedXML"
    tiering = {"Id": "inside", "Status": "Enabled", "Tierings": [{"Days": 90, "AccessTier": "ARCHIVE_ACCESS"}]}
    got = error(
        s3.put_bucket_intelligent_tiering_configuration,
        Bucket=bucket,
        Id="outside",
        IntelligentTieringConfiguration=tiering,
    )
    assert got["Code"] == "MalformedXML"
    inventory = {
        "Id": "inside",
        "IsEnabled": True,
        "IncludedObjectVersions": "All",
        "Schedule": {"Frequency": "Daily"},
        "Destination": {"S3BucketDestination": {"Bucket": f"arn:aws:s3:::{bucket}", "Format": "CSV"}},
    }
    got = error(s3.put_bucket_inventory_configuration, Bucket=bucket, Id="outside", InventoryConfiguration=inventory)
    assert (got["Code"], got["Message"]) == ("IdMismatch", "Document ID does not match the specified configuration ID.")
    put = dict(Bucket=bucket, Id="inside")
    named = {**inventory, "Destination": {"S3BucketDestination": {"Bucket": bucket, "Format": "CSV"}}}
    got = error(s3.put_bucket_inventory_configuration, **put, InventoryConfiguration=named)
    assert (got["Code"], got["Message"]) == ("InvalidS3DestinationBucket", "Invalid bucket ARN.")
    for wrong in [
        {"Schedule": {"Frequency": "Hourly"}},
        {"IncludedObjectVersions": "Wrong"},
        {"OptionalFields": ["TestField"]},
        {"Destination": {"S3BucketDestination": {"Bucket": f"arn:aws:s3:::{bucket}", "Format": "WRONG-FORMAT"}}},
    ]:
        got = error(s3.put_bucket_inventory_configuration, **put, InventoryConfiguration={**inventory, **wrong})
        assert got["Code"] == "MalformedXML", wrong


def test_lifecycle_filters_and_sizes(s3, bucket):
    def put(rule, **kwargs):
        return error(
            s3.put_bucket_lifecycle_configuration,
            Bucket=bucket,
            LifecycleConfiguration={"Rules": [{"ID": "r", "Status": "Enabled", **rule}]},
            **kwargs,
        )

    expire = {"Expiration": {"Days": 7}}
    assert put({**expire, "Filter": {"Prefix": "", "ObjectSizeGreaterThan": 500}})["Code"] == "MalformedXML"
    assert put({**expire, "Filter": {"Prefix": "", "And": {"Prefix": "a"}}})["Code"] == "MalformedXML"
    got = put({**expire, "Filter": {"And": {"Tags": [{"Key": "k", "Value": "1"}, {"Key": "k", "Value": "2"}]}}})
    assert (got["Code"], got["Message"]) == ("InvalidRequest", "Duplicate Tag Keys are not allowed.")
    assert put({**expire, "Filter": {}, "NoncurrentVersionExpiration": {}})["Code"] == "MalformedXML"
    import datetime

    not_midnight = {"Expiration": {"Date": datetime.datetime(2023, 1, 1, 2, 2, tzinfo=datetime.timezone.utc)}, "Filter": {}}
    got = put(not_midnight)
    assert (got["Message"], got["ArgumentName"]) == ("'Date' must be at midnight GMT", "Date") and got["ArgumentValue"]
    got = put({**expire, "Filter": {}}, TransitionDefaultMinimumObjectSize="value")
    assert (got["Code"], got["Message"]) == ("InvalidRequest", "Invalid TransitionDefaultMinimumObjectSize found: value")


def test_error_documents_carry_the_host_id(stratus, bucket):
    import http.client
    import urllib.parse

    address = urllib.parse.urlparse(stratus.endpoint)
    conn = http.client.HTTPConnection(address.hostname, address.port)
    conn.request("GET", f"/{bucket}/absent")
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 404
    assert b"<HostId>" + response.getheader("x-amz-id-2").encode() + b"</HostId>" in body


def test_acl_refusals_name_what_was_wrong(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    owner = s3.list_buckets()["Owner"]
    for put, target in [(s3.put_bucket_acl, {"Bucket": bucket}), (s3.put_object_acl, {"Bucket": bucket, "Key": "k"})]:
        got = error(put, **target, ACL="fake-acl")
        assert (got["Code"], got["ArgumentName"], got["ArgumentValue"]) == ("InvalidArgument", "x-amz-acl", "fake-acl")
        fake_group = "http://acs.amazonaws.com/groups/s3/FakeGroup"
        got = error(put, **target, GrantWrite=f'uri="{fake_group}"')
        assert (got["Message"], got["ArgumentName"], got["ArgumentValue"]) == ("Invalid group uri", "uri", fake_group)
        got = error(put, **target, GrantWrite='fakekey="1234"')
        assert (got["Message"], got["ArgumentName"]) == ("Argument format not recognized", "x-amz-grant-write")
        assert got["ArgumentValue"] == 'fakekey="1234"'
        got = error(put, **target, GrantWrite='id="wrong-id"')
        assert (got["Message"], got["ArgumentName"], got["ArgumentValue"]) == ("Invalid id", "id", "wrong-id")

        group = {"Grantee": {"Type": "Group", "URI": "http://acs.amazonaws.com/groups/s3/LogDelivery"}, "Permission": "WRITE"}
        # A policy document must name its owner.
        assert error(put, **target, AccessControlPolicy={"Grants": [group]})["Code"] == "MalformedACLError"
        bad_permission = {**group, "Permission": "WRONG-PERMISSION"}
        got = error(put, **target, AccessControlPolicy={"Owner": owner, "Grants": [bad_permission]})
        assert got["Code"] == "MalformedACLError"
        got = error(put, **target, AccessControlPolicy={"Owner": {"ID": "wrong-id"}, "Grants": [group]})
        assert (got["Message"], got["ArgumentName"], got["ArgumentValue"]) == ("Invalid id", "CanonicalUser/ID", "wrong-id")
        unknown = {"Grantee": {"Type": "Group", "URI": fake_group}, "Permission": "WRITE"}
        got = error(put, **target, AccessControlPolicy={"Owner": owner, "Grants": [unknown]})
        assert (got["Message"], got["ArgumentName"]) == ("Invalid group uri", "Group/URI")
        got = error(put, **target)
        assert (got["Code"], got["MissingHeaderName"]) == ("MissingSecurityHeader", "x-amz-acl")


def test_null_versions_in_write_answers(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    assert "VersionId" not in s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    copied = s3.copy_object(Bucket=bucket, Key="k", CopySource=f"{bucket}/k", MetadataDirective="REPLACE")
    assert "CopySourceVersionId" not in copied


def test_an_if_modified_since_in_the_future_is_ignored(s3, bucket):
    import datetime

    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    tomorrow = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    assert s3.get_object(Bucket=bucket, Key="k", IfModifiedSince=tomorrow)["Body"].read() == b"x"
    assert s3.head_object(Bucket=bucket, Key="k", IfModifiedSince=tomorrow)["ContentLength"] == 1


def test_get_object_answers_a_response_expires_override(s3, bucket):
    import datetime

    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    when = datetime.datetime(2015, 10, 21, 7, 28, tzinfo=datetime.timezone.utc)
    got = s3.get_object(Bucket=bucket, Key="k", ResponseExpires=when)
    assert got["ResponseMetadata"]["HTTPHeaders"]["expires"] == "Wed, 21 Oct 2015 07:28:00 GMT"


def test_website_redirect_location_is_kept(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", WebsiteRedirectLocation="/elsewhere")
    assert s3.head_object(Bucket=bucket, Key="k")["WebsiteRedirectLocation"] == "/elsewhere"
    assert s3.get_object(Bucket=bucket, Key="k")["WebsiteRedirectLocation"] == "/elsewhere"
    # Naming it again is a change that lets an object be copied onto itself.
    s3.copy_object(Bucket=bucket, Key="k", CopySource=f"{bucket}/k", WebsiteRedirectLocation="/elsewhere")
    assert s3.head_object(Bucket=bucket, Key="k")["WebsiteRedirectLocation"] == "/elsewhere"


def test_digest_refusals_name_the_digests(s3, bucket):
    got = error(s3.put_object, Bucket=bucket, Key="k", Body=b"x", ContentMD5="MTIz")
    assert (got["Code"], got["Content-MD5"]) == ("InvalidDigest", "MTIz")
    other = "CYketZBSTjX8czcs3cXVlg=="  # the MD5 of something else
    got = error(s3.put_object, Bucket=bucket, Key="k", Body=b"test", ContentMD5=other)
    assert got["Code"] == "BadDigest"
    # PutObject writes the digest it expected in hex, UploadPart as sent; both the received in base64.
    assert (got["CalculatedDigest"], got["ExpectedDigest"]) == ("CY9rzUYh03PK3k6DJie09g==", "09891eb590524e35fc73372cddc5d596")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="m")["UploadId"]
    got = error(s3.upload_part, Bucket=bucket, Key="m", UploadId=upload, PartNumber=1, Body=b"test", ContentMD5=other)
    assert (got["CalculatedDigest"], got["ExpectedDigest"]) == ("CY9rzUYh03PK3k6DJie09g==", other)


def test_lock_header_refusals_name_the_header(s3):
    name = f"lock-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    got = error(s3.put_object, Bucket=name, Key="k", Body=b"x", ObjectLockMode="GOVERNANCE")
    assert got["ArgumentName"] == "x-amz-object-lock-retain-until-date"
    # Both headers are asked for before the mode is read.
    got = error(s3.put_object, Bucket=name, Key="k", Body=b"x", ObjectLockMode="BAD-VALUE")
    assert (got["ArgumentName"], "ArgumentValue" in got) == ("x-amz-object-lock-retain-until-date", False)
    import datetime

    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
    got = error(
        s3.put_object, Bucket=name, Key="k", Body=b"x", ObjectLockMode="BAD-VALUE", ObjectLockRetainUntilDate=later
    )
    assert (got["Message"], got["ArgumentName"], got["ArgumentValue"]) == (
        "Unknown wormMode directive.",
        "x-amz-object-lock-mode",
        "BAD-VALUE",
    )


def test_an_unknown_upload_is_no_such_upload_before_anything_else(s3, bucket):
    got = error(s3.complete_multipart_upload, Bucket=bucket, Key="k", UploadId="fakeid")
    assert (got["Code"], got["UploadId"]) == ("NoSuchUpload", "fakeid")
    got = error(s3.abort_multipart_upload, Bucket=bucket, Key="k", UploadId="fakeid")
    assert (got["Code"], got["UploadId"]) == ("NoSuchUpload", "fakeid")


def test_a_copy_of_a_multipart_object_is_one_piece(s3, bucket):
    import hashlib

    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ChecksumAlgorithm="CRC32")["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"whole", ChecksumAlgorithm="CRC32")
    s3.complete_multipart_upload(
        Bucket=bucket,
        Key="mp",
        UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"], "ChecksumCRC32": part["ChecksumCRC32"]}]},
    )
    copied = s3.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/mp")["CopyObjectResult"]
    # The ETag is the bytes' MD5, the checksum a full-object one in the source's algorithm.
    assert copied["ETag"] == f'"{hashlib.md5(b"whole").hexdigest()}"'
    crc = base64.b64encode(zlib.crc32(b"whole").to_bytes(4, "big")).decode()
    assert (copied["ChecksumCRC32"], copied["ChecksumType"]) == (crc, "FULL_OBJECT")


def test_logging_targets_must_exist_in_the_same_region(stratus, s3, bucket):
    logging = lambda target: {"LoggingEnabled": {"TargetBucket": target, "TargetPrefix": "log"}}  # noqa: E731
    missing = f"absent-{uuid.uuid4().hex[:8]}"
    got = error(s3.put_bucket_logging, Bucket=bucket, BucketLoggingStatus=logging(missing))
    assert (got["Code"], got["TargetBucket"]) == ("InvalidTargetBucketForLogging", missing)
    west = f"west-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=west, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    answer = refusal(s3.put_bucket_logging, Bucket=bucket, BucketLoggingStatus=logging(west))
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 403
    got = answer["Error"]
    assert (got["Code"], got["TargetBucketLocation"], "SourceBucketLocation" in got) == (
        "CrossLocationLoggingProhibitted",
        "us-west-2",
        False,
    )
    east2 = f"east2-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=east2, CreateBucketConfiguration={"LocationConstraint": "us-east-2"})
    got = error(s3.put_bucket_logging, Bucket=east2, BucketLoggingStatus=logging(west))
    assert (got["SourceBucketLocation"], got["TargetBucketLocation"]) == ("us-east-2", "us-west-2")


def test_website_configurations_are_checked_as_aws_checks_them(s3, bucket):
    def put(config):
        return error(s3.put_bucket_website, Bucket=bucket, WebsiteConfiguration=config)

    got = put({"IndexDocument": {"Suffix": "/index.html"}})
    assert (got["Message"], got["ArgumentName"], got["ArgumentValue"]) == (
        "The IndexDocument Suffix is not well formed",
        "IndexDocument",
        "/index.html",
    )
    got = put({"RedirectAllRequestsTo": {"HostName": "h"}, "IndexDocument": {"Suffix": "index.html"}})
    assert (got["ArgumentName"], got["ArgumentValue"]) == ("RedirectAllRequestsTo", "not null")
    got = put({"ErrorDocument": {"Key": "e.html"}})
    assert (got["ArgumentName"], got["ArgumentValue"]) == ("IndexDocument", "null")
    index = {"IndexDocument": {"Suffix": "index.html"}}
    got = put({**index, "RoutingRules": [{"Redirect": {"Protocol": "gopher"}}]})
    assert got["Code"] == "InvalidRequest" and got["Message"].startswith("Invalid protocol")
    got = put({**index, "RoutingRules": [{"Redirect": {"ReplaceKeyPrefixWith": "a", "ReplaceKeyWith": "b"}}]})
    assert got["Message"] == "You can only define ReplaceKeyPrefix or ReplaceKey but not both."
    got = put({**index, "RoutingRules": [{"Redirect": {"ReplaceKeyPrefixWith": "a"}, "Condition": {}}]})
    assert got["Message"].startswith("Condition cannot be empty.")
    assert put({**index, "RoutingRules": []})["Code"] == "MalformedXML"


def test_part_reads_of_a_full_object_upload_answer_no_checksum_unless_whole(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k", ChecksumAlgorithm="CRC32", ChecksumType="FULL_OBJECT")
    parts = []
    for number, body in [(1, b"a" * (5 * 1024 * 1024)), (2, b"tail")]:
        part = s3.upload_part(
            Bucket=bucket, Key="k", UploadId=upload["UploadId"], PartNumber=number, Body=body, ChecksumAlgorithm="CRC32"
        )
        parts.append({"PartNumber": number, "ETag": part["ETag"], "ChecksumCRC32": part["ChecksumCRC32"]})
    s3.complete_multipart_upload(Bucket=bucket, Key="k", UploadId=upload["UploadId"], MultipartUpload={"Parts": parts})
    got = s3.get_object(Bucket=bucket, Key="k", PartNumber=1, ChecksumMode="ENABLED")
    assert "ChecksumCRC32" not in got and "ChecksumType" not in got
    assert s3.head_object(Bucket=bucket, Key="k", ChecksumMode="ENABLED")["ChecksumType"] == "FULL_OBJECT"


def test_completion_without_an_algorithm_ignores_a_composite_checksum(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k")["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload, PartNumber=1, Body=b"aaa")
    done = s3.complete_multipart_upload(
        Bucket=bucket,
        Key="k",
        UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]},
        ChecksumCRC32="AAAAAA==-2",
    )
    assert done["ChecksumType"] == "FULL_OBJECT"


def test_complete_answers_the_object_url(stratus, s3, bucket):
    key = "dir/uni_\u2014_file"
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    part = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=1, Body=b"x")
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    )
    # An IP address cannot carry the bucket's name, so the URL is path style.
    assert done["Location"] == f"{stratus.endpoint}/{bucket}/dir/uni_%E2%80%94_file"


def test_a_full_object_checksum_on_completion_needs_its_type(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="k", ChecksumAlgorithm="CRC32", ChecksumType="FULL_OBJECT")
    part = s3.upload_part(Bucket=bucket, Key="k", UploadId=upload["UploadId"], PartNumber=1, Body=b"abc", ChecksumAlgorithm="CRC32")
    complete = dict(
        Bucket=bucket,
        Key="k",
        UploadId=upload["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"], "ChecksumCRC32": part["ChecksumCRC32"]}]},
    )
    # The right value, but without x-amz-checksum-type: FULL_OBJECT, is refused.
    got = error(s3.complete_multipart_upload, **complete, ChecksumCRC32=part["ChecksumCRC32"])
    assert (got["Code"], got["Message"]) == ("BadDigest", "The crc32 you specified did not match the calculated checksum.")
    done = s3.complete_multipart_upload(**complete, ChecksumCRC32=part["ChecksumCRC32"], ChecksumType="FULL_OBJECT")
    assert done["ChecksumCRC32"] == part["ChecksumCRC32"]


def test_a_past_retention_date_is_quoted_as_aws_quotes_it(s3):
    import datetime

    name = f"lock-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    s3.put_object(Bucket=name, Key="k", Body=b"x")
    past = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    got = error(s3.put_object_retention, Bucket=name, Key="k", Retention={"Mode": "GOVERNANCE", "RetainUntilDate": past})
    assert (got["ArgumentName"], got["ArgumentValue"]) == ("RetainUntilDate", "Tue Dec 31 16:00:00 PST 2019")


def test_post_upload_location_names_the_bucket_by_host(stratus, s3, bucket):
    import http.client
    import urllib.parse

    # A path-style form POST through a named host is answered with the virtual-hosted URL.
    address = urllib.parse.urlparse(stratus.endpoint)
    host = f"s3.localhost.localstack.cloud:{address.port}"
    boundary = "b0undary"
    fields = [("key", "k.txt"), ("success_action_status", "201")]
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{n}"\r\n\r\n{v}\r\n' for n, v in fields]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="k.txt"\r\n\r\nhello\r\n')
    body = ("".join(parts) + f"--{boundary}--\r\n").encode()
    s3.put_public_access_block(
        Bucket=bucket,
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": False,
            "IgnorePublicAcls": False,
            "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False,
        },
    )
    s3.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={"Rules": [{"ObjectOwnership": "ObjectWriter"}]})
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    conn = http.client.HTTPConnection(address.hostname, address.port)
    conn.request("POST", f"/{bucket}", body=body, headers={"Host": host, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    response = conn.getresponse()
    response.read()
    conn.close()
    assert response.status == 201
    assert response.getheader("location") == f"http://{bucket}.{host}/k.txt"
