"""SQS through the AWS CLI, and under concurrent producers and consumers."""

import hashlib
import json
import os
import subprocess
import sys
import threading
import uuid

AWS = os.path.join(os.path.dirname(sys.executable), "aws")


def cli(stratus, *args):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", "sqs", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, done.stderr


def test_aws_cli_queue_lifecycle(stratus):
    name = f"cli-{uuid.uuid4().hex[:10]}"
    rc, out, err = cli(stratus, "create-queue", "--queue-name", name, "--attributes", "DelaySeconds=0,VisibilityTimeout=7")
    assert rc == 0, err
    url = out["QueueUrl"]
    rc, out, err = cli(
        stratus,
        "send-message",
        "--queue-url", url,
        "--message-body", "from the cli",
        "--message-attributes", '{"kind": {"DataType": "String", "StringValue": "test"}}',
    )
    assert rc == 0, err
    assert out["MD5OfMessageBody"] == hashlib.md5(b"from the cli").hexdigest()
    rc, out, err = cli(
        stratus, "receive-message", "--queue-url", url, "--message-attribute-names", "All", "--wait-time-seconds", "1"
    )
    assert rc == 0, err
    [message] = out["Messages"]
    assert message["Body"] == "from the cli"
    assert message["MessageAttributes"]["kind"]["StringValue"] == "test"
    rc, out, err = cli(stratus, "get-queue-attributes", "--queue-url", url, "--attribute-names", "All")
    assert rc == 0, err
    assert out["Attributes"]["VisibilityTimeout"] == "7"
    assert out["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "1"
    rc, out, err = cli(stratus, "delete-message", "--queue-url", url, "--receipt-handle", message["ReceiptHandle"])
    assert rc == 0, err
    rc, out, err = cli(stratus, "list-queues", "--queue-name-prefix", name)
    assert rc == 0 and out["QueueUrls"] == [url], err
    rc, out, err = cli(stratus, "delete-queue", "--queue-url", url)
    assert rc == 0, err
    rc, out, err = cli(stratus, "get-queue-url", "--queue-name", name)
    assert rc != 0 and "AWS.SimpleQueueService.NonExistentQueue" in err


def test_concurrent_producers_and_consumers(stratus):
    """Several producers and consumers on one queue: every message is delivered, and none is
    delivered twice within its visibility timeout (which is longer than the test)."""
    url = stratus.client("sqs").create_queue(
        QueueName=f"busy-{uuid.uuid4().hex[:10]}", Attributes={"VisibilityTimeout": "300"}
    )["QueueUrl"]
    producers, consumers, per_producer = 4, 4, 100
    expected = {f"p{p}-m{i}" for p in range(producers) for i in range(per_producer)}
    received = []
    lock = threading.Lock()
    errors = []

    def produce(p):
        try:
            client = stratus.client("sqs")
            for start in range(0, per_producer, 10):
                entries = [{"Id": str(i), "MessageBody": f"p{p}-m{i}"} for i in range(start, start + 10)]
                assert not client.send_message_batch(QueueUrl=url, Entries=entries).get("Failed")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def consume():
        try:
            client = stratus.client("sqs")
            idle = 0
            while idle < 3:
                got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
                if not got:
                    idle += 1
                    continue
                idle = 0
                with lock:
                    received.extend(m["Body"] for m in got)
                entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
                assert not client.delete_message_batch(QueueUrl=url, Entries=entries).get("Failed")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    threads += [threading.Thread(target=consume) for _ in range(consumers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(received) == len(set(received)), "a message was delivered twice"
    assert set(received) == expected
