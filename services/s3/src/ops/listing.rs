//! ListObjects, ListObjectsV2 and ListObjectVersions: the wire side of [`crate::listing`].

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::error::S3Error;
use crate::listing::{decode_token, max_keys, url_encode, OBJECT_LISTING};
use crate::object::ObjectRecord;
use crate::{listing, owner, store, versioning, S3Service};

pub(crate) async fn list_objects(
    s3: &S3Service,
    ctx: &RequestContext,
    input: ListObjectsRequest,
) -> Result<ListObjectsOutput, ListObjectsError> {
    answer_region(s3, ctx, &input.bucket)?;
    let max = max_keys(input.max_keys)?;
    let prefix = input.prefix.clone().unwrap_or_default();
    let page = s3.list(
        &input.bucket,
        &prefix,
        input.delimiter.as_deref(),
        input.marker.as_deref().filter(|m| !m.is_empty()),
        max,
    )?;
    // Owners are named to signed requests only: an anonymous listing (of a public bucket)
    // answers without them, as AWS's does.
    let owner_account = ctx
        .access_key_id
        .is_some()
        .then(|| store::bucket(&s3.store()?, &input.bucket))
        .transpose()?
        .map(|b| b.owner);
    let url = input.encoding_type.is_some();
    let enc = key_encoder(url);
    Ok(ListObjectsOutput {
        is_truncated: Some(page.truncated),
        marker: Some(enc(input.marker.as_deref().unwrap_or_default())),
        // S3 sends NextMarker only when a delimiter was given.
        next_marker: page
            .last
            .as_deref()
            .filter(|_| page.truncated && input.delimiter.is_some())
            .map(enc),
        contents: (!page.contents.is_empty()).then(|| {
            page.contents
                .iter()
                .map(|o| listed(o, owner_account.as_deref(), url))
                .collect()
        }),
        name: Some(input.bucket),
        prefix: Some(enc(&prefix)),
        delimiter: input.delimiter.as_deref().map(enc),
        max_keys: Some(max as i32),
        common_prefixes: common_prefixes(&page.common_prefixes, &enc),
        encoding_type: input.encoding_type,
        ..ListObjectsOutput::default()
    })
}

/// Listings name the bucket's region in `x-amz-bucket-region`, which no model member binds
/// (recorded from AWS for ListObjectsV2 outside us-east-1).
fn answer_region(s3: &S3Service, ctx: &RequestContext, bucket: &str) -> Result<(), stratus_core::AwsError> {
    let record = crate::store::bucket(&s3.store()?, bucket)?;
    ctx.answer_headers.add("x-amz-bucket-region", record.region);
    Ok(())
}

pub(crate) async fn list_objects_v2(
    s3: &S3Service,
    ctx: &RequestContext,
    input: ListObjectsV2Request,
) -> Result<ListObjectsV2Output, ListObjectsV2Error> {
    answer_region(s3, ctx, &input.bucket)?;
    let max = max_keys(input.max_keys)?;
    let prefix = input.prefix.clone().unwrap_or_default();
    let after = match input.continuation_token.as_deref() {
        Some(token) => Some(decode_token(OBJECT_LISTING, token)?),
        None => input.start_after.clone().filter(|s| !s.is_empty()),
    };
    let page = s3
        .list(
            &input.bucket,
            &prefix,
            input.delimiter.as_deref(),
            after.as_deref(),
            max,
        )
        .map_err(|e| match e.code.as_str() {
            "NoSuchBucket" => ListObjectsV2Error::NoSuchBucket(NoSuchBucket {}),
            _ => ListObjectsV2Error::Aws(e),
        })?;
    let owner_account = input
        .fetch_owner
        .unwrap_or(false)
        .then(|| store::bucket(&s3.store()?, &input.bucket).map(|b| b.owner))
        .transpose()?;
    let key_count = page.contents.len() + page.common_prefixes.len();
    let url = input.encoding_type.is_some();
    let enc = key_encoder(url);
    Ok(ListObjectsV2Output {
        is_truncated: Some(page.truncated),
        next_continuation_token: page
            .last
            .as_deref()
            .filter(|_| page.truncated)
            .map(|last| OBJECT_LISTING.encode_str(last)),
        contents: (!page.contents.is_empty()).then(|| {
            page.contents
                .iter()
                .map(|o| listed(o, owner_account.as_deref(), url))
                .collect()
        }),
        name: Some(input.bucket),
        prefix: Some(enc(&prefix)),
        delimiter: input.delimiter.as_deref().map(enc),
        max_keys: Some(max as i32),
        common_prefixes: common_prefixes(&page.common_prefixes, &enc),
        encoding_type: input.encoding_type,
        key_count: Some(key_count as i32),
        continuation_token: input.continuation_token,
        start_after: input.start_after.as_deref().map(enc),
        ..ListObjectsV2Output::default()
    })
}

pub(crate) async fn list_object_versions(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: ListObjectVersionsRequest,
) -> Result<ListObjectVersionsOutput, ListObjectVersionsError> {
    Ok(list_versions(s3, input)?)
}

fn list_versions(s3: &S3Service, input: ListObjectVersionsRequest) -> Result<ListObjectVersionsOutput, AwsError> {
    let max = max_keys(input.max_keys)?;
    let key_marker = input.key_marker.as_deref().filter(|m| !m.is_empty());
    let version_id_marker = input.version_id_marker.as_deref().filter(|m| !m.is_empty());
    if let Some(id) = version_id_marker {
        if key_marker.is_none() {
            return Err(S3Error::invalid_argument(
                "A version-id marker cannot be specified without a key marker.",
            ));
        }
        versioning::check_id(id)?;
    }
    let db = s3.store()?;
    let bucket = store::bucket(&db, &input.bucket)?;
    let prefix = input.prefix.clone().unwrap_or_default();
    let mut entries = versioning::list(
        &db,
        &bucket,
        &prefix,
        key_marker,
        version_id_marker,
        input.delimiter.as_deref(),
    );
    let page = listing::page(entries.by_ref(), &prefix, input.delimiter.as_deref(), max);
    if let Some(e) = entries.error() {
        return Err(e);
    }
    let url = input.encoding_type.is_some();
    let enc = key_encoder(url);
    let (mut versions, mut markers) = (Vec::new(), Vec::new());
    for entry in &page.contents {
        let r = &entry.record;
        // To the millisecond: the protocol layer interleaves versions and delete markers by
        // it, and writes it to the second.
        let last_modified = Some(DateTime::from_millis(r.last_modified_ms));
        if r.delete_marker {
            markers.push(DeleteMarkerEntry {
                owner: Some(owner(&bucket.owner)),
                key: Some(enc(&r.key)),
                version_id: Some(r.version_label().to_owned()),
                is_latest: Some(entry.is_latest),
                last_modified,
            });
        } else {
            versions.push(ObjectVersion {
                e_tag: Some(r.etag.clone()),
                size: Some(i64::try_from(r.size).unwrap_or(i64::MAX)),
                storage_class: Some(ObjectVersionStorageClass::from_wire(
                    r.storage_class.as_deref().unwrap_or("STANDARD"),
                )),
                key: Some(enc(&r.key)),
                version_id: Some(r.version_label().to_owned()),
                is_latest: Some(entry.is_latest),
                last_modified,
                owner: Some(owner(&bucket.owner)),
                checksum_algorithm: r.checksum.as_ref().map(|c| vec![c.algorithm.to_model()]),
                checksum_type: r.checksum.as_ref().map(|c| c.checksum_type()),
                ..ObjectVersion::default()
            });
        }
    }
    let (next_key_marker, next_version_id_marker) = if page.truncated {
        match (page.last_is_prefix, page.contents.last()) {
            (false, Some(last)) => (
                Some(enc(&last.record.key)),
                Some(last.record.version_label().to_owned()),
            ),
            _ => (page.last.as_deref().map(enc), None),
        }
    } else {
        (None, None)
    };
    Ok(ListObjectVersionsOutput {
        is_truncated: Some(page.truncated),
        key_marker: Some(enc(input.key_marker.as_deref().unwrap_or_default())),
        version_id_marker: Some(input.version_id_marker.clone().unwrap_or_default()),
        next_key_marker,
        next_version_id_marker,
        versions: (!versions.is_empty()).then_some(versions),
        delete_markers: (!markers.is_empty()).then_some(markers),
        name: Some(input.bucket),
        prefix: Some(enc(&prefix)),
        delimiter: input.delimiter.as_deref().map(enc),
        max_keys: Some(max as i32),
        common_prefixes: common_prefixes(&page.common_prefixes, &enc),
        encoding_type: input.encoding_type,
        ..ListObjectVersionsOutput::default()
    })
}

fn listed(o: &ObjectRecord, owner_account: Option<&str>, url: bool) -> Object {
    Object {
        key: Some(if url { url_encode(&o.key) } else { o.key.clone() }),
        last_modified: Some(o.last_modified()),
        e_tag: Some(o.etag.clone()),
        size: Some(i64::try_from(o.size).unwrap_or(i64::MAX)),
        storage_class: Some(ObjectStorageClass::from_wire(
            o.storage_class.as_deref().unwrap_or("STANDARD"),
        )),
        owner: owner_account.map(owner),
        checksum_algorithm: o.checksum.as_ref().map(|c| vec![c.algorithm.to_model()]),
        checksum_type: o.checksum.as_ref().map(|c| c.checksum_type()),
        ..Object::default()
    }
}

/// How a listing writes keys and prefixes: URL-encoded when the request asked for
/// `encoding-type=url`, else as they are.
fn key_encoder(url: bool) -> impl Fn(&str) -> String + Copy {
    move |s| if url { url_encode(s) } else { s.to_owned() }
}

/// A page's common prefixes as a listing answers them (absent when there are none).
fn common_prefixes(prefixes: &[String], enc: &impl Fn(&str) -> String) -> Option<Vec<CommonPrefix>> {
    (!prefixes.is_empty()).then(|| prefixes.iter().map(|p| CommonPrefix { prefix: Some(enc(p)) }).collect())
}
