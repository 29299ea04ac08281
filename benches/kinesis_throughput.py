"""Kinesis Data Streams throughput over a socket: Stratus (strict durability, and --ephemeral)
and moto's server, side by side, driven by the same client loop.

Workloads: PutRecords of 500 records of 100 bytes (reported as calls a second), and GetRecords
reading a shard of 500-record batches from TRIM_HORIZON to its end (reported as calls a
second, each answering 500 records).

    python benches/kinesis_throughput.py [--requests N] [--threads T] [--rounds R]
"""

import base64
import json
import time

from harness import JsonClient, arguments, compare, connect, run_threads

KINESIS = JsonClient("kinesis", "Kinesis_20131202", "application/x-amz-json-1.1")
BATCH = 500


def measure(server, args):
    """Calls a second for each workload on `server`."""
    conn = connect(server)
    stream = f"bench-{time.monotonic_ns()}"
    KINESIS.call(conn, "CreateStream", {"StreamName": stream, "ShardCount": args.threads})
    for _ in range(100):
        status = KINESIS.call(conn, "DescribeStreamSummary", {"StreamName": stream})
        if status["StreamDescriptionSummary"]["StreamStatus"] == "ACTIVE":
            break
        time.sleep(0.05)
    data = base64.b64encode(b"x" * 100).decode()
    # One partition key per thread's shard: each thread puts to, and reads, its own shard.
    shards = KINESIS.call(conn, "ListShards", {"StreamName": stream})["Shards"]
    keys = [str(int(s["HashKeyRange"]["StartingHashKey"])) for s in shards]
    batches = [
        json.dumps({"StreamName": stream, "Records": [{"Data": data, "PartitionKey": "k", "ExplicitHashKey": keys[t]}] * BATCH})
        for t in range(args.threads)
    ]
    calls = max(1, args.requests // args.threads)

    def put(c, t):
        for _ in range(calls):
            KINESIS.raw(c, "PutRecords", batches[t])

    def get(c, t):
        it = KINESIS.call(c, "GetShardIterator", {"StreamName": stream, "ShardId": shards[t]["ShardId"], "ShardIteratorType": "TRIM_HORIZON"})["ShardIterator"]
        for _ in range(calls):
            answer = KINESIS.call(c, "GetRecords", {"ShardIterator": it, "Limit": BATCH})
            assert len(answer["Records"]) == BATCH, len(answer["Records"])
            it = answer["NextShardIterator"]

    conn.close()
    total = calls * args.threads
    return {
        f"PutRecords({BATCH}), calls": total / run_threads(server.port, args.threads, put),
        f"GetRecords({BATCH}), calls": total / run_threads(server.port, args.threads, get),
    }


def main():
    compare(arguments(__doc__, requests=200), measure)


if __name__ == "__main__":
    main()
