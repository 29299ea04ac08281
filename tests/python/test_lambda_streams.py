"""Lambda event source mappings of Kinesis streams against the real binary: the mapping API
with a stream's settings and refusals, and records reaching a real Python function with AWS's
Kinesis event shape (checked against Powertools' published KinesisDataStreamModel), in shard
order; ReportBatchItemFailures retrying from the first failed record; a failing batch retried,
given up and reported to the OnFailure queue with AWS's record shape; bisection isolating a bad
record; and a restart of the binary in the middle of a stream resuming from the checkpoint.

The function writes each event it receives to a file of a directory named in its environment,
as in test_lambda_esm.py."""

import base64
import datetime
import json
import os
import shutil
import tempfile
import time
import uuid

import pytest
from aws_lambda_powertools.utilities.parser.models import KinesisDataStreamModel
from conftest import Stratus

from test_lambda_esm import ACCOUNT, REGION, TRUST, error_of, make_zip

# Records each event; fails as the records' data ask: "crash" fails the invocation, "fail…"
# is reported as a batch item failure.
RECORDER = """
import base64, json, os, time, uuid

def handler(event, context):
    path = os.path.join(os.environ["OUT_DIR"], f"{time.time():.6f}-{uuid.uuid4().hex}.json")
    # Written aside and renamed, so the test never reads a half-written event.
    with open(path + ".part", "w") as f:
        json.dump({"event": event}, f)
    os.replace(path + ".part", path)
    datas = [base64.b64decode(r["kinesis"]["data"]).decode() for r in event["Records"]]
    if "crash" in datas:
        raise RuntimeError("asked to crash")
    failed = [r["kinesis"]["sequenceNumber"] for r, d in zip(event["Records"], datas) if d.startswith("fail")]
    return {"batchItemFailures": [{"itemIdentifier": i} for i in failed]}
"""


class Recorder:
    """A function that records its events into `out`."""

    def __init__(self, lam, role, out):
        self.name = f"rec-{uuid.uuid4().hex[:8]}"
        self.out = out
        lam.create_function(
            FunctionName=self.name,
            Runtime="python3.12",
            Role=role,
            Handler="app.handler",
            Code={"ZipFile": make_zip(RECORDER)},
            Timeout=30,
            Environment={"Variables": {"OUT_DIR": str(out)}},
        )

    def calls(self):
        found = []
        for name in sorted(n for n in os.listdir(self.out) if n.endswith(".json")):
            with open(os.path.join(self.out, name)) as f:
                found.append(json.load(f)["event"])
        return found

    def batches(self):
        return [[base64.b64decode(r["kinesis"]["data"]).decode() for r in e["Records"]] for e in self.calls()]

    def datas(self):
        return [d for batch in self.batches() for d in batch]

    def wait_for(self, predicate, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate(self.batches()):
                return self.batches()
            time.sleep(0.05)
        raise AssertionError(f"not seen in time; batches: {self.batches()}")


@pytest.fixture(scope="module")
def clients(stratus):
    return stratus.client("lambda"), stratus.client("kinesis"), stratus.client("sqs")


@pytest.fixture(scope="module")
def role(stratus):
    return stratus.client("iam").create_role(RoleName="streams-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


@pytest.fixture
def out():
    path = tempfile.mkdtemp(prefix="stratus-streams-", dir="/var/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def stream(kinesis, shards=1):
    name = f"s-{uuid.uuid4().hex[:8]}"
    kinesis.create_stream(StreamName=name, ShardCount=shards)
    return name, f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{name}"


def put(kinesis, name, *datas, key="k"):
    for d in datas:
        kinesis.put_record(StreamName=name, Data=d.encode(), PartitionKey=key)


def received(sqs, url, count, timeout=30):
    got = []
    deadline = time.time() + timeout
    while len(got) < count and time.time() < deadline:
        for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", []):
            got.append(json.loads(m["Body"]))
    return got


def test_a_stream_mapping_answers_its_settings_and_refuses_what_aws_refuses(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    code, message = error_of(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=f.name))
    assert code == "InvalidParameterValueException" and "startingPosition" in message
    missing = arn + "-missing"
    code, _ = error_of(
        lambda: lam.create_event_source_mapping(EventSourceArn=missing, FunctionName=f.name, StartingPosition="LATEST")
    )
    assert code == "InvalidParameterValueException"
    created = lam.create_event_source_mapping(
        EventSourceArn=arn, FunctionName=f.name, StartingPosition="TRIM_HORIZON", MaximumRetryAttempts=3
    )
    assert created["State"] == "Creating"
    assert created["BatchSize"] == 100 and created["StartingPosition"] == "TRIM_HORIZON"
    assert created["MaximumRetryAttempts"] == 3 and created["MaximumRecordAgeInSeconds"] == -1
    assert created["BisectBatchOnFunctionError"] is False and created["ParallelizationFactor"] == 1
    assert created["DestinationConfig"] == {"OnFailure": {}}
    updated = lam.update_event_source_mapping(UUID=created["UUID"], BisectBatchOnFunctionError=True)
    assert updated["BisectBatchOnFunctionError"] is True
    code, _ = error_of(lambda: lam.update_event_source_mapping(UUID=created["UUID"], MaximumRecordAgeInSeconds=10))
    assert code == "InvalidParameterValueException"
    lam.delete_event_source_mapping(UUID=created["UUID"])


def test_records_reach_the_function_in_shard_order_with_the_kinesis_event_shape(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    put(kinesis, name, "before")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn, FunctionName=f.name, StartingPosition="TRIM_HORIZON", BatchSize=2
    )["UUID"]
    put(kinesis, name, *[f"r{i}" for i in range(5)])
    f.wait_for(lambda batches: sum(map(len, batches)) >= 6)
    assert f.datas() == ["before"] + [f"r{i}" for i in range(5)]
    assert all(len(b) <= 2 for b in f.batches())
    event = f.calls()[0]
    KinesisDataStreamModel(**event)
    record = event["Records"][0]
    assert record["eventSource"] == "aws:kinesis" and record["eventName"] == "aws:kinesis:record"
    assert record["eventSourceARN"] == arn and record["awsRegion"] == REGION
    assert record["invokeIdentityArn"] == role
    assert record["eventID"] == f"shardId-000000000000:{record['kinesis']['sequenceNumber']}"
    assert record["kinesis"]["partitionKey"] == "k" and record["kinesis"]["kinesisSchemaVersion"] == "1.0"
    lam.delete_event_source_mapping(UUID=mapping)


def test_latest_skips_what_was_there_before(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    put(kinesis, name, "old")
    mapping = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=f.name, StartingPosition="LATEST")
    time.sleep(1)
    put(kinesis, name, "new")
    f.wait_for(lambda batches: "new" in sum(batches, []))
    assert f.datas() == ["new"]
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_reported_failures_are_retried_from_the_first_failed_record(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    put(kinesis, name, "a", "fail-b", "c")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        FunctionResponseTypes=["ReportBatchItemFailures"],
        MaximumRetryAttempts=1,
    )["UUID"]
    batches = f.wait_for(lambda batches: len(batches) >= 2)
    assert batches[0] == ["a", "fail-b", "c"]
    assert batches[1] == ["fail-b", "c"]
    lam.delete_event_source_mapping(UUID=mapping)


def test_a_failing_batch_is_retried_then_reported_to_the_on_failure_queue(clients, role, out):
    lam, kinesis, sqs = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    url = sqs.create_queue(QueueName=f"dlq-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    put(kinesis, name, "crash", "x")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        MaximumRetryAttempts=2,
        DestinationConfig={"OnFailure": {"Destination": queue_arn}},
    )
    assert mapping["DestinationConfig"]["OnFailure"]["Destination"] == queue_arn
    [record] = received(sqs, url, 1)
    assert len(f.batches()) == 3
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 3
    assert record["requestContext"]["functionArn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{f.name}"
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert record["version"] == "1.0" and record["timestamp"].endswith("Z")
    info = record["KinesisBatchInfo"]
    assert info["shardId"] == "shardId-000000000000" and info["batchSize"] == 2 and info["streamArn"] == arn
    assert info["startSequenceNumber"] < info["endSequenceNumber"]
    # The shard reads on past the batch given up.
    put(kinesis, name, "after")
    f.wait_for(lambda batches: ["after"] in batches)
    lam.delete_event_source_mapping(UUID=mapping["UUID"])


def test_a_batch_given_up_is_written_to_an_s3_on_failure_destination_with_its_event(stratus, clients, role, out):
    """Lambda's guide: an S3 destination gets the invocation's event (`payload`) with the
    record, at `aws/lambda/<mapping>/<shard>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid>`."""
    lam, kinesis, _ = clients
    s3 = stratus.client("s3")
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    bucket = f"failures-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    put(kinesis, name, "crash")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        MaximumRetryAttempts=0,
        DestinationConfig={"OnFailure": {"Destination": f"arn:aws:s3:::{bucket}"}},
    )["UUID"]
    deadline = time.time() + 30
    while not (objects := s3.list_objects_v2(Bucket=bucket).get("Contents")) and time.time() < deadline:
        time.sleep(0.1)
    [listed] = objects
    record = json.loads(s3.get_object(Bucket=bucket, Key=listed["Key"])["Body"].read())
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["KinesisBatchInfo"]["shardId"] == "shardId-000000000000"
    [event_record] = record["payload"]["Records"]
    assert base64.b64decode(event_record["kinesis"]["data"]) == b"crash"
    at = datetime.datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
    prefix = f"aws/lambda/{mapping}/shardId-000000000000/{at:%Y/%m/%d}/{at:%Y-%m-%dT%H.%M.%S}-"
    assert listed["Key"].startswith(prefix), listed["Key"]
    lam.delete_event_source_mapping(UUID=mapping)


def test_bisection_isolates_the_bad_record(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    put(kinesis, name, "a", "b", "crash", "d")
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        BisectBatchOnFunctionError=True,
        MaximumRetryAttempts=0,
    )["UUID"]
    f.wait_for(lambda batches: ["d"] in batches)
    batches = f.batches()
    assert batches[0] == ["a", "b", "crash", "d"]
    assert ["a", "b"] in batches and ["crash"] in batches and batches[-1] == ["d"]
    lam.delete_event_source_mapping(UUID=mapping)


def test_a_restart_resumes_from_the_checkpoint(tmp_path, out):
    server = Stratus("--data-dir", str(tmp_path / "data"))
    try:
        lam, kinesis = server.client("lambda"), server.client("kinesis")
        role = server.client("iam").create_role(RoleName="r", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
        f = Recorder(lam, role, out)
        name, arn = stream(kinesis)
        put(kinesis, name, "one")
        lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=f.name, StartingPosition="TRIM_HORIZON")
        f.wait_for(lambda batches: "one" in sum(batches, []))
        # "two" is read only after "one"'s checkpoint is stored.
        put(kinesis, name, "two")
        f.wait_for(lambda batches: "two" in sum(batches, []))
    finally:
        server.stop()
    put_while_down = Stratus("--data-dir", str(tmp_path / "data"))
    try:
        kinesis = put_while_down.client("kinesis")
        put(kinesis, name, "three")
        f.wait_for(lambda batches: "three" in sum(batches, []))
        time.sleep(0.5)
        datas = f.datas()
        # The batch in flight when the server stopped may come again (at least once, as on
        # AWS); the one checkpointed before it does not.
        assert datas.count("one") == 1 and datas[-1] == "three" and set(datas) == {"one", "two", "three"}, datas
    finally:
        put_while_down.stop()


def test_the_batching_window_gathers_records_put_one_by_one(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        BatchSize=3,
        MaximumBatchingWindowInSeconds=5,
    )["UUID"]
    for d in ["a", "b", "c"]:
        put(kinesis, name, d)
        time.sleep(0.3)
    assert f.wait_for(lambda batches: len(batches) >= 1) == [["a", "b", "c"]]
    lam.delete_event_source_mapping(UUID=mapping)


def test_filters_match_the_decoded_data_of_kinesis_records(clients, role, out):
    lam, kinesis, _ = clients
    f = Recorder(lam, role, out)
    name, arn = stream(kinesis)
    # Lambda's guide, "Filtering Kinesis": a pattern on `data` sees the JSON the record holds.
    pattern = {"data": {"kind": ["order"]}}
    mapping = lam.create_event_source_mapping(
        EventSourceArn=arn,
        FunctionName=f.name,
        StartingPosition="TRIM_HORIZON",
        FilterCriteria={"Filters": [{"Pattern": json.dumps(pattern)}]},
    )["UUID"]
    put(kinesis, name, '{"kind": "ping"}', "not json", '{"kind": "order", "n": 1}')
    f.wait_for(lambda batches: any('"order"' in d for b in batches for d in b))
    assert f.datas() == ['{"kind": "order", "n": 1}']
    lam.delete_event_source_mapping(UUID=mapping)
