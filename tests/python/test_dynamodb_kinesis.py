"""DynamoDB's Kinesis streaming destinations against the real binary: Enable, Describe,
Update and Disable with AWS's answers and refusals (as recorded against AWS), and item changes
arriving in the Kinesis stream as AWS's JSON records, read back with GetRecords."""

import json
import time
import uuid

import pytest
from conftest import Stratus

from test_lambda_esm import ACCOUNT, REGION, error_of


@pytest.fixture(scope="module")
def server():
    server = Stratus("--ephemeral")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def clients(server):
    return server.client("dynamodb"), server.client("kinesis")


def table_and_stream(ddb, kinesis):
    table = f"t-{uuid.uuid4().hex[:8]}"
    ddb.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    stream = f"s-{uuid.uuid4().hex[:8]}"
    kinesis.create_stream(StreamName=stream, ShardCount=1)
    return table, f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{stream}"


def records(kinesis, stream_arn, count, timeout=15):
    iterator = kinesis.get_shard_iterator(
        StreamARN=stream_arn, ShardId="shardId-000000000000", ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    got = []
    deadline = time.time() + timeout
    while len(got) < count and time.time() < deadline:
        page = kinesis.get_records(ShardIterator=iterator, StreamARN=stream_arn)
        got += [json.loads(r["Data"]) for r in page["Records"]]
        iterator = page["NextShardIterator"]
        time.sleep(0.05)
    return got


def test_the_destination_lifecycle_answers_as_aws(clients):
    ddb, kinesis = clients
    table, stream_arn = table_and_stream(ddb, kinesis)
    code, message = error_of(lambda: ddb.enable_kinesis_streaming_destination(TableName="bad-table", StreamArn=stream_arn))
    assert (code, message) == ("ResourceNotFoundException", "Requested resource not found: Table: bad-table not found")
    enabled = ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn)
    assert enabled["DestinationStatus"] == "ENABLING" and enabled["EnableKinesisStreamingConfiguration"] == {}
    assert (enabled["TableName"], enabled["StreamArn"]) == (table, stream_arn)
    described = ddb.describe_kinesis_streaming_destination(TableName=table)
    assert described["KinesisDataStreamDestinations"] == [{"StreamArn": stream_arn, "DestinationStatus": "ACTIVE"}]

    code, message = error_of(lambda: ddb.update_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn))
    assert code == "ValidationException" and "cannot be null or contain only null values" in message
    bad = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/bad-stream"
    code, message = error_of(
        lambda: ddb.update_kinesis_streaming_destination(
            TableName=table,
            StreamArn=bad,
            UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"},
        )
    )
    assert code == "ValidationException" and f"No streaming destination with streamArn: {bad}" in message
    update = {"ApproximateCreationDateTimePrecision": "MICROSECOND"}
    updated = ddb.update_kinesis_streaming_destination(
        TableName=table, StreamArn=stream_arn, UpdateKinesisStreamingConfiguration=update
    )
    assert updated["DestinationStatus"] == "UPDATING" and updated["UpdateKinesisStreamingConfiguration"] == update
    code, message = error_of(
        lambda: ddb.update_kinesis_streaming_destination(
            TableName=table, StreamArn=stream_arn, UpdateKinesisStreamingConfiguration=update
        )
    )
    assert code == "ValidationException" and "Precision is already set to the desired value of MICROSECOND" in message

    code, _ = error_of(lambda: ddb.disable_kinesis_streaming_destination(TableName="bad-table", StreamArn=stream_arn))
    assert code == "ResourceNotFoundException"
    disabled = ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn)
    assert disabled["DestinationStatus"] == "DISABLING"
    [destination] = ddb.describe_kinesis_streaming_destination(TableName=table)["KinesisDataStreamDestinations"]
    assert destination["DestinationStatus"] == "DISABLED"


def test_a_missing_stream_is_refused(clients):
    ddb, kinesis = clients
    table, _ = table_and_stream(ddb, kinesis)
    missing = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/nope"
    code, _ = error_of(lambda: ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=missing))
    assert code == "ResourceNotFoundException"
    assert ddb.describe_kinesis_streaming_destination(TableName=table)["KinesisDataStreamDestinations"] == []


def test_item_changes_arrive_as_aws_kinesis_records(clients):
    ddb, kinesis = clients
    table, stream_arn = table_and_stream(ddb, kinesis)
    ddb.put_item(TableName=table, Item={"k": {"S": "before"}})
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn)
    ddb.put_item(TableName=table, Item={"k": {"S": "a"}, "n": {"N": "1"}})
    ddb.update_item(
        TableName=table,
        Key={"k": {"S": "a"}},
        UpdateExpression="SET n = :two",
        ExpressionAttributeValues={":two": {"N": "2"}},
    )
    ddb.delete_item(TableName=table, Key={"k": {"S": "a"}})
    got = records(kinesis, stream_arn, 3)
    assert [r["eventName"] for r in got] == ["INSERT", "MODIFY", "REMOVE"]
    insert, modify, remove = got
    # DynamoDB's guide, "Kinesis Data Streams record format".
    assert insert["tableName"] == table and insert["awsRegion"] == REGION
    assert insert["eventSource"] == "aws:dynamodb" and insert["recordFormat"] == "application/json"
    assert insert["userIdentity"] is None and uuid.UUID(insert["eventID"])
    assert insert["dynamodb"]["Keys"] == {"k": {"S": "a"}}
    assert insert["dynamodb"]["NewImage"] == {"k": {"S": "a"}, "n": {"N": "1"}}
    assert "OldImage" not in insert["dynamodb"]
    assert insert["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MILLISECOND"
    assert abs(insert["dynamodb"]["ApproximateCreationDateTime"] / 1000 - time.time()) < 60
    assert insert["dynamodb"]["SizeBytes"] > 0
    assert modify["dynamodb"]["OldImage"]["n"] == {"N": "1"} and modify["dynamodb"]["NewImage"]["n"] == {"N": "2"}
    assert remove["dynamodb"]["OldImage"]["k"] == {"S": "a"} and "NewImage" not in remove["dynamodb"]

    ddb.update_kinesis_streaming_destination(
        TableName=table,
        StreamArn=stream_arn,
        UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"},
    )
    ddb.put_item(TableName=table, Item={"k": {"S": "micro"}})
    micro = records(kinesis, stream_arn, 4)[3]
    assert micro["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MICROSECOND"
    assert abs(micro["dynamodb"]["ApproximateCreationDateTime"] / 1_000_000 - time.time()) < 60

    ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn)
    ddb.put_item(TableName=table, Item={"k": {"S": "after"}})
    time.sleep(0.5)  # a running forwarder sends within milliseconds
    assert len(records(kinesis, stream_arn, 5, timeout=1)) == 4


def test_pending_changes_are_sent_after_a_restart(tmp_path):
    server = Stratus("--data-dir", str(tmp_path / "data"))
    try:
        ddb, kinesis = server.client("dynamodb"), server.client("kinesis")
        table, stream_arn = table_and_stream(ddb, kinesis)
        ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn)
        ddb.put_item(TableName=table, Item={"k": {"S": "one"}})
        assert len(records(kinesis, stream_arn, 1)) == 1
    finally:
        server.stop()
    server = Stratus("--data-dir", str(tmp_path / "data"))
    try:
        ddb, kinesis = server.client("dynamodb"), server.client("kinesis")
        ddb.put_item(TableName=table, Item={"k": {"S": "two"}})
        got = records(kinesis, stream_arn, 2)
        # The forwarder resumed from its checkpoint: nothing sent twice, nothing skipped.
        assert [r["dynamodb"]["Keys"]["k"]["S"] for r in got] == ["one", "two"]
    finally:
        server.stop()
