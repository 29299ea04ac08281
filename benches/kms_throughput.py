"""KMS throughput over a socket: Encrypt and Decrypt of 256 bytes with a symmetric key and an
encryption context, on Stratus (strict durability and --ephemeral) and moto's server, side by
side, driven by the same client.

The requests are awsJson1_1 bodies built once and sent by the compiled load generator
(benches/loadgen) on --connections keep-alive connections, since a Python client cannot send
them as fast as Stratus answers. Each round runs every server in turn; the report gives the
median of the rounds.

    python benches/kms_throughput.py [--requests N] [--connections C] [--rounds R]

`make bench-kms` runs it with the release binary and the test virtualenv (where moto is).
"""

import base64
import json

from harness import JsonClient, arguments, compare, connect, drive

KMS = JsonClient("kms", "TrentService", "application/x-amz-json-1.1")


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    key = KMS.call(conn, "CreateKey", {"Description": "bench"})["KeyMetadata"]["KeyId"]
    plaintext = base64.b64encode(b"x" * 256).decode()
    context = {"purpose": "bench"}
    blob = KMS.call(conn, "Encrypt", {"KeyId": key, "Plaintext": plaintext, "EncryptionContext": context})["CiphertextBlob"]
    conn.close()
    encrypt = KMS.request("Encrypt", json.dumps({"KeyId": key, "Plaintext": plaintext, "EncryptionContext": context}))
    decrypt = KMS.request("Decrypt", json.dumps({"CiphertextBlob": blob, "EncryptionContext": context}))
    return {
        "Encrypt (256 B)": args.requests / drive(server, args, [encrypt]),
        "Decrypt (256 B)": args.requests / drive(server, args, [decrypt]),
    }


def main():
    compare(arguments(__doc__, requests=20000), measure)


if __name__ == "__main__":
    main()
