"""CloudWatch and Lambda together against the real binary: an alarm's Lambda action invoking a
real Python function with AWS's alarm event, recorded in the alarm's history; and the
AWS/Lambda metrics every invocation publishes (Invocations, Errors, Duration, Throttles),
read back with GetMetricStatistics."""

import datetime
import json
import os
import shutil
import tempfile
import time
import uuid

import boto3
import pytest
from botocore.config import Config
from conftest import Stratus

from test_lambda_esm import ACCOUNT, REGION, TRUST, error_of, make_zip

# Records each event; fails when the event asks to.
RECORDER = """
import json, os, time, uuid

def handler(event, context):
    path = os.path.join(os.environ["OUT_DIR"], f"{time.time():.6f}-{uuid.uuid4().hex}.json")
    with open(path + ".part", "w") as f:
        json.dump(event, f)
    os.replace(path + ".part", path)
    if isinstance(event, dict) and event.get("fail"):
        raise RuntimeError("asked to fail")
    return {"ok": True}
"""


@pytest.fixture(scope="module")
def server():
    server = Stratus("--ephemeral")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def role(server):
    return server.client("iam").create_role(RoleName="cw-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


@pytest.fixture
def function(server, role):
    """A recording function: its name, ARN, and a reader of the events it received."""
    out = tempfile.mkdtemp(prefix="stratus-cw-lambda-", dir="/var/tmp")
    name = f"cw-{uuid.uuid4().hex[:8]}"
    arn = server.client("lambda").create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip(RECORDER)},
        Environment={"Variables": {"OUT_DIR": out}},
    )["FunctionArn"]

    def events(count, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            names = sorted(n for n in os.listdir(out) if n.endswith(".json"))
            if len(names) >= count:
                return [json.load(open(os.path.join(out, n))) for n in names]
            time.sleep(0.05)
        raise AssertionError(f"{count} events not received in time")

    yield name, arn, events
    shutil.rmtree(out, ignore_errors=True)


def test_an_alarm_action_invokes_the_function_with_the_alarm_event(server, function):
    name, arn, events = function
    cw = server.client("cloudwatch")
    alarm = f"alarm-{uuid.uuid4().hex[:8]}"
    cw.put_metric_alarm(
        AlarmName=alarm,
        AlarmDescription="calls a function",
        MetricName="metric1",
        Namespace="ns",
        Dimensions=[{"Name": "Host", "Value": "a"}],
        Period=10,
        Threshold=2,
        Statistic="Average",
        AlarmActions=[arn],
        EvaluationPeriods=2,
        ComparisonOperator="GreaterThanThreshold",
    )
    alarm_arn = cw.describe_alarms(AlarmNames=[alarm])["MetricAlarms"][0]["AlarmArn"]
    server.client("lambda").add_permission(
        FunctionName=name,
        StatementId="alarm",
        Action="lambda:InvokeFunction",
        Principal="lambda.alarms.cloudwatch.amazonaws.com",
        SourceAccount=ACCOUNT,
        SourceArn=alarm_arn,
    )
    cw.set_alarm_state(AlarmName=alarm, StateValue="ALARM", StateReason="testing alarm")
    [event] = events(1)
    # The shape CloudWatch's guide ("Lambda alarm actions") and AWS's recordings give.
    assert event["source"] == "aws.cloudwatch" and event["alarmArn"] == alarm_arn
    assert event["accountId"] == ACCOUNT and event["region"] == REGION
    data = event["alarmData"]
    assert data["alarmName"] == alarm
    assert data["state"]["value"] == "ALARM" and data["state"]["reason"] == "testing alarm"
    assert "reasonData" not in data["state"]
    assert data["previousState"]["value"] == "INSUFFICIENT_DATA"
    assert data["previousState"]["reason"] == "Unchecked: Initial alarm creation"
    assert data["state"]["timestamp"].endswith("+0000") and event["time"].endswith("+0000")
    [metric] = data["configuration"]["metrics"]
    assert data["configuration"]["description"] == "calls a function"
    assert metric["returnData"] is True and uuid.UUID(metric["id"])
    assert metric["metricStat"] == {
        "metric": {"namespace": "ns", "name": "metric1", "dimensions": {"Host": "a"}},
        "period": 10,
        "stat": "Average",
    }

    def action_items():
        history = cw.describe_alarm_history(AlarmName=alarm, HistoryItemType="Action")["AlarmHistoryItems"]
        return [h["HistorySummary"] for h in history]

    deadline = time.time() + 10
    while not action_items() and time.time() < deadline:
        time.sleep(0.05)
    assert action_items() == [f"Successfully executed action {arn}"]


def test_an_action_naming_a_missing_function_is_recorded_as_failed(server):
    cw = server.client("cloudwatch")
    alarm = f"alarm-{uuid.uuid4().hex[:8]}"
    missing = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:nope"
    cw.put_metric_alarm(
        AlarmName=alarm,
        MetricName="m",
        Namespace="ns",
        Period=60,
        Threshold=1,
        Statistic="Sum",
        AlarmActions=[missing],
        EvaluationPeriods=1,
        ComparisonOperator="GreaterThanThreshold",
    )
    cw.set_alarm_state(AlarmName=alarm, StateValue="ALARM", StateReason="x")
    deadline = time.time() + 10
    items = []
    while not items and time.time() < deadline:
        items = cw.describe_alarm_history(AlarmName=alarm, HistoryItemType="Action")["AlarmHistoryItems"]
        time.sleep(0.05)
    assert items[0]["HistorySummary"].startswith(f"Failed to execute action {missing}")


def statistic(cw, metric, stat, dimensions):
    now = datetime.datetime.now(datetime.timezone.utc)
    points = cw.get_metric_statistics(
        Namespace="AWS/Lambda",
        MetricName=metric,
        Dimensions=dimensions,
        StartTime=now - datetime.timedelta(minutes=10),
        EndTime=now + datetime.timedelta(minutes=1),
        Period=3600,
        Statistics=[stat],
    )["Datapoints"]
    return sum(p[stat] for p in points)


def test_invocations_publish_the_aws_lambda_metrics(server, function):
    name, _, _ = function
    lam, cw = server.client("lambda"), server.client("cloudwatch")
    by_name = [{"Name": "FunctionName", "Value": name}]
    lam.invoke(FunctionName=name, Payload=b"{}")
    lam.invoke(FunctionName=name, Payload=b"{}")
    assert lam.invoke(FunctionName=name, Payload=b'{"fail": true}')["FunctionError"] == "Unhandled"
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)
    # One attempt only: botocore retries a throttled call, and each attempt is a throttle.
    once = boto3.client(
        "lambda",
        endpoint_url=server.endpoint,
        region_name=REGION,
        aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        config=Config(retries={"total_max_attempts": 1}),
    )
    code, _ = error_of(lambda: once.invoke(FunctionName=name, Payload=b"{}"))
    assert code == "TooManyRequestsException"

    # Published off the invocation's path: wait for the last of them.
    deadline = time.time() + 10
    while statistic(cw, "Throttles", "Sum", by_name) < 1 and time.time() < deadline:
        time.sleep(0.05)
    assert statistic(cw, "Invocations", "Sum", by_name) == 3
    assert statistic(cw, "Errors", "Sum", by_name) == 1
    assert statistic(cw, "Throttles", "Sum", by_name) == 1
    assert statistic(cw, "Duration", "SampleCount", by_name) == 3
    assert statistic(cw, "Duration", "Maximum", by_name) > 0
    # The account's aggregate, without dimensions, counts them too.
    assert statistic(cw, "Invocations", "Sum", []) >= 3
    listed = cw.list_metrics(Namespace="AWS/Lambda", Dimensions=by_name)["Metrics"]
    assert {m["MetricName"] for m in listed} == {"Invocations", "Errors", "Duration", "Throttles"}
    assert all(m["Dimensions"] == by_name for m in listed)


# Prints one line in the embedded metric format (CloudWatch's guide, "Specification: Embedded
# metric format"), as Powertools' Metrics utility does.
EMF_PRINTER = """
import json, time

def handler(event, context):
    print(json.dumps({
        "_aws": {"Timestamp": int(time.time() * 1000), "CloudWatchMetrics": [{
            "Namespace": "Shop", "Dimensions": [["service"]],
            "Metrics": [{"Name": "Orders", "Unit": "Count"}]}]},
        "service": "checkout", "Orders": event["orders"]}))
    return {}
"""


def test_embedded_metric_lines_in_a_function_log_become_metrics(server, role):
    lam, cw = server.client("lambda"), server.client("cloudwatch")
    name = f"emf-{uuid.uuid4().hex[:8]}"
    lam.create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip(EMF_PRINTER)},
    )
    lam.invoke(FunctionName=name, Payload=json.dumps({"orders": 2}).encode())
    lam.invoke(FunctionName=name, Payload=json.dumps({"orders": 5}).encode())
    dims = [{"Name": "service", "Value": "checkout"}]

    def orders():
        now = datetime.datetime.now(datetime.timezone.utc)
        points = cw.get_metric_statistics(
            Namespace="Shop",
            MetricName="Orders",
            Dimensions=dims,
            StartTime=now - datetime.timedelta(minutes=10),
            EndTime=now + datetime.timedelta(minutes=1),
            Period=3600,
            Statistics=["Sum", "SampleCount"],
            Unit="Count",
        )["Datapoints"]
        return (sum(p["Sum"] for p in points), sum(p["SampleCount"] for p in points))

    deadline = time.time() + 10
    while orders() != (7, 2) and time.time() < deadline:
        time.sleep(0.05)
    assert orders() == (7, 2)
    # The line stays in the function's log as it was printed.
    group = f"/aws/lambda/{name}"
    messages = [e["message"] for e in server.client("logs").filter_log_events(logGroupName=group)["events"]]
    assert any('"_aws"' in m and '"Orders": 2' in m for m in messages)
