"""SQS throughput over a socket: Stratus (strict durability and --ephemeral) and moto's server,
side by side, driven by the same client loop.

The client speaks awsJson1_0 over keep-alive HTTP connections from several threads, with
request bodies built once, so the figures measure the servers rather than an SDK's per-call
overhead. Each round runs every server in turn; the report gives the median of the rounds.

    python benches/sqs_throughput.py [--requests N] [--threads T] [--rounds R]

`make bench-sqs` runs it with the release binary and the test virtualenv (where moto is).
"""

import json
import time

from harness import JsonClient, arguments, compare, connect, run_threads

SQS = JsonClient("sqs", "AmazonSQS", "application/x-amz-json-1.0")


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    # The single sends fill the queue the receives drain; the batches go to a queue of their own.
    url, batch_url = (SQS.call(conn, "CreateQueue", {"QueueName": f"bench-{time.monotonic_ns()}"})["QueueUrl"] for _ in range(2))
    conn.close()
    per_thread = args.requests // args.threads
    send = json.dumps({"QueueUrl": url, "MessageBody": "x" * 100})
    batch = json.dumps({"QueueUrl": batch_url, "Entries": [{"Id": str(i), "MessageBody": "x" * 100} for i in range(10)]})
    receive = json.dumps({"QueueUrl": url, "MaxNumberOfMessages": 1})

    def sends(c, _):
        for _ in range(per_thread):
            SQS.raw(c, "SendMessage", send)

    # As many messages as the single sends, in a tenth of the calls.
    batches_per_thread = max(1, per_thread // 10)

    def batches(c, _):
        for _ in range(batches_per_thread):
            SQS.raw(c, "SendMessageBatch", batch)

    def receive_delete(c, _):
        for _ in range(per_thread):
            for m in SQS.call(c, "ReceiveMessage", receive).get("Messages", []):
                SQS.raw(c, "DeleteMessage", json.dumps({"QueueUrl": url, "ReceiptHandle": m["ReceiptHandle"]}))

    total = per_thread * args.threads
    return {
        "SendMessage": total / run_threads(server.port, args.threads, sends),
        "ReceiveMessage+DeleteMessage": total / run_threads(server.port, args.threads, receive_delete),
        "SendMessageBatch(10)": batches_per_thread * args.threads / run_threads(server.port, args.threads, batches),
    }


def main():
    medians = compare(arguments(__doc__, requests=2000), measure)
    print("per-call cost of a 10-entry batch relative to one SendMessage (1.0 = same):")
    for name in list(medians)[:2]:
        print(f"  {name}: {medians[name]['SendMessage'] / medians[name]['SendMessageBatch(10)']:.2f}")


if __name__ == "__main__":
    main()
