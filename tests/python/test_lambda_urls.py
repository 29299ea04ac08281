"""Function URLs served: a request to `http://<url-id>.lambda-url.<region>.localhost.localstack.cloud:PORT/`
(or `/_stratus/lambda-url/<url-id>/` on the main port) reaches the function as the payload
format 2.0 event, and its answer comes back as HTTP, as "Invoking Lambda function URLs" in
AWS's Lambda developer guide describes."""

import json
import urllib.parse

import pytest
import requests

from test_lambda_invoke import python_function, role  # noqa: F401 (role is a fixture)

ECHO = """
import json

def handler(event, context):
    if event["rawPath"] == "/plain":
        return {"just": "json"}
    if event["rawPath"] == "/fail":
        raise RuntimeError("no")
    return {
        "statusCode": 201,
        "headers": {"X-Echo": "yes", "Content-Type": "application/json"},
        "cookies": ["session=1; Max-Age=60"],
        "body": json.dumps(event),
    }
"""


@pytest.fixture(scope="module")
def lam(stratus):
    return stratus.client("lambda")


@pytest.fixture(scope="module")
def function(lam, role):
    return python_function(lam, role, source=ECHO)


@pytest.fixture(scope="module")
def url(lam, function):
    config = lam.create_function_url_config(
        FunctionName=function,
        AuthType="NONE",
        Cors={"AllowOrigins": ["https://app.example"], "AllowMethods": ["GET", "POST"], "MaxAge": 30},
    )
    return config["FunctionUrl"]


def via_host(stratus, url, path, **kwargs):
    """Sends to the server the request `url` + `path` names, by its Host header (the
    `localhost.localstack.cloud` name need not resolve here)."""
    host = urllib.parse.urlparse(url).netloc
    method = kwargs.pop("method", "GET")
    headers = {"Host": host, **kwargs.pop("headers", {})}
    return requests.request(method, stratus.endpoint + path, headers=headers, timeout=60, **kwargs)


def test_the_url_names_the_region_and_the_servers_port(stratus, url):
    parsed = urllib.parse.urlparse(url)
    assert parsed.scheme == "http" and parsed.path == "/"
    assert parsed.hostname.endswith(".lambda-url.us-east-1.localhost.localstack.cloud")
    assert parsed.port == urllib.parse.urlparse(stratus.endpoint).port
    assert len(parsed.hostname.split(".")[0]) == 32


def test_a_request_becomes_the_version_2_event(stratus, url):
    answer = via_host(
        stratus,
        url,
        "/some/path?a=1&a=2&b=x%20y",
        method="POST",
        data=b'{"k": "v"}',
        headers={"Content-Type": "application/json", "Cookie": "c1=v1; c2=v2"},
    )
    assert answer.status_code == 201
    assert answer.headers["x-echo"] == "yes"
    assert answer.headers["set-cookie"] == "session=1; Max-Age=60"
    event = answer.json()
    assert event["version"] == "2.0" and event["routeKey"] == "$default"
    assert event["rawPath"] == "/some/path"
    assert event["rawQueryString"] == "a=1&a=2&b=x%20y"
    assert event["queryStringParameters"] == {"a": "1,2", "b": "x y"}
    assert event["cookies"] == ["c1=v1", "c2=v2"]
    assert event["body"] == '{"k": "v"}' and event["isBase64Encoded"] is False
    context = event["requestContext"]
    assert context["http"]["method"] == "POST" and context["http"]["path"] == "/some/path"
    assert context["accountId"] == "000000000000"
    assert context["domainPrefix"] == urllib.parse.urlparse(url).hostname.split(".")[0]


def test_the_path_form_reaches_the_same_function(stratus, url):
    url_id = urllib.parse.urlparse(url).hostname.split(".")[0]
    answer = requests.get(f"{stratus.endpoint}/_stratus/lambda-url/{url_id}/plain", timeout=60)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"just": "json"}


def test_binary_bodies_arrive_base64_encoded(stratus, url):
    answer = via_host(stratus, url, "/bin", method="PUT", data=b"\x00\xff", headers={"Content-Type": "image/png"})
    event = answer.json()
    assert event["isBase64Encoded"] is True and event["body"] == "AP8="


def test_a_failing_function_is_a_502(stratus, url):
    assert via_host(stratus, url, "/fail").status_code == 502


def test_cors_preflight_and_origin_headers(stratus, url):
    preflight = via_host(
        stratus,
        url,
        "/",
        method="OPTIONS",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    assert preflight.headers["access-control-max-age"] == "30"
    answer = via_host(stratus, url, "/plain", headers={"Origin": "https://app.example"})
    assert answer.headers["access-control-allow-origin"] == "https://app.example"
    refused = via_host(stratus, url, "/plain", headers={"Origin": "https://other.example"})
    assert "access-control-allow-origin" not in refused.headers


def test_an_unknown_or_deleted_url_is_forbidden(stratus, lam, function, url):
    other = url.replace(urllib.parse.urlparse(url).hostname.split(".")[0], "a" * 20 + "000000000000")
    assert via_host(stratus, other, "/").status_code == 403
    lam.delete_function_url_config(FunctionName=function)
    answer = via_host(stratus, url, "/plain")
    assert answer.status_code == 403 and answer.json() == {"Message": "Forbidden"}


def test_aws_iam_urls_need_a_signed_request(stratus, lam, role):
    name = python_function(lam, role, source="def handler(e, c):\n    return {'ok': True}\n")
    url = lam.create_function_url_config(FunctionName=name, AuthType="AWS_IAM")["FunctionUrl"]
    assert via_host(stratus, url, "/").status_code == 403
