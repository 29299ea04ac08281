"""EventBridge through boto3 and the AWS CLI against the real binary: buses, rules, targets,
PutEvents delivered to SQS (with Input, InputPath and InputTransformer), AWS's refusals in
AWS's words, dead-letter queues, cross-bus targets, archives and replays."""

import json
import os
import subprocess
import time

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
REGION = "us-east-1"
AWS_CLI = os.path.join(os.path.dirname(__file__), "..", "..", ".venv", "bin", "aws")


@pytest.fixture(scope="module")
def events(stratus):
    return stratus.client("events")


@pytest.fixture(scope="module")
def sqs(stratus):
    return stratus.client("sqs")


names = iter(range(10_000))


def unique(prefix):
    return f"{prefix}-{next(names)}"


def queue(sqs, name=None):
    name = name or unique("q")
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    return url, f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"


def receive(sqs, url, count=1, timeout=20):
    messages = []
    deadline = time.time() + timeout
    while len(messages) < count and time.time() < deadline:
        messages += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
    return messages


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def put(events, bus=None, detail=None, source="my.app", detail_type="Thing Happened"):
    entry = {"Source": source, "DetailType": detail_type, "Detail": json.dumps(detail or {"n": 1})}
    if bus:
        entry["EventBusName"] = bus
    answer = events.put_events(Entries=[entry])
    assert answer["FailedEntryCount"] == 0, answer
    return answer["Entries"][0]["EventId"]


def test_the_default_bus_exists_and_cannot_be_deleted(events):
    bus = events.describe_event_bus()
    assert bus["Name"] == "default"
    assert bus["Arn"] == f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/default"
    assert "default" in [b["Name"] for b in events.list_event_buses()["EventBuses"]]
    with pytest.raises(ClientError) as e:
        events.delete_event_bus(Name="default")
    assert error(e) == ("ValidationException", "Cannot delete event bus default.")


def test_custom_buses_are_created_listed_paged_and_deleted(events):
    prefix = unique("bus")
    for i in range(5):
        arn = events.create_event_bus(Name=f"{prefix}-{i}", Description="test bus")["EventBusArn"]
        assert arn == f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{prefix}-{i}"
    with pytest.raises(ClientError) as e:
        events.create_event_bus(Name=f"{prefix}-0")
    assert error(e) == ("ResourceAlreadyExistsException", f"Event bus {prefix}-0 already exists.")
    first = events.list_event_buses(NamePrefix=prefix, Limit=3)
    assert [b["Name"] for b in first["EventBuses"]] == [f"{prefix}-{i}" for i in range(3)]
    second = events.list_event_buses(NamePrefix=prefix, Limit=3, NextToken=first["NextToken"])
    assert [b["Name"] for b in second["EventBuses"]] == [f"{prefix}-3", f"{prefix}-4"]
    assert "NextToken" not in second
    assert events.describe_event_bus(Name=f"{prefix}-1")["Description"] == "test bus"
    events.update_event_bus(Name=f"{prefix}-1", Description="changed")
    assert events.describe_event_bus(Name=f"{prefix}-1")["Description"] == "changed"
    for i in range(5):
        events.delete_event_bus(Name=f"{prefix}-{i}")
    assert events.list_event_buses(NamePrefix=prefix)["EventBuses"] == []
    with pytest.raises(ClientError) as e:
        events.describe_event_bus(Name=f"{prefix}-1")
    assert error(e) == ("ResourceNotFoundException", f"Event bus {prefix}-1 does not exist.")


def test_partner_buses_need_a_partner_event_source(events):
    with pytest.raises(ClientError) as e:
        events.create_event_bus(Name="aws.partner/example.com/123/source", EventSourceName="aws.partner/example.com/123/source")
    assert error(e) == ("ResourceNotFoundException", "Event source aws.partner/example.com/123/source does not exist.")


def test_bus_policies_from_put_and_remove_permission(events):
    bus = unique("policy-bus")
    events.create_event_bus(Name=bus)
    events.put_permission(EventBusName=bus, Action="events:PutEvents", Principal="111111111111", StatementId="one")
    events.put_permission(EventBusName=bus, Action="events:PutEvents", Principal="*", StatementId="all")
    policy = json.loads(events.describe_event_bus(Name=bus)["Policy"])
    assert policy["Version"] == "2012-10-17"
    assert policy["Statement"][0] == {
        "Sid": "one",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
        "Action": "events:PutEvents",
        "Resource": f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{bus}",
    }
    assert policy["Statement"][1]["Principal"] == "*"
    events.remove_permission(EventBusName=bus, StatementId="one")
    assert [s["Sid"] for s in json.loads(events.describe_event_bus(Name=bus)["Policy"])["Statement"]] == ["all"]
    with pytest.raises(ClientError) as e:
        events.remove_permission(EventBusName=bus, StatementId="one")
    assert error(e) == ("ResourceNotFoundException", "Statement with the provided id does not exist.")
    events.remove_permission(EventBusName=bus, RemoveAllPermissions=True)
    assert "Policy" not in events.describe_event_bus(Name=bus)
    with pytest.raises(ClientError) as e:
        events.put_permission(EventBusName="no-such-bus", Action="events:PutEvents", Principal="*", StatementId="x")
    assert error(e) == ("ResourceNotFoundException", "Event bus no-such-bus does not exist.")


def test_tags_on_buses_and_rules(events):
    bus = unique("tag-bus")
    bus_arn = events.create_event_bus(Name=bus, Tags=[{"Key": "team", "Value": "a"}])["EventBusArn"]
    rule_arn = events.put_rule(Name="tagged", EventBusName=bus, EventPattern='{"source": ["x"]}')["RuleArn"]
    assert rule_arn == f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{bus}/tagged"
    events.tag_resource(ResourceARN=bus_arn, Tags=[{"Key": "env", "Value": "dev"}])
    events.tag_resource(ResourceARN=rule_arn, Tags=[{"Key": "k", "Value": "v"}])
    assert events.list_tags_for_resource(ResourceARN=bus_arn)["Tags"] == [
        {"Key": "env", "Value": "dev"},
        {"Key": "team", "Value": "a"},
    ]
    events.untag_resource(ResourceARN=rule_arn, TagKeys=["k"])
    assert events.list_tags_for_resource(ResourceARN=rule_arn)["Tags"] == []


def test_rules_are_put_described_listed_and_deleted(events):
    prefix = unique("rule")
    pattern = json.dumps({"source": ["my.app"]})
    for i in range(3):
        events.put_rule(Name=f"{prefix}-{i}", EventPattern=pattern, Description="d")
    rule = events.describe_rule(Name=f"{prefix}-0")
    assert rule["Arn"] == f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{prefix}-0"
    assert rule["State"] == "ENABLED"
    assert rule["EventBusName"] == "default"
    assert rule["CreatedBy"] == ACCOUNT
    assert json.loads(rule["EventPattern"]) == {"source": ["my.app"]}
    events.disable_rule(Name=f"{prefix}-0")
    assert events.describe_rule(Name=f"{prefix}-0")["State"] == "DISABLED"
    events.enable_rule(Name=f"{prefix}-0")
    page = events.list_rules(NamePrefix=prefix, Limit=2)
    assert [r["Name"] for r in page["Rules"]] == [f"{prefix}-0", f"{prefix}-1"]
    rest = events.list_rules(NamePrefix=prefix, Limit=2, NextToken=page["NextToken"])
    assert [r["Name"] for r in rest["Rules"]] == [f"{prefix}-2"]
    for i in range(3):
        events.delete_rule(Name=f"{prefix}-{i}")
    with pytest.raises(ClientError) as e:
        events.describe_rule(Name=f"{prefix}-0")
    assert error(e) == ("ResourceNotFoundException", f"Rule {prefix}-0 does not exist on EventBus default.")


def test_a_pattern_is_refused_with_aws_message(events):
    with pytest.raises(ClientError) as e:
        events.put_rule(Name="bad", EventPattern=json.dumps({"source": []}))
    # AWS appends the parser's position, as Jackson words it.
    assert error(e) == (
        "InvalidEventPatternException",
        'Event pattern is not valid. Reason: Empty arrays are not allowed\n at [Source: (String)"{"source": []}"; line: 1, column: 14]',
    )
    with pytest.raises(ClientError) as e:
        events.put_rule(Name="bad", EventPattern=json.dumps({"detail": {"n": [{"prefix": 1}]}}))
    code, message = error(e)
    assert code == "InvalidEventPatternException"
    assert message.startswith("Event pattern is not valid. Reason: prefix match pattern must be a string")


def test_schedules_are_checked_and_only_on_the_default_bus(events):
    events.put_rule(Name=unique("every-minute"), ScheduleExpression="rate(1 minute)")
    events.put_rule(Name=unique("cron"), ScheduleExpression="cron(0/5 8-17 ? * MON-FRI *)")
    for bad in ["rate(1 minutes)", "rate(0 minutes)", "cron(0 1 * * * *)", "cron(71 8 1 * ? *)"]:
        with pytest.raises(ClientError) as e:
            events.put_rule(Name="bad-schedule", ScheduleExpression=bad)
        assert error(e) == ("ValidationException", "Parameter ScheduleExpression is not valid."), bad
    bus = unique("sched-bus")
    events.create_event_bus(Name=bus)
    with pytest.raises(ClientError) as e:
        events.put_rule(Name="s", EventBusName=bus, ScheduleExpression="rate(1 minute)")
    assert error(e) == ("ValidationException", "ScheduleExpression is supported only on the default event bus.")


def test_test_event_pattern(events):
    event = {
        "id": "1",
        "account": ACCOUNT,
        "source": "my.app",
        "time": "2024-01-01T00:00:00Z",
        "region": REGION,
        "detail-type": "t",
        "detail": {"n": 5},
    }
    pattern = {"source": ["my.app"], "detail": {"n": [{"numeric": [">", 3]}]}}
    assert events.test_event_pattern(Event=json.dumps(event), EventPattern=json.dumps(pattern))["Result"] is True
    pattern["detail"]["n"] = [{"numeric": [">", 30]}]
    assert events.test_event_pattern(Event=json.dumps(event), EventPattern=json.dumps(pattern))["Result"] is False
    with pytest.raises(ClientError) as e:
        events.test_event_pattern(Event=json.dumps({"testEvent": "value"}), EventPattern=json.dumps(pattern))
    assert error(e) == ("ValidationException", "Parameter Event is not valid.")


def test_targets_limits_and_refusals(events):
    rule = unique("targets")
    events.put_rule(Name=rule, EventPattern='{"source": ["x"]}')
    with pytest.raises(ClientError) as e:
        events.put_targets(Rule="no-such-rule", Targets=[{"Id": "1", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"}])
    assert error(e) == ("ResourceNotFoundException", "Rule no-such-rule does not exist on EventBus default.")
    with pytest.raises(ClientError) as e:
        events.put_targets(
            Rule=rule,
            Targets=[{"Id": "t", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q", "Input": "{}", "InputPath": "$.detail"}],
        )
    assert error(e) == ("ValidationException", "Only one of Input, InputPath, or InputTransformer must be provided for target t.")
    with pytest.raises(ClientError) as e:
        events.put_targets(
            Rule=rule,
            Targets=[
                {
                    "Id": "t",
                    "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q",
                    "InputTransformer": {"InputPathsMap": {"a": "$.detail"}, "InputTemplate": '{"a": <a>, "b": <notdefinedkey>}'},
                }
            ],
        )
    assert error(e) == ("ValidationException", "InputTemplate for target t contains invalid placeholder notdefinedkey.")
    targets = [{"Id": str(i), "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q{i}"} for i in range(5)]
    answer = events.put_targets(Rule=rule, Targets=targets)
    assert (answer["FailedEntryCount"], answer["FailedEntries"]) == (0, [])
    with pytest.raises(ClientError) as e:
        events.put_targets(Rule=rule, Targets=[{"Id": "6", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q6"}])
    assert error(e) == ("LimitExceededException", "The requested resource exceeds the maximum number allowed.")
    assert [t["Id"] for t in events.list_targets_by_rule(Rule=rule)["Targets"]] == ["0", "1", "2", "3", "4"]
    assert events.list_rule_names_by_target(TargetArn=f"arn:aws:sqs:{REGION}:{ACCOUNT}:q3")["RuleNames"] == [rule]
    with pytest.raises(ClientError) as e:
        events.delete_rule(Name=rule)
    assert error(e) == ("ValidationException", "Rule can't be deleted since it has targets.")
    events.remove_targets(Rule=rule, Ids=[str(i) for i in range(5)])
    events.delete_rule(Name=rule)


def test_put_events_per_entry_failures_and_limits(events):
    answer = events.put_events(
        Entries=[
            {"Source": "a", "DetailType": "b", "Detail": "{}"},
            {"DetailType": "b", "Detail": "{}"},
            {"Source": "a", "Detail": "{}"},
            {"Source": "a", "DetailType": "b"},
            {"Source": "a", "DetailType": "b", "Detail": "[1, 2]"},
        ]
    )
    assert answer["FailedEntryCount"] == 4
    entries = answer["Entries"]
    assert len(entries[0]["EventId"]) == 36
    assert entries[1] == {"ErrorCode": "InvalidArgument", "ErrorMessage": "Parameter Source is not valid. Reason: Source is a required argument."}
    assert entries[2] == {"ErrorCode": "InvalidArgument", "ErrorMessage": "Parameter DetailType is not valid. Reason: DetailType is a required argument."}
    assert entries[3] == {"ErrorCode": "InvalidArgument", "ErrorMessage": "Parameter Detail is not valid. Reason: Detail is a required argument."}
    assert entries[4] == {"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."}
    with pytest.raises(ClientError) as e:
        events.put_events(Entries=[{"Source": "a", "DetailType": "b", "Detail": "{}"}] * 11)
    assert e.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as e:
        events.put_events(Entries=[{"Source": "a", "DetailType": "b", "Detail": json.dumps({"x": "y" * 262_144})}])
    assert error(e) == ("ValidationException", "Total size of the entries in the request is over the limit.")


def test_events_reach_sqs_as_aws_builds_them(events, sqs):
    url, arn = queue(sqs)
    rule = unique("to-sqs")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": ["orders"], "detail": {"kind": ["new"]}}))
    events.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": arn}])
    event_id = put(events, source="orders", detail={"kind": "new", "n": 1}, detail_type="Order")
    put(events, source="orders", detail={"kind": "old"})
    [message] = receive(sqs, url)
    body = json.loads(message["Body"])
    assert list(body) == ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
    assert body["id"] == event_id
    assert body["version"] == "0"
    assert body["detail-type"] == "Order"
    assert body["account"] == ACCOUNT
    assert body["region"] == REGION
    assert body["resources"] == []
    assert body["detail"] == {"kind": "new", "n": 1}
    assert receive(sqs, url, timeout=2) == []


def test_disabled_rules_deliver_nothing(events, sqs):
    url, arn = queue(sqs)
    rule = unique("disabled")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": ["quiet"]}), State="DISABLED")
    events.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": arn}])
    put(events, source="quiet")
    assert receive(sqs, url, timeout=2) == []


def test_input_input_path_and_input_transformer(events, sqs):
    constant_url, constant_arn = queue(sqs)
    path_url, path_arn = queue(sqs)
    transformed_url, transformed_arn = queue(sqs)
    text_url, text_arn = queue(sqs)
    rule = unique("inputs")
    rule_arn = events.put_rule(Name=rule, EventPattern=json.dumps({"source": ["shapes"]}))["RuleArn"]
    events.put_targets(
        Rule=rule,
        Targets=[
            {"Id": "constant", "Arn": constant_arn, "Input": '{"fixed": true}'},
            {"Id": "path", "Arn": path_arn, "InputPath": "$.detail.payload"},
            {
                "Id": "json",
                "Arn": transformed_arn,
                "InputTransformer": {
                    "InputPathsMap": {"kind": "$.detail-type", "id": "$.detail.payload.id", "missing": "$.detail.nope"},
                    "InputTemplate": '{"kind": <kind>, "path": "users/<id>", "missing": "<missing>", "rule": "<aws.events.rule-name>", "arn": "<aws.events.rule-arn>"}',
                },
            },
            {
                "Id": "text",
                "Arn": text_arn,
                "InputTransformer": {"InputPathsMap": {"tags": "$.detail.tags"}, "InputTemplate": '"tags are <tags>"'},
            },
        ],
    )
    put(events, source="shapes", detail_type="Shaped", detail={"payload": {"id": "u-1", "v": 2}, "tags": ["A", "B"]})
    assert json.loads(receive(sqs, constant_url)[0]["Body"]) == {"fixed": True}
    assert json.loads(receive(sqs, path_url)[0]["Body"]) == {"id": "u-1", "v": 2}
    assert json.loads(receive(sqs, transformed_url)[0]["Body"]) == {
        "kind": "Shaped",
        "path": "users/u-1",
        "missing": "",
        "rule": rule,
        "arn": rule_arn,
    }
    assert receive(sqs, text_url)[0]["Body"] == '"tags are [A,B]"'


def test_a_missing_target_sends_the_event_to_its_dead_letter_queue(events, sqs):
    dlq_url, dlq_arn = queue(sqs)
    rule = unique("dlq")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": ["doomed"]}))
    events.put_targets(
        Rule=rule,
        Targets=[
            {
                "Id": "gone",
                "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:does-not-exist",
                "DeadLetterConfig": {"Arn": dlq_arn},
                "RetryPolicy": {"MaximumRetryAttempts": 0, "MaximumEventAgeInSeconds": 60},
            }
        ],
    )
    event_id = put(events, source="doomed")
    [message] = receive(sqs, dlq_url)
    assert json.loads(message["Body"])["id"] == event_id


def test_a_bus_can_target_another_bus(events, sqs):
    url, arn = queue(sqs)
    other = unique("downstream")
    other_arn = events.create_event_bus(Name=other)["EventBusArn"]
    events.put_rule(Name="forward", EventPattern=json.dumps({"source": ["relay"]}))
    events.put_targets(Rule="forward", Targets=[{"Id": "bus", "Arn": other_arn}])
    events.put_rule(Name="arrive", EventBusName=other, EventPattern=json.dumps({"source": ["relay"]}))
    events.put_targets(Rule="arrive", EventBusName=other, Targets=[{"Id": "q", "Arn": arn}])
    event_id = put(events, source="relay")
    [message] = receive(sqs, url)
    assert json.loads(message["Body"])["id"] == event_id


def test_archives_and_replays(events, sqs):
    bus = unique("archived-bus")
    bus_arn = events.create_event_bus(Name=bus)["EventBusArn"]
    archive = unique("archive")
    archive_arn = events.create_archive(ArchiveName=archive, EventSourceArn=bus_arn, EventPattern=json.dumps({"source": ["kept"]}))["ArchiveArn"]
    assert archive_arn == f"arn:aws:events:{REGION}:{ACCOUNT}:archive/{archive}"
    with pytest.raises(ClientError) as e:
        events.create_archive(ArchiveName=archive, EventSourceArn=bus_arn)
    assert error(e) == ("ResourceAlreadyExistsException", f"Archive {archive} already exists.")
    start = time.time() - 5
    put(events, bus=bus, source="kept")
    put(events, bus=bus, source="dropped")
    described = events.describe_archive(ArchiveName=archive)
    assert described["EventCount"] == 1
    assert described["State"] == "ENABLED"
    url, arn = queue(sqs)
    events.put_rule(Name="replayed", EventBusName=bus, EventPattern=json.dumps({"source": ["kept"]}))
    events.put_targets(Rule="replayed", EventBusName=bus, Targets=[{"Id": "q", "Arn": arn}])
    replay = unique("replay")
    started = events.start_replay(
        ReplayName=replay,
        EventSourceArn=archive_arn,
        EventStartTime=start,
        EventEndTime=time.time() + 5,
        Destination={"Arn": bus_arn},
    )
    assert started["State"] == "STARTING"
    [message] = receive(sqs, url)
    body = json.loads(message["Body"])
    assert body["replay-name"] == replay
    assert body["source"] == "kept"
    assert events.describe_replay(ReplayName=replay)["State"] == "COMPLETED"
    assert [r["ReplayName"] for r in events.list_replays(NamePrefix=replay)["Replays"]] == [replay]
    with pytest.raises(ClientError) as e:
        events.describe_archive(ArchiveName="no-such-archive")
    assert error(e) == ("ResourceNotFoundException", "Archive no-such-archive does not exist.")
    events.delete_archive(ArchiveName=archive)


def test_the_aws_cli_puts_rules_and_events(stratus, sqs):
    if not os.path.exists(AWS_CLI):
        pytest.skip("the AWS CLI is not installed in .venv")
    url, arn = queue(sqs)
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": REGION,
    }

    def cli(*args):
        out = subprocess.run([AWS_CLI, "--endpoint-url", stratus.endpoint, "events", *args], env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout) if out.stdout.strip() else None

    cli("put-rule", "--name", "cli-rule", "--event-pattern", json.dumps({"source": ["cli"]}))
    cli("put-targets", "--rule", "cli-rule", "--targets", json.dumps([{"Id": "q", "Arn": arn}]))
    answer = cli("put-events", "--entries", json.dumps([{"Source": "cli", "DetailType": "t", "Detail": "{}"}]))
    assert answer["FailedEntryCount"] == 0
    [message] = receive(sqs, url)
    assert json.loads(message["Body"])["source"] == "cli"
    assert [r["Name"] for r in cli("list-rules", "--name-prefix", "cli-")["Rules"]] == ["cli-rule"]


def test_connections_and_api_destinations_never_answer_secrets(events):
    name = unique("conn")
    created = events.create_connection(
        Name=name,
        AuthorizationType="API_KEY",
        AuthParameters={
            "ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "secret-value"},
            "InvocationHttpParameters": {
                "HeaderParameters": [
                    {"Key": "open", "Value": "shown", "IsValueSecret": False},
                    {"Key": "hidden", "Value": "secret-header", "IsValueSecret": True},
                ]
            },
        },
    )
    assert created["ConnectionState"] == "AUTHORIZED"
    assert created["ConnectionArn"].startswith(f"arn:aws:events:{REGION}:{ACCOUNT}:connection/{name}/")
    described = events.describe_connection(Name=name)
    assert described["AuthParameters"]["ApiKeyAuthParameters"] == {"ApiKeyName": "x-api-key"}
    headers = described["AuthParameters"]["InvocationHttpParameters"]["HeaderParameters"]
    assert headers == [
        {"Key": "open", "Value": "shown", "IsValueSecret": False},
        {"Key": "hidden", "IsValueSecret": True},
    ]
    assert described["SecretArn"].startswith(f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:events!connection/{name}/")
    assert "secret-value" not in json.dumps(described, default=str)
    oauth = events.create_connection(
        Name=unique("oauth"),
        AuthorizationType="OAUTH_CLIENT_CREDENTIALS",
        AuthParameters={
            "OAuthParameters": {
                "ClientParameters": {"ClientID": "id", "ClientSecret": "s3cret"},
                "AuthorizationEndpoint": "https://example.com/oauth",
                "HttpMethod": "POST",
            }
        },
    )
    assert oauth["ConnectionState"] == "AUTHORIZING"
    destination = unique("dest")
    arn = events.create_api_destination(
        Name=destination, ConnectionArn=created["ConnectionArn"], InvocationEndpoint="https://example.com/hook", HttpMethod="POST"
    )["ApiDestinationArn"]
    assert arn.startswith(f"arn:aws:events:{REGION}:{ACCOUNT}:api-destination/{destination}/")
    got = events.describe_api_destination(Name=destination)
    assert (got["ApiDestinationState"], got["InvocationRateLimitPerSecond"], got["HttpMethod"]) == ("ACTIVE", 300, "POST")
    events.delete_api_destination(Name=destination)
    with pytest.raises(ClientError) as e:
        events.describe_api_destination(Name=destination)
    assert error(e) == (
        "ResourceNotFoundException",
        f"Failed to describe the api-destination(s). An api-destination '{destination}' does not exist.",
    )
    assert events.delete_connection(Name=name)["ConnectionState"] == "DELETING"
    with pytest.raises(ClientError) as e:
        events.describe_connection(Name=name)
    assert error(e) == ("ResourceNotFoundException", f"Failed to describe the connection(s). Connection '{name}' does not exist.")


def test_fifo_targets_get_the_message_group_id(events, sqs):
    url = sqs.create_queue(QueueName="ordered.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    rule = unique("fifo")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": ["ordered"]}))
    events.put_targets(
        Rule=rule,
        Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:ordered.fifo", "SqsParameters": {"MessageGroupId": "g1"}}],
    )
    event_id = put(events, source="ordered")
    deadline = time.time() + 20
    messages = []
    while not messages and time.time() < deadline:
        messages = sqs.receive_message(QueueUrl=url, AttributeNames=["All"], WaitTimeSeconds=1).get("Messages", [])
    [message] = messages
    assert message["Attributes"]["MessageGroupId"] == "g1"
    assert message["Attributes"]["MessageDeduplicationId"] == event_id
    assert json.loads(message["Body"])["id"] == event_id
