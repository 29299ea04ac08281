"""Acknowledged writes survive `kill -9`: the real binary, concurrent strict writes (STS
credentials), SIGKILL at a random moment, restart, and every acknowledged credential works."""

import json
import random
import signal
import threading
import time

from conftest import Stratus

ROLE = "arn:aws:iam::123456789012:role/crash-test"


def test_acknowledged_credentials_survive_sigkill(tmp_path):
    data_dir = str(tmp_path / "data")
    rng = random.Random(20261129)
    for round_no in range(3):
        server = Stratus("--data-dir", data_dir)
        if round_no == 0:
            # Sessions are issued only for a role IAM has (itself durable: it is there each round).
            trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
            server.client("iam", aws_access_key_id="123456789012").create_role(
                RoleName="crash-test", AssumeRolePolicyDocument=json.dumps(trust)
            )
        acknowledged = []
        lock = threading.Lock()
        stop = threading.Event()

        # boto3 clients are made here: creating them from several threads at once is not safe.
        clients = [server.client("sts") for _ in range(8)]

        def writer(n):
            sts = clients[n]
            i = 0
            while not stop.is_set():
                try:
                    creds = sts.assume_role(RoleArn=ROLE, RoleSessionName=f"r{round_no}-w{n}-{i}")["Credentials"]
                except Exception:
                    return  # the server is gone
                with lock:
                    acknowledged.append(creds)
                i += 1

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.3, 1.0))
        server.stop(signal.SIGKILL)
        stop.set()
        for t in threads:
            t.join()
        assert acknowledged, "no write was acknowledged before the kill"

        server = Stratus("--data-dir", data_dir)
        try:
            for creds in acknowledged:
                who = server.client(
                    "sts",
                    aws_access_key_id=creds["AccessKeyId"],
                    aws_secret_access_key=creds["SecretAccessKey"],
                    aws_session_token=creds["SessionToken"],
                ).get_caller_identity()
                assert who["Arn"].startswith("arn:aws:sts::123456789012:assumed-role/crash-test/")
        finally:
            server.stop()


def test_second_process_on_the_same_data_dir_fails_at_once(tmp_path):
    import subprocess
    from conftest import BIN

    first = Stratus("--data-dir", str(tmp_path))
    try:
        started = time.monotonic()
        second = subprocess.run([BIN, "--listen", "127.0.0.1:0", "--data-dir", str(tmp_path)],
                                capture_output=True, text=True, timeout=10)
        assert second.returncode != 0
        assert time.monotonic() - started < 5
        assert "lock" in second.stderr.lower() or "in use" in second.stderr.lower(), second.stderr
    finally:
        first.stop()


def test_untouched_data_dir_holds_no_database(tmp_path):
    server = Stratus("--data-dir", str(tmp_path))
    server.client("sts").get_caller_identity()
    server.stop()
    assert not list(tmp_path.rglob("*.redb"))
