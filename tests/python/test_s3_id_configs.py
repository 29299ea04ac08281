"""S3 configurations kept by id — analytics, Intelligent-Tiering, inventory, metrics — through
boto3 against the real binary: each family round-trips, lists in id order 100 a page, answers
NoSuchConfiguration for a missing id and holds at most 1,000 per bucket (S3 API Reference:
PutBucketInventoryConfiguration, ListBucketMetricsConfigurations)."""

import uuid

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"ids-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def analytics(i):
    return {"Id": i, "Filter": {"Prefix": "logs/"}, "StorageClassAnalysis": {}}


def tiering(i):
    return {"Id": i, "Status": "Enabled", "Tierings": [{"Days": 90, "AccessTier": "ARCHIVE_ACCESS"}]}


def inventory(i):
    return {
        "Id": i,
        "IsEnabled": True,
        "Destination": {"S3BucketDestination": {"Bucket": "arn:aws:s3:::reports", "Format": "CSV"}},
        "IncludedObjectVersions": "Current",
        "Schedule": {"Frequency": "Daily"},
        "OptionalFields": ["Size", "ETag"],
    }


def metrics(i):
    return {"Id": i, "Filter": {"Prefix": "images/"}}


FAMILIES = [
    ("analytics", "AnalyticsConfiguration", analytics),
    ("intelligent_tiering", "IntelligentTieringConfiguration", tiering),
    ("inventory", "InventoryConfiguration", inventory),
    ("metrics", "MetricsConfiguration", metrics),
]


@pytest.mark.parametrize("family,member,make", FAMILIES)
def test_each_family_round_trips(s3, bucket, family, member, make):
    put = getattr(s3, f"put_bucket_{family}_configuration")
    get = getattr(s3, f"get_bucket_{family}_configuration")
    delete = getattr(s3, f"delete_bucket_{family}_configuration")
    listing = getattr(s3, f"list_bucket_{family}_configurations")
    put(Bucket=bucket, Id="b", **{member: make("b")})
    put(Bucket=bucket, Id="a", **{member: make("a")})
    assert get(Bucket=bucket, Id="a")[member] == make("a")
    listed = listing(Bucket=bucket)
    assert listed["IsTruncated"] is False
    assert [c["Id"] for c in listed[f"{member}List"]] == ["a", "b"]
    delete(Bucket=bucket, Id="a")
    for call in (get, delete):
        with pytest.raises(ClientError) as err:
            call(Bucket=bucket, Id="a")
        assert err.value.response["Error"]["Code"] == "NoSuchConfiguration"
        assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    with pytest.raises(ClientError) as err:
        get(Bucket=f"missing-{uuid.uuid4().hex[:8]}", Id="a")
    assert err.value.response["Error"]["Code"] == "NoSuchBucket"


def test_listings_page_by_100_and_the_limit_is_1000(s3, bucket):
    for i in range(1000):
        s3.put_bucket_metrics_configuration(Bucket=bucket, Id=f"m{i:04}", MetricsConfiguration=metrics(f"m{i:04}"))
    seen, token, pages = [], None, 0
    while True:
        page = s3.list_bucket_metrics_configurations(Bucket=bucket, **({"ContinuationToken": token} if token else {}))
        pages += 1
        seen += [c["Id"] for c in page["MetricsConfigurationList"]]
        assert len(page["MetricsConfigurationList"]) <= 100
        if not page["IsTruncated"]:
            assert "NextContinuationToken" not in page
            break
        token = page["NextContinuationToken"]
    assert seen == [f"m{i:04}" for i in range(1000)] and pages == 10
    with pytest.raises(ClientError) as err:
        s3.put_bucket_metrics_configuration(Bucket=bucket, Id="one-more", MetricsConfiguration=metrics("one-more"))
    assert err.value.response["Error"]["Code"] == "TooManyConfigurations"
    # Replacing one that exists is not a new one.
    s3.put_bucket_metrics_configuration(Bucket=bucket, Id="m0000", MetricsConfiguration=metrics("m0000"))
    with pytest.raises(ClientError) as err:
        s3.list_bucket_metrics_configurations(Bucket=bucket, ContinuationToken="not-a-token")
    assert err.value.response["Error"]["Code"] == "InvalidArgument"


def test_configurations_go_with_the_bucket(s3, bucket):
    s3.put_bucket_inventory_configuration(Bucket=bucket, Id="inv", InventoryConfiguration=inventory("inv"))
    s3.delete_bucket(Bucket=bucket)
    s3.create_bucket(Bucket=bucket)
    assert s3.list_bucket_inventory_configurations(Bucket=bucket).get("InventoryConfigurationList", []) == []
