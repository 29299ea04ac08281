"""S3 versioning through boto3 against the real binary: version ids, null versions, delete
markers, reads and deletes by version, ListObjectVersions and its paging, and a restart."""

import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import Stratus


@pytest.fixture
def s3(stratus):
    return stratus.client("s3")


@pytest.fixture
def bucket(s3):
    name = f"v-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def versioned(s3, name, status="Enabled"):
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": status})


def code(err):
    return err.value.response["Error"]["Code"]


def status(err):
    return err.value.response["ResponseMetadata"]["HTTPStatusCode"]


def body(s3, bucket, key, **kw):
    return s3.get_object(Bucket=bucket, Key=key, **kw)["Body"].read()


def test_versioning_configuration_round_trip(s3, bucket):
    # A bucket that was never versioned answers an empty configuration (S3 API reference,
    # GetBucketVersioning: "If the versioning state has never been set ... no versioning state").
    got = s3.get_bucket_versioning(Bucket=bucket)
    assert "Status" not in got and "MFADelete" not in got
    versioned(s3, bucket)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    versioned(s3, bucket, "Suspended")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"
    for bad in [{}, {"Status": "On"}]:
        with pytest.raises(ClientError) as err:
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration=bad)
        assert code(err) == "MalformedXML"
    # MFA delete needs the x-amz-mfa header (serial and code); with it the setting round-trips.
    with pytest.raises(ClientError) as err:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled", "MFADelete": "Enabled"})
    assert status(err) == 400
    s3.put_bucket_versioning(
        Bucket=bucket,
        VersioningConfiguration={"Status": "Enabled", "MFADelete": "Disabled"},
        MFA="arn:aws:iam::000000000000:mfa/root 123456",
    )
    got = s3.get_bucket_versioning(Bucket=bucket)
    assert (got["Status"], got["MFADelete"]) == ("Enabled", "Disabled")
    with pytest.raises(ClientError) as err:
        s3.get_bucket_versioning(Bucket="no-such-bucket-" + uuid.uuid4().hex[:8])
    assert code(err) == "NoSuchBucket"


def test_mfa_delete(s3, bucket):
    mfa = "arn:aws:iam::000000000000:mfa/root 123456"
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled", "MFADelete": "Enabled"}, MFA=mfa)
    assert s3.get_bucket_versioning(Bucket=bucket)["MFADelete"] == "Enabled"
    v = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    # Deleting a version for good, or changing the versioning state, needs x-amz-mfa
    # (S3 user guide, "Configuring MFA delete"); a delete marker does not.
    with pytest.raises(ClientError) as err:
        s3.delete_object(Bucket=bucket, Key="k", VersionId=v)
    assert (code(err), status(err)) == ("AccessDenied", 403)
    with pytest.raises(ClientError) as err:
        versioned(s3, bucket, "Suspended")
    assert code(err) == "AccessDenied"
    assert s3.delete_object(Bucket=bucket, Key="k")["DeleteMarker"] is True
    s3.delete_object(Bucket=bucket, Key="k", VersionId=v, MFA=mfa)


def test_versions_and_delete_markers(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"before")
    # Unversioned buckets answer no version id.
    assert "VersionId" not in s3.head_object(Bucket=bucket, Key="k")
    versioned(s3, bucket)
    # The object written before versioning is the null version.
    assert s3.head_object(Bucket=bucket, Key="k")["VersionId"] == "null"
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    v2 = s3.put_object(Bucket=bucket, Key="k", Body=b"two")["VersionId"]
    assert len({v1, v2, "null"}) == 3
    assert body(s3, bucket, "k") == b"two"
    assert body(s3, bucket, "k", VersionId=v1) == b"one"
    assert body(s3, bucket, "k", VersionId="null") == b"before"
    got = s3.get_object(Bucket=bucket, Key="k", VersionId=v1)
    assert got["VersionId"] == v1
    assert s3.head_object(Bucket=bucket, Key="k", VersionId=v2)["VersionId"] == v2

    # DeleteObject without a version id adds a delete marker.
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert deleted["DeleteMarker"] is True
    marker = deleted["VersionId"]
    # The 404 says a delete marker is why, and which (S3 user guide, "Working with delete
    # markers": x-amz-delete-marker and x-amz-version-id on the answer).
    def marker_headers(err):
        headers = err.value.response["ResponseMetadata"]["HTTPHeaders"]
        return headers.get("x-amz-delete-marker"), headers.get("x-amz-version-id")

    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k")
    assert (code(err), status(err)) == ("NoSuchKey", 404)
    assert marker_headers(err) == ("true", marker)
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="k")
    assert status(err) == 404
    assert marker_headers(err) == ("true", marker)
    # A delete marker named by version id: 405 (S3 user guide, "Working with delete markers").
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k", VersionId=marker)
    assert (code(err), status(err)) == ("MethodNotAllowed", 405)
    assert marker_headers(err) == ("true", marker)
    assert err.value.response["ResponseMetadata"]["HTTPHeaders"]["allow"] == "DELETE"
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="k", VersionId=marker)
    assert status(err) == 405
    # The flat listings no longer show the key.
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    # Deleting the marker brings the previous version back.
    gone = s3.delete_object(Bucket=bucket, Key="k", VersionId=marker)
    assert gone["DeleteMarker"] is True and gone["VersionId"] == marker
    assert body(s3, bucket, "k") == b"two"
    # Deleting a version for good.
    gone = s3.delete_object(Bucket=bucket, Key="k", VersionId=v2)
    assert gone["VersionId"] == v2 and "DeleteMarker" not in gone
    assert body(s3, bucket, "k") == b"one"
    # A version that does not exist is deleted without complaint, its id echoed
    # (minio#18117 and versitygw#1758 record AWS's answer).
    missing = "A" * 32
    assert s3.delete_object(Bucket=bucket, Key="k", VersionId=missing)["VersionId"] == missing


def test_bad_version_ids(s3, bucket):
    versioned(s3, bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    # A malformed id is InvalidArgument, a well-formed unknown one NoSuchVersion (moto#3532,
    # cortx-s3server#1724 record AWS's answers).
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k", VersionId="not-a-version")
    assert (code(err), status(err)) == ("InvalidArgument", 400)
    with pytest.raises(ClientError) as err:
        s3.get_object(Bucket=bucket, Key="k", VersionId="B" * 32)
    assert (code(err), status(err)) == ("NoSuchVersion", 404)
    with pytest.raises(ClientError) as err:
        s3.head_object(Bucket=bucket, Key="k", VersionId="B" * 32)
    assert status(err) == 404
    with pytest.raises(ClientError) as err:
        s3.delete_object(Bucket=bucket, Key="k", VersionId="bad")
    assert code(err) == "InvalidArgument"
    with pytest.raises(ClientError) as err:
        s3.get_object_tagging(Bucket=bucket, Key="k", VersionId="B" * 32)
    assert code(err) == "NoSuchVersion"


def test_suspended_writes_replace_the_null_version(s3, bucket):
    versioned(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"v1")["VersionId"]
    versioned(s3, bucket, "Suspended")
    # AWS's PutObject leaves the null version it writes unsaid; reads name it.
    assert "VersionId" not in s3.put_object(Bucket=bucket, Key="k", Body=b"n1")
    assert "VersionId" not in s3.put_object(Bucket=bucket, Key="k", Body=b"n2")
    assert s3.head_object(Bucket=bucket, Key="k")["VersionId"] == "null"
    versions = s3.list_object_versions(Bucket=bucket)["Versions"]
    assert [(v["VersionId"], v["IsLatest"]) for v in versions] == [("null", True), (v1, False)]
    assert body(s3, bucket, "k", VersionId="null") == b"n2"
    # A delete while suspended is a null delete marker, replacing the null version.
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert (deleted["DeleteMarker"], deleted["VersionId"]) == (True, "null")
    listing = s3.list_object_versions(Bucket=bucket)
    assert [v["VersionId"] for v in listing["Versions"]] == [v1]
    assert [(m["VersionId"], m["IsLatest"]) for m in listing["DeleteMarkers"]] == [("null", True)]


def test_copy_multipart_and_tagging_by_version(s3, bucket):
    versioned(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="src", Body=b"old", Tagging="t=1")["VersionId"]
    v2 = s3.put_object(Bucket=bucket, Key="src", Body=b"new")["VersionId"]
    copied = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src", "VersionId": v1})
    assert copied["CopySourceVersionId"] == v1
    assert copied["VersionId"] not in (v1, v2)
    assert body(s3, bucket, "dst") == b"old"
    # Restoring an old version by copying it onto its own key is allowed.
    restored = s3.copy_object(Bucket=bucket, Key="src", CopySource={"Bucket": bucket, "Key": "src", "VersionId": v1})
    assert body(s3, bucket, "src") == b"old" and restored["VersionId"] != v1
    # Tagging a version leaves the others alone.
    assert s3.get_object_tagging(Bucket=bucket, Key="src", VersionId=v1)["TagSet"] == [{"Key": "t", "Value": "1"}]
    put = s3.put_object_tagging(Bucket=bucket, Key="src", VersionId=v2, Tagging={"TagSet": [{"Key": "a", "Value": "b"}]})
    assert put["VersionId"] == v2
    tagged = s3.get_object_tagging(Bucket=bucket, Key="src", VersionId=v2)
    assert tagged["VersionId"] == v2 and tagged["TagSet"] == [{"Key": "a", "Value": "b"}]
    assert s3.get_object_tagging(Bucket=bucket, Key="src", VersionId=v1)["TagSet"] == [{"Key": "t", "Value": "1"}]
    # A copy source naming a delete marker is InvalidRequest; a key hidden by one is NoSuchKey
    # (versitygw#2417 records both).
    marker = s3.delete_object(Bucket=bucket, Key="src")["VersionId"]
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "src", "VersionId": marker})
    assert code(err) == "InvalidRequest"
    with pytest.raises(ClientError) as err:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "src"})
    assert code(err) == "NoSuchKey"
    # Multipart completion mints a version.
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    etag = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"part")["ETag"]
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=upload, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]}
    )
    assert done["VersionId"] == s3.head_object(Bucket=bucket, Key="mp")["VersionId"]


def test_delete_objects_with_versions(s3, bucket):
    versioned(s3, bucket)
    a1 = s3.put_object(Bucket=bucket, Key="a", Body=b"1")["VersionId"]
    s3.put_object(Bucket=bucket, Key="a", Body=b"2")
    s3.put_object(Bucket=bucket, Key="b", Body=b"1")
    result = s3.delete_objects(
        Bucket=bucket,
        Delete={"Objects": [{"Key": "a", "VersionId": a1}, {"Key": "b"}, {"Key": "c", "VersionId": "abc"}]},
    )
    deleted = {d["Key"]: d for d in result["Deleted"]}
    assert deleted["a"]["VersionId"] == a1 and "DeleteMarker" not in deleted["a"]
    assert deleted["b"]["DeleteMarker"] is True and deleted["b"]["DeleteMarkerVersionId"]
    # An id S3 cannot parse is reported per key as NoSuchVersion (versitygw#2119 shows AWS's
    # DeleteResult).
    [error] = result["Errors"]
    assert (error["Key"], error["VersionId"], error["Code"]) == ("c", "abc", "NoSuchVersion")
    # Removing b's marker by version id reports that a marker was deleted.
    marker = deleted["b"]["DeleteMarkerVersionId"]
    again = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "b", "VersionId": marker}]})
    assert again["Deleted"][0]["DeleteMarker"] is True
    assert again["Deleted"][0]["DeleteMarkerVersionId"] == marker
    assert body(s3, bucket, "b") == b"1"


def test_list_object_versions(s3, bucket):
    versioned(s3, bucket)
    ids = {}
    for key in ["a", "dir/x", "dir/y", "b"]:
        ids[key] = [s3.put_object(Bucket=bucket, Key=key, Body=key.encode())["VersionId"] for _ in range(2)]
    marker = s3.delete_object(Bucket=bucket, Key="b")["VersionId"]
    listing = s3.list_object_versions(Bucket=bucket)
    assert [(v["Key"], v["VersionId"], v["IsLatest"]) for v in listing["Versions"]] == [
        ("a", ids["a"][1], True),
        ("a", ids["a"][0], False),
        ("b", ids["b"][1], False),
        ("b", ids["b"][0], False),
        ("dir/x", ids["dir/x"][1], True),
        ("dir/x", ids["dir/x"][0], False),
        ("dir/y", ids["dir/y"][1], True),
        ("dir/y", ids["dir/y"][0], False),
    ]
    assert [(m["Key"], m["VersionId"], m["IsLatest"]) for m in listing["DeleteMarkers"]] == [("b", marker, True)]
    assert listing["IsTruncated"] is False

    # Paging: 9 entries, 4 at a time, resumed with the key and version id markers.
    seen, kwargs = [], {}
    while True:
        page = s3.list_object_versions(Bucket=bucket, MaxKeys=4, **kwargs)
        entries = page.get("Versions", []) + page.get("DeleteMarkers", [])
        seen += sorted(((e["Key"], e["VersionId"]) for e in entries))
        if not page["IsTruncated"]:
            break
        kwargs = {"KeyMarker": page["NextKeyMarker"], "VersionIdMarker": page["NextVersionIdMarker"]}
    assert len(seen) == 9 and len(set(seen)) == 9

    # Prefix and delimiter.
    rolled = s3.list_object_versions(Bucket=bucket, Delimiter="/")
    assert [p["Prefix"] for p in rolled["CommonPrefixes"]] == ["dir/"]
    assert {v["Key"] for v in rolled["Versions"]} == {"a", "b"}
    under = s3.list_object_versions(Bucket=bucket, Prefix="dir/", KeyMarker="dir/x")
    assert [v["Key"] for v in under["Versions"]] == ["dir/y", "dir/y"]
    with pytest.raises(ClientError) as err:
        s3.list_object_versions(Bucket=bucket, VersionIdMarker=ids["a"][0])
    assert code(err) == "InvalidArgument"


def raw_version_entries(stratus, bucket, query=""):
    """The <Version> and <DeleteMarker> elements of an unsigned ListObjectVersions, in document
    order: (element, Key, VersionId, LastModified text)."""
    import http.client
    import urllib.parse
    import xml.etree.ElementTree as ET

    address = urllib.parse.urlparse(stratus.endpoint)
    conn = http.client.HTTPConnection(address.hostname, address.port)
    conn.request("GET", f"/{bucket}?versions{query}")
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 200, body
    entries = []
    for child in ET.fromstring(body):
        name = child.tag.rsplit("}", 1)[-1]
        if name in ("Version", "DeleteMarker"):
            field = {c.tag.rsplit("}", 1)[-1]: c.text for c in child}
            entries.append((name, field["Key"], field["VersionId"], field["LastModified"]))
    return entries


# AWS interleaves versions and delete markers in one sequence, by key and then newest first
# (ListObjectVersions in the S3 API reference; its example response mixes <DeleteMarker> and
# <Version> elements); the model's two flattened lists would put every version first.
def test_list_object_versions_interleaves_delete_markers(stratus, s3, bucket):
    versioned(s3, bucket)

    def put(key):
        return s3.put_object(Bucket=bucket, Key=key, Body=b"x")["VersionId"]

    def delete(key):
        return s3.delete_object(Bucket=bucket, Key=key)["VersionId"]

    # Within a second: each key's entries differ only in their order of writing.
    a = [put("a"), delete("a"), put("a"), delete("a")]
    b = [delete("b"), put("b")]
    c = [put("c")]
    entries = raw_version_entries(stratus, bucket)
    assert [(e[0], e[1], e[2]) for e in entries] == [
        ("DeleteMarker", "a", a[3]),
        ("Version", "a", a[2]),
        ("DeleteMarker", "a", a[1]),
        ("Version", "a", a[0]),
        ("Version", "b", b[1]),
        ("DeleteMarker", "b", b[0]),
        ("Version", "c", c[0]),
    ]
    # S3 writes listing times to the second, with a zero millisecond field.
    assert all(e[3].endswith(".000Z") for e in entries)
    # Paging keeps the order across pages.
    paged, query = [], "&max-keys=3"
    while True:
        page = raw_version_entries(stratus, bucket, query)
        paged += page
        if len(page) < 3:
            break
        query = f"&max-keys=3&key-marker={page[-1][1]}&version-id-marker={page[-1][2]}"
    assert paged == entries


def test_interleaving_follows_stored_key_order_when_keys_are_url_encoded(stratus, s3, bucket):
    versioned(s3, bucket)
    # "a b" sorts before "a!" (space is 0x20), though its encoding "a+b" sorts after "a%21".
    marker = s3.delete_object(Bucket=bucket, Key="a b")["VersionId"]
    version = s3.put_object(Bucket=bucket, Key="a!", Body=b"x")["VersionId"]
    entries = raw_version_entries(stratus, bucket, "&encoding-type=url")
    assert [(e[0], e[1], e[2]) for e in entries] == [("DeleteMarker", "a+b", marker), ("Version", "a%21", version)]


def test_list_object_versions_of_unversioned_bucket_and_encoding(s3, bucket):
    s3.put_object(Bucket=bucket, Key="a b+c", Body=b"x")
    listing = s3.list_object_versions(Bucket=bucket)
    [v] = listing["Versions"]
    # boto3 asks for encoding-type=url and decodes; the key must survive the round trip.
    assert (v["Key"], v["VersionId"], v["IsLatest"]) == ("a b+c", "null", True)
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["a b+c"]
    assert [o["Key"] for o in s3.list_objects(Bucket=bucket)["Contents"]] == ["a b+c"]


def test_versioned_bucket_is_not_empty_until_every_version_is_gone(s3, bucket):
    versioned(s3, bucket)
    v = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    with pytest.raises(ClientError) as err:
        s3.delete_bucket(Bucket=bucket)
    assert (code(err), status(err)) == ("BucketNotEmpty", 409)
    s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "k", "VersionId": v}, {"Key": "k", "VersionId": marker}]})
    s3.delete_bucket(Bucket=bucket)


def test_versions_survive_a_restart(tmp_path):
    data_dir = str(tmp_path / "data")
    server = Stratus("--data-dir", data_dir)
    try:
        s3 = server.client("s3")
        s3.create_bucket(Bucket="durable-versions")
        versioned(s3, "durable-versions")
        v1 = s3.put_object(Bucket="durable-versions", Key="k", Body=b"one")["VersionId"]
        s3.put_object(Bucket="durable-versions", Key="k", Body=b"two")
        marker = s3.delete_object(Bucket="durable-versions", Key="k")["VersionId"]
    finally:
        server.stop()
    server = Stratus("--data-dir", data_dir)
    try:
        s3 = server.client("s3")
        assert s3.get_bucket_versioning(Bucket="durable-versions")["Status"] == "Enabled"
        assert body(s3, "durable-versions", "k", VersionId=v1) == b"one"
        listing = s3.list_object_versions(Bucket="durable-versions")
        assert len(listing["Versions"]) == 2
        assert listing["DeleteMarkers"][0]["VersionId"] == marker
        s3.delete_object(Bucket="durable-versions", Key="k", VersionId=marker)
        assert body(s3, "durable-versions", "k") == b"two"
    finally:
        server.stop()


def test_paging_through_many_keys_and_versions(s3, bucket):
    # More entries than one storage read fetches, so pages resume across reads.
    versioned(s3, bucket)
    keys = [f"k/{i:03}" for i in range(150)]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"1")
    for key in keys[:20]:
        s3.put_object(Bucket=bucket, Key=key, Body=b"2")
    pages = s3.get_paginator("list_object_versions").paginate(Bucket=bucket, PaginationConfig={"PageSize": 40})
    seen = [(v["Key"], v["VersionId"]) for page in pages for v in page.get("Versions", [])]
    assert len(seen) == 170 and len(set(seen)) == 170
    assert [k for k, _ in seen] == sorted(k for k, _ in seen)
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, PaginationConfig={"PageSize": 40})
    assert [o["Key"] for page in pages for o in page.get("Contents", [])] == keys
    pages = s3.get_paginator("list_objects").paginate(Bucket=bucket, Prefix="k/1", PaginationConfig={"PageSize": 7})
    assert [o["Key"] for page in pages for o in page.get("Contents", [])] == [k for k in keys if k.startswith("k/1")]
