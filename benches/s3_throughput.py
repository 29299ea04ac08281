"""S3 throughput over a socket: Stratus (strict durability and --ephemeral) and moto's server,
side by side, driven by the same client loop.

The client speaks S3's REST API with path-style URLs over keep-alive HTTP connections from
several threads, with a fixed (unverified) SigV4 header and an unsigned payload, and bodies
built once, so the figures measure the servers rather than an SDK's per-call overhead (no
checksums are computed on either side of the wire beyond what each server does on its own).
Each round runs every server in turn; the report gives the median of the rounds.

Workloads: PUT and GET of 1 KiB objects (`--requests` of each, every request a new key), and
PUT and GET of 16 MiB objects (`--requests` / 50 of each).

    python benches/s3_throughput.py [--requests N] [--threads T] [--rounds R]

`make bench-s3` runs it with the release binary and the test virtualenv (where moto is).
"""

import time

from harness import arguments, compare, connect, run_threads

KIB = 1024
MIB = 1024 * KIB
LARGE_DIVISOR = 50


class RestClient:
    """Path-style S3 requests with a fixed SigV4 Authorization header (no server here checks
    signatures) and `x-amz-content-sha256: UNSIGNED-PAYLOAD`."""

    headers = {
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64,
        "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        "x-amz-date": "20240101T000000Z",
    }

    def request(self, conn, method, path, body=None, expect_length=None):
        """The answer's bytes; fails unless it is a 200 (and, if given, of `expect_length` bytes)."""
        conn.request(method, path, body=body, headers=self.headers)
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        if expect_length is not None and len(data) != expect_length:
            raise RuntimeError(f"{method} {path}: {len(data)} bytes, expected {expect_length}")
        return data


S3 = RestClient()


def measure(server, args):
    """Requests a second for each workload on `server`."""
    bucket = f"bench-{time.monotonic_ns()}"
    conn = connect(server)
    S3.request(conn, "PUT", f"/{bucket}")
    conn.close()
    per_thread = max(1, args.requests // args.threads)
    large_per_thread = max(1, per_thread // LARGE_DIVISOR)
    small = b"s" * KIB
    large = bytes(range(256)) * (16 * MIB // 256)

    def put_small(c, t):
        for i in range(per_thread):
            S3.request(c, "PUT", f"/{bucket}/small/{t}/{i}", body=small)

    def get_small(c, t):
        for i in range(per_thread):
            S3.request(c, "GET", f"/{bucket}/small/{t}/{i}", expect_length=KIB)

    def put_large(c, t):
        for i in range(large_per_thread):
            S3.request(c, "PUT", f"/{bucket}/large/{t}/{i}", body=large)

    def get_large(c, t):
        for i in range(large_per_thread):
            S3.request(c, "GET", f"/{bucket}/large/{t}/{i}", expect_length=len(large))

    total, large_total = per_thread * args.threads, large_per_thread * args.threads
    return {
        "PUT 1 KiB": total / run_threads(server.port, args.threads, put_small),
        "GET 1 KiB": total / run_threads(server.port, args.threads, get_small),
        "PUT 16 MiB": large_total / run_threads(server.port, args.threads, put_large),
        "GET 16 MiB": large_total / run_threads(server.port, args.threads, get_large),
    }


def main():
    args = arguments(__doc__, requests=2000)
    medians = compare(args, measure)
    large = max(1, args.requests // args.threads // LARGE_DIVISOR) * args.threads
    print(f"16 MiB workloads: {large} requests of each; as MiB/s:")
    for name, figures in medians.items():
        print(f"  {name}: PUT {figures['PUT 16 MiB'] * 16:.0f} MiB/s, GET {figures['GET 16 MiB'] * 16:.0f} MiB/s")


if __name__ == "__main__":
    main()
