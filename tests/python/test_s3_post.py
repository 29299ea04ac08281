"""Browser-based POST uploads (S3 API reference, "POST Object" and "Browser-Based Uploads Using
POST (AWS Signature Version 4)"; "Creating a POST policy"): forms signed by boto3's
generate_presigned_post, sent raw as a browser sends them (a hand-built multipart/form-data
body over http.client). The expected refusals are S3's as LocalStack's AWS-validated
TestS3PresignedPost snapshots (tests/aws/services/s3/test_s3.py) and the S3 errors quoted in
public issue threads record them; each test names the case it follows."""

import hashlib
import http.client
import json
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

import pytest

BOUNDARY = "----StratusFormBoundary7MA4YWxkTrZu0gW"


@pytest.fixture
def s3(stratus):
    return stratus.client("s3", signature_version="s3v4")


@pytest.fixture
def bucket(s3):
    name = f"post-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


class Answer:
    def __init__(self, response):
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.body = response.read()

    def error(self):
        """The S3 error document's elements other than the request ids."""
        root = ET.fromstring(self.body)
        return {child.tag: child.text or "" for child in root if child.tag not in ("RequestId", "HostId")}


def form_body(fields, file=b"hello", filename="hello.txt", file_name="file"):
    """A multipart/form-data body: `fields` (name, value pairs) in order, then the file part,
    then a submit button after it, as the HTML forms of AWS's examples send."""
    out = bytearray()
    for name, value in fields:
        out += f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        out += value.encode() + b"\r\n"
    if file is not None:
        disposition = f'form-data; name="{file_name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\nContent-Type: text/plain\r\n\r\n".encode()
        out += file + b"\r\n"
    out += f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="submit"\r\n\r\nUpload\r\n--{BOUNDARY}--\r\n'.encode()
    return bytes(out)


def post(stratus, url, body, content_type=f"multipart/form-data; boundary={BOUNDARY}", headers=None):
    """POSTs `body` to `url`, unsigned, as a browser does."""
    parsed = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(urllib.parse.urlsplit(stratus.endpoint).netloc, timeout=30)
    try:
        connection.request(
            "POST", parsed.path or "/", body=body, headers={"Content-Type": content_type, **(headers or {})}
        )
        return Answer(connection.getresponse())
    finally:
        connection.close()


def presigned(s3, bucket, key="uploads/${filename}", fields=None, conditions=None, expires=300):
    signed = s3.generate_presigned_post(bucket, key, Fields=fields, Conditions=conditions, ExpiresIn=expires)
    return signed["url"], list(signed["fields"].items())


def upload(stratus, s3, bucket, key="uploads/${filename}", fields=None, conditions=None, extra=(), **file):
    url, signed = presigned(s3, bucket, key, fields, conditions)
    return post(stratus, url, form_body(signed + list(extra), **file))


def test_upload_answers_204_and_stores_the_object(stratus, s3, bucket):
    # POST Object: "If the value is not set ... Amazon S3 returns an empty document with a 204".
    answer = upload(stratus, s3, bucket, file=b"hello world", filename="C:\\docs\\notes.txt")
    assert answer.status == 204, answer.body
    assert answer.body == b""
    etag = f'"{hashlib.md5(b"hello world").hexdigest()}"'
    assert answer.headers["etag"] == etag
    # ${filename} is the file's name without its path; the key's `/` is encoded in Location.
    assert answer.headers["location"] == f"{stratus.endpoint}/{bucket}/uploads%2Fnotes.txt"
    got = s3.get_object(Bucket=bucket, Key="uploads/notes.txt")
    assert got["Body"].read() == b"hello world"
    assert got["ETag"] == etag
    assert got["ContentType"] == "binary/octet-stream"
    # The default checksum comes back as PutObject's does (LocalStack's recording of a 204).
    assert answer.headers["x-amz-checksum-type"] == "FULL_OBJECT"
    assert "x-amz-checksum-crc64nvme" in answer.headers


def test_success_action_status_201_and_200(stratus, s3, bucket):
    # LocalStack's recording of success_action_status 201: a PostResponse document, this ETag.
    status = {"success_action_status": "201"}
    answer = upload(stratus, s3, bucket, "key-${filename}", status, [status], filename="my-file", file=b"something body")
    assert answer.status == 201
    root = ET.fromstring(answer.body)
    assert root.tag == "PostResponse"
    assert {child.tag: child.text for child in root} == {
        "Location": f"{stratus.endpoint}/{bucket}/key-my-file",
        "Bucket": bucket,
        "Key": "key-my-file",
        "ETag": '"43281e21fce675ac3bcb3524b38ca4ed"',
    }
    assert answer.headers["location"] == root.find("Location").text
    assert answer.headers["etag"] == root.find("ETag").text

    status = {"success_action_status": "200"}
    answer = upload(stratus, s3, bucket, "plain", status, [status])
    assert (answer.status, answer.body) == (200, b"")


def test_success_action_redirect(stratus, s3, bucket):
    # LocalStack's recording of a 303; the query as S3 appends it
    # (layervault issue 8: after any query the URL had, form-encoded, the ETag quoted).
    redirect = "http://app.example.com/done?upload=1"
    fields = {"success_action_redirect": redirect}
    answer = upload(stratus, s3, bucket, "dir/a b.txt", fields, [fields], file=b"x")
    assert answer.status == 303
    etag = urllib.parse.quote(f'"{hashlib.md5(b"x").hexdigest()}"')
    assert answer.headers["location"] == f"{redirect}&bucket={bucket}&key=dir%2Fa+b.txt&etag={etag}"
    # A relative URL cannot be interpreted: as if there were none.
    fields = {"success_action_redirect": "/relative"}
    assert upload(stratus, s3, bucket, "k", fields, [fields]).status == 204


def test_metadata_content_headers_tags_and_storage_class(stratus, s3, bucket):
    # LocalStack's recordings of uploads with metadata, tags and a storage class.
    fields = {
        "Content-Type": "text/plain",
        "Cache-Control": "max-age=60",
        "x-amz-meta-Colour": "blue",
        "x-amz-storage-class": "STANDARD_IA",
        "tagging": "<Tagging><TagSet><Tag><Key>team</Key><Value>a&amp;b</Value></Tag></TagSet></Tagging>",
    }
    conditions = [{name: value} for name, value in fields.items()]
    answer = upload(stratus, s3, bucket, "meta.txt", fields, conditions)
    assert answer.status == 204, answer.body
    head = s3.head_object(Bucket=bucket, Key="meta.txt")
    assert head["ContentType"] == "text/plain"
    assert head["CacheControl"] == "max-age=60"
    assert head["Metadata"] == {"colour": "blue"}
    assert head["StorageClass"] == "STANDARD_IA"
    tags = s3.get_object_tagging(Bucket=bucket, Key="meta.txt")["TagSet"]
    assert tags == [{"Key": "team", "Value": "a&b"}]

    bad = {"tagging": "not-xml"}
    answer = upload(stratus, s3, bucket, "t", bad, [bad])
    assert (answer.status, answer.error()["Code"]) == (400, "MalformedXML")


def test_expired_policy(stratus, s3, bucket):
    # LocalStack's recording of an expired policy.
    url, fields = presigned(s3, bucket, "late.txt", expires=-10)
    answer = post(stratus, url, form_body(fields))
    assert answer.status == 403
    assert answer.error() == {"Code": "AccessDenied", "Message": "Invalid according to Policy: Policy expired."}


def test_condition_failed(stratus, s3, bucket):
    # LocalStack's recordings of failed starts-with and eq conditions.
    url, fields = presigned(s3, bucket, "uploads/${filename}")
    fields = [(n, "elsewhere/x" if n == "key" else v) for n, v in fields]
    answer = post(stratus, url, form_body(fields))
    assert answer.status == 403
    assert answer.error() == {
        "Code": "AccessDenied",
        "Message": 'Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "uploads/"]',
    }
    redirect = {"success_action_redirect": "http://localhost.test/random"}
    url, fields = presigned(s3, bucket, "k", redirect, [["eq", "$success_action_redirect", redirect["success_action_redirect"]]])
    fields = [(n, "http://localhost.test/other" if n == "success_action_redirect" else v) for n, v in fields]
    answer = post(stratus, url, form_body(fields))
    assert answer.error()["Message"] == (
        'Invalid according to Policy: Policy Condition failed: ["eq", "$success_action_redirect", "http://localhost.test/random"]'
    )
    assert not s3.list_objects_v2(Bucket=bucket).get("Contents")


def test_extra_input_fields(stratus, s3, bucket):
    # Issue threads quote "Invalid according to Policy: Extra input fields: <name>" with the
    # name as sent (stackoverflow.com/q/54014351); x-ignore- fields are exempt.
    answer = upload(stratus, s3, bucket, "k", extra=[("x-ignore-tracking", "1"), ("X-Amz-Meta-Extra", "v")])
    assert answer.status == 403
    assert answer.error() == {
        "Code": "AccessDenied",
        "Message": "Invalid according to Policy: Extra input fields: X-Amz-Meta-Extra",
    }
    assert upload(stratus, s3, bucket, "k", extra=[("x-ignore-tracking", "1")]).status == 204


def test_content_length_range(stratus, s3, bucket):
    # LocalStack's recording of content-length-range 5..10: bounds inclusive, ProposedSize.
    conditions = [["content-length-range", 5, 10]]
    large = upload(stratus, s3, bucket, "sized", conditions=conditions, file=b"x" * 12)
    assert large.status == 400
    assert large.error() == {
        "Code": "EntityTooLarge",
        "Message": "Your proposed upload exceeds the maximum allowed size",
        "ProposedSize": "12",
        "MaxSizeAllowed": "10",
    }
    small = upload(stratus, s3, bucket, "sized", conditions=conditions, file=b"x")
    assert small.error() == {
        "Code": "EntityTooSmall",
        "Message": "Your proposed upload is smaller than the minimum allowed size",
        "ProposedSize": "1",
        "MinSizeAllowed": "5",
    }
    assert not s3.list_objects_v2(Bucket=bucket).get("Contents")
    for size in (5, 10):
        assert upload(stratus, s3, bucket, "sized", conditions=conditions, file=b"x" * size).status == 204


def test_large_file_streams(stratus, s3, bucket):
    # Larger than the gateway's whole-body threshold: the file part streams into the object.
    content = bytes(range(256)) * (12 * 1024)  # 3 MiB
    answer = upload(stratus, s3, bucket, "big.bin", conditions=[["content-length-range", 0, 5 << 20]], file=content)
    assert answer.status == 204, answer.body
    assert answer.headers["etag"] == f'"{hashlib.md5(content).hexdigest()}"'
    assert s3.get_object(Bucket=bucket, Key="big.bin")["Body"].read() == content


def test_missing_key_file_and_signature(stratus, s3, bucket):
    url, fields = presigned(s3, bucket, "k")
    # Issue threads quote it (two spaces and all); a key after the file is not seen.
    answer = post(stratus, url, form_body([f for f in fields if f[0] != "key"]))
    assert answer.status == 400
    assert answer.error() == {
        "Code": "InvalidArgument",
        "Message": "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
        "ArgumentName": "key",
        "ArgumentValue": "",
    }
    # Issue threads (vue-dropzone 303, boto3 934): a form whose file part has another name.
    answer = post(stratus, url, form_body(fields, file_name="upload"))
    assert answer.error() == {
        "Code": "InvalidArgument",
        "Message": "POST requires exactly one file upload per request.",
        "ArgumentName": "file",
        "ArgumentValue": "0",
    }
    # LocalStack's recording of a form without its signature.
    answer = post(stratus, url, form_body([f for f in fields if f[0] != "x-amz-signature"]))
    assert answer.error()["Message"] == (
        "Bucket POST must contain a field named 'X-Amz-Signature'.  If it is specified, please check the order of the fields."
    )
    # LocalStack's recording of a form without algorithm and credential: the algorithm is named.
    answer = post(stratus, url, form_body([f for f in fields if f[0] not in ("x-amz-algorithm", "x-amz-credential")]))
    assert answer.error()["ArgumentName"] == "X-Amz-Algorithm"


def test_sigv2_forms(stratus, bucket):
    # LocalStack's SigV2 recordings (test_post_object_policy_casing[s3] among them): SigV2
    # fields, in any case; a missing `signature` is named 'Signature'.
    s3 = stratus.client("s3", signature_version="s3")
    url, fields = presigned(s3, bucket, "v2.txt")
    assert {name for name, _ in fields} == {"key", "AWSAccessKeyId", "policy", "signature"}
    cased = [("awsaccesskeyid" if n == "AWSAccessKeyId" else n, v) for n, v in fields]
    assert post(stratus, url, form_body(cased)).status == 204
    answer = post(stratus, url, form_body([f for f in fields if f[0] != "signature"]))
    assert answer.error()["ArgumentName"] == "Signature"


def test_malformed_forms(stratus, s3, bucket):
    url, fields = presigned(s3, bucket, "k")
    # A Content-Type without a boundary, and a body that is not the form it announces.
    malformed = {
        "Code": "MalformedPOSTRequest",
        "Message": "The body of your POST request is not well-formed multipart/form-data.",
    }
    answer = post(stratus, url, form_body(fields), content_type="multipart/form-data")
    assert (answer.status, answer.error()) == (400, malformed)
    answer = post(stratus, url, b"--" + BOUNDARY.encode() + b"\r\nno headers end")
    assert (answer.status, answer.error()) == (400, malformed)
    # A file part that never ends.
    cut = form_body(fields, file=b"UNFINISHED-CONTENT")
    answer = post(stratus, url, cut[: cut.index(b"UNFINISHED-CONTENT") + 10])
    assert (answer.status, answer.error()) == (400, malformed)
    # Not a form at all: LocalStack's recording of a text/html POST.
    answer = post(stratus, url, b"<html/>", content_type="text/html")
    assert answer.status == 412
    assert answer.error() == {
        "Code": "PreconditionFailed",
        "Message": "At least one of the pre-conditions you specified did not hold",
        "Condition": "Bucket POST must be of the enclosure-type multipart/form-data",
    }
    # Fields before the file over 20 KB (MaxPostPreDataLengthExceeded as issue threads quote it).
    answer = post(stratus, url, form_body(fields + [("x-ignore-pad", "x" * 21000)]))
    assert answer.error()["Code"] == "MaxPostPreDataLengthExceeded"
    assert answer.error()["MaxPostPreDataLengthBytes"] == "20480"


def test_invalid_policy_documents(stratus, s3, bucket):
    url, fields = presigned(s3, bucket, "k")
    fields = [(n, "bm90LWpzb24=" if n == "policy" else v) for n, v in fields]  # "not-json"
    answer = post(stratus, url, form_body(fields))
    assert (answer.status, answer.error()["Code"], answer.error()["Message"]) == (
        400,
        "InvalidPolicyDocument",
        "Invalid Policy: Invalid JSON.",
    )


def test_missing_bucket(stratus, s3, bucket):
    url, fields = presigned(s3, bucket, "k")
    answer = post(stratus, url.replace(bucket, bucket + "-gone"), form_body(fields))
    assert (answer.status, answer.error()["Code"]) == (404, "NoSuchBucket")


def test_anonymous_uploads_need_a_publicly_writable_bucket(stratus, s3, bucket):
    # POST Object: "Requests without a security policy are considered anonymous and work only
    # on publicly writable buckets" (ceph s3-tests test_post_object_anonymous_request).
    url = f"{stratus.endpoint}/{bucket}"
    body = form_body([("key", "anon.txt")])
    answer = post(stratus, url, body)
    assert (answer.status, answer.error()) == (403, {"Code": "AccessDenied", "Message": "Access Denied"})
    s3.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={"Rules": [{"ObjectOwnership": "ObjectWriter"}]})
    s3.delete_public_access_block(Bucket=bucket)
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    answer = post(stratus, url, body)
    assert answer.status == 204, answer.body
    assert s3.get_object(Bucket=bucket, Key="anon.txt")["Body"].read() == b"hello"


def test_versioned_bucket_and_virtual_host(stratus, s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    status = {"success_action_status": "201"}
    url, fields = presigned(s3, bucket, "v.txt", status, [status])
    port = urllib.parse.urlsplit(stratus.endpoint).port
    host = f"{bucket}.localhost:{port}"
    answer = post(stratus, "/", form_body(fields), headers={"Host": host})
    assert answer.status == 201, answer.body
    version = answer.headers["x-amz-version-id"]
    assert s3.head_object(Bucket=bucket, Key="v.txt")["VersionId"] == version
    assert ET.fromstring(answer.body).find("Location").text == f"http://{host}/v.txt"


def test_event_notifications_report_post(stratus, s3, bucket):
    sqs = stratus.client("sqs")
    queue_url = sqs.create_queue(QueueName=f"post-{uuid.uuid4().hex[:10]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={"QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:Post"]}]},
    )
    assert upload(stratus, s3, bucket, "event.txt").status == 204
    events = []
    while True:
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            break
        events += [r["eventName"] for m in got for r in json.loads(m["Body"]).get("Records", [])]
        sqs.delete_message_batch(
            QueueUrl=queue_url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
        )
    assert events == ["ObjectCreated:Post"]


def test_cors_headers_on_the_answer(stratus, s3, bucket):
    s3.put_bucket_cors(
        Bucket=bucket,
        CORSConfiguration={"CORSRules": [{"AllowedOrigins": ["https://app.example.com"], "AllowedMethods": ["POST"]}]},
    )
    url, fields = presigned(s3, bucket, "cors.txt")
    answer = post(stratus, url, form_body(fields), headers={"Origin": "https://app.example.com"})
    assert answer.status == 204
    assert answer.headers["access-control-allow-origin"] == "https://app.example.com"
