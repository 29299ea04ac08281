"""Lambda through the whole binary, as issue 17 measures it: CreateFunction to first response
(cold start) for Python and Node.js, warm invokes, and what an idle server keeps after its
functions' instances time out (processes left, resident memory).

Each function is a new one (its first invoke is a cold start: the zip unpacked, the runtime
started); the client is boto3 on one connection, so the figures include an SDK's round trips.

    python benches/lambda_functions.py [--functions N] [--warm N] [--idle N]

`make bench-lambda` runs it with the release binary.
"""

import argparse
import io
import json
import os
import shutil
import statistics
import tempfile
import time
import zipfile

import boto3
from botocore.config import Config

from harness import Server, free_port

TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)
SOURCES = {
    "python3.12": ("app.py", "app.handler", "def handler(event, context):\n    return event\n"),
    "nodejs20.x": ("index.js", "index.handler", "exports.handler = async (event) => event;\n"),
}
IDLE_TIMEOUT = 2


def package(file, text):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(file, text)
    return buffer.getvalue()


def client(service, port):
    return boto3.client(
        service,
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"max_attempts": 1}, read_timeout=120),
    )


def create(lam, role, name, runtime):
    file, handler, text = SOURCES[runtime]
    lam.create_function(
        FunctionName=name, Runtime=runtime, Role=role, Handler=handler, Code={"ZipFile": package(file, text)}
    )


def descendants(pid):
    """The processes under `pid`, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def ms(seconds):
    return f"{seconds * 1000:.0f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--functions", type=int, default=10, help="cold starts per runtime")
    parser.add_argument("--warm", type=int, default=500, help="warm invokes")
    parser.add_argument("--idle", type=int, default=20, help="functions invoked once before idling")
    parser.add_argument("--stratus", default=os.environ.get("STRATUS_BIN", "target/release/stratus"))
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="stratus-lambda-bench-")
    port = free_port()
    argv = [args.stratus, "--listen", f"127.0.0.1:{port}", "--data-dir", os.path.join(data, "d")]
    server = Server("stratus", argv + ["--lambda-idle-timeout", str(IDLE_TIMEOUT)], port)
    try:
        lam = client("lambda", port)
        role = client("iam", port).create_role(RoleName="bench", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
        print(f"{'measurement':<44} {'p50':>8} {'max':>8}")
        for runtime in SOURCES:
            times = []
            for i in range(args.functions):
                name = f"cold-{runtime.replace('.', '')}-{i}"
                start = time.perf_counter()
                create(lam, role, name, runtime)
                lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read()
                times.append(time.perf_counter() - start)
            label = f"CreateFunction to first response, {runtime}"
            print(f"{label:<44} {ms(statistics.median(times)):>8} {ms(max(times)):>8}")
        create(lam, role, "warm", "python3.12")
        lam.invoke(FunctionName="warm", Payload=b"{}")
        times = []
        for _ in range(args.warm):
            start = time.perf_counter()
            lam.invoke(FunctionName="warm", Payload=b'{"n": 1}')["Payload"].read()
            times.append(time.perf_counter() - start)
        print(f"{'warm Invoke, python3.12 (boto3 round trip)':<44} {ms(statistics.median(times)):>8} {ms(max(times)):>8}")
        server.stop()
        # A fresh server for the idle measurement, so the figures are those of N functions.
        server = Server("stratus", argv + ["--lambda-idle-timeout", str(IDLE_TIMEOUT)], port)
        lam = client("lambda", port)
        for i in range(args.idle):
            create(lam, role, f"idle-{i}", "python3.12")
            lam.invoke(FunctionName=f"idle-{i}", Payload=b"{}")["Payload"].read()
        pid = server.proc.pid
        print(f"after invoking {args.idle} functions once: {len(descendants(pid))} processes, RSS {rss_mb(pid):.1f} MB")
        time.sleep(IDLE_TIMEOUT + 2)
        print(
            f"{IDLE_TIMEOUT + 2} s later (idle timeout {IDLE_TIMEOUT} s): "
            f"{len(descendants(pid))} processes, RSS {rss_mb(pid):.1f} MB"
        )
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
