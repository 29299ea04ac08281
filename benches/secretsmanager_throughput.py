"""Secrets Manager throughput over a socket: GetSecretValue of a 256-byte string (decrypted by
KMS on every read), on Stratus (strict durability and --ephemeral) and moto's server, side by
side, driven by the same client.

The requests are awsJson1_1 bodies built once and sent by the compiled load generator
(benches/loadgen) on --connections keep-alive connections. Each round
runs every server in turn; the report gives the median of the rounds.

    python benches/secretsmanager_throughput.py [--requests N] [--connections C] [--rounds R]
"""

import itertools
import json

from harness import JsonClient, arguments, compare, connect, drive

SM = JsonClient("secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
# Rounds run on the same servers: each measures a secret of its own.
ROUNDS = itertools.count()


def measure(server, args):
    """Requests a second for each workload on `server`."""
    name = f"bench-{next(ROUNDS)}"
    conn = connect(server)
    SM.call(conn, "CreateSecret", {"Name": name, "SecretString": "x" * 256, "ClientRequestToken": "0" * 32 + "-init"})
    conn.close()
    get = SM.request("GetSecretValue", json.dumps({"SecretId": name}))
    return {
        "GetSecretValue (256 B)": args.requests / drive(server, args, [get]),
    }


def main():
    compare(arguments(__doc__, requests=20000), measure)


if __name__ == "__main__":
    main()
