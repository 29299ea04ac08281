"""Who a request is served as: IAM users' access keys sign as their users, STS's session keys
as their sessions, in the account each key names; any other key signs as an account's root.

Signatures are not verified here (that is opt-in), so only the key id decides; a refusal of
the credentials themselves (an inactive key, an expired session) is AWS's in each protocol.
"""

import json

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

OTHER = "222222222222"
TRUST_EVERYONE = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
)


@pytest.fixture(scope="module")
def stratus():
    # A manual clock, so that sessions can be made to expire.
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


def client_of(stratus, service, credentials):
    """A client signing with `credentials`, as IAM's CreateAccessKey or STS's answers give them."""
    return stratus.client(
        service,
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials.get("SessionToken"),
    )


def new_user_key(stratus, name, account=None, path="/"):
    iam = stratus.client("iam", aws_access_key_id=account) if account else stratus.client("iam")
    user = iam.create_user(UserName=name, Path=path)["User"]
    return user, iam.create_access_key(UserName=name)["AccessKey"]


def test_a_user_key_signs_as_its_user(stratus):
    user, key = new_user_key(stratus, "alice", path="/team/")
    who = client_of(stratus, "sts", key).get_caller_identity()
    assert who["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/team/alice"
    assert who["UserId"] == user["UserId"] and who["UserId"].startswith("AIDA")
    assert who["Account"] == ACCOUNT
    # IAM's GetUser without a name answers the signing user.
    assert client_of(stratus, "iam", key).get_user()["User"]["UserName"] == "alice"


def test_a_key_id_carries_its_account(stratus):
    # AWS encodes the account in the key id; STS's GetAccessKeyInfo reads it back.
    _, key = new_user_key(stratus, "carol", account=OTHER)
    sts = stratus.client("sts")
    assert sts.get_access_key_info(AccessKeyId=key["AccessKeyId"])["Account"] == OTHER
    # The key AWS publishes in its documentation, from the account it names.
    assert sts.get_access_key_info(AccessKeyId="ASIAY34FZKBOKMUTVV7A")["Account"] == "609629065308"


def test_a_user_key_serves_in_its_users_account(stratus):
    _, key = new_user_key(stratus, "dave", account=OTHER)
    url = client_of(stratus, "sqs", key).create_queue(QueueName="daves")["QueueUrl"]
    assert f"/{OTHER}/daves" in url
    assert url in stratus.client("sqs", aws_access_key_id=OTHER).list_queues().get("QueueUrls", [])
    assert url not in stratus.client("sqs").list_queues().get("QueueUrls", [])


@pytest.mark.parametrize(
    "service, call, code, status",
    [
        ("sts", lambda c: c.get_caller_identity(), "InvalidClientTokenId", 403),
        ("sqs", lambda c: c.list_queues(), "InvalidClientTokenId", 403),
        ("s3", lambda c: c.list_buckets(), "InvalidAccessKeyId", 403),
        ("dynamodb", lambda c: c.list_tables(), "UnrecognizedClientException", 400),
    ],
)
def test_an_inactive_key_is_refused_by_every_service(stratus, service, call, code, status):
    name = f"inactive-{service}"
    _, key = new_user_key(stratus, name)
    stratus.client("iam").update_access_key(UserName=name, AccessKeyId=key["AccessKeyId"], Status="Inactive")
    with pytest.raises(ClientError) as err:
        call(client_of(stratus, service, key))
    assert err.value.response["Error"]["Code"] == code
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == status


def test_a_deleted_key_is_no_ones_and_signs_as_the_root(stratus):
    _, key = new_user_key(stratus, "erin")
    stratus.client("iam").delete_access_key(UserName="erin", AccessKeyId=key["AccessKeyId"])
    who = client_of(stratus, "sts", key).get_caller_identity()
    assert who["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"


def test_keys_issued_after_unknown_keys_were_seen_sign_at_once(stratus):
    # Unknown keys of AWS's form are remembered as no one's; issuing keys must not leave a
    # new one behind that memory, nor a deleted one known.
    unknown = {"AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "x"}
    for _ in range(3):
        assert client_of(stratus, "sts", unknown).get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"
    _, key = new_user_key(stratus, "gwen")
    assert client_of(stratus, "sts", key).get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/gwen"
    stratus.client("iam").delete_access_key(UserName="gwen", AccessKeyId=key["AccessKeyId"])
    for _ in range(2):
        assert client_of(stratus, "sts", key).get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"
    session = stratus.client("sts").get_session_token()["Credentials"]
    assert client_of(stratus, "sts", session).get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"
    assert client_of(stratus, "sts", session).get_caller_identity()["UserId"] == ACCOUNT


def test_a_role_session_of_another_account_serves_in_the_roles_account(stratus):
    stratus.client("iam", aws_access_key_id=OTHER).create_role(
        RoleName="builder", AssumeRolePolicyDocument=TRUST_EVERYONE
    )
    _, key = new_user_key(stratus, "frank")
    session = client_of(stratus, "sts", key).assume_role(
        RoleArn=f"arn:aws:iam::{OTHER}:role/builder", RoleSessionName="build-1"
    )["Credentials"]
    sts = stratus.client("sts")
    assert sts.get_access_key_info(AccessKeyId=session["AccessKeyId"])["Account"] == OTHER
    who = client_of(stratus, "sts", session).get_caller_identity()
    assert who["Arn"] == f"arn:aws:sts::{OTHER}:assumed-role/builder/build-1"
    assert who["Account"] == OTHER
    client_of(stratus, "dynamodb", session).create_table(
        TableName="builds",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    assert "builds" in stratus.client("dynamodb", aws_access_key_id=OTHER).list_tables()["TableNames"]
    assert "builds" not in stratus.client("dynamodb").list_tables()["TableNames"]


def test_a_federated_users_session_is_that_user(stratus):
    _, key = new_user_key(stratus, "grace")
    session = client_of(stratus, "sts", key).get_federation_token(Name="visitor")["Credentials"]
    who = client_of(stratus, "sts", session).get_caller_identity()
    assert who["Arn"] == f"arn:aws:sts::{ACCOUNT}:federated-user/visitor"
    assert who["UserId"] == f"{ACCOUNT}:visitor"


@pytest.mark.parametrize(
    "service, call, code, status",
    [
        ("sts", lambda c: c.get_caller_identity(), "ExpiredToken", 403),
        ("sqs", lambda c: c.list_queues(), "ExpiredToken", 403),
        ("s3", lambda c: c.list_buckets(), "ExpiredToken", 400),
        ("dynamodb", lambda c: c.list_tables(), "ExpiredTokenException", 400),
    ],
)
def test_an_expired_session_is_refused_by_every_service(stratus, service, call, code, status):
    session = stratus.client("sts").get_session_token(DurationSeconds=900)["Credentials"]
    client = client_of(stratus, service, session)
    call(client)
    stratus.advance(901)
    with pytest.raises(ClientError) as err:
        call(client)
    assert err.value.response["Error"]["Code"] == code
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
