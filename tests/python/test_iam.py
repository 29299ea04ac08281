"""IAM through boto3 (awsQuery) and the AWS CLI, against the real binary."""

import base64
import datetime
import hashlib
import json
import pathlib
import re
import struct
import urllib.parse
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus
from test_dynamodb_cli import cli

TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
)
ALLOW_S3 = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
ADMIN = "arn:aws:iam::aws:policy/AdministratorAccess"
# Self-signed test certificates and keys (RSA, and EC for a key type not matched).
TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "services" / "iam" / "testdata"
CERTIFICATE = (TESTDATA / "server.crt").read_text()
CERTIFICATE_KEY = (TESTDATA / "server.key").read_text()
OTHER_KEY = (TESTDATA / "other.key").read_text()
OTHER_CERTIFICATE = (TESTDATA / "other.crt").read_text()
EC_CERTIFICATE = (TESTDATA / "ec.crt").read_text()


@pytest.fixture(scope="module")
def iam(stratus):
    return stratus.client("iam")


def name(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def refusal(call, **kwargs):
    """The Query error `call` answers: (code, message, HTTP status)."""
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    error = e.value.response["Error"]
    return error["Code"], error["Message"], e.value.response["ResponseMetadata"]["HTTPStatusCode"]


def policy_of(size):
    """A valid identity policy of `size` characters not counting whitespace, plus whitespace."""
    base = {"Version": "2012-10-17", "Statement": [{"Sid": "", "Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    compact = json.dumps(base, separators=(",", ":"))
    base["Statement"][0]["Sid"] = "A" * (size - len(compact))
    return json.dumps(base, separators=(",", ":")) + "   \n"


def test_users_have_ids_arns_paths_and_case_insensitive_names(iam):
    user = name("user")
    created = iam.create_user(UserName=user, Path="/team/a/")["User"]
    assert re.fullmatch(r"AIDA[A-Z2-7]{17}", created["UserId"])
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/team/a/{user}"
    assert created["Path"] == "/team/a/"
    assert iam.get_user(UserName=user)["User"]["UserId"] == created["UserId"]
    # IAM names are unique without regard to case.
    assert refusal(iam.create_user, UserName=user.upper()) == (
        "EntityAlreadyExists",
        f"User with name {user.upper()} already exists.",
        409,
    )
    assert refusal(iam.get_user, UserName="no-such-user") == (
        "NoSuchEntity",
        "The user with name no-such-user cannot be found.",
        404,
    )
    listed = iam.list_users(PathPrefix="/team/")["Users"]
    assert [u["UserName"] for u in listed] == [user]
    iam.update_user(UserName=user, NewUserName=user + "-2", NewPath="/")
    assert iam.get_user(UserName=user + "-2")["User"]["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/{user}-2"
    iam.delete_user(UserName=user + "-2")
    assert refusal(iam.delete_user, UserName=user + "-2")[0] == "NoSuchEntity"


def test_listings_page_with_marker_and_max_items(iam):
    prefix = f"/paging{uuid.uuid4().hex[:6]}/"
    users = sorted(name("p") for _ in range(5))
    for user in users:
        iam.create_user(UserName=user, Path=prefix)
    seen, marker = [], None
    while True:
        kwargs = {"PathPrefix": prefix, "MaxItems": 2, **({"Marker": marker} if marker else {})}
        page = iam.list_users(**kwargs)
        seen += [u["UserName"] for u in page["Users"]]
        if not page["IsTruncated"]:
            assert "Marker" not in page
            break
        marker = page["Marker"]
    assert seen == users
    # The paginator speaks the same Marker protocol.
    pages = iam.get_paginator("list_users").paginate(PathPrefix=prefix, PaginationConfig={"PageSize": 3})
    assert [u["UserName"] for p in pages for u in p["Users"]] == users
    assert refusal(iam.list_users, MaxItems=0)[0] == "ValidationError"
    assert refusal(iam.list_users, MaxItems=1001)[0] == "ValidationError"
    assert refusal(iam.list_users, Marker="forged")[0] == "InvalidInput"


def test_groups_members_and_deletion_rules(iam):
    group, user = name("group"), name("member")
    created = iam.create_group(GroupName=group, Path="/g/")["Group"]
    assert re.fullmatch(r"AGPA[A-Z2-7]{17}", created["GroupId"])
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:group/g/{group}"
    assert refusal(iam.create_group, GroupName=group)[:2] == (
        "EntityAlreadyExists",
        f"Group with name {group} already exists.",
    )
    iam.create_user(UserName=user)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.add_user_to_group(GroupName=group, UserName=user)  # idempotent
    got = iam.get_group(GroupName=group)
    assert [u["UserName"] for u in got["Users"]] == [user]
    assert [g["GroupName"] for g in iam.list_groups_for_user(UserName=user)["Groups"]] == [group]
    assert group in [g["GroupName"] for g in iam.list_groups(PathPrefix="/g/")["Groups"]]
    # https://github.com/hashicorp/terraform/issues/29147 — AWS's words for both sides.
    assert refusal(iam.delete_group, GroupName=group) == (
        "DeleteConflict",
        "Cannot delete entity, must remove users from group first.",
        409,
    )
    assert refusal(iam.delete_user, UserName=user)[:2] == (
        "DeleteConflict",
        "Cannot delete entity, must remove users from group first.",
    )
    iam.remove_user_from_group(GroupName=group, UserName=user)
    assert refusal(iam.remove_user_from_group, GroupName=group, UserName=user)[0] == "NoSuchEntity"
    iam.update_group(GroupName=group, NewGroupName=group + "-r")
    iam.delete_group(GroupName=group + "-r")
    iam.delete_user(UserName=user)
    assert refusal(iam.get_group, GroupName=group) == (
        "NoSuchEntity",
        f"The group with name {group} cannot be found.",
        404,
    )


def test_roles_trust_policies_durations_and_descriptions(iam):
    role = name("role")
    created = iam.create_role(RoleName=role, Path="/svc/", AssumeRolePolicyDocument=TRUST, Description="first")["Role"]
    assert re.fullmatch(r"AROA[A-Z2-7]{17}", created["RoleId"])
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:role/svc/{role}"
    assert created["AssumeRolePolicyDocument"] == json.loads(TRUST)
    # AWS's CreateRole answer has no MaxSessionDuration or RoleLastUsed; GetRole has both.
    assert "MaxSessionDuration" not in created and "RoleLastUsed" not in created
    got = iam.get_role(RoleName=role)["Role"]
    assert got["MaxSessionDuration"] == 3600 and got["RoleLastUsed"] == {}
    assert got["Description"] == "first"
    iam.update_role(RoleName=role, MaxSessionDuration=43200, Description="second")
    assert iam.get_role(RoleName=role)["Role"]["MaxSessionDuration"] == 43200
    assert iam.update_role_description(RoleName=role, Description="third")["Role"]["Description"] == "third"
    for bad in (3599, 43201):
        assert refusal(iam.update_role, RoleName=role, MaxSessionDuration=bad)[0] == "ValidationError"
    new_trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}],
    }
    iam.update_assume_role_policy(RoleName=role, PolicyDocument=json.dumps(new_trust))
    assert iam.get_role(RoleName=role)["Role"]["AssumeRolePolicyDocument"] == new_trust
    listed = iam.list_roles(PathPrefix="/svc/")["Roles"]
    assert [r["RoleName"] for r in listed] == [role]
    assert "RoleLastUsed" not in listed[0] and listed[0]["MaxSessionDuration"] == 3600 * 12
    iam.delete_role(RoleName=role)
    assert refusal(iam.get_role, RoleName=role) == ("NoSuchEntity", f"The role with name {role} cannot be found.", 404)


def test_trust_policies_are_validated_as_trust_policies(iam):
    # Recorded from AWS: a trailing comma is "invalid Json", not a syntax error.
    trailing_comma = '{"Version": "2012-10-17", "Statement": [{"Action": "sts:AssumeRole", "Principal": "*", "Effect": "Allow",}]}'
    assert refusal(iam.create_role, RoleName=name("r"), AssumeRolePolicyDocument=trailing_comma) == (
        "MalformedPolicyDocument",
        "This policy contains invalid Json",
        400,
    )
    with_resource = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole", "Resource": "*"}]}
    )
    assert refusal(iam.create_role, RoleName=name("r"), AssumeRolePolicyDocument=with_resource)[:2] == (
        "MalformedPolicyDocument",
        "Has prohibited field Resource",
    )
    no_principal = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole"}]})
    assert refusal(iam.create_role, RoleName=name("r"), AssumeRolePolicyDocument=no_principal)[:2] == (
        "MalformedPolicyDocument",
        "Missing required field Principal",
    )


def test_permissions_boundaries(iam):
    role, user = name("bounded"), name("bounded")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST, PermissionsBoundary=ADMIN)
    boundary = iam.get_role(RoleName=role)["Role"]["PermissionsBoundary"]
    assert boundary == {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": ADMIN}
    assert "PermissionsBoundary" not in iam.list_roles()["Roles"][0]
    iam.delete_role_permissions_boundary(RoleName=role)
    assert "PermissionsBoundary" not in iam.get_role(RoleName=role)["Role"]
    iam.put_role_permissions_boundary(RoleName=role, PermissionsBoundary=ADMIN)
    missing = f"arn:aws:iam::{ACCOUNT}:policy/none"
    assert refusal(iam.create_user, UserName=user, PermissionsBoundary=missing)[:2] == (
        "NoSuchEntity",
        f"Scope ARN: {missing} does not exist or is not attachable.",
    )
    iam.create_user(UserName=user)
    iam.put_user_permissions_boundary(UserName=user, PermissionsBoundary=ADMIN)
    assert iam.get_user(UserName=user)["User"]["PermissionsBoundary"]["PermissionsBoundaryArn"] == ADMIN
    iam.delete_user_permissions_boundary(UserName=user)
    assert "PermissionsBoundary" not in iam.get_user(UserName=user)["User"]


def test_tags_on_users_roles_policies_and_instance_profiles(iam):
    user, role, profile = name("tagged"), name("tagged"), name("tagged")
    iam.create_user(UserName=user, Tags=[{"Key": "team", "Value": "a"}])
    iam.tag_user(UserName=user, Tags=[{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "b"}])
    assert iam.list_user_tags(UserName=user)["Tags"] == [{"Key": "team", "Value": "b"}, {"Key": "env", "Value": "dev"}]
    assert iam.get_user(UserName=user)["User"]["Tags"][0] == {"Key": "team", "Value": "b"}
    iam.untag_user(UserName=user, TagKeys=["team"])
    assert iam.list_user_tags(UserName=user)["Tags"] == [{"Key": "env", "Value": "dev"}]
    page = iam.list_user_tags(UserName=user, MaxItems=1)
    assert page["IsTruncated"] is False
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST, Tags=[{"Key": "k", "Value": "v"}])
    iam.tag_role(RoleName=role, Tags=[{"Key": "k2", "Value": "v2"}])
    iam.untag_role(RoleName=role, TagKeys=["k"])
    assert iam.list_role_tags(RoleName=role)["Tags"] == [{"Key": "k2", "Value": "v2"}]
    arn = iam.create_policy(PolicyName=name("tagged"), PolicyDocument=json.dumps(ALLOW_S3))["Policy"]["Arn"]
    iam.tag_policy(PolicyArn=arn, Tags=[{"Key": "p", "Value": "1"}])
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == [{"Key": "p", "Value": "1"}]
    iam.untag_policy(PolicyArn=arn, TagKeys=["p"])
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == []
    iam.create_instance_profile(InstanceProfileName=profile, Tags=[{"Key": "a", "Value": "b"}])
    iam.tag_instance_profile(InstanceProfileName=profile, Tags=[{"Key": "c", "Value": "d"}])
    iam.untag_instance_profile(InstanceProfileName=profile, TagKeys=["a"])
    assert iam.list_instance_profile_tags(InstanceProfileName=profile)["Tags"] == [{"Key": "c", "Value": "d"}]
    # Fifty at most.
    many = [{"Key": f"k{i}", "Value": ""} for i in range(50)]
    iam.tag_role(RoleName=role, Tags=many[:49])
    assert refusal(iam.tag_role, RoleName=role, Tags=many[49:] + [{"Key": "extra", "Value": ""}])[0] == "LimitExceeded"
    assert refusal(iam.tag_user, UserName=user, Tags=[{"Key": "aws:x", "Value": ""}])[0] == "InvalidInput"


def test_managed_policies_versions_and_url_encoded_documents(iam):
    policy = name("policy")
    created = iam.create_policy(PolicyName=policy, Path="/p/", PolicyDocument=json.dumps(ALLOW_S3), Description="d")["Policy"]
    arn = created["Arn"]
    assert arn == f"arn:aws:iam::{ACCOUNT}:policy/p/{policy}"
    assert re.fullmatch(r"ANPA[A-Z2-7]{17}", created["PolicyId"])
    assert (created["DefaultVersionId"], created["AttachmentCount"], created["IsAttachable"]) == ("v1", 0, True)
    assert refusal(iam.create_policy, PolicyName=policy, PolicyDocument=json.dumps(ALLOW_S3))[:2] == (
        "EntityAlreadyExists",
        f"A policy called {policy} already exists. Duplicate names are not allowed.",
    )
    assert iam.get_policy(PolicyArn=arn)["Policy"]["Description"] == "d"
    for i in range(2, 6):
        version = iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(ALLOW_S3), SetAsDefault=i == 3)
        assert version["PolicyVersion"]["VersionId"] == f"v{i}"
    assert refusal(iam.create_policy_version, PolicyArn=arn, PolicyDocument=json.dumps(ALLOW_S3)) == (
        "LimitExceeded",
        "A managed policy can have up to 5 versions. Before you create a new version, you must delete an existing version.",
        409,
    )
    assert iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"] == "v3"
    assert refusal(iam.delete_policy_version, PolicyArn=arn, VersionId="v3") == (
        "DeleteConflict",
        "Cannot delete the default version of a policy.",
        409,
    )
    iam.set_default_policy_version(PolicyArn=arn, VersionId="v5")
    versions = iam.list_policy_versions(PolicyArn=arn)["Versions"]
    assert [(v["VersionId"], v["IsDefaultVersion"]) for v in versions][0] == ("v5", True)
    for v in ("v1", "v2", "v3", "v4"):
        iam.delete_policy_version(PolicyArn=arn, VersionId=v)
    assert refusal(iam.get_policy_version, PolicyArn=arn, VersionId="v1")[0] == "NoSuchEntity"
    # The document comes back URL-encoded, which boto3 decodes and parses.
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v5")["PolicyVersion"]["Document"] == ALLOW_S3
    iam.delete_policy(PolicyArn=arn)
    # Recorded from AWS.
    assert refusal(iam.delete_policy, PolicyArn=arn) == ("NoSuchEntity", f"Policy {arn} was not found.", 404)


def test_policy_documents_are_validated_and_sized_as_iam_does(iam):
    assert refusal(iam.create_policy, PolicyName=name("p"), PolicyDocument="{}")[:2] == (
        "MalformedPolicyDocument",
        "Missing required field Statement",
    )
    no_vendor = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "GetObject", "Resource": "*"}]}
    assert refusal(iam.create_policy, PolicyName=name("p"), PolicyDocument=json.dumps(no_vendor))[1] == (
        "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc."
    )
    iam.create_policy(PolicyName=name("p"), PolicyDocument=policy_of(6144))
    assert refusal(iam.create_policy, PolicyName=name("p"), PolicyDocument=policy_of(6145)) == (
        "LimitExceeded",
        "Cannot exceed quota for PolicySize: 6144",
        409,
    )


def test_attaching_managed_policies_counts_and_lists_attachments(iam):
    user, group, role = name("att"), name("att"), name("att")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    arn = iam.create_policy(PolicyName=name("att"), PolicyDocument=json.dumps(ALLOW_S3))["Policy"]["Arn"]
    iam.attach_user_policy(UserName=user, PolicyArn=arn)
    iam.attach_group_policy(GroupName=group, PolicyArn=arn)
    iam.attach_role_policy(RoleName=role, PolicyArn=arn)
    iam.attach_role_policy(RoleName=role, PolicyArn=ADMIN)
    lambda_basic = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
    iam.attach_role_policy(RoleName=role, PolicyArn=lambda_basic)
    assert iam.get_policy(PolicyArn=arn)["Policy"]["AttachmentCount"] == 3
    assert iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"][1] == {
        "PolicyName": "AdministratorAccess",
        "PolicyArn": ADMIN,
    }
    assert [p["PolicyName"] for p in iam.list_attached_role_policies(RoleName=role, PathPrefix="/service-role/")["AttachedPolicies"]] == [
        "AWSLambdaBasicExecutionRole"
    ]
    assert iam.list_attached_user_policies(UserName=user)["AttachedPolicies"][0]["PolicyArn"] == arn
    assert iam.list_attached_group_policies(GroupName=group)["AttachedPolicies"][0]["PolicyArn"] == arn
    entities = iam.list_entities_for_policy(PolicyArn=arn)
    assert [u["UserName"] for u in entities["PolicyUsers"]] == [user]
    assert [g["GroupName"] for g in entities["PolicyGroups"]] == [group]
    assert [r["RoleName"] for r in entities["PolicyRoles"]] == [role]
    only_roles = iam.list_entities_for_policy(PolicyArn=arn, EntityFilter="Role")
    assert only_roles["PolicyUsers"] == [] and len(only_roles["PolicyRoles"]) == 1
    attached = iam.list_policies(Scope="Local", OnlyAttached=True)["Policies"]
    assert arn in [p["Arn"] for p in attached]
    aws = iam.list_policies(Scope="AWS", OnlyAttached=True)["Policies"]
    assert {"AdministratorAccess", "AWSLambdaBasicExecutionRole"} <= {p["PolicyName"] for p in aws}
    assert all(p["Arn"].startswith("arn:aws:iam::aws:policy/") for p in aws)
    assert refusal(iam.delete_policy, PolicyArn=arn) == ("DeleteConflict", "Cannot delete a policy attached to entities.", 409)
    assert refusal(iam.delete_role, RoleName=role) == ("DeleteConflict", "Cannot delete entity, must detach all policies first.", 409)
    # Recorded from AWS: an unknown ARN, and a name where an ARN belongs.
    missing = f"arn:aws:iam::{ACCOUNT}:policy/{user}123"
    assert refusal(iam.attach_user_policy, UserName=user, PolicyArn=missing) == (
        "NoSuchEntity",
        f"Policy {missing} does not exist or is not attachable.",
        404,
    )
    assert refusal(iam.attach_user_policy, UserName=user, PolicyArn="a-policy-name-not-an-arn") == (
        "ValidationError",
        "Invalid ARN:  Could not be parsed!",
        400,
    )
    assert refusal(iam.attach_role_policy, RoleName=role, PolicyArn="arn:aws:iam::aws:policy/NoSuchAwsPolicy")[0] == "NoSuchEntity"
    assert refusal(iam.detach_user_policy, UserName=user, PolicyArn=ADMIN) == ("NoSuchEntity", f"Policy {ADMIN} was not found.", 404)
    admin = iam.get_policy(PolicyArn=ADMIN)["Policy"]
    assert (admin["PolicyId"], admin["DefaultVersionId"]) == ("ANPAIWMBCKSKIEE64ZLYK", "v1")
    document = iam.get_policy_version(PolicyArn=ADMIN, VersionId="v1")["PolicyVersion"]["Document"]
    assert document["Statement"] == [{"Effect": "Allow", "Action": "*", "Resource": "*"}]
    for detach, kwargs in (
        (iam.detach_user_policy, {"UserName": user}),
        (iam.detach_group_policy, {"GroupName": group}),
        (iam.detach_role_policy, {"RoleName": role}),
    ):
        detach(PolicyArn=arn, **kwargs)
    iam.detach_role_policy(RoleName=role, PolicyArn=ADMIN)
    iam.detach_role_policy(RoleName=role, PolicyArn=lambda_basic)
    assert iam.get_policy(PolicyArn=arn)["Policy"]["AttachmentCount"] == 0
    iam.delete_policy(PolicyArn=arn)
    iam.delete_role(RoleName=role)


def test_ten_managed_policies_per_role(iam):
    role = name("ten")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    for _ in range(10):
        arn = iam.create_policy(PolicyName=name("ten"), PolicyDocument=json.dumps(ALLOW_S3))["Policy"]["Arn"]
        iam.attach_role_policy(RoleName=role, PolicyArn=arn)
    assert refusal(iam.attach_role_policy, RoleName=role, PolicyArn=ADMIN) == (
        "LimitExceeded",
        "Cannot exceed quota for PoliciesPerRole: 10",
        409,
    )


@pytest.mark.parametrize(
    "kind,limit",
    [("user", 2048), ("group", 5120), ("role", 10240)],
)
def test_inline_policies(iam, kind, limit):
    holder = name(kind)
    create = {"user": iam.create_user, "group": iam.create_group, "role": iam.create_role}[kind]
    extra = {"AssumeRolePolicyDocument": TRUST} if kind == "role" else {}
    create(**{f"{kind.capitalize()}Name": holder}, **extra)
    key = {f"{kind.capitalize()}Name": holder}
    put = getattr(iam, f"put_{kind}_policy")
    get = getattr(iam, f"get_{kind}_policy")
    # A Resource holding an escaped ARN survives the URL-encoding round trip unchanged.
    document = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["apigateway:PUT"], "Resource": ["arn:aws:apigateway:us-east-1::/tags/arn%3Aaws%3Aapigateway"]}],
    }
    put(PolicyName="inline", PolicyDocument=json.dumps(document), **key)
    got = get(PolicyName="inline", **key)
    assert got["PolicyDocument"] == document and got[f"{kind.capitalize()}Name"] == holder
    assert getattr(iam, f"list_{kind}_policies")(**key)["PolicyNames"] == ["inline"]
    delete = {"user": iam.delete_user, "group": iam.delete_group, "role": iam.delete_role}[kind]
    assert refusal(delete, **key) == ("DeleteConflict", "Cannot delete entity, must delete policies first.", 409)
    put(PolicyName="max", PolicyDocument=policy_of(limit), **key)
    assert refusal(put, PolicyName="big", PolicyDocument=policy_of(limit + 1), **key) == (
        "LimitExceeded",
        f"Maximum policy size of {limit} bytes exceeded for {kind} {holder}",
        409,
    )
    with_principal = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:*", "Resource": "*"}]}
    assert refusal(put, PolicyName="p", PolicyDocument=json.dumps(with_principal), **key)[:2] == (
        "MalformedPolicyDocument",
        "Policy document should not specify a principal.",
    )
    for policy in ("inline", "max"):
        getattr(iam, f"delete_{kind}_policy")(PolicyName=policy, **key)
    assert refusal(get, PolicyName="inline", **key) == (
        "NoSuchEntity",
        f"The {kind} policy with name inline cannot be found.",
        404,
    )
    delete(**key)


def test_instance_profiles_hold_one_role(iam):
    profile, role, other = name("profile"), name("ip-role"), name("ip-role")
    created = iam.create_instance_profile(InstanceProfileName=profile, Path="/ip/")["InstanceProfile"]
    assert re.fullmatch(r"AIPA[A-Z2-7]{17}", created["InstanceProfileId"])
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:instance-profile/ip/{profile}"
    assert created["Roles"] == []
    assert refusal(iam.create_instance_profile, InstanceProfileName=profile)[:2] == (
        "EntityAlreadyExists",
        f"Instance Profile {profile} already exists.",
    )
    for r in (role, other):
        iam.create_role(RoleName=r, AssumeRolePolicyDocument=TRUST)
    iam.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=role)
    assert refusal(iam.add_role_to_instance_profile, InstanceProfileName=profile, RoleName=other) == (
        "LimitExceeded",
        "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1",
        409,
    )
    got = iam.get_instance_profile(InstanceProfileName=profile)["InstanceProfile"]
    assert [r["RoleName"] for r in got["Roles"]] == [role]
    assert [p["InstanceProfileName"] for p in iam.list_instance_profiles_for_role(RoleName=role)["InstanceProfiles"]] == [profile]
    assert profile in [p["InstanceProfileName"] for p in iam.list_instance_profiles(PathPrefix="/ip/")["InstanceProfiles"]]
    must_remove = ("DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.", 409)
    assert refusal(iam.delete_role, RoleName=role) == must_remove
    assert refusal(iam.delete_instance_profile, InstanceProfileName=profile) == must_remove
    iam.remove_role_from_instance_profile(InstanceProfileName=profile, RoleName=role)
    iam.delete_instance_profile(InstanceProfileName=profile)
    assert refusal(iam.get_instance_profile, InstanceProfileName=profile) == (
        "NoSuchEntity",
        f"Instance Profile {profile} cannot be found.",
        404,
    )
    iam.delete_role(RoleName=role)


def test_access_keys(stratus, iam):
    user = name("keys")
    iam.create_user(UserName=user)
    first = iam.create_access_key(UserName=user)["AccessKey"]
    assert re.fullmatch(r"AKIA[A-Z2-7]{16}", first["AccessKeyId"])
    assert len(first["SecretAccessKey"]) == 40 and first["Status"] == "Active"
    second = iam.create_access_key(UserName=user)["AccessKey"]
    assert refusal(iam.create_access_key, UserName=user) == (
        "LimitExceeded",
        "Cannot exceed quota for AccessKeysPerUser: 2",
        409,
    )
    iam.update_access_key(UserName=user, AccessKeyId=first["AccessKeyId"], Status="Inactive")
    listed = {k["AccessKeyId"]: k["Status"] for k in iam.list_access_keys(UserName=user)["AccessKeyMetadata"]}
    assert listed == {first["AccessKeyId"]: "Inactive", second["AccessKeyId"]: "Active"}
    last = iam.get_access_key_last_used(AccessKeyId=first["AccessKeyId"])
    assert last["UserName"] == user and last["AccessKeyLastUsed"]["ServiceName"] == "N/A"
    # Signed with the user's own key, UserName may be left out.
    own = stratus.client("iam", aws_access_key_id=second["AccessKeyId"], aws_secret_access_key=second["SecretAccessKey"])
    assert own.get_user()["User"]["UserName"] == user
    assert len(own.list_access_keys()["AccessKeyMetadata"]) == 2
    assert refusal(iam.delete_user, UserName=user) == ("DeleteConflict", "Cannot delete entity, must delete access keys first.", 409)
    for k in (first, second):
        iam.delete_access_key(UserName=user, AccessKeyId=k["AccessKeyId"])
    assert refusal(iam.delete_access_key, UserName=user, AccessKeyId=first["AccessKeyId"]) == (
        "NoSuchEntity",
        f"The Access Key with id {first['AccessKeyId']} cannot be found.",
        404,
    )
    iam.delete_user(UserName=user)
    assert refusal(iam.get_user)[0] == "ValidationError"


def test_login_profiles(iam):
    user = name("console")
    iam.create_user(UserName=user)
    profile = iam.create_login_profile(UserName=user, Password="Secret-123", PasswordResetRequired=True)["LoginProfile"]
    assert profile["UserName"] == user and profile["PasswordResetRequired"] is True
    assert refusal(iam.create_login_profile, UserName=user, Password="x")[0] == "EntityAlreadyExists"
    iam.update_login_profile(UserName=user, PasswordResetRequired=False)
    assert iam.get_login_profile(UserName=user)["LoginProfile"]["PasswordResetRequired"] is False
    # https://github.com/cloud-custodian/cloud-custodian/issues/1663 — AWS's words.
    assert refusal(iam.delete_user, UserName=user) == ("DeleteConflict", "Cannot delete entity, must delete login profile first.", 409)
    iam.delete_login_profile(UserName=user)
    assert refusal(iam.get_login_profile, UserName=user) == (
        "NoSuchEntity",
        f"Login Profile for User {user} cannot be found.",
        404,
    )
    iam.delete_user(UserName=user)


def test_account_password_policy_alias_and_summary(iam):
    assert refusal(iam.get_account_password_policy)[0] == "NoSuchEntity"
    iam.update_account_password_policy(MinimumPasswordLength=12, RequireSymbols=True, MaxPasswordAge=90)
    policy = iam.get_account_password_policy()["PasswordPolicy"]
    assert (policy["MinimumPasswordLength"], policy["RequireSymbols"], policy["ExpirePasswords"]) == (12, True, True)
    iam.delete_account_password_policy()
    assert refusal(iam.delete_account_password_policy)[0] == "NoSuchEntity"
    # With a policy, console passwords must keep it.
    iam.update_account_password_policy(MinimumPasswordLength=10, RequireNumbers=True)
    user = name("policed")
    iam.create_user(UserName=user)
    assert refusal(iam.create_login_profile, UserName=user, Password="short1") == (
        "PasswordPolicyViolation",
        "Password should have a minimum length of 10",
        400,
    )
    assert refusal(iam.create_login_profile, UserName=user, Password="no-digits-here")[1] == "Password should have at least one number"
    iam.create_login_profile(UserName=user, Password="long-enough-1")
    assert refusal(iam.update_login_profile, UserName=user, Password="x")[0] == "PasswordPolicyViolation"
    iam.delete_login_profile(UserName=user)
    iam.delete_account_password_policy()
    iam.create_account_alias(AccountAlias="stratus-test")
    assert iam.list_account_aliases()["AccountAliases"] == ["stratus-test"]
    iam.delete_account_alias(AccountAlias="stratus-test")
    assert iam.list_account_aliases()["AccountAliases"] == []
    before = iam.get_account_summary()["SummaryMap"]
    iam.create_user(UserName=name("counted"))
    after = iam.get_account_summary()["SummaryMap"]
    assert after["Users"] == before["Users"] + 1
    assert (after["UsersQuota"], after["AccessKeysPerUserQuota"], after["PolicySizeQuota"]) == (5000, 2, 6144)


@pytest.mark.parametrize("service", ["codecommit.amazonaws.com", "cassandra.amazonaws.com"])
def test_service_specific_credentials(iam, service):
    user = name("git")
    iam.create_user(UserName=user)
    created = iam.create_service_specific_credential(UserName=user, ServiceName=service)["ServiceSpecificCredential"]
    credential = created["ServiceSpecificCredentialId"]
    assert re.fullmatch(r"ACCA[A-Z2-7]{17}", credential)
    # Recorded from AWS: the service's user name is USER-at-ACCOUNT.
    assert (created["ServiceUserName"], created["Status"], created["ServiceName"]) == (f"{user}-at-{ACCOUNT}", "Active", service)
    assert len(created["ServicePassword"]) == 44
    iam.update_service_specific_credential(UserName=user, ServiceSpecificCredentialId=credential, Status="Inactive")
    listing = iam.list_service_specific_credentials(UserName=user)
    # Recorded from AWS: a complete listing carries no IsTruncated, though the model requires it.
    assert "IsTruncated" not in listing
    listed = listing["ServiceSpecificCredentials"]
    assert [(c["ServiceSpecificCredentialId"], c["Status"]) for c in listed] == [(credential, "Inactive")]
    second = iam.create_service_specific_credential(UserName=user, ServiceName=service)["ServiceSpecificCredential"]
    first_page = iam.list_service_specific_credentials(UserName=user, MaxItems=1)
    assert (first_page["IsTruncated"], len(first_page["ServiceSpecificCredentials"])) == (True, 1)
    iam.delete_service_specific_credential(UserName=user, ServiceSpecificCredentialId=second["ServiceSpecificCredentialId"])
    assert "ServicePassword" not in listed[0]
    other = "codecommit.amazonaws.com" if service != "codecommit.amazonaws.com" else "cassandra.amazonaws.com"
    assert iam.list_service_specific_credentials(UserName=user, ServiceName=other)["ServiceSpecificCredentials"] == []
    reset = iam.reset_service_specific_credential(UserName=user, ServiceSpecificCredentialId=credential)
    assert reset["ServiceSpecificCredential"]["ServicePassword"] != created["ServicePassword"]
    assert refusal(iam.delete_user, UserName=user) == (
        "DeleteConflict",
        "Cannot delete entity, must remove referenced objects first.",
        409,
    )
    for call in (iam.reset_service_specific_credential, iam.delete_service_specific_credential):
        assert refusal(call, UserName=user, ServiceSpecificCredentialId="satisfiesregexbutstillinvalid") == (
            "NoSuchEntity",
            "No such credential satisfiesregexbutstillinvalid exists",
            404,
        )
    assert refusal(iam.update_service_specific_credential, ServiceSpecificCredentialId=credential, UserName="wrong-user-name", Status="Active")[1] == (
        "The user with name wrong-user-name cannot be found."
    )
    iam.delete_service_specific_credential(UserName=user, ServiceSpecificCredentialId=credential)
    iam.delete_user(UserName=user)


def test_service_specific_credentials_are_for_two_services(iam):
    user = name("git")
    iam.create_user(UserName=user)
    for service in ("lambda.amazonaws.com", "o3on3n3onosneo"):
        assert refusal(iam.create_service_specific_credential, UserName=user, ServiceName=service) == (
            "NoSuchEntity",
            f"No such service {service} is supported for Service Specific Credentials",
            404,
        )
    assert refusal(iam.create_service_specific_credential, UserName="non-existent-user", ServiceName="lambda.amazonaws.com")[1] == (
        "The user with name non-existent-user cannot be found."
    )


def test_service_linked_roles(iam):
    created = iam.create_service_linked_role(AWSServiceName="batch.amazonaws.com")["Role"]
    assert (created["RoleName"], created["Path"]) == ("AWSServiceRoleForBatch", "/aws-service-role/batch.amazonaws.com/")
    assert created["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "batch.amazonaws.com"}
    # Recorded from AWS.
    assert refusal(iam.create_service_linked_role, AWSServiceName="batch.amazonaws.com") == (
        "InvalidInput",
        "Service role name AWSServiceRoleForBatch has been taken in this account, please try a different suffix.",
        400,
    )
    assert refusal(iam.create_service_linked_role, AWSServiceName="acm.amazonaws.com", CustomSuffix="x") == (
        "InvalidInput",
        "Custom suffix is not allowed for acm.amazonaws.com",
        400,
    )
    assert refusal(iam.delete_role, RoleName="AWSServiceRoleForBatch")[:2] == (
        "UnmodifiableEntity",
        "Cannot perform the operation on the protected role 'AWSServiceRoleForBatch' - this role is only modifiable by AWS",
    )
    # The service's own AWS managed policy is attached, and no description unless one is given.
    assert "Description" not in iam.get_role(RoleName="AWSServiceRoleForBatch")["Role"]
    assert iam.list_attached_role_policies(RoleName="AWSServiceRoleForBatch")["AttachedPolicies"] == [
        {
            "PolicyName": "BatchServiceRolePolicy",
            "PolicyArn": "arn:aws:iam::aws:policy/aws-service-role/BatchServiceRolePolicy",
        }
    ]
    assert iam.list_role_policies(RoleName="AWSServiceRoleForBatch")["PolicyNames"] == []
    suffixed = iam.create_service_linked_role(AWSServiceName="autoscaling.amazonaws.com", CustomSuffix="web")["Role"]
    assert suffixed["RoleName"] == "AWSServiceRoleForAutoScaling_web"
    ssm = iam.create_service_linked_role(AWSServiceName="accountdiscovery.ssm.amazonaws.com", Description="mine")["Role"]
    assert (ssm["RoleName"], ssm["Description"]) == ("AWSServiceRoleForAmazonSSM_AccountDiscovery", "mine")
    iam.delete_service_linked_role(RoleName=ssm["RoleName"])
    task = iam.delete_service_linked_role(RoleName="AWSServiceRoleForBatch")["DeletionTaskId"]
    assert re.fullmatch(r"task/aws-service-role/batch\.amazonaws\.com/AWSServiceRoleForBatch/[0-9a-f-]{36}", task)
    assert iam.get_service_linked_role_deletion_status(DeletionTaskId=task)["Status"] == "SUCCEEDED"
    assert refusal(iam.get_role, RoleName="AWSServiceRoleForBatch")[0] == "NoSuchEntity"
    assert refusal(iam.create_service_linked_role, AWSServiceName="unknown.amazonaws.com") [0] == "NotImplemented"
    iam.delete_service_linked_role(RoleName="AWSServiceRoleForAutoScaling_web")


def test_open_id_connect_providers(iam):
    host = f"oidc-{uuid.uuid4().hex[:8]}.example.com/id"
    arn = iam.create_open_id_connect_provider(
        Url=f"https://{host}", ClientIDList=["sts.amazonaws.com"], ThumbprintList=["a" * 40], Tags=[{"Key": "k", "Value": "v"}]
    )["OpenIDConnectProviderArn"]
    assert arn == f"arn:aws:iam::{ACCOUNT}:oidc-provider/{host}"
    assert refusal(iam.create_open_id_connect_provider, Url=f"https://{host}", ThumbprintList=["a" * 40]) == (
        "EntityAlreadyExists",
        f"Provider with url https://{host} already exists.",
        409,
    )
    iam.add_client_id_to_open_id_connect_provider(OpenIDConnectProviderArn=arn, ClientID="app")
    iam.remove_client_id_from_open_id_connect_provider(OpenIDConnectProviderArn=arn, ClientID="sts.amazonaws.com")
    iam.update_open_id_connect_provider_thumbprint(OpenIDConnectProviderArn=arn, ThumbprintList=["b" * 40])
    got = iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert (got["Url"], got["ClientIDList"], got["ThumbprintList"]) == (host, ["app"], ["b" * 40])
    assert {"Arn": arn} in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]
    iam.tag_open_id_connect_provider(OpenIDConnectProviderArn=arn, Tags=[{"Key": "k2", "Value": "v2"}])
    iam.untag_open_id_connect_provider(OpenIDConnectProviderArn=arn, TagKeys=["k"])
    assert iam.list_open_id_connect_provider_tags(OpenIDConnectProviderArn=arn)["Tags"] == [{"Key": "k2", "Value": "v2"}]
    assert refusal(iam.update_open_id_connect_provider_thumbprint, OpenIDConnectProviderArn=arn, ThumbprintList=["c" * 40] * 6)[0] == (
        "LimitExceeded"
    )
    iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert refusal(iam.get_open_id_connect_provider, OpenIDConnectProviderArn=arn) == (
        "NoSuchEntity",
        f"OpenIDConnect Provider not found for arn {arn}",
        404,
    )


def test_account_authorization_details(iam):
    user, group, role = name("detail"), name("detail"), name("detail")
    iam.create_group(GroupName=group)
    iam.create_user(UserName=user)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="inline", PolicyDocument=json.dumps(ALLOW_S3))
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    iam.attach_role_policy(RoleName=role, PolicyArn=ADMIN)
    arn = iam.create_policy(PolicyName=name("detail"), PolicyDocument=json.dumps(ALLOW_S3))["Policy"]["Arn"]
    iam.attach_group_policy(GroupName=group, PolicyArn=arn)
    details = iam.get_account_authorization_details()
    users = {u["UserName"]: u for u in details["UserDetailList"]}
    assert users[user]["GroupList"] == [group]
    assert users[user]["UserPolicyList"] == [{"PolicyName": "inline", "PolicyDocument": ALLOW_S3}]
    groups = {g["GroupName"]: g for g in details["GroupDetailList"]}
    assert groups[group]["AttachedManagedPolicies"][0]["PolicyArn"] == arn
    roles = {r["RoleName"]: r for r in details["RoleDetailList"]}
    assert roles[role]["AssumeRolePolicyDocument"] == json.loads(TRUST)
    policies = {p["Arn"]: p for p in details["Policies"]}
    assert policies[arn]["PolicyVersionList"][0]["Document"] == ALLOW_S3
    assert policies[ADMIN]["AttachmentCount"] >= 1
    only_roles = iam.get_account_authorization_details(Filter=["Role"])
    assert only_roles["UserDetailList"] == [] and only_roles["Policies"] == []
    paged = iam.get_paginator("get_account_authorization_details").paginate(PaginationConfig={"PageSize": 2})
    assert sum(len(p["UserDetailList"]) for p in paged) == len(details["UserDetailList"])


def test_virtual_mfa_devices(iam):
    user, device = name("mfa"), name("mfa")
    iam.create_user(UserName=user)
    created = iam.create_virtual_mfa_device(VirtualMFADeviceName=device, Path="/m/", Tags=[{"Key": "k", "Value": "v"}])["VirtualMFADevice"]
    serial = created["SerialNumber"]
    assert serial == f"arn:aws:iam::{ACCOUNT}:mfa/m/{device}"
    assert re.fullmatch(rb"[A-Z2-7]{64}", created["Base32StringSeed"])
    iam.enable_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1="123456", AuthenticationCode2="654321")
    assert refusal(iam.enable_mfa_device, UserName=user, SerialNumber=serial, AuthenticationCode1="123456", AuthenticationCode2="654321")[0] == (
        "EntityAlreadyExists"
    )
    assert [d["SerialNumber"] for d in iam.list_mfa_devices(UserName=user)["MFADevices"]] == [serial]
    assigned = iam.list_virtual_mfa_devices(AssignmentStatus="Assigned")["VirtualMFADevices"]
    assert [d["User"]["UserName"] for d in assigned if d["SerialNumber"] == serial] == [user]
    assert iam.get_mfa_device(SerialNumber=serial)["UserName"] == user
    iam.resync_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1="111111", AuthenticationCode2="222222")
    # https://github.com/rebuy-de/aws-nuke/issues/281 — AWS's words.
    assert refusal(iam.delete_user, UserName=user) == ("DeleteConflict", "Cannot delete entity, must delete MFA device first.", 409)
    assert refusal(iam.delete_virtual_mfa_device, SerialNumber=serial)[0] == "DeleteConflict"
    iam.tag_mfa_device(SerialNumber=serial, Tags=[{"Key": "k2", "Value": "v2"}])
    iam.untag_mfa_device(SerialNumber=serial, TagKeys=["k"])
    assert iam.list_mfa_device_tags(SerialNumber=serial)["Tags"] == [{"Key": "k2", "Value": "v2"}]
    iam.deactivate_mfa_device(UserName=user, SerialNumber=serial)
    assert iam.list_mfa_devices(UserName=user)["MFADevices"] == []
    assert serial in [d["SerialNumber"] for d in iam.list_virtual_mfa_devices(AssignmentStatus="Unassigned")["VirtualMFADevices"]]
    iam.delete_virtual_mfa_device(SerialNumber=serial)
    assert refusal(iam.get_mfa_device, SerialNumber=serial)[0] == "NoSuchEntity"
    iam.delete_user(UserName=user)


def test_credential_report():
    # A server of its own: the report is the account's, and other tests' users would show.
    server = Stratus("--ephemeral")
    try:
        iam = server.client("iam")
        assert refusal(iam.get_credential_report)[0::2] == ("ReportNotPresent", 410)
        user = name("reported")
        iam.create_user(UserName=user)
        iam.create_access_key(UserName=user)
        iam.upload_signing_certificate(UserName=user, CertificateBody=CERTIFICATE)
        assert iam.generate_credential_report()["State"] == "STARTED"
        assert iam.generate_credential_report()["State"] == "COMPLETE"
        report = iam.get_credential_report()
        assert report["ReportFormat"] == "text/csv"
        lines = report["Content"].decode().splitlines()
        assert lines[0].startswith("user,arn,user_creation_time,password_enabled")
        assert lines[1].startswith(f"<root_account>,arn:aws:iam::{ACCOUNT}:root,")
        row = dict(zip(lines[0].split(","), lines[2].split(",")))
        assert (row["user"], row["password_enabled"], row["mfa_active"], row["access_key_1_active"]) == (user, "false", "false", "true")
        assert row["access_key_2_active"] == "false"
        assert (row["cert_1_active"], row["cert_2_active"]) == ("true", "false")
    finally:
        server.stop()


def ssh_key(seed):
    """An OpenSSH ed25519 public key line and its MD5 fingerprint, computed here."""
    blob = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + bytes([seed]) * 32
    digest = hashlib.md5(blob).hexdigest()
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} me@host", ":".join(digest[i : i + 2] for i in range(0, 32, 2))


def test_ssh_public_keys(iam):
    user = name("ssh")
    iam.create_user(UserName=user)
    body, fingerprint = ssh_key(1)
    uploaded = iam.upload_ssh_public_key(UserName=user, SSHPublicKeyBody=body)["SSHPublicKey"]
    key_id = uploaded["SSHPublicKeyId"]
    assert re.fullmatch(r"APKA[A-Z2-7]{17}", key_id)
    assert (uploaded["Fingerprint"], uploaded["Status"]) == (fingerprint, "Active")
    assert refusal(iam.upload_ssh_public_key, UserName=user, SSHPublicKeyBody=body)[0] == "DuplicateSSHPublicKey"
    assert refusal(iam.upload_ssh_public_key, UserName=user, SSHPublicKeyBody="not a key")[0] == "InvalidPublicKey"
    iam.update_ssh_public_key(UserName=user, SSHPublicKeyId=key_id, Status="Inactive")
    got = iam.get_ssh_public_key(UserName=user, SSHPublicKeyId=key_id, Encoding="SSH")["SSHPublicKey"]
    assert (got["SSHPublicKeyBody"], got["Status"]) == (body, "Inactive")
    assert [k["SSHPublicKeyId"] for k in iam.list_ssh_public_keys(UserName=user)["SSHPublicKeys"]] == [key_id]
    for seed in range(2, 6):
        iam.upload_ssh_public_key(UserName=user, SSHPublicKeyBody=ssh_key(seed)[0])
    assert refusal(iam.upload_ssh_public_key, UserName=user, SSHPublicKeyBody=ssh_key(6)[0])[1] == (
        "Cannot exceed quota for PublicKeysPerUser: 5"
    )
    # https://github.com/rebuy-de/aws-nuke/issues/470 — AWS's words.
    assert refusal(iam.delete_user, UserName=user)[1] == "Cannot delete entity, must remove referenced objects first."
    for k in iam.list_ssh_public_keys(UserName=user)["SSHPublicKeys"]:
        iam.delete_ssh_public_key(UserName=user, SSHPublicKeyId=k["SSHPublicKeyId"])
    assert refusal(iam.get_ssh_public_key, UserName=user, SSHPublicKeyId=key_id, Encoding="SSH")[0] == "NoSuchEntity"
    iam.delete_user(UserName=user)


def test_server_certificates(iam):
    cert = name("cert")
    uploaded = iam.upload_server_certificate(
        ServerCertificateName=cert,
        Path="/web/",
        CertificateBody=CERTIFICATE,
        PrivateKey=CERTIFICATE_KEY,
        Tags=[{"Key": "team", "Value": "a"}],
    )
    metadata = uploaded["ServerCertificateMetadata"]
    assert re.fullmatch(r"ASCA[A-Z2-7]{17}", metadata["ServerCertificateId"])
    assert metadata["Arn"] == f"arn:aws:iam::{ACCOUNT}:server-certificate/web/{cert}"
    # The test certificate's notAfter (openssl x509 -enddate).
    assert metadata["Expiration"].isoformat() == "2036-11-28T18:43:16+00:00"
    assert uploaded["Tags"] == [{"Key": "team", "Value": "a"}]
    assert refusal(
        iam.upload_server_certificate, ServerCertificateName=cert, CertificateBody=CERTIFICATE, PrivateKey=CERTIFICATE_KEY
    )[0::2] == ("EntityAlreadyExists", 409)
    other = name("cert")
    assert refusal(
        iam.upload_server_certificate, ServerCertificateName=other, CertificateBody=CERTIFICATE, PrivateKey=OTHER_KEY
    )[0::2] == ("KeyPairMismatch", 400)
    assert refusal(
        iam.upload_server_certificate, ServerCertificateName=other, CertificateBody="junk", PrivateKey=CERTIFICATE_KEY
    )[0::2] == ("MalformedCertificate", 400)

    got = iam.get_server_certificate(ServerCertificateName=cert.upper())["ServerCertificate"]
    assert got["CertificateBody"] == CERTIFICATE
    assert got["ServerCertificateMetadata"]["ServerCertificateName"] == cert
    assert "PrivateKey" not in got
    listed = iam.list_server_certificates(PathPrefix="/web/")["ServerCertificateMetadataList"]
    assert [c["ServerCertificateName"] for c in listed] == [cert]
    assert iam.list_server_certificates(PathPrefix="/elsewhere/")["ServerCertificateMetadataList"] == []

    iam.tag_server_certificate(ServerCertificateName=cert, Tags=[{"Key": "env", "Value": "dev"}])
    iam.untag_server_certificate(ServerCertificateName=cert, TagKeys=["team"])
    assert iam.list_server_certificate_tags(ServerCertificateName=cert)["Tags"] == [{"Key": "env", "Value": "dev"}]

    renamed = name("cert")
    iam.update_server_certificate(ServerCertificateName=cert, NewServerCertificateName=renamed, NewPath="/api/")
    assert refusal(iam.get_server_certificate, ServerCertificateName=cert)[0::2] == ("NoSuchEntity", 404)
    moved = iam.get_server_certificate(ServerCertificateName=renamed)["ServerCertificate"]["ServerCertificateMetadata"]
    assert (moved["Path"], moved["ServerCertificateId"]) == ("/api/", metadata["ServerCertificateId"])
    iam.delete_server_certificate(ServerCertificateName=renamed)
    assert refusal(iam.delete_server_certificate, ServerCertificateName=renamed)[0] == "NoSuchEntity"


def test_server_certificates_page_and_have_a_quota():
    server = Stratus("--ephemeral")
    try:
        iam = server.client("iam")
        for i in range(20):
            iam.upload_server_certificate(
                ServerCertificateName=f"c{i:02}", CertificateBody=CERTIFICATE, PrivateKey=CERTIFICATE_KEY
            )
        assert iam.get_account_summary()["SummaryMap"]["ServerCertificates"] == 20
        assert refusal(
            iam.upload_server_certificate, ServerCertificateName="one-more", CertificateBody=CERTIFICATE, PrivateKey=CERTIFICATE_KEY
        )[0::2] == ("LimitExceeded", 409)
        first = iam.list_server_certificates(MaxItems=15)
        assert first["IsTruncated"] and len(first["ServerCertificateMetadataList"]) == 15
        rest = iam.list_server_certificates(Marker=first["Marker"])
        assert [c["ServerCertificateName"] for c in rest["ServerCertificateMetadataList"]] == [f"c{i}" for i in range(15, 20)]
    finally:
        server.stop()


def test_certificates_survive_a_restart(tmp_path):
    first = Stratus("--data-dir", str(tmp_path))
    try:
        iam = first.client("iam")
        iam.upload_server_certificate(ServerCertificateName="kept", CertificateBody=CERTIFICATE, PrivateKey=CERTIFICATE_KEY)
        iam.create_user(UserName="signer")
        cert_id = iam.upload_signing_certificate(UserName="signer", CertificateBody=CERTIFICATE)["Certificate"]["CertificateId"]
    finally:
        first.stop()
    second = Stratus("--data-dir", str(tmp_path))
    try:
        iam = second.client("iam")
        assert iam.get_server_certificate(ServerCertificateName="kept")["ServerCertificate"]["CertificateBody"] == CERTIFICATE
        listed = iam.list_signing_certificates(UserName="signer")["Certificates"]
        assert [c["CertificateId"] for c in listed] == [cert_id]
    finally:
        second.stop()


def test_signing_certificates(iam):
    user = name("signer")
    iam.create_user(UserName=user)
    uploaded = iam.upload_signing_certificate(UserName=user, CertificateBody=CERTIFICATE)["Certificate"]
    cert_id = uploaded["CertificateId"]
    assert (uploaded["UserName"], uploaded["Status"], uploaded["CertificateBody"]) == (user, "Active", CERTIFICATE)
    assert refusal(iam.upload_signing_certificate, UserName=user, CertificateBody=CERTIFICATE)[0] == "DuplicateCertificate"
    # Nor may another user of the account hold it.
    other = name("signer")
    iam.create_user(UserName=other)
    assert refusal(iam.upload_signing_certificate, UserName=other, CertificateBody=CERTIFICATE)[0::2] == (
        "DuplicateCertificate",
        409,
    )
    iam.delete_user(UserName=other)
    assert refusal(iam.upload_signing_certificate, UserName=user, CertificateBody="junk")[0] == "MalformedCertificate"
    iam.upload_signing_certificate(UserName=user, CertificateBody=OTHER_CERTIFICATE)
    assert refusal(iam.upload_signing_certificate, UserName=user, CertificateBody=EC_CERTIFICATE)[0::2] == (
        "LimitExceeded",
        409,
    )
    iam.delete_signing_certificate(
        UserName=user,
        CertificateId=next(
            c["CertificateId"] for c in iam.list_signing_certificates(UserName=user)["Certificates"] if c["CertificateId"] != cert_id
        ),
    )
    iam.update_signing_certificate(UserName=user, CertificateId=cert_id, Status="Inactive")
    listed = iam.list_signing_certificates(UserName=user)["Certificates"]
    assert [(c["CertificateId"], c["Status"]) for c in listed] == [(cert_id, "Inactive")]
    assert refusal(iam.delete_user, UserName=user)[0] == "DeleteConflict"
    assert refusal(iam.delete_signing_certificate, UserName=user, CertificateId="NOSUCHCERTIFICATE" + "A" * 11)[0::2] == (
        "NoSuchEntity",
        404,
    )
    iam.delete_signing_certificate(UserName=user, CertificateId=cert_id)
    assert iam.list_signing_certificates(UserName=user)["Certificates"] == []
    iam.delete_user(UserName=user)


def test_security_token_service_preferences(iam):
    iam.set_security_token_service_preferences(GlobalEndpointTokenVersion="v2Token")
    assert iam.get_account_summary()["SummaryMap"]["GlobalEndpointTokenVersion"] == 2
    iam.set_security_token_service_preferences(GlobalEndpointTokenVersion="v1Token")
    assert iam.get_account_summary()["SummaryMap"]["GlobalEndpointTokenVersion"] == 1


def test_outbound_web_identity_federation():
    server = Stratus("--ephemeral")
    try:
        iam = server.client("iam")
        assert refusal(iam.get_outbound_web_identity_federation_info)[0::2] == ("FeatureDisabled", 404)
        issuer = iam.enable_outbound_web_identity_federation()["IssuerIdentifier"]
        assert re.fullmatch(r"https://[0-9a-f-]{36}\.tokens\.sts\.global\.api\.aws", issuer)
        assert refusal(iam.enable_outbound_web_identity_federation)[0::2] == ("FeatureEnabled", 409)
        info = iam.get_outbound_web_identity_federation_info()
        assert (info["IssuerIdentifier"], info["JwtVendingEnabled"]) == (issuer, True)
        iam.disable_outbound_web_identity_federation()
        assert refusal(iam.disable_outbound_web_identity_federation)[0] == "FeatureDisabled"
        assert iam.enable_outbound_web_identity_federation()["IssuerIdentifier"] == issuer
    finally:
        server.stop()


def test_policy_simulation(iam):
    put_only = json.dumps({"Version": "2012-10-17", "Statement": {"Sid": "", "Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}})
    arn = iam.create_policy(PolicyName=name("sim"), PolicyDocument=put_only)["Policy"]["Arn"]
    user, group = name("sim"), name("sim")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.attach_group_policy(GroupName=group, PolicyArn=arn)
    user_arn = iam.get_user(UserName=user)["User"]["Arn"]
    results = iam.simulate_principal_policy(
        PolicySourceArn=user_arn, ActionNames=["s3:PutObject", "s3:GetObjectVersion"], ResourceArns=["arn:aws:s3:::bucket"]
    )["EvaluationResults"]
    # As recorded from AWS for the same policy: allowed, and an implicit deny.
    assert [(r["EvalActionName"], r["EvalDecision"]) for r in results] == [("s3:PutObject", "allowed"), ("s3:GetObjectVersion", "implicitDeny")]
    assert results[0]["ResourceSpecificResults"][0]["EvalResourceDecision"] == "allowed"
    # The deciding statement, where it lies in the document as AWS counts: just past its braces.
    assert results[0]["MatchedStatements"] == [
        {
            "SourcePolicyId": arn.rsplit("/", 1)[1],
            "SourcePolicyType": "IAM Policy",
            "StartPosition": {"Line": 1, "Column": 41},
            "EndPosition": {"Line": 1, "Column": 113},
        }
    ]
    assert results[0]["ResourceSpecificResults"][0]["MatchedStatements"] == results[0]["MatchedStatements"]
    assert results[1]["MatchedStatements"] == []
    deny = json.dumps({"Version": "2012-10-17", "Statement": {"Effect": "Deny", "Action": "s3:*", "Resource": "*"}})
    denied = iam.simulate_principal_policy(PolicySourceArn=user_arn, ActionNames=["s3:PutObject"], PolicyInputList=[deny])
    assert denied["EvaluationResults"][0]["EvalDecision"] == "explicitDeny"
    [deciding] = denied["EvaluationResults"][0]["MatchedStatements"]
    assert (deciding["SourcePolicyId"], deciding["StartPosition"]) == ("PolicyInputList.1", {"Line": 1, "Column": 41})
    custom = iam.simulate_custom_policy(PolicyInputList=[put_only], ActionNames=["s3:PutObject", "sqs:SendMessage"])
    assert [r["EvalDecision"] for r in custom["EvaluationResults"]] == ["allowed", "implicitDeny"]
    assert refusal(iam.simulate_custom_policy, PolicyInputList=["{}"], ActionNames=["s3:PutObject"])[0] == "InvalidInput"
    missing = f"arn:aws:iam::{ACCOUNT}:user/nobody"
    assert refusal(iam.simulate_principal_policy, PolicySourceArn=missing, ActionNames=["s3:PutObject"])[0] == "NoSuchEntity"


def test_saml_providers(iam):
    provider = name("idp")
    metadata = '<?xml version="1.0"?><EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com">' + " " * 1000 + "</EntityDescriptor>"
    arn = iam.create_saml_provider(Name=provider, SAMLMetadataDocument=metadata, Tags=[{"Key": "k", "Value": "v"}])["SAMLProviderArn"]
    assert arn == f"arn:aws:iam::{ACCOUNT}:saml-provider/{provider}"
    assert refusal(iam.create_saml_provider, Name=provider, SAMLMetadataDocument=metadata)[0] == "EntityAlreadyExists"
    got = iam.get_saml_provider(SAMLProviderArn=arn)
    assert got["SAMLMetadataDocument"] == metadata and re.fullmatch(r"[0-9a-f-]{36}", got["SAMLProviderUUID"])
    assert arn in [p["Arn"] for p in iam.list_saml_providers()["SAMLProviderList"]]
    updated = metadata.replace("idp.example.com", "idp2.example.com")
    assert iam.update_saml_provider(SAMLProviderArn=arn, SAMLMetadataDocument=updated)["SAMLProviderArn"] == arn
    assert iam.get_saml_provider(SAMLProviderArn=arn)["SAMLMetadataDocument"] == updated
    iam.tag_saml_provider(SAMLProviderArn=arn, Tags=[{"Key": "k2", "Value": "v2"}])
    iam.untag_saml_provider(SAMLProviderArn=arn, TagKeys=["k"])
    assert iam.list_saml_provider_tags(SAMLProviderArn=arn)["Tags"] == [{"Key": "k2", "Value": "v2"}]
    iam.delete_saml_provider(SAMLProviderArn=arn)
    assert refusal(iam.get_saml_provider, SAMLProviderArn=arn)[0::2] == ("NoSuchEntity", 404)


def test_organizations_features_need_an_organization(iam):
    for call in (
        iam.list_organizations_features,
        iam.enable_organizations_root_sessions,
        iam.disable_organizations_root_sessions,
        iam.enable_organizations_root_credentials_management,
        iam.disable_organizations_root_credentials_management,
    ):
        with pytest.raises(iam.exceptions.OrganizationNotFoundException):
            call()


def test_delegation_requests_are_for_onboarded_partners(iam):
    # CreateDelegationRequest "is not available for general use" (its API reference): no
    # delegation request can exist, so none is listed and none is found by id.
    code, _, status = refusal(
        iam.create_delegation_request,
        Description="d",
        Permissions={"PolicyTemplateArn": "arn:aws:iam::aws:policy/ReadOnlyAccess"},
        RequestorWorkflowId="workflow-1",
        NotificationChannel="arn:aws:sns:us-east-1:123456789012:t",
        SessionDuration=3600,
    )
    assert (code, status) == ("AccessDenied", 403)
    assert iam.list_delegation_requests()["DelegationRequests"] == []
    for call in (
        iam.get_delegation_request,
        iam.accept_delegation_request,
        iam.associate_delegation_request,
        iam.reject_delegation_request,
        iam.update_delegation_request,
        iam.send_delegation_token,
    ):
        assert refusal(call, DelegationRequestId="dr-1234567890abcdef")[0::2] == ("NoSuchEntity", 404), call
    arn = f"arn:aws:iam::{ACCOUNT}:delegation-request/dr-1234567890abcdef"
    assert refusal(iam.get_human_readable_summary, EntityArn=arn)[0] == "NoSuchEntity"
    assert refusal(iam.get_human_readable_summary, EntityArn=f"arn:aws:iam::{ACCOUNT}:user/x")[0] == "InvalidInput"


def test_organizations_access_reports_need_an_organization(iam):
    with pytest.raises(iam.exceptions.OrganizationNotFoundException):
        iam.generate_organizations_access_report(EntityPath="o-a1b2c3d4e5/r-f6g7h8i9j0example")
    assert refusal(iam.get_organizations_access_report, JobId="00000000-0000-0000-0000-000000000000")[0] == "NoSuchEntity"


def test_context_keys_for_policies(iam):
    # The GetContextKeysForCustomPolicy CLI example (IAM User Guide).
    example = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": {
                "Effect": "Allow",
                "Action": "dynamodb:*",
                "Resource": "arn:aws:dynamodb:us-west-2:123456789012:table/${aws:username}",
                "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2015-08-16T12:00:00Z"}},
            },
        }
    )
    keys = iam.get_context_keys_for_custom_policy(PolicyInputList=[example])["ContextKeyNames"]
    assert keys == ["aws:username", "aws:CurrentTime"]
    assert refusal(iam.get_context_keys_for_custom_policy, PolicyInputList=["{"])[0] == "InvalidInput"
    user = name("keys")
    arn = iam.create_user(UserName=user)["User"]["Arn"]
    mfa = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*", "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}}}],
    }
    iam.put_user_policy(UserName=user, PolicyName="mfa", PolicyDocument=json.dumps(mfa))
    keys = iam.get_context_keys_for_principal_policy(PolicySourceArn=arn, PolicyInputList=[example])["ContextKeyNames"]
    assert keys == ["aws:MultiFactorAuthPresent", "aws:username", "aws:CurrentTime"]
    iam.delete_user_policy(UserName=user, PolicyName="mfa")
    iam.delete_user(UserName=user)


def test_users_change_their_own_password(stratus, iam):
    user = name("pw")
    iam.create_user(UserName=user)
    iam.create_login_profile(UserName=user, Password="First-pass-1", PasswordResetRequired=True)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    own = stratus.client("iam", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    assert refusal(own.change_password, OldPassword="wrong", NewPassword="Second-pass-2")[0] == "AccessDenied"
    own.change_password(OldPassword="First-pass-1", NewPassword="Second-pass-2")
    assert iam.get_login_profile(UserName=user)["LoginProfile"].get("PasswordResetRequired") is not True
    assert refusal(own.change_password, OldPassword="First-pass-1", NewPassword="Third-pass-3")[0] == "AccessDenied"
    own.change_password(OldPassword="Second-pass-2", NewPassword="Third-pass-3")
    # Only IAM users have a password of their own to change (the test's root credentials).
    assert refusal(iam.change_password, OldPassword="a", NewPassword="b")[0] == "InvalidUserType"
    iam.delete_login_profile(UserName=user)
    assert refusal(own.change_password, OldPassword="Third-pass-3", NewPassword="Fourth-pass-4")[0::2] == (
        "NoSuchEntity",
        404,
    )
    iam.delete_access_key(UserName=user, AccessKeyId=key["AccessKeyId"])
    iam.delete_user(UserName=user)


def test_a_changed_password_shows_in_the_credential_report():
    server = Stratus("--ephemeral", "--clock", "manual")
    try:
        iam = server.client("iam")
        iam.create_user(UserName="changer")
        iam.create_login_profile(UserName="changer", Password="First-pass-1")
        key = iam.create_access_key(UserName="changer")["AccessKey"]
        server.advance(3600)
        own = server.client("iam", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
        own.change_password(OldPassword="First-pass-1", NewPassword="Second-pass-2")
        iam.generate_credential_report()
        iam.generate_credential_report()
        lines = iam.get_credential_report()["Content"].decode().splitlines()
        row = dict(zip(lines[0].split(","), lines[2].split(",")))
        created = datetime.datetime.fromisoformat(row["user_creation_time"])
        changed = datetime.datetime.fromisoformat(row["password_last_changed"])
        assert changed - created >= datetime.timedelta(seconds=3600)
    finally:
        server.stop()


def test_service_last_accessed_and_policies_granting_access(iam):
    user, group = name("advised"), name("advisors")
    arn = iam.create_user(UserName=user)["User"]["Arn"]
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="queues", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["sqs:SendMessage", "ec2:Describe*"], "Resource": "*"}]}
    ))
    iam.put_group_policy(GroupName=group, PolicyName="buckets", PolicyDocument=json.dumps(ALLOW_S3))
    job = iam.generate_service_last_accessed_details(Arn=arn)["JobId"]
    report = iam.get_service_last_accessed_details(JobId=job)
    assert report["JobStatus"] == "COMPLETED"
    services = {s["ServiceNamespace"]: s for s in report["ServicesLastAccessed"]}
    assert sorted(services) == ["ec2", "s3", "sqs"]
    assert services["s3"]["ServiceName"] == "Amazon S3"
    # Stratus records no use: each service is as AWS reports one nobody used.
    assert "LastAuthenticated" not in services["s3"] and services["s3"]["TotalAuthenticatedEntities"] == 0
    page = iam.get_service_last_accessed_details(JobId=job, MaxItems=2)
    assert page["IsTruncated"] and len(page["ServicesLastAccessed"]) == 2
    entities = iam.get_service_last_accessed_details_with_entities(JobId=job, ServiceNamespace="s3")["EntityDetailsList"]
    assert [(e["EntityInfo"]["Name"], e["EntityInfo"]["Type"]) for e in entities] == [(user, "USER")]
    assert refusal(iam.get_service_last_accessed_details, JobId="00000000-0000-4000-8000-000000000000")[0] == "NoSuchEntity"
    assert refusal(iam.generate_service_last_accessed_details, Arn=f"arn:aws:iam::{ACCOUNT}:user/nobody")[0] == "NoSuchEntity"

    granting = iam.list_policies_granting_service_access(Arn=arn, ServiceNamespaces=["s3", "sqs", "dynamodb"])
    by_service = {e["ServiceNamespace"]: e["Policies"] for e in granting["PoliciesGrantingServiceAccess"]}
    assert [(p["PolicyName"], p["PolicyType"], p["EntityType"], p["EntityName"]) for p in by_service["s3"]] == [
        ("buckets", "INLINE", "GROUP", group)
    ]
    assert [(p["PolicyName"], p["EntityType"]) for p in by_service["sqs"]] == [("queues", "USER")]
    assert by_service["dynamodb"] == []
    iam.delete_user_policy(UserName=user, PolicyName="queues")
    iam.delete_group_policy(GroupName=group, PolicyName="buckets")
    iam.remove_user_from_group(GroupName=group, UserName=user)
    iam.delete_group(GroupName=group)
    iam.delete_user(UserName=user)


def test_what_is_not_served_is_refused_as_not_implemented(iam):
    # Every operation of the model is served; within one, what Stratus lacks says so.
    user = name("pem")
    iam.create_user(UserName=user)
    key_id = iam.upload_ssh_public_key(UserName=user, SSHPublicKeyBody=ssh_key(9)[0])["SSHPublicKey"]["SSHPublicKeyId"]
    code, message, status = refusal(iam.get_ssh_public_key, UserName=user, SSHPublicKeyId=key_id, Encoding="PEM")
    assert (code, status) == ("NotImplemented", 501) and "SSH encoding" in message
    iam.delete_ssh_public_key(UserName=user, SSHPublicKeyId=key_id)
    iam.delete_user(UserName=user)


def test_raw_query_documents_are_url_encoded(stratus, iam):
    user = name("raw")
    iam.create_user(UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="p", PolicyDocument=json.dumps(ALLOW_S3))
    import urllib.request

    body = urllib.parse.urlencode({"Action": "GetUserPolicy", "Version": "2010-05-08", "UserName": user, "PolicyName": "p"})
    request = urllib.request.Request(stratus.endpoint, data=body.encode(), headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request) as response:
        xml = response.read().decode()
    raw = re.search(r"<PolicyDocument>(.*)</PolicyDocument>", xml).group(1)
    assert raw.startswith("%7B%22Version%22%3A%20%222012-10-17%22")
    assert json.loads(urllib.parse.unquote(raw)) == ALLOW_S3


def test_aws_cli_users_roles_and_policies(stratus):
    user, role = name("cli"), name("cli")
    rc, out, err = cli(stratus, "iam", "create-user", "--user-name", user, "--tags", "Key=k,Value=v")
    assert rc == 0, err
    assert out["User"]["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/{user}"
    rc, out, err = cli(stratus, "iam", "create-role", "--role-name", role, "--assume-role-policy-document", TRUST)
    assert rc == 0, err
    rc, _, err = cli(stratus, "iam", "attach-role-policy", "--role-name", role, "--policy-arn", ADMIN)
    assert rc == 0, err
    rc, out, err = cli(stratus, "iam", "list-attached-role-policies", "--role-name", role)
    assert rc == 0, err
    assert out["AttachedPolicies"] == [{"PolicyName": "AdministratorAccess", "PolicyArn": ADMIN}]
    rc, out, err = cli(stratus, "iam", "list-users", "--max-items", "1")
    assert rc == 0, err
    assert len(out["Users"]) == 1
    rc, _, err = cli(stratus, "iam", "delete-role", "--role-name", role)
    assert rc != 0 and "DeleteConflict" in err
