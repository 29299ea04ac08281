"""S3 (first slice: buckets, objects, listings, tagging) through boto3 against the real binary."""

import base64
import hashlib
import uuid

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"b-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def code(err):
    return err.value.response["Error"]["Code"]


def status(err):
    return err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_bucket_lifecycle(s3):
    name = f"life-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    # us-east-1 keeps its legacy answer: creating your own bucket again succeeds.
    s3.create_bucket(Bucket=name)
    assert name in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert s3.head_bucket(Bucket=name)["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == "us-east-1"
    assert s3.get_bucket_location(Bucket=name)["LocationConstraint"] is None
    s3.put_object(Bucket=name, Key="k", Body=b"x")
    with pytest.raises(ClientError) as err:
        s3.delete_bucket(Bucket=name)
    assert (code(err), status(err)) == ("BucketNotEmpty", 409)
    s3.delete_object(Bucket=name, Key="k")
    s3.delete_bucket(Bucket=name)
    with pytest.raises(ClientError) as err:
        s3.head_bucket(Bucket=name)
    assert status(err) == 404
    with pytest.raises(ClientError) as err:
        s3.delete_bucket(Bucket=name)
    assert (code(err), status(err)) == ("NoSuchBucket", 404)


def test_bucket_names_and_regions(stratus, s3):
    for bad in ["ab", "Upper-Case", "under_score", "192.168.1.1", "-leading", "a..b", "x" * 64]:
        with pytest.raises(ClientError) as err:
            s3.create_bucket(Bucket=bad)
        assert code(err) == "InvalidBucketName", bad
    with pytest.raises(ClientError) as err:
        s3.create_bucket(Bucket=f"x-{uuid.uuid4().hex[:10]}", CreateBucketConfiguration={"LocationConstraint": "us-east-1"})
    assert code(err) == "InvalidLocationConstraint"
    eu = stratus.client("s3", region="eu-west-1")
    name = f"eu-{uuid.uuid4().hex[:10]}"
    with pytest.raises(ClientError) as err:
        eu.create_bucket(Bucket=name)
    assert code(err) == "IllegalLocationConstraintException"
    made = eu.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    # Outside us-east-1 the Location is the bucket's URL (path style on an IP address, where
    # a bucket cannot be a host name); in it, the bucket's path.
    assert made["Location"] == f"{stratus.endpoint}/{name}/"
    assert s3.create_bucket(Bucket=f"use-{name}")["Location"] == f"/use-{name}"
    assert eu.get_bucket_location(Bucket=name)["LocationConstraint"] == "eu-west-1"
    with pytest.raises(ClientError) as err:
        eu.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    assert (code(err), status(err)) == ("BucketAlreadyOwnedByYou", 409)
    other_account = stratus.client("s3", aws_access_key_id="AKIAOTHERACCOUNT0001")
    with pytest.raises(ClientError) as err:
        other_account.create_bucket(Bucket=name)
    assert code(err) in ("BucketAlreadyExists", "BucketAlreadyOwnedByYou")


def test_objects_with_metadata_and_headers(s3, bucket):
    body = b"hello world"
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    put = s3.put_object(
        Bucket=bucket,
        Key="dir/a b.txt",
        Body=body,
        ContentMD5=md5,
        ContentType="text/plain",
        CacheControl="max-age=60",
        Metadata={"colour": "blue"},
    )
    assert put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    got = s3.get_object(Bucket=bucket, Key="dir/a b.txt")
    assert got["Body"].read() == body
    assert (got["ContentType"], got["CacheControl"], got["Metadata"]) == ("text/plain", "max-age=60", {"colour": "blue"})
    assert got["ContentLength"] == len(body) and got["ETag"] == put["ETag"]
    head = s3.head_object(Bucket=bucket, Key="dir/a b.txt")
    assert head["ContentLength"] == len(body) and head["Metadata"] == {"colour": "blue"}
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="bad", Body=b"other", ContentMD5=md5)
    assert code(err) == "BadDigest"
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="absent")
    assert (code(err), status(err)) == ("NoSuchKey", 404)
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="absent")
    assert status(err) == 404


def test_ranges(s3, bucket):
    s3.put_object(Bucket=bucket, Key="r", Body=b"0123456789")
    for spec, expected in [("bytes=0-3", b"0123"), ("bytes=7-", b"789"), ("bytes=-2", b"89"), ("bytes=5-100", b"56789")]:
        got = s3.get_object(Bucket=bucket, Key="r", Range=spec)
        assert got["Body"].read() == expected, spec
        assert got["ContentRange"].endswith("/10")
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="r", Range="bytes=10-")
    assert (code(err), status(err)) == ("InvalidRange", 416)


def test_conditional_requests(s3, bucket):
    etag = s3.put_object(Bucket=bucket, Key="c", Body=b"v1")["ETag"]
    assert s3.get_object(Bucket=bucket, Key="c", IfMatch=etag)["Body"].read() == b"v1"
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="c", IfMatch='"0000"')
    assert status(err) == 412
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="c", IfNoneMatch=etag)
    assert status(err) == 304
    # If-None-Match: * makes a write create-only.
    with pytest.raises(ClientError) as err:
        s3.put_object(Bucket=bucket, Key="c", Body=b"v2", IfNoneMatch="*")
    assert (code(err), status(err)) == ("PreconditionFailed", 412)
    s3.put_object(Bucket=bucket, Key="new", Body=b"v1", IfNoneMatch="*")
    s3.put_object(Bucket=bucket, Key="c", Body=b"v2", IfMatch=etag)
    assert s3.get_object(Bucket=bucket, Key="c")["Body"].read() == b"v2"


def test_metadata_values_in_rfc_2047(s3, bucket):
    # "Working with object metadata" (S3 user guide): encoded words are decoded before storing,
    # and values that are not US-ASCII are answered encoded.
    s3.put_object(
        Bucket=bucket,
        Key="words",
        Metadata={
            "quoted": "=?UTF-8?Q?plain_words?=",
            "based": "=?UTF-8?B?YWJj?=",
            "accented": "=?UTF-8?Q?d=C3=A9j=C3=A0_vu?=",
            "control": "=?UTF-8?B?AQID?=",
            "as-is": "not encoded",
        },
    )
    for read in (s3.get_object, s3.head_object):
        assert read(Bucket=bucket, Key="words")["Metadata"] == {
            "quoted": "plain words",
            "based": "abc",
            "accented": "=?UTF-8?Q?d=C3=A9j=C3=A0_vu?=",
            "control": "=?UTF-8?B?AQID?=",
            "as-is": "not encoded",
        }


def test_content_headers_that_are_not_ascii_come_back_as_sent(s3, bucket):
    # botocore sends them as UTF-8 bytes; S3 answers the same bytes.
    s3.put_object(Bucket=bucket, Key="u", CacheControl="ÄMÄ S3", ContentDisposition='inline; filename="é—.pdf"')
    got = s3.get_object(Bucket=bucket, Key="u")
    # botocore reads answer headers as ISO-8859-1.
    assert got["CacheControl"].encode("latin-1").decode() == "ÄMÄ S3"
    assert got["ContentDisposition"].encode("latin-1").decode() == 'inline; filename="é—.pdf"'


def test_a_copy_source_without_a_key_is_refused_in_s3s_words(s3, bucket):
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="to", CopySource="no-slash-here")
    assert err.value.response["Error"] == {
        "Code": "InvalidArgument",
        "Message": "Invalid copy source object key",
        "ArgumentName": "x-amz-copy-source",
        "ArgumentValue": "x-amz-copy-source",
    }


def test_copy_with_metadata_directives(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"data", Metadata={"a": "1"}, ContentType="text/plain")
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "src"})
    copied = s3.head_object(Bucket=bucket, Key="copy")
    assert (copied["Metadata"], copied["ContentType"]) == ({"a": "1"}, "text/plain")
    s3.copy_object(
        Bucket=bucket, Key="replaced", CopySource=f"{bucket}/src", MetadataDirective="REPLACE", Metadata={"b": "2"}
    )
    assert s3.head_object(Bucket=bucket, Key="replaced")["Metadata"] == {"b": "2"}
    assert s3.get_object(Bucket=bucket, Key="replaced")["Body"].read() == b"data"
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="src", CopySource=f"{bucket}/src")
    assert code(err) == "InvalidRequest"


def test_listings(s3, bucket):
    keys = ["a.txt", "photos/2024/x.jpg", "photos/2024/y.jpg", "photos/z.jpg", "z.txt"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    top = s3.list_objects_v2(Bucket=bucket, Delimiter="/")
    assert [o["Key"] for o in top["Contents"]] == ["a.txt", "z.txt"]
    assert [p["Prefix"] for p in top["CommonPrefixes"]] == ["photos/"]
    assert top["KeyCount"] == 3
    under = s3.list_objects_v2(Bucket=bucket, Prefix="photos/", Delimiter="/")
    assert [o["Key"] for o in under["Contents"]] == ["photos/z.jpg"]
    assert [p["Prefix"] for p in under["CommonPrefixes"]] == ["photos/2024/"]
    seen, token = [], None
    while True:
        page = s3.list_objects_v2(Bucket=bucket, MaxKeys=2, **({"ContinuationToken": token} if token else {}))
        seen += [o["Key"] for o in page["Contents"]]
        if not page["IsTruncated"]:
            break
        token = page["NextContinuationToken"]
    assert seen == keys
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, StartAfter="photos/z.jpg")["Contents"]] == ["z.txt"]
    v1 = s3.list_objects(Bucket=bucket, Marker="a.txt", MaxKeys=1, Delimiter="/")
    assert v1["IsTruncated"] and v1["NextMarker"] == "photos/"
    assert [p["Prefix"] for p in v1["CommonPrefixes"]] == ["photos/"]
    paginated = [o["Key"] for page in s3.get_paginator("list_objects").paginate(Bucket=bucket, PaginationConfig={"PageSize": 2}) for o in page["Contents"]]
    assert paginated == keys


def test_delete_objects_and_tagging(s3, bucket):
    for key in ["t1", "t2", "t3"]:
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    deleted = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "t1"}, {"Key": "t2"}, {"Key": "absent"}]})
    assert sorted(d["Key"] for d in deleted["Deleted"]) == ["absent", "t1", "t2"]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["t3"]
    s3.put_object_tagging(Bucket=bucket, Key="t3", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    assert s3.get_object_tagging(Bucket=bucket, Key="t3")["TagSet"] == [{"Key": "k", "Value": "v"}]
    s3.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="a=1&b=2")
    assert s3.get_object(Bucket=bucket, Key="tagged")["TagCount"] == 2
    with pytest.raises(ClientError) as err:
        s3.get_bucket_tagging(Bucket=bucket)
    assert code(err) == "NoSuchTagSet"
    s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{"Key": "team", "Value": "a"}]})
    assert s3.get_bucket_tagging(Bucket=bucket)["TagSet"] == [{"Key": "team", "Value": "a"}]
    s3.delete_bucket_tagging(Bucket=bucket)
    with pytest.raises(ClientError) as err:
        s3.get_bucket_tagging(Bucket=bucket)
    assert code(err) == "NoSuchTagSet"


def raw(stratus, method, path, host=None, body=None, headers=None):
    """A plain HTTP request (unsigned), with the Host header given."""
    import http.client
    import urllib.parse

    address = urllib.parse.urlparse(stratus.endpoint)
    conn = http.client.HTTPConnection(address.hostname, address.port)
    all_headers = {"Host": host or address.netloc, **(headers or {})}
    conn.request(method, path, body=body, headers=all_headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'


def test_errors_are_bare_error_documents(stratus, bucket):
    status_code, headers, body = raw(stratus, "GET", f"/{bucket}/absent")
    assert status_code == 404
    # S3's noErrorWrapping: <Error> is the root, no <ErrorResponse>.
    assert body.startswith(XML_DECLARATION + b"<Error><Code>NoSuchKey</Code><Message>")
    assert b"<RequestId>" in body
    assert headers["x-amz-request-id"] and headers["x-amz-id-2"]


# As AWS's recorded answers (LocalStack's test_response_structure, test_create_bucket_head_bucket):
# documents open with a declaration, `Server: AmazonS3`, and the request id only as
# x-amz-request-id.
def test_dates_in_documents_carry_milliseconds(stratus, s3, bucket):
    # As S3 writes them ("2009-10-12T17:50:30.000Z" in the API reference's examples).
    import re

    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    listing = raw(stratus, "GET", f"/{bucket}?list-type=2")[2].decode()
    assert re.search(r"<LastModified>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z</LastModified>", listing), listing
    # A copy source may be the source's path-style URL, as AWS takes it (sent as it is).
    status_code, _, body = raw(
        stratus, "PUT", f"/{bucket}/copy", headers={"x-amz-copy-source": f"{stratus.endpoint}/{bucket}/k"}
    )
    assert status_code == 200 and re.search(rb"<LastModified>[^<]*\.000Z</LastModified>", body), body
    assert s3.head_object(Bucket=bucket, Key="copy")["ETag"] == s3.head_object(Bucket=bucket, Key="k")["ETag"]


def test_listings_and_head_bucket_carry_what_no_member_binds(stratus):
    # As recorded from AWS: HeadBucket answers Content-Type application/xml without a body,
    # and listings name the bucket's region in x-amz-bucket-region.
    s3 = stratus.client("s3")
    name = f"west-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    head = s3.head_bucket(Bucket=name)["ResponseMetadata"]["HTTPHeaders"]
    assert head["content-type"] == "application/xml"
    for listing in (s3.list_objects_v2, s3.list_objects):
        assert listing(Bucket=name)["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == "us-west-2"


def test_answers_are_in_s3s_envelope(stratus, s3, bucket):
    s3.put_object(Bucket=bucket, Key="doc.xml", Body=b"<a/>", ContentType="application/xml")
    status_code, headers, body = raw(stratus, "GET", f"/{bucket}?list-type=2")
    assert status_code == 200
    assert body.startswith(XML_DECLARATION + b"<ListBucketResult")
    assert headers["server"] == "AmazonS3"
    assert "x-amzn-requestid" not in {name.lower() for name in headers}
    assert int(headers["content-length"]) == len(body)
    # An object is its own bytes, whatever its type says.
    assert raw(stratus, "GET", f"/{bucket}/doc.xml")[2] == b"<a/>"
    # An empty answer stays empty.
    status_code, headers, body = raw(stratus, "HEAD", f"/{bucket}")
    assert (status_code, body) == (200, b"")


def test_some_puts_answer_204_as_aws_does(s3, bucket):
    policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::%s/private/*"}]}' % bucket
    assert s3.put_bucket_policy(Bucket=bucket, Policy=policy)["ResponseMetadata"]["HTTPStatusCode"] == 204
    tagged = s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    assert tagged["ResponseMetadata"]["HTTPStatusCode"] == 204
    versioned = s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    assert versioned["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_ranged_reads_are_partial_content(s3, bucket):
    s3.put_object(Bucket=bucket, Key="r", Body=b"0123456789")
    got = s3.get_object(Bucket=bucket, Key="r", Range="bytes=2-3")
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert got["ContentRange"] == "bytes 2-3/10"


@pytest.mark.parametrize("style", ["{bucket}.s3.localhost:{port}", "{bucket}.localhost:{port}", "{bucket}.s3.us-east-1.amazonaws.com"])
def test_virtual_host_addressing(stratus, s3, bucket, style):
    port = stratus.endpoint.rsplit(":", 1)[1]
    host = style.format(bucket=bucket, port=port)
    status_code, _, _ = raw(stratus, "PUT", "/dir/v.txt", host=host, body=b"by host")
    assert status_code == 200
    assert s3.get_object(Bucket=bucket, Key="dir/v.txt")["Body"].read() == b"by host"
    status_code, _, body = raw(stratus, "GET", "/dir/v.txt", host=host)
    assert (status_code, body) == (200, b"by host")
    status_code, _, body = raw(stratus, "GET", "/?list-type=2", host=host)
    assert status_code == 200 and b"<Key>dir/v.txt</Key>" in body


def test_multipart_transfers(s3, bucket, tmp_path):
    from boto3.s3.transfer import TransferConfig

    data = bytes(range(256)) * (48 * 1024)  # 12 MiB
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    config = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
    with open(source, "rb") as f:
        s3.upload_fileobj(f, bucket, "big.bin", Config=config)
    head = s3.head_object(Bucket=bucket, Key="big.bin")
    assert head["ContentLength"] == len(data)
    assert head["ETag"].endswith('-3"')
    target = tmp_path / "back.bin"
    with open(target, "wb") as f:
        s3.download_fileobj(bucket, "big.bin", f, Config=config)
    assert target.read_bytes() == data


def test_multipart_api(s3, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", Metadata={"m": "1"})["UploadId"]
    assert [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=bucket)["Uploads"]] == [upload]
    part1 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"a" * 10)["ETag"]
    part2 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=2, Body=b"b" * 10)["ETag"]
    assert [p["PartNumber"] for p in s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)["Parts"]] == [1, 2]
    parts = {"Parts": [{"PartNumber": 1, "ETag": part1}, {"PartNumber": 2, "ETag": part2}]}
    with pytest.raises(ClientError) as err:
        s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload=parts)
    assert code(err) == "EntityTooSmall"
    with pytest.raises(ClientError) as err:
        s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=10001, Body=b"x")
    assert code(err) == "InvalidArgument"
    s3.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload)
    with pytest.raises(ClientError) as err:
        s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)
    assert (code(err), status(err)) == ("NoSuchUpload", 404)
    # One small part is a valid (last) part.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="one")["UploadId"]
    s3.put_object(Bucket=bucket, Key="src", Body=b"0123456789")
    copied = s3.upload_part_copy(
        Bucket=bucket, Key="one", UploadId=upload, PartNumber=1, CopySource=f"{bucket}/src", CopySourceRange="bytes=2-5"
    )["CopyPartResult"]["ETag"]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="one", UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": copied}]}
    )
    assert s3.get_object(Bucket=bucket, Key="one")["Body"].read() == b"2345"


def test_aws_cli_cp_and_ls(stratus, bucket, tmp_path):
    import os
    import subprocess
    import sys

    aws = os.path.join(os.path.dirname(sys.executable), "aws")
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    source = tmp_path / "hello.txt"
    source.write_text("hello from the cli")

    def cli(*args):
        done = subprocess.run([aws, "--endpoint-url", stratus.endpoint, "s3", *args], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    cli("cp", str(source), f"s3://{bucket}/docs/hello.txt")
    assert "docs/" in cli("ls", f"s3://{bucket}/")
    assert "hello.txt" in cli("ls", f"s3://{bucket}/docs/")
    back = tmp_path / "back.txt"
    cli("cp", f"s3://{bucket}/docs/hello.txt", str(back))
    assert back.read_text() == "hello from the cli"


# ---- answers as recorded from AWS (../shared/parity, LocalStack's AWS-validated S3 tests) ----


def test_writes_report_sse_s3_as_every_new_object_has_it(s3, bucket):
    assert s3.put_object(Bucket=bucket, Key="k", Body=b"x")["ServerSideEncryption"] == "AES256"
    copied = s3.copy_object(Bucket=bucket, Key="k2", CopySource=f"{bucket}/k")
    assert copied["ServerSideEncryption"] == "AES256"
    upload = s3.create_multipart_upload(Bucket=bucket, Key="m")
    assert upload["ServerSideEncryption"] == "AES256"
    part = s3.upload_part(Bucket=bucket, Key="m", UploadId=upload["UploadId"], PartNumber=1, Body=b"p")
    assert part["ServerSideEncryption"] == "AES256"
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="m", UploadId=upload["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]},
    )
    assert done["ServerSideEncryption"] == "AES256"


def test_expected_bucket_owner_refuses_another_account(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x", ExpectedBucketOwner="000000000000")
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k", ExpectedBucketOwner="111111111111")
    assert (code(err), status(err)) == ("AccessDenied", 403)
    assert err.value.response["Error"]["Message"] == "Access Denied"
    with pytest.raises(ClientError) as err:
        s3.get_bucket_tagging(Bucket=bucket, ExpectedBucketOwner="not-an-account")
    assert (code(err), status(err)) == ("InvalidBucketOwnerAWSAccountID", 400)
    assert err.value.response["Error"]["Message"] == (
        "The value of the expected bucket owner parameter must be an AWS Account ID... [not-an-account]"
    )
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="k2", CopySource=f"{bucket}/k", ExpectedSourceBucketOwner="111111111111")
    assert code(err) == "AccessDenied"


def test_not_found_errors_name_the_bucket_and_key(s3, bucket):
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="missing")
    assert err.value.response["Error"]["Key"] == "missing"
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=f"{bucket}-none", Key="k")
    assert err.value.response["Error"]["BucketName"] == f"{bucket}-none"
