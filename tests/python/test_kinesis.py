"""Kinesis Data Streams against the real binary: streams by name and ARN, hash-key routing,
sequence numbers, the five iterator types and their expiry on a driven clock, retention,
resharding read in order across parents and children, consumers and SubscribeToShard's
event stream, tags, policies, encryption through KMS, the AWS CLI, and records surviving
kill -9."""

import datetime
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import uuid

import cbor2
import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
SPACE = 2**128


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def kinesis(stratus):
    return stratus.client("kinesis")


def name(prefix="s"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]


def stream(kinesis, shards=1):
    n = name()
    kinesis.create_stream(StreamName=n, ShardCount=shards)
    return n


def arn_of(n):
    return f"arn:aws:kinesis:us-east-1:{ACCOUNT}:stream/{n}"


def iterator(kinesis, n, shard="shardId-000000000000", kind="TRIM_HORIZON", **extra):
    return kinesis.get_shard_iterator(StreamName=n, ShardId=shard, ShardIteratorType=kind, **extra)["ShardIterator"]


def read_all(kinesis, it):
    """Every record from `it` until the shard is caught up (or ends); answers the records and
    the last answer."""
    records = []
    while True:
        got = kinesis.get_records(ShardIterator=it)
        records += got["Records"]
        if not got["Records"] or not got.get("NextShardIterator"):
            return records, got
        it = got["NextShardIterator"]


def test_a_stream_without_shard_count_is_on_demand_with_aws_hash_ranges(kinesis):
    n = name()
    kinesis.create_stream(StreamName=n)
    d = kinesis.describe_stream(StreamName=n)["StreamDescription"]
    assert d["StreamStatus"] == "ACTIVE"
    assert d["StreamModeDetails"] == {"StreamMode": "ON_DEMAND"}
    assert d["StreamARN"] == arn_of(n)
    assert d["RetentionPeriodHours"] == 24 and d["EncryptionType"] == "NONE"
    assert [s["ShardId"] for s in d["Shards"]] == [f"shardId-00000000000{i}" for i in range(4)]
    ranges = [(int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"])) for s in d["Shards"]]
    assert ranges == [(i * SPACE // 4, (i + 1) * SPACE // 4 - 1) for i in range(4)]
    for s in d["Shards"]:
        start = s["SequenceNumberRange"]["StartingSequenceNumber"]
        assert len(start) == 56 and start.isdigit() and "EndingSequenceNumber" not in s["SequenceNumberRange"]
    summary = kinesis.describe_stream_summary(StreamARN=arn_of(n))["StreamDescriptionSummary"]
    assert summary["OpenShardCount"] == 4 and summary["ConsumerCount"] == 0
    listed = kinesis.list_streams()
    assert n in listed["StreamNames"]
    assert any(s["StreamARN"] == arn_of(n) and s["StreamStatus"] == "ACTIVE" for s in listed["StreamSummaries"])
    limits = kinesis.describe_limits()
    assert limits["ShardLimit"] == 500 and limits["OnDemandStreamCount"] >= 1


def test_missing_and_duplicate_streams_are_refused_in_aws_words(kinesis):
    missing = error_of(kinesis.describe_stream, StreamName="nowhere")
    assert missing == {"Code": "ResourceNotFoundException", "Message": f"Stream nowhere under account {ACCOUNT} not found."}
    n = stream(kinesis)
    again = error_of(kinesis.create_stream, StreamName=n, ShardCount=1)
    assert again["Code"] == "ResourceInUseException" and "already exists" in again["Message"]
    assert error_of(kinesis.describe_stream, StreamName=n, StreamARN=arn_of("other"))["Code"] == "InvalidArgumentException"
    assert error_of(kinesis.create_stream, StreamName="x!", ShardCount=1)["Code"] == "ValidationException"
    kinesis.delete_stream(StreamARN=arn_of(n))
    assert error_of(kinesis.describe_stream_summary, StreamName=n)["Code"] == "ResourceNotFoundException"


def test_records_go_to_the_shard_holding_their_hash_key(kinesis):
    n = name()
    kinesis.create_stream(StreamName=n, ShardCount=4)
    for key in ["alpha", "beta", "gamma", "delta", "1"]:
        expected = int(hashlib.md5(key.encode()).hexdigest(), 16) * 4 // SPACE
        put = kinesis.put_record(StreamARN=arn_of(n), Data=b"x", PartitionKey=key)
        assert put["ShardId"] == f"shardId-00000000000{expected}", key
        assert put["EncryptionType"] == "NONE"
    explicit = kinesis.put_record(StreamName=n, Data=b"x", PartitionKey="any", ExplicitHashKey=str(SPACE - 1))
    assert explicit["ShardId"] == "shardId-000000000003"
    bad = error_of(kinesis.put_record, StreamName=n, Data=b"x", PartitionKey="k", ExplicitHashKey=str(SPACE))
    assert bad["Code"] == "InvalidArgumentException" and "ExplicitHashKey" in bad["Message"]


def test_put_records_numbers_each_record_and_keeps_aws_limits(kinesis):
    n = stream(kinesis, 2)
    got = kinesis.put_records(StreamName=n, Records=[{"Data": str(i).encode(), "PartitionKey": f"k{i % 7}"} for i in range(500)])
    assert got["FailedRecordCount"] == 0 and len(got["Records"]) == 500
    by_shard = {}
    for r in got["Records"]:
        assert len(r["SequenceNumber"]) == 56
        by_shard.setdefault(r["ShardId"], []).append(int(r["SequenceNumber"]))
    assert all(seqs == sorted(seqs) and len(set(seqs)) == len(seqs) for seqs in by_shard.values())
    too_many = error_of(kinesis.put_records, StreamName=n, Records=[{"Data": b"x", "PartitionKey": "k"}] * 501)
    assert too_many["Code"] == "ValidationException"
    big = error_of(kinesis.put_record, StreamName=n, Data=b"x" * (1024 * 1024), PartitionKey="k")
    assert big["Code"] == "InvalidArgumentException"
    whole = error_of(kinesis.put_records, StreamName=n, Records=[{"Data": b"x" * 1_000_000, "PartitionKey": "k"}] * 6)
    assert whole["Code"] == "InvalidArgumentException"


def test_the_five_iterator_types_start_where_aws_starts_them(kinesis, stratus):
    n = stream(kinesis)
    seqs = [kinesis.put_record(StreamName=n, Data=f"r{i}".encode(), PartitionKey="k")["SequenceNumber"] for i in range(3)]
    latest = iterator(kinesis, n, kind="LATEST")
    stratus.advance(10)
    t = stratus.now() - 5
    seqs.append(kinesis.put_record(StreamName=n, Data=b"r3", PartitionKey="k")["SequenceNumber"])

    def data(it):
        return [r["Data"] for r in read_all(kinesis, it)[0]]

    assert data(iterator(kinesis, n)) == [b"r0", b"r1", b"r2", b"r3"]
    assert data(latest) == [b"r3"]
    assert data(iterator(kinesis, n, kind="AT_SEQUENCE_NUMBER", StartingSequenceNumber=seqs[1])) == [b"r1", b"r2", b"r3"]
    assert data(iterator(kinesis, n, kind="AFTER_SEQUENCE_NUMBER", StartingSequenceNumber=seqs[1])) == [b"r2", b"r3"]
    assert data(iterator(kinesis, n, kind="AT_TIMESTAMP", Timestamp=t)) == [b"r3"]
    missing = error_of(kinesis.get_shard_iterator, StreamName=n, ShardId="shardId-000000000000", ShardIteratorType="AT_TIMESTAMP")
    assert missing["Code"] == "InvalidArgumentException"
    other = error_of(kinesis.get_shard_iterator, StreamName=n, ShardId="shardId-000000000009", ShardIteratorType="LATEST")
    assert other["Code"] == "ResourceNotFoundException"
    assert error_of(kinesis.get_records, ShardIterator="not-an-iterator")["Code"] == "InvalidArgumentException"
    # AWS reads an iterator wrapped in quotes as the iterator.
    assert kinesis.get_records(ShardIterator=f'"{iterator(kinesis, n)}"')["Records"]


def test_get_records_pages_reports_lag_and_iterators_expire(kinesis, stratus):
    n = stream(kinesis)
    kinesis.put_records(StreamName=n, Records=[{"Data": bytes([i]), "PartitionKey": "k"} for i in range(5)])
    it = iterator(kinesis, n)
    stratus.advance(2)
    first = kinesis.get_records(ShardIterator=it, Limit=2)
    assert [r["Data"] for r in first["Records"]] == [b"\x00", b"\x01"]
    assert first["MillisBehindLatest"] == 2000
    assert "ApproximateArrivalTimestamp" in first["Records"][0] and "EncryptionType" not in first["Records"][0]
    rest = kinesis.get_records(ShardIterator=first["NextShardIterator"])
    assert len(rest["Records"]) == 3 and rest["MillisBehindLatest"] == 0
    assert rest["NextShardIterator"] != first["NextShardIterator"]
    stale = iterator(kinesis, n)
    stratus.advance(301)
    expired = error_of(kinesis.get_records, ShardIterator=stale)
    assert expired["Code"] == "ExpiredIteratorException" and "300000 milliseconds" in expired["Message"]


def test_retention_bounds_and_expired_records_are_not_read(kinesis, stratus):
    n = stream(kinesis)
    kinesis.put_record(StreamName=n, Data=b"old", PartitionKey="k")
    short = error_of(kinesis.decrease_stream_retention_period, StreamName=n, RetentionPeriodHours=23)
    assert short["Code"] == "InvalidArgumentException" and "Minimum allowed retention period is 24 hours" in short["Message"]
    long = error_of(kinesis.increase_stream_retention_period, StreamName=n, RetentionPeriodHours=8761)
    assert long["Code"] == "InvalidArgumentException"
    kinesis.increase_stream_retention_period(StreamName=n, RetentionPeriodHours=48)
    wrong_way = error_of(kinesis.increase_stream_retention_period, StreamName=n, RetentionPeriodHours=30)
    assert "DecreaseRetentionPeriod" in wrong_way["Message"]
    kinesis.decrease_stream_retention_period(StreamName=n, RetentionPeriodHours=24)
    assert kinesis.describe_stream_summary(StreamName=n)["StreamDescriptionSummary"]["RetentionPeriodHours"] == 24
    stratus.advance(25 * 3600)
    kinesis.put_record(StreamName=n, Data=b"new", PartitionKey="k")
    assert [r["Data"] for r in read_all(kinesis, iterator(kinesis, n))[0]] == [b"new"]


def read_in_lineage(kinesis, n):
    """Reads the stream as KCL does: a shard once its parents are read to their end, from
    TRIM_HORIZON; answers the data in reading order."""
    shards = kinesis.list_shards(StreamName=n)["Shards"]
    done, order = set(), []
    while len(done) < len(shards):
        for s in shards:
            parents = {s.get("ParentShardId"), s.get("AdjacentParentShardId")} - {None}
            if s["ShardId"] in done or not parents <= done:
                continue
            records, last = read_all(kinesis, iterator(kinesis, n, s["ShardId"]))
            order += [r["Data"] for r in records]
            if "EndingSequenceNumber" in s["SequenceNumberRange"]:
                assert last.get("NextShardIterator") is None
                children = {c["ShardId"] for c in last["ChildShards"]}
                assert children == {c["ShardId"] for c in shards if s["ShardId"] in (c.get("ParentShardId"), c.get("AdjacentParentShardId"))}
            done.add(s["ShardId"])
    return order


def test_resharding_keeps_lineage_and_order_across_parents_and_children(kinesis):
    n = stream(kinesis)
    put = lambda i: kinesis.put_record(StreamName=n, Data=str(i).encode(), PartitionKey="same")
    for i in range(3):
        put(i)
    kinesis.split_shard(StreamName=n, ShardToSplit="shardId-000000000000", NewStartingHashKey=str(SPACE // 2))
    for i in range(3, 6):
        put(i)
    shards = kinesis.list_shards(StreamName=n)["Shards"]
    parent = shards[0]
    assert parent["SequenceNumberRange"]["EndingSequenceNumber"] > parent["SequenceNumberRange"]["StartingSequenceNumber"]
    assert [s.get("ParentShardId") for s in shards[1:]] == ["shardId-000000000000"] * 2
    refused = error_of(kinesis.merge_shards, StreamName=n, ShardToMerge="shardId-000000000000", AdjacentShardToMerge="shardId-000000000001")
    assert refused["Code"] == "InvalidArgumentException"
    kinesis.merge_shards(StreamName=n, ShardToMerge="shardId-000000000001", AdjacentShardToMerge="shardId-000000000002")
    for i in range(6, 9):
        put(i)
    merged = kinesis.list_shards(StreamName=n, ShardFilter={"Type": "AT_LATEST"})["Shards"]
    assert [(s["ShardId"], s["ParentShardId"], s["AdjacentParentShardId"]) for s in merged] == [
        ("shardId-000000000003", "shardId-000000000001", "shardId-000000000002")
    ]
    scaled = kinesis.update_shard_count(StreamName=n, TargetShardCount=2, ScalingType="UNIFORM_SCALING")
    assert (scaled["CurrentShardCount"], scaled["TargetShardCount"]) == (1, 2)
    for i in range(9, 12):
        put(i)
    assert read_in_lineage(kinesis, n) == [str(i).encode() for i in range(12)]
    page = kinesis.list_shards(StreamName=n, MaxResults=2)
    assert len(page["Shards"]) == 2 and page["NextToken"]
    rest = kinesis.list_shards(NextToken=page["NextToken"])["Shards"]
    assert [s["ShardId"] for s in page["Shards"] + rest] == [s["ShardId"] for s in kinesis.list_shards(StreamName=n)["Shards"]]
    both = error_of(kinesis.list_shards, StreamName=n, NextToken=page["NextToken"])
    assert both["Code"] == "InvalidArgumentException"
    too_far = error_of(kinesis.update_shard_count, StreamName=n, TargetShardCount=5, ScalingType="UNIFORM_SCALING")
    assert too_far["Code"] == "InvalidArgumentException"


def test_consumers_register_describe_list_and_deregister(kinesis):
    n = stream(kinesis)
    registered = kinesis.register_stream_consumer(StreamARN=arn_of(n), ConsumerName="c1")["Consumer"]
    assert registered["ConsumerStatus"] == "CREATING"
    assert registered["ConsumerARN"].startswith(f"{arn_of(n)}/consumer/c1:")
    described = kinesis.describe_stream_consumer(ConsumerARN=registered["ConsumerARN"])["ConsumerDescription"]
    assert described["ConsumerStatus"] == "ACTIVE" and described["StreamARN"] == arn_of(n)
    assert kinesis.describe_stream_consumer(StreamARN=arn_of(n), ConsumerName="c1")["ConsumerDescription"]["ConsumerARN"] == registered["ConsumerARN"]
    assert [c["ConsumerName"] for c in kinesis.list_stream_consumers(StreamARN=arn_of(n))["Consumers"]] == ["c1"]
    again = error_of(kinesis.register_stream_consumer, StreamARN=arn_of(n), ConsumerName="c1")
    assert again["Code"] == "ResourceInUseException"
    assert error_of(kinesis.delete_stream, StreamName=n)["Code"] == "ResourceInUseException"
    kinesis.deregister_stream_consumer(ConsumerARN=registered["ConsumerARN"])
    assert kinesis.list_stream_consumers(StreamARN=arn_of(n))["Consumers"] == []
    assert error_of(kinesis.describe_stream_consumer, ConsumerARN=registered["ConsumerARN"])["Code"] == "ResourceNotFoundException"


def test_subscribe_to_shard_streams_records_as_they_are_put(kinesis):
    n = stream(kinesis)
    kinesis.put_record(StreamName=n, Data=b"before", PartitionKey="k")
    consumer = kinesis.register_stream_consumer(StreamARN=arn_of(n), ConsumerName="fan")["Consumer"]["ConsumerARN"]
    events = kinesis.subscribe_to_shard(
        ConsumerARN=consumer, ShardId="shardId-000000000000", StartingPosition={"Type": "TRIM_HORIZON"}
    )["EventStream"]
    seen = []
    putter = threading.Timer(0.2, lambda: kinesis.put_records(
        StreamName=n, Records=[{"Data": f"after{i}".encode(), "PartitionKey": "k"} for i in range(3)]))
    putter.start()
    for event in events:
        shard_event = event["SubscribeToShardEvent"]
        seen += [r["Data"] for r in shard_event["Records"]]
        assert len(shard_event["ContinuationSequenceNumber"]) == 56
        if len(seen) >= 4:
            break
    events.close()
    putter.join()
    assert seen == [b"before", b"after0", b"after1", b"after2"]
    missing = error_of(kinesis.subscribe_to_shard, ConsumerARN=consumer, ShardId="shardId-000000000007",
                       StartingPosition={"Type": "LATEST"})
    assert missing["Code"] == "ResourceNotFoundException"


def test_subscribing_to_a_closed_shard_ends_with_its_children(kinesis):
    n = stream(kinesis)
    kinesis.put_record(StreamName=n, Data=b"last", PartitionKey="k")
    kinesis.split_shard(StreamName=n, ShardToSplit="shardId-000000000000", NewStartingHashKey=str(SPACE // 2))
    consumer = kinesis.register_stream_consumer(StreamARN=arn_of(n), ConsumerName="c")["Consumer"]["ConsumerARN"]
    events = kinesis.subscribe_to_shard(
        ConsumerARN=consumer, ShardId="shardId-000000000000", StartingPosition={"Type": "TRIM_HORIZON"}
    )["EventStream"]
    received = [e["SubscribeToShardEvent"] for e in events]
    assert [r["Data"] for e in received for r in e["Records"]] == [b"last"]
    assert [c["ShardId"] for c in received[-1]["ChildShards"]] == ["shardId-000000000001", "shardId-000000000002"]


def test_tags_through_both_apis(kinesis):
    n = stream(kinesis)
    kinesis.add_tags_to_stream(StreamName=n, Tags={"team": "data", "env": "dev"})
    tags = kinesis.list_tags_for_stream(StreamName=n)
    assert tags["Tags"] == [{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "data"}] and not tags["HasMoreTags"]
    first = kinesis.list_tags_for_stream(StreamName=n, Limit=1)
    assert first["HasMoreTags"] and first["Tags"] == [{"Key": "env", "Value": "dev"}]
    kinesis.tag_resource(ResourceARN=arn_of(n), Tags={"cost": "1"})
    kinesis.untag_resource(ResourceARN=arn_of(n), TagKeys=["env"])
    assert {t["Key"] for t in kinesis.list_tags_for_resource(ResourceARN=arn_of(n))["Tags"]} == {"team", "cost"}
    kinesis.remove_tags_from_stream(StreamName=n, TagKeys=["team"])
    assert [t["Key"] for t in kinesis.list_tags_for_stream(StreamName=n)["Tags"]] == ["cost"]
    eleven = error_of(kinesis.add_tags_to_stream, StreamName=n, Tags={f"k{i}": "v" for i in range(11)})
    assert eleven["Code"] == "InvalidArgumentException"
    reserved = error_of(kinesis.add_tags_to_stream, StreamName=n, Tags={"aws:x": "v"})
    assert reserved["Code"] == "InvalidArgumentException"


def test_resource_policies_put_get_delete(kinesis):
    n = stream(kinesis)
    assert kinesis.get_resource_policy(ResourceARN=arn_of(n))["Policy"] == "{}"
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "kinesis:PutRecord", "Resource": arn_of(n)}]})
    kinesis.put_resource_policy(ResourceARN=arn_of(n), Policy=policy)
    assert json.loads(kinesis.get_resource_policy(ResourceARN=arn_of(n))["Policy"]) == json.loads(policy)
    kinesis.delete_resource_policy(ResourceARN=arn_of(n))
    assert error_of(kinesis.delete_resource_policy, ResourceARN=arn_of(n))["Code"] == "ResourceNotFoundException"
    assert error_of(kinesis.put_resource_policy, ResourceARN=arn_of("gone"), Policy=policy)["Code"] == "ResourceNotFoundException"


def test_encryption_goes_through_kms(kinesis, stratus):
    n = stream(kinesis)
    key = stratus.client("kms").create_key()["KeyMetadata"]["KeyId"]
    missing = error_of(kinesis.start_stream_encryption, StreamName=n, EncryptionType="KMS", KeyId=str(uuid.uuid4()))
    assert missing["Code"] == "KMSNotFoundException"
    kinesis.start_stream_encryption(StreamName=n, EncryptionType="KMS", KeyId=key)
    d = kinesis.describe_stream(StreamName=n)["StreamDescription"]
    assert (d["EncryptionType"], d["KeyId"]) == ("KMS", key)
    assert kinesis.put_record(StreamName=n, Data=b"secret", PartitionKey="k")["EncryptionType"] == "KMS"
    record = read_all(kinesis, iterator(kinesis, n))[0][0]
    assert (record["Data"], record["EncryptionType"]) == (b"secret", "KMS")
    kinesis.stop_stream_encryption(StreamName=n, EncryptionType="KMS", KeyId=key)
    assert kinesis.describe_stream(StreamName=n)["StreamDescription"]["EncryptionType"] == "NONE"


def test_modes_and_enhanced_monitoring(kinesis):
    n = stream(kinesis, 2)
    kinesis.update_stream_mode(StreamARN=arn_of(n), StreamModeDetails={"StreamMode": "ON_DEMAND"})
    assert kinesis.describe_stream_summary(StreamName=n)["StreamDescriptionSummary"]["StreamModeDetails"]["StreamMode"] == "ON_DEMAND"
    enabled = kinesis.enable_enhanced_monitoring(StreamName=n, ShardLevelMetrics=["IncomingBytes"])
    assert enabled["CurrentShardLevelMetrics"] == [] and enabled["DesiredShardLevelMetrics"] == ["IncomingBytes"]
    everything = kinesis.enable_enhanced_monitoring(StreamName=n, ShardLevelMetrics=["ALL"])
    assert len(everything["DesiredShardLevelMetrics"]) == 7
    off = kinesis.disable_enhanced_monitoring(StreamName=n, ShardLevelMetrics=["ALL"])
    assert off["DesiredShardLevelMetrics"] == []


def cbor_call(stratus, operation, payload):
    """A request in Kinesis's CBOR form, as the Java SDK sends it (boto3 has no CBOR): the
    status, content type, raw body and body decoded with timestamps in epoch milliseconds."""
    request = urllib.request.Request(
        f"{stratus.endpoint}/", data=cbor2.dumps(payload), method="POST",
        headers={"Content-Type": "application/x-amz-cbor-1.1", "X-Amz-Target": f"Kinesis_20131202.{operation}"},
    )
    try:
        response = urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as refused:
        response = refused
    raw = response.read()
    millis = lambda value, immutable: datetime.datetime.fromtimestamp(value / 1000, datetime.timezone.utc)
    return response.status, response.headers["Content-Type"], raw, cbor2.loads(raw, semantic_decoders={1: millis})


def test_the_cbor_form_reads_and_answers_cbor_with_millisecond_timestamps(kinesis, stratus):
    n = stream(kinesis)
    status, content_type, _, put = cbor_call(stratus, "PutRecord", {"StreamName": n, "Data": b"\x00binary", "PartitionKey": "k"})
    assert (status, content_type) == (200, "application/x-amz-cbor-1.1")
    assert put["ShardId"] == "shardId-000000000000" and len(put["SequenceNumber"]) == 56
    status, _, raw, described = cbor_call(stratus, "DescribeStream", {"StreamARN": arn_of(n)})
    # Tag 1 over an integer count of milliseconds, never a float (the SDKs read only that).
    assert b"StreamCreationTimestamp\xc1\x1b" in raw and b"StreamCreationTimestamp\xc1\xfb" not in raw
    created = kinesis.describe_stream(StreamName=n)["StreamDescription"]["StreamCreationTimestamp"]
    assert described["StreamDescription"]["StreamCreationTimestamp"] == created
    stratus.advance(1)
    now = cbor2.CBORTag(1, int(stratus.now() * 1000))
    _, _, _, it = cbor_call(stratus, "GetShardIterator", {"StreamName": n, "ShardId": "shardId-000000000000",
                                                           "ShardIteratorType": "AT_TIMESTAMP", "Timestamp": now})
    _, _, _, got = cbor_call(stratus, "GetRecords", {"ShardIterator": iterator(kinesis, n)})
    json_record = kinesis.get_records(ShardIterator=iterator(kinesis, n))["Records"][0]
    assert got["Records"][0]["Data"] == b"\x00binary" == json_record["Data"]
    assert got["Records"][0]["ApproximateArrivalTimestamp"] == json_record["ApproximateArrivalTimestamp"]
    assert cbor_call(stratus, "GetRecords", {"ShardIterator": it["ShardIterator"]})[3]["Records"] == []
    status, content_type, _, refused = cbor_call(stratus, "DescribeStream", {"StreamName": "missing"})
    assert (status, content_type) == (400, "application/x-amz-cbor-1.1")
    assert refused == {"__type": "ResourceNotFoundException", "message": f"Stream missing under account {ACCOUNT} not found."}


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
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", "kinesis", *args],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_aws_cli_creates_puts_and_reads(stratus):
    n = name("cli")
    cli(stratus, "create-stream", "--stream-name", n, "--shard-count", "1")
    # AWS CLI v1 sends --data as the text given; records come back in base64.
    put = cli(stratus, "put-record", "--stream-name", n, "--partition-key", "k", "--data", "hello")
    assert put["ShardId"] == "shardId-000000000000"
    it = cli(stratus, "get-shard-iterator", "--stream-name", n, "--shard-id", put["ShardId"],
             "--shard-iterator-type", "AT_SEQUENCE_NUMBER", "--starting-sequence-number", put["SequenceNumber"])
    records = cli(stratus, "get-records", "--shard-iterator", it["ShardIterator"])["Records"]
    assert [r["Data"] for r in records] == ["aGVsbG8="]


def test_acknowledged_records_survive_kill_9(tmp_path):
    server = Stratus("--data-dir", str(tmp_path))
    try:
        k = server.client("kinesis")
        k.create_stream(StreamName="durable", ShardCount=1)
        k.put_records(StreamName="durable", Records=[{"Data": bytes([i]), "PartitionKey": "k"} for i in range(10)])
    finally:
        server.stop(signal.SIGKILL)
    server = Stratus("--data-dir", str(tmp_path))
    try:
        k = server.client("kinesis")
        records = read_all(k, iterator(k, "durable"))[0]
        assert [r["Data"] for r in records] == [bytes([i]) for i in range(10)]
    finally:
        server.stop()
