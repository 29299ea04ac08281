"""CloudWatch Logs against the real binary: log groups, streams, PutLogEvents' rules,
GetLogEvents' tokens, FilterLogEvents' filter patterns, retention on a driven clock, tags,
metric and subscription filters, and the AWS CLI."""

import base64
import gzip
import io
import json
import os
import subprocess
import sys
import time
import uuid
import zipfile

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
DAY = 86_400


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def logs(stratus):
    return stratus.client("logs")


def name(prefix="g"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def now_ms(stratus):
    return int(stratus.now() * 1000)


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]


def group_with_stream(logs):
    group, stream = name("/app/g"), name("s")
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    return group, stream


def put(logs, group, stream, events):
    return logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=events)


def test_log_groups_describe_by_prefix_and_pattern_with_paging(logs, stratus):
    base = name("/svc/describe")
    for i in range(5):
        logs.create_log_group(logGroupName=f"{base}/g{i}", tags={"n": str(i)})
    duplicate = error_of(logs.create_log_group, logGroupName=f"{base}/g0")
    assert duplicate == {"Code": "ResourceAlreadyExistsException", "Message": "The specified log group already exists"}

    first = logs.describe_log_groups(logGroupNamePrefix=base, limit=3)
    assert [g["logGroupName"] for g in first["logGroups"]] == [f"{base}/g{i}" for i in range(3)]
    rest = logs.describe_log_groups(logGroupNamePrefix=base, nextToken=first["nextToken"])
    assert [g["logGroupName"] for g in rest["logGroups"]] == [f"{base}/g3", f"{base}/g4"]
    assert "nextToken" not in rest
    group = first["logGroups"][0]
    arn = f"arn:aws:logs:us-east-1:000000000000:log-group:{base}/g0"
    assert group["logGroupArn"] == arn and group["arn"] == arn + ":*"
    assert group["storedBytes"] == 0 and group["metricFilterCount"] == 0
    assert group["logGroupClass"] == "STANDARD" and group["deletionProtectionEnabled"] is False

    # The pattern is a case-insensitive substring; AWS leaves storedBytes out of its answer.
    by_pattern = logs.describe_log_groups(logGroupNamePattern=base.split("-")[-1].upper())["logGroups"]
    assert len(by_pattern) == 5 and "storedBytes" not in by_pattern[0]
    both = error_of(logs.describe_log_groups, logGroupNamePrefix=base, logGroupNamePattern="x")
    assert both["Message"] == "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters."
    assert error_of(logs.describe_log_groups, nextToken="garbage")["Code"] == "InvalidParameterException"

    logs.delete_log_group(logGroupName=f"{base}/g0")
    missing = error_of(logs.delete_log_group, logGroupName=f"{base}/g0")
    assert missing == {"Code": "ResourceNotFoundException", "Message": "The specified log group does not exist."}


def test_retention_takes_only_aws_values_and_expires_events_on_the_clock(logs, stratus):
    group, stream = group_with_stream(logs)
    bad = error_of(logs.put_retention_policy, logGroupName=group, retentionInDays=2)
    assert bad["Code"] == "InvalidParameterException" and "enum value set: [1, 3, 5, 7, 14" in bad["Message"]
    put(logs, group, stream, [{"timestamp": now_ms(stratus), "message": "old"}])
    logs.put_retention_policy(logGroupName=group, retentionInDays=1)
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["retentionInDays"] == 1

    stratus.advance(DAY + 3600)
    put(logs, group, stream, [{"timestamp": now_ms(stratus), "message": "new"}])
    stratus.advance(3600)
    events = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True)["events"]
    assert [e["message"] for e in events] == ["new"]
    # The expired event's bytes are no longer counted.
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["storedBytes"] == len("new") + 26

    logs.delete_retention_policy(logGroupName=group)
    assert "retentionInDays" not in logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]
    # With no retention left anywhere, the sweep stops and the scheduler's thread ends.
    for g in logs.describe_log_groups()["logGroups"]:
        if "retentionInDays" in g:
            logs.delete_retention_policy(logGroupName=g["logGroupName"])
    stratus.advance(3600)
    deadline = time.time() + 5
    while "scheduler" in stratus.thread_names() and time.time() < deadline:
        time.sleep(0.05)
    assert "scheduler" not in stratus.thread_names()


def test_streams_report_event_times_and_order_by_last_event(logs, stratus):
    group = name("/app/streams")
    logs.create_log_group(logGroupName=group)
    t = now_ms(stratus)
    for i, stream in enumerate(["b", "a", "c"]):
        logs.create_log_stream(logGroupName=group, logStreamName=stream)
        put(logs, group, stream, [{"timestamp": t - 1000 * (3 - i), "message": "x"}, {"timestamp": t - 100 * (3 - i), "message": "y"}])
    dup = error_of(logs.create_log_stream, logGroupName=group, logStreamName="a")
    assert dup == {"Code": "ResourceAlreadyExistsException", "Message": "The specified log stream already exists"}

    by_name = logs.describe_log_streams(logGroupName=group)["logStreams"]
    assert [s["logStreamName"] for s in by_name] == ["a", "b", "c"]
    a = by_name[0]
    assert a["firstEventTimestamp"] == t - 2000 and a["lastEventTimestamp"] == t - 200
    assert a["lastIngestionTime"] == t and a["storedBytes"] == 0
    assert a["arn"] == f"arn:aws:logs:us-east-1:000000000000:log-group:{group}:log-stream:a"

    newest_first = logs.describe_log_streams(logGroupName=group, orderBy="LastEventTime", descending=True, limit=2)
    assert [s["logStreamName"] for s in newest_first["logStreams"]] == ["c", "a"]
    page2 = logs.describe_log_streams(
        logGroupName=group, orderBy="LastEventTime", descending=True, nextToken=newest_first["nextToken"]
    )
    assert [s["logStreamName"] for s in page2["logStreams"]] == ["b"]
    by_arn = logs.describe_log_streams(logGroupIdentifier=f"arn:aws:logs:us-east-1:000000000000:log-group:{group}")
    assert len(by_arn["logStreams"]) == 3
    both = error_of(logs.describe_log_streams, logGroupName=group, logGroupIdentifier=group)
    assert both == {"Code": "ValidationException", "Message": "LogGroup name and LogGroup ARN are mutually exclusive parameters."}

    logs.delete_log_stream(logGroupName=group, logStreamName="a")
    missing = error_of(logs.get_log_events, logGroupName=group, logStreamName="a")
    assert missing == {"Code": "ResourceNotFoundException", "Message": "The specified log stream does not exist."}


def test_put_log_events_follows_aws_rules(logs, stratus):
    group, stream = group_with_stream(logs)
    t = now_ms(stratus)
    wrong = error_of(put, logs=logs, group=group, stream=stream, events=[{"timestamp": t, "message": "b"}, {"timestamp": t - 1, "message": "a"}])
    assert wrong["Message"] == "Log events in a single PutLogEvents request must be in chronological order."

    # 14 days back and 2 hours ahead are the window; the rest are stored and reported by index.
    answer = put(
        logs,
        group,
        stream,
        [
            {"timestamp": t - 15 * DAY * 1000, "message": "too old"},
            {"timestamp": t, "message": "kept"},
            {"timestamp": t + 3 * 3600 * 1000, "message": "too new"},
        ],
    )
    assert answer["rejectedLogEventsInfo"] == {"tooOldLogEventEndIndex": 0, "tooNewLogEventStartIndex": 2}
    assert len(answer["nextSequenceToken"]) == 56
    # A stale sequence token is ignored, as AWS does now.
    again = logs.put_log_events(
        logGroupName=group, logStreamName=stream, sequenceToken="1", logEvents=[{"timestamp": t, "message": "second"}]
    )
    assert "rejectedLogEventsInfo" not in again

    # 1,048,576 bytes counting 26 per event.
    fits = [{"timestamp": t, "message": "x" * (1_048_576 // 4 - 26)} for _ in range(4)]
    put(logs, group, stream, fits)
    over = [{"timestamp": t, "message": "x" * (1_048_576 // 4 - 25)} for _ in range(4)]
    assert error_of(put, logs=logs, group=group, stream=stream, events=over)["Code"] == "InvalidParameterException"
    assert error_of(put, logs=logs, group=group, stream="nope", events=[{"timestamp": t, "message": "m"}]) == {
        "Code": "ResourceNotFoundException",
        "Message": "The specified log stream does not exist.",
    }
    stored = logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["storedBytes"]
    assert stored == 2 * 26 + len("kept") + len("second") + 4 * (1_048_576 // 4)


def test_get_log_events_tokens_page_both_ways(logs, stratus):
    group, stream = group_with_stream(logs)
    t = now_ms(stratus)
    put(logs, group, stream, [{"timestamp": t + i, "message": f"m{i}"} for i in range(10)])

    tail = logs.get_log_events(logGroupName=group, logStreamName=stream, limit=3)
    assert [e["message"] for e in tail["events"]] == ["m7", "m8", "m9"]
    older = logs.get_log_events(logGroupName=group, logStreamName=stream, limit=3, nextToken=tail["nextBackwardToken"])
    assert [e["message"] for e in older["events"]] == ["m4", "m5", "m6"]
    newer = logs.get_log_events(logGroupName=group, logStreamName=stream, limit=3, nextToken=older["nextForwardToken"])
    assert [e["message"] for e in newer["events"]] == ["m7", "m8", "m9"]
    # At the end of the stream the forward token comes back unchanged.
    end = logs.get_log_events(logGroupName=group, logStreamName=stream, nextToken=newer["nextForwardToken"])
    assert end["events"] == [] and end["nextForwardToken"] == newer["nextForwardToken"]
    put(logs, group, stream, [{"timestamp": t + 20, "message": "late"}])
    followed = logs.get_log_events(logGroupName=group, logStreamName=stream, nextToken=end["nextForwardToken"])
    assert [e["message"] for e in followed["events"]] == ["late"]

    head = logs.get_log_events(logGroupName=group, logStreamName=stream, startFromHead=True, limit=2)
    assert [e["message"] for e in head["events"]] == ["m0", "m1"]
    assert tail["nextForwardToken"].startswith("f/") and tail["nextBackwardToken"].startswith("b/")
    assert head["events"][0]["ingestionTime"] == t
    window = logs.get_log_events(logGroupName=group, logStreamName=stream, startTime=t + 2, endTime=t + 4, startFromHead=True)
    assert [e["message"] for e in window["events"]] == ["m2", "m3"]
    bad = error_of(logs.get_log_events, logGroupName=group, logStreamName=stream, nextToken="f/00000")
    assert bad == {"Code": "InvalidParameterException", "Message": "The specified nextToken is invalid."}
    limit = error_of(logs.get_log_events, logGroupName=group, logStreamName=stream, limit=10001)
    assert limit["Code"] == "InvalidParameterException" and "less than or equal to 10000" in limit["Message"]


def test_filter_log_events_with_each_pattern_form(logs, stratus):
    group = name("/app/filter")
    logs.create_log_group(logGroupName=group)
    t = now_ms(stratus)
    lines = {
        "web": [
            '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 404 2326',
            '127.0.0.2 - bob [10/Oct/2000:13:55:37 -0700] "GET /b HTTP/1.0" 200 12',
        ],
        "app": [
            json.dumps({"level": "ERROR", "code": 503, "user": {"id": "u1"}}),
            json.dumps({"level": "INFO", "code": 200, "user": None}),
            "ERROR disk full",
            "WARN disk low",
        ],
    }
    for stream, messages in lines.items():
        logs.create_log_stream(logGroupName=group, logStreamName=stream)
        put(logs, group, stream, [{"timestamp": t + i, "message": m} for i, m in enumerate(messages)])

    def found(pattern, **kwargs):
        events = logs.filter_log_events(logGroupName=group, filterPattern=pattern, **kwargs)["events"]
        return [e["message"] for e in events]

    assert found("ERROR") == [lines["app"][0], "ERROR disk full"]
    assert found('"disk full"') == ["ERROR disk full"]
    assert found("?WARN ?frank") == [lines["web"][0], "WARN disk low"]
    assert found("disk -WARN") == ["ERROR disk full"]
    assert found('{ $.level = "ERR*" && $.code > 500 }') == [lines["app"][0]]
    assert found("{ $.user IS NULL }") == [lines["app"][1]]
    assert found("{ $.user.id NOT EXISTS }") == [lines["app"][1]]
    assert found("[ip, identity, user, timestamp, request, status = 4*, bytes > 1000]") == [lines["web"][0]]
    assert found("%disk (full|low)%") == ["ERROR disk full", "WARN disk low"]
    assert len(found("", logStreamNames=["web"])) == 2
    assert len(found("", logStreamNamePrefix="ap")) == 4
    assert sorted(found("", startTime=t + 1, endTime=t + 1)) == sorted([lines["web"][1], lines["app"][1]])

    first = logs.filter_log_events(logGroupName=group, limit=4)
    assert len(first["events"]) == 4 and "nextToken" in first
    rest = logs.filter_log_events(logGroupName=group, nextToken=first["nextToken"])
    assert len(rest["events"]) == 2 and "nextToken" not in rest
    ids = {e["eventId"] for e in first["events"] + rest["events"]}
    assert len(ids) == 6
    timestamps = [e["timestamp"] for e in first["events"] + rest["events"]]
    assert timestamps == sorted(timestamps)
    assert error_of(logs.filter_log_events, logGroupName=group, filterPattern="{ $.a = ")["Code"] == "InvalidParameterException"
    assert error_of(logs.filter_log_events, logGroupName=group, nextToken="zz") == {
        "Code": "InvalidParameterException",
        "Message": "The specified nextToken is invalid.",
    }


def test_tags_through_both_apis(logs):
    group = name("/app/tags")
    logs.create_log_group(logGroupName=group, tags={"env": "dev"})
    arn = f"arn:aws:logs:us-east-1:000000000000:log-group:{group}"
    logs.tag_resource(resourceArn=arn, tags={"team": "a"})
    logs.tag_log_group(logGroupName=group, tags={"cost": "1"})
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"env": "dev", "team": "a", "cost": "1"}
    logs.untag_resource(resourceArn=arn, tagKeys=["env"])
    logs.untag_log_group(logGroupName=group, tags=["cost"])
    assert logs.list_tags_log_group(logGroupName=group)["tags"] == {"team": "a"}
    assert error_of(logs.list_tags_log_group, logGroupName="missing")["Code"] == "ResourceNotFoundException"


def test_metric_and_subscription_filters_are_stored_and_tested(logs):
    group = name("/app/mf")
    logs.create_log_group(logGroupName=group)
    transformation = {"metricName": "Errors", "metricNamespace": "App", "metricValue": "$bytes"}
    logs.put_metric_filter(
        logGroupName=group, filterName="errors", filterPattern="[ip, user, status = 5*, bytes]", metricTransformations=[transformation]
    )
    described = logs.describe_metric_filters(logGroupName=group)["metricFilters"]
    assert [f["filterName"] for f in described] == ["errors"]
    assert described[0]["metricTransformations"] == [transformation]
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["metricFilterCount"] == 1
    assert logs.describe_metric_filters(metricName="Errors", metricNamespace="App")["metricFilters"]
    tested = logs.test_metric_filter(
        filterPattern="[ip, user, status = 5*, bytes]", logEventMessages=["1.1.1.1 bob 503 12", "1.1.1.1 bob 200 1"]
    )["matches"]
    assert [(m["eventNumber"], m["extractedValues"]["$bytes"]) for m in tested] == [(1, "12")]
    logs.delete_metric_filter(logGroupName=group, filterName="errors")
    assert logs.describe_metric_filters(logGroupName=group)["metricFilters"] == []

    target = {"destinationArn": "arn:aws:kinesis:us-east-1:000000000000:stream/s", "roleArn": "arn:aws:iam::000000000000:role/r"}
    for n in ["one", "two"]:
        logs.put_subscription_filter(logGroupName=group, filterName=n, filterPattern="", **target)
    third = error_of(logs.put_subscription_filter, logGroupName=group, filterName="three", filterPattern="", **target)
    assert third == {"Code": "LimitExceededException", "Message": "Resource limit exceeded."}
    filters = logs.describe_subscription_filters(logGroupName=group)["subscriptionFilters"]
    assert [(f["filterName"], f["distribution"]) for f in filters] == [("one", "ByLogStream"), ("two", "ByLogStream")]
    logs.delete_subscription_filter(logGroupName=group, filterName="one")
    gone = error_of(logs.delete_subscription_filter, logGroupName=group, filterName="one")
    assert gone["Message"] == "The specified subscription filter does not exist."


def test_metric_filters_turn_ingested_events_into_cloudwatch_metrics(logs, stratus):
    group, stream = group_with_stream(logs)
    namespace = name("App")
    logs.put_metric_filter(logGroupName=group, filterName="latency", filterPattern="[ip, status, latency]", metricTransformations=[
        {"metricName": "Latency", "metricNamespace": namespace, "metricValue": "$latency", "unit": "Milliseconds", "dimensions": {"Status": "$status"}},
    ])
    logs.put_metric_filter(logGroupName=group, filterName="errors", filterPattern="ERROR", metricTransformations=[
        {"metricName": "Errors", "metricNamespace": namespace, "metricValue": "1", "defaultValue": 0.0},
    ])
    dimensioned = {"metricName": "M", "metricNamespace": namespace, "metricValue": "1", "dimensions": {"Status": "$status"}}
    err = error_of(logs.put_metric_filter, logGroupName=group, filterName="terms", filterPattern="ERROR", metricTransformations=[dimensioned])
    assert (err["Code"], err["Message"]) == ("InvalidParameterException", "The specified filter pattern does not support dimensions")
    err = error_of(logs.put_metric_filter, logGroupName=group, filterName="both", filterPattern="[ip, status, latency]", metricTransformations=[{**dimensioned, "defaultValue": 0.0}])
    assert err["Message"] == "Invalid metric transformation: dimensions and default value are mutually exclusive properties"
    t = (now_ms(stratus) // 60_000) * 60_000 - 120_000
    put(logs, group, stream, [
        {"timestamp": t, "message": "10.0.0.1 200 30"},
        {"timestamp": t + 1, "message": "10.0.0.2 200 50"},
        {"timestamp": t + 2, "message": "10.0.0.3 500 900"},
        {"timestamp": t + 60_000, "message": "ERROR disk full"},
    ])
    cw = stratus.client("cloudwatch")
    window = {"StartTime": t / 1000 - 60, "EndTime": t / 1000 + 180, "Period": 60}
    ok = cw.get_metric_statistics(Namespace=namespace, MetricName="Latency", Dimensions=[{"Name": "Status", "Value": "200"}], Statistics=["Average", "SampleCount"], **window)
    assert [(p["Average"], p["SampleCount"], p["Unit"]) for p in ok["Datapoints"]] == [(40.0, 2.0, "Milliseconds")]
    failed = cw.get_metric_statistics(Namespace=namespace, MetricName="Latency", Dimensions=[{"Name": "Status", "Value": "500"}], Statistics=["Maximum"], **window)
    assert [p["Maximum"] for p in failed["Datapoints"]] == [900.0]
    # The minute with events and no ERROR reports the default value; the next one counts the match.
    errors = cw.get_metric_statistics(Namespace=namespace, MetricName="Errors", Statistics=["Sum", "SampleCount"], **window)["Datapoints"]
    assert sorted((p["Timestamp"].timestamp() * 1000 - t, p["Sum"]) for p in errors) == [(0, 0.0), (60_000, 1.0)]


def test_subscription_filters_deliver_matching_events_to_a_function(logs, stratus):
    lam, sqs = stratus.client("lambda"), stratus.client("sqs")
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = stratus.client("iam").create_role(RoleName=name("logs-fn"), AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("app.py", "def handler(event, context):\n    return 'ok'\n")
    function = name("on-logs")
    arn = lam.create_function(FunctionName=function, Runtime="python3.12", Role=role, Handler="app.handler", Code={"ZipFile": code.getvalue()})["FunctionArn"]
    # The function's success destination shows the event it was invoked with.
    url = sqs.create_queue(QueueName=name("invoked"))["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    lam.put_function_event_invoke_config(FunctionName=function, DestinationConfig={"OnSuccess": {"Destination": queue_arn}})
    group, stream = group_with_stream(logs)
    missing = arn + "-missing"
    err = error_of(logs.put_subscription_filter, logGroupName=group, filterName="f", filterPattern="", destinationArn=missing)
    assert (err["Code"], err["Message"]) == ("InvalidParameterException", "Could not execute the lambda function. Make sure you have given CloudWatch Logs permission to execute your function.")
    # Until the function's policy lets Logs invoke it for this group (Logs' guide,
    # "Subscription filters with AWS Lambda"), it is refused the same way.
    err = error_of(logs.put_subscription_filter, logGroupName=group, filterName="f", filterPattern="", destinationArn=arn)
    assert err["Code"] == "InvalidParameterException"
    lam.add_permission(
        FunctionName=function,
        StatementId="logs",
        Action="lambda:InvokeFunction",
        Principal="logs.amazonaws.com",
        SourceArn=f"arn:aws:logs:us-east-1:000000000000:log-group:{group}:*",
        SourceAccount="000000000000",
    )
    logs.put_subscription_filter(logGroupName=group, filterName="errors", filterPattern="ERROR", destinationArn=arn)
    t = now_ms(stratus)
    put(logs, group, stream, [{"timestamp": t, "message": "ERROR one"}, {"timestamp": t + 1, "message": "INFO two"}, {"timestamp": t + 2, "message": "ERROR three"}])
    messages = []
    deadline = time.time() + 60
    while not messages and time.time() < deadline:
        messages = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5).get("Messages", [])
    [message] = messages
    payload = json.loads(message["Body"])["requestPayload"]
    data = json.loads(gzip.decompress(base64.b64decode(payload["awslogs"]["data"])))
    assert (data["messageType"], data["owner"], data["logGroup"], data["logStream"]) == ("DATA_MESSAGE", "000000000000", group, stream)
    assert data["subscriptionFilters"] == ["errors"]
    assert [(e["timestamp"] - t, e["message"]) for e in data["logEvents"]] == [(0, "ERROR one"), (2, "ERROR three")]
    assert all(len(e["id"]) == 56 and e["id"].isdigit() for e in data["logEvents"])


def test_insights_queries_run_as_they_start(logs, stratus):
    group, stream = group_with_stream(logs)
    t = now_ms(stratus)
    lines = [json.dumps({"level": lvl, "ms": ms}) for lvl, ms in [("ERROR", 120), ("INFO", 30), ("INFO", 60)]]
    put(logs, group, stream, [{"timestamp": t + i, "message": m} for i, m in enumerate(lines)])
    start, end = t // 1000 - 60, t // 1000 + 60

    def results(query):
        qid = logs.start_query(logGroupName=group, startTime=start, endTime=end, queryString=query)["queryId"]
        answer = logs.get_query_results(queryId=qid)
        assert answer["status"] == "Complete"
        return [{f["field"]: f["value"] for f in row} for row in answer["results"]]

    rows = results("fields @timestamp, level, ms | filter ms > 50 | sort ms desc")
    assert [(r["level"], r["ms"]) for r in rows] == [("ERROR", "120"), ("INFO", "60")]
    assert all("@ptr" in r for r in rows)
    stats = results("stats count(*) as n, avg(ms) by level | sort level")
    assert [(r["level"], r["n"], r["avg(ms)"]) for r in stats] == [("ERROR", "1", "120"), ("INFO", "2", "45")]
    assert len(results("fields @message | limit 2")) == 2

    described = logs.describe_queries(logGroupName=group)["queries"]
    assert len(described) == 3 and described[0]["status"] == "Complete"
    assert described[0]["queryString"].startswith(f'SOURCE "{group}" START={start}000 END={end}999 | ')
    bad = error_of(logs.start_query, logGroupName=group, startTime=start, endTime=end, queryString="frobnicate")
    assert bad["Code"] == "MalformedQueryException"
    missing = error_of(logs.start_query, logGroupName="nope", startTime=start, endTime=end, queryString="fields @message")
    assert missing["Code"] == "ResourceNotFoundException"


def test_deliveries_are_stored_and_joined(logs):
    source = logs.put_delivery_source(
        name="cf", resourceArn="arn:aws:cloudfront::000000000000:distribution/E1", logType="ACCESS_LOGS"
    )["deliverySource"]
    assert (source["service"], source["resourceArns"]) == ("cloudfront", ["arn:aws:cloudfront::000000000000:distribution/E1"])
    bucket = error_of(logs.put_delivery_source, name="b", resourceArn="arn:aws:s3:::bucket", logType="ACCESS_LOGS")
    assert bucket == {"Code": "ResourceNotFoundException", "Message": "Cannot access provided service."}
    destination = logs.put_delivery_destination(
        name="to-s3", deliveryDestinationConfiguration={"destinationResourceArn": "arn:aws:s3:::bucket"}
    )["deliveryDestination"]
    assert destination["deliveryDestinationType"] == "S3" and "outputFormat" not in destination
    logs.put_delivery_destination_policy(deliveryDestinationName="to-s3", deliveryDestinationPolicy='{"Version":"2012-10-17"}')
    policy = logs.get_delivery_destination_policy(deliveryDestinationName="to-s3")["policy"]["deliveryDestinationPolicy"]
    assert json.loads(policy) == {"Version": "2012-10-17"}
    delivery = logs.create_delivery(deliverySourceName="cf", deliveryDestinationArn=destination["arn"], recordFields=["date"])["delivery"]
    assert logs.get_delivery(id=delivery["id"])["delivery"]["recordFields"] == ["date"]
    assert [d["id"] for d in logs.describe_deliveries()["deliveries"]] == [delivery["id"]]
    logs.delete_delivery(id=delivery["id"])
    assert error_of(logs.get_delivery, id=delivery["id"])["Message"] == "Requested Delivery does not exist in this account."
    logs.delete_delivery_destination(name="to-s3")
    gone = error_of(logs.get_delivery_destination, name="to-s3")
    assert gone == {"Code": "ResourceNotFoundException", "Message": "Requested Delivery Destination does not exist in this account."}


def test_data_protection_is_refused_by_name(logs):
    refused = error_of(logs.get_data_protection_policy, logGroupIdentifier="anything")
    assert refused["Code"] == "NotImplemented" and "GetDataProtectionPolicy" in refused["Message"]


def cli(stratus, *args):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PAGER": "",
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", "logs", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_aws_cli_puts_gets_and_filters_events(stratus):
    group, stream = name("/cli/g"), "s"
    cli(stratus, "create-log-group", "--log-group-name", group)
    cli(stratus, "create-log-stream", "--log-group-name", group, "--log-stream-name", stream)
    t = now_ms(stratus)
    events = json.dumps([{"timestamp": t + i, "message": m} for i, m in enumerate(["start", "ERROR boom", "done"])])
    cli(stratus, "put-log-events", "--log-group-name", group, "--log-stream-name", stream, "--log-events", events)
    got = cli(stratus, "get-log-events", "--log-group-name", group, "--log-stream-name", stream, "--start-from-head")
    assert [e["message"] for e in got["events"]] == ["start", "ERROR boom", "done"]
    filtered = cli(stratus, "filter-log-events", "--log-group-name", group, "--filter-pattern", "ERROR")
    assert [(e["logStreamName"], e["message"]) for e in filtered["events"]] == [(stream, "ERROR boom")]
