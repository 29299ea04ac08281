"""DynamoDB Streams and time to live through boto3 against the real binary.

Behaviour follows the DynamoDB Streams API reference (GetShardIterator, GetRecords,
DescribeStream, ListStreams) and the developer guide's TTL pages; messages with no AWS
recording follow DynamoDB Local (LocalAmazonDynamoDBStreams)."""

import os
import re
import time
import uuid
from datetime import datetime

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

# The TTL sweeper's default interval, in seconds.
TTL_INTERVAL = 30


def start(*args):
    """A server on a manual clock, which the TTL tests move instead of waiting."""
    return Stratus("--clock", "manual", *args)


@pytest.fixture(scope="module")
def server():
    s = start("--ephemeral")
    yield s
    s.stop()


@pytest.fixture
def ddb(server):
    return server.client("dynamodb")


@pytest.fixture
def streams(server):
    return server.client("dynamodbstreams")


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def refused(call, code, message=None, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    error = err.value.response["Error"]
    assert error["Code"] == code, error
    if message is not None:
        assert error["Message"] == message, error
    return error


def create(ddb, view_type="NEW_AND_OLD_IMAGES", range_key=False, **extra):
    table = f"s-{uuid.uuid4().hex[:10]}"
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": "sk", "AttributeType": "N"})
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
    attrs += extra.pop("extra_attrs", [])
    spec = {"StreamEnabled": True, "StreamViewType": view_type} if view_type else {"StreamEnabled": False}
    out = ddb.create_table(
        TableName=table,
        AttributeDefinitions=attrs,
        KeySchema=schema,
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification=spec,
        **extra,
    )["TableDescription"]
    return table, out.get("LatestStreamArn")


def shard_of(streams, arn):
    [shard] = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    return shard


def iterator(streams, arn, kind="TRIM_HORIZON", **extra):
    shard = shard_of(streams, arn)
    return streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=kind, **extra
    )["ShardIterator"]


def read_all(streams, it, limit=None):
    """Every record from `it` on, following NextShardIterator until a page comes back empty
    (an open shard) or the iterator ends (a closed one); returns the records and the last
    response."""
    records = []
    while True:
        out = streams.get_records(ShardIterator=it, **({"Limit": limit} if limit else {}))
        records += out["Records"]
        if not out["Records"] or "NextShardIterator" not in out:
            return records, out
        it = out["NextShardIterator"]


def events(records):
    return [r["eventName"] for r in records]


# ---- ListStreams and DescribeStream ----


def test_list_and_describe_an_enabled_stream(ddb, streams):
    table, arn = create(ddb, range_key=True)
    assert re.fullmatch(rf"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{table}/stream/\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}", arn)
    label = arn.rsplit("/", 1)[1]
    assert ddb.describe_table(TableName=table)["Table"]["LatestStreamLabel"] == label

    listed = streams.list_streams(TableName=table)
    assert listed["Streams"] == [{"StreamArn": arn, "TableName": table, "StreamLabel": label}]
    assert "LastEvaluatedStreamArn" not in listed

    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamArn"] == arn
    assert desc["StreamLabel"] == label
    assert desc["StreamStatus"] == "ENABLED"
    assert desc["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert desc["TableName"] == table
    assert desc["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert isinstance(desc["CreationRequestDateTime"], datetime)
    [shard] = desc["Shards"]
    # AWS's shape: shardId-<20 digits>-<8 hex>; sequence numbers are 21+ digit strings.
    assert re.fullmatch(r"shardId-\d{20}-[0-9a-f]{8}", shard["ShardId"]), shard
    assert re.fullmatch(r"\d{21}", shard["SequenceNumberRange"]["StartingSequenceNumber"])
    assert "EndingSequenceNumber" not in shard["SequenceNumberRange"]
    # One shard, without children: a page after it is empty.
    after = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=shard["ShardId"])
    assert after["StreamDescription"]["Shards"] == []


def test_list_streams_pages_in_arn_order(server):
    # A region of its own, so other tests' streams do not interfere.
    ddb = server.client("dynamodb", region="eu-west-3")
    streams = server.client("dynamodbstreams", region="eu-west-3")
    arns = sorted(create(ddb)[1] for _ in range(3))
    create(ddb, view_type=None)  # no stream, not listed
    first = streams.list_streams(Limit=2)
    assert [s["StreamArn"] for s in first["Streams"]] == arns[:2]
    assert first["LastEvaluatedStreamArn"] == arns[1]
    rest = streams.list_streams(Limit=2, ExclusiveStartStreamArn=first["LastEvaluatedStreamArn"])
    assert [s["StreamArn"] for s in rest["Streams"]] == arns[2:]
    assert "LastEvaluatedStreamArn" not in rest
    assert streams.list_streams(TableName="no-such-table")["Streams"] == []
    # Streams belong to their region.
    assert all(s["StreamArn"] not in arns for s in server.client("dynamodbstreams").list_streams()["Streams"])


# ---- records ----


def test_records_from_every_write_path(ddb, streams):
    table, arn = create(ddb)
    k = lambda v: {"pk": S(v)}  # noqa: E731
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(1)})
    ddb.update_item(TableName=table, Key=k("a"), UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": N(2)})
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(2)})  # no change: no record
    ddb.delete_item(TableName=table, Key=k("a"))
    ddb.delete_item(TableName=table, Key=k("never"))  # nothing deleted: no record
    ddb.batch_write_item(
        RequestItems={
            table: [
                {"PutRequest": {"Item": {"pk": S("b"), "v": N(1)}}},
                {"PutRequest": {"Item": {"pk": S("c"), "v": N(1)}}},
            ]
        }
    )
    ddb.batch_write_item(RequestItems={table: [{"DeleteRequest": {"Key": k("c")}}]})
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": S("d"), "v": N(1)}}},
            {
                "Update": {
                    "TableName": table,
                    "Key": k("b"),
                    "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": N(5)},
                }
            },
            {"Delete": {"TableName": table, "Key": k("nothing")}},
        ]
    )
    records, _ = read_all(streams, iterator(streams, arn))
    assert events(records) == ["INSERT", "MODIFY", "REMOVE", "INSERT", "INSERT", "REMOVE", "INSERT", "MODIFY"]
    assert [r["dynamodb"]["Keys"] for r in records] == [k(x) for x in "aaabccdb"]
    first = records[0]
    assert first["eventVersion"] == "1.1"
    assert first["eventSource"] == "aws:dynamodb"
    assert first["awsRegion"] == "us-east-1"
    assert re.fullmatch(r"[0-9a-f]{32}", first["eventID"])
    assert "userIdentity" not in first
    record = records[1]["dynamodb"]
    assert record["OldImage"] == {"pk": S("a"), "v": N(1)}
    assert record["NewImage"] == {"pk": S("a"), "v": N(2)}
    assert record["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    # SizeBytes counts keys and images as item sizes do: "pk"+"a" three times, "v"+1 twice.
    assert record["SizeBytes"] == 3 * 3 + 2 * (1 + 2)
    assert isinstance(record["ApproximateCreationDateTime"], datetime)
    sequences = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert all(re.fullmatch(r"\d{21}", s) for s in sequences)
    assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences)
    assert len({r["eventID"] for r in records}) == len(records)


@pytest.mark.parametrize(
    "view_type, old, new",
    [
        ("NEW_IMAGE", False, True),
        ("OLD_IMAGE", True, False),
        ("NEW_AND_OLD_IMAGES", True, True),
        ("KEYS_ONLY", False, False),
    ],
)
def test_view_types(ddb, streams, view_type, old, new):
    table, arn = create(ddb, view_type=view_type)
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamViewType"] == view_type
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(1)})
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(2)})
    ddb.delete_item(TableName=table, Key={"pk": S("a")})
    records, _ = read_all(streams, iterator(streams, arn))
    assert events(records) == ["INSERT", "MODIFY", "REMOVE"]
    for record, has_old, has_new in zip(records, [False, old, old], [new, new, False]):
        data = record["dynamodb"]
        assert data["StreamViewType"] == view_type
        assert data["Keys"] == {"pk": S("a")}
        assert ("OldImage" in data) == has_old, data
        assert ("NewImage" in data) == has_new, data
    if new:
        assert records[1]["dynamodb"]["NewImage"] == {"pk": S("a"), "v": N(2)}
    if old:
        assert records[2]["dynamodb"]["OldImage"] == {"pk": S("a"), "v": N(2)}


def test_every_iterator_type(ddb, streams):
    table, arn = create(ddb, view_type="KEYS_ONLY")
    latest_before = iterator(streams, arn, "LATEST")
    for key in "abc":
        ddb.put_item(TableName=table, Item={"pk": S(key)})
    keys = lambda records: [r["dynamodb"]["Keys"]["pk"]["S"] for r in records]  # noqa: E731

    all_records, _ = read_all(streams, iterator(streams, arn, "TRIM_HORIZON"))
    assert keys(all_records) == ["a", "b", "c"]
    second = all_records[1]["dynamodb"]["SequenceNumber"]

    at = iterator(streams, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=second)
    assert keys(read_all(streams, at)[0]) == ["b", "c"]
    after = iterator(streams, arn, "AFTER_SEQUENCE_NUMBER", SequenceNumber=second)
    assert keys(read_all(streams, after)[0]) == ["c"]

    # LATEST taken before the writes sees them; taken now, only what comes next.
    assert keys(read_all(streams, latest_before)[0]) == ["a", "b", "c"]
    latest = iterator(streams, arn, "LATEST")
    out = streams.get_records(ShardIterator=latest)
    assert out["Records"] == [] and "NextShardIterator" in out
    ddb.put_item(TableName=table, Item={"pk": S("d")})
    assert keys(streams.get_records(ShardIterator=out["NextShardIterator"])["Records"]) == ["d"]

    # Limit pages through the shard, one record at a time.
    it = iterator(streams, arn)
    seen = []
    for _ in range(4):
        out = streams.get_records(ShardIterator=it, Limit=1)
        assert len(out["Records"]) == 1
        seen += keys(out["Records"])
        it = out["NextShardIterator"]
    assert seen == ["a", "b", "c", "d"]
    assert streams.get_records(ShardIterator=it)["Records"] == []
    # An iterator can be used again: it is a position, not a cursor.
    assert keys(streams.get_records(ShardIterator=at)["Records"]) == ["b", "c", "d"]


def test_disabled_stream_stays_readable_and_its_shard_closes(ddb, streams):
    table, arn = create(ddb, view_type="NEW_IMAGE")
    ddb.put_item(TableName=table, Item={"pk": S("a")})
    ddb.put_item(TableName=table, Item={"pk": S("b")})
    open_iterator = iterator(streams, arn)
    out = ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    ddb.put_item(TableName=table, Item={"pk": S("c")})  # not recorded: no stream

    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED"
    [shard] = desc["Shards"]
    records, last = read_all(streams, iterator(streams, arn))
    assert events(records) == ["INSERT", "INSERT"]
    assert shard["SequenceNumberRange"]["EndingSequenceNumber"] == records[-1]["dynamodb"]["SequenceNumber"]
    # A closed shard's reader gets no NextShardIterator once it has read everything.
    assert "NextShardIterator" not in last
    assert len(read_all(streams, open_iterator)[0]) == 2
    out = streams.get_records(ShardIterator=iterator(streams, arn, "LATEST"))
    assert out["Records"] == [] and "NextShardIterator" not in out
    # The shard ends at its last record.
    beyond = str(int(records[-1]["dynamodb"]["SequenceNumber"]) + 1).zfill(21)
    refused(
        streams.get_shard_iterator,
        "ValidationException",
        "Invalid SequenceNumber for the shard",
        StreamArn=arn,
        ShardId=shard["ShardId"],
        ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber=beyond,
    )

    # Enabling again makes a new stream; the old one is still listed, disabled.
    out = ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    new_arn = out["TableDescription"]["LatestStreamArn"]
    assert new_arn != arn
    listed = {s["StreamArn"] for s in streams.list_streams(TableName=table)["Streams"]}
    assert listed == {arn, new_arn}
    assert streams.describe_stream(StreamArn=new_arn)["StreamDescription"]["StreamStatus"] == "ENABLED"
    ddb.put_item(TableName=table, Item={"pk": S("d")})
    assert events(read_all(streams, iterator(streams, new_arn))[0]) == ["INSERT"]
    assert len(read_all(streams, iterator(streams, arn))[0]) == 2


def test_deleted_tables_stream_is_disabled_and_readable(ddb, streams):
    table, arn = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("a")})
    ddb.delete_table(TableName=table)
    desc = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert desc["StreamStatus"] == "DISABLED"
    assert events(read_all(streams, iterator(streams, arn))[0]) == ["INSERT"]
    # A new table of the same name starts a stream of its own.
    _, again = create_named(ddb, table)
    assert again != arn
    assert read_all(streams, iterator(streams, again))[0] == []
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "DISABLED"


def create_named(ddb, table):
    out = ddb.create_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    return table, out["TableDescription"]["LatestStreamArn"]


# ---- refusals ----


def test_refusals(ddb, streams):
    table, arn = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("a")})
    shard = shard_of(streams, arn)["ShardId"]
    missing = arn.replace(table, "no-such-table")
    message = f"Requested resource not found: Stream: {missing} not found"
    refused(streams.describe_stream, "ResourceNotFoundException", message, StreamArn=missing)
    refused(
        streams.get_shard_iterator,
        "ResourceNotFoundException",
        message,
        StreamArn=missing,
        ShardId=shard,
        ShardIteratorType="TRIM_HORIZON",
    )
    refused(
        streams.get_shard_iterator,
        "ResourceNotFoundException",
        StreamArn=arn,
        ShardId="shardId-00000001700000000000-abcdef12",
        ShardIteratorType="TRIM_HORIZON",
    )
    # The sequence-number types need one; the others refuse one.
    for kind in ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"]:
        refused(streams.get_shard_iterator, "ValidationException", StreamArn=arn, ShardId=shard, ShardIteratorType=kind)
    refused(
        streams.get_shard_iterator,
        "ValidationException",
        StreamArn=arn,
        ShardId=shard,
        ShardIteratorType="LATEST",
        SequenceNumber="0" * 21,
    )
    refused(
        streams.get_shard_iterator,
        "ValidationException",
        StreamArn=arn,
        ShardId=shard,
        ShardIteratorType="SOMEWHERE",
    )
    # The model's constraints: sequence numbers are 21 to 40 characters.
    refused(
        streams.get_shard_iterator,
        "ValidationException",
        StreamArn=arn,
        ShardId=shard,
        ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber="1",
    )
    refused(
        streams.get_shard_iterator,
        "ValidationException",
        "Invalid SequenceNumber for the shard",
        StreamArn=arn,
        ShardId=shard,
        ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber="x" * 21,
    )
    # Garbage, and edited, iterators are AWS's ValidationException, never a fault.
    good = iterator(streams, arn)
    for garbage in ["garbage", good[:-6] + "AAAAAA", good.replace(table, table[:-1] + "x"), "|1|" + "A" * 40]:
        refused(streams.get_records, "ValidationException", "Invalid ShardIterator", ShardIterator=garbage)
    refused(
        streams.get_records,
        "ValidationException",
        "One or more parameter values were invalid: Limit should be less than or equal to 1000",
        ShardIterator=good,
        Limit=1001,
    )
    refused(streams.get_records, "ValidationException", ShardIterator=good, Limit=0)
    assert len(streams.get_records(ShardIterator=good, Limit=1000)["Records"]) == 1


# ---- time to live ----


def wait_for(check, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_ttl_deletes_expired_items_as_the_service(server, ddb, streams):
    table, arn = create(
        ddb,
        extra_attrs=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}
        ],
    )
    now = int(server.now())
    items = {
        "expired": {"pk": S("expired"), "g": S("x"), "exp": N(now - 60)},
        "future": {"pk": S("future"), "g": S("x"), "exp": N(now + 3600)},
        "string": {"pk": S("string"), "g": S("x"), "exp": S(str(now - 60))},
        # More than five years in the past: AWS's TTL ignores it (developer guide, "Computing TTL").
        "ancient": {"pk": S("ancient"), "g": S("x"), "exp": N(now - 6 * 366 * 86400)},
        "none": {"pk": S("none"), "g": S("x")},
    }
    for item in items.values():
        ddb.put_item(TableName=table, Item=item)
    # Nothing happens before TTL is enabled.
    server.advance(2 * TTL_INTERVAL)
    assert ddb.scan(TableName=table)["Count"] == 5
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    server.advance(TTL_INTERVAL - 1)
    assert ddb.scan(TableName=table)["Count"] == 5, "not swept before the interval"

    server.advance(1)
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": S("expired")})
    server.advance(3 * TTL_INTERVAL)  # a few more sweeps change nothing else
    left = sorted(i["pk"]["S"] for i in ddb.scan(TableName=table)["Items"])
    assert left == ["ancient", "future", "none", "string"]
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 4
    index = ddb.query(TableName=table, IndexName="gsi", KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": S("x")})
    assert index["Count"] == 4

    records, _ = read_all(streams, iterator(streams, arn))
    removal = records[-1]
    assert removal["eventName"] == "REMOVE"
    assert removal["dynamodb"]["Keys"] == {"pk": S("expired")}
    assert removal["dynamodb"]["OldImage"] == items["expired"]
    assert removal["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
    assert all("userIdentity" not in r for r in records[:-1])

    # Disabled again, expiry stops.
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={"Enabled": False, "AttributeName": "exp"})
    ddb.put_item(TableName=table, Item={"pk": S("late"), "exp": N(now - 60)})
    server.advance(2 * TTL_INTERVAL)
    assert "Item" in ddb.get_item(TableName=table, Key={"pk": S("late")})


def test_ttl_resumes_after_a_restart(tmp_path):
    table = f"ttl-{uuid.uuid4().hex[:8]}"
    server = start("--data-dir", str(tmp_path))
    try:
        ddb = server.client("dynamodb")
        ddb.create_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
        ddb.put_item(TableName=table, Item={"pk": S("soon"), "exp": N(int(server.now()) + 60)})
    finally:
        server.stop()
    server = start("--data-dir", str(tmp_path))
    try:
        ddb = server.client("dynamodb")
        # No DynamoDB request needed: the stored TTL setting restarts the sweeper (found by a
        # look at the stored tables that runs beside startup, hence the repeated moves).
        assert wait_for(lambda: server.advance(TTL_INTERVAL) and ddb.scan(TableName=table)["Count"] == 0)
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_the_sweeper_runs_only_while_some_table_has_ttl():
    server = start("--ephemeral")
    try:
        ddb = server.client("dynamodb")
        table = f"ttl-{uuid.uuid4().hex[:8]}"
        ddb.create_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        assert "scheduler" not in server.thread_names()
        spec = {"Enabled": True, "AttributeName": "exp"}
        ddb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec)
        # (A new thread names itself once it runs.)
        assert wait_for(lambda: "scheduler" in server.thread_names(), timeout=5)
        ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={**spec, "Enabled": False})
        # The next sweep finds no TTL-enabled table: the sweep stops, and with nothing else to
        # time the scheduler's thread ends.
        server.advance(TTL_INTERVAL)
        assert wait_for(lambda: "scheduler" not in server.thread_names(), timeout=5)
    finally:
        server.stop()
