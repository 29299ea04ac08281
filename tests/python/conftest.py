"""Starts the real stratus binary for the tests and hands out real AWS clients for it.

The binary is `$STRATUS_BIN` (the Makefile sets it to the release build). Each server listens
on a free loopback port: stratus is started with `--listen 127.0.0.1:0` and prints the address
it bound in its first line, so there is no race for a port.
"""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile

import boto3
import pytest
from botocore.config import Config

BIN = os.environ.get("STRATUS_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "target", "release", "stratus"))
# The benchmarks' compiled load generator (benches/loadgen), built beside the binary.
LOADGEN = os.environ.get("STRATUS_LOADGEN", os.path.join(os.path.dirname(BIN), "stratus-loadgen"))
ACCOUNT = "000000000000"


class Stratus:
    """A running stratus process."""

    def __init__(self, *args):
        # The log (a line per request) goes to a file: a pipe no one reads would fill and
        # stall the server.
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [BIN, "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        line = self.proc.stdout.readline().strip()
        if not line.startswith("stratus listening on "):
            self.proc.kill()
            raise RuntimeError(f"stratus did not start: {line!r} {self.log()}")
        self.endpoint = line.removeprefix("stratus listening on ")

    def client(self, service, data_path=None, region="us-east-1", signature_version=None, **credentials):
        """A boto3 client for `service`; `data_path` puts a directory of botocore models
        ahead of botocore's own (see `query_models`); `signature_version` is botocore's (`s3v4`,
        or `s3` for SigV2), which also decides how presigned URLs and POST policies are signed."""
        credentials.setdefault("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE")
        credentials.setdefault("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        # The default session caches the models it loads; one with its own data path cannot.
        session = boto3.DEFAULT_SESSION or boto3.setup_default_session() or boto3.DEFAULT_SESSION
        if data_path:
            session = boto3.session.Session()
            session._session.get_component("data_loader").search_paths.insert(0, str(data_path))
        return session.client(
            service,
            endpoint_url=self.endpoint,
            region_name=region,
            # Client-side checks off, so the server's own refusals are what the tests see.
            config=Config(
                retries={"max_attempts": 1}, parameter_validation=False, signature_version=signature_version
            ),
            **credentials,
        )

    def advance(self, seconds):
        """Moves a manual clock (`--clock manual`) `seconds` forward; returns once the background
        work that became due (sweeps, expired waits) has run."""
        request = urllib.request.Request(f"{self.endpoint}/_stratus/clock?advance={seconds}", method="POST")
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def now(self):
        """The server's time, in seconds since the epoch."""
        with urllib.request.urlopen(f"{self.endpoint}/_stratus/clock", timeout=10) as response:
            return json.load(response)["epochMillis"] / 1000

    def thread_names(self):
        """The names of the process's threads (Linux `/proc`)."""
        names = []
        for task in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{task}/comm") as comm:
                    names.append(comm.read().strip())
            except FileNotFoundError:  # a thread that ended meanwhile
                pass
        return names

    def log(self):
        """What the server has written to stderr so far."""
        self.stderr.seek(0)
        return self.stderr.read()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=15)
        self.proc.stdout.close()
        self.stderr.close()
        return self.proc.returncode


# The last botocore release whose SQS model is awsQuery: what SDKs sent before SQS moved to JSON.
QUERY_BOTOCORE = "botocore==1.31.0"
QUERY_MODELS = os.path.join(os.path.dirname(sys.executable), "..", "query-models")


def acknowledged_until_sigkill(server, service, write, writers=4, seconds=(0.5, 1.0)):
    """Calls `write(client, writer, i)` from `writers` threads, each with its own client of
    `service`, until the server is killed with SIGKILL after a random time within `seconds`;
    answers what every acknowledged call returned."""
    acknowledged = []
    lock = threading.Lock()
    stop = threading.Event()
    # boto3 clients are made here: creating them from several threads at once is not safe.
    clients = [server.client(service) for _ in range(writers)]

    def writer(n):
        i = 0
        while not stop.is_set():
            try:
                result = write(clients[n], n, i)
            except Exception:
                return  # the server is gone
            with lock:
                acknowledged.append(result)
            i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    time.sleep(random.uniform(*seconds))
    server.stop(signal.SIGKILL)
    stop.set()
    for t in threads:
        t.join()
    assert acknowledged, "no write was acknowledged before the kill"
    return acknowledged


@pytest.fixture(scope="session")
def query_models():
    """A botocore data path holding the awsQuery SQS model of QUERY_BOTOCORE, fetched from
    PyPI into the virtualenv on first use."""
    model = os.path.join(QUERY_MODELS, "sqs", "2012-11-05", "service-2.json")
    if not os.path.exists(model):
        with tempfile.TemporaryDirectory() as download:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", QUERY_BOTOCORE, "-d", download],
                check=True,
            )
            [wheel] = [f for f in os.listdir(download) if f.endswith(".whl")]
            with zipfile.ZipFile(os.path.join(download, wheel)) as z:
                data = z.read("botocore/data/sqs/2012-11-05/service-2.json")
        os.makedirs(os.path.dirname(model), exist_ok=True)
        # Written aside and renamed: test workers running at once may fetch it together.
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(model), delete=False) as f:
            f.write(data)
        os.replace(f.name, model)
    return QUERY_MODELS


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral")
    yield server
    server.stop()


@pytest.fixture
def sts(stratus):
    return stratus.client("sts")
