"""Secrets Manager through boto3 against the real binary: secrets and their versions, the
staging labels AWS moves, values sealed by KMS, deletion with a recovery window (driven by a
manual clock, never by sleeping), listing filters, BatchGetSecretValue, GetRandomPassword,
tags, resource policies, replicas in other regions, and rotation by a real Lambda function
running its four steps.

Messages are AWS's, from its recorded answers and the Secrets Manager API reference.
"""

import io
import json
import string
import time
import urllib.request
import uuid
import zipfile

import pytest
from botocore.exceptions import ClientError
from conftest import Stratus, acknowledged_until_sigkill

DAY = 86_400
ACCOUNT = "000000000000"
NOT_FOUND = "Secrets Manager can't find the specified secret."
MARKED = "You can't perform this operation on the secret because it was marked for deletion."


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sm(stratus):
    return stratus.client("secretsmanager")


names = iter(range(100_000))


def fresh(prefix="s"):
    return f"{prefix}-{next(names)}"


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def stages(sm, secret):
    return sm.describe_secret(SecretId=secret).get("VersionIdsToStages", {})


# --- secrets and values -------------------------------------------------------------------


def test_a_secret_is_found_by_name_arn_and_partial_arn(sm):
    name = fresh("app/db")
    created = sm.create_secret(Name=name, SecretString="hunter2", Description="the db")
    arn = created["ARN"]
    assert arn.startswith(f"arn:aws:secretsmanager:us-east-1:{ACCOUNT}:secret:{name}-")
    assert len(arn.rpartition("-")[2]) == 6
    for secret_id in (name, arn, arn[:-7]):
        got = sm.get_secret_value(SecretId=secret_id)
        assert (got["Name"], got["SecretString"], got["VersionStages"]) == (name, "hunter2", ["AWSCURRENT"])
        assert got["VersionId"] == created["VersionId"]
    described = sm.describe_secret(SecretId=name)
    assert described["Description"] == "the db"
    assert described["VersionIdsToStages"] == {created["VersionId"]: ["AWSCURRENT"]}
    # Access dates are days: midnight UTC of the day of the last read.
    assert described["LastAccessedDate"].timestamp() % DAY == 0
    assert "KmsKeyId" not in described and "RotationEnabled" not in described and "Tags" not in described


def test_a_secret_without_a_value_has_no_version_until_one_is_put(sm):
    name = fresh()
    created = sm.create_secret(Name=name, Description="")
    assert "VersionId" not in created
    described = sm.describe_secret(SecretId=name)
    assert "VersionIdsToStages" not in described and "Description" not in described
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=name)
    assert error(e) == (
        "ResourceNotFoundException",
        "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
    )
    put = sm.put_secret_value(SecretId=name, SecretString="now")
    assert put["VersionStages"] == ["AWSCURRENT"]


def test_binary_values_come_back_as_bytes(sm):
    name = fresh()
    sm.create_secret(Name=name, SecretBinary=b"\x00\x01\xff")
    assert sm.get_secret_value(SecretId=name)["SecretBinary"] == b"\x00\x01\xff"
    sm.update_secret(SecretId=name, SecretBinary=b"\xfe")
    got = sm.get_secret_value(SecretId=name)
    assert got["SecretBinary"] == b"\xfe" and "SecretString" not in got
    with pytest.raises(ClientError) as e:
        sm.put_secret_value(SecretId=name, SecretString="a", SecretBinary=b"b")
    assert error(e)[0] == "InvalidParameterException"


def test_put_secret_value_moves_labels_as_aws_does(sm):
    name = fresh()
    v1 = sm.create_secret(Name=name, SecretString="v1")["VersionId"]
    v2 = sm.put_secret_value(SecretId=name, SecretString="v2")["VersionId"]
    assert stages(sm, name) == {v1: ["AWSPREVIOUS"], v2: ["AWSCURRENT"]}
    # Custom labels alone leave AWSCURRENT where it is; each label leaves its old version.
    v3 = sm.put_secret_value(SecretId=name, SecretString="v3", VersionStages=["two", "one"])
    assert v3["VersionStages"] == ["one", "two"]
    v4 = sm.put_secret_value(SecretId=name, SecretString="v4", VersionStages=["two"])["VersionId"]
    assert stages(sm, name) == {v1: ["AWSPREVIOUS"], v2: ["AWSCURRENT"], v3["VersionId"]: ["one"], v4: ["two"]}
    assert sm.get_secret_value(SecretId=name)["SecretString"] == "v2"
    assert sm.get_secret_value(SecretId=name, VersionStage="two")["SecretString"] == "v4"
    # A third current version deprecates the first: listed only with IncludeDeprecated.
    v5 = sm.put_secret_value(SecretId=name, SecretString="v5")["VersionId"]
    listed = [v["VersionId"] for v in sm.list_secret_version_ids(SecretId=name)["Versions"]]
    assert v1 not in listed and v5 in listed
    everything = sm.list_secret_version_ids(SecretId=name, IncludeDeprecated=True)["Versions"]
    deprecated = next(v for v in everything if v["VersionId"] == v1)
    assert "VersionStages" not in deprecated and deprecated["KmsKeyIds"] == ["DefaultEncryptionKey"]


def test_update_secret_version_stage_needs_the_version_holding_the_label(sm):
    name = fresh()
    v1 = sm.create_secret(Name=name, SecretString="v1")["VersionId"]
    v2 = sm.put_secret_value(SecretId=name, SecretString="v2", VersionStages=["AWSPENDING"])["VersionId"]
    with pytest.raises(ClientError) as e:
        sm.update_secret_version_stage(SecretId=name, VersionStage="AWSCURRENT", MoveToVersionId=v2)
    assert error(e)[0] == "InvalidParameterException"
    assert f"currently attached to version {v1}" in error(e)[1]
    sm.update_secret_version_stage(SecretId=name, VersionStage="AWSCURRENT", MoveToVersionId=v2, RemoveFromVersionId=v1)
    # The old current becomes previous; AWSPENDING stays until moved.
    assert stages(sm, name) == {v1: ["AWSPREVIOUS"], v2: ["AWSCURRENT", "AWSPENDING"]}
    sm.update_secret_version_stage(SecretId=name, VersionStage="AWSPENDING", RemoveFromVersionId=v2)
    assert stages(sm, name) == {v1: ["AWSPREVIOUS"], v2: ["AWSCURRENT"]}


def test_get_secret_value_refusals_say_what_is_missing(sm):
    name = fresh()
    version = sm.create_secret(Name=name, SecretString="x")["VersionId"]
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=name, VersionStage="AWSPREVIOUS")
    assert error(e) == (
        "ResourceNotFoundException",
        "Secrets Manager can't find the specified secret value for staging label: AWSPREVIOUS",
    )
    missing = str(uuid.uuid4())
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=name, VersionId=missing)
    assert error(e)[1] == f"Secrets Manager can't find the specified secret value for VersionId: {missing}"
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=name, VersionId=version, VersionStage="AWSPREVIOUS")
    assert error(e) == (
        "InvalidRequestException",
        "You provided a VersionStage that is not associated to the provided VersionId.",
    )
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=fresh())
    assert error(e) == ("ResourceNotFoundException", NOT_FOUND)
    # The modelled error carries its message at the top too, as AWS's does.
    assert e.value.response["Message"] == NOT_FOUND


def test_a_token_makes_a_version_once(sm):
    name = fresh()
    sm.create_secret(Name=name, SecretString="a")
    token = str(uuid.uuid4())
    first = sm.put_secret_value(SecretId=name, SecretString="b", ClientRequestToken=token)
    again = sm.put_secret_value(SecretId=name, SecretString="b", ClientRequestToken=token)
    assert first["VersionId"] == again["VersionId"] == token
    assert len(sm.list_secret_version_ids(SecretId=name)["Versions"]) == 2
    with pytest.raises(ClientError) as e:
        sm.put_secret_value(SecretId=name, SecretString="c", ClientRequestToken=token)
    assert error(e) == (
        "ResourceExistsException",
        "You can't modify an existing version, you can only create a new version.",
    )


def test_requests_without_a_client_request_token_are_refused(stratus):
    # SDKs fill the token in; a bare request shows what AWS answers without it.
    def call(operation, body):
        request = urllib.request.Request(
            stratus.endpoint,
            data=json.dumps(body).encode(),
            headers={"X-Amz-Target": f"secretsmanager.{operation}", "Content-Type": "application/x-amz-json-1.1"},
            method="POST",
        )
        try:
            urllib.request.urlopen(request, timeout=10)
        except urllib.error.HTTPError as refused:
            return refused.code, json.load(refused)
        raise AssertionError("accepted")

    message = "You must provide a ClientRequestToken value. We recommend a UUID-type value."
    status, body = call("CreateSecret", {"Name": fresh(), "SecretString": "x"})
    assert status == 400 and body["__type"].endswith("InvalidRequestException") and body["Message"] == message
    status, body = call("RotateSecret", {"SecretId": fresh()})
    assert body["__type"].endswith("InvalidParameterException") and body["Message"] == message


@pytest.mark.parametrize("bad", ["Inv Name", " Inv*Name? ", "a#b"])
def test_names_with_other_characters_are_validation_errors(sm, bad):
    message = "Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!"
    calls = [
        lambda: sm.create_secret(Name=bad, SecretString="x"),
        lambda: sm.describe_secret(SecretId=bad),
        lambda: sm.get_secret_value(SecretId=bad),
        lambda: sm.delete_secret(SecretId=bad, ForceDeleteWithoutRecovery=True),
        lambda: sm.tag_resource(SecretId=bad, Tags=[{"Key": "k", "Value": "v"}]),
    ]
    for call in calls:
        with pytest.raises(ClientError) as e:
            call()
        assert error(e) == ("ValidationException", message)


def test_values_are_sealed_by_kms_under_the_secrets_key(stratus, sm):
    kms = stratus.client("kms")
    sm.create_secret(Name=fresh(), SecretString="default key")
    managed = kms.describe_key(KeyId="alias/aws/secretsmanager")["KeyMetadata"]
    assert managed["KeyManager"] == "AWS"
    key = kms.create_key()["KeyMetadata"]["Arn"]
    name = fresh()
    sm.create_secret(Name=name, SecretString="own key", KmsKeyId=key)
    assert sm.describe_secret(SecretId=name)["KmsKeyId"] == key
    assert sm.list_secret_version_ids(SecretId=name)["Versions"][0]["KmsKeyIds"] == [key]
    kms.disable_key(KeyId=key)
    with pytest.raises(ClientError) as e:
        sm.get_secret_value(SecretId=name)
    assert error(e)[0] == "DecryptionFailure"
    with pytest.raises(ClientError) as e:
        sm.put_secret_value(SecretId=name, SecretString="again")
    assert error(e)[0] == "EncryptionFailure"
    kms.enable_key(KeyId=key)
    assert sm.get_secret_value(SecretId=name)["SecretString"] == "own key"


def test_another_account_may_not_read_a_secret_under_the_default_key(stratus, sm):
    arn = sm.create_secret(Name=fresh(), SecretString="mine")["ARN"]
    other = stratus.client("secretsmanager", aws_access_key_id="111111111111", aws_secret_access_key="test")
    assert other.describe_secret(SecretId=arn)["ARN"] == arn
    with pytest.raises(ClientError) as e:
        other.get_secret_value(SecretId=arn)
    assert error(e) == (
        "InvalidRequestException",
        "You can't access a secret from a different AWS account if you encrypt the secret with the default KMS service key.",
    )
    assert other.list_secrets()["SecretList"] == []


# --- deletion -----------------------------------------------------------------------------


def test_a_deleted_secret_waits_its_window_and_can_be_restored(stratus, sm):
    name = fresh()
    sm.create_secret(Name=name, SecretString="x")
    deleted = sm.delete_secret(SecretId=name, RecoveryWindowInDays=7)
    assert deleted["DeletionDate"].timestamp() == pytest.approx(stratus.now() + 7 * DAY, abs=2)
    assert "DeletedDate" in sm.describe_secret(SecretId=name)
    for call in (
        lambda: sm.get_secret_value(SecretId=name),
        lambda: sm.put_secret_value(SecretId=name, SecretString="y"),
        lambda: sm.tag_resource(SecretId=name, Tags=[{"Key": "k", "Value": "v"}]),
    ):
        with pytest.raises(ClientError) as e:
            call()
        assert error(e) == ("InvalidRequestException", MARKED)
    with pytest.raises(ClientError) as e:
        sm.create_secret(Name=name, SecretString="again")
    assert error(e) == (
        "InvalidRequestException",
        "You can't create this secret because a secret with this name is already scheduled for deletion.",
    )
    assert name not in [s["Name"] for s in sm.list_secrets()["SecretList"]]
    listed = sm.list_secrets(IncludePlannedDeletion=True)["SecretList"]
    assert name in [s["Name"] for s in listed]
    sm.restore_secret(SecretId=name)
    assert sm.get_secret_value(SecretId=name)["SecretString"] == "x"

    sm.delete_secret(SecretId=name, RecoveryWindowInDays=7)
    stratus.advance(7 * DAY - 60)
    assert "DeletedDate" in sm.describe_secret(SecretId=name)
    stratus.advance(61)
    with pytest.raises(ClientError) as e:
        sm.describe_secret(SecretId=name)
    assert error(e) == ("ResourceNotFoundException", NOT_FOUND)
    # The name is free again, under a new ARN.
    sm.create_secret(Name=name, SecretString="new")


def test_forced_deletion_is_immediate_even_of_a_secret_that_is_not_there(sm):
    name = fresh()
    arn = sm.create_secret(Name=name, SecretString="x")["ARN"]
    sm.delete_secret(SecretId=name)
    sm.delete_secret(SecretId=arn, ForceDeleteWithoutRecovery=True)
    again = sm.create_secret(Name=name, SecretString="y")["ARN"]
    assert again != arn
    # The old ARN names the old secret, not the new one of the same name.
    with pytest.raises(ClientError) as e:
        sm.describe_secret(SecretId=arn)
    assert error(e)[0] == "ResourceNotFoundException"
    ghost = sm.delete_secret(SecretId="never-there", ForceDeleteWithoutRecovery=True)
    assert ghost["Name"] == "never-there" and ghost["ARN"].endswith(ghost["ARN"][-6:])


def test_deletion_parameters_are_checked(sm):
    name = fresh()
    sm.create_secret(Name=name, SecretString="x")
    with pytest.raises(ClientError) as e:
        sm.delete_secret(SecretId=name, RecoveryWindowInDays=7, ForceDeleteWithoutRecovery=True)
    assert error(e) == (
        "InvalidParameterException",
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
    )
    for days in (6, 31):
        with pytest.raises(ClientError) as e:
            sm.delete_secret(SecretId=name, RecoveryWindowInDays=days)
        assert error(e) == (
            "InvalidParameterException",
            "The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).",
        )
    default = sm.delete_secret(SecretId=name)["DeletionDate"]
    assert sm.describe_secret(SecretId=name)["DeletedDate"] < default
    with pytest.raises(ClientError) as e:
        sm.delete_secret(SecretId=name)
    assert error(e)[0] == "InvalidRequestException"


# --- listing ------------------------------------------------------------------------------


def test_list_secrets_filters_sorts_and_pages(stratus):
    # An account of its own, so other tests' secrets stay out.
    sm = stratus.client("secretsmanager", aws_access_key_id="222222222222", aws_secret_access_key="test")
    made = [
        ("testing1/one", "a secret", [{"Key": "team", "Value": "blue"}]),
        ("/testing2/two", "an secret", []),
        ("testing3/three", "asecret", [{"Key": "team", "Value": "red"}]),
        ("/testing4/four", "thesecret", []),
    ]
    for name, description, tags in made:
        sm.create_secret(Name=name, SecretString="x", Description=description, Tags=tags)
        stratus.advance(1)

    def names(**kwargs):
        return [s["Name"] for s in sm.list_secrets(**kwargs)["SecretList"]]

    every = [m[0] for m in made]
    assert names(SortOrder="asc") == every
    assert names() == every[::-1]
    assert sorted(names(Filters=[{"Key": "name", "Values": ["/"]}])) == sorted([every[1], every[3]])
    assert sorted(names(Filters=[{"Key": "name", "Values": ["!/"]}])) == sorted([every[0], every[2]])
    assert len(names(Filters=[{"Key": "description", "Values": ["a"]}])) == 3
    assert sorted(names(Filters=[{"Key": "description", "Values": ["a secret"]}])) == sorted(every[:2])
    assert names(Filters=[{"Key": "description", "Values": ["a"]}, {"Key": "name", "Values": ["an"]}]) == []
    assert names(Filters=[{"Key": "tag-value", "Values": ["red", "blue"]}], SortOrder="asc") == [every[0], every[2]]
    assert names(Filters=[{"Key": "all", "Values": ["thesecret"]}]) == [every[3]]
    with pytest.raises(ClientError) as e:
        sm.list_secrets(Filters=[{"Key": "colour", "Values": ["x"]}])
    assert error(e)[0] in ("ValidationException", "InvalidParameterException")

    first = sm.list_secrets(MaxResults=3, SortOrder="asc")
    assert [s["Name"] for s in first["SecretList"]] == every[:3]
    rest = sm.list_secrets(MaxResults=3, SortOrder="asc", NextToken=first["NextToken"])
    assert [s["Name"] for s in rest["SecretList"]] == every[3:] and "NextToken" not in rest
    with pytest.raises(ClientError) as e:
        sm.list_secrets(NextToken="forged")
    assert error(e)[0] == "InvalidNextTokenException"
    entry = sm.list_secrets(Filters=[{"Key": "name", "Values": ["testing1"]}])["SecretList"][0]
    assert list(entry["SecretVersionsToStages"].values()) == [["AWSCURRENT"]]

    batch = sm.batch_get_secret_value(SecretIdList=[every[0], "missing-one"])
    assert [v["SecretString"] for v in batch["SecretValues"]] == ["x"]
    assert batch["Errors"] == [
        {"SecretId": "missing-one", "ErrorCode": "ResourceNotFoundException", "Message": NOT_FOUND}
    ]
    by_filter = sm.batch_get_secret_value(Filters=[{"Key": "name", "Values": ["/"]}], MaxResults=1)
    assert len(by_filter["SecretValues"]) == 1 and "NextToken" in by_filter
    with pytest.raises(ClientError) as e:
        sm.batch_get_secret_value(SecretIdList=[every[0]], Filters=[{"Key": "name", "Values": ["/"]}])
    assert error(e)[0] == "InvalidParameterException"


# --- passwords ----------------------------------------------------------------------------


def test_random_passwords_follow_every_option(sm):
    default = sm.get_random_password()["RandomPassword"]
    assert len(default) == 32
    assert any(c in string.punctuation for c in default) and " " not in default
    kept = sm.get_random_password(PasswordLength=120, ExcludeCharacters="xyzDje@?!.")["RandomPassword"]
    assert len(kept) == 120 and not set(kept) & set("xyzDje@?!.")
    letters = sm.get_random_password(
        PasswordLength=50, ExcludeNumbers=True, ExcludePunctuation=True, ExcludeUppercase=True
    )["RandomPassword"]
    assert set(letters) <= set(string.ascii_lowercase)
    spaced = sm.get_random_password(
        PasswordLength=40,
        IncludeSpace=True,
        ExcludeLowercase=True,
        ExcludeUppercase=True,
        ExcludePunctuation=True,
        RequireEachIncludedType=False,
    )["RandomPassword"]
    assert set(spaced) <= set(string.digits + " ")
    with pytest.raises(ClientError) as e:
        sm.get_random_password(PasswordLength=3)
    assert error(e) == ("InvalidParameterException", "Password length is too short based on the required types.")
    with pytest.raises(ClientError) as e:
        sm.get_random_password(PasswordLength=4097)
    assert error(e)[0] == "ValidationException"


# --- tags and policies --------------------------------------------------------------------


def test_tags_keep_their_order_and_an_emptied_list_shows(sm):
    name = fresh()
    sm.create_secret(Name=name, SecretString="x")
    sm.tag_resource(SecretId=name, Tags=[{"Key": "b", "Value": "1"}, {"Key": "a", "Value": "2"}])
    sm.tag_resource(SecretId=name, Tags=[{"Key": "b", "Value": "3"}])
    assert sm.describe_secret(SecretId=name)["Tags"] == [{"Key": "b", "Value": "3"}, {"Key": "a", "Value": "2"}]
    sm.untag_resource(SecretId=name, TagKeys=["a", "b"])
    assert sm.describe_secret(SecretId=name)["Tags"] == []
    with pytest.raises(ClientError) as e:
        sm.tag_resource(SecretId=name, Tags=[{"Key": "aws:x", "Value": "1"}])
    assert error(e)[0] == "InvalidParameterException"


OPEN_POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "secretsmanager:GetSecretValue", "Resource": "*"}],
}


def test_resource_policies_are_checked_stored_and_blocked_when_public(sm):
    name = fresh()
    sm.create_secret(Name=name, SecretString="x")
    assert "ResourcePolicy" not in sm.get_resource_policy(SecretId=name)
    sm.put_resource_policy(SecretId=name, ResourcePolicy=json.dumps(OPEN_POLICY))
    assert json.loads(sm.get_resource_policy(SecretId=name)["ResourcePolicy"]) == OPEN_POLICY
    with pytest.raises(ClientError) as e:
        sm.put_resource_policy(SecretId=name, ResourcePolicy=json.dumps(OPEN_POLICY), BlockPublicPolicy=True)
    assert error(e)[0] == "PublicPolicyException"
    with pytest.raises(ClientError) as e:
        sm.put_resource_policy(SecretId=name, ResourcePolicy="{not json")
    assert error(e) == ("MalformedPolicyDocumentException", "This resource policy contains a syntax error.")
    no_principal = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "secretsmanager:*", "Resource": "*"}]}
    checked = sm.validate_resource_policy(ResourcePolicy=json.dumps(no_principal))
    assert checked["PolicyValidationPassed"] is False and checked["ValidationErrors"]
    scoped = dict(OPEN_POLICY, Statement=[dict(OPEN_POLICY["Statement"][0], Principal={"AWS": f"arn:aws:iam::{ACCOUNT}:root"})])
    assert sm.validate_resource_policy(SecretId=name, ResourcePolicy=json.dumps(scoped))["PolicyValidationPassed"]
    sm.delete_resource_policy(SecretId=name)
    assert "ResourcePolicy" not in sm.get_resource_policy(SecretId=name)


# --- replication --------------------------------------------------------------------------


def test_replicas_are_real_copies_that_follow_their_primary(stratus, sm):
    west = stratus.client("secretsmanager", region="eu-west-1")
    name = fresh()
    created = sm.create_secret(Name=name, SecretString="v1", AddReplicaRegions=[{"Region": "eu-west-1"}])
    assert created["ReplicationStatus"][0]["Region"] == "eu-west-1"
    assert created["ReplicationStatus"][0]["Status"] == "InSync"
    replica_arn = created["ARN"].replace("us-east-1", "eu-west-1")
    copy = west.get_secret_value(SecretId=name)
    assert (copy["ARN"], copy["SecretString"]) == (replica_arn, "v1")
    assert west.describe_secret(SecretId=name)["PrimaryRegion"] == "us-east-1"
    with pytest.raises(ClientError) as e:
        west.put_secret_value(SecretId=name, SecretString="from the replica")
    assert error(e)[0] == "InvalidRequestException"
    sm.put_secret_value(SecretId=name, SecretString="v2")
    assert west.get_secret_value(SecretId=name)["SecretString"] == "v2"
    with pytest.raises(ClientError) as e:
        sm.delete_secret(SecretId=name)
    assert error(e)[0] == "InvalidRequestException"

    # A name already taken in the target region fails to replicate, unless forced.
    taken = fresh()
    sm.create_secret(Name=taken, SecretString="primary")
    stratus.client("secretsmanager", region="ap-south-1").create_secret(Name=taken, SecretString="local")
    status = sm.replicate_secret_to_regions(SecretId=taken, AddReplicaRegions=[{"Region": "ap-south-1"}])
    assert status["ReplicationStatus"][0]["Status"] == "Failed"
    forced = sm.replicate_secret_to_regions(
        SecretId=taken, AddReplicaRegions=[{"Region": "ap-south-1"}], ForceOverwriteReplicaSecret=True
    )
    assert forced["ReplicationStatus"][0]["Status"] == "InSync"

    removed = sm.remove_regions_from_replication(SecretId=name, RemoveReplicaRegions=["eu-west-1"])
    assert removed["ReplicationStatus"] == []
    with pytest.raises(ClientError) as e:
        west.describe_secret(SecretId=name)
    assert error(e)[0] == "ResourceNotFoundException"

    promoted = fresh()
    sm.create_secret(Name=promoted, SecretString="p", AddReplicaRegions=[{"Region": "eu-west-1"}])
    west.stop_replication_to_replica(SecretId=promoted)
    assert "PrimaryRegion" not in west.describe_secret(SecretId=promoted)
    west.put_secret_value(SecretId=promoted, SecretString="standalone")
    assert "ReplicationStatus" not in sm.describe_secret(SecretId=promoted)
    sm.delete_secret(SecretId=promoted, ForceDeleteWithoutRecovery=True)


# --- rotation -----------------------------------------------------------------------------

# A rotation function in the shape of AWS's template: each step checks the version it is
# handed, createSecret puts the pending value, finishSecret moves AWSCURRENT to it.
ROTATOR = """
import os
import boto3

def handler(event, context):
    client = boto3.client(
        "secretsmanager", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name=os.environ["AWS_REGION"]
    )
    arn, token, step = event["SecretId"], event["ClientRequestToken"], event["Step"]
    versions = client.describe_secret(SecretId=arn)["VersionIdsToStages"]
    if "AWSPENDING" not in versions.get(token, []):
        raise ValueError(f"version {token} is not pending")
    if step == "createSecret":
        try:
            client.get_secret_value(SecretId=arn, VersionId=token, VersionStage="AWSPENDING")
        except client.exceptions.ResourceNotFoundException:
            current = client.get_secret_value(SecretId=arn)["SecretString"]
            client.put_secret_value(
                SecretId=arn, ClientRequestToken=token, SecretString=current + "+rotated", VersionStages=["AWSPENDING"]
            )
    elif step == "finishSecret":
        current = next(v for v, s in versions.items() if "AWSCURRENT" in s)
        client.update_secret_version_stage(
            SecretId=arn, VersionStage="AWSCURRENT", MoveToVersionId=token, RemoveFromVersionId=current
        )
    client.tag_resource(SecretId=arn, Tags=[{"Key": step, "Value": token}])
"""


def make_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def rotator(stratus):
    iam, lam = stratus.client("iam"), stratus.client("lambda")
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
    role = iam.create_role(RoleName="rotator", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    arn = lam.create_function(
        FunctionName="rotator",
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": ROTATOR})},
        Timeout=30,
    )["FunctionArn"]
    # Secrets Manager's guide: the function's policy must let the service invoke it.
    lam.add_permission(
        FunctionName="rotator",
        StatementId="secrets-manager",
        Action="lambda:InvokeFunction",
        Principal="secretsmanager.amazonaws.com",
    )
    return arn


def wait_until(check, seconds=30):
    # The rotation runs on the server's runtime after RotateSecret answers; its steps are
    # real processes, so this waits on them (the clock is not what they need).
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_rotation_runs_the_functions_four_steps(stratus, sm, rotator):
    name = fresh()
    first = sm.create_secret(Name=name, SecretString="pw")["VersionId"]
    rotated = sm.rotate_secret(SecretId=name, RotationLambdaARN=rotator, RotationRules={"AutomaticallyAfterDays": 1})
    token = rotated["VersionId"]
    wait_until(lambda: stages(sm, name).get(token) == ["AWSCURRENT"])
    described = sm.describe_secret(SecretId=name)
    assert described["VersionIdsToStages"] == {first: ["AWSPREVIOUS"], token: ["AWSCURRENT"]}
    assert described["RotationEnabled"] is True and described["RotationLambdaARN"] == rotator
    assert described["RotationRules"] == {"AutomaticallyAfterDays": 1}
    assert "LastRotatedDate" in described and "NextRotationDate" in described
    steps = {t["Key"] for t in described["Tags"]}
    assert steps == {"createSecret", "setSecret", "testSecret", "finishSecret"}
    assert sm.get_secret_value(SecretId=name)["SecretString"] == "pw+rotated"

    # The schedule starts the next rotation when the day has passed.
    # A warm instance keeps the credentials it started with, which a day outlives: a new
    # configuration makes the next step start a fresh one.
    stratus.client("lambda").update_function_configuration(
        FunctionName="rotator", Environment={"Variables": {"ROUND": "2"}}
    )
    stratus.advance(DAY + 1)
    wait_until(lambda: sm.get_secret_value(SecretId=name)["SecretString"] == "pw+rotated+rotated")
    sm.cancel_rotate_secret(SecretId=name)
    described = sm.describe_secret(SecretId=name)
    assert described["RotationEnabled"] is False and "NextRotationDate" not in described


def test_rotation_needs_a_function_secrets_manager_can_invoke(stratus, sm, rotator):
    name = fresh()
    sm.create_secret(Name=name, SecretString="init")
    with pytest.raises(ClientError) as e:
        sm.rotate_secret(SecretId=name, RotationRules={"AutomaticallyAfterDays": 1})
    assert error(e) == ("InvalidRequestException", "No Lambda rotation function ARN is associated with this secret.")
    missing = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:not-there"
    role = stratus.client("iam").get_role(RoleName="rotator")["Role"]["Arn"]
    unpermitted = stratus.client("lambda").create_function(
        FunctionName="rotator-without-permission",
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": ROTATOR})},
    )["FunctionArn"]
    for function in (missing, unpermitted):
        with pytest.raises(ClientError) as e:
            sm.rotate_secret(SecretId=name, RotationLambdaARN=function, RotationRules={"AutomaticallyAfterDays": 1})
        assert error(e) == (
            "AccessDeniedException",
            "Secrets Manager cannot invoke the specified Lambda function. Ensure that the function policy grants access to the principal secretsmanager.amazonaws.com.",
        )
    described = sm.describe_secret(SecretId=name)
    assert "RotationEnabled" not in described and "RotationLambdaARN" not in described


def test_a_deletion_deadline_survives_a_restart(tmp_path):
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        sm = server.client("secretsmanager")
        sm.create_secret(Name="doomed", SecretString="x")
        sm.delete_secret(SecretId="doomed", RecoveryWindowInDays=7)
    finally:
        server.stop()
    server = Stratus("--data-dir", str(tmp_path), "--clock", "manual")
    try:
        sm = server.client("secretsmanager")
        assert sm.get_random_password(PasswordLength=8)["RandomPassword"]
        assert "DeletedDate" in sm.describe_secret(SecretId="doomed")
        server.advance(8 * DAY)
        with pytest.raises(ClientError) as e:
            sm.describe_secret(SecretId="doomed")
        assert error(e)[0] == "ResourceNotFoundException"
    finally:
        server.stop()


def test_acknowledged_secrets_survive_kill_9(tmp_path):
    server = Stratus("--data-dir", str(tmp_path))

    def create(client, writer, i):
        name = f"durable-{writer}-{i}"
        client.create_secret(Name=name, SecretString=name)
        return name

    acknowledged = acknowledged_until_sigkill(server, "secretsmanager", create)
    server = Stratus("--data-dir", str(tmp_path))
    try:
        sm = server.client("secretsmanager")
        found = {s["Name"] for page in sm.get_paginator("list_secrets").paginate() for s in page["SecretList"]}
        assert set(acknowledged) <= found
        for name in acknowledged[:: max(1, len(acknowledged) // 20)]:
            assert sm.get_secret_value(SecretId=name)["SecretString"] == name
    finally:
        server.stop()
