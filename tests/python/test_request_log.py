"""The request log: one line per request on stderr (service.operation, status, error code,
duration, request id), more at debug, as JSON with `--log-format json`, none when quieted."""

import json
import signal

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus


def log_of(server):
    """Stops `server` and returns what it wrote to stderr."""
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(timeout=15)
    text = server.log()
    server.stop()
    return text


def test_each_request_is_one_json_line_with_its_operation_status_and_error():
    server = Stratus("--ephemeral", "--log-format", "json")
    sqs = server.client("sqs")
    sqs.create_queue(QueueName="logged")
    with pytest.raises(ClientError) as err:
        sqs.get_queue_url(QueueName="missing")
    failed_id = err.value.response["ResponseMetadata"]["RequestId"]
    lines = [json.loads(line) for line in log_of(server).splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["target"] == "stratus::request"]
    assert [r["fields"]["message"] for r in requests] == ["sqs.CreateQueue", "sqs.GetQueueUrl"]
    created, failed = requests
    assert created["level"] == "INFO"
    assert created["fields"]["status"] == 200
    assert "error" not in created["fields"]
    assert created["fields"]["duration_ms"] >= 0
    assert len(created["fields"]["request_id"]) == 36
    assert failed["fields"]["status"] == 400
    assert failed["fields"]["error"] == "QueueDoesNotExist"
    assert failed["fields"]["request_id"] == failed_id


def test_debug_adds_routing_headers_and_sizes_and_trace_the_bodies():
    server = Stratus("--ephemeral", "--log-level", "trace", "--services", "sts")
    server.client("sts").get_caller_identity()
    log = log_of(server)
    lines = [line for line in log.splitlines() if "stratus::request" in line and "sts.GetCallerIdentity" in line]
    assert len(lines) == 3, log
    info, debug, trace = lines
    assert " INFO " in info and "status=200" in info
    assert " DEBUG " in debug and "routing=\"AwsQuery\"" in debug and "request_bytes=43" in debug
    assert "user-agent: " in debug.lower()
    assert " TRACE " in trace and "Action=GetCallerIdentity" in trace and "GetCallerIdentityResponse" in trace


def test_a_request_no_operation_takes_is_logged_by_method_and_path():
    server = Stratus("--ephemeral")
    import urllib.request
    urllib.request.urlopen(server.endpoint + "/_stratus/health", timeout=10).read()
    log = log_of(server)
    assert any("GET /_stratus/health" in line and "status=200" in line for line in log.splitlines()), log


def test_quiet_requests_leaves_them_out():
    server = Stratus("--ephemeral", "--quiet-requests")
    server.client("sts").get_caller_identity()
    assert "stratus::request" not in log_of(server)
