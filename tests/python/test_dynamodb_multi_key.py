"""DynamoDB global secondary indexes with multi-attribute keys (up to four partition and four
sort attributes, since November 2025), through boto3 against the real binary. The refusals'
wording is AWS's as probed against AWS in October 2026 (CreateTable) and as public AWS-verified
conformance suites record it (Query)."""

import uuid

import pytest
from botocore.exceptions import ClientError

from test_dynamodb import N, S, ddb, refused  # noqa: F401 (ddb is a fixture)


def gsi_table(ddb, key_schema, attrs, create_with_index=True):
    table = f"mk-{uuid.uuid4().hex[:10]}"
    definitions = [{"AttributeName": "pk", "AttributeType": "S"}] + [
        {"AttributeName": a, "AttributeType": t} for a, t in attrs
    ]
    index = {"IndexName": "by_shop", "KeySchema": key_schema, "Projection": {"ProjectionType": "ALL"}}
    extra = {"GlobalSecondaryIndexes": [index]} if create_with_index else {}
    ddb.create_table(
        TableName=table,
        AttributeDefinitions=definitions if create_with_index else definitions[:1],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
    return table, definitions, index


# Partition (shop, tier); sort (year, month, day).
KEY = [
    {"AttributeName": "shop", "KeyType": "HASH"},
    {"AttributeName": "tier", "KeyType": "HASH"},
    {"AttributeName": "year", "KeyType": "RANGE"},
    {"AttributeName": "month", "KeyType": "RANGE"},
    {"AttributeName": "day", "KeyType": "RANGE"},
]
ATTRS = [("shop", "S"), ("tier", "N"), ("year", "N"), ("month", "N"), ("day", "S")]


def put_orders(ddb, table):
    rows = [
        ("o1", "eu", 1, 2025, 12, "31"),
        ("o2", "eu", 1, 2026, 1, "02"),
        ("o3", "eu", 1, 2026, 1, "01"),
        ("o4", "eu", 1, 2026, 2, "01"),
        ("o5", "eu", 2, 2026, 1, "01"),
        ("o6", "us", 1, 2026, 1, "01"),
    ]
    for pk, shop, tier, year, month, day in rows:
        ddb.put_item(
            TableName=table,
            Item={"pk": S(pk), "shop": S(shop), "tier": N(tier), "year": N(year), "month": N(month), "day": S(day)},
        )
    # Missing one key attribute: not in the index (sparse).
    ddb.put_item(TableName=table, Item={"pk": S("o7"), "shop": S("eu"), "tier": N(1), "year": N(2026)})


def query(ddb, table, condition, values, **extra):
    items = ddb.query(
        TableName=table,
        IndexName="by_shop",
        KeyConditionExpression=condition,
        ExpressionAttributeValues=values,
        **extra,
    )["Items"]
    return [item["pk"]["S"] for item in items]


def test_index_described_as_created_and_queried_on_leading_attributes(ddb):
    table, _, _ = gsi_table(ddb, KEY, ATTRS)
    described = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert described["KeySchema"] == KEY
    put_orders(ddb, table)
    eu1 = {":r": S("eu"), ":t": N(1)}
    # Ordered by (year, month, day), each by its own type; o7 lacks month and day.
    assert query(ddb, table, "shop = :r AND tier = :t", eu1) == ["o1", "o3", "o2", "o4"]
    assert query(ddb, table, "tier = :t AND shop = :r", eu1, ScanIndexForward=False) == ["o4", "o2", "o3", "o1"]
    assert query(ddb, table, "shop = :r AND tier = :t AND #y = :y", {**eu1, ":y": N(2026)},
                 ExpressionAttributeNames={"#y": "year"}) == ["o3", "o2", "o4"]
    assert query(ddb, table, "shop = :r AND tier = :t AND #y = :y AND #m <= :m",
                 {**eu1, ":y": N(2026), ":m": N(1)}, ExpressionAttributeNames={"#y": "year", "#m": "month"}) == ["o3", "o2"]
    assert query(ddb, table, "shop = :r AND tier = :t AND #y = :y AND #m = :m AND begins_with(#d, :d)",
                 {**eu1, ":y": N(2026), ":m": N(1), ":d": S("0")},
                 ExpressionAttributeNames={"#y": "year", "#m": "month", "#d": "day"}) == ["o3", "o2"]
    assert query(ddb, table, "shop = :r AND tier = :t", {":r": S("eu"), ":t": N(2)}) == ["o5"]


def test_pages_carry_every_index_key_attribute(ddb):
    table, _, _ = gsi_table(ddb, KEY, ATTRS)
    put_orders(ddb, table)
    values = {":r": S("eu"), ":t": N(1)}
    page = ddb.query(TableName=table, IndexName="by_shop", KeyConditionExpression="shop = :r AND tier = :t",
                     ExpressionAttributeValues=values, Limit=2)
    assert sorted(page["LastEvaluatedKey"]) == ["day", "month", "pk", "shop", "tier", "year"]
    rest = ddb.query(TableName=table, IndexName="by_shop", KeyConditionExpression="shop = :r AND tier = :t",
                     ExpressionAttributeValues=values, ExclusiveStartKey=page["LastEvaluatedKey"])
    assert [i["pk"]["S"] for i in page["Items"] + rest["Items"]] == ["o1", "o3", "o2", "o4"]


def test_index_added_by_update_table_is_backfilled(ddb):
    table, definitions, index = gsi_table(ddb, KEY, ATTRS, create_with_index=False)
    put_orders(ddb, table)
    ddb.update_table(
        TableName=table,
        AttributeDefinitions=definitions,
        GlobalSecondaryIndexUpdates=[{"Create": index}],
    )
    assert query(ddb, table, "shop = :r AND tier = :t", {":r": S("us"), ":t": N(1)}) == ["o6"]
    # An item that gains its last key attribute joins the index; one that loses one leaves it.
    ddb.update_item(TableName=table, Key={"pk": S("o7")}, UpdateExpression="SET #m = :m, #d = :d",
                    ExpressionAttributeNames={"#m": "month", "#d": "day"},
                    ExpressionAttributeValues={":m": N(3), ":d": S("09")})
    ddb.update_item(TableName=table, Key={"pk": S("o1")}, UpdateExpression="REMOVE tier")
    assert query(ddb, table, "shop = :r AND tier = :t", {":r": S("eu"), ":t": N(1)}) == ["o3", "o2", "o4", "o7"]


def test_queries_that_skip_or_misuse_key_attributes_are_refused(ddb):
    table, _, _ = gsi_table(ddb, KEY, ATTRS)
    names = {"#y": "year", "#m": "month", "#d": "day"}
    base = {":r": S("eu"), ":t": N(1), ":n": N(1), ":s": S("01")}

    def refuse(condition, message):
        extra = {"ExpressionAttributeNames": {k: v for k, v in names.items() if k in condition}}
        refused(ddb.query, "ValidationException", message, TableName=table, IndexName="by_shop", KeyConditionExpression=condition,
                ExpressionAttributeValues={k: v for k, v in base.items() if k in condition},
                **(extra if extra["ExpressionAttributeNames"] else {}))

    refuse("shop = :r AND #m = :n",
           "Query condition missed key schema element: tier")
    refuse("shop = :r AND tier > :t", "Query key condition not supported")
    refuse("shop = :r AND tier = :t AND #y = :n AND #d = :s",
           "RANGE key attributes month must have equality conditions specified in the query because a condition is present on key attribute day")
    refuse("shop = :r AND tier = :t AND #y > :n AND #m = :n",
           "RANGE key attributes year must have equality conditions specified in the query because a condition is present on key attribute month")


def test_key_schemas_beyond_the_limits_are_refused(ddb):
    many = [("a", "S"), ("b", "S"), ("c", "S"), ("d", "S"), ("e", "S")]

    def create(schema, attrs, **index_kind):
        definitions = [{"AttributeName": "pk", "AttributeType": "S"}] + [
            {"AttributeName": a, "AttributeType": t} for a, t in attrs
        ]
        return dict(
            TableName=f"mk-{uuid.uuid4().hex[:10]}",
            AttributeDefinitions=definitions,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[{"IndexName": "idx", "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}],
        )

    hashes = [{"AttributeName": a, "KeyType": "HASH"} for a, _ in many]
    refused(ddb.create_table, "ValidationException", "The KeySchema exceeds the maximum allowed number of HASH key attributes",
            **create(hashes, many))
    ranges = [{"AttributeName": "pk", "KeyType": "HASH"}] + [{"AttributeName": a, "KeyType": "RANGE"} for a, _ in many]
    refused(ddb.create_table, "ValidationException", "The KeySchema exceeds the maximum allowed number of RANGE key attributes",
            **create(ranges, many))
    mixed = [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"},
             {"AttributeName": "c", "KeyType": "HASH"}]
    refused(ddb.create_table, "ValidationException", "All HASH key attributes must precede RANGE key attributes in the KeySchema",
            **create(mixed, many[:3]))
    # A table's own key keeps one partition and one sort attribute.
    refused(
        ddb.create_table,
        "ValidationException",
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), "
        "KeySchemaElement(attributeName=a, keyType=RANGE), KeySchemaElement(attributeName=b, keyType=RANGE)]' "
        "at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
        TableName=f"mk-{uuid.uuid4().hex[:10]}",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "a", "b")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "RANGE"},
                   {"AttributeName": "b", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )


def test_create_table_needs_a_key_schema_unless_it_names_a_source_table(ddb):
    refused(ddb.create_table, "ValidationException",
            "1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null",
            TableName="no-key", AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST")
    with pytest.raises(ClientError) as err:
        ddb.create_table(TableName="replica", GlobalTableSourceArn="arn:aws:dynamodb:us-west-2:111122223333:table/replica",
                         GlobalTableSettingsReplicationMode="ENABLED")
    assert err.value.response["Error"]["Code"] == "NotImplemented"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501


def test_settings_replication_mode_is_kept(ddb):
    table = f"mk-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=table, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST",
                     GlobalTableSettingsReplicationMode="ENABLED")
    assert ddb.describe_table(TableName=table)["Table"]["GlobalTableSettingsReplicationMode"] == "ENABLED"
    ddb.update_table(TableName=table, GlobalTableSettingsReplicationMode="DISABLED")
    assert ddb.describe_table(TableName=table)["Table"]["GlobalTableSettingsReplicationMode"] == "DISABLED"
