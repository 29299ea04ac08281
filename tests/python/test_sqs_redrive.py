"""SQS dead-letter queues: RedrivePolicy, RedriveAllowPolicy, ListDeadLetterSourceQueues and
message move tasks, through boto3 against the real binary."""

import base64
import json
import time
import uuid

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def sqs(stratus):
    return stratus.client("sqs")


def error(err):
    return err.value.response["Error"]["Code"], err.value.response["Error"]["Message"]


def arn_of(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def make_pair(sqs, max_receive_count=2, suffix=""):
    """A dead-letter queue and a source queue redriving to it, with no visibility timeout."""
    tag = uuid.uuid4().hex[:10]
    dlq = sqs.create_queue(QueueName=f"dlq-{tag}{suffix}", Attributes={"FifoQueue": "true"} if suffix else {})["QueueUrl"]
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": str(max_receive_count)})
    attributes = {"RedrivePolicy": policy, "VisibilityTimeout": "0"}
    if suffix:
        attributes["FifoQueue"] = "true"
    source = sqs.create_queue(QueueName=f"src-{tag}{suffix}", Attributes=attributes)["QueueUrl"]
    return dlq, source


def test_messages_received_too_often_move_to_the_dead_letter_queue(sqs):
    dlq, source = make_pair(sqs, max_receive_count=2)
    stored = sqs.get_queue_attributes(QueueUrl=source, AttributeNames=["RedrivePolicy"])["Attributes"]
    # AWS returns the policy normalised, maxReceiveCount as a number.
    assert json.loads(stored["RedrivePolicy"]) == {"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 2}
    sent = sqs.send_message(QueueUrl=source, MessageBody="poison")["MessageId"]
    for _ in range(2):
        assert len(sqs.receive_message(QueueUrl=source)["Messages"]) == 1
    # The third receive finds the message over its limit: it goes to the DLQ instead.
    assert "Messages" not in sqs.receive_message(QueueUrl=source)
    [m] = sqs.receive_message(QueueUrl=dlq, MessageSystemAttributeNames=["All"])["Messages"]
    assert (m["MessageId"], m["Body"]) == (sent, "poison")
    assert m["Attributes"]["DeadLetterQueueSourceArn"] == arn_of(sqs, source)
    assert int(m["Attributes"]["ApproximateReceiveCount"]) == 3
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [source]


def test_long_poll_on_the_dead_letter_queue_wakes_on_redrive(sqs):
    dlq, source = make_pair(sqs, max_receive_count=1)
    sqs.send_message(QueueUrl=source, MessageBody="poison")
    sqs.receive_message(QueueUrl=source)
    assert "Messages" not in sqs.receive_message(QueueUrl=source)
    started = time.monotonic()
    assert sqs.receive_message(QueueUrl=dlq, WaitTimeSeconds=5)["Messages"][0]["Body"] == "poison"
    assert time.monotonic() - started < 2


def test_fifo_redrive(sqs):
    dlq, source = make_pair(sqs, max_receive_count=1, suffix=".fifo")
    sqs.send_message(QueueUrl=source, MessageBody="a", MessageGroupId="g", MessageDeduplicationId="1")
    sqs.send_message(QueueUrl=source, MessageBody="b", MessageGroupId="g", MessageDeduplicationId="2")
    assert sqs.receive_message(QueueUrl=source)["Messages"][0]["Body"] == "a"
    # "a" leaves for the DLQ, which unblocks its group: "b" is next.
    assert sqs.receive_message(QueueUrl=source)["Messages"][0]["Body"] == "b"
    assert sqs.receive_message(QueueUrl=dlq)["Messages"][0]["Body"] == "a"


@pytest.mark.parametrize(
    "policy, reason",
    [
        ({"maxReceiveCount": 3}, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."),
        ({"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:absent", "maxReceiveCount": 3}, "Dead letter target does not exist."),
        ({"deadLetterTargetArn": "DLQ", "maxReceiveCount": 0}, "Invalid value for maxReceiveCount: 0, valid values are from 1 to 1000 both inclusive."),
        ({"deadLetterTargetArn": "FIFO", "maxReceiveCount": 3}, "Dead-letter queue must be same type of queue as the source."),
    ],
)
def test_redrive_policy_refusals(sqs, policy, reason):
    tag = uuid.uuid4().hex[:10]
    dlq = sqs.create_queue(QueueName=f"dlq-{tag}")["QueueUrl"]
    fifo = sqs.create_queue(QueueName=f"fifo-{tag}.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    target = {"DLQ": arn_of(sqs, dlq), "FIFO": arn_of(sqs, fifo)}
    if policy.get("deadLetterTargetArn") in target:
        policy = {**policy, "deadLetterTargetArn": target[policy["deadLetterTargetArn"]]}
    text = json.dumps(policy)
    with pytest.raises(ClientError) as err:
        sqs.create_queue(QueueName=f"src-{tag}", Attributes={"RedrivePolicy": text})
    assert error(err) == ("InvalidParameterValue", f"Value {text} for parameter RedrivePolicy is invalid. Reason: {reason}")


def test_redrive_allow_policy(sqs):
    tag = uuid.uuid4().hex[:10]
    dlq = sqs.create_queue(
        QueueName=f"dlq-{tag}", Attributes={"RedriveAllowPolicy": json.dumps({"redrivePermission": "denyAll"})}
    )["QueueUrl"]
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 1})
    with pytest.raises(ClientError) as err:
        sqs.create_queue(QueueName=f"src-{tag}", Attributes={"RedrivePolicy": policy})
    assert error(err)[0] == "InvalidParameterValue"
    source = sqs.create_queue(QueueName=f"src-{tag}")["QueueUrl"]
    allow = {"redrivePermission": "byQueue", "sourceQueueArns": [arn_of(sqs, source)]}
    sqs.set_queue_attributes(QueueUrl=dlq, Attributes={"RedriveAllowPolicy": json.dumps(allow)})
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": policy})
    with pytest.raises(ClientError) as err:
        sqs.set_queue_attributes(
            QueueUrl=dlq, Attributes={"RedriveAllowPolicy": json.dumps({"redrivePermission": "byQueue"})}
        )
    assert error(err)[0] == "InvalidParameterValue"
    # An empty value removes the policy.
    sqs.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": ""})
    assert "Attributes" not in sqs.get_queue_attributes(QueueUrl=source, AttributeNames=["RedrivePolicy"])


def wait_for_status(sqs, source_arn, status, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        [task] = sqs.list_message_move_tasks(SourceArn=source_arn)["Results"]
        if task["Status"] == status or time.monotonic() > deadline:
            return task
        time.sleep(0.05)


def test_move_task_returns_messages_to_their_source(sqs):
    dlq, source = make_pair(sqs, max_receive_count=1)
    for body in ["one", "two"]:
        sqs.send_message(QueueUrl=source, MessageBody=body)
    sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)
    assert "Messages" not in sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)
    dlq_arn = arn_of(sqs, dlq)
    assert sqs.start_message_move_task(SourceArn=dlq_arn)["TaskHandle"]
    task = wait_for_status(sqs, dlq_arn, "COMPLETED")
    assert task["Status"] == "COMPLETED"
    assert (task["ApproximateNumberOfMessagesMoved"], task["ApproximateNumberOfMessagesToMove"]) == (2, 2)
    assert task["SourceArn"] == dlq_arn and "TaskHandle" not in task
    bodies = sorted(m["Body"] for m in sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10)["Messages"])
    assert bodies == ["one", "two"]


def test_move_task_with_a_rate_can_be_cancelled(sqs):
    dlq, source = make_pair(sqs, max_receive_count=1)
    other = sqs.create_queue(QueueName=f"dest-{uuid.uuid4().hex[:10]}")["QueueUrl"]
    sqs.send_message_batch(
        QueueUrl=source, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(10)]
    )
    while sqs.receive_message(QueueUrl=source, MaxNumberOfMessages=10).get("Messages"):
        pass
    dlq_arn = arn_of(sqs, dlq)
    handle = sqs.start_message_move_task(
        SourceArn=dlq_arn, DestinationArn=arn_of(sqs, other), MaxNumberOfMessagesPerSecond=1
    )["TaskHandle"]
    [running] = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"]
    assert running["Status"] == "RUNNING" and running["TaskHandle"] == handle
    # AWS's handle is the base64 of a JSON document naming the task and its source.
    decoded = json.loads(base64.b64decode(handle))
    assert decoded["sourceArn"] == dlq_arn and uuid.UUID(decoded["taskId"])
    assert running["MaxNumberOfMessagesPerSecond"] == 1
    with pytest.raises(ClientError) as err:
        sqs.start_message_move_task(SourceArn=dlq_arn)
    assert error(err) == (
        "InvalidParameterValue",
        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
    )
    moved = sqs.cancel_message_move_task(TaskHandle=handle)["ApproximateNumberOfMessagesMoved"]
    assert moved < 10
    assert wait_for_status(sqs, dlq_arn, "CANCELLED")["Status"] == "CANCELLED"


def test_move_task_refusals(sqs):
    plain = sqs.create_queue(QueueName=f"plain-{uuid.uuid4().hex[:10]}")["QueueUrl"]
    with pytest.raises(ClientError) as err:
        sqs.start_message_move_task(SourceArn=arn_of(sqs, plain))
    assert error(err) == ("InvalidParameterValue", "Source queue must be configured as a Dead Letter Queue.")
    with pytest.raises(ClientError) as err:
        sqs.start_message_move_task(SourceArn="arn:aws:sqs:us-east-1:000000000000:absent")
    assert error(err) == (
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    )
    with pytest.raises(ClientError) as err:
        sqs.cancel_message_move_task(TaskHandle="not-a-handle")
    assert error(err) == ("InvalidParameterValue", "Value for parameter TaskHandle is invalid.")
    # A well-formed handle naming an unknown queue, or an unknown task of a known queue.
    def handle(task_id, source_arn):
        return base64.b64encode(json.dumps({"taskId": task_id, "sourceArn": source_arn}).encode()).decode()

    with pytest.raises(ClientError) as err:
        sqs.cancel_message_move_task(TaskHandle=handle(str(uuid.uuid4()), "arn:aws:sqs:us-east-1:000000000000:absent"))
    assert error(err) == (
        "ResourceNotFoundException",
        "The resource that you specified for the SourceArn parameter doesn't exist.",
    )
    with pytest.raises(ClientError) as err:
        sqs.cancel_message_move_task(TaskHandle=handle(str(uuid.uuid4()), arn_of(sqs, plain)))
    assert error(err) == ("ResourceNotFoundException", "Task does not exist.")
