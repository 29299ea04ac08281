"""SSM Parameter Store and documents through boto3 (and the AWS CLI) against the real binary.

SecureString values go through KMS in the same process; Python's `cryptography` is not
needed because KMS's own Decrypt opens what Parameter Store stored. The module's server runs
on a manual clock, so Expiration policies are driven by advancing it, never by sleeping.
"""

import base64
import json
import re
import os
import signal
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

import pytest
from botocore.exceptions import ClientError
from conftest import Stratus

DAY = 86_400


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def ssm(stratus):
    return stratus.client("ssm")


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def refused(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return error(e)


# --- create, read, overwrite -------------------------------------------------------------


def test_put_and_get_answers_aws_shapes(ssm):
    put = ssm.put_parameter(Name="/app/db/host", Value="db.local", Type="String", Description="host")
    assert (put["Version"], put["Tier"]) == (1, "Standard")
    p = ssm.get_parameter(Name="/app/db/host")["Parameter"]
    assert p["ARN"] == "arn:aws:ssm:us-east-1:000000000000:parameter/app/db/host"
    assert (p["Name"], p["Type"], p["Value"], p["Version"], p["DataType"]) == ("/app/db/host", "String", "db.local", 1, "text")
    assert isinstance(p["LastModifiedDate"], datetime)
    assert "Selector" not in p


def test_one_level_names_read_with_or_without_a_slash(ssm):
    # Recorded against AWS (parity suite): `x` and `/x` are one parameter; the answer names it as asked.
    ssm.put_parameter(Name="flat-name", Value="123", Type="String")
    assert ssm.get_parameter(Name="/flat-name")["Parameter"]["Name"] == "/flat-name"
    p = ssm.get_parameter(Name="flat-name")["Parameter"]
    assert p["ARN"].endswith(":parameter/flat-name")
    assert ssm.get_parameter(Name=p["ARN"])["Parameter"]["Value"] == "123"
    code, _ = refused(ssm.put_parameter, Name="/flat-name", Value="x", Type="String")
    assert code == "ParameterAlreadyExists"


def test_names_of_no_valid_form_are_refused(ssm):
    for name in ["a/b/c", "/a//b//c", "bad name"]:
        code, message = refused(ssm.get_parameter, Name=name)
        assert code == "ValidationException"
        assert "sub-paths divided by slash symbol" in message
    assert refused(ssm.put_parameter, Name="/aws/mine", Value="x", Type="String")[0] == "AccessDeniedException"
    assert "\"aws\" or \"ssm\"" in refused(ssm.put_parameter, Name="ssm-x", Value="x", Type="String")[1]
    code, _ = refused(ssm.put_parameter, Name="/" + "/".join(["l"] * 16), Value="x", Type="String")
    assert code == "HierarchyLevelLimitExceededException"


def test_missing_parameters(ssm):
    assert refused(ssm.get_parameter, Name="/nope")[0] == "ParameterNotFound"
    assert refused(ssm.delete_parameter, Name="/nope")[0] == "ParameterNotFound"
    got = ssm.get_parameters(Names=["/app/db/host", "/nope", "/app/db/host:9"])
    assert [p["Name"] for p in got["Parameters"]] == ["/app/db/host"]
    assert got["InvalidParameters"] == ["/nope", "/app/db/host:9"]


def test_overwrite_makes_versions_and_keeps_what_is_not_given(ssm):
    ssm.put_parameter(Name="/ow/p", Value="1", Type="String", Description="kept", AllowedPattern=r"\d+")
    code, message = refused(ssm.put_parameter, Name="/ow/p", Value="2")
    assert code == "ParameterAlreadyExists"
    assert message.startswith("The parameter already exists.")
    assert ssm.put_parameter(Name="/ow/p", Value="2", Overwrite=True)["Version"] == 2
    meta = ssm.describe_parameters(ParameterFilters=[{"Key": "Name", "Values": ["/ow/p"]}])["Parameters"][0]
    assert (meta["Description"], meta["AllowedPattern"], meta["Version"]) == ("kept", r"\d+", 2)
    assert meta["LastModifiedUser"] == "arn:aws:iam::000000000000:root"
    # The user guide's example: the pattern applies to the whole value.
    code, message = refused(ssm.put_parameter, Name="/ow/p", Value="12a", Overwrite=True)
    assert code == "ParameterPatternMismatchException"
    assert message == r"Parameter value, cannot be validated against allowedPattern: \d+"
    code, message = refused(ssm.put_parameter, Name="/ow/p", Value="3", Overwrite=True, Tags=[{"Key": "k", "Value": "v"}])
    assert code == "ValidationException" and "tags and overwrite can't be used together" in message


def test_a_type_is_needed_to_create(ssm):
    assert refused(ssm.put_parameter, Name="/typeless", Value="x")[0] == "ValidationException"


def test_string_lists_and_data_types(ssm):
    ssm.put_parameter(Name="/list", Value="a,b,c", Type="StringList")
    assert ssm.get_parameter(Name="/list")["Parameter"]["Type"] == "StringList"
    ssm.put_parameter(Name="/image", Value="ami-0123456789abcdef0", Type="String", DataType="aws:ec2:image")
    assert ssm.get_parameter(Name="/image")["Parameter"]["DataType"] == "aws:ec2:image"
    assert refused(ssm.put_parameter, Name="/image2", Value="not-an-ami", Type="String", DataType="aws:ec2:image")[0] == "ValidationException"
    assert "all lowercase" in refused(ssm.put_parameter, Name="/dt", Value="x", Type="String", DataType="Text")[1]


# --- SecureString -------------------------------------------------------------------------


def test_secure_strings_are_encrypted_with_the_aws_managed_key(stratus, ssm):
    ssm.put_parameter(Name="/secret/pw", Value="hunter2", Type="SecureString")
    stored = ssm.get_parameter(Name="/secret/pw")["Parameter"]["Value"]
    assert stored != "hunter2"
    assert ssm.get_parameter(Name="/secret/pw", WithDecryption=True)["Parameter"]["Value"] == "hunter2"
    meta = ssm.describe_parameters(ParameterFilters=[{"Key": "Type", "Values": ["SecureString"]}])["Parameters"]
    assert [(m["Name"], m["KeyId"]) for m in meta] == [("/secret/pw", "alias/aws/ssm")]
    # The stored value is a KMS ciphertext bound to the parameter's ARN.
    kms = stratus.client("kms")
    arn = "arn:aws:ssm:us-east-1:000000000000:parameter/secret/pw"
    opened = kms.decrypt(CiphertextBlob=base64.b64decode(stored), EncryptionContext={"PARAMETER_ARN": arn})
    assert opened["Plaintext"] == b"hunter2"
    assert kms.describe_key(KeyId="alias/aws/ssm")["KeyMetadata"]["KeyManager"] == "AWS"


def test_secure_strings_with_a_customer_key(stratus, ssm):
    key = stratus.client("kms").create_key()["KeyMetadata"]["KeyId"]
    ssm.put_parameter(Name="/secret/own", Value="v1", Type="SecureString", KeyId=key)
    ssm.put_parameter(Name="/secret/own", Value="v2", Overwrite=True)
    history = ssm.get_parameter_history(Name="/secret/own", WithDecryption=True)["Parameters"]
    assert [(h["Value"], h["KeyId"]) for h in history] == [("v1", key), ("v2", key)]
    code, _ = refused(ssm.put_parameter, Name="/secret/bad", Value="x", Type="SecureString", KeyId="alias/none")
    assert code == "InvalidKeyId"


# --- versions, selectors, labels ------------------------------------------------------------


def test_selectors_pick_versions_and_labels(ssm):
    for i in range(1, 4):
        ssm.put_parameter(Name="/sel/p", Value=f"v{i}", Type="String", Overwrite=True)
    labelled = ssm.label_parameter_version(Name="/sel/p", ParameterVersion=2, Labels=["prod", "1bad", "awsx"])
    assert (labelled["InvalidLabels"], labelled["ParameterVersion"]) == (["1bad", "awsx"], 2)
    p = ssm.get_parameter(Name="/sel/p:prod")["Parameter"]
    assert (p["Value"], p["Version"], p["Selector"]) == ("v2", 2, ":prod")
    assert ssm.get_parameter(Name="/sel/p:1")["Parameter"]["Value"] == "v1"
    code, message = refused(ssm.get_parameter, Name="/sel/p:7")
    assert code == "ParameterVersionNotFound"
    assert message == "Systems Manager could not find version 7 of /sel/p. Verify the version and try again."
    # A label names one version: labelling another moves it.
    ssm.label_parameter_version(Name="/sel/p", Labels=["prod"])
    assert ssm.get_parameter(Name="/sel/p:prod")["Parameter"]["Version"] == 3
    history = ssm.get_parameter_history(Name="/sel/p")["Parameters"]
    assert [h["Labels"] for h in history] == [[], [], ["prod"]]
    assert refused(ssm.label_parameter_version, Name="/sel/p", ParameterVersion=9, Labels=["x"])[0] == "ParameterVersionNotFound"
    removed = ssm.unlabel_parameter_version(Name="/sel/p", ParameterVersion=3, Labels=["prod", "never"])
    assert (removed["RemovedLabels"], removed["InvalidLabels"]) == (["prod"], ["never"])


def test_ten_labels_per_version(ssm):
    ssm.put_parameter(Name="/labels/p", Value="x", Type="String")
    ssm.label_parameter_version(Name="/labels/p", Labels=[f"l{i}" for i in range(10)])
    code, _ = refused(ssm.label_parameter_version, Name="/labels/p", Labels=["one-more"])
    assert code == "ParameterVersionLabelLimitExceeded"


def test_a_hundred_versions_are_kept(ssm):
    ssm.put_parameter(Name="/many", Value="0", Type="String")
    ssm.label_parameter_version(Name="/many", ParameterVersion=1, Labels=["first"])
    for i in range(2, 101):
        ssm.put_parameter(Name="/many", Value=str(i), Overwrite=True)
    # Version 1 must go to make room, but a label holds it.
    code, message = refused(ssm.put_parameter, Name="/many", Value="101", Overwrite=True)
    assert code == "ParameterMaxVersionLimitExceeded"
    assert "Version 1, the oldest version, can't be deleted" in message
    ssm.unlabel_parameter_version(Name="/many", ParameterVersion=1, Labels=["first"])
    assert ssm.put_parameter(Name="/many", Value="101", Overwrite=True)["Version"] == 101
    assert refused(ssm.get_parameter, Name="/many:1")[0] == "ParameterVersionNotFound"
    pages = list(ssm.get_paginator("get_parameter_history").paginate(Name="/many"))
    versions = [h["Version"] for page in pages for h in page["Parameters"]]
    assert versions == list(range(2, 102))
    assert len(pages) == 2


# --- hierarchies and filters ------------------------------------------------------------------


def test_get_parameters_by_path(ssm):
    for name in ["/tree/a", "/tree/b", "/tree/sub/c", "/tree/sub/deeper/d", "/treetop"]:
        ssm.put_parameter(Name=name, Value=name, Type="String")
    one = ssm.get_parameters_by_path(Path="/tree")["Parameters"]
    assert [p["Name"] for p in one] == ["/tree/a", "/tree/b"]
    deep = [p["Name"] for page in ssm.get_paginator("get_parameters_by_path").paginate(Path="/tree/", Recursive=True, MaxResults=2) for p in page["Parameters"]]
    assert deep == ["/tree/a", "/tree/b", "/tree/sub/c", "/tree/sub/deeper/d"]
    ssm.label_parameter_version(Name="/tree/b", Labels=["live"])
    labelled = ssm.get_parameters_by_path(Path="/tree", ParameterFilters=[{"Key": "Label", "Values": ["live"]}])
    assert [p["Name"] for p in labelled["Parameters"]] == ["/tree/b"]
    code, message = refused(ssm.get_parameters_by_path, Path="/tree", ParameterFilters=[{"Key": "Name", "Values": ["x"]}])
    assert code == "InvalidFilterKey"
    assert refused(ssm.get_parameters_by_path, Path="tree")[0] == "ValidationException"
    assert refused(ssm.get_parameters_by_path, Path="/tree", NextToken="forged")[0] == "InvalidNextToken"


def test_describe_parameters_filters(ssm):
    ssm.put_parameter(Name="/desc/one", Value="1", Type="String", Tags=[{"Key": "team", "Value": "blue"}])
    ssm.put_parameter(Name="/desc/two", Value="2", Type="StringList", Tier="Advanced")
    ssm.put_parameter(Name="/desc/deep/three", Value="3", Type="String")
    ssm.put_parameter(Name="/desc/deep/ami", Value="ami-0123456789abcdef0", Type="String", DataType="aws:ec2:image")

    def names(**kwargs):
        pages = ssm.get_paginator("describe_parameters").paginate(**kwargs)
        return [p["Name"] for page in pages for p in page["Parameters"]]

    assert names(ParameterFilters=[{"Key": "Path", "Values": ["/desc"]}]) == ["/desc/one", "/desc/two"]
    assert names(ParameterFilters=[{"Key": "Path", "Option": "Recursive", "Values": ["/desc"]}]) == [
        "/desc/deep/ami", "/desc/deep/three", "/desc/one", "/desc/two"]
    assert names(ParameterFilters=[{"Key": "Tier", "Values": ["Advanced"]}]) == ["/desc/two"]
    assert names(ParameterFilters=[{"Key": "tag:team", "Values": ["blue"]}]) == ["/desc/one"]
    assert names(ParameterFilters=[{"Key": "Name", "Option": "Contains", "Values": ["esc/t"]}]) == ["/desc/two"]
    assert names(ParameterFilters=[{"Key": "Name", "Option": "BeginsWith", "Values": ["desc/o"]}]) == ["/desc/one"]
    # Other tests in this module add parameters too: only this test's own are compared.
    def own(found):
        return [n for n in found if n.startswith("/desc/")]

    assert own(names(Filters=[{"Key": "Type", "Values": ["StringList"]}])) == ["/desc/two"]
    assert own(names(ParameterFilters=[{"Key": "DataType", "Values": ["aws:ec2:image"]}])) == ["/desc/deep/ami"]
    code, message = refused(ssm.describe_parameters, ParameterFilters=[{"Key": "Label", "Values": ["x"]}])
    assert code == "InvalidFilterKey" and "[Path, Name, Type, KeyId, Tier]" in message
    code, _ = refused(ssm.describe_parameters, ParameterFilters=[{"Key": "Path", "Option": "Equals", "Values": ["/a"]}])
    assert code == "InvalidFilterOption"
    code, _ = refused(ssm.describe_parameters, ParameterFilters=[{"Key": "Type", "Values": ["Number"]}])
    assert code == "InvalidFilterValue"
    code, message = refused(ssm.describe_parameters, Filters=[{"Key": "Name", "Values": ["x"]}], ParameterFilters=[{"Key": "Name", "Values": ["x"]}])
    assert message == "You can use either Filters or ParameterFilters in a single request."
    assert ssm.describe_parameters(Shared=True)["Parameters"] == []


def test_delete_parameters(ssm):
    ssm.put_parameter(Name="/del/a", Value="1", Type="String")
    ssm.put_parameter(Name="/del/b", Value="1", Type="String")
    ssm.delete_parameter(Name="/del/a")
    answer = ssm.delete_parameters(Names=["/del/a", "/del/b"])
    assert (answer["DeletedParameters"], answer["InvalidParameters"]) == (["/del/b"], ["/del/a"])
    # A deleted name starts again at version 1.
    assert ssm.put_parameter(Name="/del/b", Value="again", Type="String")["Version"] == 1


# --- tiers and policies ---------------------------------------------------------------------


def test_tiers_and_their_limits(ssm):
    big = "x" * 5000
    code, message = refused(ssm.put_parameter, Name="/tier/big", Value=big, Type="String")
    assert message.startswith("Standard tier parameters support a maximum parameter value of 4096 characters.")
    assert ssm.put_parameter(Name="/tier/big", Value=big, Type="String", Tier="Intelligent-Tiering")["Tier"] == "Advanced"
    assert ssm.put_parameter(Name="/tier/small", Value="x", Type="String", Tier="Intelligent-Tiering")["Tier"] == "Standard"
    assert refused(ssm.put_parameter, Name="/tier/huge", Value="x" * 9000, Type="String", Tier="Advanced")[0] == "ValidationException"
    # An advanced parameter stays advanced.
    assert ssm.put_parameter(Name="/tier/big", Value="small", Overwrite=True)["Tier"] == "Advanced"
    code, message = refused(ssm.put_parameter, Name="/tier/big", Value="small", Overwrite=True, Tier="Standard")
    assert "You can't downgrade a parameter from the advanced-parameter tier" in message


def expiration(seconds_from_now, now):
    at = datetime.fromtimestamp(now + seconds_from_now, tz=timezone.utc)
    return {"Type": "Expiration", "Version": "1.0", "Attributes": {"Timestamp": at.strftime("%Y-%m-%dT%H:%M:%S.000Z")}}


def test_expiration_policies_delete_on_the_clock(stratus, ssm):
    now = stratus.now()
    policies = [expiration(DAY, now), {"Type": "NoChangeNotification", "Version": "1.0", "Attributes": {"After": "2", "Unit": "Hours"}}]
    put = ssm.put_parameter(Name="/exp/p", Value="x", Type="String", Tier="Advanced", Policies=json.dumps(policies))
    assert put["Tier"] == "Advanced"
    meta = ssm.describe_parameters(ParameterFilters=[{"Key": "Name", "Values": ["/exp/p"]}])["Parameters"][0]
    assert [(p["PolicyType"], p["PolicyStatus"]) for p in meta["Policies"]] == [("Expiration", "Pending"), ("NoChangeNotification", "Pending")]
    assert json.loads(meta["Policies"][0]["PolicyText"]) == policies[0]
    stratus.advance(DAY // 2)
    assert ssm.get_parameter(Name="/exp/p")["Parameter"]["Value"] == "x"
    stratus.advance(DAY)
    assert refused(ssm.get_parameter, Name="/exp/p")[0] == "ParameterNotFound"
    # Policies need the advanced tier; two of a kind conflict.
    assert refused(ssm.put_parameter, Name="/exp/q", Value="x", Type="String", Policies=json.dumps(policies[:1]))[0] == "ValidationException"
    code, _ = refused(ssm.put_parameter, Name="/exp/q", Value="x", Type="String", Tier="Advanced", Policies=json.dumps(policies[:1] * 2))
    assert code == "IncompatiblePolicyException"
    code, _ = refused(ssm.put_parameter, Name="/exp/q", Value="x", Type="String", Tier="Advanced", Policies='[{"Type":"Later","Version":"1.0","Attributes":{}}]')
    assert code == "InvalidPolicyTypeException"


def test_the_default_tier_setting(stratus, ssm):
    setting = ssm.get_service_setting(SettingId="/ssm/parameter-store/default-parameter-tier")["ServiceSetting"]
    assert (setting["SettingValue"], setting["Status"]) == ("Standard", "Default")
    ssm.update_service_setting(SettingId="/ssm/parameter-store/default-parameter-tier", SettingValue="Advanced")
    try:
        assert ssm.put_parameter(Name="/tier/by-default", Value="x", Type="String")["Tier"] == "Advanced"
    finally:
        reset = ssm.reset_service_setting(SettingId="/ssm/parameter-store/default-parameter-tier")
    assert reset["ServiceSetting"]["SettingValue"] == "Standard"
    assert ssm.put_parameter(Name="/tier/standard-again", Value="x", Type="String")["Tier"] == "Standard"
    assert refused(ssm.get_service_setting, SettingId="/ssm/no/such")[0] == "ServiceSettingNotFound"
    code, _ = refused(ssm.update_service_setting, SettingId="/ssm/parameter-store/high-throughput-enabled", SettingValue="maybe")
    assert code == "ValidationException"


# --- tags ---------------------------------------------------------------------------------------


def test_tags(ssm):
    ssm.put_parameter(Name="/tagged", Value="x", Type="String", Tags=[{"Key": "a", "Value": "1"}])
    ssm.add_tags_to_resource(ResourceType="Parameter", ResourceId="/tagged", Tags=[{"Key": "b", "Value": "2"}])
    ssm.remove_tags_from_resource(ResourceType="Parameter", ResourceId="/tagged", TagKeys=["a"])
    assert ssm.list_tags_for_resource(ResourceType="Parameter", ResourceId="/tagged")["TagList"] == [{"Key": "b", "Value": "2"}]
    assert refused(ssm.list_tags_for_resource, ResourceType="Parameter", ResourceId="/untagged-none")[0] == "InvalidResourceId"
    assert refused(ssm.list_tags_for_resource, ResourceType="PatchBaseline", ResourceId="pb-0")[0] == "InvalidResourceId"
    many = [{"Key": f"k{i}", "Value": "v"} for i in range(51)]
    assert refused(ssm.add_tags_to_resource, ResourceType="Parameter", ResourceId="/tagged", Tags=many)[0] == "TooManyTagsError"


# --- public parameters ----------------------------------------------------------------------


def test_public_parameters_for_sdks_and_cdk(ssm):
    ami = ssm.get_parameter(Name="/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64")["Parameter"]
    assert ami["Value"].startswith("ami-") and len(ami["Value"]) == 21
    assert ami["ARN"] == "arn:aws:ssm:us-east-1::parameter/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
    ecs = ssm.get_parameters(Names=["/aws/service/ecs/optimized-ami/amazon-linux-2/recommended/image_id"])
    assert len(ecs["Parameters"]) == 1
    regions = [p["Value"] for page in ssm.get_paginator("get_parameters_by_path").paginate(Path="/aws/service/global-infrastructure/regions") for p in page["Parameters"]]
    assert "eu-west-1" in regions and "us-east-1" in regions and len(regions) == len(set(regions))
    long_name = ssm.get_parameter(Name="/aws/service/global-infrastructure/regions/eu-west-1/longName")["Parameter"]["Value"]
    assert long_name == "Europe (Ireland)"
    assert refused(ssm.get_parameter, Name="/aws/service/no/such/thing")[0] == "ParameterNotFound"


def test_secrets_manager_references(ssm):
    # Recorded against AWS (parity suite): a missing secret's refusal names it without its slash.
    code, message = refused(ssm.get_parameter, Name="/aws/reference/secretsmanager/inexistent", WithDecryption=True)
    assert code == "ParameterNotFound"
    assert message == "Secret aws/reference/secretsmanager/inexistent not found."
    assert refused(ssm.get_parameter, Name="/aws/reference/secretsmanager/x")[0] == "ValidationException"


def test_a_secret_reads_through_its_reference(stratus, ssm):
    # AWS's user guide, "Referencing AWS Secrets Manager secrets from Parameter Store parameters".
    secrets = stratus.client("secretsmanager")
    created = secrets.create_secret(Name="db-password", SecretString="hunter2")
    secrets.put_secret_value(SecretId="db-password", SecretString="hunter3")
    name = "/aws/reference/secretsmanager/db-password"
    parameter = ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]
    assert (parameter["Name"], parameter["Type"], parameter["Value"], parameter["Version"]) == (
        name, "SecureString", "hunter3", 0,
    )
    assert parameter["ARN"] == created["ARN"]
    source = json.loads(parameter["SourceResult"])
    assert (source["ARN"], source["name"], source["secretString"]) == (created["ARN"], "db-password", "hunter3")
    assert source["versionStages"] == ["AWSCURRENT"]
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d:\d\d [AP]M", source["createdDate"])
    # A staging label picks the version, as for a parameter's label.
    previous = ssm.get_parameter(Name=name + ":AWSPREVIOUS", WithDecryption=True)["Parameter"]
    assert previous["Value"] == "hunter2" and previous["Selector"] == ":AWSPREVIOUS"
    found = ssm.get_parameters(Names=[name, "/aws/reference/secretsmanager/gone"], WithDecryption=True)
    assert [p["Name"] for p in found["Parameters"]] == [name]
    assert found["InvalidParameters"] == ["/aws/reference/secretsmanager/gone"]


# --- documents --------------------------------------------------------------------------------

COMMAND = {
    "schemaVersion": "2.2",
    "description": "Greets",
    "parameters": {"who": {"type": "String", "default": "world", "description": "whom to greet"}},
    "mainSteps": [{"action": "aws:runShellScript", "name": "greet", "inputs": {"runCommand": ["echo hi {{who}}"]}}],
}


def test_documents_lifecycle(ssm):
    created = ssm.create_document(Name="Greeter", Content=json.dumps(COMMAND), DocumentType="Command", Tags=[{"Key": "t", "Value": "1"}])
    d = created["DocumentDescription"]
    assert (d["Name"], d["DocumentVersion"], d["Status"], d["SchemaVersion"], d["HashType"]) == ("Greeter", "1", "Creating", "2.2", "Sha256")
    assert d["Parameters"] == [{"Name": "who", "Type": "String", "Description": "whom to greet", "DefaultValue": "world"}]
    assert d["PlatformTypes"] == ["Linux", "MacOS"]
    assert d["Owner"] == "000000000000"
    assert refused(ssm.create_document, Name="Greeter", Content=json.dumps(COMMAND))[0] == "DocumentAlreadyExists"
    assert refused(ssm.create_document, Name="Broken", Content="{not json")[0] == "InvalidDocumentContent"
    assert refused(ssm.create_document, Name="AWS-Mine", Content=json.dumps(COMMAND))[0] == "ValidationException"

    second = dict(COMMAND, description="Greets again")
    updated = ssm.update_document(Name="Greeter", Content=json.dumps(second), DocumentVersion="$LATEST", VersionName="v2")
    assert (updated["DocumentDescription"]["DocumentVersion"], updated["DocumentDescription"]["DefaultVersion"]) == ("2", "1")
    assert refused(ssm.update_document, Name="Greeter", Content=json.dumps(second), DocumentVersion="$LATEST")[0] == "DuplicateDocumentContent"
    assert refused(ssm.update_document, Name="Greeter", Content="{}", DocumentVersion="1")[0] == "InvalidDocumentVersion"
    assert json.loads(ssm.get_document(Name="Greeter")["Content"]) == COMMAND
    assert json.loads(ssm.get_document(Name="Greeter", VersionName="v2")["Content"]) == second
    assert ssm.describe_document(Name="Greeter", DocumentVersion="$LATEST")["Document"]["Description"] == "Greets again"
    ssm.update_document_default_version(Name="Greeter", DocumentVersion="2")
    versions = ssm.list_document_versions(Name="Greeter")["DocumentVersions"]
    assert [(v["DocumentVersion"], v["IsDefaultVersion"]) for v in versions] == [("1", False), ("2", True)]
    listed = ssm.list_documents(Filters=[{"Key": "Owner", "Values": ["Self"]}])["DocumentIdentifiers"]
    assert [(i["Name"], i["DocumentVersion"]) for i in listed] == [("Greeter", "2")]
    assert ssm.list_tags_for_resource(ResourceType="Document", ResourceId="Greeter")["TagList"] == [{"Key": "t", "Value": "1"}]

    ssm.modify_document_permission(Name="Greeter", PermissionType="Share", AccountIdsToAdd=["111122223333"])
    shared = ssm.describe_document_permission(Name="Greeter", PermissionType="Share")
    assert shared["AccountIds"] == ["111122223333"]
    assert refused(ssm.delete_document, Name="Greeter")[0] == "InvalidDocumentOperation"
    ssm.modify_document_permission(Name="Greeter", PermissionType="Share", AccountIdsToRemove=["111122223333"])
    assert refused(ssm.delete_document, Name="Greeter", DocumentVersion="2")[0] == "InvalidDocumentOperation"
    ssm.delete_document(Name="Greeter", DocumentVersion="1")
    ssm.delete_document(Name="Greeter")
    assert refused(ssm.get_document, Name="Greeter")[0] == "InvalidDocument"


# --- the rest of SSM ------------------------------------------------------------------------


def test_the_rest_of_ssm_is_refused_by_name(ssm):
    # Recorded against AWS (parity suite): a window that does not exist.
    code, message = refused(ssm.get_maintenance_window, WindowId="mw-00000000000000000")
    assert (code, message) == ("DoesNotExistException", "Maintenance window mw-00000000000000000 does not exist")
    assert ssm.describe_maintenance_windows()["WindowIdentities"] == []
    code, message = refused(ssm.send_command, DocumentName="AWS-RunShellScript", InstanceIds=["i-0123456789abcdef0"])
    assert code == "NotImplemented" and "SendCommand" in message


# --- the AWS CLI and durability --------------------------------------------------------------


def test_the_cli_reads_what_boto3_wrote(stratus, ssm):
    ssm.put_parameter(Name="/cli/p", Value="from-boto3", Type="String")
    env = dict(os.environ, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1")
    out = subprocess.run(
        [sys.executable, "-m", "awscli", "ssm", "get-parameter", "--name", "/cli/p", "--endpoint-url", stratus.endpoint],
        env=env, capture_output=True, text=True, check=True,
    )
    assert json.loads(out.stdout)["Parameter"]["Value"] == "from-boto3"


def test_parameters_survive_kill_9_and_expirations_resume():
    with tempfile.TemporaryDirectory() as data:
        first = Stratus("--data-dir", data, "--clock", "manual")
        client = first.client("ssm")
        now = first.now()
        client.put_parameter(Name="/durable/p", Value="kept", Type="SecureString")
        policy = json.dumps([expiration(DAY, now)])
        client.put_parameter(Name="/durable/expiring", Value="x", Type="String", Tier="Advanced", Policies=policy)
        first.stop(signal.SIGKILL)
        second = Stratus("--data-dir", data, "--clock", "manual")
        try:
            client = second.client("ssm")
            assert client.get_parameter(Name="/durable/p", WithDecryption=True)["Parameter"]["Value"] == "kept"
            second.advance(2 * DAY)
            with pytest.raises(ClientError) as e:
                client.get_parameter(Name="/durable/expiring")
            assert error(e)[0] == "ParameterNotFound"
        finally:
            second.stop()
