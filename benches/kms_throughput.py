"""KMS throughput over a socket: Encrypt and Decrypt with a symmetric key, on Stratus (strict
durability and --ephemeral) and moto's server, side by side, driven by the same client loop.

The client speaks awsJson1_1 over keep-alive HTTP connections from several threads, with
request bodies built once, so the figures measure the servers rather than an SDK's per-call
overhead. Each round runs every server in turn; the report gives the median of the rounds.

    python benches/kms_throughput.py [--requests N] [--threads T] [--rounds R]

`make bench-kms` runs it with the release binary and the test virtualenv (where moto is).
"""

import base64
import json

from harness import JsonClient, arguments, compare, connect, run_threads

KMS = JsonClient("kms", "TrentService", "application/x-amz-json-1.1")


def measure(server, args):
    """Requests a second for each workload on `server`."""
    conn = connect(server)
    key = KMS.call(conn, "CreateKey", {"Description": "bench"})["KeyMetadata"]["KeyId"]
    plaintext = base64.b64encode(b"x" * 256).decode()
    context = {"purpose": "bench"}
    blob = KMS.call(conn, "Encrypt", {"KeyId": key, "Plaintext": plaintext, "EncryptionContext": context})["CiphertextBlob"]
    conn.close()
    per_thread = args.requests // args.threads
    encrypt = json.dumps({"KeyId": key, "Plaintext": plaintext, "EncryptionContext": context})
    decrypt = json.dumps({"CiphertextBlob": blob, "EncryptionContext": context})

    def loop(body, target):
        def work(c, _):
            for _ in range(per_thread):
                KMS.raw(c, target, body)

        return work

    total = per_thread * args.threads
    return {
        "Encrypt (256 B)": total / run_threads(server.port, args.threads, loop(encrypt, "Encrypt")),
        "Decrypt (256 B)": total / run_threads(server.port, args.threads, loop(decrypt, "Decrypt")),
    }


def main():
    compare(arguments(__doc__, requests=4000), measure)


if __name__ == "__main__":
    main()
