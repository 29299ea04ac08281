"""SQS throughput over a socket: Stratus (strict durability and --ephemeral) and moto's server,
side by side, driven by the same client loop.

The client speaks awsJson1_0 over keep-alive HTTP connections from several threads, with
request bodies built once, so the figures measure the servers rather than an SDK's per-call
overhead. Each round runs every server in turn; the report gives the median of the rounds.

    python benches/sqs_throughput.py [--requests N] [--threads T] [--rounds R]

`make bench-sqs` runs it with the release binary and the test virtualenv (where moto is).
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date, Signature=" + "0" * 64,
    "X-Amz-Date": "20240101T000000Z",
}


class Server:
    """A server process listening on a loopback port."""

    def __init__(self, name, argv, port):
        self.name = name
        self.port = port
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{name} did not start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(conn, target, body):
    conn.request("POST", "/", body=body, headers={**HEADERS, "X-Amz-Target": f"AmazonSQS.{target}"})
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{target}: {response.status} {data[:200]!r}")
    return json.loads(data) if data else {}


def run_threads(port, threads, work):
    """Runs `work(conn, index)` on `threads` threads, each with its own connection; returns
    the elapsed seconds."""
    conns = [http.client.HTTPConnection("127.0.0.1", port) for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)
    errors = []

    def body(i):
        barrier.wait()
        try:
            work(conns[i], i)
        except Exception as e:  # noqa: BLE001 - reported by the caller
            errors.append(e)

    workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    started = time.perf_counter()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - started
    for c in conns:
        c.close()
    if errors:
        raise errors[0]
    return elapsed


def measure(server, requests, threads):
    """Requests a second for each workload on `server`."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    # The single sends fill the queue the receives drain; the batches go to a queue of their own.
    url, batch_url = (
        call(conn, "CreateQueue", json.dumps({"QueueName": f"bench-{time.monotonic_ns()}"}))["QueueUrl"]
        for _ in range(2)
    )
    conn.close()
    per_thread = requests // threads
    send = json.dumps({"QueueUrl": url, "MessageBody": "x" * 100}).encode()
    batch = json.dumps(
        {"QueueUrl": batch_url, "Entries": [{"Id": str(i), "MessageBody": "x" * 100} for i in range(10)]}
    ).encode()
    receive = json.dumps({"QueueUrl": url, "MaxNumberOfMessages": 1}).encode()

    def sends(c, _):
        for _ in range(per_thread):
            call(c, "SendMessage", send)

    # As many messages as the single sends, in a tenth of the calls.
    batches_per_thread = max(1, per_thread // 10)

    def batches(c, _):
        for _ in range(batches_per_thread):
            call(c, "SendMessageBatch", batch)

    def receive_delete(c, _):
        for _ in range(per_thread):
            got = call(c, "ReceiveMessage", receive).get("Messages", [])
            for m in got:
                call(c, "DeleteMessage", json.dumps({"QueueUrl": url, "ReceiptHandle": m["ReceiptHandle"]}))

    total = per_thread * threads
    return {
        "SendMessage": total / run_threads(server.port, threads, sends),
        "ReceiveMessage+DeleteMessage": total / run_threads(server.port, threads, receive_delete),
        "SendMessageBatch(10)": batches_per_thread * threads / run_threads(server.port, threads, batches),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stratus", default=os.environ.get("STRATUS_BIN", "target/release/stratus"))
    parser.add_argument("--moto", default=shutil.which("moto_server") or os.path.join(os.path.dirname(sys.executable), "moto_server"))
    args = parser.parse_args()

    data_dir = tempfile.mkdtemp(prefix="stratus-bench-")
    try:
        configs = [
            ("stratus (strict)", lambda p: [args.stratus, "--listen", f"127.0.0.1:{p}", "--data-dir", data_dir]),
            ("stratus (--ephemeral)", lambda p: [args.stratus, "--listen", f"127.0.0.1:{p}", "--ephemeral"]),
            ("moto_server", lambda p: [args.moto, "-p", str(p)]),
        ]
        results = {name: [] for name, _ in configs}
        for _ in range(args.rounds):
            for name, argv in configs:
                port = free_port()
                server = Server(name, argv(port), port)
                try:
                    results[name].append(measure(server, args.requests, args.threads))
                finally:
                    server.stop()
        medians = {
            name: {w: statistics.median(r[w] for r in rounds) for w in rounds[0]} for name, rounds in results.items()
        }
        workloads = list(next(iter(medians.values())))
        print(f"requests/s, median of {args.rounds} rounds, {args.requests} requests on {args.threads} threads")
        print(f"{'workload':32}" + "".join(f"{name:>24}" for name in medians) + f"{'strict/moto':>14}{'ephemeral/moto':>16}")
        for w in workloads:
            row = [medians[name][w] for name in medians]
            moto = row[-1]
            print(f"{w:32}" + "".join(f"{v:>24.0f}" for v in row) + f"{row[0] / moto:>14.1f}{row[1] / moto:>16.1f}")
        print("per-call cost of a 10-entry batch relative to one SendMessage (1.0 = same):")
        for name in list(medians)[:2]:
            ratio = medians[name]["SendMessage"] / medians[name]["SendMessageBatch(10)"]
            print(f"  {name}: {ratio:.2f}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
