"""SQS through boto3 (awsJson1_0) and raw awsQuery requests, against the real binary."""

import hashlib
import json
import struct
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

@pytest.fixture(params=["json", "query"])
def sqs(request, stratus, query_models):
    """Every test runs over awsJson1_0 (current SDKs) and awsQuery (SDKs before 2023)."""
    return stratus.client("sqs", data_path=query_models if request.param == "query" else None)


@pytest.fixture
def queue(sqs):
    return sqs.create_queue(QueueName=f"q-{uuid.uuid4().hex[:12]}")["QueueUrl"]


def error_code(err):
    return err.value.response["Error"]["Code"]


def attributes_md5(attributes):
    """AWS's MD5 of message attributes, computed independently of the server."""
    buf = b""

    def field(data):
        return struct.pack(">I", len(data)) + data

    for name in sorted(attributes):
        value = attributes[name]
        buf += field(name.encode()) + field(value["DataType"].encode())
        if "StringValue" in value:
            buf += b"\x01" + field(value["StringValue"].encode())
        else:
            buf += b"\x02" + field(value["BinaryValue"])
    return hashlib.md5(buf).hexdigest()


def test_create_is_idempotent_and_urls_resolve(stratus, sqs):
    url = sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "45"})["QueueUrl"]
    # Like AWS's, the URL names the region; it reaches the host the client addressed.
    assert url == f"{stratus.endpoint}/queue/us-east-1/{ACCOUNT}/orders"
    assert sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "45"})["QueueUrl"] == url
    assert sqs.get_queue_url(QueueName="orders")["QueueUrl"] == url
    with pytest.raises(ClientError) as err:
        sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "46"})
    assert error_code(err) == "QueueAlreadyExists"
    with pytest.raises(ClientError) as err:
        sqs.get_queue_url(QueueName="no-such-queue")
    assert error_code(err) == "AWS.SimpleQueueService.NonExistentQueue"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_create_refuses_bad_names_and_attributes(sqs):
    for name, attributes, code in [
        ("bad name", {}, "InvalidParameterValue"),
        ("x" * 81, {}, "InvalidParameterValue"),
        ("plain", {"FifoQueue": "true"}, "InvalidParameterValue"),
        ("plain", {"VisibilityTimeout": "43201"}, "InvalidAttributeValue"),
        ("plain", {"QueueArn": "arn:aws:sqs:us-east-1:000000000000:x"}, "InvalidAttributeName"),
    ]:
        with pytest.raises(ClientError) as err:
            sqs.create_queue(QueueName=name, Attributes=attributes)
        assert error_code(err) == code, (name, attributes)


def test_list_queues_with_prefix_and_pages(sqs):
    names = [f"page-{i}" for i in range(5)]
    for name in names:
        sqs.create_queue(QueueName=name)
    sqs.create_queue(QueueName="other")
    everything = sqs.list_queues(QueueNamePrefix="page-")
    assert [u.rsplit("/", 1)[1] for u in everything["QueueUrls"]] == names
    assert "NextToken" not in everything
    seen, token = [], None
    while True:
        page = sqs.list_queues(QueueNamePrefix="page-", MaxResults=2, **({"NextToken": token} if token else {}))
        seen += page["QueueUrls"]
        token = page.get("NextToken")
        if not token:
            break
    assert [u.rsplit("/", 1)[1] for u in seen] == names
    assert "QueueUrls" not in sqs.list_queues(QueueNamePrefix="nothing-")


def test_an_edited_or_foreign_next_token_is_refused(sqs):
    for i in range(3):
        sqs.create_queue(QueueName=f"tok-{i}")
    token = sqs.list_queues(QueueNamePrefix="tok-", MaxResults=1)["NextToken"]
    edited = token[:-1] + ("0" if token[-1] != "0" else "1")
    for bad in (edited, "tok-0", token[:-2]):
        with pytest.raises(ClientError) as err:
            sqs.list_queues(QueueNamePrefix="tok-", MaxResults=1, NextToken=bad)
        assert error_code(err) == "InvalidParameterValue", bad


def test_attributes_defaults_set_and_counts(sqs, queue):
    attrs = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert attrs["VisibilityTimeout"] == "30"
    assert attrs["MessageRetentionPeriod"] == "345600"
    assert attrs["MaximumMessageSize"] == "1048576"
    assert attrs["DelaySeconds"] == "0"
    assert attrs["ReceiveMessageWaitTimeSeconds"] == "0"
    assert attrs["QueueArn"] == f"arn:aws:sqs:us-east-1:{ACCOUNT}:{queue.rsplit('/', 1)[1]}"
    assert abs(int(attrs["CreatedTimestamp"]) - time.time()) < 60
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"VisibilityTimeout": "60"})
    named = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert named == {"VisibilityTimeout": "60"}
    with pytest.raises(ClientError) as err:
        sqs.set_queue_attributes(QueueUrl=queue, Attributes={"DelaySeconds": "901"})
    assert error_code(err) == "InvalidAttributeValue"

    sqs.send_message(QueueUrl=queue, MessageBody="one")
    sqs.send_message(QueueUrl=queue, MessageBody="two")
    sqs.receive_message(QueueUrl=queue)
    counts = sqs.get_queue_attributes(
        QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    assert counts == {"ApproximateNumberOfMessages": "1", "ApproximateNumberOfMessagesNotVisible": "1"}
    sqs.purge_queue(QueueUrl=queue)
    counts = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessages"] == "0"
    assert counts["ApproximateNumberOfMessagesNotVisible"] == "0"


def test_send_receive_delete_with_digests(sqs, queue):
    attributes = {
        "City": {"DataType": "String", "StringValue": "Any City"},
        "Count": {"DataType": "Number", "StringValue": "7"},
        "Blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
    }
    sent = sqs.send_message(QueueUrl=queue, MessageBody="hello", MessageAttributes=attributes)
    assert sent["MD5OfMessageBody"] == hashlib.md5(b"hello").hexdigest()
    assert sent["MD5OfMessageAttributes"] == attributes_md5(attributes)
    got = sqs.receive_message(
        QueueUrl=queue, MessageAttributeNames=["All"], AttributeNames=["All"], MaxNumberOfMessages=10
    )["Messages"]
    assert len(got) == 1
    message = got[0]
    assert message["MessageId"] == sent["MessageId"]
    assert message["Body"] == "hello"
    assert message["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert message["MessageAttributes"]["Blob"]["BinaryValue"] == b"\x00\x01"
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"
    assert abs(int(message["Attributes"]["SentTimestamp"]) / 1000 - time.time()) < 60
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)
    with pytest.raises(ClientError) as err:
        sqs.delete_message(QueueUrl=queue, ReceiptHandle="not-a-handle")
    assert error_code(err) == "ReceiptHandleIsInvalid"


def test_message_refusals(sqs, queue):
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=queue, MessageBody="x" * 1_048_577)
    assert error_code(err) == "InvalidParameterValue"
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=queue, MessageBody="bad \u0000 char")
    assert error_code(err) == "InvalidMessageContents"
    with pytest.raises(ClientError) as err:
        sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=11)
    assert error_code(err) == "InvalidParameterValue"
    missing = queue.rsplit("/", 1)[0] + "/missing"
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=missing, MessageBody="x")
    assert error_code(err) == "AWS.SimpleQueueService.NonExistentQueue"


def test_batches(sqs, queue):
    out = sqs.send_message_batch(
        QueueUrl=queue,
        Entries=[
            {"Id": "a", "MessageBody": "first"},
            {"Id": "b", "MessageBody": "second", "DelaySeconds": 1000},
            {"Id": "c", "MessageBody": "third"},
        ],
    )
    assert sorted(e["Id"] for e in out["Successful"]) == ["a", "c"]
    assert [(f["Id"], f["Code"], f["SenderFault"]) for f in out["Failed"]] == [("b", "InvalidParameterValue", True)]
    for entries, code in [
        ([], "AWS.SimpleQueueService.EmptyBatchRequest"),
        ([{"Id": str(i), "MessageBody": "x"} for i in range(11)], "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"),
        ([{"Id": "d", "MessageBody": "x"}] * 2, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"),
        ([{"Id": "bad id", "MessageBody": "x"}], "AWS.SimpleQueueService.InvalidBatchEntryId"),
        ([{"Id": str(i), "MessageBody": "x" * 400_000} for i in range(3)], "AWS.SimpleQueueService.BatchRequestTooLong"),
    ]:
        with pytest.raises(ClientError) as err:
            sqs.send_message_batch(QueueUrl=queue, Entries=entries)
        assert error_code(err) == code

    got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in got) == ["first", "third"]
    changed = sqs.change_message_visibility_batch(
        QueueUrl=queue,
        Entries=[{"Id": "x", "ReceiptHandle": got[0]["ReceiptHandle"], "VisibilityTimeout": 0}],
    )
    assert [e["Id"] for e in changed["Successful"]] == ["x"]
    # Over JSON, SQS leaves out an empty Failed (aws/aws-sdk#657) and an empty Successful.
    assert "Failed" not in changed
    all_failed = sqs.send_message_batch(QueueUrl=queue, Entries=[{"Id": "z", "MessageBody": "x", "DelaySeconds": 1000}])
    assert "Successful" not in all_failed and [f["Id"] for f in all_failed["Failed"]] == ["z"]
    deleted = sqs.delete_message_batch(
        QueueUrl=queue, Entries=[{"Id": f"m{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
    )
    # A visibility change keeps the receipt handle valid, so both deletes succeed.
    assert sorted(e["Id"] for e in deleted["Successful"]) == ["m0", "m1"]
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)


@pytest.fixture(scope="module")
def manual_server():
    """A server on a manual clock: tests move time instead of waiting for it."""
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture
def manual_sqs(manual_server):
    return manual_server.client("sqs")


def test_visibility_timeout_and_change(manual_server, manual_sqs):
    sqs = manual_sqs
    queue = sqs.create_queue(QueueName=f"q-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="v")
    first = sqs.receive_message(QueueUrl=queue, VisibilityTimeout=60)["Messages"][0]
    manual_server.advance(59)
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)
    manual_server.advance(1)
    again = sqs.receive_message(QueueUrl=queue, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    assert again["MessageId"] == first["MessageId"]
    assert again["ReceiptHandle"] != first["ReceiptHandle"]
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=again["ReceiptHandle"], VisibilityTimeout=0)
    assert sqs.receive_message(QueueUrl=queue)["Messages"][0]["MessageId"] == first["MessageId"]
    with pytest.raises(ClientError) as err:
        sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=again["ReceiptHandle"], VisibilityTimeout=43_201)
    assert error_code(err) == "InvalidParameterValue"


def test_delay_and_long_poll_wake_on_visibility(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="later", DelaySeconds=1)
    delayed = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessagesDelayed"])
    assert delayed["Attributes"] == {"ApproximateNumberOfMessagesDelayed": "1"}
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)
    start = time.monotonic()
    got = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=5)
    elapsed = time.monotonic() - start
    assert got["Messages"][0]["Body"] == "later"
    assert 0.5 < elapsed < 3


def test_long_polls_end_when_the_clock_reaches_their_deadline(manual_server, manual_sqs):
    sqs = manual_sqs
    queue = sqs.create_queue(QueueName=f"q-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody="later", DelaySeconds=10)
    results = {}

    def poll(name, wait):
        client = manual_server.client("sqs")
        results[name] = client.receive_message(QueueUrl=queue, WaitTimeSeconds=wait).get("Messages", [])

    def advance_until_done(waiter, seconds):
        # The poll may not have begun when the clock first moves; each move ends it once it has.
        for _ in range(100):
            manual_server.advance(seconds)
            waiter.join(timeout=0.05)
            if not waiter.is_alive():
                return
        raise AssertionError("the long poll did not end")

    delayed = threading.Thread(target=poll, args=("delayed", 20))
    delayed.start()
    manual_server.advance(9)
    delayed.join(timeout=0.3)
    assert delayed.is_alive(), "no message is visible yet and the wait has not run out"
    advance_until_done(delayed, 1)
    assert [m["Body"] for m in results["delayed"]] == ["later"]

    empty = threading.Thread(target=poll, args=("empty", 5))
    empty.start()
    advance_until_done(empty, 5)
    assert results["empty"] == []


def test_long_poll_wakes_on_send_and_does_not_block_others(stratus, sqs, queue):
    result = {}

    def poll():
        start = time.monotonic()
        result["got"] = stratus.client("sqs").receive_message(QueueUrl=queue, WaitTimeSeconds=10)
        result["elapsed"] = time.monotonic() - start

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.5)
    start = time.monotonic()
    sqs.list_queues()
    assert time.monotonic() - start < 1
    sqs.send_message(QueueUrl=queue, MessageBody="wake up")
    waiter.join(timeout=10)
    assert result["got"]["Messages"][0]["Body"] == "wake up"
    assert result["elapsed"] < 3

    start = time.monotonic()
    assert "Messages" not in sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=1)
    assert 0.9 < time.monotonic() - start < 3


def test_fifo_groups_and_deduplication(sqs):
    url = sqs.create_queue(
        QueueName=f"jobs-{uuid.uuid4().hex[:8]}.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    a1 = sqs.send_message(QueueUrl=url, MessageBody="a1", MessageGroupId="a")
    again = sqs.send_message(QueueUrl=url, MessageBody="a1", MessageGroupId="a")
    assert again["MessageId"] == a1["MessageId"]
    assert len(a1["SequenceNumber"]) == 20
    sqs.send_message(QueueUrl=url, MessageBody="a2", MessageGroupId="a")
    sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b", MessageDeduplicationId="d-b1")
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=url, MessageBody="no group")
    assert error_code(err) == "MissingParameter"

    first = sqs.receive_message(QueueUrl=url)["Messages"][0]
    assert first["Body"] == "a1"
    # Group a waits while a1 is in flight; group b does not.
    assert sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"][0]["Body"] == "b1"
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "a2"


def test_delete_queue(sqs):
    name = f"short-lived-{uuid.uuid4().hex[:8]}"
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="gone soon")
    sqs.delete_queue(QueueUrl=url)
    with pytest.raises(ClientError) as err:
        sqs.get_queue_url(QueueName=name)
    assert error_code(err) == "AWS.SimpleQueueService.NonExistentQueue"
    # AWS: "You must wait 60 seconds after deleting a queue before you can create another
    # with the same name" (CreateQueue API reference).
    with pytest.raises(ClientError) as err:
        sqs.create_queue(QueueName=name)
    assert error_code(err) == "AWS.SimpleQueueService.QueueDeletedRecently"


def test_purge_once_a_minute(sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="to purge")
    sqs.purge_queue(QueueUrl=queue)
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)
    # PurgeQueue API reference: only one purge is allowed every 60 seconds.
    with pytest.raises(ClientError) as err:
        sqs.purge_queue(QueueUrl=queue)
    assert error_code(err) == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert "allowed every 60 seconds" in err.value.response["Error"]["Message"]


def test_tags(sqs):
    url = sqs.create_queue(QueueName=f"tagged-{uuid.uuid4().hex[:8]}", tags={"team": "a", "env": "dev"})["QueueUrl"]
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "a", "env": "dev"}
    sqs.tag_queue(QueueUrl=url, Tags={"team": "b", "cost": "1"})
    sqs.untag_queue(QueueUrl=url, TagKeys=["env", "absent"])
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "b", "cost": "1"}
    with pytest.raises(ClientError) as err:
        sqs.tag_queue(QueueUrl=url, Tags={f"k{i}": "v" for i in range(50)})
    assert error_code(err) == "InvalidParameterValue"
    sqs.untag_queue(QueueUrl=url, TagKeys=["team", "cost"])
    assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)
    for tags, message in [
        ({"k" * 129: "v"}, "Tag key must be between 1 and 128 characters long: " + "k" * 129),
        ({"k": "v" * 257}, "Tag value must be at most 256 characters long for key k"),
        ({"AWS:owner": "me"}, "Tag keys may not start with the reserved prefix aws: AWS:owner"),
    ]:
        with pytest.raises(ClientError) as err:
            sqs.tag_queue(QueueUrl=url, Tags=tags)
        assert error_code(err) == "InvalidParameterValue"
        assert err.value.response["Error"]["Message"] == message


def test_permissions_edit_the_policy(sqs, queue):
    sqs.add_permission(QueueUrl=queue, Label="p1", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    policy = json.loads(sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["Policy"])["Attributes"]["Policy"])
    [statement] = policy["Statement"]
    assert statement["Sid"] == "p1"
    assert statement["Principal"] == {"AWS": "arn:aws:iam::111122223333:root"}
    assert statement["Action"] == "SQS:SendMessage"
    with pytest.raises(ClientError) as err:
        sqs.add_permission(QueueUrl=queue, Label="p1", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    assert error_code(err) == "InvalidParameterValue"
    sqs.remove_permission(QueueUrl=queue, Label="p1")
    assert "Attributes" not in sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["Policy"])
    with pytest.raises(ClientError) as err:
        sqs.remove_permission(QueueUrl=queue, Label="p1")
    assert error_code(err) == "InvalidParameterValue"


def test_attribute_names_are_checked_by_the_service(sqs, queue):
    # SQS answers an unknown queue attribute with InvalidAttributeName, not a validation error.
    with pytest.raises(ClientError) as err:
        sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["NoSuchAttribute"])
    assert error_code(err) == "InvalidAttributeName"
    # ReceiveMessage still takes message system attributes in the legacy AttributeNames.
    sqs.send_message(QueueUrl=queue, MessageBody="legacy")
    [m] = sqs.receive_message(QueueUrl=queue, AttributeNames=["SentTimestamp"])["Messages"]
    assert list(m["Attributes"]) == ["SentTimestamp"]


# A SigV4-shaped Authorization header (signatures are not verified unless asked).
SIGNED = {
    "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=content-type;host, Signature=" + "0" * 64,
}


def query(stratus, **params):
    """An awsQuery request as older SDKs send it, with a SigV4-shaped Authorization header."""
    body = urllib.parse.urlencode({"Version": "2012-11-05", **params}).encode()
    request = urllib.request.Request(
        stratus.endpoint + "/",
        data=body,
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8", **SIGNED},
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, ET.fromstring(response.read())
    except urllib.error.HTTPError as e:
        return e.code, ET.fromstring(e.read())


def local(tag):
    return tag.rsplit("}", 1)[-1]


def find(element, *path):
    """The first descendant along `path` by local names (whatever the XML namespace)."""
    for name in path:
        element = next((child for child in element.iter() if local(child.tag) == name), None)
        if element is None:
            return None
    return element


def test_query_protocol(stratus, sqs, queue):
    status, doc = query(stratus, Action="SendMessage", QueueUrl=queue, MessageBody="over query")
    assert status == 200
    assert local(doc.tag) == "SendMessageResponse"
    assert find(doc, "SendMessageResult", "MD5OfMessageBody").text == hashlib.md5(b"over query").hexdigest()
    status, doc = query(stratus, Action="ReceiveMessage", QueueUrl=queue)
    assert status == 200
    assert find(doc, "ReceiveMessageResult", "Message", "Body").text == "over query"
    status, doc = query(stratus, Action="GetQueueUrl", QueueName="no-such-queue")
    assert status == 400
    assert find(doc, "Error", "Code").text == "AWS.SimpleQueueService.NonExistentQueue"


def test_messages_survive_a_restart(tmp_path):
    first = Stratus("--data-dir", str(tmp_path))
    try:
        sqs = first.client("sqs")
        url = sqs.create_queue(QueueName="durable")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="still here")
    finally:
        assert first.stop() == 0
    second = Stratus("--data-dir", str(tmp_path))
    try:
        sqs = second.client("sqs")
        url = sqs.get_queue_url(QueueName="durable")["QueueUrl"]
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
        assert [m["Body"] for m in got] == ["still here"]
    finally:
        second.stop()


NS = "{http://queue.amazonaws.com/doc/2012-11-05/}"


def shape(element):
    """An element's structure: its local tag and its children's structures (text left out)."""
    assert element.tag.startswith(NS), element.tag
    return (local(element.tag), [shape(child) for child in element])


def test_query_xml_shapes(stratus):
    """awsQuery answers in AWS's XML layout: the namespace, `<Op>Result` wrappers, flattened
    `Attribute` and `MessageAttribute` entries, `ResponseMetadata`, and errors as
    `ErrorResponse/Error/{Type,Code,Message,Detail}` with a `RequestId` beside `Error`."""
    name = f"xml-{uuid.uuid4().hex[:8]}"
    status, doc = query(stratus, Action="CreateQueue", QueueName=name)
    assert status == 200
    assert shape(doc) == (
        "CreateQueueResponse",
        [("CreateQueueResult", [("QueueUrl", [])]), ("ResponseMetadata", [("RequestId", [])])],
    )
    url = find(doc, "QueueUrl").text
    query(
        stratus,
        Action="SendMessage",
        QueueUrl=url,
        MessageBody="hi",
        **{"MessageAttribute.1.Name": "a", "MessageAttribute.1.Value.DataType": "String", "MessageAttribute.1.Value.StringValue": "v"},
    )
    status, doc = query(stratus, Action="ReceiveMessage", QueueUrl=url, **{"AttributeName.1": "SentTimestamp", "MessageAttributeName.1": "All"})
    assert status == 200
    [message] = find(doc, "ReceiveMessageResult")
    assert shape(message) == (
        "Message",
        [
            ("MessageId", []),
            ("ReceiptHandle", []),
            ("MD5OfBody", []),
            ("Body", []),
            ("Attribute", [("Name", []), ("Value", [])]),
            ("MD5OfMessageAttributes", []),
            ("MessageAttribute", [("Name", []), ("Value", [("StringValue", []), ("DataType", [])])]),
        ],
    )
    status, doc = query(stratus, Action="GetQueueAttributes", QueueUrl=url, **{"AttributeName.1": "DelaySeconds"})
    assert shape(find(doc, "GetQueueAttributesResult")) == (
        "GetQueueAttributesResult",
        [("Attribute", [("Name", []), ("Value", [])])],
    )
    status, doc = query(stratus, Action="DeleteQueue", QueueUrl=url + "-absent")
    assert status == 400
    assert shape(doc) == (
        "ErrorResponse",
        [("Error", [("Type", []), ("Code", []), ("Message", []), ("Detail", [])]), ("RequestId", [])],
    )
    assert find(doc, "Type").text == "Sender"


# --- Behaviour recorded from AWS ---------------------------------------------------------


def test_fifo_booleans_are_taken_in_any_case(sqs):
    url = sqs.create_queue(
        QueueName=f"case-{uuid.uuid4().hex[:8]}.fifo",
        Attributes={"FifoQueue": "True", "ContentBasedDeduplication": "TRUE"},
    )["QueueUrl"]
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (attrs["FifoQueue"], attrs["ContentBasedDeduplication"]) == ("true", "true")
    # Content-based deduplication is on: no deduplication id needed.
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")


def test_standard_queues_know_no_fifo_attributes(sqs):
    name = f"std-{uuid.uuid4().hex[:8]}"
    for attributes, code, message in [
        ({"FifoQueue": "false"}, "InvalidAttributeName", "Unknown Attribute FifoQueue."),
        ({"ContentBasedDeduplication": "false"}, "InvalidAttributeName", "Unknown Attribute ContentBasedDeduplication."),
        (
            {"DeduplicationScope": "queue"},
            "InvalidAttributeName",
            "You can specify the DeduplicationScope only when FifoQueue is set to true.",
        ),
        (
            {"FifoThroughputLimit": "perQueue"},
            "InvalidAttributeName",
            "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
        ),
    ]:
        with pytest.raises(ClientError) as err:
            sqs.create_queue(QueueName=name, Attributes=attributes)
        assert (error_code(err), err.value.response["Error"]["Message"]) == (code, message), attributes
    fifo = sqs.create_queue(QueueName=f"{name}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=fifo, Attributes={"FifoQueue": "true"})
    with pytest.raises(ClientError) as err:
        sqs.set_queue_attributes(QueueUrl=fifo, Attributes={"FifoQueue": "false"})
    assert error_code(err) == "InvalidAttributeValue"
    assert "Modifying queue type is not supported" in err.value.response["Error"]["Message"]


def test_messages_may_be_one_mebibyte(sqs, queue):
    attrs = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["MaximumMessageSize"])["Attributes"]
    assert attrs["MaximumMessageSize"] == "1048576"
    sqs.send_message(QueueUrl=queue, MessageBody="x" * 1_048_576)
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=queue, MessageBody="x" * 1_048_577)
    assert err.value.response["Error"]["Message"] == (
        "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes."
    )
    with pytest.raises(ClientError) as err:
        sqs.set_queue_attributes(QueueUrl=queue, Attributes={"MaximumMessageSize": "1048577"})
    assert error_code(err) == "InvalidAttributeValue"
    # A batch entry over the queue's limit fails alone, worded differently.
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"MaximumMessageSize": "1024"})
    result = sqs.send_message_batch(
        QueueUrl=queue, Entries=[{"Id": "fits", "MessageBody": "a" * 1024}, {"Id": "over", "MessageBody": "a" * 1025}]
    )
    assert [e["Id"] for e in result["Successful"]] == ["fits"]
    [failed] = result["Failed"]
    assert failed["Message"] == "One or more parameters cannot be validated. Reason: Message must be shorter than 1024 bytes."


def test_group_and_deduplication_ids_are_checked(sqs, queue):
    fifo = sqs.create_queue(QueueName=f"ids-{uuid.uuid4().hex[:8]}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for bad in ["", "a" * 129, "group 123"]:
        with pytest.raises(ClientError) as err:
            sqs.send_message(QueueUrl=queue, MessageBody="m", MessageGroupId=bad)
        assert err.value.response["Error"]["Message"] == (
            f"Value {bad} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include "
            "alphanumeric and punctuation characters. 1 to 128 in length."
        )
        with pytest.raises(ClientError) as err:
            sqs.send_message(QueueUrl=fifo, MessageBody="m", MessageGroupId="g", MessageDeduplicationId=bad)
        assert error_code(err) == "InvalidParameterValue"
    sqs.send_message(QueueUrl=fifo, MessageBody="m", MessageGroupId="g!#", MessageDeduplicationId="a" * 128)


def test_fifo_batches_without_their_ids_are_refused_whole(sqs):
    fifo = sqs.create_queue(QueueName=f"batch-{uuid.uuid4().hex[:8]}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    ok = {"Id": "ok", "MessageBody": "m", "MessageGroupId": "g", "MessageDeduplicationId": "d"}
    with pytest.raises(ClientError) as err:
        sqs.send_message_batch(QueueUrl=fifo, Entries=[ok, {"Id": "nogroup", "MessageBody": "m", "MessageDeduplicationId": "e"}])
    assert err.value.response["Error"]["Message"] == "The request must contain the parameter MessageGroupId."
    with pytest.raises(ClientError) as err:
        sqs.send_message_batch(QueueUrl=fifo, Entries=[ok, {"Id": "nodedup", "MessageBody": "m", "MessageGroupId": "g"}])
    assert error_code(err) == "InvalidParameterValue"
    # Nothing of a refused batch was sent.
    assert "Messages" not in sqs.receive_message(QueueUrl=fifo)


def test_fifo_takes_an_explicit_zero_delay(sqs):
    fifo = sqs.create_queue(QueueName=f"d0-{uuid.uuid4().hex[:8]}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.send_message(QueueUrl=fifo, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="d", DelaySeconds=0)
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=fifo, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="e", DelaySeconds=2)
    assert error_code(err) == "InvalidParameterValue"


def fifo_queue(sqs, **attributes):
    return sqs.create_queue(
        QueueName=f"order-{uuid.uuid4().hex[:8]}.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true", **attributes},
    )["QueueUrl"]


def send_all(sqs, url, bodies):
    for body in bodies:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=body.split("-")[0])


def bodies(response):
    return [m["Body"] for m in response.get("Messages", [])]


def test_fifo_delivers_a_group_together(sqs):
    url = fifo_queue(sqs)
    send_all(sqs, url, ["a-1", "b-1", "a-2", "a-3"])
    assert bodies(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)) == ["a-1", "a-2", "a-3", "b-1"]


def test_fifo_groups_back_from_flight_wait_their_turn(stratus, sqs):
    # A group whose messages were deleted goes on from where it was; one whose messages came
    # back from flight waits behind the groups that were never received.
    url = fifo_queue(sqs)
    send_all(sqs, url, ["a-1", "b-1", "a-2", "b-2", "a-3", "c-1"])
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]
    assert bodies({"Messages": got}) == ["a-1", "a-2"]
    for m in got:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert bodies(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)) == [
        "b-1",
        "b-2",
        "a-3",
        "c-1",
    ]
    # All four came back at once (visibility 0): their groups keep their order, behind none.
    url = fifo_queue(sqs)
    send_all(sqs, url, ["a-1", "b-1", "c-1"])
    assert bodies(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2, VisibilityTimeout=0)) == ["a-1", "b-1"]
    assert bodies(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)) == ["c-1", "a-1", "b-1"]


def test_fifo_message_made_visible_again_releases_its_group(stratus, sqs):
    url = fifo_queue(sqs, VisibilityTimeout="30")
    send_all(sqs, url, ["a-1", "a-2", "b-1"])
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=0)
    # a-1 is visible again, a-2 still in flight; group b never left the queue.
    assert bodies(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=3)) == ["b-1", "a-1"]


def test_visibility_changes_by_an_older_handle_and_after_expiry(stratus, sqs, queue):
    sqs.send_message(QueueUrl=queue, MessageBody="m")
    [first] = sqs.receive_message(QueueUrl=queue, VisibilityTimeout=0)["Messages"]
    [second] = sqs.receive_message(QueueUrl=queue, VisibilityTimeout=30)["Messages"]
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0)
    [third] = sqs.receive_message(QueueUrl=queue, VisibilityTimeout=1)["Messages"]
    time.sleep(1.5)
    # Expired, yet its handle still changes its visibility.
    sqs.change_message_visibility(QueueUrl=queue, ReceiptHandle=third["ReceiptHandle"], VisibilityTimeout=30)
    assert "Messages" not in sqs.receive_message(QueueUrl=queue)
    assert second["MessageId"] == third["MessageId"]


def test_fifo_sequence_numbers_and_attribute_wildcards(sqs, queue):
    fifo = fifo_queue(sqs)
    sent = [sqs.send_message(QueueUrl=fifo, MessageBody=f"m{i}", MessageGroupId="g")["SequenceNumber"] for i in range(2)]
    # Large, growing, not consecutive.
    assert all(len(s) == 20 and s.isdigit() for s in sent)
    assert int(sent[1]) > int(sent[0]) + 1
    got = sqs.receive_message(QueueUrl=fifo, MaxNumberOfMessages=2, AttributeNames=["All"])["Messages"]
    assert [m["Attributes"]["SequenceNumber"] for m in got] == sent
    # A standard queue's message has no sequence number, even with a group id.
    sqs.send_message(
        QueueUrl=queue,
        MessageBody="fair",
        MessageGroupId="tenant",
        MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}},
    )
    [m] = sqs.receive_message(QueueUrl=queue, AttributeNames=["All"], MessageAttributeNames=["*"])["Messages"]
    assert "SequenceNumber" not in m["Attributes"] and m["Attributes"]["MessageGroupId"] == "tenant"
    assert m["MessageAttributes"] == {"k": {"DataType": "String", "StringValue": "v"}}


def test_kms_key_replaces_managed_encryption(sqs, queue):
    def attrs():
        return sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]

    assert attrs()["SqsManagedSseEnabled"] == "true" and "KmsDataKeyReusePeriodSeconds" not in attrs()
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsMasterKeyId": "alias/mine", "KmsDataKeyReusePeriodSeconds": "600"})
    now = attrs()
    assert (now["SqsManagedSseEnabled"], now["KmsMasterKeyId"], now["KmsDataKeyReusePeriodSeconds"]) == ("false", "alias/mine", "600")
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"KmsMasterKeyId": ""})
    now = attrs()
    assert now["SqsManagedSseEnabled"] == "false"
    assert "KmsMasterKeyId" not in now and "KmsDataKeyReusePeriodSeconds" not in now


def test_string_attribute_values_obey_the_character_rules(sqs, queue):
    with pytest.raises(ClientError) as err:
        sqs.send_message(
            QueueUrl=queue, MessageBody="m", MessageAttributes={"a": {"DataType": "String", "StringValue": "bad\x08"}}
        )
    assert error_code(err) == "InvalidParameterValue"
    with pytest.raises(ClientError) as err:
        sqs.send_message(QueueUrl=queue, MessageBody="m", MessageAttributes={"a": {"DataType": "String", "StringValue": ""}})
    assert err.value.response["Error"]["Message"] == "Message (user) attribute 'a' must contain a non-empty value of type 'String'."


def test_queue_urls_name_their_region(stratus, query_models):
    name = f"regional-{uuid.uuid4().hex[:8]}"
    urls = {}
    for region in ["us-east-1", "eu-central-1"]:
        client = stratus.client("sqs", region=region)
        urls[region] = client.create_queue(QueueName=name)["QueueUrl"]
        # Like AWS's https://sqs.REGION.amazonaws.com/ACCOUNT/NAME, the URL names the region;
        # the host addressed has no sqs.REGION subdomain, so the region is in the path.
        assert urls[region] == f"{stratus.endpoint}/queue/{region}/{ACCOUNT}/{name}"
        assert client.get_queue_url(QueueName=name)["QueueUrl"] == urls[region]
        assert client.list_queues(QueueNamePrefix=name)["QueueUrls"] == [urls[region]]
        # A bare queue name is taken for one of the caller's queues.
        client.send_message(QueueUrl=name, MessageBody=region)
    for region in urls:
        client = stratus.client("sqs", region=region)
        assert bodies(client.receive_message(QueueUrl=urls[region])) == [region]
    # A client that addresses the region's SQS host by name keeps it in its URLs.
    port = urllib.parse.urlsplit(stratus.endpoint).port
    request = urllib.request.Request(
        f"{stratus.endpoint}/",
        data=urllib.parse.urlencode({"Action": "GetQueueUrl", "QueueName": name, "Version": "2012-11-05"}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Host": f"sqs.us-east-1.example:{port}", **SIGNED},
    )
    with urllib.request.urlopen(request) as response:
        assert find(ET.fromstring(response.read()), "QueueUrl").text == f"http://sqs.us-east-1.example:{port}/{ACCOUNT}/{name}"


def test_query_requests_to_a_queue_url_name_the_queue(stratus, sqs, queue):
    """The classic Query form: the request goes to the queue's URL, without QueueUrl."""
    path = urllib.parse.urlsplit(queue).path
    for method in ["POST", "GET"]:
        params = urllib.parse.urlencode({"Action": "SendMessage", "MessageBody": method, "Version": "2012-11-05"})
        request = urllib.request.Request(
            f"{stratus.endpoint}{path}" + ("" if method == "POST" else f"?{params}"),
            data=params.encode() if method == "POST" else None,
            method=method,
            headers={"Content-Type": "application/x-www-form-urlencoded", **SIGNED},
        )
        with urllib.request.urlopen(request) as response:
            assert response.status == 200
            assert local(ET.fromstring(response.read()).tag) == "SendMessageResponse"
    got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)
    assert sorted(bodies(got)) == ["GET", "POST"]


def test_permissions_are_written_in_a_2008_policy(sqs, queue):
    sqs.add_permission(QueueUrl=queue, Label="share", AWSAccountIds=["111122223333"], Actions=["ReceiveMessage"])
    policy = json.loads(sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["Policy"])["Attributes"]["Policy"])
    assert policy["Version"] == "2008-10-17"
    with pytest.raises(ClientError) as err:
        sqs.remove_permission(QueueUrl=queue, Label="other")
    assert err.value.response["Error"]["Message"] == "Value other for parameter Label is invalid. Reason: can't find label."


def test_deleting_a_fifo_message_wakes_a_long_poll_on_its_group(sqs):
    url = fifo_queue(sqs, VisibilityTimeout="60")
    send_all(sqs, url, ["a-1", "a-2"])
    [first] = sqs.receive_message(QueueUrl=url)["Messages"]
    got = []
    poll = threading.Thread(target=lambda: got.extend(bodies(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10))))
    poll.start()
    time.sleep(0.5)
    started = time.monotonic()
    sqs.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    poll.join()
    assert got == ["a-2"] and time.monotonic() - started < 5


def test_purge_forgets_deduplication_ids(sqs):
    url = fifo_queue(sqs, ContentBasedDeduplication="false")
    sqs.send_message(QueueUrl=url, MessageBody="first", MessageGroupId="g", MessageDeduplicationId="d")
    sqs.purge_queue(QueueUrl=url)
    sqs.send_message(QueueUrl=url, MessageBody="second", MessageGroupId="g", MessageDeduplicationId="d")
    assert bodies(sqs.receive_message(QueueUrl=url)) == ["second"]


def test_fifo_receipt_handles_expire_with_their_visibility(sqs):
    url = fifo_queue(sqs, VisibilityTimeout="1")
    send_all(sqs, url, ["a-1"])
    [m] = sqs.receive_message(QueueUrl=url)["Messages"]
    time.sleep(1.5)
    with pytest.raises(ClientError) as err:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert err.value.response["Error"]["Message"] == (
        f"Value {m['ReceiptHandle']} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
    )
    # Extended in time, the handle still deletes.
    [m] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=30)
    time.sleep(1.5)
    sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_message_attribute_names_follow_aws_rules(sqs, queue):
    def send(name, data_type="String"):
        sqs.send_message(QueueUrl=queue, MessageBody="m", MessageAttributes={name: {"DataType": data_type, "StringValue": "v"}})

    send("attr.1øßä")
    send("L" * 256)
    for bad in ["aWs.x", "AMAZON.x", ".x", "x.", "a..b", "a!b", "a§b", "L" * 257]:
        with pytest.raises(ClientError) as err:
            send(bad)
        assert error_code(err) == "InvalidParameterValue", bad
    with pytest.raises(ClientError) as err:
        send("ok", "String." + "L" * 256)
    assert error_code(err) == "InvalidParameterValue"


def test_query_errors_carry_an_empty_detail(stratus, sqs, queue):
    status, doc = query(stratus, Action="ReceiveMessage", QueueUrl=queue, WaitTimeSeconds="21")
    assert status == 400
    error = find(doc, "Error")
    assert [local(child.tag) for child in error] == ["Type", "Code", "Message", "Detail"]
    assert find(error, "Code").text == "InvalidParameterValue" and not find(error, "Detail").text


def test_modelled_query_errors_carry_the_detail_too(stratus):
    # As AWS recorded: every SQS Query error has the empty <Detail/>, and an unknown queue is
    # worded for the wsdl version there (JSON clients get "The specified queue does not exist.").
    gone = f"{stratus.endpoint}/000000000000/never-made-{uuid.uuid4().hex[:8]}"
    status, doc = query(stratus, Action="GetQueueAttributes", QueueUrl=gone)
    error = find(doc, "Error")
    assert status == 400
    assert [local(child.tag) for child in error] == ["Type", "Code", "Message", "Detail"]
    assert find(error, "Code").text == "AWS.SimpleQueueService.NonExistentQueue"
    assert find(error, "Message").text == "The specified queue does not exist for this wsdl version."
    with pytest.raises(ClientError) as err:
        stratus.client("sqs").get_queue_attributes(QueueUrl=gone)
    assert err.value.response["Error"]["Message"] == "The specified queue does not exist."


def test_a_missing_parameter_is_named(stratus, sqs, queue):
    status, doc = query(stratus, Action="SendMessage", QueueUrl=queue)
    assert status == 400
    assert find(doc, "Code").text == "MissingParameter"
    assert find(doc, "Message").text == "The request must contain the parameter MessageBody."


def queue_get(stratus, queue, **params):
    """A signed Query GET to the queue's own URL: (status, body text)."""
    path = urllib.parse.urlsplit(queue).path
    query_string = urllib.parse.urlencode(params)
    request = urllib.request.Request(f"{stratus.endpoint}{path}" + (f"?{query_string}" if params else ""), headers=SIGNED)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_queues_url_takes_only_the_actions_on_a_queue(stratus, queue):
    for action in ["CreateQueue", "ListQueues", "FooBar"]:
        status, text = queue_get(stratus, queue, Action=action, QueueName="other")
        assert status == 400, action
        assert "<Code>InvalidAction</Code>" in text
        assert f"<Message>The action {action} is not valid for this endpoint.</Message>" in text
    # GetQueueUrl is answered there.
    status, text = queue_get(stratus, queue, Action="GetQueueUrl", QueueName=queue.rsplit("/", 1)[1])
    assert status == 200 and "<QueueUrl>" in text
    # Without any action, SQS answers a bare document.
    assert queue_get(stratus, queue) == (404, "<UnknownOperationException/>")
    # An empty result is an empty-element tag.
    status, text = queue_get(stratus, queue, Action="ReceiveMessage")
    assert status == 200 and "<ReceiveMessageResult/>" in text


TRACE = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"


def with_trace_header(client, operation):
    """Adds X-Ray's `X-Amzn-Trace-Id` header to the client's `operation` requests."""

    def add(request, **_):
        request.headers["X-Amzn-Trace-Id"] = TRACE

    client.meta.events.register(f"before-send.{client.meta.service_model.endpoint_prefix}.{operation}", add)
    return add


def test_the_send_requests_trace_header_becomes_its_aws_trace_header(stratus, queue):
    # As recorded from AWS: the request's X-Ray header is kept as the AWSTraceHeader system
    # attribute when the message names none, and the send's answer has no digest for it.
    traced = stratus.client("sqs")
    with_trace_header(traced, "SendMessage")
    sent = traced.send_message(QueueUrl=queue, MessageBody="traced")
    assert "MD5OfMessageSystemAttributes" not in sent
    got = traced.receive_message(QueueUrl=queue, AttributeNames=["AWSTraceHeader"])["Messages"][0]
    assert got["Attributes"]["AWSTraceHeader"] == TRACE
    # A trace the message names wins.
    named = "Root=1-00000000-000000000000000000000000"
    traced.delete_message(QueueUrl=queue, ReceiptHandle=got["ReceiptHandle"])
    traced.send_message(
        QueueUrl=queue,
        MessageBody="named",
        MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": named}},
    )
    got = traced.receive_message(QueueUrl=queue, AttributeNames=["AWSTraceHeader"])["Messages"][0]
    assert got["Attributes"]["AWSTraceHeader"] == named
