"""Lambda invocation through boto3 against the real binary: real Python and Node.js functions
(zips built here) run by the function host (`stratus-lambda-host`), synchronously and as
events, with errors, tail logs, aliases' weights, destinations and throttling.

These need the host, and the S3 code tests need S3's `ObjectSource` provider: the control
plane without them is tests/python/test_lambda.py."""

import base64
import io
import json
import re
import shutil
import time
import zipfile

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
REGION = "us-east-1"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)

PYTHON_ECHO = """
import os

def handler(event, context):
    print("handling", event)
    if isinstance(event, dict) and event.get("fail"):
        raise ValueError("asked to fail")
    custom = context.client_context.custom if context.client_context else None
    return {
        "event": event,
        "version": context.function_version,
        "arn": context.invoked_function_arn,
        "env": os.environ.get("GREETING"),
        "custom": custom,
        "region": os.environ.get("AWS_REGION"),
    }
"""

NODE_ECHO = """
exports.handler = async (event, context) => {
  console.log("handling", JSON.stringify(event));
  if (event && event.fail) { throw new Error("asked to fail"); }
  return { event, version: context.functionVersion, node: process.version.startsWith("v") };
};
"""


def make_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def lam(stratus):
    return stratus.client("lambda")


@pytest.fixture(scope="module")
def role(stratus):
    return stratus.client("iam").create_role(RoleName="exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


names = iter(range(10_000))


def python_function(lam, role, source=PYTHON_ECHO, **extra):
    name = f"py-{next(names)}"
    lam.create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": source})},
        Timeout=30,
        **extra,
    )
    return name


def first_messages(sqs, queue, **receive):
    """The first messages to reach `queue` within a minute, or none."""
    deadline = time.time() + 60
    while time.time() < deadline:
        messages = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=5, **receive).get("Messages", [])
        if messages:
            return messages
    return []


def payload(response):
    return json.loads(response["Payload"].read())


def test_a_python_function_answers_its_event(lam, role):
    name = python_function(lam, role, Environment={"Variables": {"GREETING": "hello"}})
    response = lam.invoke(FunctionName=name, Payload=json.dumps({"a": 1}))
    assert response["StatusCode"] == 200
    assert response["ExecutedVersion"] == "$LATEST"
    assert "FunctionError" not in response
    body = payload(response)
    assert body["event"] == {"a": 1}
    assert body["version"] == "$LATEST"
    assert body["env"] == "hello"
    assert body["region"] == REGION
    assert body["arn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_a_node_function_answers_its_event(lam, role):
    name = f"node-{next(names)}"
    lam.create_function(
        FunctionName=name,
        Runtime="nodejs20.x",
        Role=role,
        Handler="index.handler",
        Code={"ZipFile": make_zip({"index.js": NODE_ECHO})},
        Timeout=30,
    )
    body = payload(lam.invoke(FunctionName=name, Payload=json.dumps({"b": 2})))
    assert body == {"event": {"b": 2}, "version": "$LATEST", "node": True}
    failed = lam.invoke(FunctionName=name, Payload=json.dumps({"fail": True}))
    assert failed["FunctionError"] == "Unhandled"
    assert payload(failed)["errorMessage"] == "asked to fail"


def test_errors_are_unhandled_function_errors(lam, role):
    name = python_function(lam, role)
    response = lam.invoke(FunctionName=name, Payload=json.dumps({"fail": True}))
    assert response["StatusCode"] == 200
    assert response["FunctionError"] == "Unhandled"
    body = payload(response)
    assert body["errorMessage"] == "asked to fail"
    assert body["errorType"] == "ValueError"


def test_tail_logs_come_back_base64(lam, role):
    name = python_function(lam, role)
    response = lam.invoke(FunctionName=name, Payload=json.dumps({"x": "y"}), LogType="Tail")
    log = base64.b64decode(response["LogResult"]).decode()
    assert "START RequestId:" in log and "END RequestId:" in log and "REPORT RequestId:" in log
    assert "handling" in log


def test_function_logs_land_in_cloudwatch_logs(lam, role, stratus):
    """Lambda writes each invocation's log to `/aws/lambda/<name>`, in a stream named
    `YYYY/MM/DD/[$LATEST]<environment id>` (Lambda developer guide, "Working with Lambda
    function logs"), one event per line."""
    logs = stratus.client("logs")
    name = python_function(lam, role)
    response = lam.invoke(FunctionName=name, Payload=json.dumps({"to": "logs"}))
    request_id = response["ResponseMetadata"]["RequestId"]
    group = f"/aws/lambda/{name}"
    deadline = time.time() + 10
    streams = []
    while not streams and time.time() < deadline:
        try:
            streams = logs.describe_log_streams(logGroupName=group)["logStreams"]
        except logs.exceptions.ResourceNotFoundException:
            time.sleep(0.05)
    [stream] = streams
    assert re.fullmatch(r"\d{4}/\d{2}/\d{2}/\[\$LATEST\][0-9a-f]{32}", stream["logStreamName"])
    messages = [e["message"] for e in logs.get_log_events(logGroupName=group, logStreamName=stream["logStreamName"], startFromHead=True)["events"]]
    assert messages[0] == f"START RequestId: {request_id} Version: $LATEST"
    assert any("handling {'to': 'logs'}" in m for m in messages)
    assert messages[-2] == f"END RequestId: {request_id}"
    assert messages[-1].startswith(f"REPORT RequestId: {request_id}\tDuration: ")


def test_client_context_reaches_the_function(lam, role):
    name = python_function(lam, role)
    context = base64.b64encode(json.dumps({"custom": {"k": "v"}}).encode()).decode()
    assert payload(lam.invoke(FunctionName=name, Payload=b"{}", ClientContext=context))["custom"] == {"k": "v"}


def test_dry_run_answers_204(lam, role):
    name = python_function(lam, role)
    assert lam.invoke(FunctionName=name, InvocationType="DryRun")["StatusCode"] == 204


def test_reserved_concurrency_zero_throttles(lam, role):
    name = python_function(lam, role)
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)
    with pytest.raises(ClientError) as e:
        lam.invoke(FunctionName=name, Payload=b"{}")
    error = e.value.response
    assert error["Error"]["Code"] == "TooManyRequestsException"
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 429
    assert error["Reason"] == "ReservedFunctionConcurrentInvocationLimitExceeded"


def test_versions_and_weighted_aliases(lam, role):
    name = python_function(lam, role, source="def handler(e, c):\n    return 'v1'\n")
    lam.publish_version(FunctionName=name)
    lam.update_function_code(FunctionName=name, ZipFile=make_zip({"app.py": "def handler(e, c):\n    return 'v2'\n"}))
    lam.publish_version(FunctionName=name)
    one = lam.invoke(FunctionName=name, Qualifier="1")
    assert (payload(one), one["ExecutedVersion"]) == ("v1", "1")
    assert payload(lam.invoke(FunctionName=name)) == "v2"
    lam.create_alias(FunctionName=name, Name="canary", FunctionVersion="1", RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}})
    seen = {}
    for _ in range(40):
        response = lam.invoke(FunctionName=name, Qualifier="canary")
        body = payload(response)
        assert body == f"v{response['ExecutedVersion']}"
        seen[response["ExecutedVersion"]] = seen.get(response["ExecutedVersion"], 0) + 1
    assert set(seen) == {"1", "2"}


def test_an_update_runs_the_new_code(lam, role):
    name = python_function(lam, role, source="def handler(e, c):\n    return 1\n")
    assert payload(lam.invoke(FunctionName=name)) == 1
    lam.update_function_code(FunctionName=name, ZipFile=make_zip({"app.py": "def handler(e, c):\n    return 2\n"}))
    assert payload(lam.invoke(FunctionName=name)) == 2


def test_events_that_fail_go_to_the_on_failure_queue(lam, role, stratus):
    sqs = stratus.client("sqs")
    queue = sqs.create_queue(QueueName="on-failure")["QueueUrl"]
    queue_arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:on-failure"
    name = python_function(lam, role)
    lam.put_function_event_invoke_config(
        FunctionName=name, MaximumRetryAttempts=0, DestinationConfig={"OnFailure": {"Destination": queue_arn}}
    )
    response = lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"fail": True}))
    assert response["StatusCode"] == 202
    messages = first_messages(sqs, queue)
    assert messages, "no destination record arrived"
    record = json.loads(messages[0]["Body"])
    assert record["version"] == "1.0"
    assert record["requestContext"]["condition"] == "RetriesExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 1
    assert record["requestContext"]["functionArn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}:$LATEST"
    assert record["requestPayload"] == {"fail": True}
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert record["responsePayload"]["errorMessage"] == "asked to fail"


def test_a_dead_letter_queue_gets_the_event_and_why_it_failed(lam, role, stratus):
    # The attributes Lambda's developer guide lists for dead-lettered events (lambda/latest/dg/dlq.html).
    sqs = stratus.client("sqs")
    queue = sqs.create_queue(QueueName="dead-letters")["QueueUrl"]
    name = python_function(lam, role, DeadLetterConfig={"TargetArn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:dead-letters"})
    lam.put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=0)
    response = lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"fail": True}))
    messages = first_messages(sqs, queue, MessageAttributeNames=["All"])
    assert messages, "nothing was dead-lettered"
    assert json.loads(messages[0]["Body"]) == {"fail": True}
    attributes = messages[0]["MessageAttributes"]
    assert attributes["RequestID"] == {
        "DataType": "String",
        "StringValue": response["ResponseMetadata"]["RequestId"],
    }
    assert attributes["ErrorCode"] == {"DataType": "Number", "StringValue": "200"}
    assert attributes["ErrorMessage"] == {"DataType": "String", "StringValue": "asked to fail"}


def test_an_on_failure_topic_gets_the_destination_record(lam, role, stratus):
    sqs, sns = stratus.client("sqs"), stratus.client("sns")
    queue = sqs.create_queue(QueueName="topic-records")["QueueUrl"]
    topic = sns.create_topic(Name="failures")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=f"arn:aws:sqs:{REGION}:{ACCOUNT}:topic-records")
    name = python_function(lam, role)
    lam.put_function_event_invoke_config(
        FunctionName=name, MaximumRetryAttempts=0, DestinationConfig={"OnFailure": {"Destination": topic}}
    )
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"fail": True}))
    messages = first_messages(sqs, queue)
    assert messages, "no record reached the topic"
    envelope = json.loads(messages[0]["Body"])
    assert envelope["TopicArn"] == topic
    assert json.loads(envelope["Message"])["requestContext"]["condition"] == "RetriesExhausted"


def test_events_that_succeed_go_to_the_on_success_queue(lam, role, stratus):
    sqs = stratus.client("sqs")
    queue = sqs.create_queue(QueueName="on-success")["QueueUrl"]
    queue_arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:on-success"
    name = python_function(lam, role)
    lam.put_function_event_invoke_config(FunctionName=name, DestinationConfig={"OnSuccess": {"Destination": queue_arn}})
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"ok": 1}))
    messages = first_messages(sqs, queue)
    record = json.loads(messages[0]["Body"])
    assert record["requestContext"]["condition"] == "Success"
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    assert record["responsePayload"]["event"] == {"ok": 1}


def test_an_event_bus_destination_gets_lambdas_event(lam, role, stratus):
    # The event as recorded from AWS: source `lambda`, the result in the detail type, the bus
    # and the function (with its version) as resources, the destination record as detail.
    sqs, events = stratus.client("sqs"), stratus.client("events")
    queue = sqs.create_queue(QueueName="bus-records")["QueueUrl"]
    bus = events.create_event_bus(Name="results")["EventBusArn"]
    events.put_rule(Name="from-lambda", EventBusName="results", EventPattern=json.dumps({"source": ["lambda"]}))
    events.put_targets(Rule="from-lambda", EventBusName="results", Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:bus-records"}])
    name = python_function(lam, role)
    lam.put_function_event_invoke_config(
        FunctionName=name,
        MaximumRetryAttempts=0,
        DestinationConfig={"OnSuccess": {"Destination": bus}, "OnFailure": {"Destination": bus}},
    )
    function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}:$LATEST"
    for payload, detail_type, condition in (
        ({"ok": 1}, "Lambda Function Invocation Result - Success", "Success"),
        ({"fail": True}, "Lambda Function Invocation Result - Failure", "RetriesExhausted"),
    ):
        lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps(payload))
        messages = first_messages(sqs, queue)
        assert messages, f"no {condition} event reached the bus"
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=messages[0]["ReceiptHandle"])
        event = json.loads(messages[0]["Body"])
        assert (event["source"], event["detail-type"]) == ("lambda", detail_type)
        assert event["resources"] == [bus, function_arn]
        assert event["detail"]["requestContext"]["condition"] == condition
        assert event["detail"]["requestPayload"] == payload


def test_a_function_destination_is_invoked_with_the_record(lam, role, stratus):
    sqs = stratus.client("sqs")
    queue = sqs.create_queue(QueueName="second-hop")["QueueUrl"]
    # The destination function echoes its event to its own success queue.
    second = python_function(lam, role)
    lam.put_function_event_invoke_config(
        FunctionName=second, DestinationConfig={"OnSuccess": {"Destination": f"arn:aws:sqs:{REGION}:{ACCOUNT}:second-hop"}}
    )
    first = python_function(lam, role)
    second_arn = lam.get_function(FunctionName=second)["Configuration"]["FunctionArn"]
    lam.put_function_event_invoke_config(FunctionName=first, DestinationConfig={"OnSuccess": {"Destination": second_arn}})
    lam.invoke(FunctionName=first, InvocationType="Event", Payload=json.dumps({"hop": 1}))
    messages = first_messages(sqs, queue)
    assert messages, "the destination function was not invoked"
    received = json.loads(messages[0]["Body"])["requestPayload"]
    assert received["requestContext"]["functionArn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{first}:$LATEST"
    assert received["requestPayload"] == {"hop": 1}


def test_code_from_s3(lam, role, stratus):
    s3 = stratus.client("s3")
    s3.create_bucket(Bucket="lambda-code")
    s3.put_object(Bucket="lambda-code", Key="app.zip", Body=make_zip({"app.py": "def handler(e, c):\n    return 's3'\n"}))
    name = f"s3-{next(names)}"
    lam.create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"S3Bucket": "lambda-code", "S3Key": "app.zip"},
    )
    assert payload(lam.invoke(FunctionName=name)) == "s3"
    with pytest.raises(ClientError) as e:
        lam.update_function_code(FunctionName=name, S3Bucket="lambda-code", S3Key="missing.zip")
    assert e.value.response["Error"]["Message"] == (
        "Error occurred while GetObject. S3 Error Code: NoSuchKey. S3 Error Message: The specified key does not exist."
    )


def test_layers_are_on_the_path(lam, role):
    layer = lam.publish_layer_version(
        LayerName="helpers", Content={"ZipFile": make_zip({"python/helper.py": "VALUE = 'from a layer'\n"})}
    )["LayerVersionArn"]
    name = python_function(
        lam, role, source="import helper\n\ndef handler(e, c):\n    return helper.VALUE\n", Layers=[layer]
    )
    assert payload(lam.invoke(FunctionName=name)) == "from a layer"


def test_queued_retries_survive_a_restart(tmp_path):
    """An event acknowledged (202) and failing is retried after a minute and two more, as AWS
    retries, across a restart of Stratus, then reported to the OnFailure queue."""
    from conftest import Stratus

    data = str(tmp_path / "data")
    first = Stratus("--data-dir", data, "--clock", "manual")
    try:
        lam, sqs = first.client("lambda"), first.client("sqs")
        role = first.client("iam").create_role(RoleName="exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
        queue = sqs.create_queue(QueueName="retries")["QueueUrl"]
        name = python_function(lam, role)
        lam.put_function_event_invoke_config(
            FunctionName=name,
            DestinationConfig={"OnFailure": {"Destination": f"arn:aws:sqs:{REGION}:{ACCOUNT}:retries"}},
        )
        assert lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"fail": True}))["StatusCode"] == 202
        time.sleep(3)  # the first run fails at once; the retry waits a minute
        assert sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=0).get("Messages", []) == []
    finally:
        first.stop()
    second = Stratus("--data-dir", data, "--clock", "manual")
    try:
        sqs = second.client("sqs")
        for seconds in (61, 121):
            second.advance(seconds)
            time.sleep(3)
        messages = []
        deadline = time.time() + 30
        while not messages and time.time() < deadline:
            messages = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=2).get("Messages", [])
        assert messages, "no destination record after the retries"
        record = json.loads(messages[0]["Body"])
        assert record["requestContext"]["condition"] == "RetriesExhausted"
        assert record["requestContext"]["approximateInvokeCount"] == 3
    finally:
        second.stop()
