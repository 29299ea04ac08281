"""S3 lifecycle expiration applied, through boto3 against the real binary.

Behaviour follows the S3 user guide: "Lifecycle configuration elements" (filters, Status,
NoncurrentVersionExpiration with NewerNoncurrentVersions), "How Amazon S3 calculates when an
object expires" (creation time plus the days, rounded up to the next midnight UTC),
"Expiring objects" (a versioned bucket gets a delete marker, an unversioned one loses the
object; nothing happens while a delete marker is current), "Managing delete markers"
(expired object delete markers) and the x-amz-expiration header of PutObject, GetObject and
HeadObject (`expiry-date="...", rule-id="..."`).

The servers here run on a manual clock (`--clock manual`), which the tests move days ahead
(`Stratus.advance`, which returns once the sweeps that became due have run), so a one-day rule
acts at once and nothing waits in real time."""

import datetime
import email.utils
import json
import os
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus

DAY = 86_400
# The sweeper's default interval, in seconds.
INTERVAL = 60
# Far enough for a one-day rule to fall due: the day, rounded up to the next midnight.
TWO_DAYS = 2 * DAY


def start(*args):
    """A server on a manual clock, with AWS's days and the default sweep interval."""
    return Stratus("--clock", "manual", *args)


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


def test_unversioned_objects_are_deleted_when_their_days_pass(server, s3):
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="logs/old.txt", Body=b"x")
    s3.put_object(Bucket=bucket, Key="data/keep.txt", Body=b"x")
    lifecycle(s3, bucket, rule("logs", prefix="logs/", Expiration={"Days": 1}))
    server.advance(DAY / 2)
    assert exists(s3, bucket, "logs/old.txt"), "not before its day"
    server.advance(TWO_DAYS)
    assert not exists(s3, bucket, "logs/old.txt")
    assert exists(s3, bucket, "data/keep.txt")
    assert versions(s3, bucket) == [("data/keep.txt", "null", False, True)]


def test_versioned_expiry_adds_one_delete_marker(server, s3):
    bucket = new_bucket(s3, versioned=True)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    lifecycle(s3, bucket, rule("expire", Expiration={"Days": 1}))
    server.advance(TWO_DAYS)
    assert not exists(s3, bucket, "k")
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k")
    assert err.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amz-delete-marker"] == "true"
    # The version stays, now noncurrent; while the marker is current nothing more happens.
    server.advance(TWO_DAYS)
    listed = versions(s3, bucket)
    assert [(key, marker, latest) for key, _, marker, latest in listed] == [("k", True, True), ("k", False, False)]
    assert listed[1][1] == v1


def test_noncurrent_versions_expire_beyond_the_newest_kept(server, s3):
    bucket = new_bucket(s3, versioned=True)
    ids = [s3.put_object(Bucket=bucket, Key="k", Body=f"v{i}".encode())["VersionId"] for i in range(4)]
    lifecycle(
        s3,
        bucket,
        rule("noncurrent", NoncurrentVersionExpiration={"NoncurrentDays": 1, "NewerNoncurrentVersions": 1}),
    )
    # Current ids[3]; noncurrent ids[2] (the newest, kept), ids[1] and ids[0] (expired).
    server.advance(TWO_DAYS)
    assert [v[1] for v in versions(s3, bucket)] == [ids[3], ids[2]]
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v3"


def test_expired_object_delete_markers_are_removed(server, s3):
    bucket = new_bucket(s3, versioned=True)
    v1 = s3.put_object(Bucket=bucket, Key="alone", Body=b"x")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="alone")
    s3.delete_object(Bucket=bucket, Key="alone", VersionId=v1)
    s3.put_object(Bucket=bucket, Key="shadowed", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="shadowed")
    lifecycle(s3, bucket, rule("markers", Expiration={"ExpiredObjectDeleteMarker": True}))
    # The lone marker goes; the one with a version behind it stays.
    server.advance(INTERVAL)
    assert [v[0] for v in versions(s3, bucket)] == ["shadowed", "shadowed"]
    server.advance(TWO_DAYS)
    assert [(v[0], v[2]) for v in versions(s3, bucket)] == [("shadowed", True), ("shadowed", False)]


def test_incomplete_multipart_uploads_are_aborted(server, s3):
    bucket = new_bucket(s3)
    old = s3.create_multipart_upload(Bucket=bucket, Key="tmp/big")["UploadId"]
    s3.upload_part(Bucket=bucket, Key="tmp/big", UploadId=old, PartNumber=1, Body=b"part")
    s3.create_multipart_upload(Bucket=bucket, Key="keep/big")
    lifecycle(s3, bucket, rule("abort", prefix="tmp/", AbortIncompleteMultipartUpload={"DaysAfterInitiation": 1}))

    def uploads():
        return [u["Key"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]

    server.advance(TWO_DAYS)
    assert uploads() == ["keep/big"]
    with pytest.raises(ClientError) as err:
        s3.list_parts(Bucket=bucket, Key="tmp/big", UploadId=old)
    assert err.value.response["Error"]["Code"] == "NoSuchUpload"


def test_filters_select_by_tag_and_size(server, s3):
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
    server.advance(TWO_DAYS)
    assert not exists(s3, bucket, "tagged") and not exists(s3, bucket, "big")
    assert exists(s3, bucket, "other-tag")
    assert exists(s3, bucket, "edge"), "ObjectSizeGreaterThan is strict"


def test_the_and_filter_needs_every_condition(server, s3):
    bucket = new_bucket(s3)
    for key, tags in [("in/both", "a=1&b=2"), ("in/one", "a=1"), ("out/both", "a=1&b=2")]:
        s3.put_object(Bucket=bucket, Key=key, Body=b"x", Tagging=tags)
    and_filter = {"And": {"Prefix": "in/", "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}}
    s3.put_bucket_lifecycle_configuration(
        Bucket=bucket,
        LifecycleConfiguration={"Rules": [{"ID": "and", "Status": "Enabled", "Filter": and_filter, "Expiration": {"Days": 1}}]},
    )
    server.advance(TWO_DAYS)
    assert not exists(s3, bucket, "in/both")
    assert exists(s3, bucket, "in/one")
    assert exists(s3, bucket, "out/both")


def test_disabled_rules_do_nothing(server, s3):
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    lifecycle(s3, bucket, rule("off", status="Disabled", Expiration={"Days": 1}))
    server.advance(TWO_DAYS)
    assert exists(s3, bucket, "k")
    assert "Expiration" not in s3.head_object(Bucket=bucket, Key="k")


def test_object_lock_keeps_protected_versions(server, s3):
    bucket = new_bucket(s3, lock=True)
    held = s3.put_object(Bucket=bucket, Key="k", Body=b"old", ObjectLockLegalHoldStatus="ON")["VersionId"]
    free = s3.put_object(Bucket=bucket, Key="j", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"new")
    s3.put_object(Bucket=bucket, Key="j", Body=b"new")
    lifecycle(s3, bucket, rule("noncurrent", NoncurrentVersionExpiration={"NoncurrentDays": 1}))
    server.advance(TWO_DAYS)
    assert free not in [v[1] for v in versions(s3, bucket)]
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
    server.advance(TWO_DAYS)
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
    # The header is AWS's midnight after creation plus the days.
    server = start("--ephemeral")
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
    # The first server's clock never moves; the second finds the stored configuration.
    server = start("--data-dir", str(tmp_path))
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
        # The stored configurations are looked at beside startup, hence the repeated moves.
        assert wait_for(lambda: server.advance(TWO_DAYS) and not exists(s3, bucket, "k"))
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_the_sweeper_runs_only_while_some_bucket_has_expiration():
    server = start("--ephemeral")
    try:
        s3 = server.client("s3")
        bucket = new_bucket(s3)
        lifecycle(s3, bucket, rule("transition-only", Transitions=[{"Days": 30, "StorageClass": "GLACIER"}]))
        time.sleep(0.5)  # a thread started by that request would have named itself by now
        assert "scheduler" not in server.thread_names()
        lifecycle(s3, bucket, rule("expire", Expiration={"Days": 30}))
        assert wait_for(lambda: "scheduler" in server.thread_names(), timeout=5)
        s3.delete_bucket_lifecycle(Bucket=bucket)
        # The next sweep finds no configuration to apply: it stops, and with nothing else to
        # time the scheduler's thread ends.
        server.advance(INTERVAL)
        assert wait_for(lambda: "scheduler" not in server.thread_names(), timeout=5)
    finally:
        server.stop()


def test_restored_copies_of_archived_objects_last_their_days(server, s3):
    # "Restoring an archived object" (S3 user guide): an archived version is read only through
    # a restored copy, which RestoreObject makes and which lasts its Days, to the midnight UTC
    # after. Stratus makes the copy at once (the tiers' hours are not waited).
    bucket = new_bucket(s3)
    s3.put_object(Bucket=bucket, Key="cold", Body=b"frozen", StorageClass="DEEP_ARCHIVE")
    s3.put_object(Bucket=bucket, Key="warm", Body=b"x")
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/cold")
    assert err.value.response["Error"]["Code"] == "InvalidObjectState"
    with pytest.raises(ClientError) as err:
        s3.restore_object(Bucket=bucket, Key="warm", RestoreRequest={"Days": 1})
    refused = err.value.response["Error"]
    assert (refused["Code"], refused["Message"]) == (
        "InvalidObjectState",
        "Restore is not allowed for the object's current storage class",
    )
    with pytest.raises(ClientError) as err:
        s3.restore_object(Bucket=bucket, Key="cold", RestoreRequest={"GlacierJobParameters": {"Tier": "Bulk"}})
    assert err.value.response["Error"]["Code"] == "MalformedXML"

    answer = s3.restore_object(Bucket=bucket, Key="cold", RestoreRequest={"Days": 2, "GlacierJobParameters": {"Tier": "Bulk"}})
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 202
    head = s3.head_object(Bucket=bucket, Key="cold")
    expiry = email.utils.parsedate_to_datetime(head["Restore"].split('expiry-date="')[1].rstrip('"'))
    assert head["Restore"].startswith('ongoing-request="false", expiry-date="')
    assert (expiry.hour, expiry.minute, expiry.second) == (0, 0, 0)
    assert s3.get_object(Bucket=bucket, Key="cold")["Body"].read() == b"frozen"
    s3.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/cold")

    server.advance(3 * DAY)
    assert "Restore" not in s3.head_object(Bucket=bucket, Key="cold")
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="cold")
    assert err.value.response["Error"]["Code"] == "InvalidObjectState"
