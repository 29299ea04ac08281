"""SNS deliveries to `http` endpoints, against a real HTTP server on loopback: the confirmation
handshake (SNS developer guide, "Fanout to HTTP/S endpoints": SubscriptionConfirmation, then
ConfirmSubscription by token or by visiting SubscribeURL), notifications with SNS's headers
("HTTP/HTTPS headers"), raw delivery, and the default retry policy on the manual clock (three
retries, 20 seconds apart)."""

import http.server
import json
import queue
import threading
import time
import urllib.request

import pytest

from conftest import Stratus
from sns_signature import verify_signature


class Endpoint:
    """An HTTP server that records each POST and answers with the status its path asks for:
    `/ok`, or `/fail` (500 for notifications, 200 for confirmations)."""

    def __init__(self):
        self.posts = queue.Queue()
        posts = self.posts

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                posts.put((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                failing = self.path == "/fail" and self.headers["x-amz-sns-message-type"] == "Notification"
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next_post(self, timeout=10):
        return self.posts.get(timeout=timeout)

    def nothing_posted(self, wait=0.5):
        try:
            self.posts.get(timeout=wait)
        except queue.Empty:
            return True
        return False


@pytest.fixture(scope="module")
def server():
    server = Stratus("--ephemeral", "--clock", "manual")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def endpoint():
    endpoint = Endpoint()
    yield endpoint
    endpoint.server.shutdown()


def subscribed(sns, endpoint, topic, path, **attributes):
    """Subscribes `path` of the endpoint and answers (its confirmation, its ARN once confirmed
    by token)."""
    answer = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url + path, Attributes=attributes)
    assert answer["SubscriptionArn"] == "pending confirmation"
    _, headers, body = endpoint.next_post()
    assert headers["x-amz-sns-message-type"] == "SubscriptionConfirmation"
    confirmation = json.loads(body)
    arn = sns.confirm_subscription(TopicArn=topic, Token=confirmation["Token"])["SubscriptionArn"]
    return confirmation, arn


def test_the_endpoint_confirms_by_visiting_the_subscribe_url(server, endpoint):
    sns = server.client("sns")
    topic = sns.create_topic(Name="web-hooks")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url + "/ok")
    path, headers, body = endpoint.next_post()
    assert path == "/ok"
    assert headers["x-amz-sns-message-type"] == "SubscriptionConfirmation"
    assert headers["x-amz-sns-topic-arn"] == topic
    assert "x-amz-sns-subscription-arn" not in headers
    assert headers["content-type"] == "text/plain; charset=UTF-8"
    confirmation = json.loads(body)
    assert list(confirmation) == [
        "Type",
        "MessageId",
        "Token",
        "TopicArn",
        "Message",
        "SubscribeURL",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
    ]
    verify_signature(confirmation)
    assert confirmation["MessageId"] == headers["x-amz-sns-message-id"]
    assert confirmation["SubscribeURL"].startswith(server.endpoint + "/?Action=ConfirmSubscription&")
    [pending] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert pending["SubscriptionArn"] == "PendingConfirmation"
    with urllib.request.urlopen(confirmation["SubscribeURL"], timeout=10) as answer:
        assert answer.status == 200
        assert b"<SubscriptionArn>" in answer.read()
    [confirmed] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert confirmed["SubscriptionArn"].startswith(topic + ":")


def test_notifications_carry_snss_headers_and_envelope(server, endpoint):
    sns = server.client("sns")
    topic = sns.create_topic(Name="notified")["TopicArn"]
    _, arn = subscribed(sns, endpoint, topic, "/ok")
    published = sns.publish(
        TopicArn=topic,
        Message="hello",
        Subject="greeting",
        MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}},
    )
    path, headers, body = endpoint.next_post()
    assert headers["x-amz-sns-message-type"] == "Notification"
    assert headers["x-amz-sns-message-id"] == published["MessageId"]
    assert headers["x-amz-sns-subscription-arn"] == arn
    assert headers["user-agent"] == "Amazon Simple Notification Service Agent"
    note = json.loads(body)
    assert (note["Type"], note["Message"], note["Subject"], note["TopicArn"]) == ("Notification", "hello", "greeting", topic)
    assert note["MessageAttributes"] == {"k": {"Type": "String", "Value": "v"}}
    assert note["UnsubscribeURL"].endswith(arn)
    verify_signature(note)


def test_raw_delivery_posts_the_message_alone(server, endpoint):
    sns = server.client("sns")
    topic = sns.create_topic(Name="raw-hooks")["TopicArn"]
    subscribed(sns, endpoint, topic, "/ok", RawMessageDelivery="true")
    sns.publish(TopicArn=topic, Message='{"just": "this"}')
    _, headers, body = endpoint.next_post()
    assert body == '{"just": "this"}'
    assert headers["x-amz-sns-rawdelivery"] == "true"


def test_a_failing_endpoint_gets_three_retries_20_seconds_apart(server, endpoint):
    sns = server.client("sns")
    topic = sns.create_topic(Name="flaky-hooks")["TopicArn"]
    subscribed(sns, endpoint, topic, "/fail")
    published = sns.publish(TopicArn=topic, Message="again and again")
    for attempt in range(4):
        _, headers, _ = endpoint.next_post()
        assert headers["x-amz-sns-message-id"] == published["MessageId"], attempt
        # The failed attempt is written back due 20 s on; let that write land first.
        time.sleep(0.3)
        assert endpoint.nothing_posted(0.1)
        server.advance(20)
    assert endpoint.nothing_posted()
