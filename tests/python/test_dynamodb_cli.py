"""DynamoDB and DynamoDB Streams through the AWS CLI against the real binary."""

import json
import os
import subprocess
import sys
import uuid

AWS = os.path.join(os.path.dirname(sys.executable), "aws")


def cli(stratus, service, *args):
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_PAGER": "",
    }
    done = subprocess.run(
        [AWS, "--endpoint-url", stratus.endpoint, "--output", "json", service, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None, done.stderr


def test_aws_cli_table_items_queries_and_statements(stratus):
    table = f"cli-{uuid.uuid4().hex[:10]}"
    rc, out, err = cli(
        stratus, "dynamodb", "create-table",
        "--table-name", table,
        "--attribute-definitions", "AttributeName=pk,AttributeType=S", "AttributeName=sk,AttributeType=N",
        "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
        "--billing-mode", "PAY_PER_REQUEST",
        "--stream-specification", "StreamEnabled=true,StreamViewType=NEW_IMAGE",
    )
    assert rc == 0, err
    assert out["TableDescription"]["TableStatus"] == "CREATING"
    rc, _, err = cli(stratus, "dynamodb", "wait", "table-exists", "--table-name", table)
    assert rc == 0, err
    for sk in range(3):
        item = {"pk": {"S": "p"}, "sk": {"N": str(sk)}, "v": {"S": f"v{sk}"}}
        rc, _, err = cli(stratus, "dynamodb", "put-item", "--table-name", table, "--item", json.dumps(item))
        assert rc == 0, err
    rc, out, err = cli(
        stratus, "dynamodb", "query", "--table-name", table,
        "--key-condition-expression", "pk = :p AND sk >= :low",
        "--expression-attribute-values", json.dumps({":p": {"S": "p"}, ":low": {"N": "1"}}),
    )
    assert rc == 0, err
    assert [i["sk"]["N"] for i in out["Items"]] == ["1", "2"]
    # The CLI paginates scans itself (MaxItems / PageSize) over ExclusiveStartKey.
    rc, out, err = cli(stratus, "dynamodb", "scan", "--table-name", table, "--page-size", "2")
    assert rc == 0, err
    assert out["Count"] == 3 and len(out["Items"]) == 3
    rc, out, err = cli(
        stratus, "dynamodb", "execute-statement",
        "--statement", f"SELECT v FROM \"{table}\" WHERE pk = ? AND sk = ?",
        "--parameters", json.dumps([{"S": "p"}, {"N": "2"}]),
    )
    assert rc == 0, err
    assert out["Items"] == [{"v": {"S": "v2"}}]
    rc, out, err = cli(
        stratus, "dynamodb", "execute-statement",
        "--statement", f"INSERT INTO \"{table}\" VALUE {{'pk': 'p', 'sk': 0}}",
    )
    assert rc != 0 and "DuplicateItemException" in err
    rc, out, err = cli(stratus, "dynamodbstreams", "list-streams", "--table-name", table)
    assert rc == 0, err
    assert [s["TableName"] for s in out["Streams"]] == [table]
    rc, out, err = cli(stratus, "dynamodb", "delete-table", "--table-name", table)
    assert rc == 0, err
