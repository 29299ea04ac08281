"""IAM enforcement (`--iam enforce`): requests are allowed or refused by the caller's policies,
its permissions boundary, its session's policies and the resource's policy, with AWS's
AccessDenied in each protocol; `--iam audit` serves what it would refuse and logs it.

The account's root (the default `test` key) sets everything up: identity policies do not
limit it.
"""

import json
import signal

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus

OTHER = "222222222222"
REGION = "us-east-1"


def policy(*statements):
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def allow(action, resource="*", **extra):
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def deny(action, resource="*"):
    return {"Effect": "Deny", "Action": action, "Resource": resource}


@pytest.fixture(scope="module")
def stratus():
    server = Stratus("--ephemeral", "--iam", "enforce")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def root(stratus):
    return lambda service: stratus.client(service, aws_access_key_id="test", aws_secret_access_key="test")


def user(stratus, root, name, *statements, boundary=None, groups=()):
    """A new user with an inline policy of `statements`, and a client factory signing as it."""
    iam = root("iam")
    iam.create_user(UserName=name, **({"PermissionsBoundary": boundary} if boundary else {}))
    if statements:
        iam.put_user_policy(UserName=name, PolicyName="own", PolicyDocument=policy(*statements))
    for group in groups:
        iam.add_user_to_group(GroupName=group, UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return lambda service: stratus.client(
        service, aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
    )


def refused(call):
    with pytest.raises(ClientError) as err:
        call()
    response = err.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Message"]


def queue_arn(name, account=ACCOUNT):
    return f"arn:aws:sqs:{REGION}:{account}:{name}"


def test_nothing_is_allowed_without_a_policy(stratus, root):
    nobody = user(stratus, root, "nobody")
    code, status, message = refused(lambda: nobody("sqs").create_queue(QueueName="jobs"))
    assert (code, status) == ("AccessDenied", 403)
    assert message == (
        f"User: arn:aws:iam::{ACCOUNT}:user/nobody is not authorized to perform: sqs:CreateQueue on resource: "
        f"{queue_arn('jobs')} because no identity-based policy allows the sqs:CreateQueue action"
    )
    # DynamoDB answers in its JSON protocol's words, with its status.
    code, status, message = refused(lambda: nobody("dynamodb").list_tables())
    assert (code, status) == ("AccessDeniedException", 400)
    assert "dynamodb:ListTables" in message
    assert refused(lambda: nobody("s3").list_buckets())[:2] == ("AccessDenied", 403)
    assert refused(lambda: nobody("sts").get_session_token())[:2] == ("AccessDenied", 403)


def test_the_root_is_not_limited_by_identity_policies(root):
    root("sqs").create_queue(QueueName="root-queue")
    root("dynamodb").list_tables()


def test_an_identity_policy_allows_what_it_names_and_nothing_else(stratus, root):
    worker = user(stratus, root, "worker", allow("sqs:*", "arn:aws:sqs:*:*:work-*"))
    url = worker("sqs").create_queue(QueueName="work-1")["QueueUrl"]
    worker("sqs").send_message(QueueUrl=url, MessageBody="go")
    # SendMessageBatch is authorized as sqs:SendMessage, per entry's queue.
    worker("sqs").send_message_batch(QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "a"}])
    other = root("sqs").create_queue(QueueName="private")["QueueUrl"]
    code, _, message = refused(lambda: worker("sqs").send_message(QueueUrl=other, MessageBody="x"))
    assert code == "AccessDenied" and f"on resource: {queue_arn('private')}" in message


def test_an_explicit_deny_in_a_group_wins(stratus, root):
    iam = root("iam")
    iam.create_group(GroupName="no-deletes")
    iam.put_group_policy(GroupName="no-deletes", PolicyName="deny", PolicyDocument=policy(deny("sqs:DeleteQueue")))
    member = user(stratus, root, "member", allow("sqs:*"), groups=["no-deletes"])
    url = member("sqs").create_queue(QueueName="kept")["QueueUrl"]
    code, _, message = refused(lambda: member("sqs").delete_queue(QueueUrl=url))
    assert code == "AccessDenied"
    assert message.endswith("with an explicit deny in an identity-based policy")


def test_a_group_policy_allows_its_members(stratus, root):
    iam = root("iam")
    iam.create_group(GroupName="readers")
    iam.attach_group_policy(GroupName="readers", PolicyArn="arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")
    root("s3").create_bucket(Bucket="shelf")
    root("s3").put_object(Bucket="shelf", Key="book", Body=b"pages")
    reader = user(stratus, root, "reader", groups=["readers"])
    assert reader("s3").get_object(Bucket="shelf", Key="book")["Body"].read() == b"pages"
    # HeadObject is authorized as s3:GetObject; PutObject is not read-only.
    reader("s3").head_object(Bucket="shelf", Key="book")
    assert refused(lambda: reader("s3").put_object(Bucket="shelf", Key="new", Body=b"x"))[0] == "AccessDenied"


def test_a_resource_policy_alone_can_allow(stratus, root):
    outsider = user(stratus, root, "outsider")
    url = root("sqs").create_queue(QueueName="inbox")["QueueUrl"]
    grant = policy({
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/outsider"},
        "Action": "sqs:SendMessage",
        "Resource": queue_arn("inbox"),
    })
    root("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": grant})
    outsider("sqs").send_message(QueueUrl=url, MessageBody="hello")
    assert refused(lambda: outsider("sqs").receive_message(QueueUrl=url))[0] == "AccessDenied"

    root("s3").create_bucket(Bucket="dropbox")
    root("s3").put_bucket_policy(Bucket="dropbox", Policy=policy({
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/outsider"},
        "Action": "s3:PutObject",
        "Resource": "arn:aws:s3:::dropbox/*",
    }))
    outsider("s3").put_object(Bucket="dropbox", Key="report", Body=b"r")
    assert refused(lambda: outsider("s3").get_object(Bucket="dropbox", Key="report"))[0] == "AccessDenied"


def test_a_permissions_boundary_limits_what_policies_allow(stratus, root):
    iam = root("iam")
    bound = iam.create_policy(PolicyName="only-s3", PolicyDocument=policy(allow("s3:*")))["Policy"]["Arn"]
    limited = user(stratus, root, "limited", boundary=bound)
    iam.attach_user_policy(UserName="limited", PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")
    limited("s3").list_buckets()
    code, _, message = refused(lambda: limited("sqs").list_queues())
    assert code == "AccessDenied" and message.endswith("because no permissions boundary allows the sqs:ListQueues action")


def test_a_role_session_is_limited_by_its_role_and_session_policy(stratus, root):
    iam = root("iam")
    trust = policy({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"})
    iam.create_role(RoleName="table-admin", AssumeRolePolicyDocument=trust)
    iam.put_role_policy(RoleName="table-admin", PolicyName="tables", PolicyDocument=policy(allow("dynamodb:*")))
    assumer = user(stratus, root, "assumer", allow("sts:AssumeRole", f"arn:aws:iam::{ACCOUNT}:role/table-admin"))
    creds = assumer("sts").assume_role(
        RoleArn=f"arn:aws:iam::{ACCOUNT}:role/table-admin",
        RoleSessionName="narrow",
        Policy=policy(allow("dynamodb:ListTables")),
    )["Credentials"]
    session = lambda service: stratus.client(
        service,
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )
    session("dynamodb").list_tables()
    code, _, message = refused(lambda: session("dynamodb").create_table(
        TableName="t",
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    ))
    assert code == "AccessDeniedException"
    assert message.startswith(f"User: arn:aws:sts::{ACCOUNT}:assumed-role/table-admin/narrow is not authorized")
    assert message.endswith("because no session policy allows the dynamodb:CreateTable action")
    assert refused(lambda: session("sqs").list_queues())[0] == "AccessDenied"


def test_a_role_of_another_account_acts_there_with_its_policies(stratus, root):
    other = lambda service: stratus.client(service, aws_access_key_id=OTHER, aws_secret_access_key="test")
    trust = policy({"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"})
    other("iam").create_role(RoleName="deployer", AssumeRolePolicyDocument=trust)
    other("iam").put_role_policy(RoleName="deployer", PolicyName="queues", PolicyDocument=policy(allow("sqs:*")))
    role_arn = f"arn:aws:iam::{OTHER}:role/deployer"
    traveller = user(stratus, root, "traveller", allow("sts:AssumeRole", role_arn))
    creds = traveller("sts").assume_role(RoleArn=role_arn, RoleSessionName="trip")["Credentials"]
    session = stratus.client(
        "sqs",
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
    )
    url = session.create_queue(QueueName="deploys")["QueueUrl"]
    assert f"/{OTHER}/deploys" in url
    assert refused(lambda: traveller("sqs").list_queues())[0] == "AccessDenied"


def test_a_queue_policy_can_grant_another_account(stratus, root):
    other_root = lambda service: stratus.client(service, aws_access_key_id=OTHER, aws_secret_access_key="test")
    other_root("iam").create_user(UserName="partner")
    other_root("iam").put_user_policy(
        UserName="partner", PolicyName="send", PolicyDocument=policy(allow("sqs:SendMessage"))
    )
    key = other_root("iam").create_access_key(UserName="partner")["AccessKey"]
    partner = stratus.client("sqs", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    url = root("sqs").create_queue(QueueName="shared")["QueueUrl"]
    # The partner's own policy allows, but the queue's account has not granted it yet.
    assert refused(lambda: partner.send_message(QueueUrl=url, MessageBody="x"))[0] == "AccessDenied"
    root("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy({
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{OTHER}:root"},
        "Action": "sqs:SendMessage",
        "Resource": queue_arn("shared"),
    })})
    partner.send_message(QueueUrl=url, MessageBody="x")


def test_audit_mode_serves_what_it_would_refuse_and_logs_it():
    server = Stratus("--ephemeral", "--iam", "audit", "--log-level", "info")
    try:
        iam = server.client("iam", aws_access_key_id="test", aws_secret_access_key="test")
        iam.create_user(UserName="audited")
        key = iam.create_access_key(UserName="audited")["AccessKey"]
        sqs = server.client("sqs", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
        sqs.create_queue(QueueName="audited-queue")
    finally:
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=15)
        log = server.log()
        server.stop()
    assert "denied" in log and "sqs:CreateQueue" in log and f"arn:aws:iam::{ACCOUNT}:user/audited" in log


def test_iam_modes_need_iam_served():
    with pytest.raises(RuntimeError, match="need IAM"):
        Stratus("--ephemeral", "--iam", "enforce", "--services", "sqs")


def test_a_roles_trust_policy_decides_who_may_assume_it(stratus, root):
    iam = root("iam")
    trust = policy({
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/trusted"},
        "Action": "sts:AssumeRole",
    })
    role_arn = iam.create_role(RoleName="guarded", AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    # Named in the trust policy, the user needs no policy of its own in the role's account.
    trusted = user(stratus, root, "trusted")
    trusted("sts").assume_role(RoleArn=role_arn, RoleSessionName="ok")
    # Allowed by its own policy but not trusted by the role: refused, in STS's words.
    untrusted = user(stratus, root, "untrusted", allow("sts:AssumeRole", role_arn))
    code, status, message = refused(lambda: untrusted("sts").assume_role(RoleArn=role_arn, RoleSessionName="no"))
    assert (code, status) == ("AccessDenied", 403)
    assert message == (
        f"User: arn:aws:iam::{ACCOUNT}:user/untrusted is not authorized to perform: sts:AssumeRole "
        f"on resource: {role_arn}"
    )
    # Not even the root assumes a role that does not trust it.
    assert refused(lambda: root("sts").assume_role(RoleArn=role_arn, RoleSessionName="root"))[0] == "AccessDenied"


def test_s3_names_the_refused_resource_in_quotes(stratus, root):
    root("s3").create_bucket(Bucket="quoted")
    stranger = user(stratus, root, "stranger")
    _, _, message = refused(lambda: stranger("s3").put_object(Bucket="quoted", Key="k", Body=b"x"))
    assert message == (
        f'User: arn:aws:iam::{ACCOUNT}:user/stranger is not authorized to perform: s3:PutObject on resource: '
        '"arn:aws:s3:::quoted/k" because no identity-based policy allows the s3:PutObject action'
    )


def test_conditions_see_the_callers_address(stratus, root):
    local = user(stratus, root, "local", allow("sqs:ListQueues", Condition={"IpAddress": {"aws:SourceIp": "127.0.0.0/8"}}))
    local("sqs").list_queues()
    remote = user(stratus, root, "remote", allow("sqs:ListQueues", Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}))
    assert refused(lambda: remote("sqs").list_queues())[0] == "AccessDenied"


def test_an_anonymous_caller_gets_only_what_a_bucket_policy_grants_everyone(stratus, root):
    import requests

    root("s3").create_bucket(Bucket="site")
    root("s3").put_object(Bucket="site", Key="index.html", Body=b"<h1>hi</h1>")
    url = f"{stratus.endpoint}/site/index.html"
    refused_answer = requests.get(url)
    assert refused_answer.status_code == 403 and "<Message>Access Denied</Message>" in refused_answer.text
    # New buckets block public policies, as on AWS since 2023.
    root("s3").delete_public_access_block(Bucket="site")
    root("s3").put_bucket_policy(Bucket="site", Policy=policy({
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::site/*",
    }))
    assert requests.get(url).content == b"<h1>hi</h1>"
    assert requests.put(f"{stratus.endpoint}/site/new.html", data=b"x").status_code == 403


def test_the_policy_a_workload_needed_comes_from_the_audit_log(stratus, tmp_path):
    import subprocess

    from conftest import BIN

    log = tmp_path / "decisions.jsonl"
    audited = Stratus("--ephemeral", "--iam", "audit", "--iam-log", str(log))
    try:
        iam = audited.client("iam", aws_access_key_id="test", aws_secret_access_key="test")
        iam.create_user(UserName="app")
        key = iam.create_access_key(UserName="app")["AccessKey"]
        as_app = lambda service: audited.client(
            service, aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
        )

        def workload(client_of):
            url = client_of("sqs").create_queue(QueueName="orders")["QueueUrl"]
            client_of("sqs").send_message(QueueUrl=url, MessageBody="1")
            client_of("s3").list_buckets()

        workload(as_app)  # served: audit only logs
    finally:
        audited.stop()
    app = f"arn:aws:iam::{ACCOUNT}:user/app"
    done = subprocess.run([BIN, "iam", "policy-from-log", str(log), "--principal", app], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    needed = json.loads(done.stdout)
    actions = sorted(a for statement in needed["Statement"] for a in statement["Action"])
    assert actions == ["s3:ListAllMyBuckets", "sqs:CreateQueue", "sqs:SendMessage"]

    # Under enforcement, the policy lets the workload run, and nothing more.
    enforced = Stratus("--ephemeral", "--iam", "enforce")
    try:
        iam = enforced.client("iam", aws_access_key_id="test", aws_secret_access_key="test")
        iam.create_user(UserName="app")
        iam.put_user_policy(UserName="app", PolicyName="needed", PolicyDocument=done.stdout)
        key = iam.create_access_key(UserName="app")["AccessKey"]
        as_app = lambda service: enforced.client(
            service, aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"]
        )
        workload(as_app)
        assert refused(lambda: as_app("sqs").create_queue(QueueName="other"))[0] == "AccessDenied"
    finally:
        enforced.stop()


def test_request_tags_decide_what_a_caller_may_tag(stratus, root):
    blue_only = {"StringEquals": {"aws:RequestTag/team": "blue"}}
    tagger = user(
        stratus, root, "tagger",
        allow(["sqs:CreateQueue", "sqs:TagQueue"], Condition=blue_only),
        allow(["iam:CreateRole", "iam:TagRole"], Condition=blue_only),
    )
    url = tagger("sqs").create_queue(QueueName="tagged-blue", tags={"team": "blue"})["QueueUrl"]
    tagger("sqs").tag_queue(QueueUrl=url, Tags={"team": "blue"})
    code, _, message = refused(lambda: tagger("sqs").create_queue(QueueName="tagged-red", tags={"team": "red"}))
    assert code == "AccessDenied" and "sqs:CreateQueue" in message
    assert refused(lambda: tagger("sqs").create_queue(QueueName="untagged"))[0] == "AccessDenied"
    assert refused(lambda: tagger("sqs").tag_queue(QueueUrl=url, Tags={"team": "red"}))[0] == "AccessDenied"
    # IAM takes its tags as a list of Key/Value pairs.
    trust = policy({"Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sts:AssumeRole"})
    iam = tagger("iam")
    iam.create_role(RoleName="blue-role", AssumeRolePolicyDocument=trust, Tags=[{"Key": "team", "Value": "blue"}])
    assert refused(lambda: iam.create_role(
        RoleName="red-role", AssumeRolePolicyDocument=trust, Tags=[{"Key": "team", "Value": "red"}]
    ))[0] == "AccessDenied"


def test_resource_tags_decide_what_a_caller_may_touch(stratus, root):
    blue = {"StringEquals": {"aws:ResourceTag/team": "blue"}}
    member = user(
        stratus, root, "blue-member",
        allow("sqs:SendMessage", Condition=blue),
        allow("s3:ListBucket", Condition=blue),
        allow("iam:GetRole", Condition={"StringEquals": {"iam:ResourceTag/team": "blue"}}),
    )
    ours = root("sqs").create_queue(QueueName="blue-jobs", tags={"team": "blue"})["QueueUrl"]
    theirs = root("sqs").create_queue(QueueName="red-jobs", tags={"team": "red"})["QueueUrl"]
    member("sqs").send_message(QueueUrl=ours, MessageBody="hi")
    code, _, message = refused(lambda: member("sqs").send_message(QueueUrl=theirs, MessageBody="hi"))
    assert code == "AccessDenied" and queue_arn("red-jobs") in message
    # Tags added later count at once.
    root("sqs").tag_queue(QueueUrl=theirs, Tags={"team": "blue"})
    member("sqs").send_message(QueueUrl=theirs, MessageBody="hi")

    s3 = root("s3")
    for bucket, team in [("blue-shelf", "blue"), ("red-shelf", "red")]:
        s3.create_bucket(Bucket=bucket)
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": [{"Key": "team", "Value": team}]})
    member("s3").list_objects_v2(Bucket="blue-shelf")
    assert refused(lambda: member("s3").list_objects_v2(Bucket="red-shelf"))[0] == "AccessDenied"

    trust = policy({"Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sts:AssumeRole"})
    iam = root("iam")
    iam.create_role(RoleName="blue-tagged", Path="/teams/", AssumeRolePolicyDocument=trust,
                    Tags=[{"Key": "team", "Value": "blue"}])
    iam.create_role(RoleName="red-tagged", AssumeRolePolicyDocument=trust, Tags=[{"Key": "team", "Value": "red"}])
    assert member("iam").get_role(RoleName="blue-tagged")["Role"]["Path"] == "/teams/"
    assert refused(lambda: member("iam").get_role(RoleName="red-tagged"))[0] == "AccessDenied"


def test_iam_entities_are_judged_with_their_paths(stratus, root):
    iam = root("iam")
    iam.create_user(UserName="Bob", Path="/division/")
    iam.create_user(UserName="Eve")
    manager = user(stratus, root, "manager", allow(["iam:GetUser", "iam:TagUser"], f"arn:aws:iam::{ACCOUNT}:user/division/*"))
    assert manager("iam").get_user(UserName="Bob")["User"]["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/division/Bob"
    manager("iam").tag_user(UserName="Bob", Tags=[{"Key": "k", "Value": "v"}])
    code, _, message = refused(lambda: manager("iam").get_user(UserName="Eve"))
    assert code == "AccessDenied" and f"user/Eve" in message
