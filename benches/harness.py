"""What the side-by-side throughput scripts share: starting servers, a raw awsJson client on
keep-alive connections from several threads, rounds, medians and the report.

A script defines its workloads as `measure(server, args) -> {workload: requests per second}`
and calls `compare(...)`; every server runs the same client loop, one after the other in each
round, and the report gives each workload's median over the rounds. Workloads that only send
requests can hand them to `drive`, the compiled load generator (benches/loadgen), where the
Python client would be the bottleneck.
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


class JsonClient:
    """Sends prebuilt awsJson bodies for one service, with a fixed (unverified) SigV4 header."""

    def __init__(self, signing_name, target_prefix, content_type):
        self.target_prefix = target_prefix
        self.headers = {
            "Content-Type": content_type,
            "Authorization": f"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/{signing_name}/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date, Signature=" + "0" * 64,
            "X-Amz-Date": "20240101T000000Z",
        }

    def request(self, target, body):
        """The whole HTTP/1.1 request for `body` (a str), as `drive` sends it."""
        data = body.encode()
        head = {**self.headers, "X-Amz-Target": f"{self.target_prefix}.{target}", "Host": "127.0.0.1", "Content-Length": len(data)}
        return "POST / HTTP/1.1\r\n".encode() + "".join(f"{k}: {v}\r\n" for k, v in head.items()).encode() + b"\r\n" + data

    def raw(self, conn, target, body):
        """The answer's bytes; fails unless it is a 200."""
        conn.request("POST", "/", body=body, headers={**self.headers, "X-Amz-Target": f"{self.target_prefix}.{target}"})
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{target}: {response.status} {data[:200]!r}")
        return data

    def call(self, conn, target, body):
        """The answer, decoded."""
        data = self.raw(conn, target, body if isinstance(body, (bytes, str)) else json.dumps(body))
        return json.loads(data) if data else {}


def connect(server):
    return http.client.HTTPConnection("127.0.0.1", server.port)


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


def drive(server, args, requests):
    """Sends `args.requests` requests (the byte strings `requests`, in turn; `@SEQUENCE@` is
    replaced by each one's number) on `args.connections` keep-alive connections with the
    compiled load generator; returns the elapsed seconds. Fails if any answer is not 2xx."""
    with tempfile.TemporaryDirectory(prefix="stratus-loadgen-") as tmp:
        files = []
        for i, request in enumerate(requests):
            path = os.path.join(tmp, f"{i}.http")
            with open(path, "wb") as f:
                f.write(request)
            files.append(path)
        argv = [args.loadgen, "--port", str(server.port), "--connections", str(args.connections), "--requests", str(args.requests)]
        out = subprocess.run(argv + files, check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    if result["failed"]:
        raise RuntimeError(f"{result['failed']} of {result['requests']} requests to {server.name} failed")
    return result["seconds"]


def arguments(doc, requests, **counts):
    """The command line every script takes; `requests` is its default request count, and each
    of `counts` a script's own count option with its default (`partitions=100`: `--partitions`)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=requests)
    for name, default in counts.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32, help="connections of the compiled load generator")
    parser.add_argument("--loadgen", default=os.environ.get("STRATUS_LOADGEN", "target/release/stratus-loadgen"))
    parser.add_argument("--stratus", default=os.environ.get("STRATUS_BIN", "target/release/stratus"))
    parser.add_argument(
        "--moto",
        default=shutil.which("moto_server") or os.path.join(os.path.dirname(sys.executable), "moto_server"),
    )
    return parser.parse_args()


def compare(args, measure):
    """Runs `measure` against Stratus with strict durability, Stratus `--ephemeral` and moto's
    server, `args.rounds` times each in turn; prints the medians (requests a second) and each
    Stratus mode's ratio to moto. Returns the medians."""
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
                    results[name].append(measure(server, args))
                finally:
                    server.stop()
        medians = {
            name: {w: statistics.median(r[w] for r in rounds) for w in rounds[0]} for name, rounds in results.items()
        }
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"requests/s, median of {args.rounds} rounds, {args.requests} requests on {args.threads} threads")
    print(f"{'workload':36}" + "".join(f"{name:>24}" for name in medians) + f"{'strict/moto':>14}{'ephemeral/moto':>16}")
    for w in next(iter(medians.values())):
        row = [medians[name][w] for name in medians]
        print(f"{w:36}" + "".join(f"{v:>24.1f}" for v in row) + f"{row[0] / row[-1]:>14.1f}{row[1] / row[-1]:>16.1f}")
    return medians
