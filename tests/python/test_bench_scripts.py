"""The side-by-side benchmark scripts still run (with tiny counts: figures come from `make bench-*`)."""

import os
import subprocess
import sys

from conftest import BIN

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_sqs_throughput_script_runs():
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benches", "sqs_throughput.py"), "--requests", "20", "--threads", "2", "--rounds", "1", "--stratus", BIN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for workload in ["SendMessage", "ReceiveMessage+DeleteMessage", "SendMessageBatch(10)"]:
        assert any(line.startswith(workload) for line in lines), done.stdout
