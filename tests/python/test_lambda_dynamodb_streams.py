"""Lambda event source mappings of DynamoDB streams against the real binary: item changes
reaching a real Python function with AWS's DynamoDB event shape (checked against Powertools'
published DynamoDBStreamModel), in order; the mapping's refusals; FilterCriteria on the
stream record; a failing batch reported to the OnFailure queue with AWS's DDBStreamBatchInfo;
ParallelizationFactor keeping each item's changes in order; and tumbling windows carrying the
function's state to a final invocation when the (manual) clock passes the window's end.

The function writes each event it receives to a file of a directory named in its
environment, as in test_lambda_esm.py."""

import json
import os
import shutil
import tempfile
import time
import uuid

import pytest
from aws_lambda_powertools.utilities.parser.models import DynamoDBStreamModel
from conftest import Stratus

from test_lambda_esm import ACCOUNT, REGION, TRUST, error_of, make_zip

# Records each event; crashes on an item whose `v` is "crash"; with a tumbling window,
# answers the window's state with a count of the records seen in it.
RECORDER = """
import json, os, time, uuid

def handler(event, context):
    path = os.path.join(os.environ["OUT_DIR"], f"{time.time():.6f}-{uuid.uuid4().hex}.json")
    with open(path + ".part", "w") as f:
        json.dump({"event": event}, f)
    os.replace(path + ".part", path)
    values = [r["dynamodb"].get("NewImage", {}).get("v", {}).get("S") for r in event["Records"]]
    if "crash" in values:
        raise RuntimeError("asked to crash")
    if "window" in event:
        return {"state": {"count": event["state"].get("count", 0) + len(event["Records"])}}
    return None
"""


class Recorder:
    """A function that records its events into a directory of its own."""

    def __init__(self, lam, role):
        self.name = f"ddb-{uuid.uuid4().hex[:8]}"
        self.out = tempfile.mkdtemp(prefix="stratus-ddb-streams-", dir="/var/tmp")
        lam.create_function(
            FunctionName=self.name,
            Runtime="python3.12",
            Role=role,
            Handler="app.handler",
            Code={"ZipFile": make_zip(RECORDER)},
            Timeout=30,
            Environment={"Variables": {"OUT_DIR": self.out}},
        )

    def calls(self):
        found = []
        for name in sorted(n for n in os.listdir(self.out) if n.endswith(".json")):
            with open(os.path.join(self.out, name)) as f:
                found.append(json.load(f)["event"])
        return found

    def changes(self):
        """(event name, key, new value) of every record received, in order."""
        return [
            (r["eventName"], r["dynamodb"]["Keys"]["k"]["S"], r["dynamodb"].get("NewImage", {}).get("v", {}).get("S"))
            for e in self.calls()
            for r in e["Records"]
        ]

    def wait_for(self, predicate, timeout=30, tick=None):
        deadline = time.time() + timeout
        while time.time() < deadline:
            calls = self.calls()
            if predicate(calls):
                return calls
            if tick:
                tick()
            time.sleep(0.05)
        raise AssertionError(f"not seen in time; events: {self.calls()}")

    def remove(self):
        shutil.rmtree(self.out, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    # A manual clock, so tumbling windows end when the test says; retry pauses are advanced
    # through by the tests that need them.
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def clients(server):
    return server.client("lambda"), server.client("dynamodb"), server.client("sqs")


@pytest.fixture(scope="module")
def role(server):
    return server.client("iam").create_role(RoleName="ddb-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


@pytest.fixture
def recorder(clients, role):
    f = Recorder(clients[0], role)
    yield f
    f.remove()


def table(ddb, view="NEW_AND_OLD_IMAGES"):
    name = f"t-{uuid.uuid4().hex[:8]}"
    described = ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
    )
    return name, described["TableDescription"]["LatestStreamArn"]


def put(ddb, name, key, value, **more):
    ddb.put_item(TableName=name, Item={"k": {"S": key}, "v": {"S": value}, **more})


def test_item_changes_reach_the_function_in_order_with_the_dynamodb_event_shape(clients, recorder):
    lam, ddb, _ = clients
    name, arn = table(ddb)
    put(ddb, name, "a", "1")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn, FunctionName=recorder.name, StartingPosition="TRIM_HORIZON", BatchSize=2
    )
    assert mapping["State"] == "Creating" and mapping["StartingPosition"] == "TRIM_HORIZON"
    assert mapping["BatchSize"] == 2 and mapping["StateTransitionReason"] == "User action"
    put(ddb, name, "a", "2")
    ddb.delete_item(TableName=name, Key={"k": {"S": "a"}})
    recorder.wait_for(lambda calls: sum(len(e["Records"]) for e in calls) >= 3)
    assert recorder.changes() == [("INSERT", "a", "1"), ("MODIFY", "a", "2"), ("REMOVE", "a", None)]
    assert all(len(e["Records"]) <= 2 for e in recorder.calls())
    for event in recorder.calls():
        DynamoDBStreamModel(**event)
    first = recorder.calls()[0]["Records"][0]
    assert first["eventSource"] == "aws:dynamodb" and first["eventVersion"] == "1.1"
    assert first["eventSourceARN"] == arn and first["awsRegion"] == REGION
    assert first["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert isinstance(first["dynamodb"]["ApproximateCreationDateTime"], (int, float))
    records = [r for e in recorder.calls() for r in e["Records"]]
    assert records[1]["dynamodb"]["OldImage"]["v"] == {"S": "1"}
    assert records[2]["dynamodb"]["Keys"] == {"k": {"S": "a"}} and "NewImage" not in records[2]["dynamodb"]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_a_mapping_of_a_stream_refuses_what_aws_refuses(clients, recorder):
    lam, ddb, _ = clients
    name, arn = table(ddb)
    missing = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/nope/stream/2025-02-22T03:03:25.490"
    code, message = error_of(
        lambda: lam.create_event_source_mapping(
            EventSourceArn=missing, FunctionName=recorder.name, StartingPosition="LATEST"
        )
    )
    # Recorded against AWS (LocalStack's test_esm_with_not_existing_dynamodb_stream).
    assert (code, message) == ("InvalidParameterValueException", f"Stream not found: {missing}")
    code, _ = error_of(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=recorder.name))
    assert code == "InvalidParameterValueException"
    code, _ = error_of(
        lambda: lam.create_event_source_mapping(
            EventSourceArn=arn,
            FunctionName=recorder.name,
            StartingPosition="AT_TIMESTAMP",
            StartingPositionTimestamp=time.time(),
        )
    )
    assert code == "InvalidParameterValueException"
    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=recorder.name, StartingPosition="LATEST")
    code, message = error_of(
        lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=recorder.name, StartingPosition="LATEST")
    )
    assert code == "ResourceConflictException" and created["UUID"] in message
    lam.delete_event_source_mapping(UUID=created["UUID"])


def test_filters_match_the_stream_record(clients, recorder):
    lam, ddb, _ = clients
    name, arn = table(ddb)
    pattern = {"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"v": {"S": [{"prefix": "keep"}]}}}}
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=recorder.name,
        StartingPosition="TRIM_HORIZON",
        FilterCriteria={"Filters": [{"Pattern": json.dumps(pattern)}]},
    )
    assert json.loads(mapping["FilterCriteria"]["Filters"][0]["Pattern"]) == pattern
    put(ddb, name, "a", "drop-me")
    put(ddb, name, "b", "keep-1")
    ddb.delete_item(TableName=name, Key={"k": {"S": "b"}})
    put(ddb, name, "c", "keep-2")
    recorder.wait_for(lambda calls: ("INSERT", "c", "keep-2") in recorder.changes())
    assert recorder.changes() == [("INSERT", "b", "keep-1"), ("INSERT", "c", "keep-2")]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_a_failing_batch_is_reported_with_the_dynamodb_batch_info(server, clients, recorder):
    lam, ddb, sqs = clients
    name, arn = table(ddb, view="NEW_IMAGE")
    url = sqs.create_queue(QueueName=f"ddb-dlq-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    put(ddb, name, "x", "crash")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=recorder.name,
        StartingPosition="TRIM_HORIZON",
        MaximumRetryAttempts=1,
        DestinationConfig={"OnFailure": {"Destination": queue_arn}},
    )
    # The retry waits on the manual clock.
    recorder.wait_for(lambda calls: len(calls) >= 2, tick=lambda: server.advance(1))
    got = []
    deadline = time.time() + 30
    while not got and time.time() < deadline:
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", [])
    record = json.loads(got[0]["Body"])
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 2
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    info = record["DDBStreamBatchInfo"]
    assert info["streamArn"] == arn and info["batchSize"] == 1
    assert info["startSequenceNumber"] == info["endSequenceNumber"]
    assert info["shardId"].startswith("shardId-")
    # Arrival times to the second, as AWS writes them for DynamoDB.
    assert info["approximateArrivalOfFirstRecord"].endswith("Z") and "." not in info["approximateArrivalOfFirstRecord"]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_parallel_batches_keep_each_items_changes_in_order(clients, recorder):
    lam, ddb, _ = clients
    name, arn = table(ddb, view="NEW_IMAGE")
    for round in range(4):
        for key in "abcdef":
            put(ddb, name, key, str(round))
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=recorder.name,
        StartingPosition="TRIM_HORIZON",
        BatchSize=2,
        ParallelizationFactor=3,
    )
    assert mapping["ParallelizationFactor"] == 3
    recorder.wait_for(lambda calls: len(recorder.changes()) >= 24)
    changes = recorder.changes()
    assert len(changes) == 24
    for key in "abcdef":
        assert [v for _, k, v in changes if k == key] == ["0", "1", "2", "3"]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_a_tumbling_window_carries_state_to_its_final_invocation(server, clients, recorder):
    lam, ddb, _ = clients
    name, arn = table(ddb, view="NEW_IMAGE")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=recorder.name,
        StartingPosition="TRIM_HORIZON",
        BatchSize=1,
        TumblingWindowInSeconds=60,
    )
    assert mapping["TumblingWindowInSeconds"] == 60
    put(ddb, name, "a", "1")
    put(ddb, name, "b", "2")
    recorder.wait_for(lambda calls: len(calls) >= 2)
    first, second = recorder.calls()[:2]
    assert first["window"] == second["window"] and first["window"]["start"] < first["window"]["end"]
    assert first["state"] == {} and second["state"] == {"count": 1}
    assert first["shardId"] == second["shardId"] and first["eventSourceARN"] == arn
    assert first["isFinalInvokeForWindow"] is False and first["isWindowTerminatedEarly"] is False
    server.advance(61)
    final = recorder.wait_for(lambda calls: len(calls) >= 3, tick=lambda: server.advance(1))[2]
    assert final["isFinalInvokeForWindow"] is True and final["Records"] == []
    assert final["state"] == {"count": 2} and final["window"] == first["window"]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_put_item_to_function_start_latency(clients, recorder):
    """PutItem to the function's start, p50 over 30 writes one at a time (printed; the figure
    is recorded in docs/performance.md). The recorder names each event's file by its start."""
    lam, ddb, _ = clients
    name, arn = table(ddb, view="NEW_IMAGE")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn, FunctionName=recorder.name, StartingPosition="LATEST", BatchSize=1
    )
    time.sleep(0.5)  # the poller's LATEST position is taken before the first write
    put(ddb, name, "warm", "0")
    recorder.wait_for(lambda calls: len(calls) == 1)
    latencies = []
    for i in range(30):
        sent = time.time()
        put(ddb, name, f"k{i}", str(i))
        recorder.wait_for(lambda calls, n=i + 2: len(calls) == n)
        started = max(float(n.split("-")[0]) for n in os.listdir(recorder.out) if n.endswith(".json"))
        latencies.append(started - sent)
    latencies.sort()
    p50 = latencies[len(latencies) // 2] * 1000
    print(f"PutItem to function start: p50 {p50:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    assert p50 < 1000
    lam.delete_event_source_mapping(UUID=mapping["UUID"])
