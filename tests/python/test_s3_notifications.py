"""S3 event notifications delivered to SQS queues (S3 user guide, "Amazon S3 Event
Notifications" and "Event message structure"), through boto3 against the real binary, and
across a `kill -9` after PutObject answered."""

import json
import time
import uuid

import pytest
from aws_lambda_powertools.utilities.parser.models import S3Model
from botocore.exceptions import ClientError

from conftest import Stratus, acknowledged_until_sigkill


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def sqs(stratus):
    return stratus.client("sqs")


def queue(sqs, name=None):
    url = sqs.create_queue(QueueName=name or f"events-{uuid.uuid4().hex[:10]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def drain(sqs, url):
    """Every message body in the queue, decoded."""
    bodies = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return bodies
        for m in got:
            bodies.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def records(bodies):
    return [r for b in bodies for r in b.get("Records", [])]


def test_object_events_reach_the_queue_with_aws_shape(s3, sqs):
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    url, arn = queue(sqs)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {
                    "Id": "uploads",
                    "QueueArn": arn,
                    "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
                    "Filter": {"Key": {"FilterRules": [{"Name": "Prefix", "Value": "in/"}]}},
                }
            ]
        },
    )
    # Storing the configuration sends a test event first.
    test = drain(sqs, url)
    assert [(b["Event"], b["Bucket"]) for b in test] == [("s3:TestEvent", bucket)]

    put = s3.put_object(Bucket=bucket, Key="in/a b.txt", Body=b"hello")
    s3.put_object(Bucket=bucket, Key="out/skipped.txt", Body=b"x")
    s3.copy_object(Bucket=bucket, Key="in/copy.txt", CopySource={"Bucket": bucket, "Key": "in/a b.txt"})
    upload = s3.create_multipart_upload(Bucket=bucket, Key="in/mp")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="in/mp", UploadId=upload, PartNumber=1, Body=b"part")["ETag"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="in/mp", UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]}
    )
    s3.delete_object(Bucket=bucket, Key="in/copy.txt")
    s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "in/mp"}, {"Key": "out/skipped.txt"}]})

    got = records(drain(sqs, url))
    assert [(r["eventName"], r["s3"]["object"]["key"]) for r in got] == [
        ("ObjectCreated:Put", "in/a+b.txt"),
        ("ObjectCreated:Copy", "in/copy.txt"),
        ("ObjectCreated:CompleteMultipartUpload", "in/mp"),
        ("ObjectRemoved:Delete", "in/copy.txt"),
        ("ObjectRemoved:Delete", "in/mp"),
    ]
    first = got[0]
    assert (first["eventVersion"], first["eventSource"], first["awsRegion"]) == ("2.1", "aws:s3", "us-east-1")
    assert first["s3"]["configurationId"] == "uploads"
    assert first["s3"]["bucket"]["name"] == bucket and first["s3"]["bucket"]["arn"] == f"arn:aws:s3:::{bucket}"
    assert first["s3"]["object"]["size"] == 5
    assert first["s3"]["object"]["eTag"] == put["ETag"].strip('"')
    assert "size" not in got[3]["s3"]["object"]
    # Who asked (the root, by its unique id), from where; the owner by its customer id, which
    # is not its account id ("Event message structure").
    assert first["userIdentity"]["principalId"] == "AWS:000000000000"
    assert first["requestParameters"]["sourceIPAddress"] == "127.0.0.1"
    owner = first["s3"]["bucket"]["ownerIdentity"]["principalId"]
    assert owner.startswith("A") and len(owner) == 14 and owner != "000000000000"


def test_delete_markers_have_their_own_event(s3, sqs):
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    url, arn = queue(sqs)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectRemoved:DeleteMarkerCreated"]}]
        },
    )
    drain(sqs, url)
    version = s3.put_object(Bucket=bucket, Key="k", Body=b"v1")["VersionId"]
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="k", VersionId=version)  # ObjectRemoved:Delete: not configured
    # Deleting the marker itself answers DeleteMarker: true, but is a deletion (as recorded).
    s3.delete_object(Bucket=bucket, Key="k", VersionId=marker)
    got = records(drain(sqs, url))
    assert [(r["eventName"], r["s3"]["object"].get("versionId")) for r in got] == [
        ("ObjectRemoved:DeleteMarkerCreated", marker)
    ]
    # A marker's ETag is that of its empty body.
    assert got[0]["s3"]["object"]["eTag"] == "d41d8cd98f00b204e9800998ecf8427e"


def test_tag_and_acl_changes_have_their_own_events(s3, sqs):
    # Version 2.3 of the event structure (S3 user guide, "Event message structure"), as
    # recorded from AWS: the object's key and ETag, no size and no sequencer.
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket, ObjectOwnership="ObjectWriter")  # ACLs are off by default
    url, arn = queue(sqs)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectTagging:*", "s3:ObjectAcl:Put"]}]},
    )
    drain(sqs, url)
    put = s3.put_object(Bucket=bucket, Key="doc", Body=b"x")
    s3.put_object_tagging(Bucket=bucket, Key="doc", Tagging={"TagSet": [{"Key": "a", "Value": "b"}]})
    s3.delete_object_tagging(Bucket=bucket, Key="doc")
    s3.put_object_acl(Bucket=bucket, Key="doc", ACL="private")
    got = records(drain(sqs, url))
    assert [r["eventName"] for r in got] == ["ObjectTagging:Put", "ObjectTagging:Delete", "ObjectAcl:Put"]
    for r in got:
        assert r["eventVersion"] == "2.3"
        assert r["s3"]["object"] == {"key": "doc", "eTag": put["ETag"].strip('"')}


def test_a_restore_is_announced_when_asked_and_when_done(s3, sqs):
    # "Supported event types" (S3 user guide): s3:ObjectRestore:Post when a restore starts,
    # :Completed with glacierEventData when its copy is ready, as AWS recorded both.
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    url, arn = queue(sqs)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectRestore:*"]}]},
    )
    drain(sqs, url)
    s3.put_object(Bucket=bucket, Key="cold", Body=b"archived", StorageClass="GLACIER")
    s3.restore_object(Bucket=bucket, Key="cold", RestoreRequest={"Days": 1, "GlacierJobParameters": {"Tier": "Expedited"}})
    # Restoring a copy that is still there only moves its expiry: no new events.
    s3.restore_object(Bucket=bucket, Key="cold", RestoreRequest={"Days": 3})
    post, done = records(drain(sqs, url))
    assert (post["eventName"], done["eventName"]) == ("ObjectRestore:Post", "ObjectRestore:Completed")
    assert post["userIdentity"]["principalId"].startswith("AWS:")
    owner = done["s3"]["bucket"]["ownerIdentity"]["principalId"]
    assert done["userIdentity"]["principalId"] == f"AmazonCustomer:{owner}"
    assert done["s3"]["object"]["size"] == 8
    restored = done["glacierEventData"]["restoreEventData"]
    assert restored["lifecycleRestoreStorageClass"] == "GLACIER"
    assert restored["lifecycleRestorationExpiryTime"].endswith("T00:00:00.000Z")


def test_the_xray_trace_of_a_write_reaches_the_queue(stratus, sqs):
    # As recorded from AWS: the X-Amzn-Trace-Id of the PutObject is the notification's
    # AWSTraceHeader.
    trace = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"
    traced = stratus.client("s3")

    def add(request, **_):
        request.headers["X-Amzn-Trace-Id"] = trace

    traced.meta.events.register("before-send.s3.PutObject", add)
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    traced.create_bucket(Bucket=bucket)
    url, arn = queue(sqs)
    traced.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]},
    )
    drain(sqs, url)
    traced.put_object(Bucket=bucket, Key="k", Body=b"x")
    got = []
    for _ in range(20):
        got = sqs.receive_message(QueueUrl=url, AttributeNames=["AWSTraceHeader"], WaitTimeSeconds=1).get("Messages", [])
        if got:
            break
    assert got and got[0]["Attributes"]["AWSTraceHeader"] == trace


def test_destinations_are_validated(s3, sqs):
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    missing = "arn:aws:sqs:us-east-1:000000000000:no-such-queue"
    with pytest.raises(ClientError) as err:
        s3.put_bucket_notification_configuration(
            Bucket=bucket,
            NotificationConfiguration={"QueueConfigurations": [{"QueueArn": missing, "Events": ["s3:ObjectCreated:*"]}]},
        )
    assert err.value.response["Error"]["Code"] == "InvalidArgument"
    assert "Unable to validate the following destination configurations" in err.value.response["Error"]["Message"]
    assert err.value.response["Error"]["ArgumentName1"] == missing
    assert err.value.response["Error"]["ArgumentValue1"] == "The destination queue does not exist"
    # Something that is not an ARN is refused even when validation is skipped.
    for skip in (False, True):
        with pytest.raises(ClientError) as err:
            s3.put_bucket_notification_configuration(
                Bucket=bucket,
                NotificationConfiguration={"QueueConfigurations": [{"QueueArn": "not-an-arn", "Events": ["s3:ObjectCreated:*"]}]},
                SkipDestinationValidation=skip,
            )
        error = err.value.response["Error"]
        assert (error["Message"], error["ArgumentName"], error["ArgumentValue"]) == ("The ARN could not be parsed", "Queue", "not-an-arn")
    # x-amz-skip-destination-validation stores it anyway.
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": missing, "Events": ["s3:ObjectCreated:*"]}]},
        SkipDestinationValidation=True,
    )
    config = s3.get_bucket_notification_configuration(Bucket=bucket)
    assert config["QueueConfigurations"][0]["QueueArn"] == missing
    # Rule names are taken in any case and answered as AWS spells them.
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {
                    "QueueArn": missing,
                    "Events": ["s3:ObjectCreated:*"],
                    "Filter": {"Key": {"FilterRules": [{"Name": "PREFIX", "Value": "in/"}, {"Name": "suffix", "Value": ".txt"}]}},
                }
            ]
        },
        SkipDestinationValidation=True,
    )
    rules = s3.get_bucket_notification_configuration(Bucket=bucket)["QueueConfigurations"][0]["Filter"]["Key"]["FilterRules"]
    assert [r["Name"] for r in rules] == ["Prefix", "Suffix"]
    # Delivery to a queue that is gone never fails the write.
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")


def test_object_events_invoke_a_function(stratus, s3, sqs):
    """A LambdaFunctionConfiguration invokes the function asynchronously with the event
    message; the function's OnSuccess destination shows what it received."""
    from test_lambda_invoke import TRUST, python_function

    lam = stratus.client("lambda")
    role = stratus.client("iam").create_role(RoleName="s3-events", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    name = python_function(lam, role, source="def handler(event, context):\n    return event['Records'][0]['s3']['object']['key']\n")
    function_arn = lam.get_function(FunctionName=name)["Configuration"]["FunctionArn"]
    url, arn = queue(sqs)
    lam.put_function_event_invoke_config(FunctionName=name, DestinationConfig={"OnSuccess": {"Destination": arn}})
    bucket = f"events-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    with pytest.raises(ClientError) as err:
        s3.put_bucket_notification_configuration(
            Bucket=bucket,
            NotificationConfiguration={
                "LambdaFunctionConfigurations": [{"LambdaFunctionArn": function_arn + "-missing", "Events": ["s3:ObjectCreated:*"]}]
            },
        )
    assert "Unable to validate the following destination configurations" in err.value.response["Error"]["Message"]
    # S3 may invoke only a function whose policy lets it, for this bucket (S3 API reference,
    # PutBucketNotificationConfiguration); AWS names each refused one, numbered.
    only_functions = {
        "LambdaFunctionConfigurations": [{"Id": "to-function", "LambdaFunctionArn": function_arn, "Events": ["s3:ObjectCreated:Put"]}]
    }
    with pytest.raises(ClientError) as err:
        s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=only_functions)
    assert err.value.response["Error"]["ArgumentName1"] == f"{function_arn}, null"
    assert err.value.response["Error"]["ArgumentValue1"] == f"Not authorized to invoke function [{function_arn}]"
    lam.add_permission(
        FunctionName=name,
        StatementId="other-bucket",
        Action="lambda:InvokeFunction",
        Principal="s3.amazonaws.com",
        SourceArn="arn:aws:s3:::some-other-bucket",
    )
    with pytest.raises(ClientError):
        s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=only_functions)
    lam.add_permission(
        FunctionName=name,
        StatementId="this-bucket",
        Action="lambda:InvokeFunction",
        Principal="s3.amazonaws.com",
        SourceArn=f"arn:aws:s3:::{bucket}",
        SourceAccount="000000000000",
    )
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "LambdaFunctionConfigurations": [
                {"Id": "to-function", "LambdaFunctionArn": function_arn, "Events": ["s3:ObjectCreated:Put"]}
            ]
        },
    )
    s3.put_object(Bucket=bucket, Key="photos/cat.jpg", Body=b"meow")
    received = []
    for _ in range(30):
        received = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", [])
        if received:
            break
    assert received, "the function's success record never arrived"
    record = json.loads(received[0]["Body"])
    assert record["responsePayload"] == "photos/cat.jpg"
    # The event is what AWS Lambda Powertools' published S3 model accepts.
    S3Model.model_validate(record["requestPayload"])
    event = record["requestPayload"]["Records"][0]
    assert event["eventSource"] == "aws:s3" and event["eventName"] == "ObjectCreated:Put"
    assert event["s3"]["configurationId"] == "to-function" and event["s3"]["bucket"]["name"] == bucket


def test_notifications_of_acknowledged_uploads_survive_sigkill(tmp_path):
    """Every upload S3 answered has its notification in the queue after a `kill -9` and a
    restart: queued before the answer, delivered at least once."""
    data = str(tmp_path / "data")
    server = Stratus("--data-dir", data)
    s3, sqs = server.client("s3"), server.client("sqs")
    s3.create_bucket(Bucket="durable-events")
    url, arn = queue(sqs, "durable-events-q")
    s3.put_bucket_notification_configuration(
        Bucket="durable-events",
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]},
    )
    def upload(s3, n, i):
        s3.put_object(Bucket="durable-events", Key=f"u{n}-{i}", Body=b"x")
        return f"u{n}-{i}"

    acknowledged = acknowledged_until_sigkill(server, "s3", upload)
    server = Stratus("--data-dir", data)
    try:
        sqs = server.client("sqs")
        notified = set()
        deadline = time.time() + 60
        while not set(acknowledged) <= notified and time.time() < deadline:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
            for m in got:
                notified.update(r["s3"]["object"]["key"] for r in json.loads(m["Body"]).get("Records", []))
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        missing = set(acknowledged) - notified
        assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged uploads were not notified"
    finally:
        server.stop()
