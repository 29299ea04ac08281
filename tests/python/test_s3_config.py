"""S3 bucket configuration subresources through boto3 against the real binary: each one
round-tripped, AWS's answer where none is set, AWS's checks, and the settings that refuse
requests (ownership controls, public access block)."""

import datetime
import json
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"c-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def code(err):
    return err.value.response["Error"]["Code"]


def status(err):
    return err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def refused(call, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return code(err), status(err)


def test_cors(s3, bucket):
    assert refused(s3.get_bucket_cors, Bucket=bucket) == ("NoSuchCORSConfiguration", 404)
    rules = [
        {
            "ID": "web",
            "AllowedHeaders": ["*"],
            "AllowedMethods": ["GET", "PUT"],
            "AllowedOrigins": ["https://example.com"],
            "ExposeHeaders": ["ETag"],
            "MaxAgeSeconds": 3000,
        },
        {"AllowedMethods": ["GET"], "AllowedOrigins": ["*"]},
    ]
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": rules})
    assert s3.get_bucket_cors(Bucket=bucket)["CORSRules"] == rules
    # S3 user guide, CORS configuration: methods are GET, PUT, POST, DELETE and HEAD only.
    bad = {"CORSRules": [{"AllowedMethods": ["PATCH"], "AllowedOrigins": ["*"]}]}
    assert refused(s3.put_bucket_cors, Bucket=bucket, CORSConfiguration=bad) == ("InvalidRequest", 400)
    bad = {"CORSRules": [{"AllowedMethods": ["GET"], "AllowedOrigins": ["https://*.*.example.com"]}]}
    assert refused(s3.put_bucket_cors, Bucket=bucket, CORSConfiguration=bad) == ("InvalidRequest", 400)
    s3.delete_bucket_cors(Bucket=bucket)
    assert refused(s3.get_bucket_cors, Bucket=bucket) == ("NoSuchCORSConfiguration", 404)


def policy(bucket, principal="*", resource=None):
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "read",
                    "Effect": "Allow",
                    "Principal": principal,
                    "Action": "s3:GetObject",
                    "Resource": resource or f"arn:aws:s3:::{bucket}/*",
                }
            ],
        }
    )


def test_policy_and_public_access_block(s3, bucket):
    assert refused(s3.get_bucket_policy, Bucket=bucket) == ("NoSuchBucketPolicy", 404)
    assert refused(s3.get_bucket_policy_status, Bucket=bucket) == ("NoSuchBucketPolicy", 404)
    # New buckets block public access (AWS's default since April 2023).
    block = s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert block == {
        "BlockPublicAcls": True,
        "IgnorePublicAcls": True,
        "BlockPublicPolicy": True,
        "RestrictPublicBuckets": True,
    }
    assert refused(s3.put_bucket_policy, Bucket=bucket, Policy=policy(bucket)) == ("AccessDenied", 403)
    private = policy(bucket, principal={"AWS": "arn:aws:iam::000000000000:root"})
    s3.put_bucket_policy(Bucket=bucket, Policy=private)
    assert json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"]) == json.loads(private)
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"] == {"IsPublic": False}

    s3.delete_public_access_block(Bucket=bucket)
    assert refused(s3.get_public_access_block, Bucket=bucket) == ("NoSuchPublicAccessBlockConfiguration", 404)
    s3.put_bucket_policy(Bucket=bucket, Policy=policy(bucket))
    assert s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"] == {"IsPublic": True}
    s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={"BlockPublicAcls": True})
    block = s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert block == {
        "BlockPublicAcls": True,
        "IgnorePublicAcls": False,
        "BlockPublicPolicy": False,
        "RestrictPublicBuckets": False,
    }

    # MalformedPolicy, as PutBucketPolicy answers it.
    for bad in ["not json", "{}", policy(bucket, resource="arn:aws:s3:::someone-else/*")]:
        assert refused(s3.put_bucket_policy, Bucket=bucket, Policy=bad) == ("MalformedPolicy", 400), bad
    s3.delete_bucket_policy(Bucket=bucket)
    assert refused(s3.get_bucket_policy, Bucket=bucket) == ("NoSuchBucketPolicy", 404)


def test_default_encryption(s3, bucket):
    # Every bucket has SSE-S3 default encryption (AWS, January 2023).
    rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rules == [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}, "BucketKeyEnabled": False}]
    kms = {
        "Rules": [
            {
                "ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "alias/key"},
                "BucketKeyEnabled": True,
            }
        ]
    }
    s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration=kms)
    assert s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"] == kms
    bad = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256", "KMSMasterKeyID": "k"}}]}
    assert refused(s3.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=bad)[0] == "InvalidArgument"
    s3.delete_bucket_encryption(Bucket=bucket)
    rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rules[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"


def test_ownership_controls_and_acls(s3, bucket):
    # New buckets enforce bucket ownership: ACLs are disabled (AWS's default since April 2023).
    controls = s3.get_bucket_ownership_controls(Bucket=bucket)["OwnershipControls"]
    assert controls == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    acl = s3.get_bucket_acl(Bucket=bucket)
    assert [g["Permission"] for g in acl["Grants"]] == ["FULL_CONTROL"]
    assert acl["Grants"][0]["Grantee"]["ID"] == acl["Owner"]["ID"]
    # S3 user guide, "Troubleshooting" (object ownership): AccessControlListNotSupported.
    assert refused(s3.put_bucket_acl, Bucket=bucket, ACL="public-read") == ("AccessControlListNotSupported", 400)
    assert refused(s3.put_object, Bucket=bucket, Key="k", Body=b"x", ACL="public-read") == (
        "AccessControlListNotSupported",
        400,
    )
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", ACL="bucket-owner-full-control")
    s3.put_bucket_acl(Bucket=bucket, ACL="private")
    assert refused(s3.create_multipart_upload, Bucket=bucket, Key="mp", ACL="public-read")[0] == (
        "AccessControlListNotSupported"
    )
    assert refused(
        s3.copy_object, Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "k"}, ACL="public-read"
    )[0] == "AccessControlListNotSupported"

    s3.put_bucket_ownership_controls(
        Bucket=bucket, OwnershipControls={"Rules": [{"ObjectOwnership": "ObjectWriter"}]}
    )
    assert s3.get_bucket_ownership_controls(Bucket=bucket)["OwnershipControls"]["Rules"] == [
        {"ObjectOwnership": "ObjectWriter"}
    ]
    # Public ACLs are still blocked by the public access block...
    assert refused(s3.put_bucket_acl, Bucket=bucket, ACL="public-read") == ("AccessDenied", 403)
    s3.delete_public_access_block(Bucket=bucket)
    # ...and allowed once it is gone.
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    grants = s3.get_bucket_acl(Bucket=bucket)["Grants"]
    assert {(g["Grantee"].get("URI"), g["Permission"]) for g in grants} == {
        (None, "FULL_CONTROL"),
        ("http://acs.amazonaws.com/groups/global/AllUsers", "READ"),
    }
    # A bucket whose ACL grants others cannot go back to BucketOwnerEnforced.
    assert refused(
        s3.put_bucket_ownership_controls,
        Bucket=bucket,
        OwnershipControls={"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]},
    ) == ("InvalidBucketAclWithObjectOwnership", 400)

    # Object ACLs: canned, headers and documents.
    s3.put_object(Bucket=bucket, Key="o", Body=b"x", ACL="public-read")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ACL="public-read")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"p")["ETag"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]}
    )
    assert len(s3.get_object_acl(Bucket=bucket, Key="mp")["Grants"]) == 2
    s3.copy_object(Bucket=bucket, Key="copied", CopySource={"Bucket": bucket, "Key": "mp"})
    assert len(s3.get_object_acl(Bucket=bucket, Key="copied")["Grants"]) == 1
    grants = s3.get_object_acl(Bucket=bucket, Key="o")["Grants"]
    assert ("http://acs.amazonaws.com/groups/global/AllUsers", "READ") in {
        (g["Grantee"].get("URI"), g["Permission"]) for g in grants
    }
    owner = s3.get_bucket_acl(Bucket=bucket)["Owner"]
    s3.put_object_acl(
        Bucket=bucket,
        Key="o",
        AccessControlPolicy={
            "Owner": owner,
            "Grants": [{"Grantee": {"Type": "CanonicalUser", "ID": owner["ID"]}, "Permission": "READ"}],
        },
    )
    grants = s3.get_object_acl(Bucket=bucket, Key="o")["Grants"]
    assert [(g["Grantee"]["ID"], g["Permission"]) for g in grants] == [(owner["ID"], "READ")]
    s3.put_object_acl(Bucket=bucket, Key="o", GrantRead='uri="http://acs.amazonaws.com/groups/global/AuthenticatedUsers"')
    grants = s3.get_object_acl(Bucket=bucket, Key="o")["Grants"]
    assert [(g["Grantee"]["URI"], g["Permission"]) for g in grants] == [
        ("http://acs.amazonaws.com/groups/global/AuthenticatedUsers", "READ")
    ]
    assert refused(s3.put_object_acl, Bucket=bucket, Key="o", ACL="private", GrantRead='id="abc"')[0] == "InvalidRequest"
    assert refused(s3.get_object_acl, Bucket=bucket, Key="missing")[0] == "NoSuchKey"

    s3.delete_bucket_ownership_controls(Bucket=bucket)
    assert refused(s3.get_bucket_ownership_controls, Bucket=bucket) == ("OwnershipControlsNotFoundError", 404)


def test_create_bucket_with_ownership_and_acl(s3):
    name = f"c-{uuid.uuid4().hex[:12]}"
    assert refused(s3.create_bucket, Bucket=name, ACL="public-read") == ("InvalidBucketAclWithObjectOwnership", 400)
    s3.create_bucket(Bucket=name, ObjectOwnership="BucketOwnerPreferred", ACL="public-read")
    rules = s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"]
    assert rules == [{"ObjectOwnership": "BucketOwnerPreferred"}]
    assert len(s3.get_bucket_acl(Bucket=name)["Grants"]) == 2


def test_website(s3, bucket):
    assert refused(s3.get_bucket_website, Bucket=bucket) == ("NoSuchWebsiteConfiguration", 404)
    site = {
        "IndexDocument": {"Suffix": "index.html"},
        "ErrorDocument": {"Key": "error.html"},
        "RoutingRules": [
            {"Condition": {"KeyPrefixEquals": "docs/"}, "Redirect": {"ReplaceKeyPrefixWith": "documents/"}}
        ],
    }
    s3.put_bucket_website(Bucket=bucket, WebsiteConfiguration=site)
    got = s3.get_bucket_website(Bucket=bucket)
    assert {k: got[k] for k in site} == site
    s3.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"RedirectAllRequestsTo": {"HostName": "example.com"}})
    assert s3.get_bucket_website(Bucket=bucket)["RedirectAllRequestsTo"] == {"HostName": "example.com"}
    assert refused(s3.put_bucket_website, Bucket=bucket, WebsiteConfiguration={"ErrorDocument": {"Key": "e"}})[0] == (
        "InvalidArgument"
    )
    s3.delete_bucket_website(Bucket=bucket)
    assert refused(s3.get_bucket_website, Bucket=bucket) == ("NoSuchWebsiteConfiguration", 404)


def test_lifecycle(s3, bucket):
    assert refused(s3.get_bucket_lifecycle_configuration, Bucket=bucket) == ("NoSuchLifecycleConfiguration", 404)
    rules = [
        {"ID": "logs", "Filter": {"Prefix": "logs/"}, "Status": "Enabled", "Expiration": {"Days": 30}},
        {
            "ID": "archive",
            "Filter": {"And": {"Prefix": "data/", "Tags": [{"Key": "k", "Value": "v"}]}},
            "Status": "Disabled",
            "Transitions": [{"Days": 90, "StorageClass": "GLACIER"}],
            "NoncurrentVersionExpiration": {"NoncurrentDays": 10},
        },
        {
            "ID": "dated",
            "Filter": {"Prefix": ""},
            "Status": "Enabled",
            "Expiration": {"Date": datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)},
            "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 7},
        },
    ]
    put = s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    assert put["TransitionDefaultMinimumObjectSize"] == "all_storage_classes_128K"
    got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)
    assert got["Rules"] == rules
    assert got["TransitionDefaultMinimumObjectSize"] == "all_storage_classes_128K"

    def bad(rule):
        return refused(s3.put_bucket_lifecycle_configuration, Bucket=bucket, LifecycleConfiguration={"Rules": [rule]})[0]

    base = {"ID": "r", "Filter": {"Prefix": ""}, "Status": "Enabled", "Expiration": {"Days": 1}}
    assert bad({**base, "Expiration": {"Days": 0}}) == "InvalidArgument"
    assert bad({**base, "ID": "x" * 256}) == "InvalidArgument"
    assert bad({k: v for k, v in base.items() if k != "Expiration"}) == "InvalidRequest"
    assert bad({**base, "Expiration": {"Date": datetime.datetime(2030, 1, 1, 12, tzinfo=datetime.timezone.utc)}}) == (
        "InvalidArgument"
    )
    assert (
        refused(
            s3.put_bucket_lifecycle_configuration,
            Bucket=bucket,
            LifecycleConfiguration={"Rules": [base, base]},
        )[0]
        == "InvalidArgument"
    )
    s3.delete_bucket_lifecycle(Bucket=bucket)
    assert refused(s3.get_bucket_lifecycle_configuration, Bucket=bucket) == ("NoSuchLifecycleConfiguration", 404)


def test_accelerate_request_payment_logging_notification(s3, bucket):
    assert "Status" not in s3.get_bucket_accelerate_configuration(Bucket=bucket)
    s3.put_bucket_accelerate_configuration(Bucket=bucket, AccelerateConfiguration={"Status": "Enabled"})
    assert s3.get_bucket_accelerate_configuration(Bucket=bucket)["Status"] == "Enabled"
    dotted = f"c.{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=dotted)
    assert refused(
        s3.put_bucket_accelerate_configuration, Bucket=dotted, AccelerateConfiguration={"Status": "Enabled"}
    ) == ("InvalidRequest", 400)

    assert s3.get_bucket_request_payment(Bucket=bucket)["Payer"] == "BucketOwner"
    s3.put_bucket_request_payment(Bucket=bucket, RequestPaymentConfiguration={"Payer": "Requester"})
    assert s3.get_bucket_request_payment(Bucket=bucket)["Payer"] == "Requester"

    assert "LoggingEnabled" not in s3.get_bucket_logging(Bucket=bucket)
    logging = {"TargetBucket": dotted, "TargetPrefix": "logs/"}
    s3.put_bucket_logging(Bucket=bucket, BucketLoggingStatus={"LoggingEnabled": logging})
    assert s3.get_bucket_logging(Bucket=bucket)["LoggingEnabled"] == logging
    missing = {"TargetBucket": "no-such-" + uuid.uuid4().hex[:8], "TargetPrefix": ""}
    assert refused(s3.put_bucket_logging, Bucket=bucket, BucketLoggingStatus={"LoggingEnabled": missing}) == (
        "InvalidTargetBucketForLogging",
        400,
    )
    s3.put_bucket_logging(Bucket=bucket, BucketLoggingStatus={})
    assert "LoggingEnabled" not in s3.get_bucket_logging(Bucket=bucket)

    empty = s3.get_bucket_notification_configuration(Bucket=bucket)
    assert not any(k.endswith("Configurations") for k in empty)
    queue = "arn:aws:sqs:us-east-1:000000000000:events"
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {
                    "QueueArn": queue,
                    "Events": ["s3:ObjectCreated:*"],
                    "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "in/"}]}},
                }
            ],
            "EventBridgeConfiguration": {},
        },
        # The queue does not exist: this test is about the round trip (delivery and the
        # validation skipped here are tests/python/test_s3_notifications.py's).
        SkipDestinationValidation=True,
    )
    got = s3.get_bucket_notification_configuration(Bucket=bucket)
    [q] = got["QueueConfigurations"]
    # AWS names a configuration sent without an id.
    assert q["Id"] and q["QueueArn"] == queue and q["Events"] == ["s3:ObjectCreated:*"]
    assert q["Filter"]["Key"]["FilterRules"][0]["Value"] == "in/"
    assert "EventBridgeConfiguration" in got


def test_location_of_a_bucket_created_elsewhere(stratus):
    eu = stratus.client("s3", region="eu-central-1")
    name = f"c-{uuid.uuid4().hex[:12]}"
    eu.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-central-1"})
    assert eu.get_bucket_location(Bucket=name)["LocationConstraint"] == "eu-central-1"


def test_configuration_is_not_inherited_by_a_new_bucket_of_the_same_name(s3):
    name = f"c-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": [{"AllowedMethods": ["GET"], "AllowedOrigins": ["*"]}]})
    s3.delete_bucket(Bucket=name)
    s3.create_bucket(Bucket=name)
    assert refused(s3.get_bucket_cors, Bucket=name) == ("NoSuchCORSConfiguration", 404)


def test_configuration_survives_a_restart(tmp_path):
    data_dir = str(tmp_path / "data")
    server = Stratus("--data-dir", data_dir)
    try:
        s3 = server.client("s3")
        s3.create_bucket(Bucket="durable-config")
        s3.put_bucket_cors(
            Bucket="durable-config",
            CORSConfiguration={"CORSRules": [{"AllowedMethods": ["GET"], "AllowedOrigins": ["*"]}]},
        )
        s3.delete_public_access_block(Bucket="durable-config")
        s3.put_bucket_policy(Bucket="durable-config", Policy=policy("durable-config"))
    finally:
        server.stop()
    server = Stratus("--data-dir", data_dir)
    try:
        s3 = server.client("s3")
        assert s3.get_bucket_cors(Bucket="durable-config")["CORSRules"][0]["AllowedOrigins"] == ["*"]
        assert s3.get_bucket_policy_status(Bucket="durable-config")["PolicyStatus"]["IsPublic"] is True
        assert refused(s3.get_public_access_block, Bucket="durable-config")[0] == "NoSuchPublicAccessBlockConfiguration"
    finally:
        server.stop()


def test_object_lock_and_replication_answers(s3, bucket):
    locked = f"c-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=locked, ObjectLockEnabledForBucket=True)
    got = s3.get_object_lock_configuration(Bucket=locked)["ObjectLockConfiguration"]
    assert got["ObjectLockEnabled"] == "Enabled"
    # Object Lock keeps versioning enabled (S3 user guide, "Object Lock considerations").
    assert s3.get_bucket_versioning(Bucket=locked)["Status"] == "Enabled"
    assert refused(s3.put_bucket_versioning, Bucket=locked, VersioningConfiguration={"Status": "Suspended"}) == (
        "InvalidBucketState",
        409,
    )
    assert refused(s3.get_object_lock_configuration, Bucket=bucket) == ("ObjectLockConfigurationNotFoundError", 404)
    assert refused(s3.get_bucket_replication, Bucket=bucket) == ("ReplicationConfigurationNotFoundError", 404)


def versioned_bucket(s3):
    name = f"c-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


def refusal(call, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return code(err), err.value.response["Error"]["Message"]


# PutBucketReplication's checks (S3 API reference; the versioning message as moto's AWS-checked
# tests record it, the destination messages as AWS answers them in Terraform's reports). The
# configuration is stored, not acted on: nothing is replicated.
def test_replication_configuration_is_checked_stored_and_removed(s3, bucket):
    role = "arn:aws:iam::000000000000:role/replication"
    destination = versioned_bucket(s3)
    rule = {"Prefix": "", "Status": "Enabled", "Destination": {"Bucket": f"arn:aws:s3:::{destination}"}}
    v1 = {"Role": role, "Rules": [rule]}
    assert refusal(s3.put_bucket_replication, Bucket=bucket, ReplicationConfiguration=v1) == (
        "InvalidRequest",
        "Versioning must be 'Enabled' on the bucket to apply a replication configuration",
    )
    source = versioned_bucket(s3)
    unversioned = f"c-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=unversioned)

    def with_destination(name):
        return {**v1, "Rules": [{**v1["Rules"][0], "Destination": {"Bucket": f"arn:aws:s3:::{name}"}}]}

    absent = with_destination(f"c-absent-{uuid.uuid4().hex[:8]}")
    # AWS words a missing destination as one without versioning.
    assert refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=absent) == (
        "InvalidRequest",
        "Destination bucket must have versioning enabled.",
    )
    assert refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=with_destination(unversioned)) == (
        "InvalidRequest",
        "Destination bucket must have versioning enabled.",
    )
    onto_itself = with_destination(source)
    assert refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=onto_itself) == (
        "InvalidRequest",
        "Destination bucket cannot be the same as the source bucket.",
    )
    no_role = {"Rules": v1["Rules"]}
    assert refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=no_role)[0] == "InvalidArgument"
    plain_name = {**v1, "Rules": [{**v1["Rules"][0], "Destination": {"Bucket": destination}}]}
    assert refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=plain_name) == (
        "InvalidArgument",
        "Invalid bucket ARN",
    )
    # The V2 schema (rules with a Filter) needs a Priority and DeleteMarkerReplication.
    v2_rule = {"Filter": {"Prefix": "logs/"}, "Status": "Enabled", "Destination": rule["Destination"]}
    no_priority = {"Role": role, "Rules": [v2_rule]}
    refused_code, message = refusal(s3.put_bucket_replication, Bucket=source, ReplicationConfiguration=no_priority)
    assert (refused_code, message.split(" for this version")[0]) == ("InvalidRequest", "Priority must be specified")

    s3.put_bucket_replication(Bucket=source, ReplicationConfiguration=v1)
    got = s3.get_bucket_replication(Bucket=source)["ReplicationConfiguration"]
    assert got["Role"] == role
    [stored] = got["Rules"]
    assert stored["ID"], "S3 names a rule sent without an ID"
    assert (stored["Prefix"], stored["Status"], stored["Destination"]) == ("", "Enabled", rule["Destination"])

    v2 = {
        "Role": role,
        "Rules": [
            {**v2_rule, "ID": "logs", "Priority": 1, "DeleteMarkerReplication": {"Status": "Disabled"}},
            {**v2_rule, "ID": "all", "Priority": 2, "Filter": {}, "DeleteMarkerReplication": {"Status": "Enabled"}},
        ],
    }
    s3.put_bucket_replication(Bucket=source, ReplicationConfiguration=v2)
    got = s3.get_bucket_replication(Bucket=source)["ReplicationConfiguration"]["Rules"]
    assert [(r["ID"], r["Priority"], r["DeleteMarkerReplication"]["Status"]) for r in got] == [
        ("logs", 1, "Disabled"),
        ("all", 2, "Enabled"),
    ]

    s3.delete_bucket_replication(Bucket=source)
    assert refused(s3.get_bucket_replication, Bucket=source) == ("ReplicationConfigurationNotFoundError", 404)


# "By default, ABAC is disabled for all Amazon S3 general purpose buckets" (S3 user guide).
def test_abac(s3, bucket):
    assert s3.get_bucket_abac(Bucket=bucket)["AbacStatus"] == {"Status": "Disabled"}
    s3.put_bucket_abac(Bucket=bucket, AbacStatus={"Status": "Enabled"})
    assert s3.get_bucket_abac(Bucket=bucket)["AbacStatus"] == {"Status": "Enabled"}
    s3.put_bucket_abac(Bucket=bucket, AbacStatus={"Status": "Disabled"})
    assert s3.get_bucket_abac(Bucket=bucket)["AbacStatus"] == {"Status": "Disabled"}
    assert refused(s3.put_bucket_abac, Bucket=bucket, AbacStatus={"Status": "Sometimes"})[1] == 400
    assert refused(s3.get_bucket_abac, Bucket=f"missing-{bucket}") == ("NoSuchBucket", 404)
    assert refused(s3.put_bucket_abac, Bucket=f"missing-{bucket}", AbacStatus={"Status": "Enabled"}) == (
        "NoSuchBucket",
        404,
    )
