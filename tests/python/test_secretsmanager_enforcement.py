"""Secrets Manager under `--iam enforce`: a secret's resource policy is weighed with the
caller's identity policies, as AWS weighs it, through the `ResourcePolicies` Secrets Manager
provides. A server of its own, since enforcement is a mode of the whole server."""

import json

import pytest
from botocore.exceptions import ClientError
from conftest import Stratus

ACCOUNT = "000000000000"


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--iam", "enforce")
    yield server
    server.stop()


def test_a_secrets_policy_alone_can_let_a_user_read_it(stratus):
    root = stratus.client("secretsmanager", aws_access_key_id="test", aws_secret_access_key="test")
    iam = stratus.client("iam", aws_access_key_id="test", aws_secret_access_key="test")
    iam.create_user(UserName="reader")
    key = iam.create_access_key(UserName="reader")["AccessKey"]
    reader = stratus.client(
        "secretsmanager", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
    )
    arn = root.create_secret(Name="shared", SecretString="s3cret")["ARN"]
    with pytest.raises(ClientError) as e:
        reader.get_secret_value(SecretId="shared")
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"

    grant = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/reader"},
                "Action": "secretsmanager:GetSecretValue",
                "Resource": "*",
            }
        ],
    }
    root.put_resource_policy(SecretId=arn, ResourcePolicy=json.dumps(grant))
    assert reader.get_secret_value(SecretId="shared")["SecretString"] == "s3cret"
    with pytest.raises(ClientError) as e:
        reader.put_secret_value(SecretId="shared", SecretString="mine now")
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
