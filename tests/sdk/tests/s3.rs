//! S3 through the AWS SDK for Rust (restXml) against the real binary: both addressing styles,
//! objects with metadata, ranges, listings, multipart uploads, versioning, typed errors and
//! the checksums the SDK sends and (with `ChecksumMode::Enabled`) verifies on its own.

use std::sync::{Arc, Mutex};

use aws_sdk_s3::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_s3::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_s3::error::SdkError;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketVersioningStatus, ChecksumAlgorithm, ChecksumMode, ChecksumType, CompletedMultipartUpload, CompletedPart,
    VersioningConfiguration,
};
use aws_sdk_s3::Client;
use stratus_sdk_tests::{long_term, Stratus};

/// Sends every request to the loopback address while keeping the Host the SDK addressed.
/// The SDK builds virtual-host URLs (`http://BUCKET.localhost:PORT/key`), and the system
/// resolver does not resolve subdomains of `localhost`; the SDK's own resolver hook needs a
/// TLS provider. Requests are signed before this runs, so the signature covers the real Host.
/// Records the Host of every request, so a test can check which style was used.
#[derive(Debug, Clone, Default)]
struct Loopback {
    hosts: Arc<Mutex<Vec<String>>>,
}

impl Loopback {
    fn hosts(&self) -> Vec<String> {
        self.hosts.lock().unwrap().clone()
    }
}

impl Intercept for Loopback {
    fn name(&self) -> &'static str {
        "Loopback"
    }

    fn modify_before_transmit(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let request = context.request_mut();
        let uri = request.uri().to_string();
        let rest = uri.strip_prefix("http://").ok_or("not an http:// URI")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        self.hosts.lock().unwrap().push(authority.to_string());
        let (host, port) = authority.rsplit_once(':').ok_or("no port")?;
        if host == "localhost" || host.ends_with(".localhost") {
            request.headers_mut().insert("host", authority.to_string());
            request.set_uri(format!("http://127.0.0.1:{port}{path}"))?;
        }
        Ok(())
    }
}

/// A client for `stratus`; path style addresses `127.0.0.1:PORT/bucket`, virtual-host style
/// `bucket.localhost:PORT` (the SDK falls back to path style for an IP-address endpoint).
fn client(stratus: &Stratus, path_style: bool) -> (Client, Loopback) {
    let loopback = Loopback::default();
    let endpoint = if path_style {
        stratus.endpoint.clone()
    } else {
        stratus.endpoint.replace("127.0.0.1", "localhost")
    };
    let config = aws_sdk_s3::config::Builder::from(&stratus.config(long_term()))
        .endpoint_url(endpoint)
        .force_path_style(path_style)
        .interceptor(loopback.clone())
        .build();
    (Client::from_conf(config), loopback)
}

fn port(stratus: &Stratus) -> &str {
    stratus.endpoint.rsplit_once(':').unwrap().1
}

async fn body(output: aws_sdk_s3::operation::get_object::GetObjectOutput) -> Vec<u8> {
    output.body.collect().await.expect("body").into_bytes().to_vec()
}

/// Bytes that are not all alike, so a misplaced range or part shows.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0] ^ seed)
        .collect()
}

/// The bucket and object round trip both addressing styles share.
async fn bucket_and_object_round_trip(s3: &Client, bucket: &str) {
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let listed = s3.list_buckets().send().await.expect("ListBuckets");
    assert!(listed.buckets().iter().any(|b| b.name() == Some(bucket)), "{listed:?}");
    s3.head_bucket().bucket(bucket).send().await.expect("HeadBucket");

    let data = pattern(1000, 7);
    let put = s3
        .put_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .body(ByteStream::from(data.clone()))
        .content_type("application/x-test")
        .content_disposition("attachment")
        .cache_control("max-age=60")
        .metadata("colour", "blue")
        .metadata("Mixed-Case", "Value With Spaces")
        .send()
        .await
        .expect("PutObject");
    let etag = put.e_tag().expect("ETag").to_string();
    assert_eq!(etag.len(), 34, "{etag}");

    let head = s3
        .head_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .send()
        .await
        .expect("HeadObject");
    assert_eq!(head.content_length(), Some(1000));
    assert_eq!(head.content_type(), Some("application/x-test"));
    assert_eq!(head.e_tag(), Some(etag.as_str()));
    let metadata = head.metadata().expect("metadata");
    assert_eq!(metadata.get("colour").map(String::as_str), Some("blue"));
    assert_eq!(
        metadata.get("mixed-case").map(String::as_str),
        Some("Value With Spaces")
    );

    let got = s3
        .get_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .send()
        .await
        .expect("GetObject");
    assert_eq!(got.content_type(), Some("application/x-test"));
    assert_eq!(got.content_disposition(), Some("attachment"));
    assert_eq!(got.cache_control(), Some("max-age=60"));
    assert_eq!(got.e_tag(), Some(etag.as_str()));
    assert!(got.last_modified().is_some());
    assert_eq!(body(got).await, data);

    let ranged = s3
        .get_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .range("bytes=100-199")
        .send()
        .await
        .expect("ranged GetObject");
    assert_eq!(ranged.content_range(), Some("bytes 100-199/1000"));
    assert_eq!(ranged.content_length(), Some(100));
    assert_eq!(body(ranged).await, &data[100..200]);
    let suffix = s3
        .get_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .range("bytes=-10")
        .send()
        .await
        .expect("suffix range");
    assert_eq!(body(suffix).await, &data[990..]);

    s3.delete_object()
        .bucket(bucket)
        .key("dir/hello.bin")
        .send()
        .await
        .expect("DeleteObject");
    let missing = s3.get_object().bucket(bucket).key("dir/hello.bin").send().await;
    let err = missing.expect_err("the object is gone").into_service_error();
    assert!(err.is_no_such_key(), "{err:?}");
    let missing = s3.head_object().bucket(bucket).key("dir/hello.bin").send().await;
    assert!(missing
        .expect_err("HEAD of a missing key")
        .into_service_error()
        .is_not_found());

    s3.delete_bucket().bucket(bucket).send().await.expect("DeleteBucket");
    let gone = s3.head_bucket().bucket(bucket).send().await;
    assert!(gone
        .expect_err("the bucket is gone")
        .into_service_error()
        .is_not_found());
    let listed = s3.list_buckets().send().await.expect("ListBuckets");
    assert!(!listed.buckets().iter().any(|b| b.name() == Some(bucket)));
}

#[tokio::test]
async fn path_style_buckets_and_objects() {
    let stratus = Stratus::start();
    let (s3, loopback) = client(&stratus, true);
    bucket_and_object_round_trip(&s3, "sdk-path-style").await;
    let hosts = loopback.hosts();
    assert!(!hosts.is_empty());
    let expected = format!("127.0.0.1:{}", port(&stratus));
    assert!(hosts.iter().all(|h| *h == expected), "{hosts:?}");
}

#[tokio::test]
async fn virtual_host_style_buckets_and_objects() {
    let stratus = Stratus::start();
    let (s3, loopback) = client(&stratus, false);
    bucket_and_object_round_trip(&s3, "sdk-virtual-host").await;
    let hosts = loopback.hosts();
    let by_host = format!("sdk-virtual-host.localhost:{}", port(&stratus));
    // ListBuckets names no bucket; every other request addresses the bucket by its host.
    let bucketless = format!("localhost:{}", port(&stratus));
    assert!(hosts.iter().all(|h| *h == by_host || *h == bucketless), "{hosts:?}");
    assert!(hosts.iter().filter(|h| **h == by_host).count() >= 10, "{hosts:?}");
}

#[tokio::test]
async fn typed_errors() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let err = s3
        .get_object()
        .bucket("no-such-bucket-here")
        .key("k")
        .send()
        .await
        .expect_err("no bucket");
    match &err {
        SdkError::ServiceError(e) => {
            assert_eq!(e.raw().status().as_u16(), 404);
            assert_eq!(
                aws_sdk_s3::error::ProvideErrorMetadata::code(e.err()),
                Some("NoSuchBucket")
            );
        }
        other => panic!("{other:?}"),
    }
    s3.create_bucket()
        .bucket("sdk-errors")
        .send()
        .await
        .expect("CreateBucket");
    let err = s3
        .get_object()
        .bucket("sdk-errors")
        .key("nothing")
        .send()
        .await
        .expect_err("no key")
        .into_service_error();
    assert!(err.is_no_such_key(), "{err:?}");
    assert!(aws_sdk_s3::error::ProvideErrorMetadata::message(&err).is_some());
    let err = s3
        .create_bucket()
        .bucket("Not_A_Valid_Name")
        .send()
        .await
        .expect_err("bad name")
        .into_service_error();
    assert_eq!(
        aws_sdk_s3::error::ProvideErrorMetadata::code(&err),
        Some("InvalidBucketName")
    );
    let err = s3
        .get_object()
        .bucket("sdk-errors")
        .key("nothing")
        .range("bytes=5-9")
        .send()
        .await
        .expect_err("no key for a range either")
        .into_service_error();
    assert!(err.is_no_such_key(), "{err:?}");
}

#[tokio::test]
async fn list_objects_v2_with_prefix_delimiter_and_paging() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let bucket = "sdk-listing";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let mut keys = vec!["top.txt".to_string()];
    for dir in ["a", "b", "c"] {
        for i in 0..3 {
            keys.push(format!("logs/{dir}/{i}.log"));
        }
    }
    for i in 0..5 {
        keys.push(format!("logs/file-{i}.txt"));
    }
    for key in &keys {
        s3.put_object()
            .bucket(bucket)
            .key(key)
            .body(ByteStream::from(key.as_bytes().to_vec()))
            .send()
            .await
            .expect("PutObject");
    }

    // One level under logs/: three common prefixes and five files, two entries a page.
    let mut prefixes = Vec::new();
    let mut files = Vec::new();
    let mut token = None;
    let mut pages = 0;
    loop {
        let page = s3
            .list_objects_v2()
            .bucket(bucket)
            .prefix("logs/")
            .delimiter("/")
            .max_keys(2)
            .set_continuation_token(token.take())
            .send()
            .await
            .expect("ListObjectsV2");
        pages += 1;
        assert_eq!(page.prefix(), Some("logs/"));
        assert_eq!(page.delimiter(), Some("/"));
        assert!(page.key_count().unwrap() <= 2, "{page:?}");
        prefixes.extend(
            page.common_prefixes()
                .iter()
                .filter_map(|p| p.prefix().map(str::to_string)),
        );
        files.extend(page.contents().iter().filter_map(|o| o.key().map(str::to_string)));
        if page.is_truncated() == Some(true) {
            token = Some(page.next_continuation_token().expect("token").to_string());
        } else {
            assert!(page.next_continuation_token().is_none());
            break;
        }
    }
    assert_eq!(pages, 4);
    assert_eq!(prefixes, ["logs/a/", "logs/b/", "logs/c/"]);
    assert_eq!(files, (0..5).map(|i| format!("logs/file-{i}.txt")).collect::<Vec<_>>());

    // The SDK's paginator, without a delimiter, walks every key in order.
    let mut all = Vec::new();
    let mut paginator = s3.list_objects_v2().bucket(bucket).max_keys(4).into_paginator().send();
    while let Some(page) = paginator.next().await {
        let page = page.expect("page");
        all.extend(page.contents().iter().map(|o| {
            assert_eq!(o.size(), Some(o.key().unwrap().len() as i64));
            o.key().unwrap().to_string()
        }));
    }
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(all, sorted);

    let after = s3
        .list_objects_v2()
        .bucket(bucket)
        .start_after("logs/c/2.log")
        .send()
        .await
        .expect("start-after");
    let after: Vec<_> = after.contents().iter().filter_map(|o| o.key()).collect();
    assert_eq!(after[0], "logs/file-0.txt");
    assert_eq!(after.last(), Some(&"top.txt"));
}

#[tokio::test]
async fn multipart_upload_with_two_parts() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let bucket = "sdk-multipart";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let first = pattern(5 * 1024 * 1024, 1);
    let second = pattern(1234, 2);

    let upload = s3
        .create_multipart_upload()
        .bucket(bucket)
        .key("big.bin")
        .content_type("application/octet-stream")
        .metadata("kind", "multipart")
        .checksum_algorithm(ChecksumAlgorithm::Crc32)
        .send()
        .await
        .expect("CreateMultipartUpload");
    let upload_id = upload.upload_id().expect("upload id").to_string();
    let mut parts = Vec::new();
    for (number, data) in [(1, &first), (2, &second)] {
        let part = s3
            .upload_part()
            .bucket(bucket)
            .key("big.bin")
            .upload_id(&upload_id)
            .part_number(number)
            .checksum_algorithm(ChecksumAlgorithm::Crc32)
            .body(ByteStream::from(data.clone()))
            .send()
            .await
            .expect("UploadPart");
        assert!(part.checksum_crc32().is_some(), "{part:?}");
        parts.push(
            CompletedPart::builder()
                .part_number(number)
                .e_tag(part.e_tag().expect("part ETag"))
                .checksum_crc32(part.checksum_crc32().unwrap())
                .build(),
        );
    }
    let listed = s3
        .list_parts()
        .bucket(bucket)
        .key("big.bin")
        .upload_id(&upload_id)
        .send()
        .await
        .expect("ListParts");
    let sizes: Vec<_> = listed.parts().iter().map(|p| p.size().unwrap()).collect();
    assert_eq!(sizes, [first.len() as i64, second.len() as i64]);

    let done = s3
        .complete_multipart_upload()
        .bucket(bucket)
        .key("big.bin")
        .upload_id(&upload_id)
        .multipart_upload(CompletedMultipartUpload::builder().set_parts(Some(parts)).build())
        .send()
        .await
        .expect("CompleteMultipartUpload");
    let etag = done.e_tag().expect("ETag");
    assert!(etag.ends_with("-2\""), "{etag}");
    assert!(done.checksum_crc32().expect("composite checksum").ends_with("-2"));
    assert_eq!(done.checksum_type(), Some(&ChecksumType::Composite));

    let got = s3
        .get_object()
        .bucket(bucket)
        .key("big.bin")
        .send()
        .await
        .expect("GetObject");
    assert_eq!(got.content_length(), Some((first.len() + second.len()) as i64));
    assert_eq!(got.e_tag(), Some(etag));
    assert_eq!(
        got.metadata().unwrap().get("kind").map(String::as_str),
        Some("multipart")
    );
    let whole = body(got).await;
    assert!(whole[..first.len()] == first[..] && whole[first.len()..] == second[..]);
    // A range across the part boundary.
    let across = s3
        .get_object()
        .bucket(bucket)
        .key("big.bin")
        .range(format!("bytes={}-{}", first.len() - 5, first.len() + 4))
        .send()
        .await
        .expect("range across parts");
    assert_eq!(body(across).await, &whole[first.len() - 5..first.len() + 5]);

    // An aborted upload is gone.
    let aborted = s3
        .create_multipart_upload()
        .bucket(bucket)
        .key("never.bin")
        .send()
        .await
        .expect("CreateMultipartUpload");
    s3.abort_multipart_upload()
        .bucket(bucket)
        .key("never.bin")
        .upload_id(aborted.upload_id().unwrap())
        .send()
        .await
        .expect("AbortMultipartUpload");
    let uploads = s3
        .list_multipart_uploads()
        .bucket(bucket)
        .send()
        .await
        .expect("ListMultipartUploads");
    assert!(uploads.uploads().is_empty(), "{uploads:?}");
}

#[tokio::test]
async fn versioning_round_trip() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, false);
    let bucket = "sdk-versions";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    s3.put_bucket_versioning()
        .bucket(bucket)
        .versioning_configuration(
            VersioningConfiguration::builder()
                .status(BucketVersioningStatus::Enabled)
                .build(),
        )
        .send()
        .await
        .expect("PutBucketVersioning");
    let status = s3
        .get_bucket_versioning()
        .bucket(bucket)
        .send()
        .await
        .expect("GetBucketVersioning");
    assert_eq!(status.status(), Some(&BucketVersioningStatus::Enabled));

    let mut ids = Vec::new();
    for text in ["one", "two"] {
        let put = s3
            .put_object()
            .bucket(bucket)
            .key("doc")
            .body(ByteStream::from_static(text.as_bytes()))
            .send()
            .await
            .expect("PutObject");
        ids.push(put.version_id().expect("version id").to_string());
    }
    assert_ne!(ids[0], ids[1]);
    let first = s3
        .get_object()
        .bucket(bucket)
        .key("doc")
        .version_id(&ids[0])
        .send()
        .await
        .expect("GetObject by version");
    assert_eq!(first.version_id(), Some(ids[0].as_str()));
    assert_eq!(body(first).await, b"one");

    let deleted = s3
        .delete_object()
        .bucket(bucket)
        .key("doc")
        .send()
        .await
        .expect("DeleteObject");
    assert_eq!(deleted.delete_marker(), Some(true));
    let marker = deleted.version_id().expect("marker id").to_string();
    let err = s3
        .get_object()
        .bucket(bucket)
        .key("doc")
        .send()
        .await
        .expect_err("a delete marker hides the key")
        .into_service_error();
    assert!(err.is_no_such_key(), "{err:?}");

    let versions = s3
        .list_object_versions()
        .bucket(bucket)
        .send()
        .await
        .expect("ListObjectVersions");
    let listed: Vec<_> = versions
        .versions()
        .iter()
        .map(|v| (v.version_id().unwrap().to_string(), v.is_latest().unwrap()))
        .collect();
    assert_eq!(listed, [(ids[1].clone(), false), (ids[0].clone(), false)]);
    let markers: Vec<_> = versions
        .delete_markers()
        .iter()
        .map(|m| (m.version_id().unwrap().to_string(), m.is_latest().unwrap()))
        .collect();
    assert_eq!(markers, [(marker.clone(), true)]);

    // Deleting the marker brings the newest version back.
    s3.delete_object()
        .bucket(bucket)
        .key("doc")
        .version_id(&marker)
        .send()
        .await
        .expect("delete the marker");
    let current = s3
        .get_object()
        .bucket(bucket)
        .key("doc")
        .send()
        .await
        .expect("GetObject");
    assert_eq!(current.version_id(), Some(ids[1].as_str()));
    assert_eq!(body(current).await, b"two");
    for id in &ids {
        s3.delete_object()
            .bucket(bucket)
            .key("doc")
            .version_id(id)
            .send()
            .await
            .expect("delete a version");
    }
    s3.delete_bucket().bucket(bucket).send().await.expect("DeleteBucket");
}

#[tokio::test]
async fn checksums_sent_and_verified() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let bucket = "sdk-checksums";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let data = pattern(300_000, 3);

    // The SDK computes CRC32 by default and the server answers it back.
    let put = s3
        .put_object()
        .bucket(bucket)
        .key("crc32")
        .body(ByteStream::from(data.clone()))
        .send()
        .await
        .expect("PutObject");
    let crc32 = put.checksum_crc32().expect("CRC32 echoed").to_string();
    assert_eq!(put.checksum_type(), Some(&ChecksumType::FullObject));
    let got = s3
        .get_object()
        .bucket(bucket)
        .key("crc32")
        .checksum_mode(ChecksumMode::Enabled)
        .send()
        .await
        .expect("GetObject");
    assert_eq!(got.checksum_crc32(), Some(crc32.as_str()));
    // The SDK validates the body against the checksum while it is read.
    assert_eq!(body(got).await, data);
    let head = s3
        .head_object()
        .bucket(bucket)
        .key("crc32")
        .checksum_mode(ChecksumMode::Enabled)
        .send()
        .await
        .expect("HeadObject");
    assert_eq!(head.checksum_crc32(), Some(crc32.as_str()));

    // Other algorithms.
    for algorithm in [
        ChecksumAlgorithm::Crc32C,
        ChecksumAlgorithm::Crc64Nvme,
        ChecksumAlgorithm::Sha1,
        ChecksumAlgorithm::Sha256,
    ] {
        let key = format!("alg-{}", algorithm.as_str());
        let put = s3
            .put_object()
            .bucket(bucket)
            .key(&key)
            .checksum_algorithm(algorithm.clone())
            .body(ByteStream::from(data.clone()))
            .send()
            .await
            .unwrap_or_else(|e| panic!("PutObject {algorithm:?}: {e:?}"));
        let sent = match algorithm {
            ChecksumAlgorithm::Crc32C => put.checksum_crc32_c(),
            ChecksumAlgorithm::Crc64Nvme => put.checksum_crc64_nvme(),
            ChecksumAlgorithm::Sha1 => put.checksum_sha1(),
            _ => put.checksum_sha256(),
        }
        .unwrap_or_else(|| panic!("{algorithm:?} echoed: {put:?}"))
        .to_string();
        let got = s3
            .get_object()
            .bucket(bucket)
            .key(&key)
            .checksum_mode(ChecksumMode::Enabled)
            .send()
            .await
            .expect("GetObject");
        let answered = match algorithm {
            ChecksumAlgorithm::Crc32C => got.checksum_crc32_c(),
            ChecksumAlgorithm::Crc64Nvme => got.checksum_crc64_nvme(),
            ChecksumAlgorithm::Sha1 => got.checksum_sha1(),
            _ => got.checksum_sha256(),
        }
        .map(str::to_string);
        assert_eq!(answered.as_deref(), Some(sent.as_str()), "{algorithm:?}");
        assert_eq!(body(got).await, data);
    }

    // A checksum the body does not match is refused.
    let err = s3
        .put_object()
        .bucket(bucket)
        .key("wrong")
        .checksum_crc32("AAAAAA==")
        .body(ByteStream::from_static(b"not zero"))
        .send()
        .await
        .expect_err("wrong checksum");
    match &err {
        SdkError::ServiceError(e) => {
            assert_eq!(
                aws_sdk_s3::error::ProvideErrorMetadata::code(e.err()),
                Some("BadDigest"),
                "{err:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let missing = s3.head_object().bucket(bucket).key("wrong").send().await;
    assert!(missing.is_err(), "a refused write stores nothing");
}

/// Percent-encodes everything but unreserved characters and `/`, as `x-amz-copy-source` wants.
fn encode_copy_source(source: &str) -> String {
    source
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn awkward_keys_copies_batch_deletes_and_conditions_by_host() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, false);
    let bucket = "sdk-awkward";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let keys = [
        "with space.txt",
        "plus+sign.txt",
        "ümlaut/straße.txt",
        "percent%41.txt",
        "semi;colon&amp=.txt",
        "<angle>.txt",
        "dir//double",
        "empty",
    ];
    for key in keys {
        let data = if key == "empty" {
            Vec::new()
        } else {
            key.as_bytes().to_vec()
        };
        s3.put_object()
            .bucket(bucket)
            .key(key)
            .body(ByteStream::from(data))
            .send()
            .await
            .unwrap_or_else(|e| panic!("PutObject {key:?}: {e:?}"));
    }
    for key in keys {
        let got = s3
            .get_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GetObject {key:?}: {e:?}"));
        let expected = if key == "empty" { &b""[..] } else { key.as_bytes() };
        assert_eq!(body(got).await, expected, "{key:?}");
    }
    let listed = s3.list_objects_v2().bucket(bucket).send().await.expect("ListObjectsV2");
    let mut expected: Vec<_> = keys.to_vec();
    expected.sort();
    let listed: Vec<_> = listed.contents().iter().filter_map(|o| o.key()).collect();
    assert_eq!(listed, expected);

    // CopyObject from an awkward key, with new metadata.
    let copied = s3
        .copy_object()
        .bucket(bucket)
        .key("copy/of ümlaut")
        .copy_source(encode_copy_source(&format!("{bucket}/ümlaut/straße.txt")))
        .metadata_directive(aws_sdk_s3::types::MetadataDirective::Replace)
        .metadata("copied", "yes")
        .send()
        .await
        .expect("CopyObject");
    assert!(copied.copy_object_result().and_then(|r| r.e_tag()).is_some());
    let got = s3
        .get_object()
        .bucket(bucket)
        .key("copy/of ümlaut")
        .send()
        .await
        .expect("GetObject of the copy");
    assert_eq!(got.metadata().unwrap().get("copied").map(String::as_str), Some("yes"));
    assert_eq!(body(got).await, "ümlaut/straße.txt".as_bytes());

    // Conditional writes.
    let again = s3
        .put_object()
        .bucket(bucket)
        .key("empty")
        .if_none_match("*")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .expect_err("the key exists");
    match &again {
        SdkError::ServiceError(e) => assert_eq!(e.raw().status().as_u16(), 412),
        other => panic!("{other:?}"),
    }

    // DeleteObjects: the SDK sends a CRC32 checksum of the body (not Content-MD5).
    let objects: Vec<_> = keys
        .iter()
        .chain(["copy/of ümlaut", "never-there"].iter())
        .map(|k| aws_sdk_s3::types::ObjectIdentifier::builder().key(*k).build().unwrap())
        .collect();
    let deleted = s3
        .delete_objects()
        .bucket(bucket)
        .delete(
            aws_sdk_s3::types::Delete::builder()
                .set_objects(Some(objects))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("DeleteObjects");
    assert_eq!(deleted.deleted().len(), keys.len() + 2, "{deleted:?}");
    assert!(deleted.errors().is_empty());
    let left = s3.list_objects_v2().bucket(bucket).send().await.expect("ListObjectsV2");
    assert_eq!(left.key_count(), Some(0));
    s3.delete_bucket().bucket(bucket).send().await.expect("DeleteBucket");
}

#[tokio::test]
async fn get_and_head_by_part_number() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let bucket = "sdk-part-numbers";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let first = pattern(5 * 1024 * 1024, 4);
    let second = pattern(100, 5);
    let upload = s3
        .create_multipart_upload()
        .bucket(bucket)
        .key("parts")
        .send()
        .await
        .expect("CreateMultipartUpload");
    let upload_id = upload.upload_id().unwrap();
    let mut parts = Vec::new();
    for (number, data) in [(1, &first), (2, &second)] {
        let part = s3
            .upload_part()
            .bucket(bucket)
            .key("parts")
            .upload_id(upload_id)
            .part_number(number)
            .body(ByteStream::from(data.clone()))
            .send()
            .await
            .expect("UploadPart");
        parts.push(
            CompletedPart::builder()
                .part_number(number)
                .e_tag(part.e_tag().unwrap())
                .build(),
        );
    }
    s3.complete_multipart_upload()
        .bucket(bucket)
        .key("parts")
        .upload_id(upload_id)
        .multipart_upload(CompletedMultipartUpload::builder().set_parts(Some(parts)).build())
        .send()
        .await
        .expect("CompleteMultipartUpload");
    let total = first.len() + second.len();
    let got = s3
        .get_object()
        .bucket(bucket)
        .key("parts")
        .part_number(1)
        .send()
        .await
        .expect("GetObject partNumber=1");
    assert_eq!(got.parts_count(), Some(2));
    assert_eq!(
        got.content_range(),
        Some(format!("bytes 0-{}/{total}", first.len() - 1).as_str())
    );
    assert_eq!(body(got).await, first);
    let head = s3
        .head_object()
        .bucket(bucket)
        .key("parts")
        .part_number(2)
        .send()
        .await
        .expect("HeadObject partNumber=2");
    assert_eq!(head.content_length(), Some(second.len() as i64));
    assert_eq!(head.parts_count(), Some(2));
}

#[tokio::test]
async fn bodies_over_16_mib_stream_both_ways() {
    let stratus = Stratus::start();
    let (s3, _) = client(&stratus, true);
    let bucket = "sdk-large";
    s3.create_bucket().bucket(bucket).send().await.expect("CreateBucket");
    let data = pattern(20 * 1024 * 1024 + 3, 6);
    let put = s3
        .put_object()
        .bucket(bucket)
        .key("large.bin")
        .body(ByteStream::from(data.clone()))
        .send()
        .await
        .expect("PutObject of 20 MiB");
    let crc32 = put.checksum_crc32().expect("CRC32").to_string();
    let got = s3
        .get_object()
        .bucket(bucket)
        .key("large.bin")
        .checksum_mode(ChecksumMode::Enabled)
        .send()
        .await
        .expect("GetObject");
    assert_eq!(got.content_length(), Some(data.len() as i64));
    assert_eq!(got.checksum_crc32(), Some(crc32.as_str()));
    let back = body(got).await;
    assert!(back == data, "the body differs");

    // A part over 16 MiB.
    let upload = s3
        .create_multipart_upload()
        .bucket(bucket)
        .key("one-big-part")
        .checksum_algorithm(ChecksumAlgorithm::Crc32)
        .send()
        .await
        .expect("CreateMultipartUpload");
    let part = s3
        .upload_part()
        .bucket(bucket)
        .key("one-big-part")
        .upload_id(upload.upload_id().unwrap())
        .part_number(1)
        .checksum_algorithm(ChecksumAlgorithm::Crc32)
        .body(ByteStream::from(data.clone()))
        .send()
        .await
        .expect("UploadPart of 20 MiB");
    s3.complete_multipart_upload()
        .bucket(bucket)
        .key("one-big-part")
        .upload_id(upload.upload_id().unwrap())
        .multipart_upload(
            CompletedMultipartUpload::builder()
                .parts(
                    CompletedPart::builder()
                        .part_number(1)
                        .e_tag(part.e_tag().unwrap())
                        .checksum_crc32(part.checksum_crc32().unwrap())
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .expect("CompleteMultipartUpload");
    let got = s3
        .get_object()
        .bucket(bucket)
        .key("one-big-part")
        .send()
        .await
        .expect("GetObject");
    assert!(body(got).await == data, "the body differs");
}
