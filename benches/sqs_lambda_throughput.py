"""SQS → Lambda through the whole binary, as issue 18 measures it: how fast an event source
mapping with `BatchSize` 10 empties a queue into a trivial Python handler.

The queue is filled while the mapping is disabled (SendMessageBatch from several threads),
then the mapping is enabled and the clock runs until the queue holds no message, visible or
in flight: every message received, handed to the function in batches of ten and deleted on
success. Each round uses a fresh queue and mapping on one server per durability mode.

    python benches/sqs_lambda_throughput.py [--messages N] [--rounds N]

`make bench-sqs-lambda` runs it with the release binary.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time

from harness import Server, free_port
from lambda_functions import TRUST, client, package

HANDLER = "def handler(event, context):\n    return None\n"
BATCH = 10


def fill(sqs, url, messages, threads):
    """Sends `messages` bodies to `url` in batches of ten from `threads` threads."""
    batches = [range(start, min(start + BATCH, messages)) for start in range(0, messages, BATCH)]

    def send(part):
        for batch in part:
            entries = [{"Id": str(i), "MessageBody": f"message {i}"} for i in batch]
            failed = sqs.send_message_batch(QueueUrl=url, Entries=entries).get("Failed")
            assert not failed, failed

    workers = [threading.Thread(target=send, args=(batches[i::threads],)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def left(sqs, url):
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return sum(int(attributes[name]) for name in names)


def wait_for_state(lam, uuid, state):
    deadline = time.monotonic() + 30
    while lam.get_event_source_mapping(UUID=uuid)["State"] != state:
        if time.monotonic() > deadline:
            raise RuntimeError(f"mapping {uuid} never became {state}")
        time.sleep(0.05)


def drain_rate(port, role, round_no, messages, threads):
    """Messages per second from enabling a mapping to an empty queue."""
    lam, sqs = client("lambda", port), client("sqs", port)
    name = f"drain-{round_no}"
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    lam.create_function(
        FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler", Code={"ZipFile": package("app.py", HANDLER)}
    )
    uuid = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=name, BatchSize=BATCH, Enabled=False)["UUID"]
    wait_for_state(lam, uuid, "Disabled")
    fill(sqs, url, messages, threads)
    start = time.perf_counter()
    lam.update_event_source_mapping(UUID=uuid, Enabled=True)
    while left(sqs, url):
        time.sleep(0.02)
    return messages / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=5000, help="messages per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4, help="threads filling the queue")
    parser.add_argument("--stratus", default=os.environ.get("STRATUS_BIN", "target/release/stratus"))
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="stratus-sqs-lambda-bench-")
    print(f"{'workload':<44} {'median msg/s':>12} {'rounds':>24}")
    try:
        for mode, flags in (("strict", ["--data-dir", os.path.join(data, "d")]), ("ephemeral", ["--ephemeral"])):
            port = free_port()
            server = Server(f"stratus ({mode})", [args.stratus, "--listen", f"127.0.0.1:{port}", *flags], port)
            try:
                role = client("iam", port).create_role(RoleName="bench", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
                rates = [drain_rate(port, role, r, args.messages, args.threads) for r in range(args.rounds)]
            finally:
                server.stop()
            label = f"SQS -> Lambda, BatchSize {BATCH}, stratus ({mode})"
            shown = ", ".join(f"{rate:,.0f}" for rate in rates)
            print(f"{label:<44} {statistics.median(rates):>12,.0f} {shown:>24}")
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
