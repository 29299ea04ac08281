"""SNS deliveries through the real binary: to SQS queues (the JSON envelope and raw delivery),
FIFO topics through FIFO queues (order and deduplication), to a real Python Lambda function,
to a subscription's dead-letter queue, and across a `kill -9` after Publish answered."""

import io
import os
import json
import re
import time
import urllib.error
import urllib.request
import zipfile

import pytest
from cryptography.exceptions import InvalidSignature

from conftest import Stratus, acknowledged_until_sigkill
from sns_signature import verify_signature

ACCOUNT = "000000000000"
REGION = "us-east-1"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)


@pytest.fixture(scope="module")
def sns(stratus):
    return stratus.client("sns")


@pytest.fixture(scope="module")
def sqs(stratus):
    return stratus.client("sqs")


def queue(sqs, name, **attributes):
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"


def receive(sqs, url, count, timeout=30):
    """Up to `count` messages of `url`, waiting at most `timeout` seconds for them."""
    got = []
    deadline = time.time() + timeout
    while len(got) < count and time.time() < deadline:
        response = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageAttributeNames=["All"], AttributeNames=["All"]
        )
        for m in response.get("Messages", []):
            got.append(m)
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return got


def test_queues_receive_aws_envelope(sns, sqs):
    topic = sns.create_topic(Name="enveloped")["TopicArn"]
    url, arn = queue(sqs, "enveloped-q")
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    attrs = {"attr1": {"DataType": "Number", "StringValue": "100.12"}, "bin": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}}
    published = sns.publish(TopicArn=topic, Message="Test msg", Subject="Greetings", MessageAttributes=attrs)
    [message] = receive(sqs, url, 1)
    body = json.loads(message["Body"])
    assert list(body) == [
        "Type", "MessageId", "TopicArn", "Subject", "Message", "Timestamp", "SignatureVersion", "Signature",
        "SigningCertURL", "UnsubscribeURL", "MessageAttributes",
    ]
    assert body["Type"] == "Notification"
    assert body["MessageId"] == published["MessageId"]
    assert body["TopicArn"] == topic
    assert body["Subject"] == "Greetings"
    assert body["Message"] == "Test msg"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["Timestamp"])
    assert body["SignatureVersion"] == "1"
    assert re.search(r"/SimpleNotificationService-[0-9a-f]{32}\.pem$", body["SigningCertURL"])
    verify_signature(body)
    tampered = dict(body, Message="Not the message")
    with pytest.raises(InvalidSignature):
        verify_signature(tampered)
    assert body["UnsubscribeURL"].endswith(f"/?Action=Unsubscribe&SubscriptionArn={sub}")
    assert body["MessageAttributes"] == {
        "attr1": {"Type": "Number", "Value": "100.12"},
        "bin": {"Type": "Binary", "Value": "AAE="},
    }
    assert "MessageAttributes" not in message  # the envelope carries them, not the queue message


def test_signature_version_2_signs_with_sha256(sns, sqs):
    topic = sns.create_topic(Name="sha256", Attributes={"SignatureVersion": "2"})["TopicArn"]
    url, arn = queue(sqs, "sha256-q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish(TopicArn=topic, Message="signed twice over")
    [message] = receive(sqs, url, 1)
    body = json.loads(message["Body"])
    assert body["SignatureVersion"] == "2" and "Subject" not in body
    verify_signature(body)


def test_a_missing_certificate_is_not_found(stratus):
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{stratus.endpoint}/_stratus/sns/{ACCOUNT}/{REGION}/SimpleNotificationService-0.pem")
    assert missing.value.code == 404


def test_raw_delivery_hands_attributes_to_the_queue(sns, sqs):
    topic = sns.create_topic(Name="raw")["TopicArn"]
    url, arn = queue(sqs, "raw-q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"})
    sns.publish(TopicArn=topic, Message="Test msg", MessageAttributes={"attr1": {"DataType": "Number", "StringValue": "99.12"}})
    [message] = receive(sqs, url, 1)
    assert message["Body"] == "Test msg"
    assert message["MessageAttributes"] == {"attr1": {"DataType": "Number", "StringValue": "99.12"}}
    # The digest SQS computes is AWS's for this attribute (as AWS's own recording shows).
    assert message["MD5OfMessageAttributes"] == "d302007e9aa062660afc85fd0a482472"


def test_standard_queues_keep_the_group_id(sns, sqs):
    topic = sns.create_topic(Name="grouped")["TopicArn"]
    url, arn = queue(sqs, "grouped-q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "True"})
    sns.publish(TopicArn=topic, Message="in a group", MessageGroupId="g-1")
    [message] = receive(sqs, url, 1)
    assert message["Attributes"]["MessageGroupId"] == "g-1"


def test_json_structures_send_each_protocol_its_text(sns, sqs):
    topic = sns.create_topic(Name="structured")["TopicArn"]
    url, arn = queue(sqs, "structured-q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"})
    sns.publish(TopicArn=topic, Message=json.dumps({"default": "for all", "sqs": "for queues"}), MessageStructure="json")
    assert [m["Body"] for m in receive(sqs, url, 1)] == ["for queues"]


def test_a_batch_reaches_every_subscription(sns, sqs):
    topic = sns.create_topic(Name="fanout")["TopicArn"]
    urls = []
    for name in ("fan-a", "fan-b"):
        url, arn = queue(sqs, name)
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"})
        urls.append(url)
    sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[{"Id": f"m{i}", "Message": f"msg {i}"} for i in range(5)])
    for url in urls:
        assert sorted(m["Body"] for m in receive(sqs, url, 5)) == [f"msg {i}" for i in range(5)]


def test_fifo_topics_deliver_in_order_once(sns, sqs):
    topic = sns.create_topic(Name="ordered.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"})["TopicArn"]
    url, arn = queue(sqs, "ordered.fifo", FifoQueue="true")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    for i in range(12):
        sns.publish(TopicArn=topic, Message=f"m{i}", MessageGroupId="g")
    sns.publish(TopicArn=topic, Message="m0", MessageGroupId="g")  # a duplicate of the first
    got = receive(sqs, url, 13, timeout=15)
    bodies = [json.loads(m["Body"]) for m in got]
    assert [b["Message"] for b in bodies] == [f"m{i}" for i in range(12)]
    assert all(m["Attributes"]["MessageGroupId"] == "g" for m in got)
    numbers = [int(b["SequenceNumber"]) for b in bodies]
    assert numbers == sorted(numbers)
    assert "SignatureVersion" not in bodies[0]
    # A standard queue subscribed to the FIFO topic receives no group id.
    plain_url, plain_arn = queue(sqs, "ordered-plain")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=plain_arn)
    sns.publish(TopicArn=topic, Message="to both", MessageGroupId="g")
    [plain] = receive(sqs, plain_url, 1)
    assert "MessageGroupId" not in plain["Attributes"]


def test_fifo_dedup_ids_reach_the_queue(sns, sqs):
    topic = sns.create_topic(Name="dedup.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url, arn = queue(sqs, "dedup.fifo", FifoQueue="true")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"})
    sns.publish_batch(
        TopicArn=topic,
        PublishBatchRequestEntries=[
            {"Id": "a", "Message": "first", "MessageGroupId": "g1", "MessageDeduplicationId": "d-1"},
            {"Id": "b", "Message": "second", "MessageGroupId": "g1", "MessageDeduplicationId": "d-2"},
            {"Id": "c", "Message": "again", "MessageGroupId": "g1", "MessageDeduplicationId": "d-1"},
        ],
    )
    got = receive(sqs, url, 3, timeout=10)
    assert [m["Body"] for m in got] == ["first", "second"]
    assert [m["Attributes"]["MessageDeduplicationId"] for m in got] == ["d-1", "d-2"]


def test_undeliverable_messages_go_to_the_dead_letter_queue(sns, sqs):
    topic = sns.create_topic(Name="redriven")["TopicArn"]
    target_url, target_arn = queue(sqs, "soon-gone")
    dlq_url, dlq_arn = queue(sqs, "redrive-dlq")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=target_arn, Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})}
    )
    sqs.delete_queue(QueueUrl=target_url)
    published = sns.publish(TopicArn=topic, Message="nobody home")
    [message] = receive(sqs, dlq_url, 1)
    body = json.loads(message["Body"])
    assert (body["Message"], body["MessageId"]) == ("nobody home", published["MessageId"])


PYTHON_HANDLER = "def handler(event, context):\n    return {'seen': len(event['Records'])}\n"


def make_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


def test_functions_receive_the_sns_event(stratus, sns, sqs):
    lam = stratus.client("lambda")
    role = stratus.client("iam").create_role(RoleName="sns-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    lam.create_function(
        FunctionName="on-topic",
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": PYTHON_HANDLER})},
    )
    # The function's success record (its destination) shows the event it was invoked with.
    url, arn = queue(sqs, "lambda-success")
    lam.put_function_event_invoke_config(FunctionName="on-topic", DestinationConfig={"OnSuccess": {"Destination": arn}})
    topic = sns.create_topic(Name="to-function")["TopicArn"]
    function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:on-topic"
    sub = sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=function_arn)["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["PendingConfirmation"] == "false"
    published = sns.publish(
        TopicArn=topic, Message="Hello world.", Subject="Test subject", MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}}
    )
    [message] = receive(sqs, url, 1, timeout=90)
    record = json.loads(message["Body"])
    assert record["responsePayload"] == {"seen": 1}
    [event] = record["requestPayload"]["Records"]
    assert event["EventSource"] == "aws:sns"
    assert event["EventVersion"] == "1.0"
    assert event["EventSubscriptionArn"] == sub
    note = event["Sns"]
    assert note["Type"] == "Notification"
    assert note["MessageId"] == published["MessageId"]
    assert (note["TopicArn"], note["Subject"], note["Message"]) == (topic, "Test subject", "Hello world.")
    assert note["MessageAttributes"] == {"k": {"Type": "String", "Value": "v"}}
    assert note["UnsubscribeUrl"].endswith(sub)
    assert list(note)[6:9] == ["SignatureVersion", "Signature", "SigningCertUrl"]
    verify_signature(note, cert_url_key="SigningCertUrl")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", note["Timestamp"])


def test_acknowledged_publishes_are_delivered_after_sigkill(tmp_path):
    data = str(tmp_path / "data")
    server = Stratus("--data-dir", data)
    sns, sqs = server.client("sns"), server.client("sqs")
    topic = sns.create_topic(Name="durable")["TopicArn"]
    url = sqs.create_queue(QueueName="durable-q")["QueueUrl"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=f"arn:aws:sqs:{REGION}:{ACCOUNT}:durable-q")
    def publish(sns, n, i):
        return sns.publish(TopicArn=topic, Message=f"p{n}-{i}")["MessageId"]

    acknowledged = acknowledged_until_sigkill(server, "sns", publish)
    server = Stratus("--data-dir", data)
    try:
        sqs = server.client("sqs")
        delivered, bodies = set(), []
        deadline = time.time() + 60
        while not set(acknowledged) <= delivered and time.time() < deadline:
            for m in receive(sqs, url, 10, timeout=2):
                bodies.append(json.loads(m["Body"]))
                delivered.add(bodies[-1]["MessageId"])
        # The signing key outlives the restart: the first messages received were most likely
        # delivered (and signed) before it, the last after it; both verify.
        verify_signature(bodies[0], via=server.endpoint)
        verify_signature(bodies[-1], via=server.endpoint)
        missing = set(acknowledged) - delivered
        assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged messages were not delivered"
    finally:
        server.stop()


def test_filter_policies_choose_by_attributes_and_body(sns, sqs):
    topic = sns.create_topic(Name="filtered")["TopicArn"]
    by_attr_url, by_attr = queue(sqs, "filter-attrs")
    by_body_url, by_body = queue(sqs, "filter-body")
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=by_attr,
        Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps({"store": ["north"], "price": [{"numeric": [">", 10]}]})},
    )
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=by_body,
        Attributes={"RawMessageDelivery": "true", "FilterPolicyScope": "MessageBody", "FilterPolicy": json.dumps({"kind": ["order"]})},
    )
    north = {"store": {"DataType": "String", "StringValue": "north"}, "price": {"DataType": "Number", "StringValue": "11"}}
    cheap = {"store": {"DataType": "String", "StringValue": "north"}, "price": {"DataType": "Number", "StringValue": "9"}}
    sns.publish(TopicArn=topic, Message=json.dumps({"kind": "order", "n": 1}), MessageAttributes=north)
    sns.publish(TopicArn=topic, Message=json.dumps({"kind": "refund", "n": 2}), MessageAttributes=cheap)
    sns.publish(TopicArn=topic, Message=json.dumps({"kind": "order", "n": 3}))
    assert [json.loads(m["Body"])["n"] for m in receive(sqs, by_attr_url, 3, timeout=5)] == [1]
    assert sorted(json.loads(m["Body"])["n"] for m in receive(sqs, by_body_url, 3, timeout=5)) == [1, 3]


def wait_for(condition, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_nothing_runs_while_no_delivery_is_queued(tmp_path):
    data = str(tmp_path / "data")
    server = Stratus("--data-dir", data)
    try:
        sns, sqs = server.client("sns"), server.client("sqs")
        topic = sns.create_topic(Name="idle")["TopicArn"]
        url = sqs.create_queue(QueueName="idle-q")["QueueUrl"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=f"arn:aws:sqs:{REGION}:{ACCOUNT}:idle-q")
        sns.publish(TopicArn=topic, Message="once")
        assert len(receive(sqs, url, 1)) == 1
        # The drain's job is done: with nothing else to time, the scheduler's thread ends.
        assert wait_for(lambda: "scheduler" not in server.thread_names(), timeout=10)
    finally:
        server.stop()
    server = Stratus("--data-dir", data)
    try:
        server.client("sns").list_topics()
        time.sleep(0.5)
        assert "scheduler" not in server.thread_names()
    finally:
        server.stop()


def test_s3_notifications_fan_out_through_a_topic(stratus, sns, sqs):
    """S3 → SNS → SQS: an upload's event is published to the topic (subject "Amazon S3
    Notification") and reaches the topic's queue in SNS's envelope."""
    topic = sns.create_topic(Name="uploads")["TopicArn"]
    url, arn = queue(sqs, "uploads-q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    s3 = stratus.client("s3")
    s3.create_bucket(Bucket="fan-out")
    s3.put_bucket_notification_configuration(
        Bucket="fan-out",
        NotificationConfiguration={"TopicConfigurations": [{"Id": "t", "TopicArn": topic, "Events": ["s3:ObjectCreated:*"]}]},
    )
    test_event, = receive(sqs, url, 1)
    assert json.loads(json.loads(test_event["Body"])["Message"])["Event"] == "s3:TestEvent"
    s3.put_object(Bucket="fan-out", Key="report.csv", Body=b"a,b")
    delivered, = receive(sqs, url, 1)
    envelope = json.loads(delivered["Body"])
    assert envelope["TopicArn"] == topic and envelope["Subject"] == "Amazon S3 Notification"
    record = json.loads(envelope["Message"])["Records"][0]
    assert record["eventName"] == "ObjectCreated:Put" and record["s3"]["object"]["key"] == "report.csv"
