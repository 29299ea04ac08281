"""One large S3 object up and down over a socket, with the server's peak resident memory:
issue 7's bar is under 64 MB for a 1 GiB object, whatever its size.

The client streams the body from a generator (it never holds it either) with an unsigned
payload, path-style, into a Stratus with a data directory (strict durability); then reads it
back in 1 MiB pieces and checks its SHA-256. The server's `VmHWM` is read from /proc.

    python benches/s3_large_object.py [--mib N]

`make bench-s3-large` runs it with the release binary.
"""

import argparse
import hashlib
import http.client
import os
import shutil
import tempfile
import time

from harness import Server, free_port

MIB = 1 << 20
HEADERS = {
    "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
    "x-amz-date": "20260101T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/s3/aws4_request, "
    "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64,
}


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request(method, path, body=body, headers={**HEADERS, **(headers or {})})
    return conn, conn.getresponse()


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mib", type=int, default=1024)
    parser.add_argument("--stratus", default=os.environ.get("STRATUS_BIN", "target/release/stratus"))
    args = parser.parse_args()
    chunk = os.urandom(MIB)
    expected = hashlib.sha256()
    for _ in range(args.mib):
        expected.update(chunk)

    data_dir = tempfile.mkdtemp(prefix="stratus-bench-")
    port = free_port()
    server = Server("stratus", [args.stratus, "--listen", f"127.0.0.1:{port}", "--data-dir", data_dir], port)
    try:
        conn, response = request(port, "PUT", "/large-object-bench")
        response.read()
        conn.close()
        started = time.perf_counter()
        conn, response = request(
            port,
            "PUT",
            "/large-object-bench/object",
            body=(chunk for _ in range(args.mib)),
            headers={"Content-Length": str(args.mib * MIB)},
        )
        answer = response.read()
        conn.close()
        if response.status != 200:
            raise RuntimeError(f"PUT: {response.status} {answer[:200]!r}")
        put_seconds = time.perf_counter() - started
        after_put = peak_rss_mb(server.proc.pid)

        started = time.perf_counter()
        conn, response = request(port, "GET", "/large-object-bench/object")
        received = hashlib.sha256()
        while data := response.read(MIB):
            received.update(data)
        conn.close()
        get_seconds = time.perf_counter() - started
        if received.digest() != expected.digest():
            raise RuntimeError("the object came back different")
        peak = peak_rss_mb(server.proc.pid)
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    print(f"{args.mib} MiB object, strict durability")
    print(f"PUT  {put_seconds:6.2f} s  {args.mib / put_seconds:7.0f} MiB/s  peak RSS after PUT {after_put:.1f} MB")
    print(f"GET  {get_seconds:6.2f} s  {args.mib / get_seconds:7.0f} MiB/s  peak RSS after GET {peak:.1f} MB")


if __name__ == "__main__":
    main()
