"""STS through boto3 and the AWS CLI, against the real binary."""

import datetime
import json
import os
import subprocess
import sys

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT

ROLE = "arn:aws:iam::123456789012:role/service/Deployer"
TRUST_EVERYONE = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
)


@pytest.fixture(scope="module", autouse=True)
def deployer_role(stratus):
    """STS issues sessions only for roles IAM has: the role the tests assume, made in its account
    (a 12-digit access key signs as that account)."""
    iam = stratus.client("iam", aws_access_key_id="123456789012")
    return iam.create_role(Path="/service/", RoleName="Deployer", AssumeRolePolicyDocument=TRUST_EVERYONE)["Role"]


def test_caller_identity_of_long_term_keys_is_the_account_root(sts):
    who = sts.get_caller_identity()
    assert who["Account"] == ACCOUNT
    assert who["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"
    assert who["UserId"] == ACCOUNT
    assert who["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert len(who["ResponseMetadata"]["RequestId"]) == 36


def test_assume_role_issues_remembered_credentials(stratus, sts, deployer_role):
    out = sts.assume_role(RoleArn=ROLE, RoleSessionName="ci-run", DurationSeconds=900)
    creds = out["Credentials"]
    assert creds["AccessKeyId"].startswith("ASIA") and len(creds["AccessKeyId"]) == 20
    assert len(creds["SecretAccessKey"]) == 40
    remaining = creds["Expiration"] - datetime.datetime.now(datetime.timezone.utc)
    assert datetime.timedelta(seconds=880) < remaining <= datetime.timedelta(seconds=900)
    user = out["AssumedRoleUser"]
    assert user["Arn"] == "arn:aws:sts::123456789012:assumed-role/Deployer/ci-run"
    assert user["AssumedRoleId"] == f"{deployer_role['RoleId']}:ci-run"

    as_role = stratus.client(
        "sts",
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )
    who = as_role.get_caller_identity()
    assert who["Arn"] == user["Arn"]
    assert who["UserId"] == user["AssumedRoleId"]
    assert who["Account"] == "123456789012"

    # Session credentials cannot ask for more session credentials.
    with pytest.raises(ClientError) as err:
        as_role.get_session_token()
    assert err.value.response["Error"]["Code"] == "AccessDenied"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_a_role_iam_does_not_have_is_denied(sts):
    # AWS answers a missing role as a role that does not trust the caller.
    missing = "arn:aws:iam::123456789012:role/service/Nobody"
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn=missing, RoleSessionName="ss")
    assert err.value.response["Error"]["Code"] == "AccessDenied"
    assert err.value.response["Error"]["Message"] == (
        f"User: arn:aws:iam::{ACCOUNT}:root is not authorized to perform: sts:AssumeRole on resource: {missing}"
    )
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    # The path is part of the role's ARN.
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/Deployer", RoleSessionName="ss")
    assert err.value.response["Error"]["Code"] == "AccessDenied"


def test_sessions_are_no_longer_than_the_role_allows(sts):
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn=ROLE, RoleSessionName="long", DurationSeconds=7200)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert err.value.response["Error"]["Message"] == (
        "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."
    )


def test_role_ids_are_stable_per_role(sts):
    a = sts.assume_role(RoleArn=ROLE, RoleSessionName="one")["AssumedRoleUser"]["AssumedRoleId"]
    b = sts.assume_role(RoleArn=ROLE, RoleSessionName="two")["AssumedRoleUser"]["AssumedRoleId"]
    assert a.split(":")[0] == b.split(":")[0]


def test_validation_errors_are_awss(sts):
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn=ROLE, RoleSessionName="a", DurationSeconds=60)
    error = err.value.response["Error"]
    assert error["Code"] == "ValidationError"
    assert error["Type"] == "Sender"
    assert error["Message"] == (
        "2 validation errors detected: "
        "Value 'a' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2; "
        "Value '60' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"
    )
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_pattern_violations_quote_the_pattern_as_sts_does(sts):
    # STS quotes `[\w+=,.@-]*`, without the anchors its Smithy model puts around it.
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn=ROLE, RoleSessionName="bad:name")
    assert err.value.response["Error"]["Message"] == (
        "1 validation error detected: Value 'bad:name' at 'roleSessionName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\w+=,.@-]*"
    )


def test_malformed_role_arn_and_policy(sts):
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn="arn:aws:iam::123456789012:user/not-a-role", RoleSessionName="ss")
    assert err.value.response["Error"]["Code"] == "ValidationError"
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn="arn:aws:iam::123456789012:", RoleSessionName="ss")
    assert err.value.response["Error"]["Message"] == "arn:aws:iam::123456789012: is invalid"
    with pytest.raises(ClientError) as err:
        sts.assume_role(RoleArn=ROLE, RoleSessionName="ss", Policy="{not json")
    assert err.value.response["Error"]["Code"] == "MalformedPolicyDocument"


def test_session_policy_reports_packed_size(sts):
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    out = sts.assume_role(RoleArn=ROLE, RoleSessionName="scoped", Policy=json.dumps(policy))
    assert 0 < out["PackedPolicySize"] <= 100


def test_session_and_federation_tokens(stratus, sts):
    session = sts.get_session_token(DurationSeconds=3600)["Credentials"]
    assert session["AccessKeyId"].startswith("ASIA")
    fed = sts.get_federation_token(Name="alice", DurationSeconds=900)
    assert fed["PackedPolicySize"] == 0  # reported even with no policy, unlike AssumeRole's
    assert fed["FederatedUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:federated-user/alice"
    assert fed["FederatedUser"]["FederatedUserId"] == f"{ACCOUNT}:alice"
    creds = fed["Credentials"]
    who = stratus.client(
        "sts",
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    ).get_caller_identity()
    assert who["Arn"] == fed["FederatedUser"]["Arn"]


def test_web_identity_and_access_key_info(sts):
    import base64

    def b64url(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    token = ".".join([b64url({"alg": "RS256"}), b64url({"sub": "user-42", "aud": "my-client", "iss": "https://issuer.example.com"}), "sig"])
    out = sts.assume_role_with_web_identity(RoleArn=ROLE, RoleSessionName="web", WebIdentityToken=token)
    assert out["SubjectFromWebIdentityToken"] == "user-42"
    assert out["Audience"] == "my-client"
    assert out["Provider"] == "issuer.example.com"
    with pytest.raises(ClientError) as err:
        sts.assume_role_with_web_identity(RoleArn=ROLE, RoleSessionName="web", WebIdentityToken="not-a-jwt-at-all")
    assert err.value.response["Error"]["Code"] == "InvalidIdentityToken"
    key = out["Credentials"]["AccessKeyId"]
    assert sts.get_access_key_info(AccessKeyId=key)["Account"] == "123456789012"


def test_outbound_web_identity_tokens_are_refused_while_the_feature_is_off(sts):
    # A new account has outbound web identity federation off (IAM's
    # EnableOutboundWebIdentityFederation turns it on); the error is 403 (sts.json).
    with pytest.raises(ClientError) as err:
        sts.get_web_identity_token(Audience=["https://api.example.com"], SigningAlgorithm="RS256")
    assert err.value.response["Error"]["Code"] == "OutboundWebIdentityFederationDisabledException"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    with pytest.raises(ClientError) as err:
        sts.get_delegated_access_token(TradeInToken="x" * 64)
    assert err.value.response["Error"]["Code"] == "NotImplemented"


def test_aws_cli_get_caller_identity(stratus):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIAIOSFODNN7EXAMPLE", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1")
    aws = os.path.join(os.path.dirname(sys.executable), "aws")
    out = subprocess.run(
        [aws, "sts", "get-caller-identity", "--endpoint-url", stratus.endpoint, "--output", "json"],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )
    assert json.loads(out.stdout)["Account"] == ACCOUNT


def session_client(stratus, credentials):
    return stratus.client(
        "sts",
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
    )


def invalid_parameter(call):
    with pytest.raises(ClientError) as err:
        call()
    error = err.value.response["Error"]
    assert error["Code"] == "InvalidParameterValue"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    return error["Message"]


def test_session_tags_are_checked_as_sts_checks_them(sts):
    tags = [{"Key": "Team", "Value": "blue"}]
    message = invalid_parameter(
        lambda: sts.assume_role(RoleArn=ROLE, RoleSessionName="tags", Tags=tags, TransitiveTagKeys=["Other"])
    )
    assert message == "The specified transitive tag key must be included in the requested tags."
    # Tag keys compare without regard to case, for transitive keys and for duplicates.
    sts.assume_role(RoleArn=ROLE, RoleSessionName="tags", Tags=tags, TransitiveTagKeys=["team"])
    message = invalid_parameter(
        lambda: sts.assume_role(RoleArn=ROLE, RoleSessionName="tags", Tags=tags + [{"Key": "TEAM", "Value": "red"}])
    )
    assert message == "Duplicate tag keys found. Please note that Tag keys are case insensitive."


def test_a_chained_session_keeps_transitive_tags_and_an_hour_at_most(stratus, sts):
    first = sts.assume_role(
        RoleArn=ROLE,
        RoleSessionName="first",
        Tags=[{"Key": "Team", "Value": "blue"}, {"Key": "Env", "Value": "dev"}],
        TransitiveTagKeys=["Team"],
    )["Credentials"]
    chained = session_client(stratus, first)
    # A non-transitive tag may be set again; a transitive one, in any casing, may not.
    second = chained.assume_role(RoleArn=ROLE, RoleSessionName="second", Tags=[{"Key": "Env", "Value": "prod"}])
    for key in ["Team", "team"]:
        message = invalid_parameter(
            lambda: chained.assume_role(RoleArn=ROLE, RoleSessionName="third", Tags=[{"Key": key, "Value": "red"}])
        )
        assert "conflicts with a transitive tag key from the calling session" in message
    # The transitive tag travels on: the second session may not override it either.
    message = invalid_parameter(
        lambda: session_client(stratus, second["Credentials"]).assume_role(
            RoleArn=ROLE, RoleSessionName="fourth", Tags=[{"Key": "Team", "Value": "red"}]
        )
    )
    assert "conflicts with a transitive tag key" in message
    with pytest.raises(ClientError) as err:
        chained.assume_role(RoleArn=ROLE, RoleSessionName="long", DurationSeconds=3601)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert "1 hour session limit for roles assumed by role chaining" in err.value.response["Error"]["Message"]
    chained.assume_role(RoleArn=ROLE, RoleSessionName="hour", DurationSeconds=3600)
