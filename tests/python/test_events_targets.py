"""EventBridge rules delivering to a real Python Lambda function (through Lambda's event
queue), and deliveries that survive `kill -9`: acknowledged by PutEvents, pending a retry,
made after the restart."""

import io
import json
import signal
import time
import zipfile

import pytest

from conftest import Stratus

ACCOUNT = "000000000000"
REGION = "us-east-1"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)
ECHO = "def handler(event, context):\n    return {'got': event}\n"


def make_zip(source):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("app.py", source)
    return buffer.getvalue()


def receive(sqs, url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        messages = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", [])
        if messages:
            return messages
    return []


def test_a_rule_invokes_a_python_function_with_the_event(stratus):
    lam, sqs, events = stratus.client("lambda"), stratus.client("sqs"), stratus.client("events")
    role = stratus.client("iam").create_role(RoleName="events-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    url = sqs.create_queue(QueueName="lambda-results")["QueueUrl"]
    function_arn = lam.create_function(
        FunctionName="on-event",
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip(ECHO)},
        Timeout=30,
    )["FunctionArn"]
    # What the function answered comes back through its OnSuccess destination.
    lam.put_function_event_invoke_config(
        FunctionName="on-event",
        DestinationConfig={"OnSuccess": {"Destination": f"arn:aws:sqs:{REGION}:{ACCOUNT}:lambda-results"}},
    )
    events.put_rule(Name="to-lambda", EventPattern=json.dumps({"source": ["billing"]}))
    events.put_targets(Rule="to-lambda", Targets=[{"Id": "fn", "Arn": function_arn}])
    answer = events.put_events(Entries=[{"Source": "billing", "DetailType": "Invoice", "Detail": json.dumps({"total": 12})}])
    event_id = answer["Entries"][0]["EventId"]
    [message] = receive(sqs, url)
    record = json.loads(message["Body"])
    assert record["requestContext"]["condition"] == "Success"
    assert record["requestPayload"]["id"] == event_id
    assert record["requestPayload"]["detail"] == {"total": 12}
    assert record["responsePayload"]["got"]["detail-type"] == "Invoice"


def test_a_pending_delivery_survives_kill_9(tmp_path):
    """A delivery that failed once waits for its retry; the server is killed; after the
    restart the retry is made (it fails again, the queue being FIFO without a group id), and
    with no retries left the event goes to the dead-letter queue."""
    data = str(tmp_path / "data")
    first = Stratus("--data-dir", data, "--clock", "manual")
    try:
        sqs, events = first.client("sqs"), first.client("events")
        sqs.create_queue(QueueName="strict.fifo", Attributes={"FifoQueue": "true"})
        dlq = sqs.create_queue(QueueName="kept-dlq")["QueueUrl"]
        events.put_rule(Name="to-fifo", EventPattern=json.dumps({"source": ["durable"]}))
        events.put_targets(
            Rule="to-fifo",
            Targets=[
                {
                    "Id": "fifo",
                    "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:strict.fifo",
                    "RetryPolicy": {"MaximumRetryAttempts": 1, "MaximumEventAgeInSeconds": 3600},
                    "DeadLetterConfig": {"Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:kept-dlq"},
                }
            ],
        )
        answer = events.put_events(Entries=[{"Source": "durable", "DetailType": "t", "Detail": "{}"}])
        event_id = answer["Entries"][0]["EventId"]
        time.sleep(1)  # the first attempt fails at once; the retry waits for the clock
        assert sqs.receive_message(QueueUrl=dlq, WaitTimeSeconds=0).get("Messages", []) == []
    finally:
        first.stop(signal.SIGKILL)
    second = Stratus("--data-dir", data, "--clock", "manual")
    try:
        sqs = second.client("sqs")
        second.advance(5)
        [message] = receive(sqs, dlq, timeout=30)
        assert json.loads(message["Body"])["id"] == event_id
    finally:
        second.stop()


def test_a_rate_rule_fires_on_the_clock():
    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        sqs, events = server.client("sqs"), server.client("events")
        url = sqs.create_queue(QueueName="ticks")["QueueUrl"]
        rule_arn = events.put_rule(Name="every-minute", ScheduleExpression="rate(1 minute)")["RuleArn"]
        events.put_targets(Rule="every-minute", Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:ticks"}])
        assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", []) == []
        server.advance(60)
        [message] = receive(sqs, url, timeout=20)
        event = json.loads(message["Body"])
        assert (event["source"], event["detail-type"], event["resources"], event["detail"]) == (
            "aws.events",
            "Scheduled Event",
            [rule_arn],
            {},
        )
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        events.disable_rule(Name="every-minute")
        server.advance(120)
        time.sleep(1)
        assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", []) == []
    finally:
        server.stop()


def test_a_cron_rule_fires_at_the_minute_it_names():
    """`cron(M H * * ? *)` fires once a day at H:M UTC (EventBridge user guide, "Cron
    expressions"), and not before."""
    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        sqs, events = server.client("sqs"), server.client("events")
        url = sqs.create_queue(QueueName="cron-ticks")["QueueUrl"]
        now = int(server.now())
        due = (now // 60 + 3) * 60
        hour, minute = due % 86400 // 3600, due % 3600 // 60
        events.put_rule(Name="daily", ScheduleExpression=f"cron({minute} {hour} * * ? *)")
        events.put_targets(Rule="daily", Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:cron-ticks"}])
        server.advance(due - now - 30)
        assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", []) == []
        server.advance(60)
        [message] = receive(sqs, url, timeout=20)
        event = json.loads(message["Body"])
        assert event["detail-type"] == "Scheduled Event"
        # The event's time is the minute named, though the clock has passed it.
        assert event["time"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(due))
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        # The next firing is a day later.
        server.advance(86400 - 120)
        assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", []) == []
        server.advance(120)
        [message] = receive(sqs, url, timeout=20)
        assert json.loads(message["Body"])["detail-type"] == "Scheduled Event"
    finally:
        server.stop()


def test_a_rate_rule_fires_again_after_a_restart(tmp_path):
    data = str(tmp_path / "data")
    first = Stratus("--data-dir", data, "--clock", "manual")
    try:
        first.client("sqs").create_queue(QueueName="ticks-after-restart")
        events = first.client("events")
        events.put_rule(Name="hourly", ScheduleExpression="rate(1 hour)")
        events.put_targets(Rule="hourly", Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:ticks-after-restart"}])
    finally:
        first.stop()
    second = Stratus("--data-dir", data, "--clock", "manual")
    try:
        sqs = second.client("sqs")
        url = sqs.get_queue_url(QueueName="ticks-after-restart")["QueueUrl"]
        second.advance(3600)
        [message] = receive(sqs, url, timeout=20)
        assert json.loads(message["Body"])["detail-type"] == "Scheduled Event"
    finally:
        second.stop()
