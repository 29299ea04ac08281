"""DynamoDB throughput over a socket: Stratus (strict durability and --ephemeral) and moto's
server, side by side, driven by the same client loop.

The clients speak awsJson1_0 over keep-alive HTTP connections with request bodies built once,
so the figures measure the servers rather than an SDK's per-call overhead. PutItem and GetItem
are sent by the compiled load generator (benches/loadgen) on --connections connections, since
a Python client cannot send them as fast as Stratus answers; Query and Scan, which check what
they get back, by Python threads. Before the timed workloads each server is loaded with 10,000
items (--partitions 100 of 100) through BatchWriteItem. Query reads one partition (100 of the
10,000 items); Scan reads all 10,000, following LastEvaluatedKey, on one connection, so
1000 / its rate is the time of one scan.

    python benches/dynamodb_throughput.py [--requests N] [--connections C] [--threads T] [--rounds R] [--partitions P]

`make bench-dynamodb` runs it with the release binary and the test virtualenv (where moto is).
"""

import json
import time

from harness import JsonClient, arguments, compare, connect, drive, run_threads

DYNAMODB = JsonClient("dynamodb", "DynamoDB_20120810", "application/x-amz-json-1.0")
PER_PARTITION = 100
SCANS = 5


def create_table(conn, name):
    DYNAMODB.call(
        conn,
        "CreateTable",
        {
            "TableName": name,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )


def item(partition, sort):
    return {"pk": {"S": f"p{partition}"}, "sk": {"N": str(sort)}, "name": {"S": f"item {sort}"}, "n": {"N": "42"}, "flag": {"BOOL": True}}


def load(conn, table, partitions):
    """`partitions` of PER_PARTITION items, 25 to a BatchWriteItem."""
    items = [item(p, s) for p in range(partitions) for s in range(PER_PARTITION)]
    for i in range(0, len(items), 25):
        batch = {"RequestItems": {table: [{"PutRequest": {"Item": it}} for it in items[i : i + 25]]}}
        unprocessed = DYNAMODB.call(conn, "BatchWriteItem", batch).get("UnprocessedItems")
        if unprocessed:
            raise RuntimeError("BatchWriteItem left items unprocessed")


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    table, writes = f"bench-{time.monotonic_ns()}", f"bench-writes-{time.monotonic_ns()}"
    create_table(conn, table)
    create_table(conn, writes)
    partitions = args.partitions
    load(conn, table, partitions)
    per_thread = args.requests // args.threads
    queries_per_thread = max(1, per_thread // 4)

    # Every PutItem writes a new item; GetItems cycle through 100 keys of the loaded items.
    puts = [DYNAMODB.request("PutItem", json.dumps({"TableName": writes, "Item": item("@SEQUENCE@", 1)}))]
    gets = [
        DYNAMODB.request("GetItem", json.dumps({"TableName": table, "Key": {"pk": {"S": f"p{i * 7 % partitions}"}, "sk": {"N": str(i)}}}))
        for i in range(PER_PARTITION)
    ]

    def queries(c, t):
        for i in range(queries_per_thread):
            body = {
                "TableName": table,
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": f"p{(t + i) % partitions}"}},
            }
            got = DYNAMODB.call(c, "Query", body)
            if got["Count"] != PER_PARTITION:
                raise RuntimeError(f"Query returned {got['Count']} items")

    def scans(c, _):
        for _ in range(SCANS):
            start, seen = None, 0
            while True:
                body = {"TableName": table, **({"ExclusiveStartKey": start} if start else {})}
                page = DYNAMODB.call(c, "Scan", body)
                seen += page["Count"]
                start = page.get("LastEvaluatedKey")
                if not start:
                    break
            if seen != partitions * PER_PARTITION:
                raise RuntimeError(f"Scan returned {seen} items")

    figures = {
        "PutItem": args.requests / drive(server, args, puts),
        "GetItem": args.requests / drive(server, args, gets),
        query_name(args): queries_per_thread * args.threads / run_threads(server.port, args.threads, queries),
        scan_name(args): SCANS / run_threads(server.port, 1, scans),
    }
    conn.close()
    return figures


def query_name(args):
    return f"Query ({PER_PARTITION} of {args.partitions * PER_PARTITION:,} items)"


def scan_name(args):
    return f"Scan ({args.partitions * PER_PARTITION:,} items, one client)"


def main():
    args = arguments(__doc__, requests=2000, partitions=100)
    medians = compare(args, measure)
    print(f"one Scan of {args.partitions * PER_PARTITION:,} items, ms:")
    for name, figures in medians.items():
        print(f"  {name}: {1000 / figures[scan_name(args)]:.1f}")


if __name__ == "__main__":
    main()
