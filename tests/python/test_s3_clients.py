"""S3 through the AWS CLI (`aws s3` and `aws s3api`) and boto3's managed transfers: the
high-level clients people point at an emulator, with their multipart uploads, ranged parallel
downloads, sync's comparisons and presigned URLs."""

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest

AWS = os.path.join(os.path.dirname(sys.executable), "aws")
MIB = 1024 * 1024


def cli(stratus, *args, check=True, cwd=None, config=None):
    """Runs `aws --endpoint-url ... ARGS` in `cwd` (the CLI reports local paths relative to
    it); returns stdout (and fails on a non-zero exit unless `check` is false, when it returns
    the CompletedProcess). Transfers run with `--no-progress`, so stdout has one line a file.
    `config` is the path of an AWS config file (none by default)."""
    if args[0] == "s3" and args[1] in ("cp", "mv", "sync"):
        args = (*args, "--no-progress")
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(config or os.devnull),
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PAGER": "",
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=cwd,
    )
    if not check:
        return done
    assert done.returncode == 0, f"aws {' '.join(args)}: {done.stderr}"
    return done.stdout


def s3api(stratus, *args):
    out = cli(stratus, "s3api", *args)
    return json.loads(out) if out.strip() else {}


@pytest.fixture
def bucket(stratus):
    name = f"cli-{uuid.uuid4().hex[:12]}"
    assert cli(stratus, "s3", "mb", f"s3://{name}").strip() == f"make_bucket: {name}"
    return name


def pattern(size, seed=0):
    """Deterministic bytes that differ from offset to offset (cheaper than os.urandom for MiBs)."""
    block = hashlib.sha256(f"{seed}".encode()).digest() * 2048  # 64 KiB
    data = bytearray()
    i = 0
    while len(data) < size:
        data += hashlib.sha256(block[:32] + i.to_bytes(4, "big")).digest() + block[32:]
        i += 1
    return bytes(data[:size])


def test_mb_and_ls_buckets(stratus, bucket):
    listed = cli(stratus, "s3", "ls")
    assert re.search(rf"^\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d {bucket}$", listed, re.M), listed
    # Making it again: the CLI reports the service's answer (us-east-1's legacy 200 for the owner).
    again = cli(stratus, "s3", "mb", f"s3://{bucket}", check=False)
    assert again.returncode == 0, again.stderr
    done = cli(stratus, "s3", "mb", "s3://Bad_Name", check=False)
    assert done.returncode != 0 and "InvalidBucketName" in done.stderr
    cli(stratus, "s3", "rb", f"s3://{bucket}")
    assert bucket not in cli(stratus, "s3", "ls")


def test_cp_small_file_up_and_down(stratus, bucket, tmp_path):
    source = tmp_path / "hello.txt"
    source.write_bytes(b"hello from the cli\n")
    out = cli(stratus, "s3", "cp", "hello.txt", f"s3://{bucket}/docs/hello.txt", "--content-type", "text/plain", cwd=tmp_path)
    assert out == f"upload: ./hello.txt to s3://{bucket}/docs/hello.txt\n"
    head = s3api(stratus, "head-object", "--bucket", bucket, "--key", "docs/hello.txt")
    assert head["ContentLength"] == source.stat().st_size
    assert head["ContentType"] == "text/plain"
    assert head["ETag"] == f'"{hashlib.md5(source.read_bytes()).hexdigest()}"'
    back = tmp_path / "back.txt"
    out = cli(stratus, "s3", "cp", f"s3://{bucket}/docs/hello.txt", "back.txt", cwd=tmp_path)
    assert out == f"download: s3://{bucket}/docs/hello.txt to ./back.txt\n"
    assert back.read_bytes() == source.read_bytes()
    # To standard output and back from standard input.
    assert cli(stratus, "s3", "cp", f"s3://{bucket}/docs/hello.txt", "-") == "hello from the cli\n"


def test_cp_20_mib_file_is_multipart_both_ways(stratus, bucket, tmp_path):
    data = pattern(20 * MIB, seed=1)
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    cli(stratus, "s3", "cp", str(source), f"s3://{bucket}/big.bin")
    head = s3api(stratus, "head-object", "--bucket", bucket, "--key", "big.bin", "--checksum-mode", "ENABLED")
    assert head["ContentLength"] == len(data)
    # The CLI's 8 MiB threshold and chunk size: parts of 8, 8 and 4 MiB.
    parts = [data[i : i + 8 * MIB] for i in range(0, len(data), 8 * MIB)]
    md5s = b"".join(hashlib.md5(p).digest() for p in parts)
    assert head["ETag"] == f'"{hashlib.md5(md5s).hexdigest()}-3"'
    assert head["ChecksumCRC32"].endswith("-3")
    back = tmp_path / "back.bin"
    # Downloads of objects over the threshold are ranged GETs on several threads.
    cli(stratus, "s3", "cp", f"s3://{bucket}/big.bin", str(back))
    assert back.stat().st_size == len(data)
    assert hashlib.sha256(back.read_bytes()).digest() == hashlib.sha256(data).digest()


def make_tree(root):
    files = {
        "top.txt": b"top\n",
        "a/one.txt": b"one\n",
        "a/b/two.txt": b"two\n" * 100,
        "a/b/c/three.bin": pattern(300_000, seed=3),
        "d/four.txt": b"",
    }
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    backdate(root)
    return files


def backdate(root):
    """Sets every file's mtime a minute back. `aws s3 sync` uploads a file whose mtime is
    later than the object's LastModified, which has whole seconds (as on AWS): a file written
    in the same second as its upload would go up again on every sync."""
    past = time.time() - 60
    for path in root.rglob("*"):
        os.utime(path, (past, past))


def test_sync_both_ways(stratus, bucket, tmp_path):
    up = tmp_path / "up"
    files = make_tree(up)
    out = cli(stratus, "s3", "sync", "up", f"s3://{bucket}/tree", cwd=tmp_path)
    assert sorted(out.splitlines()) == sorted(f"upload: up/{name} to s3://{bucket}/tree/{name}" for name in files), out
    # Nothing changed: the second sync transfers nothing.
    assert cli(stratus, "s3", "sync", "up", f"s3://{bucket}/tree", cwd=tmp_path) == ""

    down = tmp_path / "down"
    out = cli(stratus, "s3", "sync", f"s3://{bucket}/tree", "down", cwd=tmp_path)
    assert sorted(out.splitlines()) == sorted(f"download: s3://{bucket}/tree/{name} to down/{name}" for name in files), out
    for name, data in files.items():
        assert (down / name).read_bytes() == data, name
    assert cli(stratus, "s3", "sync", f"s3://{bucket}/tree", "down", cwd=tmp_path) == ""

    # A changed and a new file go up; --delete removes what is gone locally.
    (up / "a/one.txt").write_bytes(b"one, changed\n")
    (up / "e.txt").write_bytes(b"new\n")
    (up / "top.txt").unlink()
    out = cli(stratus, "s3", "sync", "up", f"s3://{bucket}/tree", "--delete", cwd=tmp_path)
    assert sorted(out.splitlines()) == sorted(
        [
            f"delete: s3://{bucket}/tree/top.txt",
            f"upload: up/a/one.txt to s3://{bucket}/tree/a/one.txt",
            f"upload: up/e.txt to s3://{bucket}/tree/e.txt",
        ]
    ), out
    cli(stratus, "s3", "sync", f"s3://{bucket}/tree", "down", "--delete", cwd=tmp_path)
    assert (down / "a/one.txt").read_bytes() == b"one, changed\n"
    assert (down / "e.txt").read_bytes() == b"new\n"
    assert not (down / "top.txt").exists()


def test_ls_prefixes_recursive_and_rm(stratus, bucket, tmp_path):
    make_tree(tmp_path)
    cli(stratus, "s3", "sync", str(tmp_path), f"s3://{bucket}/")
    top = cli(stratus, "s3", "ls", f"s3://{bucket}/")
    assert re.findall(r"^\s+PRE (\S+)$", top, re.M) == ["a/", "d/"], top
    assert re.search(r"^\S+ \S+\s+4 top.txt$", top, re.M), top
    nested = cli(stratus, "s3", "ls", f"s3://{bucket}/a/b/")
    assert re.findall(r"^\s+PRE (\S+)$", nested, re.M) == ["c/"]
    assert re.search(r"\s400 two.txt$", nested, re.M), nested
    recursive = cli(stratus, "s3", "ls", f"s3://{bucket}/", "--recursive")
    keys = re.findall(r"^\S+ \S+\s+\d+ (\S+)$", recursive, re.M)
    assert keys == ["a/b/c/three.bin", "a/b/two.txt", "a/one.txt", "d/four.txt", "top.txt"], recursive
    summary = cli(stratus, "s3", "ls", f"s3://{bucket}/a/", "--recursive", "--summarize")
    assert "Total Objects: 3" in summary and f"Total Size: {300_000 + 400 + 4}" in summary

    out = cli(stratus, "s3", "rm", f"s3://{bucket}/a/", "--recursive")
    assert sorted(re.findall(r"^delete: s3://\S+?/(\S+)$", out, re.M)) == ["a/b/c/three.bin", "a/b/two.txt", "a/one.txt"]
    assert re.findall(r"^\S+ \S+\s+\d+ (\S+)$", cli(stratus, "s3", "ls", f"s3://{bucket}/", "--recursive"), re.M) == [
        "d/four.txt",
        "top.txt",
    ]
    cli(stratus, "s3", "rm", f"s3://{bucket}/", "--recursive")
    assert cli(stratus, "s3", "ls", f"s3://{bucket}/", "--recursive").strip() == ""
    cli(stratus, "s3", "rb", f"s3://{bucket}")


def test_presigned_url_fetched_with_urllib(stratus, bucket, tmp_path):
    source = tmp_path / "shared.txt"
    source.write_bytes(b"shared by url")
    cli(stratus, "s3", "cp", str(source), f"s3://{bucket}/some dir/shared.txt")
    # The CLI's default for S3 presigning is query-string SigV2 (AWSAccessKeyId, Signature,
    # Expires); a config file can ask for SigV4 (X-Amz-Credential, X-Amz-Signature, ...).
    config = tmp_path / "config"
    config.write_text("[default]\ns3 =\n    signature_version = s3v4\n")
    for settings, marker in [(None, "Signature="), (config, "X-Amz-Signature=")]:
        url = cli(
            stratus, "s3", "presign", f"s3://{bucket}/some dir/shared.txt", "--expires-in", "300", config=settings
        ).strip()
        assert url.startswith(f"{stratus.endpoint}/{bucket}/some%20dir/shared.txt?") and marker in url, url
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            assert response.read() == b"shared by url"


def test_s3api_put_and_get_object(stratus, bucket, tmp_path):
    source = tmp_path / "in.json"
    source.write_bytes(b'{"answer": 42}')
    put = s3api(
        stratus,
        "put-object",
        "--bucket", bucket,
        "--key", "data/in.json",
        "--body", str(source),
        "--content-type", "application/json",
        "--metadata", "origin=cli,run=1",
        "--tagging", "team=storage",
    )
    assert put["ETag"] == f'"{hashlib.md5(source.read_bytes()).hexdigest()}"'
    out = tmp_path / "out.json"
    got = s3api(stratus, "get-object", "--bucket", bucket, "--key", "data/in.json", str(out))
    assert out.read_bytes() == source.read_bytes()
    assert got["ContentType"] == "application/json"
    assert got["Metadata"] == {"origin": "cli", "run": "1"}
    assert got["ContentLength"] == source.stat().st_size
    assert got["ETag"] == put["ETag"]
    assert got["TagCount"] == 1
    ranged = s3api(stratus, "get-object", "--bucket", bucket, "--key", "data/in.json", "--range", "bytes=1-8", str(out))
    assert ranged["ContentRange"] == f"bytes 1-8/{source.stat().st_size}"
    assert out.read_bytes() == b'"answer"'
    done = cli(stratus, "s3api", "get-object", "--bucket", bucket, "--key", "data/absent", str(out), check=False)
    assert done.returncode != 0 and "NoSuchKey" in done.stderr


def test_boto3_managed_transfers_multipart_and_threads(stratus, bucket):
    from boto3.s3.transfer import TransferConfig

    s3 = stratus.client("s3")
    data = pattern(23 * MIB + 12345, seed=5)
    config = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB, max_concurrency=4, use_threads=True)
    s3.upload_fileobj(io.BytesIO(data), bucket, "managed.bin", Config=config)
    head = s3.head_object(Bucket=bucket, Key="managed.bin")
    assert head["ContentLength"] == len(data)
    assert head["ETag"].endswith('-5"'), head["ETag"]
    parts = [data[i : i + 5 * MIB] for i in range(0, len(data), 5 * MIB)]
    assert head["ETag"] == '"%s-5"' % hashlib.md5(b"".join(hashlib.md5(p).digest() for p in parts)).hexdigest()

    # Downloaded as ranged GETs (a 3 MiB chunk size that does not line up with the parts).
    out = io.BytesIO()
    download = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=3 * MIB, max_concurrency=4, use_threads=True)
    s3.download_fileobj(bucket, "managed.bin", out, Config=download)
    assert out.getvalue() == data

    # And one thread each way gives the same bytes.
    serial = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB, use_threads=False)
    s3.upload_fileobj(io.BytesIO(data[: 11 * MIB]), bucket, "serial.bin", Config=serial)
    out = io.BytesIO()
    s3.download_fileobj(bucket, "serial.bin", out, Config=serial)
    assert out.getvalue() == data[: 11 * MIB]


# Names that need percent-encoding in a URL path, a query (the CLI lists with
# `encoding-type=url`) or XML.
AWKWARD = ["with space.txt", "plus+sign.txt", "ümlaut/straße.txt", "percent%41.txt", "tilde~.txt", "semi;colon&amp=.txt", "quote'.txt", "<angle>.txt"]


def test_sync_and_ls_of_keys_that_need_encoding(stratus, bucket, tmp_path):
    up = tmp_path / "up"
    for i, name in enumerate(AWKWARD):
        (up / name).parent.mkdir(parents=True, exist_ok=True)
        (up / name).write_bytes(f"{i}:{name}".encode())
    backdate(up)
    out = cli(stratus, "s3", "sync", "up", f"s3://{bucket}/", cwd=tmp_path)
    assert len(out.splitlines()) == len(AWKWARD), out
    keys = [o["Key"] for o in stratus.client("s3").list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == sorted(AWKWARD, key=lambda k: k.encode())
    listed = cli(stratus, "s3", "ls", f"s3://{bucket}/", "--recursive")
    assert sorted(re.findall(r"^\S+ \S+\s+\d+ (.+)$", listed, re.M)) == sorted(AWKWARD), listed
    assert cli(stratus, "s3", "sync", "up", f"s3://{bucket}/", cwd=tmp_path) == ""
    cli(stratus, "s3", "sync", f"s3://{bucket}/", "down", cwd=tmp_path)
    for i, name in enumerate(AWKWARD):
        assert (tmp_path / "down" / name).read_bytes() == f"{i}:{name}".encode(), name
    assert cli(stratus, "s3", "sync", f"s3://{bucket}/", "down", cwd=tmp_path) == ""
    out = cli(stratus, "s3", "rm", f"s3://{bucket}/", "--recursive")
    assert len(out.splitlines()) == len(AWKWARD), out
    assert "Contents" not in stratus.client("s3").list_objects_v2(Bucket=bucket)


def test_cp_and_mv_between_buckets(stratus, bucket, tmp_path):
    other = f"cli-{uuid.uuid4().hex[:12]}"
    cli(stratus, "s3", "mb", f"s3://{other}")
    data = pattern(20 * MIB, seed=9)
    (tmp_path / "big.bin").write_bytes(data)
    cli(
        stratus, "s3", "cp", "big.bin", f"s3://{bucket}/big.bin",
        "--metadata", "origin=test", "--content-type", "application/x-big", "--cache-control", "no-cache",
        cwd=tmp_path,
    )
    # Over the threshold, a bucket-to-bucket copy is a multipart upload of UploadPartCopy ranges.
    # (AWS CLI v1 does not carry the source's metadata over to such an upload; with REPLACE it
    # sends the new metadata on CreateMultipartUpload.)
    out = cli(
        stratus, "s3", "cp", f"s3://{bucket}/big.bin", f"s3://{other}/copied.bin",
        "--metadata-directive", "REPLACE", "--metadata", "copied=yes", "--content-type", "application/x-copy",
    )
    assert out == f"copy: s3://{bucket}/big.bin to s3://{other}/copied.bin\n"
    head = s3api(stratus, "head-object", "--bucket", other, "--key", "copied.bin")
    assert head["ContentLength"] == len(data)
    assert head["ETag"].endswith('-3"')
    assert head["Metadata"] == {"copied": "yes"}
    assert head["ContentType"] == "application/x-copy"
    source = s3api(stratus, "head-object", "--bucket", bucket, "--key", "big.bin")
    assert source["Metadata"] == {"origin": "test"} and source["CacheControl"] == "no-cache"
    cli(stratus, "s3", "cp", f"s3://{other}/copied.bin", "back.bin", cwd=tmp_path)
    assert (tmp_path / "back.bin").read_bytes() == data

    (tmp_path / "small.txt").write_bytes(b"moving")
    cli(stratus, "s3", "cp", "small.txt", f"s3://{bucket}/small.txt", cwd=tmp_path)
    out = cli(stratus, "s3", "mv", f"s3://{bucket}/small.txt", f"s3://{other}/moved.txt")
    assert out == f"move: s3://{bucket}/small.txt to s3://{other}/moved.txt\n"
    assert cli(stratus, "s3", "cp", f"s3://{other}/moved.txt", "-") == "moving"
    assert "small.txt" not in cli(stratus, "s3", "ls", f"s3://{bucket}/")
    cli(stratus, "s3", "rb", f"s3://{other}", "--force")
    assert other not in cli(stratus, "s3", "ls")


def test_ls_and_rm_page_past_1000_keys(stratus, bucket):
    s3 = stratus.client("s3")
    keys = [f"many/{i:05d}" for i in range(1005)]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    listed = cli(stratus, "s3", "ls", f"s3://{bucket}/many/", "--recursive")
    assert re.findall(r"^\S+ \S+\s+0 (\S+)$", listed, re.M) == keys
    out = cli(stratus, "s3", "rm", f"s3://{bucket}/", "--recursive")
    assert len(out.splitlines()) == len(keys)
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


def test_presigned_put_and_get_from_boto3(stratus, bucket):
    import boto3
    from botocore.config import Config

    s3 = stratus.client("s3")
    signer = boto3.client(
        "s3",
        endpoint_url=stratus.endpoint,
        region_name="us-east-1",
        aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        config=Config(signature_version="s3v4"),
    )
    put_url = signer.generate_presigned_url(
        "put_object", Params={"Bucket": bucket, "Key": "via url.txt", "ContentType": "text/plain"}, ExpiresIn=60
    )
    assert "X-Amz-Signature=" in put_url
    request = urllib.request.Request(put_url, data=b"put by url", method="PUT", headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
    got = s3.get_object(Bucket=bucket, Key="via url.txt")
    assert got["Body"].read() == b"put by url"
    assert got["ContentType"] == "text/plain"
    get_url = signer.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "via url.txt"}, ExpiresIn=60)
    with urllib.request.urlopen(get_url, timeout=10) as response:
        assert (response.status, response.read()) == (200, b"put by url")


def two_part_object(s3, bucket, key):
    first, second = pattern(5 * MIB, seed=11), pattern(100, seed=12)
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = [
        {"PartNumber": n, "ETag": s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=n, Body=body)["ETag"]}
        for n, body in [(1, first), (2, second)]
    ]
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts})
    return first, second


def test_get_and_head_by_part_number(stratus, bucket):
    """Downloaders that fetch a multipart object part by part (`partNumber=N`, e.g. the AWS SDK
    for Java's multipart download) must get each part, not the whole object N times."""
    s3 = stratus.client("s3")
    first, second = two_part_object(s3, bucket, "parts.bin")
    total = len(first) + len(second)
    got = s3.get_object(Bucket=bucket, Key="parts.bin", PartNumber=1)
    # Read before asserting: an unread body keeps the connection (and the server's shutdown,
    # which finishes in-flight responses) waiting.
    body = got["Body"].read()
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert got["ContentLength"] == len(first)
    assert got["ContentRange"] == f"bytes 0-{len(first) - 1}/{total}"
    assert got["PartsCount"] == 2
    assert body == first
    head = s3.head_object(Bucket=bucket, Key="parts.bin", PartNumber=2)
    assert head["ContentLength"] == len(second)
    assert head["ContentRange"] == f"bytes {len(first)}-{total - 1}/{total}"
    assert head["PartsCount"] == 2


def test_s3api_put_object_of_20_mib(stratus, bucket, tmp_path):
    """`aws s3api put-object` never splits a body into parts: a body over the gateway's 16 MiB
    request limit streams to the blob."""
    data = pattern(20 * MIB, seed=13)
    (tmp_path / "big.bin").write_bytes(data)
    put = s3api(stratus, "put-object", "--bucket", bucket, "--key", "single.bin", "--body", str(tmp_path / "big.bin"))
    assert put["ETag"] == f'"{hashlib.md5(data).hexdigest()}"'
    s3api(stratus, "get-object", "--bucket", bucket, "--key", "single.bin", str(tmp_path / "back.bin"))
    assert (tmp_path / "back.bin").read_bytes() == data


def test_reads_racing_overwrites_get_the_old_or_the_new_body(stratus, bucket):
    """Readers of a key that a writer keeps replacing get one whole version or the other, never
    an error (as on AWS). Plain keep-alive connections, so the race window is hit quickly."""
    import http.client
    import threading
    import urllib.parse

    address = urllib.parse.urlparse(stratus.endpoint)
    headers = {
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + "0" * 64,
        "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        "x-amz-date": "20240101T000000Z",
    }
    versions = [b"a" * 1000, b"b" * 1001]
    path = f"/{bucket}/contended"
    deadline = time.monotonic() + 4
    failures, reads = [], [0]

    def request(conn, method, body=None):
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    def writer():
        conn = http.client.HTTPConnection(address.hostname, address.port)
        i = 0
        while time.monotonic() < deadline and not failures:
            status_code, data = request(conn, "PUT", versions[i % 2])
            if status_code != 200:
                failures.append(("PUT", status_code, data[:300]))
            i += 1
        conn.close()

    def reader():
        conn = http.client.HTTPConnection(address.hostname, address.port)
        while time.monotonic() < deadline and not failures:
            status_code, data = request(conn, "GET")
            reads[0] += 1
            if status_code != 200 or data not in versions:
                failures.append(("GET", status_code, data[:300]))
        conn.close()

    conn = http.client.HTTPConnection(address.hostname, address.port)
    assert request(conn, "PUT", versions[0])[0] == 200
    conn.close()
    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, f"after {reads[0]} reads: {failures[0]}"
