"""CloudWatch PutMetricData throughput over a socket: Stratus (with a data directory, where
metric data is relaxed, and --ephemeral) and moto's server, side by side, driven by the same
client loop. Requests are awsQuery forms, the wire both servers take.

Workloads: PutMetricData of one datum, and of 20 data (with a dimension each), then
GetMetricStatistics with p99 over the 1,000 samples of one metric.

    python benches/cloudwatch_throughput.py [--requests N] [--threads T] [--rounds R]
"""

import time
from urllib.parse import urlencode

from harness import arguments, compare, connect, run_threads

HEADERS = {
    "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
    "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/monitoring/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date, Signature=" + "0" * 64,
    "X-Amz-Date": "20240101T000000Z",
}


def post(conn, form):
    conn.request("POST", "/", body=form, headers=HEADERS)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{response.status} {data[:300]!r}")
    return data


def put_form(namespace, count, t):
    fields = {"Action": "PutMetricData", "Version": "2010-08-01", "Namespace": namespace}
    for i in range(1, count + 1):
        fields[f"MetricData.member.{i}.MetricName"] = "latency"
        fields[f"MetricData.member.{i}.Value"] = str(i)
        fields[f"MetricData.member.{i}.Unit"] = "Milliseconds"
        if count > 1:
            fields[f"MetricData.member.{i}.Dimensions.member.1.Name"] = "Host"
            fields[f"MetricData.member.{i}.Dimensions.member.1.Value"] = f"h{i % 5}"
        fields[f"MetricData.member.{i}.Timestamp"] = t
    return urlencode(fields)


def measure(server, args):
    """Requests a second for each workload on `server`."""
    namespace = f"bench-{time.monotonic_ns()}"
    per_thread = args.requests // args.threads
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    single = put_form(namespace, 1, stamp)
    batch = put_form(namespace, 20, stamp)

    def put_one(c, _):
        for _ in range(per_thread):
            post(c, single)

    batches_per_thread = max(1, per_thread // 10)

    def put_batch(c, _):
        for _ in range(batches_per_thread):
            post(c, batch)

    stats_ns = f"{namespace}-stats"
    conn = connect(server)
    for start in range(0, 1000, 20):
        fields = {"Action": "PutMetricData", "Version": "2010-08-01", "Namespace": stats_ns}
        for i in range(1, 21):
            fields[f"MetricData.member.{i}.MetricName"] = "latency"
            fields[f"MetricData.member.{i}.Value"] = str(start + i)
            fields[f"MetricData.member.{i}.Timestamp"] = stamp
        post(conn, urlencode(fields))
    conn.close()
    start_time = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    end_time = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    stats = urlencode({
        "Action": "GetMetricStatistics", "Version": "2010-08-01", "Namespace": stats_ns, "MetricName": "latency",
        "StartTime": start_time, "EndTime": end_time, "Period": "7200", "ExtendedStatistics.member.1": "p99",
    })
    stats_per_thread = max(1, per_thread // 4)

    def get_stats(c, _):
        for _ in range(stats_per_thread):
            post(c, stats)

    total = per_thread * args.threads
    return {
        "PutMetricData(1)": total / run_threads(server.port, args.threads, put_one),
        "PutMetricData(20), calls": batches_per_thread * args.threads / run_threads(server.port, args.threads, put_batch),
        "GetMetricStatistics p99 of 1,000": stats_per_thread * args.threads / run_threads(server.port, args.threads, get_stats),
    }


def main():
    compare(arguments(__doc__, requests=2000), measure)


if __name__ == "__main__":
    main()
