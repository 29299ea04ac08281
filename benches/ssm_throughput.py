"""SSM Parameter Store throughput over a socket: GetParameter of a String, GetParameter of a
SecureString with decryption (through KMS in the same process), and PutParameter overwriting
a parameter (a new version each time), on Stratus (strict durability and --ephemeral) and
moto's server, side by side, driven by the same client.

The requests are awsJson1_1 bodies built once and sent by the compiled load generator
(benches/loadgen) on --connections keep-alive connections. Each round runs every server in
turn; the report gives the median of the rounds.

    python benches/ssm_throughput.py [--requests N] [--connections C] [--rounds R]

Run it with the release binary and the test virtualenv (where moto is), as `make bench-kms`
runs its sibling: STRATUS_BIN=target/release/stratus STRATUS_LOADGEN=target/release/stratus-loadgen.
"""

import json

from harness import JsonClient, arguments, compare, connect, drive

SSM = JsonClient("ssm", "AmazonSSM", "application/x-amz-json-1.1")


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    SSM.call(conn, "PutParameter", {"Name": "/bench/plain", "Value": "x" * 256, "Type": "String", "Overwrite": True})
    SSM.call(conn, "PutParameter", {"Name": "/bench/secret", "Value": "x" * 256, "Type": "SecureString", "Overwrite": True})
    conn.close()
    get = SSM.request("GetParameter", json.dumps({"Name": "/bench/plain"}))
    secret = SSM.request("GetParameter", json.dumps({"Name": "/bench/secret", "WithDecryption": True}))
    # Each put overwrites one parameter: a new version, the oldest dropped past 100 (both servers).
    put = SSM.request("PutParameter", json.dumps({"Name": "/bench/put", "Value": "v@SEQUENCE@", "Type": "String", "Overwrite": True}))
    return {
        "GetParameter (String)": args.requests / drive(server, args, [get]),
        "GetParameter (SecureString)": args.requests / drive(server, args, [secret]),
        "PutParameter (overwrite)": args.requests / drive(server, args, [put]),
    }


def main():
    compare(arguments(__doc__, requests=10000), measure)


if __name__ == "__main__":
    main()
