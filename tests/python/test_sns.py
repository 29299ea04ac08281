"""SNS's control plane through boto3 and the AWS CLI against the real binary: topics (standard
and FIFO), their attributes, policies, tags and listings; subscriptions and their attributes;
Publish and PublishBatch refusals. Deliveries are in test_sns_delivery.py."""

import json
import os
import subprocess
import sys

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
REGION = "us-east-1"
# The AWS CLI (v1) installed beside the Python running the tests.
AWS_CLI = os.path.join(os.path.dirname(sys.executable), "aws")


@pytest.fixture(scope="module")
def sns(stratus):
    return stratus.client("sns")


@pytest.fixture(scope="module")
def sqs(stratus):
    return stratus.client("sqs")


def topic_arn(name):
    return f"arn:aws:sns:{REGION}:{ACCOUNT}:{name}"


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def test_a_new_topic_has_aws_default_attributes(sns):
    arn = sns.create_topic(Name="plain")["TopicArn"]
    assert arn == topic_arn("plain")
    attrs = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attrs["Owner"] == ACCOUNT
    assert attrs["TopicArn"] == arn
    assert attrs["DisplayName"] == ""
    assert (attrs["SubscriptionsConfirmed"], attrs["SubscriptionsPending"], attrs["SubscriptionsDeleted"]) == ("0", "0", "0")
    assert "FifoTopic" not in attrs
    policy = json.loads(attrs["Policy"])
    assert policy["Id"] == "__default_policy_ID"
    assert policy["Statement"][0]["Resource"] == arn
    assert policy["Statement"][0]["Condition"] == {"StringEquals": {"AWS:SourceOwner": ACCOUNT}}
    delivery = json.loads(attrs["EffectiveDeliveryPolicy"])
    assert delivery["http"]["defaultHealthyRetryPolicy"]["numRetries"] == 3


def test_creating_twice_is_idempotent_unless_attributes_differ(sns):
    arn = sns.create_topic(Name="twice", Attributes={"DisplayName": "one"})["TopicArn"]
    assert sns.create_topic(Name="twice", Attributes={"DisplayName": "one"})["TopicArn"] == arn
    assert sns.create_topic(Name="twice")["TopicArn"] == arn
    code, message = error_of(sns.create_topic, Name="twice", Attributes={"DisplayName": "two"})
    assert (code, message) == ("InvalidParameter", "Invalid parameter: Attributes Reason: Topic already exists with different attributes")
    sns.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}])
    assert sns.create_topic(Name="twice", Tags=[{"Key": "a", "Value": "1"}])["TopicArn"] == arn
    assert sns.create_topic(Name="twice", Tags=[])["TopicArn"] == arn
    code, message = error_of(sns.create_topic, Name="twice", Tags=[{"Key": "b", "Value": "2"}])
    assert message == "Invalid parameter: Tags Reason: Topic already exists with different tags"


@pytest.mark.parametrize(
    "name,attributes",
    [("", {}), ("a" * 257, {}), ("bad.fifo", {}), ("nofifo", {"FifoTopic": "true"}), ("sp ace", {}), ("é", {})],
)
def test_bad_topic_names_are_refused(sns, name, attributes):
    assert error_of(sns.create_topic, Name=name, Attributes=attributes) == ("InvalidParameter", "Invalid parameter: Topic Name")


def test_fifo_topics_keep_their_attributes(sns):
    arn = sns.create_topic(Name="orders.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"})["TopicArn"]
    attrs = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attrs["FifoTopic"] == "true"
    assert attrs["ContentBasedDeduplication"] == "true"
    assert error_of(sns.set_topic_attributes, TopicArn=arn, AttributeName="FifoTopic", AttributeValue="false") == (
        "InvalidParameter",
        "Invalid parameter: AttributeName",
    )


def test_topic_attributes_are_set_and_checked(sns):
    arn = sns.create_topic(Name="settable")["TopicArn"]
    sns.set_topic_attributes(TopicArn=arn, AttributeName="DisplayName", AttributeValue="Shown")
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["DisplayName"] == "Shown"
    assert error_of(sns.set_topic_attributes, TopicArn=arn, AttributeName="Colour", AttributeValue="x")[1] == "Invalid parameter: AttributeName"


def test_missing_and_malformed_topics(sns):
    assert error_of(sns.get_topic_attributes, TopicArn=topic_arn("nowhere")) == ("NotFound", "Topic does not exist")
    assert error_of(sns.get_topic_attributes, TopicArn="nowhere") == (
        "InvalidParameter",
        "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1",
    )
    assert error_of(sns.get_topic_attributes, TopicArn=f"arn:aws:sns:eu-west-1:{ACCOUNT}:x")[1] == "Invalid parameter: TopicArn"
    sns.delete_topic(TopicArn=topic_arn("nowhere"))  # deleting what is not there succeeds


def test_topics_are_listed_a_hundred_at_a_time(stratus):
    sns = stratus.client("sns", region="eu-central-1")
    made = sorted(sns.create_topic(Name=f"t{i:03}")["TopicArn"] for i in range(105))
    first = sns.list_topics()
    assert len(first["Topics"]) == 100 and "NextToken" in first
    second = sns.list_topics(NextToken=first["NextToken"])
    assert "NextToken" not in second
    assert sorted(t["TopicArn"] for t in first["Topics"] + second["Topics"]) == made


def test_tags_are_kept_and_limited(sns):
    arn = sns.create_topic(Name="tagged", Tags=[{"Key": "k1", "Value": "v1"}])["TopicArn"]
    sns.tag_resource(ResourceArn=arn, Tags=[{"Key": "k2", "Value": "v2"}])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "k1", "Value": "v1"}, {"Key": "k2", "Value": "v2"}]
    sns.untag_resource(ResourceArn=arn, TagKeys=["k1"])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "k2", "Value": "v2"}]
    dup = [{"Key": "d", "Value": "1"}, {"Key": "d", "Value": "2"}]
    assert error_of(sns.tag_resource, ResourceArn=arn, Tags=dup)[1] == "Invalid parameter: Duplicated keys are not allowed."
    many = [{"Key": f"n{i}", "Value": "v"} for i in range(50)]  # 51 with k2
    assert error_of(sns.tag_resource, ResourceArn=arn, Tags=many)[0] == "TagLimitExceeded"
    assert error_of(sns.list_tags_for_resource, ResourceArn=topic_arn("untagged-missing"))[0] == "ResourceNotFound"


def test_permissions_add_and_remove_statements(sns):
    arn = sns.create_topic(Name="shared")["TopicArn"]
    sns.add_permission(TopicArn=arn, Label="pub", AWSAccountId=["111111111111"], ActionName=["Publish"])
    statements = json.loads(sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"])["Statement"]
    assert statements[1] == {
        "Sid": "pub",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
        "Action": "SNS:Publish",
        "Resource": arn,
    }
    assert error_of(sns.add_permission, TopicArn=arn, Label="pub", AWSAccountId=["1"], ActionName=["Publish"])[1] == (
        "Invalid parameter: Statement already exists"
    )
    assert error_of(sns.add_permission, TopicArn=arn, Label="x", AWSAccountId=["1"], ActionName=["Fly"])[1] == (
        "Invalid parameter: Policy statement action out of service scope!"
    )
    sns.remove_permission(TopicArn=arn, Label="pub")
    assert len(json.loads(sns.get_topic_attributes(TopicArn=arn)["Attributes"]["Policy"])["Statement"]) == 1


def test_data_protection_policies_are_stored(sns):
    arn = sns.create_topic(Name="protected")["TopicArn"]
    policy = json.dumps({"Name": "p", "Version": "2021-06-01", "Statement": []})
    sns.put_data_protection_policy(ResourceArn=arn, DataProtectionPolicy=policy)
    assert sns.get_data_protection_policy(ResourceArn=arn)["DataProtectionPolicy"] == policy


def queue_arn(name):
    return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"


def test_queue_subscriptions_are_confirmed_at_once(sns, sqs):
    arn = sns.create_topic(Name="to-queue")["TopicArn"]
    sqs.create_queue(QueueName="sub-q")
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("sub-q"), Attributes={"RawMessageDelivery": "true"})
    sub_arn = sub["SubscriptionArn"]
    assert sub_arn.startswith(arn + ":")
    attrs = sns.get_subscription_attributes(SubscriptionArn=sub_arn)["Attributes"]
    assert attrs["PendingConfirmation"] == "false"
    assert attrs["ConfirmationWasAuthenticated"] == "true"
    assert attrs["RawMessageDelivery"] == "true"
    assert attrs["Protocol"] == "sqs" and attrs["Endpoint"] == queue_arn("sub-q")
    assert attrs["SubscriptionPrincipal"] == f"arn:aws:iam::{ACCOUNT}:root"
    # The same subscription again answers the same ARN; with other attributes it is refused.
    assert sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("sub-q"))["SubscriptionArn"] == sub_arn
    assert error_of(
        sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("sub-q"), Attributes={"RawMessageDelivery": "false"}
    )[1] == "Invalid parameter: Attributes Reason: Subscription already exists with different attributes"
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["SubscriptionsConfirmed"] == "1"


def test_subscription_attributes_are_checked(sns):
    arn = sns.create_topic(Name="checked-subs")["TopicArn"]
    sub_arn = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("any"))["SubscriptionArn"]
    cases = {
        ("Colour", "x"): "Invalid parameter: AttributeName",
        ("RawMessageDelivery", "yes"): "Invalid parameter: RawMessageDelivery: Invalid value [yes]. Must be true or false.",
        ("RedrivePolicy", json.dumps({"deadLetterTargetArn": "nope"})): "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn",
    }
    for (name, value), message in cases.items():
        assert error_of(sns.set_subscription_attributes, SubscriptionArn=sub_arn, AttributeName=name, AttributeValue=value) == (
            "InvalidParameter",
            message,
        )
    code, message = error_of(sns.set_subscription_attributes, SubscriptionArn=sub_arn, AttributeName="FilterPolicy", AttributeValue="{invalid")
    assert code == "InvalidParameter" and message.startswith("Invalid parameter: FilterPolicy: ")
    sns.set_subscription_attributes(SubscriptionArn=sub_arn, AttributeName="FilterPolicy", AttributeValue='{"a": ["b"]}')
    attrs = sns.get_subscription_attributes(SubscriptionArn=sub_arn)["Attributes"]
    assert attrs["FilterPolicy"] == '{"a": ["b"]}' and attrs["FilterPolicyScope"] == "MessageAttributes"
    code, message = error_of(sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("f"), Attributes={"FilterPolicy": "{invalid"})
    assert code == "InvalidParameter" and message.startswith("Invalid parameter: Attributes Reason: FilterPolicy: ")
    nested = json.dumps({"a": {"b": ["c"]}})
    assert error_of(sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("f"), Attributes={"FilterPolicy": nested})[0] == "InvalidParameter"
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("f"), Attributes={"FilterPolicy": nested, "FilterPolicyScope": "MessageBody"})
    code, message = error_of(sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("other"), Attributes={"RawMessageDelivery": "x"})
    assert message == "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [x]. Must be true or false."


def test_subscribe_refusals(sns):
    arn = sns.create_topic(Name="refusing")["TopicArn"]
    assert error_of(sns.subscribe, TopicArn=arn, Protocol="test-protocol", Endpoint="x")[1] == (
        "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol"
    )
    assert error_of(sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint="http://localhost/000000000000/q")[1] == (
        "Invalid parameter: SQS endpoint ARN"
    )
    assert error_of(sns.subscribe, TopicArn=arn, Protocol="sqs", Endpoint=queue_arn("q.fifo"))[1] == (
        "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"
    )
    assert error_of(sns.subscribe, TopicArn=arn, Protocol="sms", Endpoint="NAA+15551234567")[1] == "Invalid SMS endpoint: NAA+15551234567"
    assert error_of(sns.subscribe, TopicArn=topic_arn("absent"), Protocol="sqs", Endpoint=queue_arn("q")) == ("NotFound", "Topic does not exist")


def test_http_and_email_wait_for_confirmation(sns):
    arn = sns.create_topic(Name="pending")["TopicArn"]
    assert sns.subscribe(TopicArn=arn, Protocol="https", Endpoint="https://example.com/hook")["SubscriptionArn"] == "pending confirmation"
    full = sns.subscribe(TopicArn=arn, Protocol="email", Endpoint="me@example.com", ReturnSubscriptionArn=True)["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=full)["Attributes"]["PendingConfirmation"] == "true"
    listed = sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
    assert {s["SubscriptionArn"] for s in listed} == {"PendingConfirmation"}
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["SubscriptionsPending"] == "2"
    sms = sns.subscribe(TopicArn=arn, Protocol="sms", Endpoint="+15551234567")["SubscriptionArn"]
    assert sms.startswith(arn + ":")
    assert error_of(sns.confirm_subscription, TopicArn=arn, Token="abcdef")[1] == "Invalid parameter: Token"
    assert error_of(sns.confirm_subscription, TopicArn=arn, Token="not a token")[1] == "Invalid token"
    assert error_of(sns.confirm_subscription, TopicArn="bad", Token="abcdef")[1] == "Invalid parameter: Topic"


def test_unsubscribe_and_listings(sns):
    arn = sns.create_topic(Name="listed")["TopicArn"]
    subs = [sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn(f"lq{i}"))["SubscriptionArn"] for i in range(3)]
    assert {s["SubscriptionArn"] for s in sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]} == set(subs)
    everything = {s["SubscriptionArn"] for s in sns.list_subscriptions()["Subscriptions"]}
    assert set(subs) <= everything
    sns.unsubscribe(SubscriptionArn=subs[0])
    sns.unsubscribe(SubscriptionArn=subs[0])  # twice is fine
    assert error_of(sns.get_subscription_attributes, SubscriptionArn=subs[0]) == ("NotFound", "Subscription does not exist")
    attrs = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert (attrs["SubscriptionsConfirmed"], attrs["SubscriptionsDeleted"]) == ("2", "1")
    assert error_of(sns.unsubscribe, SubscriptionArn=arn)[1] == "Invalid parameter: SubscriptionId"
    assert error_of(sns.unsubscribe, SubscriptionArn="x")[1] == "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"
    sns.delete_topic(TopicArn=arn)
    assert error_of(sns.get_subscription_attributes, SubscriptionArn=subs[1])[0] == "NotFound"


def test_subscriptions_by_topic_page(stratus):
    sns = stratus.client("sns", region="ap-south-1")
    arn = sns.create_topic(Name="paged")["TopicArn"]
    for i in range(120):
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=f"arn:aws:sqs:ap-south-1:{ACCOUNT}:p{i}")
    first = sns.list_subscriptions_by_topic(TopicArn=arn)
    assert len(first["Subscriptions"]) == 100
    second = sns.list_subscriptions_by_topic(TopicArn=arn, NextToken=first["NextToken"])
    assert len(second["Subscriptions"]) == 20 and "NextToken" not in second


def test_publish_refusals(sns):
    arn = sns.create_topic(Name="refuses-publish")["TopicArn"]
    assert error_of(sns.publish, TopicArn=arn, Message="") == ("InvalidParameter", "Invalid parameter: Empty message")
    assert error_of(sns.publish, TopicArn=arn, Message="m", Subject="")[1] == "Invalid parameter: Subject"
    assert error_of(sns.publish, TopicArn=arn, Message="x" * (256 * 1024 + 1))[1] == "Invalid parameter: Message too long"
    assert error_of(sns.publish, TopicArn=arn, Message='{"sqs": "q"}', MessageStructure="json")[1] == (
        "Invalid parameter: Message Structure - No default entry in JSON message body"
    )
    assert error_of(sns.publish, TopicArn=arn, Message="m", MessageDeduplicationId="d")[1] == (
        "Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type"
    )
    attrs = {"attr1": {"DataType": "String", "StringValue": ""}}
    assert error_of(sns.publish, TopicArn=arn, Message="m", MessageAttributes=attrs) == (
        "ParameterValueInvalid",
        "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'String'.",
    )
    assert error_of(sns.publish, TopicArn=topic_arn("unknown"), Message="m") == ("NotFound", "Topic does not exist")
    assert error_of(sns.publish, TargetArn=f"arn:aws:sns:{REGION}:{ACCOUNT}:endpoint/GCM/app/x", Message="m")[1] == (
        "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"
    )
    assert error_of(sns.publish, PhoneNumber="+1a234", Message="m")[1] == "Invalid parameter: PhoneNumber Reason: +1a234 is not valid to publish to"
    assert "MessageId" in sns.publish(PhoneNumber="+15551234567", Message="hello")
    assert "MessageId" in sns.publish(TargetArn=arn, Message="by target")


def test_fifo_publish_needs_its_ids(sns):
    arn = sns.create_topic(Name="ids.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    assert error_of(sns.publish, TopicArn=arn, Message="m")[1] == "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"
    assert error_of(sns.publish, TopicArn=arn, Message="m", MessageGroupId="g")[1] == (
        "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
    )
    first = sns.publish(TopicArn=arn, Message="m", MessageGroupId="g", MessageDeduplicationId="d1")
    assert len(first["SequenceNumber"]) == 20
    again = sns.publish(TopicArn=arn, Message="m", MessageGroupId="g", MessageDeduplicationId="d1")
    assert again["MessageId"] == first["MessageId"]
    later = sns.publish(TopicArn=arn, Message="m", MessageGroupId="g", MessageDeduplicationId="d2")
    assert int(later["SequenceNumber"]) > int(first["SequenceNumber"])


def test_publish_batch_refusals(sns):
    arn = sns.create_topic(Name="batches")["TopicArn"]
    entry = lambda i: {"Id": f"e{i}", "Message": f"m{i}"}  # noqa: E731
    assert error_of(sns.publish_batch, TopicArn=arn, PublishBatchRequestEntries=[entry(i) for i in range(11)]) == (
        "TooManyEntriesInBatchRequest",
        "The batch request contains more entries than permissible.",
    )
    assert error_of(sns.publish_batch, TopicArn=arn, PublishBatchRequestEntries=[entry(1), entry(1)])[0] == "BatchEntryIdsNotDistinct"
    assert error_of(sns.publish_batch, TopicArn=arn, PublishBatchRequestEntries=[{"Id": "a.b", "Message": "m"}]) == (
        "InvalidBatchEntryId",
        "The Id of a batch entry in the batch request contains an impermissible character: a.b",
    )
    big = [{"Id": f"b{i}", "Message": "x" * 30_000} for i in range(10)]
    assert error_of(sns.publish_batch, TopicArn=arn, PublishBatchRequestEntries=big)[0] == "BatchRequestTooLong"
    done = sns.publish_batch(TopicArn=arn, PublishBatchRequestEntries=[entry(1), entry(2)])
    assert [s["Id"] for s in done["Successful"]] == ["e1", "e2"]
    assert done.get("Failed", []) == []


def test_sms_settings_are_kept(sns):
    sns.set_sms_attributes(attributes={"DefaultSMSType": "Transactional", "DefaultSenderID": "Stratus"})
    assert sns.get_sms_attributes()["attributes"] == {"DefaultSMSType": "Transactional", "DefaultSenderID": "Stratus"}
    assert error_of(sns.set_sms_attributes, attributes={"DefaultSMSType": "Loud"})[1] == "DefaultSMSType is invalid"
    assert sns.check_if_phone_number_is_opted_out(phoneNumber="+15551234567")["isOptedOut"] is False
    assert sns.list_phone_numbers_opted_out()["phoneNumbers"] == []


def test_platform_applications_and_endpoints_are_stored(sns):
    creds = {"PlatformPrincipal": "id", "PlatformCredential": "secret"}
    app = sns.create_platform_application(Name="mobile", Platform="GCM", Attributes=creds)["PlatformApplicationArn"]
    assert app == f"arn:aws:sns:{REGION}:{ACCOUNT}:app/GCM/mobile"
    assert sns.get_platform_application_attributes(PlatformApplicationArn=app)["Attributes"] == {"Enabled": "true"}
    assert error_of(sns.create_platform_application, Name="x", Platform="AAA", Attributes=creds)[1] == (
        "Invalid parameter: Platform Reason: AAA is not supported"
    )
    assert error_of(sns.create_platform_application, Name="x", Platform="GCM", Attributes={"PlatformPrincipal": "id"})[1] == (
        "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential"
    )
    endpoint = sns.create_platform_endpoint(PlatformApplicationArn=app, Token="t1", CustomUserData="bar")["EndpointArn"]
    assert endpoint.startswith(f"arn:aws:sns:{REGION}:{ACCOUNT}:endpoint/GCM/mobile/")
    assert sns.create_platform_endpoint(PlatformApplicationArn=app, Token="t1", CustomUserData="bar")["EndpointArn"] == endpoint
    assert "already exists with the same Token, but different attributes." in error_of(
        sns.create_platform_endpoint, PlatformApplicationArn=app, Token="t1", CustomUserData="other"
    )[1]
    assert sns.get_endpoint_attributes(EndpointArn=endpoint)["Attributes"] == {"CustomUserData": "bar", "Enabled": "true", "Token": "t1"}
    sns.set_endpoint_attributes(EndpointArn=endpoint, Attributes={"Enabled": "false"})
    listed = sns.list_endpoints_by_platform_application(PlatformApplicationArn=app)["Endpoints"]
    assert [(e["EndpointArn"], e["Attributes"]["Enabled"]) for e in listed] == [(endpoint, "false")]
    assert error_of(sns.set_endpoint_attributes, EndpointArn=endpoint, Attributes={"Colour": "x"})[1] == (
        "Invalid parameter: Attributes Reason: Invalid attribute name: Colour"
    )
    assert "MessageId" in sns.publish(TargetArn=endpoint, Message="pushed nowhere")
    sns.delete_platform_application(PlatformApplicationArn=app)
    assert error_of(sns.get_endpoint_attributes, EndpointArn=endpoint) == ("NotFound", "Endpoint does not exist")
    assert error_of(sns.list_endpoints_by_platform_application, PlatformApplicationArn=app) == (
        "NotFound",
        "PlatformApplication does not exist",
    )


def test_sms_sandbox_numbers_are_refused_by_name(sns):
    code, message = error_of(sns.list_sms_sandbox_phone_numbers)
    assert code == "NotImplemented" and "ListSMSSandboxPhoneNumbers" in message


def aws_cli(stratus, *args):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": REGION,
    }
    done = subprocess.run(
        [AWS_CLI, "--endpoint-url", stratus.endpoint, "--output", "json", "sns", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    return done


@pytest.mark.skipif(not os.path.exists(AWS_CLI), reason="the AWS CLI is not installed beside this Python")
def test_the_cli_creates_subscribes_and_publishes(stratus):
    made = aws_cli(stratus, "create-topic", "--name", "cli-topic", "--attributes", "DisplayName=From the CLI")
    assert made.returncode == 0, made.stderr
    arn = json.loads(made.stdout)["TopicArn"]
    listed = aws_cli(stratus, "list-topics")
    assert arn in [t["TopicArn"] for t in json.loads(listed.stdout)["Topics"]]
    attrs = json.loads(aws_cli(stratus, "get-topic-attributes", "--topic-arn", arn).stdout)["Attributes"]
    assert attrs["DisplayName"] == "From the CLI"
    sub = aws_cli(stratus, "subscribe", "--topic-arn", arn, "--protocol", "sqs", "--notification-endpoint", queue_arn("cli-q"))
    assert json.loads(sub.stdout)["SubscriptionArn"].startswith(arn + ":")
    published = aws_cli(
        stratus,
        "publish",
        "--topic-arn",
        arn,
        "--message",
        "hello",
        "--message-attributes",
        '{"kind": {"DataType": "String", "StringValue": "greeting"}}',
    )
    assert "MessageId" in json.loads(published.stdout), published.stderr
    missing = aws_cli(stratus, "get-topic-attributes", "--topic-arn", topic_arn("not-there"))
    assert missing.returncode != 0 and "Topic does not exist" in missing.stderr
