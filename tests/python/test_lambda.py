"""Lambda's control plane through boto3 against the real binary: functions, versions, aliases,
policies, concurrency, per-function configurations, tags and layers, with AWS's codes and
messages (as AWS's recorded answers show them). Nothing here runs a function: invocation is
tests/python/test_lambda_invoke.py."""

import base64
import hashlib
import io
import json
import urllib.error
import urllib.request
import zipfile

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
REGION = "us-east-1"
ARN_PREFIX = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:"
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)


def make_zip(files=None):
    files = files or {"handler.py": "def handler(event, context):\n    return event\n"}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


ZIP = make_zip()


@pytest.fixture(scope="module")
def lam(stratus):
    return stratus.client("lambda")


@pytest.fixture(scope="module")
def role(stratus):
    iam = stratus.client("iam")
    return iam.create_role(RoleName="lambda-exec", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


counter = iter(range(10_000))


@pytest.fixture
def fn(lam, role):
    """A fresh function's name."""
    name = f"fn-{next(counter)}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler", Code={"ZipFile": ZIP})
    return name


def error(excinfo):
    e = excinfo.value.response
    return e["Error"]["Code"], e["Error"]["Message"], e["ResponseMetadata"]["HTTPStatusCode"]


def test_create_function_answers_pending_then_reads_active_with_aws_defaults(lam, role):
    created = lam.create_function(
        FunctionName="defaults", Runtime="python3.12", Role=role, Handler="handler.handler", Code={"ZipFile": ZIP}
    )
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert created["State"] == "Pending"
    assert created["StateReason"] == "The function is being created."
    assert created["StateReasonCode"] == "Creating"
    assert "LastUpdateStatus" not in created
    assert created["FunctionArn"] == ARN_PREFIX + "defaults"
    assert created["Version"] == "$LATEST"
    assert created["CodeSha256"] == base64.b64encode(hashlib.sha256(ZIP).digest()).decode()
    assert created["CodeSize"] == len(ZIP)
    assert created["MemorySize"] == 128 and created["Timeout"] == 3
    assert created["Architectures"] == ["x86_64"]
    assert created["EphemeralStorage"] == {"Size": 512}
    assert created["TracingConfig"] == {"Mode": "PassThrough"}
    assert created["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": "/aws/lambda/defaults"}
    assert created["SnapStart"] == {"ApplyOn": "None", "OptimizationStatus": "Off"}
    assert created["PackageType"] == "Zip" and created["Description"] == ""
    assert "Environment" not in created
    assert created["RuntimeVersionConfig"]["RuntimeVersionArn"].startswith(f"arn:aws:lambda:{REGION}::runtime:")

    config = lam.get_function_configuration(FunctionName="defaults")
    assert config["State"] == "Active" and config["LastUpdateStatus"] == "Successful"
    assert config["RevisionId"] != created["RevisionId"]
    # The settled revision stays put.
    assert lam.get_function_configuration(FunctionName="defaults")["RevisionId"] == config["RevisionId"]

    got = lam.get_function(FunctionName="defaults")
    assert got["Code"]["RepositoryType"] == "S3"
    assert "/_stratus/lambda/code/" in got["Code"]["Location"]
    # The location downloads the zip, as AWS's presigned S3 URL does.
    assert urllib.request.urlopen(got["Code"]["Location"], timeout=10).read() == ZIP
    assert got["Configuration"]["FunctionArn"] == ARN_PREFIX + "defaults"
    assert "Tags" not in got and "Concurrency" not in got
    latest = lam.get_function(FunctionName="defaults", Qualifier="$LATEST")
    assert latest["Configuration"]["FunctionArn"] == ARN_PREFIX + "defaults:$LATEST"


def test_a_second_create_is_a_conflict(lam, role, fn):
    with pytest.raises(ClientError) as e:
        lam.create_function(FunctionName=fn, Runtime="python3.12", Role=role, Handler="h.h", Code={"ZipFile": ZIP})
    assert error(e) == ("ResourceConflictException", f"Function already exist: {fn}", 409)


def test_every_form_of_a_name_finds_the_function(lam, fn):
    for name in [fn, f"{ACCOUNT}:function:{fn}", ARN_PREFIX + fn]:
        assert lam.get_function(FunctionName=name)["Configuration"]["FunctionName"] == fn
    got = lam.get_function(FunctionName=f"{fn}:$LATEST")
    assert got["Configuration"]["FunctionArn"] == ARN_PREFIX + fn + ":$LATEST"


def test_missing_functions_are_named_as_aws_names_them(lam, fn):
    with pytest.raises(ClientError) as e:
        lam.get_function(FunctionName="doesnotexist")
    assert error(e) == ("ResourceNotFoundException", f"Function not found: {ARN_PREFIX}doesnotexist", 404)
    with pytest.raises(ClientError) as e:
        lam.get_function(FunctionName=fn, Qualifier="42")
    assert error(e) == ("ResourceNotFoundException", f"Function not found: {ARN_PREFIX}{fn}:42", 404)
    with pytest.raises(ClientError) as e:
        lam.get_function(FunctionName=f"arn:aws:lambda:ap-southeast-1:{ACCOUNT}:function:{fn}")
    assert error(e) == (
        "ResourceNotFoundException",
        f"Functions from 'ap-southeast-1' are not reachable in this region ('{REGION}')",
        404,
    )
    with pytest.raises(ClientError) as e:
        lam.get_function(FunctionName=f"{fn}:1", Qualifier="2")
    assert error(e) == (
        "InvalidParameterValueException",
        "The derived qualifier from the function name does not match the specified qualifier.",
        400,
    )
    with pytest.raises(ClientError) as e:
        lam.delete_function(FunctionName="doesnotexist")
    assert error(e)[0] == "ResourceNotFoundException"


def test_the_role_must_exist_and_trust_lambda(lam, stratus):
    with pytest.raises(ClientError) as e:
        lam.create_function(
            FunctionName="no-role",
            Runtime="python3.12",
            Role=f"arn:aws:iam::{ACCOUNT}:role/doesnotexist",
            Handler="h.h",
            Code={"ZipFile": ZIP},
        )
    assert error(e) == (
        "InvalidParameterValueException",
        "The role defined for the function cannot be assumed by Lambda.",
        400,
    )
    iam = stratus.client("iam")
    ec2_trust = TRUST.replace("lambda.amazonaws.com", "ec2.amazonaws.com")
    other = iam.create_role(RoleName="ec2-only", AssumeRolePolicyDocument=ec2_trust)["Role"]["Arn"]
    with pytest.raises(ClientError) as e:
        lam.create_function(FunctionName="no-role", Runtime="python3.12", Role=other, Handler="h.h", Code={"ZipFile": ZIP})
    assert error(e)[1] == "The role defined for the function cannot be assumed by Lambda."
    with pytest.raises(ClientError) as e:
        lam.create_function(FunctionName="no-role", Runtime="python3.12", Role="r1", Handler="h.h", Code={"ZipFile": ZIP})
    assert error(e)[0] == "ValidationException"
    with pytest.raises(ClientError) as e:
        lam.create_function(FunctionName="a" * 65, Runtime="python3.12", Role=other, Handler="h.h", Code={"ZipFile": ZIP})
    assert error(e)[:2] == (
        "InvalidParameterValueException",
        f"1 validation error detected: Value '{'a' * 65}' at 'functionName' failed to satisfy constraint: Member "
        "must have length less than or equal to 64",
    )


def test_runtimes_handlers_and_environments_are_checked(lam, role):
    base = dict(FunctionName="checked", Role=role, Code={"ZipFile": ZIP})
    with pytest.raises(ClientError) as e:
        lam.create_function(Runtime="python3.7", Handler="h.h", **base)
    assert error(e) == (
        "InvalidParameterValueException",
        "The runtime parameter of python3.7 is no longer supported for creating or updating AWS Lambda functions. "
        "We recommend you use a supported runtime while creating or updating functions.",
        400,
    )
    with pytest.raises(ClientError) as e:
        lam.create_function(Runtime="python3.12", **base)
    assert error(e)[:2] == (
        "InvalidParameterValueException",
        "Runtime and Handler are mandatory parameters for functions created with deployment packages.",
    )
    with pytest.raises(ClientError) as e:
        lam.create_function(Runtime="python3.12", Handler="h.h", Environment={"Variables": {"AWS_REGION": "x"}}, **base)
    assert "AWS_REGION" in error(e)[1]
    big = {"LARGE_VAR": "x" * 4096}
    with pytest.raises(ClientError) as e:
        lam.create_function(Runtime="python3.12", Handler="h.h", Environment={"Variables": big}, **base)
    assert error(e)[1] == (
        "Lambda was unable to configure your environment variables because the environment variables you have "
        f"provided exceeded the 4KB limit. String measured: {json.dumps(big, separators=(',', ':'))}"
    )
    with pytest.raises(ClientError) as e:
        lam.create_function(Runtime="python3.12", Handler="h.h", FunctionName="x", Role=role, Code={"ZipFile": b"not a zip"})
    assert error(e) == (
        "InvalidParameterValueException",
        "Could not unzip uploaded file. Please check your file, then try to upload again.",
        400,
    )


def test_code_from_s3_is_refused_as_aws_refuses_a_missing_object(lam, role, stratus):
    s3 = stratus.client("s3")
    s3.create_bucket(Bucket="code-bucket")
    with pytest.raises(ClientError) as e:
        lam.create_function(
            FunctionName="from-s3",
            Runtime="python3.12",
            Role=role,
            Handler="h.h",
            Code={"S3Bucket": "code-bucket", "S3Key": "missing.zip"},
        )
    code, message, status = error(e)
    assert code == "InvalidParameterValueException" and status == 400
    assert message.startswith("Error occurred while GetObject. S3 Error Code: ")


def test_update_configuration_and_code_with_revision_preconditions(lam, fn):
    current = lam.get_function_configuration(FunctionName=fn)
    with pytest.raises(ClientError) as e:
        lam.update_function_configuration(FunctionName=fn, Description="x", RevisionId="wrong")
    assert error(e) == (
        "PreconditionFailedException",
        "The Revision Id provided does not match the latest Revision Id. Call the GetFunction/GetAlias API to "
        "retrieve the latest Revision Id",
        412,
    )
    updated = lam.update_function_configuration(
        FunctionName=fn,
        Description="changed",
        MemorySize=512,
        Timeout=10,
        Environment={"Variables": {"ENV_A": "a"}},
        RevisionId=current["RevisionId"],
    )
    assert updated["LastUpdateStatus"] == "InProgress" and updated["State"] == "Active"
    assert updated["LastUpdateStatusReasonCode"] == "Creating"
    after = lam.get_function_configuration(FunctionName=fn)
    assert after["LastUpdateStatus"] == "Successful"
    assert (after["Description"], after["MemorySize"], after["Timeout"]) == ("changed", 512, 10)
    assert after["Environment"] == {"Variables": {"ENV_A": "a"}}

    new_zip = make_zip({"handler.py": "def handler(e, c):\n    return 2\n"})
    dry = lam.update_function_code(FunctionName=fn, ZipFile=new_zip, DryRun=True)
    assert dry["CodeSha256"] == base64.b64encode(hashlib.sha256(new_zip).digest()).decode()
    assert lam.get_function_configuration(FunctionName=fn)["CodeSha256"] == after["CodeSha256"]
    published = lam.update_function_code(FunctionName=fn, ZipFile=new_zip, Publish=True)
    assert published["Version"] == "1"
    assert published["FunctionArn"] == f"{ARN_PREFIX}{fn}:1"
    assert lam.get_function_configuration(FunctionName=fn)["CodeSha256"] == dry["CodeSha256"]


def test_versions_are_published_once_per_change(lam, fn):
    v1 = lam.publish_version(FunctionName=fn)
    assert v1["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert v1["Version"] == "1" and v1["FunctionArn"] == f"{ARN_PREFIX}{fn}:1"
    assert lam.publish_version(FunctionName=fn)["Version"] == "1"
    with pytest.raises(ClientError) as e:
        lam.publish_version(FunctionName=fn, CodeSha256="somenonexistentsha256")
    assert error(e)[1] == (
        f"CodeSHA256 (somenonexistentsha256) is different from current CodeSHA256 in $LATEST ({v1['CodeSha256']}). "
        "Please try again with the CodeSHA256 in $LATEST."
    )
    with pytest.raises(ClientError) as e:
        lam.publish_version(FunctionName=fn, RevisionId="wrong")
    assert error(e)[0] == "PreconditionFailedException"
    lam.update_function_configuration(FunctionName=fn, Description="v2")
    assert lam.publish_version(FunctionName=fn)["Version"] == "2"
    versions = lam.list_versions_by_function(FunctionName=fn)["Versions"]
    assert [v["Version"] for v in versions] == ["$LATEST", "1", "2"]
    assert versions[0]["FunctionArn"] == f"{ARN_PREFIX}{fn}:$LATEST"
    assert "State" not in versions[1]
    page = lam.list_versions_by_function(FunctionName=fn, MaxItems=2)
    assert len(page["Versions"]) == 2
    rest = lam.list_versions_by_function(FunctionName=fn, Marker=page["NextMarker"])
    assert [v["Version"] for v in rest["Versions"]] == ["2"] and "NextMarker" not in rest

    with pytest.raises(ClientError) as e:
        lam.delete_function(FunctionName=fn, Qualifier="$LATEST")
    assert error(e)[1] == "$LATEST version cannot be deleted without deleting the function."
    lam.delete_function(FunctionName=fn, Qualifier="1")
    with pytest.raises(ClientError) as e:
        lam.get_function(FunctionName=fn, Qualifier="1")
    assert error(e)[0] == "ResourceNotFoundException"


def test_aliases_and_their_routing(lam, fn):
    lam.publish_version(FunctionName=fn)
    lam.update_function_configuration(FunctionName=fn, Description="v2")
    lam.publish_version(FunctionName=fn)
    alias = lam.create_alias(
        FunctionName=fn,
        Name="live",
        FunctionVersion="1",
        Description="custom-alias",
        RoutingConfig={"AdditionalVersionWeights": {"2": 0.2}},
    )
    assert alias["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert alias["AliasArn"] == f"{ARN_PREFIX}{fn}:live"
    assert alias["RoutingConfig"] == {"AdditionalVersionWeights": {"2": 0.2}}
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    assert error(e) == ("ResourceConflictException", f"Alias already exists: {ARN_PREFIX}{fn}:live", 409)
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="bad", FunctionVersion="1", RoutingConfig={"AdditionalVersionWeights": {"1": 0.5}})
    assert error(e)[1] == "Invalid function version 1. Function version 1 is already included in routing configuration."
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="bad", FunctionVersion="$LATEST", RoutingConfig={"AdditionalVersionWeights": {"1": 0.5}})
    assert error(e)[1] == "$LATEST is not supported for an alias pointing to more than 1 version"
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="bad", FunctionVersion="1", RoutingConfig={"AdditionalVersionWeights": {"2": 0.1, "3": 0.1}})
    assert error(e)[1] == "Number of items in AdditionalVersionWeights cannot be greater than 1"
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="bad", FunctionVersion="9")
    assert error(e) == ("ResourceNotFoundException", f"Function not found: {ARN_PREFIX}{fn}:9", 404)
    with pytest.raises(ClientError) as e:
        lam.create_alias(FunctionName=fn, Name="2024", FunctionVersion="1")
    assert error(e)[0] == "ValidationException"

    got = lam.get_alias(FunctionName=fn, Name="live")
    assert got["RevisionId"] == alias["RevisionId"]
    with pytest.raises(ClientError) as e:
        lam.update_alias(FunctionName=fn, Name="live", Description="x", RevisionId="wrong")
    assert error(e)[0] == "PreconditionFailedException"
    updated = lam.update_alias(FunctionName=fn, Name="live", FunctionVersion="2", RoutingConfig={"AdditionalVersionWeights": {}})
    assert updated["FunctionVersion"] == "2" and "RoutingConfig" not in updated
    assert updated["RevisionId"] != alias["RevisionId"]
    with pytest.raises(ClientError) as e:
        lam.update_alias(FunctionName=fn, Name="non-existent", Description="x")
    assert error(e) == ("ResourceNotFoundException", f"Alias not found: {ARN_PREFIX}{fn}:non-existent", 404)
    with pytest.raises(ClientError) as e:
        lam.get_alias(FunctionName=fn, Name="non-existent")
    assert error(e)[1] == f"Cannot find alias arn: {ARN_PREFIX}{fn}:non-existent"

    lam.create_alias(FunctionName=fn, Name="other", FunctionVersion="1")
    assert [a["Name"] for a in lam.list_aliases(FunctionName=fn)["Aliases"]] == ["live", "other"]
    assert [a["Name"] for a in lam.list_aliases(FunctionName=fn, FunctionVersion="1")["Aliases"]] == ["other"]
    by_alias = lam.get_function_configuration(FunctionName=fn, Qualifier="other")
    assert by_alias["Version"] == "1" and by_alias["FunctionArn"] == f"{ARN_PREFIX}{fn}:other"
    with pytest.raises(ClientError) as e:
        lam.delete_function(FunctionName=fn, Qualifier="other")
    assert error(e)[1] == "Deletion of aliases is not currently supported."
    assert lam.delete_alias(FunctionName=fn, Name="other")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.delete_alias(FunctionName=fn, Name="other")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert [a["Name"] for a in lam.list_aliases(FunctionName=fn)["Aliases"]] == ["live"]


def test_permissions_and_policies(lam, fn):
    arn = ARN_PREFIX + fn
    with pytest.raises(ClientError) as e:
        lam.get_policy(FunctionName=fn)
    assert error(e) == ("ResourceNotFoundException", "The resource you requested does not exist.", 404)
    added = lam.add_permission(
        FunctionName=fn,
        StatementId="s3",
        Action="lambda:InvokeFunction",
        Principal="s3.amazonaws.com",
        SourceArn="arn:aws:s3:::bucket",
        SourceAccount="111111111111",
    )
    assert added["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert json.loads(added["Statement"]) == {
        "Sid": "s3",
        "Effect": "Allow",
        "Principal": {"Service": "s3.amazonaws.com"},
        "Action": "lambda:InvokeFunction",
        "Resource": arn,
        "Condition": {
            "StringEquals": {"AWS:SourceAccount": "111111111111"},
            "ArnLike": {"AWS:SourceArn": "arn:aws:s3:::bucket"},
        },
    }
    with pytest.raises(ClientError) as e:
        lam.add_permission(FunctionName=fn, StatementId="s3", Action="lambda:InvokeFunction", Principal="sqs.amazonaws.com")
    assert error(e) == (
        "ResourceConflictException",
        "The statement id (s3) provided already exists. Please provide a new statement id, or remove the existing "
        "statement.",
        409,
    )
    lam.add_permission(FunctionName=fn, StatementId="acct", Action="lambda:GetFunction", Principal="111111111111")
    policy = lam.get_policy(FunctionName=fn)
    document = json.loads(policy["Policy"])
    assert document["Version"] == "2012-10-17" and document["Id"] == "default"
    assert [s["Sid"] for s in document["Statement"]] == ["s3", "acct"]
    assert document["Statement"][1]["Principal"] == {"AWS": "arn:aws:iam::111111111111:root"}
    with pytest.raises(ClientError) as e:
        lam.remove_permission(FunctionName=fn, StatementId="acct", RevisionId="wrong")
    assert error(e)[1] == (
        "The Revision Id provided does not match the latest Revision Id. Call the GetPolicy API to retrieve the "
        "latest Revision Id"
    )
    lam.remove_permission(FunctionName=fn, StatementId="acct", RevisionId=policy["RevisionId"])
    with pytest.raises(ClientError) as e:
        lam.remove_permission(FunctionName=fn, StatementId="non-existent")
    assert error(e)[1] == "Statement non-existent is not found in resource policy."
    with pytest.raises(ClientError) as e:
        lam.add_permission(FunctionName=fn, StatementId="x", Action="lambda:InvokeFunction", Principal="invalid-principal")
    assert error(e)[1] == "The provided principal was invalid. Please check the principal and try again."
    with pytest.raises(ClientError) as e:
        lam.add_permission(FunctionName=fn, Qualifier="$LATEST", StatementId="x", Action="lambda:InvokeFunction", Principal="*")
    assert error(e)[1] == "We currently do not support adding policies for $LATEST."
    with pytest.raises(ClientError) as e:
        lam.add_permission(FunctionName=fn, Qualifier="nope", StatementId="x", Action="lambda:InvokeFunction", Principal="*")
    assert error(e)[1] == f"Cannot find alias arn: {arn}:nope"
    with pytest.raises(ClientError) as e:
        lam.remove_permission(FunctionName="doesnotexist", StatementId="x")
    assert error(e)[1] == f"No policy found for: {ARN_PREFIX}doesnotexist"
    lam.remove_permission(FunctionName=fn, StatementId="s3")
    with pytest.raises(ClientError) as e:
        lam.remove_permission(FunctionName=fn, StatementId="s3")
    assert error(e)[1] == "No policy is associated with the given resource."


def test_listing_functions_pages_with_markers(lam, role):
    for i in range(3):
        lam.create_function(FunctionName=f"list-{i}", Runtime="python3.12", Role=role, Handler="h.h", Code={"ZipFile": ZIP})
    names = []
    kwargs = {"MaxItems": 2}
    while True:
        page = lam.list_functions(**kwargs)
        assert len(page["Functions"]) <= 2
        names += [f["FunctionName"] for f in page["Functions"]]
        if "NextMarker" not in page:
            break
        kwargs["Marker"] = page["NextMarker"]
    assert {"list-0", "list-1", "list-2"} <= set(names)
    assert names == sorted(names)
    listed = [f for f in lam.list_functions()["Functions"] if f["FunctionName"] == "list-0"][0]
    assert "State" not in listed and listed["FunctionArn"] == ARN_PREFIX + "list-0"
    lam.publish_version(FunctionName="list-0")
    all_versions = lam.list_functions(FunctionVersion="ALL")["Functions"]
    assert [f["Version"] for f in all_versions if f["FunctionName"] == "list-0"] == ["$LATEST", "1"]
    with pytest.raises(ClientError) as e:
        lam.list_functions(Marker="garbage")
    assert error(e)[0] == "InvalidParameterValueException"


def test_reserved_concurrency_and_account_settings(lam, fn):
    before = lam.get_account_settings()
    assert before["AccountLimit"]["ConcurrentExecutions"] == 1000
    assert before["AccountLimit"]["CodeSizeZipped"] == 52428800
    assert before["AccountLimit"]["CodeSizeUnzipped"] == 262144000
    assert before["AccountUsage"]["FunctionCount"] >= 1
    assert lam.get_function_concurrency(FunctionName=fn).get("ReservedConcurrentExecutions") is None
    assert lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=5)["ReservedConcurrentExecutions"] == 5
    assert lam.get_function_concurrency(FunctionName=fn)["ReservedConcurrentExecutions"] == 5
    assert lam.get_function(FunctionName=fn)["Concurrency"] == {"ReservedConcurrentExecutions": 5}
    assert lam.get_account_settings()["AccountLimit"]["UnreservedConcurrentExecutions"] == 995
    with pytest.raises(ClientError) as e:
        lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=901)
    assert error(e)[1] == (
        "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below "
        "its minimum value of [100]."
    )
    with pytest.raises(ClientError) as e:
        lam.put_function_concurrency(FunctionName=f"{fn}:1", ReservedConcurrentExecutions=1)
    assert error(e)[1].startswith("This operation is permitted on Lambda functions only.")
    with pytest.raises(ClientError) as e:
        lam.put_function_concurrency(FunctionName="doesnotexist", ReservedConcurrentExecutions=1)
    assert error(e)[0] == "ResourceNotFoundException"
    lam.delete_function_concurrency(FunctionName=fn)
    assert lam.get_function_concurrency(FunctionName=fn).get("ReservedConcurrentExecutions") is None


def test_provisioned_concurrency_configs(lam, fn):
    lam.publish_version(FunctionName=fn)
    lam.create_alias(FunctionName=fn, Name="pc", FunctionVersion="1")
    with pytest.raises(ClientError) as e:
        lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="$LATEST", ProvisionedConcurrentExecutions=1)
    assert error(e)[1] == "Provisioned Concurrency Configs cannot be applied to unpublished function versions."
    with pytest.raises(ClientError) as e:
        lam.get_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc")
    assert error(e) == (
        "ProvisionedConcurrencyConfigNotFoundException",
        "No Provisioned Concurrency Config found for this function",
        404,
    )
    put = lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc", ProvisionedConcurrentExecutions=2)
    assert put["Status"] == "IN_PROGRESS" and put["RequestedProvisionedConcurrentExecutions"] == 2
    got = lam.get_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc")
    assert got["Status"] == "READY" and got["AvailableProvisionedConcurrentExecutions"] == 2
    listed = lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"]
    assert [c["FunctionArn"] for c in listed] == [f"{ARN_PREFIX}{fn}:pc"]
    with pytest.raises(ClientError) as e:
        lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="1", ProvisionedConcurrentExecutions=1)
    assert error(e) == ("ResourceConflictException", "Version is pointed by a Provisioned Concurrency alias", 409)
    with pytest.raises(ClientError) as e:
        lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc", ProvisionedConcurrentExecutions=901)
    assert error(e)[1].startswith("Specified ConcurrentExecutions for function decreases account's")
    lam.delete_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc")
    assert lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"] == []
    # Deleting again is idempotent.
    lam.delete_provisioned_concurrency_config(FunctionName=fn, Qualifier="pc")


def test_event_invoke_configs(lam, fn, stratus):
    arn = f"{ARN_PREFIX}{fn}:$LATEST"
    with pytest.raises(ClientError) as e:
        lam.get_function_event_invoke_config(FunctionName=fn)
    assert error(e) == ("ResourceNotFoundException", f"The function {arn} doesn't have an EventInvokeConfig", 404)
    put = lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=0)
    assert put["FunctionArn"] == arn and put["MaximumRetryAttempts"] == 0
    assert put["DestinationConfig"] == {"OnSuccess": {}, "OnFailure": {}}
    assert "MaximumEventAgeInSeconds" not in put
    # Put replaces; Update merges.
    put = lam.put_function_event_invoke_config(FunctionName=fn, MaximumEventAgeInSeconds=60)
    assert "MaximumRetryAttempts" not in put
    updated = lam.update_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=1)
    assert (updated["MaximumEventAgeInSeconds"], updated["MaximumRetryAttempts"]) == (60, 1)
    queue = stratus.client("sqs").create_queue(QueueName="failures")["QueueUrl"]
    queue_arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:failures"
    with_destination = lam.update_function_event_invoke_config(
        FunctionName=fn, DestinationConfig={"OnFailure": {"Destination": queue_arn}}
    )
    assert with_destination["DestinationConfig"]["OnFailure"] == {"Destination": queue_arn}
    with pytest.raises(ClientError) as e:
        lam.put_function_event_invoke_config(FunctionName=fn, DestinationConfig={"OnSuccess": {"Destination": ARN_PREFIX + fn}})
    assert error(e)[1] == "You can't specify the function as a destination for itself."
    with pytest.raises(ClientError) as e:
        lam.put_function_event_invoke_config(FunctionName=fn, DestinationConfig={"OnSuccess": {"Destination": ARN_PREFIX + "doesnotexist"}})
    assert error(e)[1] == f"The destination ARN {ARN_PREFIX}doesnotexist is invalid."
    listed = lam.list_function_event_invoke_configs(FunctionName=fn)["FunctionEventInvokeConfigs"]
    assert [c["FunctionArn"] for c in listed] == [arn]
    lam.delete_function_event_invoke_config(FunctionName=fn)
    with pytest.raises(ClientError) as e:
        lam.delete_function_event_invoke_config(FunctionName=fn)
    assert error(e)[0] == "ResourceNotFoundException"
    assert queue


def test_function_url_configs(lam, fn):
    created = lam.create_function_url_config(FunctionName=fn, AuthType="NONE", Cors={"AllowOrigins": ["*"]})
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    url = created["FunctionUrl"]
    # Served here, so the URL is local (tests/python/test_lambda_urls.py), not AWS's `on.aws` name.
    assert url.startswith("http://") and f".lambda-url.{REGION}.localhost.localstack.cloud:" in url
    assert len(url.removeprefix("http://").split(".")[0]) == 32
    assert created["FunctionArn"] == ARN_PREFIX + fn
    with pytest.raises(ClientError) as e:
        lam.create_function_url_config(FunctionName=fn, AuthType="NONE")
    assert error(e) == (
        "ResourceConflictException",
        f"Failed to create function url config for [functionArn = {ARN_PREFIX}{fn}]. Error message:  "
        "FunctionUrlConfig exists for this Lambda function",
        409,
    )
    got = lam.get_function_url_config(FunctionName=fn)
    assert got["FunctionUrl"] == url and got["InvokeMode"] == "BUFFERED" and got["Cors"] == {"AllowOrigins": ["*"]}
    updated = lam.update_function_url_config(FunctionName=fn, AuthType="AWS_IAM")
    assert updated["AuthType"] == "AWS_IAM" and updated["FunctionUrl"] == url
    assert [c["FunctionUrl"] for c in lam.list_function_url_configs(FunctionName=fn)["FunctionUrlConfigs"]] == [url]
    lam.delete_function_url_config(FunctionName=fn)
    with pytest.raises(ClientError) as e:
        lam.get_function_url_config(FunctionName=fn)
    assert error(e) == ("ResourceNotFoundException", "The resource you requested does not exist.", 404)
    with pytest.raises(ClientError) as e:
        lam.create_function_url_config(FunctionName=fn, Qualifier="nope", AuthType="NONE")
    assert error(e) == ("ResourceNotFoundException", "Function does not exist", 404)


def test_tags(lam, role):
    lam.create_function(
        FunctionName="tagged", Runtime="python3.12", Role=role, Handler="h.h", Code={"ZipFile": ZIP}, Tags={"key_a": "value_a"}
    )
    arn = ARN_PREFIX + "tagged"
    assert lam.list_tags(Resource=arn)["Tags"] == {"key_a": "value_a"}
    revision = lam.get_function_configuration(FunctionName="tagged")["RevisionId"]
    assert lam.tag_resource(Resource=arn, Tags={"key_b": "b"})["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.get_function_configuration(FunctionName="tagged")["RevisionId"] != revision
    assert lam.get_function(FunctionName="tagged")["Tags"] == {"key_a": "value_a", "key_b": "b"}
    lam.untag_resource(Resource=arn, TagKeys=["key_a"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"key_b": "b"}
    with pytest.raises(ClientError) as e:
        lam.tag_resource(Resource=arn, Tags={f"k{i}": "v" for i in range(50)})
    assert error(e)[1] == "Number of tags exceeds resource tag limit."
    with pytest.raises(ClientError) as e:
        lam.tag_resource(Resource=arn + ":1", Tags={"a": "b"})
    assert error(e)[1] == "Tags on function aliases and versions are not supported. Please specify a function ARN."
    with pytest.raises(ClientError) as e:
        lam.list_tags(Resource=ARN_PREFIX + "doesnotexist")
    assert error(e) == ("ResourceNotFoundException", f"Function not found: {ARN_PREFIX}doesnotexist", 404)


def test_recursion_and_runtime_management(lam, fn):
    assert lam.get_function_recursion_config(FunctionName=fn)["RecursiveLoop"] == "Terminate"
    assert lam.put_function_recursion_config(FunctionName=fn, RecursiveLoop="Allow")["RecursiveLoop"] == "Allow"
    assert lam.get_function_recursion_config(FunctionName=fn)["RecursiveLoop"] == "Allow"
    got = lam.get_runtime_management_config(FunctionName=fn)
    assert got["UpdateRuntimeOn"] == "Auto" and got["FunctionArn"] == ARN_PREFIX + fn
    put = lam.put_runtime_management_config(FunctionName=fn, UpdateRuntimeOn="FunctionUpdate")
    assert put["UpdateRuntimeOn"] == "FunctionUpdate"


def test_layers(lam, role):
    content = make_zip({"python/lib.py": "X = 1\n"})
    v1 = lam.publish_layer_version(LayerName="lib", Content={"ZipFile": content}, CompatibleRuntimes=["python3.12"])
    assert v1["ResponseMetadata"]["HTTPStatusCode"] == 201
    layer_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:layer:lib"
    assert (v1["Version"], v1["LayerArn"], v1["LayerVersionArn"]) == (1, layer_arn, layer_arn + ":1")
    assert v1["Content"]["CodeSha256"] == base64.b64encode(hashlib.sha256(content).digest()).decode()
    v2 = lam.publish_layer_version(LayerName="lib", Content={"ZipFile": content})
    assert v2["Version"] == 2
    assert urllib.request.urlopen(v1["Content"]["Location"], timeout=10).read() == content
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(v1["Content"]["Location"].replace("/lib/1", "/lib/7"), timeout=10)
    assert missing.value.code == 404 and b"<Code>NoSuchKey</Code>" in missing.value.read()
    assert lam.get_layer_version(LayerName="lib", VersionNumber=1)["LayerVersionArn"] == layer_arn + ":1"
    assert lam.get_layer_version_by_arn(Arn=layer_arn + ":2")["Version"] == 2
    with pytest.raises(ClientError) as e:
        lam.get_layer_version(LayerName="lib", VersionNumber=0)
    assert error(e)[1] == "Layer Version Cannot be less than 1"
    with pytest.raises(ClientError) as e:
        lam.get_layer_version(LayerName="lib", VersionNumber=9)
    assert error(e) == ("ResourceNotFoundException", "The resource you requested does not exist.", 404)
    assert [v["Version"] for v in lam.list_layer_versions(LayerName="lib")["LayerVersions"]] == [2, 1]
    listed = [l for l in lam.list_layers()["Layers"] if l["LayerName"] == "lib"][0]
    assert listed["LatestMatchingVersion"]["Version"] == 2
    matching = [l for l in lam.list_layers(CompatibleRuntime="python3.12")["Layers"] if l["LayerName"] == "lib"][0]
    assert matching["LatestMatchingVersion"]["Version"] == 1

    created = lam.create_function(
        FunctionName="layered", Runtime="python3.12", Role=role, Handler="h.h", Code={"ZipFile": ZIP}, Layers=[layer_arn + ":1"]
    )
    assert created["Layers"] == [{"Arn": layer_arn + ":1", "CodeSize": len(content)}]
    with pytest.raises(ClientError) as e:
        lam.update_function_configuration(FunctionName="layered", Layers=[layer_arn + ":1", layer_arn + ":2"])
    assert error(e)[1] == (
        "Two different versions of the same layer are not allowed to be referenced in the same function. "
        f"{layer_arn}:1 and {layer_arn}:2 are versions of the same layer."
    )
    with pytest.raises(ClientError) as e:
        lam.update_function_configuration(FunctionName="layered", Layers=[layer_arn + ":9"])
    assert error(e)[1] == f"Layer version {layer_arn}:9 does not exist."
    with pytest.raises(ClientError) as e:
        lam.update_function_configuration(FunctionName="layered", Layers=[f"{layer_arn}-{i}:1" for i in range(6)])
    assert error(e)[1] == "Cannot reference more than 5 layers."

    with pytest.raises(ClientError) as e:
        lam.get_layer_version_policy(LayerName="lib", VersionNumber=1)
    assert error(e)[1] == "No policy is associated with the given resource."
    added = lam.add_layer_version_permission(
        LayerName="lib", VersionNumber=1, StatementId="s1", Action="lambda:GetLayerVersion", Principal="*"
    )
    assert json.loads(added["Statement"]) == {
        "Sid": "s1",
        "Effect": "Allow",
        "Principal": "*",
        "Action": "lambda:GetLayerVersion",
        "Resource": layer_arn + ":1",
    }
    with pytest.raises(ClientError) as e:
        lam.add_layer_version_permission(
            LayerName="lib", VersionNumber=1, StatementId="s1", Action="lambda:GetLayerVersion", Principal="*"
        )
    assert error(e)[0] == "ResourceConflictException"
    policy = lam.get_layer_version_policy(LayerName="lib", VersionNumber=1)
    assert policy["RevisionId"] == added["RevisionId"]
    with pytest.raises(ClientError) as e:
        lam.remove_layer_version_permission(LayerName="lib", VersionNumber=1, StatementId="s1", RevisionId="wrong")
    assert error(e)[1] == (
        "The Revision Id provided does not match the latest Revision Id. Call the GetLayerPolicy API to retrieve the "
        "latest Revision Id"
    )
    lam.remove_layer_version_permission(LayerName="lib", VersionNumber=1, StatementId="s1")
    with pytest.raises(ClientError) as e:
        lam.add_layer_version_permission(
            LayerName="lib", VersionNumber=7, StatementId="s1", Action="lambda:GetLayerVersion", Principal="*"
        )
    assert error(e)[1] == f"Layer version {layer_arn}:7 does not exist."

    assert lam.delete_layer_version(LayerName="lib", VersionNumber=1)["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.delete_layer_version(LayerName="lib", VersionNumber=1)["ResponseMetadata"]["HTTPStatusCode"] == 204
    # Functions keep a deleted layer version, as on AWS.
    assert lam.get_function_configuration(FunctionName="layered")["Layers"][0]["Arn"] == layer_arn + ":1"
    assert lam.publish_layer_version(LayerName="lib", Content={"ZipFile": content})["Version"] == 3


def test_dry_run_and_missing_functions_on_invoke(lam, fn):
    """What Invoke answers without running anything."""
    assert lam.invoke(FunctionName=fn, InvocationType="DryRun")["StatusCode"] == 204
    with pytest.raises(ClientError) as e:
        lam.invoke(FunctionName="doesnotexist")
    assert error(e) == ("ResourceNotFoundException", f"Function not found: {ARN_PREFIX}doesnotexist:$LATEST", 404)
    with pytest.raises(ClientError) as e:
        lam.invoke(FunctionName=fn, Qualifier="nope", InvocationType="DryRun")
    assert error(e)[1] == f"Function not found: {ARN_PREFIX}{fn}:nope"
    with pytest.raises(ClientError) as e:
        lam.invoke(FunctionName=fn, Payload=b"x" * (6 * 1024 * 1024 + 1))
    assert error(e) == (
        "RequestTooLargeException",
        "Request must be smaller than 6291456 bytes for the InvokeFunction operation",
        413,
    )


def test_delete_function_removes_everything(lam, fn):
    lam.publish_version(FunctionName=fn)
    lam.create_alias(FunctionName=fn, Name="a", FunctionVersion="1")
    assert lam.delete_function(FunctionName=fn)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as e:
        lam.get_alias(FunctionName=fn, Name="a")
    assert error(e)[0] == "ResourceNotFoundException"
    assert fn not in [f["FunctionName"] for f in lam.list_functions(FunctionVersion="ALL")["Functions"]]


def test_nothing_runs_for_the_control_plane(stratus, lam, fn):
    """No function process and no host directory: the host is made on the first invoke."""
    lam.get_function(FunctionName=fn)
    assert not [n for n in stratus.thread_names() if "lambda" in n.lower()]


def test_code_signing_configs(lam, fn):
    profile = f"arn:aws:signer:{REGION}:{ACCOUNT}:/signing-profiles/test"
    created = lam.create_code_signing_config(
        Description="Testing CodeSigning Config",
        AllowedPublishers={"SigningProfileVersionArns": [profile]},
        CodeSigningPolicies={"UntrustedArtifactOnDeployment": "Enforce"},
    )["CodeSigningConfig"]
    arn = created["CodeSigningConfigArn"]
    assert arn == f"arn:aws:lambda:{REGION}:{ACCOUNT}:code-signing-config:{created['CodeSigningConfigId']}"
    assert created["CodeSigningConfigId"].startswith("csc-") and len(created["CodeSigningConfigId"]) == 21
    updated = lam.update_code_signing_config(
        CodeSigningConfigArn=arn, CodeSigningPolicies={"UntrustedArtifactOnDeployment": "Warn"}
    )["CodeSigningConfig"]
    assert updated["CodeSigningPolicies"] == {"UntrustedArtifactOnDeployment": "Warn"}
    assert lam.get_code_signing_config(CodeSigningConfigArn=arn)["CodeSigningConfig"]["Description"] == (
        "Testing CodeSigning Config"
    )
    assert arn in [c["CodeSigningConfigArn"] for c in lam.list_code_signing_configs()["CodeSigningConfigs"]]
    put = lam.put_function_code_signing_config(CodeSigningConfigArn=arn, FunctionName=fn)
    assert (put["CodeSigningConfigArn"], put["FunctionName"]) == (arn, fn)
    assert lam.get_function_code_signing_config(FunctionName=fn)["CodeSigningConfigArn"] == arn
    assert lam.list_functions_by_code_signing_config(CodeSigningConfigArn=arn)["FunctionArns"] == [ARN_PREFIX + fn]
    lam.delete_function_code_signing_config(FunctionName=fn)
    assert lam.list_functions_by_code_signing_config(CodeSigningConfigArn=arn)["FunctionArns"] == []
    missing = arn[:-3] + "000"
    with pytest.raises(ClientError) as e:
        lam.put_function_code_signing_config(CodeSigningConfigArn=missing, FunctionName=fn)
    assert error(e) == (
        "CodeSigningConfigNotFoundException",
        "The code signing configuration cannot be found. Check that the provided configuration is not deleted: "
        f"{missing}.",
        404,
    )
    lam.delete_code_signing_config(CodeSigningConfigArn=arn)
    with pytest.raises(ClientError) as e:
        lam.get_code_signing_config(CodeSigningConfigArn=arn)
    assert error(e) == ("ResourceNotFoundException", f"The Lambda code signing configuration {arn} can not be found.", 404)
