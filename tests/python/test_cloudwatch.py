"""CloudWatch against the real binary: metrics over each of the three wires boto3 can speak
(its default rpcv2Cbor, awsJson1_0 and awsQuery, by model files that name another protocol),
statistics and percentiles, metric math, listings, dashboards, alarms firing to SNS and on to
SQS on a driven clock, composite alarms, tags, what is refused by name, and the AWS CLI."""

import gzip
import json
import os
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone

import botocore
import pytest
from botocore.exceptions import ClientError

from conftest import Stratus

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
WIRES = ["smithy-rpc-v2-cbor", "json", "query"]


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def wire_models(tmp_path_factory):
    """For each wire, a botocore data path whose CloudWatch model lists only that protocol."""
    source = os.path.join(os.path.dirname(botocore.__file__), "data", "cloudwatch", "2010-08-01", "service-2.json.gz")
    with gzip.open(source) as f:
        model = json.load(f)
    paths = {}
    for wire in WIRES:
        root = tmp_path_factory.mktemp(wire.replace("-", "_"))
        target = root / "cloudwatch" / "2010-08-01"
        target.mkdir(parents=True)
        model["metadata"]["protocol"] = wire
        model["metadata"]["protocols"] = [wire]
        (target / "service-2.json").write_text(json.dumps(model))
        paths[wire] = root
    return paths


@pytest.fixture(scope="module")
def cw(stratus):
    return stratus.client("cloudwatch")


@pytest.fixture(scope="module", params=WIRES)
def wire(request, stratus, wire_models):
    client = stratus.client("cloudwatch", data_path=wire_models[request.param])
    assert client.meta.service_model.protocol == request.param
    return client


def name(prefix="m"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def now(stratus):
    return datetime.fromtimestamp(stratus.now(), tz=timezone.utc)


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]


def test_boto3_speaks_cbor_by_default(cw):
    assert cw.meta.service_model.protocol == "smithy-rpc-v2-cbor"


def test_values_counts_and_statistic_sets_give_exact_statistics_on_every_wire(wire, stratus):
    namespace, t = name("ns"), now(stratus)
    wire.put_metric_data(
        Namespace=namespace,
        MetricData=[
            {"MetricName": "latency", "Timestamp": t, "Values": [1.0, 10.0], "Counts": [2, 4], "Unit": "Milliseconds"},
            {"MetricName": "latency", "Timestamp": t, "Value": 100.0, "Unit": "Milliseconds"},
            {"MetricName": "set", "Timestamp": t, "StatisticValues": {"SampleCount": 10, "Sum": 55, "Minimum": 1, "Maximum": 10}},
        ],
    )
    window = {"StartTime": t - timedelta(minutes=1), "EndTime": t + timedelta(minutes=1), "Period": 60}
    stats = wire.get_metric_statistics(
        Namespace=namespace, MetricName="latency", Statistics=["SampleCount", "Sum", "Maximum", "Minimum", "Average"], **window
    )
    assert stats["Label"] == "latency"
    [point] = stats["Datapoints"]
    assert (point["SampleCount"], point["Sum"], point["Minimum"], point["Maximum"]) == (7.0, 142.0, 1.0, 100.0)
    assert point["Average"] == pytest.approx(142 / 7)
    assert point["Unit"] == "Milliseconds"
    assert point["Timestamp"].second == 0
    # Nearest rank over the seven samples 1, 1, 10, 10, 10, 10, 100.
    extended = wire.get_metric_statistics(
        Namespace=namespace, MetricName="latency", ExtendedStatistics=["p10", "p50", "p99.9", "tm(20%:80%)"], **window
    )["Datapoints"][0]["ExtendedStatistics"]
    assert extended["p10"] == 1.0 and extended["p50"] == 10.0 and extended["p99.9"] == 100.0
    # The ranks from 1.4 to 5.6 of 7: 0.6 of a 1 and 3.6 of the 10s.
    assert extended["tm(20%:80%)"] == pytest.approx((0.6 * 1 + 3.6 * 10) / 4.2)
    sets = wire.get_metric_statistics(Namespace=namespace, MetricName="set", Statistics=["Average", "Minimum"], **window)
    assert sets["Datapoints"][0]["Average"] == 5.5 and sets["Datapoints"][0]["Unit"] == "None"


# AWS's recorded answers (PutMetricData): the mutual exclusions and the Counts check.
def test_put_metric_data_refusals_are_aws_words(wire, stratus):
    t = now(stratus)
    cases = [
        ({"Value": 1.5, "Values": [1.0]}, "InvalidParameterCombination", "The parameters MetricData.member.1.Value and MetricData.member.1.Values are mutually exclusive and you have specified both."),
        ({"Values": [1.0, 10.0], "Counts": [2, 4, 5]}, "InvalidParameterValue", "The parameters MetricData.member.1.Values and MetricData.member.1.Counts must be of the same size."),
        ({"Value": 1.5, "StatisticValues": {"SampleCount": 1, "Sum": 1, "Minimum": 1, "Maximum": 1}}, "InvalidParameterCombination", "The parameters MetricData.member.1.Value and MetricData.member.1.StatisticValues are mutually exclusive and you have specified both."),
    ]
    for datum, code, message in cases:
        err = error_of(wire.put_metric_data, Namespace="ns", MetricData=[{"MetricName": "m", "Timestamp": t, **datum}])
        assert (err["Code"], err["Message"]) == (code, message)
    too_many = [{"MetricName": "m", "Value": 1.0}] * 1001
    assert error_of(wire.put_metric_data, Namespace="ns", MetricData=too_many)["Message"] == "The collection MetricData must not have a size greater than 1000."
    # Values and StatisticValues together are accepted, as AWS accepts them.
    wire.put_metric_data(Namespace="ns", MetricData=[{"MetricName": "m", "Values": [1.0], "StatisticValues": {"SampleCount": 1, "Sum": 1, "Minimum": 1, "Maximum": 1}}])


def test_large_put_metric_data_bodies_arrive_gzipped_on_every_wire(stratus, wire_models):
    # botocore gzips PutMetricData bodies from 10 KiB, as the model's requestCompression asks;
    # over awsQuery the Action is inside the compressed form.
    for protocol in WIRES:
        client = stratus.client("cloudwatch", data_path=wire_models[protocol])
        sent = []
        client.meta.events.register("before-send.cloudwatch.PutMetricData", lambda request, **_: sent.append(request.headers.get("Content-Encoding")))
        namespace = name("gz")
        client.put_metric_data(Namespace=namespace, MetricData=[{"MetricName": f"m{i}", "Value": float(i)} for i in range(400)])
        assert sent == [b"gzip"], (protocol, sent)
        listed = client.get_paginator("list_metrics").paginate(Namespace=namespace).build_full_result()["Metrics"]
        assert len(listed) == 400, protocol


def test_get_metric_statistics_limits(cw, stratus):
    t = now(stratus)
    err = error_of(cw.get_metric_statistics, Namespace="ns", MetricName="m", StartTime=t - timedelta(days=1), EndTime=t, Period=1, Statistics=["Sum"])
    assert err["Code"] == "InvalidParameterCombination"
    assert err["Message"].startswith("You have requested up to 86400 datapoints, which exceeds the limit of 1440.")
    err = error_of(cw.get_metric_statistics, Namespace="ns", MetricName="m", StartTime=t, EndTime=t - timedelta(seconds=1), Period=60, Statistics=["Sum"])
    assert (err["Code"], err["Message"]) == ("InvalidParameterValue", "The parameter StartTime must be less than the parameter EndTime.")
    assert cw.get_metric_statistics(Namespace="ns", MetricName="absent", StartTime=t - timedelta(hours=1), EndTime=t, Period=60, Statistics=["Sum"])["Datapoints"] == []


def test_units_are_kept_apart(cw, stratus):
    namespace, t = name("ns"), now(stratus)
    cw.put_metric_data(Namespace=namespace, MetricData=[
        {"MetricName": "m", "Timestamp": t, "Value": 1.0, "Unit": "Seconds"},
        {"MetricName": "m", "Timestamp": t, "Value": 5.0, "Unit": "Count"},
        {"MetricName": "m", "Timestamp": t, "Value": 10.0},
    ])
    window = {"StartTime": t - timedelta(minutes=1), "EndTime": t + timedelta(minutes=1), "Period": 60}
    points = cw.get_metric_statistics(Namespace=namespace, MetricName="m", Statistics=["Average"], **window)["Datapoints"]
    assert sorted((p["Unit"], p["Average"]) for p in points) == [("Count", 5.0), ("None", 10.0), ("Seconds", 1.0)]
    only = cw.get_metric_statistics(Namespace=namespace, MetricName="m", Statistics=["Average"], Unit="Count", **window)["Datapoints"]
    assert [(p["Unit"], p["Average"]) for p in only] == [("Count", 5.0)]


def test_get_metric_data_math_labels_order_and_paging(wire, stratus):
    namespace, t0 = name("ns"), now(stratus).replace(second=0, microsecond=0) - timedelta(minutes=30)
    data = []
    for i in range(10):
        data.append({"MetricName": "a", "Timestamp": t0 + timedelta(minutes=i), "Value": float(i)})
        data.append({"MetricName": "b", "Timestamp": t0 + timedelta(minutes=i), "Value": 10.0})
    wire.put_metric_data(Namespace=namespace, MetricData=data)

    def stat(id, metric, s="Sum", period=60, **extra):
        return {"Id": id, "MetricStat": {"Metric": {"Namespace": namespace, "MetricName": metric}, "Period": period, "Stat": s}, **extra}

    window = {"StartTime": t0, "EndTime": t0 + timedelta(minutes=10)}
    answer = wire.get_metric_data(
        MetricDataQueries=[
            stat("a", "a", ReturnData=False),
            stat("b", "b", ReturnData=False),
            {"Id": "total", "Expression": "a + b", "Label": "a plus b"},
            {"Id": "most", "Expression": "MAX(METRICS())"},
            {"Id": "rate", "Expression": "RATE(a) * 60"},
            {"Id": "flag", "Expression": "IF(a > 4, 1, 0)"},
            {"Id": "avg", "Expression": "AVG(a)"},
        ],
        ScanBy="TimestampAscending",
        **window,
    )
    results = {r["Id"]: r for r in answer["MetricDataResults"]}
    assert results["total"]["Label"] == "a plus b"
    assert results["total"]["Values"] == [10.0 + i for i in range(10)]
    assert results["total"]["Timestamps"][0] == t0 and results["total"]["StatusCode"] == "Complete"
    assert results["most"]["Values"] == [10.0] * 10
    assert results["rate"]["Values"] == [1.0] * 9
    assert results["flag"]["Values"] == [0.0] * 5 + [1.0] * 5
    assert results["avg"]["Values"] == [4.5] * 10
    assert "a" not in results
    # Labels: the metric name, with the statistic and period when queries differ in them.
    labels = wire.get_metric_data(
        MetricDataQueries=[stat("s", "a"), stat("n", "a", "Minimum", 300)], **window
    )["MetricDataResults"]
    assert [r["Label"] for r in labels] == ["a Sum 60", "a Minimum 300"]
    # Newest first by default; MaxDatapoints pages with a NextToken.
    page = wire.get_metric_data(MetricDataQueries=[stat("s", "a")], MaxDatapoints=4, **window)
    assert page["MetricDataResults"][0]["Values"] == [9.0, 8.0, 7.0, 6.0] and page["NextToken"]
    rest = wire.get_metric_data(MetricDataQueries=[stat("s", "a")], MaxDatapoints=100, NextToken=page["NextToken"], **window)
    assert rest["MetricDataResults"][0]["Values"] == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0] and "NextToken" not in rest
    # SEARCH over the stored metrics.
    found = wire.get_metric_data(
        MetricDataQueries=[{"Id": "s", "Expression": f"SEARCH('{{{namespace}}} MetricName=\"b\"', 'Sum', 60)"}], **window
    )["MetricDataResults"]
    assert [(r["Label"], sum(r["Values"])) for r in found] == [("b", 100.0)]
    err = error_of(wire.get_metric_data, MetricDataQueries=[{"Id": "e", "Expression": "a +"}], **window)
    assert err["Code"] == "InvalidParameterValue"


def test_list_metrics_filters_pages_and_recently_active(cw, stratus):
    namespace = name("ns")
    cw.put_metric_data(Namespace=namespace, MetricData=[
        {"MetricName": "cpu", "Dimensions": [{"Name": "Host", "Value": "a"}], "Value": 1.0},
        {"MetricName": "cpu", "Dimensions": [{"Name": "Host", "Value": "b"}, {"Name": "Az", "Value": "x"}], "Value": 1.0},
        {"MetricName": "mem", "Value": 1.0},
    ])
    listed = cw.list_metrics(Namespace=namespace)["Metrics"]
    assert len(listed) == 3
    assert {m["MetricName"] for m in cw.list_metrics(Namespace=namespace, MetricName="cpu")["Metrics"]} == {"cpu"}
    by_host = cw.list_metrics(Namespace=namespace, Dimensions=[{"Name": "Host", "Value": "b"}])["Metrics"]
    assert by_host == [{"Namespace": namespace, "MetricName": "cpu", "Dimensions": [{"Name": "Az", "Value": "x"}, {"Name": "Host", "Value": "b"}]}]
    assert len(cw.list_metrics(Namespace=namespace, Dimensions=[{"Name": "Host"}])["Metrics"]) == 2
    many = name("many")
    for start in range(0, 501, 250):
        cw.put_metric_data(Namespace=many, MetricData=[{"MetricName": f"m{i}", "Value": 1.0} for i in range(start, min(start + 250, 501))])
    first = cw.list_metrics(Namespace=many)
    assert len(first["Metrics"]) == 500 and first["NextToken"]
    assert len(cw.list_metrics(Namespace=many, NextToken=first["NextToken"])["Metrics"]) == 1
    assert len(cw.list_metrics(Namespace=namespace, RecentlyActive="PT3H")["Metrics"]) == 3
    stratus.advance(4 * 3600)
    assert cw.list_metrics(Namespace=namespace, RecentlyActive="PT3H")["Metrics"] == []
    assert len(cw.list_metrics(Namespace=namespace)["Metrics"]) == 3


def test_dashboards(wire, stratus):
    dashboard = name("dash")
    body = json.dumps({"widgets": [{"type": "metric", "x": 0, "y": 0, "width": 6, "height": 6, "properties": {"metrics": [["AWS/EC2", "CPUUtilization"]]}}]})
    assert wire.put_dashboard(DashboardName=dashboard, DashboardBody=body)["DashboardValidationMessages"] == []
    got = wire.get_dashboard(DashboardName=dashboard)
    assert got["DashboardBody"] == body and got["DashboardArn"] == f"arn:aws:cloudwatch::000000000000:dashboard/{dashboard}"
    [entry] = wire.list_dashboards(DashboardNamePrefix=dashboard)["DashboardEntries"]
    assert entry["Size"] == len(body)
    err = error_of(wire.put_dashboard, DashboardName="bad name", DashboardBody=body)
    assert err["Code"] == "InvalidParameterValue" and "can only contain alphanumerics" in err["Message"]
    err = error_of(wire.put_dashboard, DashboardName=dashboard, DashboardBody="{not json")
    assert err["Code"] in ("InvalidParameterInput", "DashboardInvalidInputError")
    wire.delete_dashboards(DashboardNames=[dashboard])
    assert wire.list_dashboards(DashboardNamePrefix=dashboard)["DashboardEntries"] == []
    assert error_of(wire.get_dashboard, DashboardName=dashboard)["Code"] in ("ResourceNotFound", "DashboardNotFoundError")


@pytest.fixture(scope="module")
def topic_queue(stratus):
    sns, sqs = stratus.client("sns"), stratus.client("sqs")
    topic = sns.create_topic(Name=name("alarms"))["TopicArn"]
    queue = sqs.create_queue(QueueName=name("alarms"))["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    return topic, sqs, queue


def notification(sqs, queue):
    messages = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=10, MaxNumberOfMessages=1).get("Messages", [])
    assert messages, "no notification arrived"
    sqs.delete_message(QueueUrl=queue, ReceiptHandle=messages[0]["ReceiptHandle"])
    body = json.loads(messages[0]["Body"])
    return body, json.loads(body["Message"])


def test_an_alarm_fires_to_sns_and_sqs_on_a_driven_clock(cw, stratus, topic_queue):
    topic, sqs, queue = topic_queue
    alarm, namespace = name("alarm"), name("ns")
    dims = [{"Name": "InstanceId", "Value": "abc"}]
    cw.put_metric_alarm(
        AlarmName=alarm, AlarmDescription="too slow", Namespace=namespace, MetricName="latency", Dimensions=dims,
        Statistic="Average", Period=60, EvaluationPeriods=1, Threshold=21, ComparisonOperator="GreaterThanThreshold",
        Unit="Seconds", AlarmActions=[topic], OKActions=[topic], TreatMissingData="ignore",
    )
    [described] = cw.describe_alarms(AlarmNames=[alarm])["MetricAlarms"]
    assert (described["StateValue"], described["StateReason"]) == ("INSUFFICIENT_DATA", "Unchecked: Initial alarm creation")
    assert described["Dimensions"] == dims and described["OKActions"] == [topic] and described["InsufficientDataActions"] == []
    t = now(stratus)
    cw.put_metric_data(Namespace=namespace, MetricData=[
        {"MetricName": "latency", "Dimensions": dims, "Value": v, "Timestamp": t, "Unit": "Seconds"} for v in (21.0, 22.0)
    ])
    stratus.advance(60)
    body, message = notification(sqs, queue)
    assert body["TopicArn"] == topic and body["Subject"] == f'ALARM: "{alarm}" in US East (N. Virginia)'
    assert (message["AlarmName"], message["NewStateValue"], message["OldStateValue"]) == (alarm, "ALARM", "INSUFFICIENT_DATA")
    assert message["NewStateReason"].startswith("Threshold Crossed: 1 datapoint [21.5 (")
    assert message["NewStateReason"].endswith(")] was greater than the threshold (21.0).")
    assert message["Region"] == "US East (N. Virginia)" and message["AWSAccountId"] == "000000000000"
    assert message["Trigger"] == {
        "MetricName": "latency", "Namespace": namespace, "StatisticType": "Statistic", "Statistic": "AVERAGE",
        "Unit": "Seconds", "Dimensions": [{"value": "abc", "name": "InstanceId"}], "Period": 60, "EvaluationPeriods": 1,
        "ComparisonOperator": "GreaterThanThreshold", "Threshold": 21.0, "TreatMissingData": "ignore",
        "EvaluateLowSampleCountPercentile": "",
    }
    [fired] = cw.describe_alarms_for_metric(Namespace=namespace, MetricName="latency", Dimensions=dims)["MetricAlarms"]
    data = json.loads(fired["StateReasonData"])
    assert data["recentDatapoints"] == [21.5] and data["threshold"] == 21.0 and data["statistic"] == "Average"
    assert data["evaluatedDatapoints"][0]["sampleCount"] == 2.0 and data["unit"] == "Seconds"
    [update] = cw.describe_alarm_history(AlarmName=alarm, HistoryItemType="StateUpdate")["AlarmHistoryItems"]
    assert update["HistorySummary"] == "Alarm updated from INSUFFICIENT_DATA to ALARM"
    history = json.loads(update["HistoryData"])
    assert history["oldState"] == {"stateValue": "INSUFFICIENT_DATA", "stateReason": "Unchecked: Initial alarm creation"}
    assert history["newState"]["stateReasonData"]["recentDatapoints"] == [21.5]
    # With `ignore`, periods without data keep the state.
    stratus.advance(120)
    assert cw.describe_alarms(AlarmNames=[alarm])["MetricAlarms"][0]["StateValue"] == "ALARM"
    cw.put_metric_data(Namespace=namespace, MetricData=[{"MetricName": "latency", "Dimensions": dims, "Value": 1.0, "Unit": "Seconds", "Timestamp": now(stratus)}])
    stratus.advance(60)
    _, ok = notification(sqs, queue)
    assert ok["NewStateValue"] == "OK" and "was not greater than the threshold (21.0)" in ok["NewStateReason"]
    actions = cw.describe_alarm_history(AlarmName=alarm, HistoryItemType="Action")["AlarmHistoryItems"]
    assert actions and actions[0]["HistorySummary"] == f"Successfully executed action {topic}"
    cw.delete_alarms(AlarmNames=[alarm])


def test_missing_data_treated_as_breaching(cw, stratus):
    alarm = name("alarm")
    cw.put_metric_alarm(
        AlarmName=alarm, Namespace=name("ns"), MetricName="m", Statistic="Sum", Period=60, EvaluationPeriods=2,
        Threshold=1, ComparisonOperator="GreaterThanThreshold", TreatMissingData="breaching",
    )
    stratus.advance(60)
    [described] = cw.describe_alarms(AlarmNames=[alarm])["MetricAlarms"]
    assert described["StateValue"] == "ALARM"
    assert described["StateReason"] == "Threshold Crossed: no datapoints were received for 2 periods and 2 missing datapoints were treated as [Breaching]."
    cw.delete_alarms(AlarmNames=[alarm])


def test_set_alarm_state_actions_switch_and_composites(cw, stratus, topic_queue):
    topic, sqs, queue = topic_queue
    child, other, composite = name("child"), name("other"), name("composite")
    for alarm in (child, other):
        cw.put_metric_alarm(AlarmName=alarm, Namespace="AWS/EC2", MetricName="CPUUtilization", Statistic="Sum", Period=10,
                            EvaluationPeriods=1, Threshold=30, ComparisonOperator="GreaterThanThreshold", TreatMissingData="ignore")
    child_arn = cw.describe_alarms(AlarmNames=[child])["MetricAlarms"][0]["AlarmArn"]
    assert child_arn == f"arn:aws:cloudwatch:us-east-1:000000000000:alarm:{child}"
    cw.put_composite_alarm(AlarmName=composite, AlarmRule=f'ALARM("{child_arn}") OR ALARM({other})', AlarmActions=[topic], AlarmDescription="either")
    assert cw.describe_alarms(AlarmNames=[composite])["CompositeAlarms"] == []
    [described] = cw.describe_alarms(AlarmNames=[composite], AlarmTypes=["CompositeAlarm"])["CompositeAlarms"]
    assert described["StateValue"] == "INSUFFICIENT_DATA"
    cw.set_alarm_state(AlarmName=child, StateValue="ALARM", StateReason="testing")
    _, message = notification(sqs, queue)
    assert (message["AlarmName"], message["NewStateValue"]) == (composite, "ALARM")
    assert message["TriggeringChildren"][0]["Arn"] == child_arn and message["TriggeringChildren"][0]["State"]["Value"] == "ALARM"
    [described] = cw.describe_alarms(AlarmNames=[composite], AlarmTypes=["CompositeAlarm"])["CompositeAlarms"]
    assert json.loads(described["StateReasonData"])["triggeringAlarms"][0]["arn"] == child_arn
    assert [a["AlarmName"] for a in cw.describe_alarms(ChildrenOfAlarmName=composite)["MetricAlarms"]] == sorted([child, other])
    assert [a["AlarmName"] for a in cw.describe_alarms(ParentsOfAlarmName=child, AlarmTypes=["CompositeAlarm"])["CompositeAlarms"]] == [composite]
    cw.disable_alarm_actions(AlarmNames=[composite])
    assert cw.describe_alarms(AlarmNames=[composite], AlarmTypes=["CompositeAlarm"])["CompositeAlarms"][0]["ActionsEnabled"] is False
    cw.enable_alarm_actions(AlarmNames=[composite])
    err = error_of(cw.set_alarm_state, AlarmName=name("absent"), StateValue="OK", StateReason="x")
    assert err["Code"] == "ResourceNotFound"
    err = error_of(cw.set_alarm_state, AlarmName=child, StateValue="OK", StateReason="x", StateReasonData="not json")
    assert err["Code"] == "InvalidFormat"
    err = error_of(cw.put_composite_alarm, AlarmName=name("c"), AlarmRule="ALARM(nobody)")
    assert err["Code"] == "InvalidParameterValue"
    cw.delete_alarms(AlarmNames=[composite, child, other])
    assert cw.describe_alarms(AlarmNames=[child])["MetricAlarms"] == []


def test_alarm_validation(cw):
    base = {"AlarmName": name("a"), "EvaluationPeriods": 1, "ComparisonOperator": "GreaterThanThreshold", "Threshold": 1}
    err = error_of(cw.put_metric_alarm, **base, Namespace="ns", MetricName="m", Period=60, Statistic="Sum", ExtendedStatistic="p99")
    assert err["Code"] == "InvalidParameterCombination"
    err = error_of(cw.put_metric_alarm, **base, Namespace="ns", MetricName="m", Period=7, Statistic="Sum")
    assert err["Code"] == "InvalidParameterValue"
    metrics = [{"Id": "a", "Expression": "1", "ReturnData": True}, {"Id": "b", "Expression": "2", "ReturnData": True}]
    err = error_of(cw.put_metric_alarm, **base, Metrics=metrics)
    assert err["Message"] == "Exactly one element of the metrics list should return data."


def test_tags_on_alarms(cw):
    alarm = name("tagged")
    cw.put_metric_alarm(AlarmName=alarm, Namespace="ns", MetricName="m", Statistic="Sum", Period=60, EvaluationPeriods=1,
                        Threshold=1, ComparisonOperator="GreaterThanThreshold", Tags=[{"Key": "team", "Value": "a"}])
    arn = cw.describe_alarms(AlarmNames=[alarm])["MetricAlarms"][0]["AlarmArn"]
    cw.tag_resource(ResourceARN=arn, Tags=[{"Key": "env", "Value": "dev"}])
    assert cw.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "a"}]
    cw.untag_resource(ResourceARN=arn, TagKeys=["team"])
    assert cw.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]
    err = error_of(cw.tag_resource, ResourceARN=arn + "-absent", Tags=[{"Key": "k", "Value": "v"}])
    assert err["Code"] == "ResourceNotFoundException"
    cw.delete_alarms(AlarmNames=[alarm])
    # AWS's recorded answer: a deleted alarm lists no tags rather than failing.
    assert cw.list_tags_for_resource(ResourceARN=arn)["Tags"] == []


def test_what_stratus_does_not_run_is_refused_by_name(cw):
    err = error_of(cw.put_metric_stream, Name="s", FirehoseArn="arn:aws:firehose:us-east-1:000000000000:deliverystream/x",
                   RoleArn="arn:aws:iam::000000000000:role/r", OutputFormat="json")
    assert err["Code"] == "NotImplemented" and "PutMetricStream" in err["Message"]
    assert cw.list_metric_streams()["Entries"] == []
    assert cw.describe_anomaly_detectors()["AnomalyDetectors"] == []


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
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", "cloudwatch", *args],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_aws_cli_puts_and_reads_metrics_and_alarms(stratus):
    namespace, t = name("cli"), now(stratus)
    stamp = t.strftime("%Y-%m-%dT%H:%M:%SZ")
    cli(stratus, "put-metric-data", "--namespace", namespace, "--metric-name", "hits", "--value", "3", "--unit", "Count", "--timestamp", stamp)
    cli(stratus, "put-metric-data", "--namespace", namespace, "--metric-name", "hits", "--value", "5", "--unit", "Count", "--timestamp", stamp)
    start = (t - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (t + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    stats = cli(stratus, "get-metric-statistics", "--namespace", namespace, "--metric-name", "hits", "--start-time", start,
                "--end-time", end, "--period", "60", "--statistics", "Sum", "Maximum")
    assert [(p["Sum"], p["Maximum"], p["Unit"]) for p in stats["Datapoints"]] == [(8.0, 5.0, "Count")]
    assert cli(stratus, "list-metrics", "--namespace", namespace)["Metrics"] == [{"Namespace": namespace, "MetricName": "hits", "Dimensions": []}]
    alarm = name("cli-alarm")
    cli(stratus, "put-metric-alarm", "--alarm-name", alarm, "--namespace", namespace, "--metric-name", "hits", "--statistic", "Sum",
        "--period", "60", "--evaluation-periods", "1", "--threshold", "1", "--comparison-operator", "GreaterThanThreshold")
    cli(stratus, "set-alarm-state", "--alarm-name", alarm, "--state-value", "ALARM", "--state-reason", "by hand")
    [described] = cli(stratus, "describe-alarms", "--alarm-names", alarm)["MetricAlarms"]
    assert (described["StateValue"], described["StateReason"]) == ("ALARM", "by hand")
    cli(stratus, "delete-alarms", "--alarm-names", alarm)
