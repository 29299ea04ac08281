"""S3 lifecycle expiration applied, through boto3 against the real binary.

Behaviour follows the S3 user guide: "Lifecycle configuration elements" (filters, Status,
NoncurrentVersionExpiration with NewerNoncurrentVersions), "How Amazon S3 calculates when an
object expires" (creation time plus the days, rounded up to the next midnight UTC),
"Expiring objects" (a versioned bucket gets a delete marker, an unversioned one loses the
object; nothing happens while a delete marker is current), "Managing delete markers"
(expired object delete markers) and the x-amz-expiration header of PutObject, GetObject and
HeadObject (`expiry-date="...", rule-id="..."`).

The servers here shorten a lifecycle "day" to DAY_SECONDS and sweep every INTERVAL seconds
(STRATUS_S3_LIFECYCLE_DAY_SECONDS, STRATUS_S3_LIFECYCLE_INTERVAL), so a one-day rule acts
within a few seconds."""

import datetime
import email.utils
import json
import os
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus

INTERVAL = "0.2"
DAY_SECONDS = "1"


def start(*args, interval=INTERVAL, day=DAY_SECONDS):
    """A server whose lifecycle sweeper runs every `interval` seconds with `day`-second days."""
    env = {"STRATUS_S3_LIFECYCLE_INTERVAL": interval, "STRATUS_S3_LIFECYCLE_DAY_SECONDS": day}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return Stratus(*args)
    finally:
        for k, v in old.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def server():
    s = start("--ephemeral")
    yield s
    s.stop()


@pytest.fixture
def s3(server):
    return server.client("s3")


def wait_for(check, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def new_bucket(s3, versioned=False, lock=False):
    name = f"lc-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=lock)
    if versioned and not lock:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


def rule(rule_id, status="Enabled", prefix="", **actions):
    return {"ID": rule_id, "Status": status, "Filter": {"Prefix": prefix}, **actions}


def lifecycle(s3, bucket, *rules):
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": list(rules)})


def exists(s3, bucket, key):
    try:
        s3.head_object(Bucket=bucket, Key=key)
        return True
    except ClientError as e:
        assert e.response["Error"]["Code"] == "404"
        return False


def versions(s3, bucket):
    """(key, version id, is delete marker, is latest) of every version, newest first per key."""
    listed = s3.list_object_versions(Bucket=bucket)
    entries = [(v["Key"], v["VersionId"], False, v["IsLatest"], v["LastModified"]) for v in listed.get("Versions", [])]
    entries += [(m["Key"], m["VersionId"], True, m["IsLatest"], m["LastModified"]) for m in listed.get("DeleteMarkers", [])]
    return [e[:4] for e in sorted(entries, key=lambda e: (e[0], not e[3], -e[4].timestamp()))]


def test_unversioned_objects_are_deleted_when_their_days_pass(s3):
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="logs/old.txt", Body=b"x")
    s3.put_object(Bucket=bucket, Key="data/keep.txt", Body=b"x")
    lifecycle(s3, bucket, rule("logs", prefix="logs/", Expiration={"Days": 1}))
    assert wait_for(lambda: not exists(s3, bucket, "logs/old.txt"))
    assert exists(s3, bucket, "data/keep.txt")
    assert versions(s3, bucket) == [("data/keep.txt", "null", False, True)]


def test_versioned_expiry_adds_one_delete_marker(s3):
    bucket = new_bucket(s3, versioned=True)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    lifecycle(s3, bucket, rule("expire", Expiration={"Days": 1}))
    assert wait_for(lambda: not exists(s3, bucket, "k"))
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k")
    assert err.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amz-delete-marker"] == "true"
    # The version stays, now noncurrent; while the marker is current nothing more happens.
    time.sleep(2.5)
    listed = versions(s3, bucket)
    assert [(key, marker, latest) for key, _, marker, latest in listed] == [("k", True, True), ("k", False, False)]
    assert listed[1][1] == v1


def test_noncurrent_versions_expire_beyond_the_newest_kept(s3):
    bucket = new_bucket(s3, versioned=True)
    ids = [s3.put_object(Bucket=bucket, Key="k", Body=f"v{i}".encode())["VersionId"] for i in range(4)]
    lifecycle(
        s3,
        bucket,
        rule("noncurrent", NoncurrentVersionExpiration={"NoncurrentDays": 1, "NewerNoncurrentVersions": 1}),
    )
    # Current ids[3]; noncurrent ids[2] (the newest, kept), ids[1] and ids[0] (expired).
    assert wait_for(lambda: [v[1] for v in versions(s3, bucket)] == [ids[3], ids[2]])
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v3"


def test_expired_object_delete_markers_are_removed(s3):
    bucket = new_bucket(s3, versioned=True)
    v1 = s3.put_object(Bucket=bucket, Key="alone", Body=b"x")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="alone")
    s3.delete_object(Bucket=bucket, Key="alone", VersionId=v1)
    s3.put_object(Bucket=bucket, Key="shadowed", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="shadowed")
    lifecycle(s3, bucket, rule("markers", Expiration={"ExpiredObjectDeleteMarker": True}))
    # The lone marker goes; the one with a version behind it stays.
    assert wait_for(lambda: [v[0] for v in versions(s3, bucket)] == ["shadowed", "shadowed"])
    time.sleep(1)
    assert [(v[0], v[2]) for v in versions(s3, bucket)] == [("shadowed", True), ("shadowed", False)]


def test_incomplete_multipart_uploads_are_aborted(s3):
    bucket = new_bucket(s3)
    old = s3.create_multipart_upload(Bucket=bucket, Key="tmp/big")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="tmp/big", UploadId=old, PartNumber=1, Body=b"part")
    s3.create_multipart_upload(Bucket=bucket, Key="keep/big")
    lifecycle(s3, bucket, rule("abort", prefix="tmp/", AbortIncompleteMultipartUpload={"DaysAfterInitiation": 1}))

    def uploads():
        return [u["Key"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]

    assert wait_for(lambda: uploads() == ["keep/big"])
    with pytest.raises(ClientError) as err:
        s3.list_parts(Bucket=bucket, Key="tmp/big", UploadId=old)
    assert err.value.response["Error"]["Code"] == "NoSuchUpload"


def test_filters_select_by_tag_and_size(s3):
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="expire=yes")
    s3.put_object(Bucket=bucket, Key="other-tag", Body=b"x", Tagging="expire=no")
    s3.put_object(Bucket=bucket, Key="big", Body=b"x" * 100)
    s3.put_object(Bucket=bucket, Key="edge", Body=b"x" * 50)
    days = {"Expiration": {"Days": 1}}
    s3.put_bucket_lifecycle_configuration(
        Bucket=bucket,
        LifecycleConfiguration={
            "Rules": [
                {"ID": "tag", "Status": "Enabled", "Filter": {"Tag": {"Key": "expire", "Value": "yes"}}, **days},
                {"ID": "size", "Status": "Enabled", "Filter": {"ObjectSizeGreaterThan": 50}, **days},
            ]
        },
    )
    assert wait_for(lambda: not exists(s3, bucket, "tagged") and not exists(s3, bucket, "big"))
    time.sleep(1)
    assert exists(s3, bucket, "other-tag")
    assert exists(s3, bucket, "edge"), "ObjectSizeGreaterThan is strict"


def test_the_and_filter_needs_every_condition(s3):
    bucket = new_bucket(s3)
    for key, tags in [("in/both", "a=1&b=2"), ("in/one", "a=1"), ("out/both", "a=1&b=2")]:
        s3.put_object(Bucket=bucket, Key=key, Body=b"x", Tagging=tags)
    and_filter = {"And": {"Prefix": "in/", "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}}
    s3.put_bucket_lifecycle_configuration(
        Bucket=bucket,
        LifecycleConfiguration={"Rules": [{"ID": "and", "Status": "Enabled", "Filter": and_filter, "Expiration": {"Days": 1}}]},
    )
    assert wait_for(lambda: not exists(s3, bucket, "in/both"))
    time.sleep(1)
    assert exists(s3, bucket, "in/one")
    assert exists(s3, bucket, "out/both")


def test_disabled_rules_do_nothing(s3):
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    lifecycle(s3, bucket, rule("off", status="Disabled", Expiration={"Days": 1}))
    time.sleep(3)
    assert exists(s3, bucket, "k")
    assert "Expiration" not in s3.head_object(Bucket=bucket, Key="k")


def test_object_lock_keeps_protected_versions(s3):
    bucket = new_bucket(s3, lock=True)
    held = s3.put_object(Bucket=bucket, Key="k", Body=b"old", ObjectLockLegalHoldStatus="ON")["VersionId"]
    free = s3.put_object(Bucket=bucket, Key="j", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"new")
    s3.put_object(Bucket=bucket, Key="j", Body=b"new")
    lifecycle(s3, bucket, rule("noncurrent", NoncurrentVersionExpiration={"NoncurrentDays": 1}))
    assert wait_for(lambda: free not in [v[1] for v in versions(s3, bucket)])
    time.sleep(1)
    assert held in [v[1] for v in versions(s3, bucket)]


def test_expiration_sends_lifecycle_events(server, s3):
    sqs = server.client("sqs")
    url = sqs.create_queue(QueueName=f"lc-{uuid.uuid4().hex[:10]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    plain, versioned = new_bucket(s3), new_bucket(s3, versioned=True)
    for bucket in (plain, versioned):
        s3.put_bucket_notification_configuration(
            Bucket=bucket,
            NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:LifecycleExpiration:*"]}]},
        )
        s3.put_object(Bucket=bucket, Key="k", Body=b"x")
        lifecycle(s3, bucket, rule("expire", Expiration={"Days": 1}))
    events = []

    def collect():
        for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
            for r in json.loads(m["Body"]).get("Records", []):
                events.append((r["s3"]["bucket"]["name"], r["eventName"], r["s3"]["object"]["key"]))
        return len(events) >= 2

    assert wait_for(collect)
    assert sorted(events) == sorted(
        [(plain, "LifecycleExpiration:Delete", "k"), (versioned, "LifecycleExpiration:DeleteMarkerCreated", "k")]
    )


def test_x_amz_expiration_names_the_rule_and_midnight():
    # A server with real days: the header is AWS's midnight after creation plus the days.
    server = start("--ephemeral", day="86400", interval="60")
    try:
        s3 = server.client("s3")
        bucket = new_bucket(s3)
        lifecycle(
            s3,
            bucket,
            rule("short lived", prefix="tmp/", Expiration={"Days": 30}),
            rule("off", status="Disabled", Expiration={"Days": 1}),
        )
        put = s3.put_object(Bucket=bucket, Key="tmp/a", Body=b"x")
        head = s3.head_object(Bucket=bucket, Key="tmp/a")
        modified = head["LastModified"]
        midnight = (modified + datetime.timedelta(days=30)).date() + datetime.timedelta(days=1)
        date = email.utils.format_datetime(
            datetime.datetime.combine(midnight, datetime.time(), tzinfo=datetime.timezone.utc), usegmt=True
        )
        expected = f'expiry-date="{date}", rule-id="short+lived"'
        assert put["Expiration"] == expected
        assert head["Expiration"] == expected
        assert s3.get_object(Bucket=bucket, Key="tmp/a")["Expiration"] == expected
        s3.put_object(Bucket=bucket, Key="other", Body=b"x")
        assert "Expiration" not in s3.head_object(Bucket=bucket, Key="other")
    finally:
        server.stop()


def test_lifecycle_resumes_after_a_restart(tmp_path):
    # The first server never sweeps in time; the second finds the stored configuration.
    server = start("--data-dir", str(tmp_path), interval="60")
    try:
        s3 = server.client("s3")
        bucket = new_bucket(s3)
        s3.put_object(Bucket=bucket, Key="k", Body=b"x")
        lifecycle(s3, bucket, rule("expire", Expiration={"Days": 1}))
    finally:
        server.stop()
    server = start("--data-dir", str(tmp_path))
    try:
        s3 = server.client("s3")
        assert wait_for(lambda: not exists(s3, bucket, "k"))
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_the_sweeper_runs_only_while_some_bucket_has_expiration():
    server = start("--ephemeral")
    try:
        s3 = server.client("s3")
        bucket = new_bucket(s3)
        lifecycle(s3, bucket, rule("transition-only", Transitions=[{"Days": 30, "StorageClass": "GLACIER"}]))
        time.sleep(0.5)
        assert "s3-lifecycle" not in server.thread_names()
        lifecycle(s3, bucket, rule("expire", Expiration={"Days": 30}))
        assert wait_for(lambda: "s3-lifecycle" in server.thread_names(), timeout=5)
        s3.delete_bucket_lifecycle(Bucket=bucket)
        # The next sweep finds no configuration to apply and the thread ends.
        assert wait_for(lambda: "s3-lifecycle" not in server.thread_names(), timeout=5)
    finally:
        server.stop()
