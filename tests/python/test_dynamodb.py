"""DynamoDB through boto3 against the real binary: tables, items, queries, batches and
transactions, with AWS's refusals. Expected messages are DynamoDB's answers as recorded by
dynalite's test suite (mhart/dynalite test/*.js) unless a test says otherwise."""

import time
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import ACCOUNT, Stratus


@pytest.fixture
def ddb(stratus):
    return stratus.client("dynamodb")


def name(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def create(ddb, table=None, range_key=None, **extra):
    table = table or name()
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    attrs += extra.pop("extra_attrs", [])
    ddb.create_table(
        TableName=table,
        AttributeDefinitions=attrs,
        KeySchema=schema,
        BillingMode=extra.pop("BillingMode", "PAY_PER_REQUEST"),
        **extra,
    )
    return table


def refused(call, code, message=None, **kwargs):
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    error = err.value.response["Error"]
    assert error["Code"] == code, error
    if message is not None:
        assert error["Message"] == message, error
    return err.value.response


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


# ---- tables ----


def test_create_describe_round_trip(ddb):
    table = name()
    out = ddb.create_table(
        TableName=table,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"},
            {"AttributeName": "l", "AttributeType": "B"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[
            {
                "IndexName": "lsi",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gsi",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]},
                "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
            }
        ],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        Tags=[{"Key": "env", "Value": "test"}],
        DeletionProtectionEnabled=True,
        TableClass="STANDARD_INFREQUENT_ACCESS",
    )["TableDescription"]
    arn = f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{table}"
    assert out["TableArn"] == arn
    # As recorded from AWS: CreateTable answers CREATING, and the table is ACTIVE after.
    assert out["TableStatus"] == "CREATING"
    desc = ddb.describe_table(TableName=table)["Table"]
    assert desc["TableStatus"] == "ACTIVE"
    assert desc["TableArn"] == arn and desc["TableId"] == out["TableId"]
    assert desc["ItemCount"] == 0 and desc["TableSizeBytes"] == 0
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    # AWS summarises the billing mode only of tables that are or were on demand.
    assert "BillingModeSummary" not in desc
    assert desc["WarmThroughput"] == {"ReadUnitsPerSecond": 5, "WriteUnitsPerSecond": 6, "Status": "ACTIVE"}
    assert desc["DeletionProtectionEnabled"] is True
    assert desc["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert desc["LatestStreamArn"] == f"{arn}/stream/{desc['LatestStreamLabel']}"
    gsi = desc["GlobalSecondaryIndexes"][0]
    assert gsi["IndexArn"] == f"{arn}/index/gsi" and gsi["IndexStatus"] == "ACTIVE"
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]}
    assert desc["LocalSecondaryIndexes"][0]["IndexArn"] == f"{arn}/index/lsi"
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}]
    assert isinstance(desc["CreationDateTime"].timestamp(), float)


def test_create_duplicate_is_resource_in_use(ddb):
    table = create(ddb)
    refused(
        lambda: create(ddb, table),
        "ResourceInUseException",
        f"Table already exists: {table}",
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(
                AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "b", "KeyType": "HASH"}],
            ),
            "One or more parameter values were invalid: Some index key attributes are not defined in "
            "AttributeDefinitions. Keys: [b], AttributeDefinitions: [a]",
        ),
        (
            dict(
                AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "a", "KeyType": "RANGE"}],
            ),
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ),
        (
            dict(
                AttributeDefinitions=[
                    {"AttributeName": "a", "AttributeType": "S"},
                    {"AttributeName": "b", "AttributeType": "S"},
                ],
                KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}],
            ),
            "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly "
            "match number of attributes defined in AttributeDefinitions",
        ),
        (
            dict(
                AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}],
                ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            ),
            "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be "
            "specified when BillingMode is PAY_PER_REQUEST",
        ),
        (
            dict(
                AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}],
                LocalSecondaryIndexes=[
                    {
                        "IndexName": "lsi",
                        "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                ],
            ),
            "One or more parameter values were invalid: Table KeySchema does not have a range key, which is "
            "required when specifying a LocalSecondaryIndex",
        ),
    ],
)
def test_create_table_refusals(ddb, kwargs, message):
    refused(ddb.create_table, "ValidationException", message, TableName=name(), BillingMode="PAY_PER_REQUEST", **kwargs)


def test_provisioned_needs_throughput(ddb):
    refused(
        ddb.create_table,
        "ValidationException",
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be "
        "specified when BillingMode is PROVISIONED",
        TableName=name(),
        AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}],
    )


def test_list_tables_pages(ddb, stratus):
    fresh = stratus.client("dynamodb", aws_access_key_id="111122223333")
    tables = sorted(create(fresh, f"list-{i}") for i in range(3))
    first = fresh.list_tables(Limit=2)
    assert first["TableNames"] == tables[:2]
    assert first["LastEvaluatedTableName"] == tables[1]
    rest = fresh.list_tables(ExclusiveStartTableName=tables[1])
    assert rest["TableNames"] == tables[2:]
    assert "LastEvaluatedTableName" not in rest


def test_describe_and_delete_missing_table(ddb):
    refused(
        ddb.describe_table,
        "ResourceNotFoundException",
        "Requested resource not found: Table: nope not found",
        TableName="nope",
    )
    refused(ddb.delete_table, "ResourceNotFoundException", TableName="nope")


def test_delete_table_and_protection(ddb):
    table = create(ddb, DeletionProtectionEnabled=True)
    refused(ddb.delete_table, "ValidationException", TableName=table)
    ddb.update_table(TableName=table, DeletionProtectionEnabled=False)
    ddb.put_item(TableName=table, Item={"pk": S("a")})
    out = ddb.delete_table(TableName=table)["TableDescription"]
    assert out["TableStatus"] == "DELETING"
    refused(ddb.describe_table, "ResourceNotFoundException", TableName=table)
    create(ddb, table)
    assert ddb.scan(TableName=table)["Items"] == []


# The shapes below are AWS's as recorded by LocalStack's AWS-validated DynamoDB tests
# (../shared/parity): each answer describes a table in its own way.
def test_delete_table_answer_leaves_out_the_schema(ddb):
    table = create(ddb, BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    out = ddb.delete_table(TableName=table)["TableDescription"]
    assert sorted(out) == [
        "DeletionProtectionEnabled", "ItemCount", "ProvisionedThroughput", "TableArn", "TableId",
        "TableName", "TableSizeBytes", "TableStatus",
    ]


def test_on_demand_billing_summary_and_warm_throughput(ddb):
    table = create(
        ddb,
        extra_attrs=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}
        ],
    )
    desc = ddb.describe_table(TableName=table)["Table"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "LastUpdateToPayPerRequestDateTime" in desc["BillingModeSummary"]
    on_demand = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    assert desc["WarmThroughput"] == on_demand
    assert desc["GlobalSecondaryIndexes"][0]["WarmThroughput"] == on_demand


def test_requested_warm_throughput_is_updating_then_active(ddb):
    out = ddb.create_table(
        TableName=name(),
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        WarmThroughput={"ReadUnitsPerSecond": 1000, "WriteUnitsPerSecond": 1200},
    )["TableDescription"]
    assert "BillingModeSummary" not in out
    assert out["WarmThroughput"] == {"ReadUnitsPerSecond": 1000, "WriteUnitsPerSecond": 1200, "Status": "UPDATING"}
    desc = ddb.describe_table(TableName=out["TableName"])["Table"]
    assert desc["WarmThroughput"] == {"ReadUnitsPerSecond": 1000, "WriteUnitsPerSecond": 1200, "Status": "ACTIVE"}


def test_table_arn_stands_for_its_name(ddb):
    table = create(ddb)
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.put_item(TableName=arn, Item={"pk": S("a")})
    assert ddb.get_item(TableName=arn, Key={"pk": S("a")})["Item"] == {"pk": S("a")}
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": arn, "Item": {"pk": S("b")}}}])
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": arn, "Key": {"pk": S("b")}}}])
    assert got["Responses"] == [{"Item": {"pk": S("b")}}]
    other_region = arn.replace(":us-east-1:", ":eu-west-1:")
    refused(ddb.get_item, "ResourceNotFoundException", TableName=other_region, Key={"pk": S("a")})


def test_repeated_idempotent_transaction_reports_no_capacity(ddb):
    table = create(ddb)
    write = dict(ClientRequestToken="once", TransactItems=[{"Put": {"TableName": table, "Item": {"pk": S("a")}}}])
    assert "ConsumedCapacity" not in ddb.transact_write_items(**write)
    assert "ConsumedCapacity" not in ddb.transact_write_items(**write)


def test_update_table_billing_and_stream(ddb):
    table = create(ddb)
    out = ddb.update_table(
        TableName=table,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
    )["TableDescription"]
    assert out["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert out["ProvisionedThroughput"]["WriteCapacityUnits"] == 4
    refused(
        ddb.update_table,
        "ValidationException",
        TableName=table,
        ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
    )
    out = ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert "LatestStreamArn" in out["TableDescription"]
    refused(ddb.update_table, "ValidationException", TableName=table)
    refused(ddb.update_table, "ResourceNotFoundException", TableName="missing-table", DeletionProtectionEnabled=True)


def test_update_table_creates_gsi_with_backfill_and_deletes_it(ddb):
    table = create(ddb)
    for i in range(5):
        item = {"pk": S(f"k{i}")}
        if i % 2 == 0:
            item["g"] = S("even")
        ddb.put_item(TableName=table, Item=item)
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by-g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    out = ddb.query(
        TableName=table,
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": S("even")},
    )
    assert sorted(i["pk"]["S"] for i in out["Items"]) == ["k0", "k2", "k4"]
    gsi = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["ItemCount"] == 3 and gsi["IndexSizeBytes"] == 3 * (len("pk") + 2 + len("g") + 4)
    ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by-g"}}])
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=table)["Table"]
    refused(
        ddb.query,
        "ValidationException",
        "The table does not have the specified index: by-g",
        TableName=table,
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": S("even")},
    )


def test_tags(ddb):
    table = create(ddb)
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "b", "Value": "2"}, {"Key": "a", "Value": "1"}])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "3"}])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "a", "Value": "3"},
        {"Key": "b", "Value": "2"},
    ]
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "b", "Value": "2"}]
    refused(
        ddb.list_tags_of_resource,
        "ResourceNotFoundException",
        ResourceArn=f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/missing",
    )


def test_time_to_live(ddb):
    table = create(ddb)
    assert ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    spec = {"Enabled": True, "AttributeName": "expires"}
    assert ddb.update_time_to_live(TableName=table, TimeToLiveSpecification=spec)["TimeToLiveSpecification"] == spec
    assert ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires",
    }
    refused(
        ddb.update_time_to_live,
        "ValidationException",
        "TimeToLive is already enabled",
        TableName=table,
        TimeToLiveSpecification=spec,
    )


def test_limits_and_endpoints(ddb):
    limits = ddb.describe_limits()
    assert limits["TableMaxReadCapacityUnits"] == 40000
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": "dynamodb.us-east-1.amazonaws.com", "CachePeriodInMinutes": 1440}]


# ---- items ----


def test_put_get_delete(ddb):
    table = create(ddb, range_key=("sk", "N"))
    item = {"pk": S("a"), "sk": N(1), "m": {"M": {"l": {"L": [S("x"), {"NULL": True}]}}}, "ss": {"SS": ["b", "a"]}}
    assert "Attributes" not in ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={"pk": S("a"), "sk": N(1)})["Item"]
    assert got["m"] == item["m"] and sorted(got["ss"]["SS"]) == ["a", "b"]
    old = ddb.put_item(TableName=table, Item={"pk": S("a"), "sk": N(1)}, ReturnValues="ALL_OLD")["Attributes"]
    assert old["m"] == item["m"]
    out = ddb.get_item(
        TableName=table,
        Key={"pk": S("a"), "sk": N("1.0")},
        ProjectionExpression="#p",
        ExpressionAttributeNames={"#p": "pk"},
    )
    assert out["Item"] == {"pk": S("a")}
    deleted = ddb.delete_item(TableName=table, Key={"pk": S("a"), "sk": N(1)}, ReturnValues="ALL_OLD")
    assert deleted["Attributes"] == {"pk": S("a"), "sk": N(1)}
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": S("a"), "sk": N(1)})
    desc = ddb.describe_table(TableName=table)["Table"]
    assert desc["ItemCount"] == 0


def test_item_count_and_size(ddb):
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("ab"), "v": S("xyz")})
    desc = ddb.describe_table(TableName=table)["Table"]
    assert desc["ItemCount"] == 1 and desc["TableSizeBytes"] == len("pk") + 2 + len("v") + 3


def test_key_refusals(ddb):
    table = create(ddb, range_key=("sk", "N"))
    refused(
        ddb.put_item,
        "ValidationException",
        "One or more parameter values were invalid: Missing the key sk in the item",
        TableName=table,
        Item={"pk": S("a")},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S",
        TableName=table,
        Item={"pk": S("a"), "sk": S("1")},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
        TableName=table,
        Item={"pk": S(""), "sk": N(1)},
    )
    refused(
        ddb.get_item,
        "ValidationException",
        "The provided key element does not match the schema",
        TableName=table,
        Key={"pk": S("a")},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes",
        TableName=table,
        Item={"pk": S("a" * 2049), "sk": N(1)},
    )
    refused(ddb.get_item, "ResourceNotFoundException", "Requested resource not found", TableName="nope", Key={})


def test_item_size_limit(ddb):
    table = create(ddb)
    refused(
        ddb.put_item,
        "ValidationException",
        "Item size has exceeded the maximum allowed size",
        TableName=table,
        Item={"pk": S("a"), "big": S("x" * 400 * 1024)},
    )


def test_condition_expressions(ddb):
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(1)})
    response = refused(
        ddb.put_item,
        "ConditionalCheckFailedException",
        "The conditional request failed",
        TableName=table,
        Item={"pk": S("a")},
        ConditionExpression="attribute_not_exists(pk)",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert response["Item"] == {"pk": S("a"), "v": N(1)}
    ddb.put_item(
        TableName=table,
        Item={"pk": S("a"), "v": N(2)},
        ConditionExpression="v = :one",
        ExpressionAttributeValues={":one": N(1)},
    )
    refused(
        ddb.delete_item,
        "ConditionalCheckFailedException",
        TableName=table,
        Key={"pk": S("a")},
        ConditionExpression="v = :one",
        ExpressionAttributeValues={":one": N(1)},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:two}",
        TableName=table,
        Item={"pk": S("a")},
        ConditionExpression="v = :one",
        ExpressionAttributeValues={":one": N(1), ":two": N(2)},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions",
        TableName=table,
        Item={"pk": S("a")},
        ExpressionAttributeValues={":one": N(1)},
    )
    refused(
        ddb.put_item,
        "ValidationException",
        "Return values set to invalid value",
        TableName=table,
        Item={"pk": S("a")},
        ReturnValues="ALL_NEW",
    )


def test_update_item(ddb):
    table = create(ddb)
    out = ddb.update_item(
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="SET #n = :n ADD hits :one",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":n": S("x"), ":one": N(1)},
        ReturnValues="ALL_NEW",
    )
    assert out["Attributes"] == {"pk": S("a"), "name": S("x"), "hits": N(1)}
    out = ddb.update_item(
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="ADD hits :one",
        ExpressionAttributeValues={":one": N(1)},
        ReturnValues="UPDATED_OLD",
    )
    assert out["Attributes"] == {"hits": N(1)}
    out = ddb.update_item(
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="REMOVE #n",
        ExpressionAttributeNames={"#n": "name"},
        ConditionExpression="hits = :two",
        ExpressionAttributeValues={":two": N(2)},
        ReturnValues="UPDATED_NEW",
    )
    assert "Attributes" not in out
    assert ddb.get_item(TableName=table, Key={"pk": S("a")})["Item"] == {"pk": S("a"), "hits": N(2)}
    refused(
        ddb.update_item,
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="SET pk = :v",
        ExpressionAttributeValues={":v": S("b")},
    )
    refused(
        ddb.update_item,
        "ConditionalCheckFailedException",
        TableName=table,
        Key={"pk": S("zz")},
        UpdateExpression="SET v = :v",
        ConditionExpression="attribute_exists(pk)",
        ExpressionAttributeValues={":v": S("b")},
    )
    refused(
        ddb.update_item,
        "ValidationException",
        "The provided expression refers to an attribute that does not exist in the item",
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="SET v = nope + :v",
        ExpressionAttributeValues={":v": N(1)},
    )


def gsi_table(ddb, projection=None):
    return create(
        ddb,
        range_key=("sk", "N"),
        extra_attrs=[{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "gs", "AttributeType": "N"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gsi",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "gs", "KeyType": "RANGE"}],
                "Projection": projection or {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )


def test_index_maintenance(ddb):
    table = gsi_table(ddb)
    refused(
        ddb.put_item,
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gsi",
        TableName=table,
        Item={"pk": S("a"), "sk": N(1), "g": N(1)},
    )
    ddb.put_item(TableName=table, Item={"pk": S("a"), "sk": N(1), "g": S("x"), "gs": N(5), "other": S("o")})
    ddb.put_item(TableName=table, Item={"pk": S("b"), "sk": N(1), "g": S("x")})  # no gs: not indexed

    def index_keys():
        out = ddb.scan(TableName=table, IndexName="gsi")
        return [(i["pk"]["S"], i["gs"]["N"]) for i in out["Items"]]

    assert index_keys() == [("a", "5")]
    assert ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"] == 1
    item = ddb.scan(TableName=table, IndexName="gsi")["Items"][0]
    assert "other" not in item
    ddb.update_item(
        TableName=table,
        Key={"pk": S("a"), "sk": N(1)},
        UpdateExpression="SET gs = :v",
        ExpressionAttributeValues={":v": N(7)},
    )
    assert index_keys() == [("a", "7")]
    ddb.delete_item(TableName=table, Key={"pk": S("a"), "sk": N(1)})
    assert index_keys() == []
    assert ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"] == 0


# ---- query and scan ----


def fill(ddb, table, pk="p", count=10):
    for i in range(count):
        ddb.put_item(TableName=table, Item={"pk": S(pk), "sk": N(i), "odd": {"BOOL": i % 2 == 1}, "s": S(f"v{i}")})


def test_query_sort_conditions(ddb):
    table = create(ddb, range_key=("sk", "N"))
    fill(ddb, table)
    fill(ddb, table, pk="other", count=3)

    def sks(expression, **values):
        out = ddb.query(
            TableName=table,
            KeyConditionExpression="pk = :p" + (f" AND {expression}" if expression else ""),
            ExpressionAttributeValues={":p": S("p"), **{f":{k}": N(v) for k, v in values.items()}},
        )
        return [int(i["sk"]["N"]) for i in out["Items"]]

    assert sks("") == list(range(10))
    assert sks("sk = :a", a=3) == [3]
    assert sks("sk < :a", a=3) == [0, 1, 2]
    assert sks("sk <= :a", a=3) == [0, 1, 2, 3]
    assert sks("sk > :a", a=7) == [8, 9]
    assert sks("sk >= :a", a=7) == [7, 8, 9]
    assert sks("sk BETWEEN :a AND :b", a=2, b=4) == [2, 3, 4]
    assert sks(":a < sk", a=8) == [9]


def test_query_paging_filter_and_select(ddb):
    table = create(ddb, range_key=("sk", "N"))
    fill(ddb, table)
    out = ddb.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        FilterExpression="odd = :t",
        ExpressionAttributeValues={":p": S("p"), ":t": {"BOOL": True}},
        Limit=4,
        ScanIndexForward=False,
    )
    assert [i["sk"]["N"] for i in out["Items"]] == ["9", "7"]
    assert out["Count"] == 2 and out["ScannedCount"] == 4
    assert out["LastEvaluatedKey"] == {"pk": S("p"), "sk": N(6)}
    rest = ddb.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": S("p")},
        ExclusiveStartKey=out["LastEvaluatedKey"],
        ScanIndexForward=False,
    )
    assert [i["sk"]["N"] for i in rest["Items"]] == ["5", "4", "3", "2", "1", "0"]
    assert "LastEvaluatedKey" not in rest
    count = ddb.query(
        TableName=table, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S("p")}, Select="COUNT"
    )
    assert count["Count"] == 10 and "Items" not in count
    projected = ddb.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND sk = :z",
        ExpressionAttributeValues={":p": S("p"), ":z": N(0)},
        ProjectionExpression="s",
    )
    assert projected["Items"] == [{"s": S("v0")}]


def test_query_strings_begins_with(ddb):
    table = create(ddb, range_key=("sk", "S"))
    for sk in ["a", "ab", "abc", "b", "a\u0000z"]:
        ddb.put_item(TableName=table, Item={"pk": S("p"), "sk": S(sk)})
    out = ddb.query(
        TableName=table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :a)",
        ExpressionAttributeValues={":p": S("p"), ":a": S("ab")},
    )
    assert [i["sk"]["S"] for i in out["Items"]] == ["ab", "abc"]


def test_query_refusals(ddb):
    table = create(ddb, range_key=("sk", "N"))
    refused(
        ddb.query,
        "ValidationException",
        "Query condition missed key schema element: pk",
        TableName=table,
        KeyConditionExpression="sk = :v",
        ExpressionAttributeValues={":v": N(1)},
    )
    refused(
        ddb.query,
        "ValidationException",
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
        TableName=table,
        KeyConditionExpression="pk = :v",
        ExpressionAttributeValues={":v": N(1)},
    )
    refused(
        ddb.query,
        "ValidationException",
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
        TableName=table,
        KeyConditionExpression="pk = :v",
        ExpressionAttributeValues={":v": S("a")},
        Select="ALL_PROJECTED_ATTRIBUTES",
    )
    refused(
        ddb.query,
        "ValidationException",
        "The provided starting key is invalid: The provided key element does not match the schema",
        TableName=table,
        KeyConditionExpression="pk = :v",
        ExpressionAttributeValues={":v": S("a")},
        ExclusiveStartKey={"pk": S("a")},
    )


def test_query_index(ddb):
    table = gsi_table(ddb, {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["inc"]})
    for i in range(4):
        ddb.put_item(
            TableName=table,
            Item={"pk": S(f"p{i}"), "sk": N(i), "g": S("G"), "gs": N(10 - i), "inc": S("yes"), "exc": S("no")},
        )
    out = ddb.query(
        TableName=table,
        IndexName="gsi",
        KeyConditionExpression="g = :g AND gs > :min",
        ExpressionAttributeValues={":g": S("G"), ":min": N(7)},
        Limit=2,
    )
    assert [i["gs"]["N"] for i in out["Items"]] == ["8", "9"]
    assert all("exc" not in i and i["inc"] == S("yes") for i in out["Items"])
    assert out["LastEvaluatedKey"] == {"pk": S("p1"), "sk": N(1), "g": S("G"), "gs": N(9)}
    rest = ddb.query(
        TableName=table,
        IndexName="gsi",
        KeyConditionExpression="g = :g AND gs > :min",
        ExpressionAttributeValues={":g": S("G"), ":min": N(7)},
        ExclusiveStartKey=out["LastEvaluatedKey"],
    )
    assert [i["gs"]["N"] for i in rest["Items"]] == ["10"]
    refused(
        ddb.query,
        "ValidationException",
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global "
        "secondary index gsi because its projection type is not ALL",
        TableName=table,
        IndexName="gsi",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": S("G")},
        Select="ALL_ATTRIBUTES",
    )


def test_scan_segments_and_filter(ddb):
    table = create(ddb)
    for i in range(40):
        ddb.put_item(TableName=table, Item={"pk": S(f"k{i}"), "n": N(i)})
    seen = []
    for segment in range(3):
        out = ddb.scan(TableName=table, Segment=segment, TotalSegments=3)
        seen += [i["pk"]["S"] for i in out["Items"]]
    assert sorted(seen) == sorted(f"k{i}" for i in range(40))
    out = ddb.scan(TableName=table, FilterExpression="n >= :m", ExpressionAttributeValues={":m": N(35)})
    assert out["Count"] == 5 and out["ScannedCount"] == 40
    refused(
        ddb.scan,
        "ValidationException",
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 3 is not "
        "less than TotalSegments: 3",
        TableName=table,
        Segment=3,
        TotalSegments=3,
    )
    pages, start = 0, None
    while True:
        kwargs = {"ExclusiveStartKey": start} if start else {}
        out = ddb.scan(TableName=table, Limit=15, **kwargs)
        pages += 1
        start = out.get("LastEvaluatedKey")
        if not start:
            break
    assert pages == 3


def test_scan_page_stops_at_one_megabyte(ddb):
    table = create(ddb)
    for i in range(12):
        ddb.put_item(TableName=table, Item={"pk": S(f"k{i:02}"), "blob": S("x" * 100_000)})
    out = ddb.scan(TableName=table, Select="COUNT")
    assert out["ScannedCount"] == 11 and "LastEvaluatedKey" in out


def test_scan_ten_thousand_items_is_fast(ddb):
    table = create(ddb)
    for start in range(0, 10_000, 25):
        ddb.batch_write_item(
            RequestItems={table: [{"PutRequest": {"Item": {"pk": S(f"k{i}"), "n": N(i)}}} for i in range(start, start + 25)]}
        )
    began = time.perf_counter()
    out = ddb.scan(TableName=table, Select="COUNT")
    assert out["Count"] == 10_000
    assert time.perf_counter() - began < 1.0


# ---- batches ----


def test_batch_write_and_get(ddb):
    table = create(ddb)
    out = ddb.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": {"pk": S(f"k{i}")}}} for i in range(5)]}
    )
    assert out["UnprocessedItems"] == {}
    ddb.batch_write_item(RequestItems={table: [{"DeleteRequest": {"Key": {"pk": S("k0")}}}]})
    got = ddb.batch_get_item(
        RequestItems={table: {"Keys": [{"pk": S("k0")}, {"pk": S("k1")}, {"pk": S("k2")}]}}
    )
    assert sorted(i["pk"]["S"] for i in got["Responses"][table]) == ["k1", "k2"]
    assert got["UnprocessedKeys"] == {}
    refused(
        ddb.batch_get_item,
        "ValidationException",
        "Provided list of item keys contains duplicates",
        RequestItems={table: {"Keys": [{"pk": S("k1")}, {"pk": S("k1")}]}},
    )
    refused(
        ddb.batch_write_item,
        "ValidationException",
        "Provided list of item keys contains duplicates",
        RequestItems={table: [{"PutRequest": {"Item": {"pk": S("a")}}}, {"DeleteRequest": {"Key": {"pk": S("a")}}}]},
    )
    refused(
        ddb.batch_write_item,
        "ValidationException",
        "The provided key element does not match the schema",
        RequestItems={table: [{"PutRequest": {"Item": {"other": S("a")}}}]},
    )
    refused(
        ddb.batch_get_item,
        "ResourceNotFoundException",
        RequestItems={"missing": {"Keys": [{"pk": S("k1")}]}},
    )


# ---- transactions ----


def test_transact_write_all_or_nothing(ddb):
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("exists"), "v": N(1)})
    response = refused(
        ddb.transact_write_items,
        "TransactionCanceledException",
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",
        TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": S("new")}}},
            {
                "ConditionCheck": {
                    "TableName": table,
                    "Key": {"pk": S("exists")},
                    "ConditionExpression": "v = :two",
                    "ExpressionAttributeValues": {":two": N(2)},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            },
        ],
    )
    reasons = response["CancellationReasons"]
    assert reasons[0]["Code"] == "None"
    assert reasons[1]["Code"] == "ConditionalCheckFailed" and reasons[1]["Item"] == {"pk": S("exists"), "v": N(1)}
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": S("new")})
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": S("new")}}},
            {
                "Update": {
                    "TableName": table,
                    "Key": {"pk": S("exists")},
                    "UpdateExpression": "SET v = v + :one",
                    "ExpressionAttributeValues": {":one": N(1)},
                }
            },
            {"Delete": {"TableName": table, "Key": {"pk": S("gone")}}},
        ]
    )
    got = ddb.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": table, "Key": {"pk": S("exists")}}},
            {"Get": {"TableName": table, "Key": {"pk": S("missing")}}},
            {"Get": {"TableName": table, "Key": {"pk": S("new")}, "ProjectionExpression": "pk"}},
        ]
    )["Responses"]
    assert got[0]["Item"]["v"] == N(2) and "Item" not in got[1] and got[2]["Item"] == {"pk": S("new")}


def test_transact_write_refusals(ddb):
    table = create(ddb)
    refused(
        ddb.transact_write_items,
        "ValidationException",
        "Transaction request cannot include multiple operations on one item",
        TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": S("a")}}},
            {"Delete": {"TableName": table, "Key": {"pk": S("a")}}},
        ],
    )
    refused(
        ddb.transact_write_items,
        "ResourceNotFoundException",
        TransactItems=[{"Put": {"TableName": "missing", "Item": {"pk": S("a")}}}],
    )


def test_transact_client_request_token(ddb):
    table = create(ddb)
    token = uuid.uuid4().hex
    items = [
        {
            "Update": {
                "TableName": table,
                "Key": {"pk": S("c")},
                "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": N(1)},
            }
        }
    ]
    ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)
    ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)
    assert ddb.get_item(TableName=table, Key={"pk": S("c")})["Item"]["n"] == N(1)
    refused(
        ddb.transact_write_items,
        "IdempotentParameterMismatchException",
        TransactItems=[{"Put": {"TableName": table, "Item": {"pk": S("d")}}}],
        ClientRequestToken=token,
    )


def test_query_filter_on_key_refused(ddb):
    table = create(ddb, range_key=("sk", "N"))
    refused(
        ddb.query,
        "ValidationException",
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
        TableName=table,
        KeyConditionExpression="pk = :p",
        FilterExpression="attribute_exists(x) AND sk > :v",
        ExpressionAttributeValues={":p": S("a"), ":v": N(1)},
    )


def test_tables_and_items_survive_a_restart(tmp_path):
    def run(check):
        server = Stratus("--data-dir", str(tmp_path))
        try:
            check(server.client("dynamodb"))
        finally:
            server.stop()

    table = name()

    def write(ddb):
        create(
            ddb,
            table,
            extra_attrs=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "gsi",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        ddb.put_item(TableName=table, Item={"pk": S("a"), "g": S("x")})

    def read(ddb):
        assert ddb.get_item(TableName=table, Key={"pk": S("a")})["Item"] == {"pk": S("a"), "g": S("x")}
        out = ddb.query(
            TableName=table, IndexName="gsi", KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": S("x")}
        )
        assert out["Count"] == 1
        assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 1

    run(write)
    run(read)


def test_continuous_backups(ddb):
    table = create(ddb)
    desc = ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert desc["ContinuousBackupsStatus"] == "ENABLED"
    assert desc["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"
    out = ddb.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert out["PointInTimeRecoveryStatus"] == "ENABLED" and out["RecoveryPeriodInDays"] == 35
    refused(ddb.describe_continuous_backups, "TableNotFoundException", "Table not found: missing", TableName="missing")


def test_consumed_capacity(ddb):
    table = create(ddb)
    out = ddb.put_item(TableName=table, Item={"pk": S("a"), "v": S("x" * 1500)}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    out = ddb.get_item(TableName=table, Key={"pk": S("a")}, ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert out["ConsumedCapacity"]["CapacityUnits"] == 1.0
    out = ddb.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": S("a")},
        ReturnConsumedCapacity="INDEXES",
    )
    assert out["ConsumedCapacity"]["Table"]["CapacityUnits"] == 0.5
    out = ddb.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": {"pk": S(f"b{i}")}}} for i in range(3)]},
        ReturnConsumedCapacity="TOTAL",
    )
    assert out["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 3.0, "WriteCapacityUnits": 3.0}]
    out = ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": table, "Item": {"pk": S("t")}}}], ReturnConsumedCapacity="TOTAL"
    )
    assert out["ConsumedCapacity"][0]["CapacityUnits"] == 2.0
    assert "ConsumedCapacity" not in ddb.get_item(TableName=table, Key={"pk": S("a")})


def test_update_item_updated_values_are_the_written_paths(ddb):
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": S("a"), "m": {"M": {"x": N(1), "y": N(2)}}, "l": {"L": [N(0), N(1)]}})
    out = ddb.update_item(
        TableName=table,
        Key={"pk": S("a")},
        UpdateExpression="SET m.x = :v, l[1] = :v",
        ExpressionAttributeValues={":v": N(9)},
        ReturnValues="UPDATED_NEW",
    )
    assert out["Attributes"] == {"m": {"M": {"x": N(9)}}, "l": {"L": [N(9)]}}


def test_query_lsi_all_attributes_reads_the_table(ddb):
    table = create(
        ddb,
        range_key=("sk", "N"),
        extra_attrs=[{"AttributeName": "l", "AttributeType": "S"}],
        LocalSecondaryIndexes=[
            {
                "IndexName": "lsi",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )
    ddb.put_item(TableName=table, Item={"pk": S("p"), "sk": N(1), "l": S("b"), "other": S("o")})
    ddb.put_item(TableName=table, Item={"pk": S("p"), "sk": N(2), "l": S("a")})
    query = dict(
        TableName=table,
        IndexName="lsi",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": S("p")},
    )
    keys_only = ddb.query(**query)["Items"]
    assert [i["l"]["S"] for i in keys_only] == ["a", "b"] and "other" not in keys_only[1]
    full = ddb.query(Select="ALL_ATTRIBUTES", **query)["Items"]
    assert full[1]["other"] == S("o")
    refused(
        ddb.query,
        "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
        **{**query, "ExpressionAttributeValues": {":p": S("")}},
    )


def test_on_demand_description(ddb):
    table = create(ddb)
    desc = ddb.describe_table(TableName=table)["Table"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "LastUpdateToPayPerRequestDateTime" in desc["BillingModeSummary"]
    assert desc["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0,
        "ReadCapacityUnits": 0,
        "WriteCapacityUnits": 0,
    }
    assert desc["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]


# As recorded from AWS (LocalStack's test_dynamodb_create_table_with_partial_sse_specification
# and test_dynamodb_update_table_without_sse_specification_change).
def test_kms_encryption_uses_the_aws_managed_key_unless_one_is_named(stratus, ddb):
    kms = stratus.client("kms")
    table = name()
    ddb.create_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        SSESpecification={"Enabled": True},
    )
    sse = ddb.describe_table(TableName=table)["Table"]["SSEDescription"]
    assert (sse["Status"], sse["SSEType"]) == ("ENABLED", "KMS")
    managed = kms.describe_key(KeyId=sse["KMSMasterKeyArn"])["KeyMetadata"]
    assert managed["KeyManager"] == "AWS"
    assert managed["Description"] == "Default key that protects my DynamoDB data when no other key is defined"
    assert kms.describe_key(KeyId="alias/aws/dynamodb")["KeyMetadata"]["Arn"] == sse["KMSMasterKeyArn"]

    # An update that does not touch encryption keeps it.
    updated = ddb.update_table(TableName=table, DeletionProtectionEnabled=False)["TableDescription"]
    assert updated["SSEDescription"]["Status"] == "ENABLED"

    # Turning it off is under way in the answer, then done.
    off = ddb.update_table(TableName=table, SSESpecification={"Enabled": False})["TableDescription"]
    assert off["SSEDescription"] == {"Status": "UPDATING", "SSEType": "KMS", "KMSMasterKeyArn": sse["KMSMasterKeyArn"]}
    assert "SSEDescription" not in ddb.describe_table(TableName=table)["Table"]

    # A customer managed key, named by alias, is described by its ARN.
    key = kms.create_key()["KeyMetadata"]
    kms.create_alias(AliasName=f"alias/{table}", TargetKeyId=key["KeyId"])
    on = ddb.update_table(TableName=table, SSESpecification={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": f"alias/{table}"})
    assert on["TableDescription"]["SSEDescription"]["KMSMasterKeyArn"] == key["Arn"]
    assert ddb.describe_table(TableName=table)["Table"]["SSEDescription"]["Status"] == "ENABLED"


def test_kms_encryption_under_a_missing_or_disabled_key_is_refused(stratus, ddb):
    kms = stratus.client("kms")
    key = kms.create_key()["KeyMetadata"]["KeyId"]
    kms.disable_key(KeyId=key)
    for key_id in ["alias/none-such", key]:
        with pytest.raises(ClientError) as err:
            create(ddb, SSESpecification={"Enabled": True, "KMSMasterKeyId": key_id})
        assert err.value.response["Error"]["Code"] == "ValidationException"
