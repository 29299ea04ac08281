"""Starts the real stratus binary for the tests and hands out real AWS clients for it.

The binary is `$STRATUS_BIN` (the Makefile sets it to the release build). Each server listens
on a free loopback port: stratus is started with `--listen 127.0.0.1:0` and prints the address
it bound in its first line, so there is no race for a port.
"""

import os
import signal
import subprocess

import boto3
import pytest
from botocore.config import Config

BIN = os.environ.get("STRATUS_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "target", "release", "stratus"))
ACCOUNT = "000000000000"


class Stratus:
    """A running stratus process."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [BIN, "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline().strip()
        if not line.startswith("stratus listening on "):
            self.proc.kill()
            raise RuntimeError(f"stratus did not start: {line!r} {self.proc.stderr.read()}")
        self.endpoint = line.removeprefix("stratus listening on ")

    def client(self, service, **credentials):
        credentials.setdefault("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE")
        credentials.setdefault("aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            # Client-side checks off, so the server's own refusals are what the tests see.
            config=Config(retries={"max_attempts": 1}, parameter_validation=False),
            **credentials,
        )

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=15)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral")
    yield server
    server.stop()


@pytest.fixture
def sts(stratus):
    return stratus.client("sts")
