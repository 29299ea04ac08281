"""CloudWatch Logs throughput over a socket: Stratus (with a data directory, where log data is
relaxed, and --ephemeral) and moto's server, side by side, driven by the same client loop.

Workloads: PutLogEvents of one 100-byte event, PutLogEvents of 100 such events, and
FilterLogEvents with a term pattern over a group of 50 events per request asked (100,000 by
default) in 10 streams (1% match), read to the end of its pages (reported as whole filters a
second).

    python benches/logs_throughput.py [--requests N] [--threads T] [--rounds R]
"""

import json
import time

from harness import JsonClient, arguments, compare, connect, run_threads

LOGS = JsonClient("logs", "Logs_20140328", "application/x-amz-json-1.1")
STREAMS = 10


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    group = f"bench-{time.monotonic_ns()}"
    LOGS.call(conn, "CreateLogGroup", {"logGroupName": group})
    for t in range(args.threads):
        LOGS.call(conn, "CreateLogStream", {"logGroupName": group, "logStreamName": f"s{t}"})
    per_thread = args.requests // args.threads
    now = int(time.time() * 1000)

    def bodies(t, count):
        return json.dumps(
            {
                "logGroupName": group,
                "logStreamName": f"s{t}",
                "logEvents": [{"timestamp": now, "message": "x" * 100} for _ in range(count)],
            }
        )

    singles = [bodies(t, 1) for t in range(args.threads)]
    batches = [bodies(t, 100) for t in range(args.threads)]

    def put_one(c, t):
        for _ in range(per_thread):
            LOGS.raw(c, "PutLogEvents", singles[t])

    batches_per_thread = max(1, per_thread // 10)

    def put_batch(c, t):
        for _ in range(batches_per_thread):
            LOGS.raw(c, "PutLogEvents", batches[t])

    # The filtered group: 100,000 events, one in a hundred an ERROR.
    filter_events = max(1000, args.requests * 50)
    filtered = f"{group}-filter"
    LOGS.call(conn, "CreateLogGroup", {"logGroupName": filtered})
    per_stream = filter_events // STREAMS
    for s in range(STREAMS):
        LOGS.call(conn, "CreateLogStream", {"logGroupName": filtered, "logStreamName": f"s{s}"})
        for start in range(0, per_stream, 5000):
            events = [
                {"timestamp": now + i, "message": f"{'ERROR' if i % 100 == 0 else 'INFO'} request {s}-{i} served in 12 ms"}
                for i in range(start, min(start + 5000, per_stream))
            ]
            LOGS.call(conn, "PutLogEvents", {"logGroupName": filtered, "logStreamName": f"s{s}", "logEvents": events})

    def filter_all(c, _):
        found, token = 0, None
        while True:
            body = {"logGroupName": filtered, "filterPattern": "ERROR"}
            if token:
                body["nextToken"] = token
            answer = LOGS.call(c, "FilterLogEvents", body)
            found += len(answer.get("events", []))
            token = answer.get("nextToken")
            if not token:
                break
        assert found == filter_events // 100, found

    conn.close()
    total = per_thread * args.threads
    filters = 3
    return {
        "PutLogEvents(1)": total / run_threads(server.port, args.threads, put_one),
        "PutLogEvents(100), calls": batches_per_thread * args.threads / run_threads(server.port, args.threads, put_batch),
        "FilterLogEvents, whole filters": filters / run_threads(server.port, 1, lambda c, t: [filter_all(c, t) for _ in range(filters)]),
    }


def main():
    compare(arguments(__doc__, requests=2000), measure)


if __name__ == "__main__":
    main()
