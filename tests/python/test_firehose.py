"""Amazon Data Firehose against the real binary, driven by boto3 on a manual clock: delivery
streams' states, ARNs and descriptions; PutRecord and PutRecordBatch with AWS's limits; records
buffered until the interval or the size hint and delivered to S3 under AWS's object names (with
GZIP, custom prefixes, file extensions, dynamic partitioning and a real Python function as the
Lambda processor); a Kinesis stream as the source; an HTTP endpoint on a loopback server the
test runs, with AWS's request contract and the S3 backup of what it refused; buffered records
surviving kill -9 and delivered on shutdown; CloudWatch Logs subscription filters delivering
through a delivery stream to S3; and the refusals."""

import base64
import gzip
import http.server
import json
import re
import signal
import threading
import time
import uuid

import pytest
from botocore.exceptions import ClientError
from conftest import Stratus

from test_lambda_esm import ACCOUNT, REGION, TRUST, make_zip

ROLE = f"arn:aws:iam::{ACCOUNT}:role/firehose"
# <stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid>, after the prefix.
NAME = r"{stream}-{version}-\d{{4}}-\d\d-\d\d-\d\d-\d\d-\d\d-[0-9a-f]{{8}}-[0-9a-f]{{4}}-4[0-9a-f]{{3}}-[89ab][0-9a-f]{{3}}-[0-9a-f]{{12}}"


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def firehose(stratus):
    return stratus.client("firehose")


@pytest.fixture(scope="module")
def s3(stratus):
    return stratus.client("s3")


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def bucket(s3):
    name = unique("fh")
    s3.create_bucket(Bucket=name)
    return name


def objects(s3, name, want=1, timeout=30):
    """The objects of bucket `name` by key with their bodies, once there are `want` of them
    (deliveries run on the server's runtime once the clock has made them due)."""
    deadline = time.time() + timeout
    while True:
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=name).get("Contents", [])]
        if len(keys) >= want or time.time() > deadline:
            return {k: s3.get_object(Bucket=name, Key=k)["Body"].read() for k in keys}
        time.sleep(0.1)


def active(stratus, firehose, **kwargs):
    """Creates a delivery stream and moves the clock until it is ACTIVE."""
    firehose.create_delivery_stream(**kwargs)
    stratus.advance(1)
    name = kwargs["DeliveryStreamName"]
    assert firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]["DeliveryStreamStatus"] == "ACTIVE"
    return name


def s3_stream(stratus, firehose, target, **destination):
    name = unique("ds")
    config = {"RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{target}", **destination}
    return active(stratus, firehose, DeliveryStreamName=name, ExtendedS3DestinationConfiguration=config)


def test_streams_are_created_described_listed_and_deleted_as_aws_reports_them(stratus, firehose, s3):
    name, target = unique("ds"), bucket(s3)
    arn = firehose.create_delivery_stream(
        DeliveryStreamName=name,
        S3DestinationConfiguration={"RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{target}"},
        Tags=[{"Key": "team", "Value": "data"}],
    )["DeliveryStreamARN"]
    assert arn == f"arn:aws:firehose:{REGION}:{ACCOUNT}:deliverystream/{name}"
    d = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    assert (d["DeliveryStreamStatus"], d["DeliveryStreamType"], d["VersionId"]) == ("CREATING", "DirectPut", "1")
    assert d["DeliveryStreamEncryptionConfiguration"] == {"Status": "DISABLED"}
    # A stream that is not ACTIVE takes no records yet, and cannot be deleted while CREATING.
    assert error_of(firehose.put_record, DeliveryStreamName=name, Record={"Data": b"x"})[0] == "ResourceNotFoundException"
    assert error_of(firehose.delete_delivery_stream, DeliveryStreamName=name)[0] == "ResourceInUseException"
    stratus.advance(1)
    d = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    assert d["DeliveryStreamStatus"] == "ACTIVE"
    [destination] = d["Destinations"]
    assert destination["DestinationId"] == "destinationId-000000000001"
    # AWS's defaults for what was not given, both ways an S3 destination is described.
    ext = destination["ExtendedS3DestinationDescription"]
    assert ext["BufferingHints"] == {"SizeInMBs": 5, "IntervalInSeconds": 300}
    assert (ext["CompressionFormat"], ext["S3BackupMode"]) == ("UNCOMPRESSED", "Disabled")
    assert ext["EncryptionConfiguration"] == {"NoEncryptionConfig": "NoEncryption"}
    assert ext["CloudWatchLoggingOptions"] == {"Enabled": False}
    assert destination["S3DestinationDescription"]["BucketARN"] == f"arn:aws:s3:::{target}"
    assert error_of(firehose.create_delivery_stream, DeliveryStreamName=name,
                    S3DestinationConfiguration={"RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{target}"}) == (
        "ResourceInUseException", f"Firehose {name} under accountId {ACCOUNT} already exists")

    listed = firehose.list_delivery_streams(Limit=10000)
    assert name in listed["DeliveryStreamNames"] and listed["HasMoreDeliveryStreams"] is False
    page = firehose.list_delivery_streams(Limit=1, ExclusiveStartDeliveryStreamName=name[:-1])
    assert len(page["DeliveryStreamNames"]) == 1
    assert name not in firehose.list_delivery_streams(DeliveryStreamType="KinesisStreamAsSource")["DeliveryStreamNames"]

    firehose.delete_delivery_stream(DeliveryStreamName=name)
    d = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    assert d["DeliveryStreamStatus"] == "DELETING"
    stratus.advance(1)
    # turbot/steampipe-plugin-aws#759 quotes AWS's answer for a stream it does not have.
    assert error_of(firehose.describe_delivery_stream, DeliveryStreamName=name) == (
        "ResourceNotFoundException", f"Firehose {name} under account {ACCOUNT} not found.")
    assert name not in firehose.list_delivery_streams(Limit=10000)["DeliveryStreamNames"]


def test_puts_take_awss_limits_and_answer_per_record(stratus, firehose, s3):
    name = s3_stream(stratus, firehose, bucket(s3))
    missing = unique("missing")
    assert error_of(firehose.put_record, DeliveryStreamName=missing, Record={"Data": b"x"}) == (
        "ResourceNotFoundException", f"Firehose {missing} under account {ACCOUNT} not found.")
    answer = firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"a"}, {"Data": b"b"}])
    assert answer["FailedPutCount"] == 0 and answer["Encrypted"] is False
    ids = [r["RecordId"] for r in answer["RequestResponses"]]
    assert len(set(ids)) == 2 and all(ids)
    assert firehose.put_record(DeliveryStreamName=name, Record={"Data": b"c"})["RecordId"]
    # 1,000 KiB per record and 500 records per call are the model's; 4 MiB per call AWS's.
    assert error_of(firehose.put_record, DeliveryStreamName=name, Record={"Data": b"x" * 1_024_001})[0] == "ValidationException"
    assert error_of(firehose.put_record_batch, DeliveryStreamName=name, Records=[{"Data": b"x"}] * 501)[0] == "ValidationException"
    big = [{"Data": b"x" * 1_000_000}] * 5
    assert error_of(firehose.put_record_batch, DeliveryStreamName=name, Records=big) == (
        "InvalidArgumentException", "Records size exceeds 4 MB limit")


def test_records_wait_for_the_interval_and_land_under_awss_object_names(stratus, firehose, s3):
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 60, "SizeInMBs": 5})
    firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"one\n"}, {"Data": b"two\n"}])
    firehose.put_record(DeliveryStreamName=name, Record={"Data": b"three\n"})
    stratus.advance(59)
    assert objects(s3, target, timeout=0.5) == {}
    stratus.advance(1)
    [(key, body)] = objects(s3, target).items()
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\d\d/" + NAME.format(stream=name, version=1), key), key
    assert body == b"one\ntwo\nthree\n"


def test_reaching_the_size_hint_delivers_without_waiting(stratus, firehose, s3):
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 900, "SizeInMBs": 1})
    firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"a" * 600_000}, {"Data": b"b" * 600_000}])
    [body] = objects(s3, target).values()
    assert body == b"a" * 600_000 + b"b" * 600_000


def test_gzip_prefixes_and_file_extensions_name_the_objects(stratus, firehose, s3):
    target = bucket(s3)
    gz = s3_stream(stratus, firehose, target, CompressionFormat="GZIP", BufferingHints={"IntervalInSeconds": 0},
                   Prefix="logs/year=!{timestamp:yyyy}/!{firehose:random-string}/",
                   ErrorOutputPrefix="errors/!{firehose:error-output-type}/")
    firehose.put_record(DeliveryStreamName=gz, Record={"Data": b"zipped"})
    stratus.advance(1)
    [(key, body)] = objects(s3, target).items()
    year = time.gmtime(stratus.now()).tm_year
    assert re.fullmatch(rf"logs/year={year}/[0-9a-f-]{{11}}/" + NAME.format(stream=gz, version=1) + r"\.gz", key), key
    assert gzip.decompress(body) == b"zipped"

    other = bucket(s3)
    txt = s3_stream(stratus, firehose, other, FileExtension=".txt", Prefix="plain/", BufferingHints={"IntervalInSeconds": 0})
    firehose.put_record(DeliveryStreamName=txt, Record={"Data": b"text"})
    stratus.advance(1)
    [key] = objects(s3, other)
    assert key.startswith("plain/2") and key.endswith(".txt")
    # The developer guide's rule, in AWS's words (hashicorp/terraform-provider-aws#13416).
    err = error_of(firehose.create_delivery_stream, DeliveryStreamName=unique("ds"), ExtendedS3DestinationConfiguration={
        "RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{other}", "Prefix": "!{timestamp:yyyy}/"})
    assert err == ("InvalidArgumentException", "Ths supplied prefix(es) do not satisfy the following constraint: "
                   "ErrorOutputPrefix cannot be null or empty when Prefix contains expressions")


def test_dynamic_partitioning_writes_an_object_per_key_and_fails_what_it_cannot_parse(stratus, firehose, s3):
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target,
                     BufferingHints={"IntervalInSeconds": 60, "SizeInMBs": 64},
                     Prefix="customer=!{partitionKeyFromQuery:customer}/",
                     ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
                     DynamicPartitioningConfiguration={"Enabled": True},
                     ProcessingConfiguration={"Enabled": True, "Processors": [
                         {"Type": "MetadataExtraction", "Parameters": [
                             {"ParameterName": "MetadataExtractionQuery", "ParameterValue": "{customer: .customer.id}"},
                             {"ParameterName": "JsonParsingEngine", "ParameterValue": "JQ-1.6"}]},
                         {"Type": "AppendDelimiterToRecord"}]})
    records = [{"customer": {"id": c}, "n": n} for n, c in enumerate(["a", "b", "a"])]
    firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": json.dumps(r).encode()} for r in records] + [{"Data": b"not json"}])
    stratus.advance(60)
    found = objects(s3, target, want=3)
    by_folder = {key.split("/")[0] + "/" + key.split("/")[1]: body for key, body in found.items()}
    a = [json.loads(line) for line in found[next(k for k in found if k.startswith("customer=a/"))].splitlines()]
    assert [r["n"] for r in a] == [0, 2]
    assert next(k for k in found if k.startswith("customer=b/"))
    [failed] = [json.loads(line) for line in by_folder["errors/partitioning-failed"].splitlines()]
    assert base64.b64decode(failed["rawData"]) == b"not json"
    assert failed["errorCode"] == "DynamicPartitioning.MetadataExtractionFailed"


TRANSFORMER = """
import base64

def handler(event, context):
    assert event["deliveryStreamArn"].startswith("arn:aws:firehose:") and event["invocationId"] and event["region"]
    out = []
    for r in event["records"]:
        data = base64.b64decode(r["data"])
        assert isinstance(r["approximateArrivalTimestamp"], int)
        if data == b"drop":
            out.append({"recordId": r["recordId"], "result": "Dropped"})
        elif data == b"fail":
            out.append({"recordId": r["recordId"], "result": "ProcessingFailed", "data": r["data"]})
        else:
            out.append({"recordId": r["recordId"], "result": "Ok", "data": base64.b64encode(data.upper() + b"\\n").decode()})
    return {"records": out}
"""


def test_a_lambda_processor_transforms_drops_and_fails_records(stratus, firehose, s3):
    lam, iam = stratus.client("lambda"), stratus.client("iam")
    role = iam.create_role(RoleName=unique("fn"), AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    function = lam.create_function(FunctionName=unique("transform"), Runtime="python3.12", Role=role,
                                   Handler="app.handler", Code={"ZipFile": make_zip(TRANSFORMER)}, Timeout=30)["FunctionArn"]
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 60},
                     ProcessingConfiguration={"Enabled": True, "Processors": [{"Type": "Lambda", "Parameters": [
                         {"ParameterName": "LambdaArn", "ParameterValue": function}]}]})
    firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": d} for d in [b"one", b"drop", b"fail", b"two"]])
    stratus.advance(60)
    found = objects(s3, target, want=2, timeout=60)
    [data] = [body for key, body in found.items() if not key.startswith("processing-failed/")]
    assert data == b"ONE\nTWO\n"
    [errors] = [body for key, body in found.items() if key.startswith("processing-failed/")]
    [failed] = [json.loads(line) for line in errors.splitlines()]
    assert base64.b64decode(failed["rawData"]) == b"fail"
    assert failed["lambdaArn"] == function and failed["errorCode"] == "Lambda.ProcessingFailedStatus"


def test_a_kinesis_stream_feeds_a_delivery_stream(stratus, firehose, s3):
    kinesis = stratus.client("kinesis")
    source = unique("src")
    kinesis.create_stream(StreamName=source, ShardCount=2)
    stream_arn = kinesis.describe_stream(StreamName=source)["StreamDescription"]["StreamARN"]
    before = "put before the delivery stream existed"
    kinesis.put_record(StreamName=source, Data=before.encode(), PartitionKey="p")
    target, name = bucket(s3), unique("ds")
    active(stratus, firehose, DeliveryStreamName=name, DeliveryStreamType="KinesisStreamAsSource",
           KinesisStreamSourceConfiguration={"KinesisStreamARN": stream_arn, "RoleARN": ROLE},
           ExtendedS3DestinationConfiguration={"RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{target}",
                                               "BufferingHints": {"IntervalInSeconds": 60}})
    d = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    assert d["Source"]["KinesisStreamSourceDescription"]["KinesisStreamARN"] == stream_arn
    assert "DeliveryStreamEncryptionConfiguration" not in d
    # awslabs/lambda-streams-to-firehose#60 and aws/aws-cli#7010 quote AWS's refusal.
    assert error_of(firehose.put_record, DeliveryStreamName=name, Record={"Data": b"x"}) == (
        "InvalidArgumentException", "This operation is not permitted on KinesisStreamAsSource delivery stream type.")
    for key in ["a", "b", "c", "d"]:
        kinesis.put_record(StreamName=source, Data=f"from {key};".encode(), PartitionKey=key)
    # Read as the puts come (woken by them), delivered at the interval.
    deadline = time.time() + 10
    found = {}
    while not found and time.time() < deadline:
        stratus.advance(60)
        found = objects(s3, target, timeout=1)
    body = b"".join(found.values()).decode()
    assert sorted(body.split(";")[:-1]) == ["from a", "from b", "from c", "from d"]
    assert before not in body


class Endpoint(http.server.BaseHTTPRequestHandler):
    """A loopback HTTP endpoint: records each request, answers `/ok` as the contract asks and
    anything else with a 500."""

    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = json.loads(body)
        Endpoint.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, request))
        if self.path == "/ok":
            answer, status = {"requestId": request["requestId"], "timestamp": int(time.time() * 1000)}, 200
        else:
            answer, status = {"requestId": request["requestId"], "timestamp": 0, "errorMessage": "no thanks"}, 500
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def endpoint():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def http_stream(stratus, firehose, url, backup, **more):
    name = unique("ds")
    config = {
        "EndpointConfiguration": {"Url": url, "Name": "test", "AccessKey": "secret-key"},
        "BufferingHints": {"IntervalInSeconds": 60, "SizeInMBs": 1},
        "RequestConfiguration": {"ContentEncoding": "GZIP", "CommonAttributes": [{"AttributeName": "env", "AttributeValue": "test"}]},
        "RoleARN": ROLE,
        "S3Configuration": {"RoleARN": ROLE, "BucketARN": f"arn:aws:s3:::{backup}"},
        **more,
    }
    return active(stratus, firehose, DeliveryStreamName=name, HttpEndpointDestinationConfiguration=config)


def test_an_http_endpoint_gets_awss_request_contract(stratus, firehose, s3, endpoint):
    name = http_stream(stratus, firehose, f"{endpoint}/ok", bucket(s3))
    described = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    http = described["Destinations"][0]["HttpEndpointDestinationDescription"]
    assert http["EndpointConfiguration"] == {"Url": f"{endpoint}/ok", "Name": "test"}
    firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"first"}, {"Data": b"second"}])
    stratus.advance(60)
    deadline = time.time() + 30
    while not any(p == "/ok" and r["records"] and h.get("x-amz-firehose-source-arn", "").endswith(name)
                  for p, h, r in Endpoint.received) and time.time() < deadline:
        time.sleep(0.1)
    [(_, headers, request)] = [(p, h, r) for p, h, r in Endpoint.received if h.get("x-amz-firehose-source-arn", "").endswith(name)]
    assert headers["x-amz-firehose-request-id"] == request["requestId"]
    assert headers["x-amz-firehose-access-key"] == "secret-key"
    assert headers["x-amz-firehose-protocol-version"] == "1.0"
    assert json.loads(headers["x-amz-firehose-common-attributes"]) == {"commonAttributes": {"env": "test"}}
    assert headers["content-type"] == "application/json" and headers["content-encoding"] == "gzip"
    assert [base64.b64decode(r["data"]) for r in request["records"]] == [b"first", b"second"]
    assert isinstance(request["timestamp"], int)


def test_an_endpoint_that_keeps_failing_is_retried_then_backed_up_to_s3(stratus, firehose, s3, endpoint):
    backup = bucket(s3)
    name = http_stream(stratus, firehose, f"{endpoint}/fail", backup, RetryOptions={"DurationInSeconds": 60})
    firehose.put_record(DeliveryStreamName=name, Record={"Data": b"refused"})
    stratus.advance(60)
    attempts = lambda: [r for _, h, r in Endpoint.received if h.get("x-amz-firehose-source-arn", "").endswith(name)]
    deadline = time.time() + 30
    while not attempts() and time.time() < deadline:
        time.sleep(0.1)
    # The same request, retried as the clock moves, until the retry duration is spent.
    for _ in range(12):
        stratus.advance(10)
        time.sleep(0.2)
    sent = attempts()
    assert len(sent) > 2 and len({r["requestId"] for r in sent}) == 1
    [(key, body)] = objects(s3, backup).items()
    assert key.startswith("http-endpoint-failed/")
    [failed] = [json.loads(line) for line in body.splitlines()]
    assert failed["errorCode"] == "HttpEndpoint.DestinationException"
    assert "no thanks" in failed["errorMessage"]
    assert base64.b64decode(failed["rawData"]) == b"refused"


def test_a_missing_bucket_is_retried_until_it_exists(stratus, firehose, s3):
    target = unique("later")
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 0})
    firehose.put_record(DeliveryStreamName=name, Record={"Data": b"patient"})
    stratus.advance(1)
    time.sleep(0.5)
    s3.create_bucket(Bucket=target)
    stratus.advance(5)
    [body] = objects(s3, target).values()
    assert body == b"patient"


def test_updates_tags_and_encryption(stratus, firehose, s3):
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 60})
    code, message = error_of(firehose.update_destination, DeliveryStreamName=name, CurrentDeliveryStreamVersionId="7",
                             DestinationId="destinationId-000000000001", ExtendedS3DestinationUpdate={"Prefix": "v2/"})
    assert code == "ConcurrentModificationException" and "version id" in message
    firehose.update_destination(DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1",
                                DestinationId="destinationId-000000000001", ExtendedS3DestinationUpdate={"Prefix": "v2/"})
    d = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    ext = d["Destinations"][0]["ExtendedS3DestinationDescription"]
    assert (d["VersionId"], ext["Prefix"], ext["BufferingHints"]["IntervalInSeconds"]) == ("2", "v2/", 60)
    assert "LastUpdateTimestamp" in d
    firehose.put_record(DeliveryStreamName=name, Record={"Data": b"v2"})
    stratus.advance(60)
    [key] = objects(s3, target)
    assert key.startswith("v2/") and re.search(NAME.format(stream=name, version=2), key)

    firehose.start_delivery_stream_encryption(DeliveryStreamName=name, DeliveryStreamEncryptionConfigurationInput={"KeyType": "AWS_OWNED_CMK"})
    status = lambda: firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]["DeliveryStreamEncryptionConfiguration"]
    assert status() == {"KeyType": "AWS_OWNED_CMK", "Status": "ENABLING"}
    stratus.advance(1)
    assert status()["Status"] == "ENABLED"
    assert firehose.put_record(DeliveryStreamName=name, Record={"Data": b"x"})["Encrypted"] is True
    firehose.stop_delivery_stream_encryption(DeliveryStreamName=name)
    assert status()["Status"] == "DISABLING"
    stratus.advance(1)
    assert status()["Status"] == "DISABLED"
    assert error_of(firehose.start_delivery_stream_encryption, DeliveryStreamName=name,
                    DeliveryStreamEncryptionConfigurationInput={"KeyType": "CUSTOMER_MANAGED_CMK"})[0] == "InvalidArgumentException"

    firehose.tag_delivery_stream(DeliveryStreamName=name, Tags=[{"Key": f"k{i:02}", "Value": str(i)} for i in range(30)])
    page = firehose.list_tags_for_delivery_stream(DeliveryStreamName=name, Limit=10)
    assert [t["Key"] for t in page["Tags"]] == [f"k{i:02}" for i in range(10)] and page["HasMoreTags"] is True
    rest = firehose.list_tags_for_delivery_stream(DeliveryStreamName=name, ExclusiveStartTagKey="k09")
    assert len(rest["Tags"]) == 20 and rest["HasMoreTags"] is False
    too_many = [{"Key": f"x{i:02}", "Value": ""} for i in range(21)]
    assert error_of(firehose.tag_delivery_stream, DeliveryStreamName=name, Tags=too_many)[0] == "LimitExceededException"
    firehose.untag_delivery_stream(DeliveryStreamName=name, TagKeys=["k00", "absent"])
    assert len(firehose.list_tags_for_delivery_stream(DeliveryStreamName=name)["Tags"]) == 29


def test_what_stratus_does_not_serve_is_refused_by_name(stratus, firehose, s3):
    target = f"arn:aws:s3:::{bucket(s3)}"
    msk = {"MSKClusterARN": "arn:aws:kafka:us-east-1:000000000000:cluster/c/1", "TopicName": "t",
           "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PUBLIC"}}
    code, message = error_of(firehose.create_delivery_stream, DeliveryStreamName=unique("ds"), DeliveryStreamType="MSKAsSource",
                             MSKSourceConfiguration=msk, ExtendedS3DestinationConfiguration={"RoleARN": ROLE, "BucketARN": target})
    assert code == "NotImplemented" and "MSK" in message
    code, message = error_of(firehose.create_delivery_stream, DeliveryStreamName=unique("ds"), ExtendedS3DestinationConfiguration={
        "RoleARN": ROLE, "BucketARN": target, "DataFormatConversionConfiguration": {"Enabled": True}})
    assert code == "NotImplemented" and "format conversion" in message
    # Stored and described, not delivered to.
    name = unique("ds")
    firehose.create_delivery_stream(DeliveryStreamName=name, SplunkDestinationConfiguration={
        "HECEndpoint": "https://splunk.example.com:8088", "HECEndpointType": "Raw", "HECToken": "t",
        "S3Configuration": {"RoleARN": ROLE, "BucketARN": target}})
    splunk = firehose.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]["Destinations"][0]
    assert splunk["SplunkDestinationDescription"]["HECEndpointType"] == "Raw"
    assert error_of(firehose.create_delivery_stream, DeliveryStreamName=unique("ds"))[0] == "InvalidArgumentException"


def test_logs_subscription_filters_deliver_through_a_delivery_stream_to_s3(stratus, firehose, s3):
    logs = stratus.client("logs")
    target = bucket(s3)
    name = s3_stream(stratus, firehose, target, BufferingHints={"IntervalInSeconds": 60})
    stream_arn = f"arn:aws:firehose:{REGION}:{ACCOUNT}:deliverystream/{name}"
    group = unique("/app")
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    missing = f"arn:aws:firehose:{REGION}:{ACCOUNT}:deliverystream/{unique('none')}"
    assert error_of(logs.put_subscription_filter, logGroupName=group, filterName="f", filterPattern="",
                    destinationArn=missing, roleArn=ROLE) == (
        "InvalidParameterException",
        "Could not deliver test message to specified Firehose stream. Check if the given Firehose stream is in ACTIVE state.")
    logs.put_subscription_filter(logGroupName=group, filterName="errors", filterPattern="ERROR", destinationArn=stream_arn, roleArn=ROLE)
    t = int(stratus.now() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": t, "message": "ERROR one"}, {"timestamp": t + 1, "message": "INFO two"}])
    deadline = time.time() + 30
    found = {}
    while not found and time.time() < deadline:
        stratus.advance(60)
        found = objects(s3, target, timeout=1)
    [body] = found.values()
    # Each record is a gzip member; the object is their concatenation, which gzip reads whole.
    members = []
    rest = body
    while rest:
        d = __import__("zlib").decompressobj(16 + 15)
        members.append(json.loads(d.decompress(rest)))
        rest = d.unused_data
    assert [m["messageType"] for m in members] == ["CONTROL_MESSAGE", "DATA_MESSAGE"]
    assert members[0]["logEvents"][0]["message"] == "CWL CONTROL MESSAGE: Checking health of destination Firehose."
    data = members[1]
    assert (data["logGroup"], data["logStream"], data["subscriptionFilters"]) == (group, "s", ["errors"])
    assert [e["message"] for e in data["logEvents"]] == ["ERROR one"]


def test_buffered_records_survive_kill_9_and_are_delivered_once(tmp_path):
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        firehose, s3 = server.client("firehose"), server.client("s3")
        target = bucket(s3)
        name = s3_stream(server, firehose, target, BufferingHints={"IntervalInSeconds": 300})
        firehose.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"kept;"}, {"Data": b"too;"}])
    finally:
        server.stop(signal.SIGKILL)
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        s3 = server.client("s3")
        # The restarted clock starts from the machine's time, which may be a moment behind
        # where the first run had moved it.
        server.advance(302)
        [body] = objects(s3, target).values()
        assert body == b"kept;too;"
        server.advance(600)
        time.sleep(0.5)
        assert len(objects(s3, target)) == 1
    finally:
        server.stop()


def test_buffers_are_delivered_on_shutdown(tmp_path):
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    firehose, s3 = server.client("firehose"), server.client("s3")
    target = bucket(s3)
    name = s3_stream(server, firehose, target)
    firehose.put_record(DeliveryStreamName=name, Record={"Data": b"before stopping"})
    assert server.stop(signal.SIGTERM) == 0
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        [body] = objects(server.client("s3"), target, timeout=1).values()
        assert body == b"before stopping"
    finally:
        server.stop()
