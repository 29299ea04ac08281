"""The side-by-side benchmark scripts still run (with tiny counts: figures come from `make bench-*`)."""

import os
import subprocess
import sys

import pytest
from conftest import BIN, LOADGEN

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.mark.parametrize(
    "script,workloads",
    [
        ("sqs_throughput.py", ["SendMessage", "ReceiveMessage+DeleteMessage", "SendMessageBatch(10)"]),
        ("dynamodb_throughput.py", ["PutItem", "GetItem", "Query (100 of 500 items)", "Scan (500 items, one client)"]),
        ("s3_throughput.py", ["PUT 1 KiB", "GET 1 KiB", "PUT 16 MiB", "GET 16 MiB"]),
        ("logs_throughput.py", ["PutLogEvents(1)", "PutLogEvents(100), calls", "FilterLogEvents, whole filters"]),
        ("kms_throughput.py", ["Encrypt (256 B)", "Decrypt (256 B)"]),
        ("secretsmanager_throughput.py", ["GetSecretValue (256 B)"]),
        ("ssm_throughput.py", ["GetParameter (String)", "GetParameter (SecureString)", "PutParameter (overwrite)"]),
        ("kinesis_throughput.py", ["PutRecords(500), calls", "GetRecords(500), calls"]),
    ],
)
def test_throughput_script_runs(script, workloads):
    # Each script with its smallest load: loading 10,000 items into moto takes most of a minute.
    small = ["--partitions", "5"] if script == "dynamodb_throughput.py" else []
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benches", script), "--requests", "20", "--threads", "2", "--rounds", "1", "--stratus", BIN, "--loadgen", LOADGEN, *small],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for workload in workloads:
        assert any(line.startswith(workload) for line in lines), done.stdout


def test_large_object_script_runs():
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benches", "s3_large_object.py"), "--mib", "4", "--stratus", BIN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "peak RSS after GET" in done.stdout, done.stdout


def test_lambda_script_runs():
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benches", "lambda_functions.py"), "--functions", "1", "--warm", "2", "--idle", "2", "--stratus", BIN],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "CreateFunction to first response, nodejs20.x" in done.stdout, done.stdout
    # The instances are gone once idle.
    assert "later (idle timeout 2 s): 0 processes" in done.stdout, done.stdout


def test_sqs_lambda_script_runs():
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benches", "sqs_lambda_throughput.py"), "--messages", "20", "--rounds", "1", "--stratus", BIN],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "SQS -> Lambda, BatchSize 10, stratus (ephemeral)" in done.stdout, done.stdout
