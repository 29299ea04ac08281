//! Objects: put, get, head, delete (one or many), copy, object tagging and encryption updates.

use std::collections::BTreeMap;

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::body::{self, Declared, Source};
use crate::checksum::{checksum_members, set_checksum_members, Algorithm};
use crate::chunked;
use crate::customer_key::{self, given};
use crate::encryption::{self, kms_headers, Reported};
use crate::error::S3Error;
use crate::object::{self, copy_source, ContentHeaders, ObjectRecord, ReadConditions};
use crate::storage_class::{archived, check_readable, check_storage_class, kept_storage_class, restored};
use crate::versioning::{self, Deleted};
use crate::{
    checksum, conditional_write, config, from_tags, lock, notify, rfc2047, store, to_tags, S3Service, MAX_KEYS,
};

pub(crate) async fn put_object(
    s3: &S3Service,
    ctx: &RequestContext,
    mut input: PutObjectRequest,
) -> Result<PutObjectOutput, PutObjectError> {
    input.metadata = input.metadata.map(rfc2047::decode_all);
    write_object(s3, ctx, input, "ObjectCreated:Put").await
}

/// Stores the object `input` describes, whose body is `ctx`'s request, and reports it as
/// `event`: PutObject's write, which browser POST uploads share.
pub(crate) async fn write_object(
    s3: &S3Service,
    ctx: &RequestContext,
    mut input: PutObjectRequest,
    event: &'static str,
) -> Result<PutObjectOutput, PutObjectError> {
    check_storage_class(input.storage_class.as_ref())?;
    let customer_key = customer_key::for_write(
        given!(input),
        input.server_side_encryption.as_ref().map(ServerSideEncryption::as_str),
    )?;
    let body = std::mem::take(&mut input.body);
    let bucket = input.bucket.clone();
    let Declared {
        incoming,
        content_md5,
        sent,
        algorithm,
    } = Declared::of(
        ctx,
        body,
        input.content_md5.as_deref(),
        input.checksum_algorithm.as_ref(),
        checksum_members!(input),
    )?;
    let lock = lock::Requested::from_headers(
        input.object_lock_mode.as_ref(),
        input.object_lock_retain_until_date.as_ref(),
        input.object_lock_legal_hold_status.as_ref(),
        s3.now_ms(),
    )?;
    let tags = match &input.tagging {
        Some(header) => object::parse_tagging_header(header)?,
        None => BTreeMap::new(),
    };
    let acl = s3.object_acl_headers(
        &input.bucket,
        &ctx.account_id,
        input.acl.as_ref(),
        [
            input.grant_full_control.as_ref(),
            input.grant_read.as_ref(),
            input.grant_read_acp.as_ref(),
            input.grant_write_acp.as_ref(),
        ],
    )?;
    // Before the body is read: a client waiting for `100 Continue` is refused without sending it.
    store::bucket(&s3.store()?, &bucket)?;
    let kms = match customer_key {
        Some(_) => None,
        None => s3.kms_for_write(ctx, &bucket, &input.key, kms_headers!(input)).await?,
    };
    let (blob, written) = s3
        .write_body("obj", incoming.source, Some(algorithm), body::MAX_SINGLE_UPLOAD)
        .await?;
    s3.verify_body(
        &blob,
        &written,
        content_md5.as_deref(),
        sent.as_ref(),
        body::DigestText::Hex,
    )
    .await?;
    let record = ObjectRecord {
        key: input.key,
        size: written.size,
        etag: written.etag(),
        last_modified_ms: s3.now_ms(),
        blob,
        headers: ContentHeaders {
            content_type: Some(input.content_type.unwrap_or_else(|| "binary/octet-stream".into())),
            cache_control: input.cache_control,
            content_disposition: input.content_disposition,
            content_encoding: chunked::stored_encoding(input.content_encoding),
            content_language: input.content_language,
            expires: input.expires,
        },
        metadata: input.metadata.unwrap_or_default(),
        tags,
        storage_class: kept_storage_class(input.storage_class),
        website_redirect_location: input.website_redirect_location,
        acl,
        checksum: Some(checksum::Checksum {
            algorithm,
            value: checksum::encode(written.checksum.as_deref().unwrap_or_default()),
            composite: false,
        }),
        customer_key_md5: customer_key,
        kms,
        ..ObjectRecord::default()
    };
    let (if_match, if_none_match) = (input.if_match, input.if_none_match);
    let key = record.key.clone();
    let stored = s3
        .put(input.bucket, record, lock, None, move |previous| {
            conditional_write(&key, previous, if_match.as_deref(), if_none_match.as_deref())
        })
        .await?;
    s3.notify(notify::Event::created(event, &bucket, &stored, ctx)).await;
    let sse = Reported::of(&stored);
    let mut output = PutObjectOutput {
        expiration: s3.expiration(&bucket, &stored),
        // A null version (written while versioning is suspended) goes unsaid, as AWS's
        // PutObject answers it; reads name it.
        version_id: stored.version_id.clone(),
        e_tag: Some(stored.etag.clone()),
        checksum_type: stored.checksum.as_ref().map(checksum::Checksum::checksum_type),
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        ..PutObjectOutput::default()
    };
    set_checksum_members!(output, stored.checksum.as_ref());
    Ok(output)
}

pub(crate) async fn get_object(
    s3: &S3Service,
    ctx: &RequestContext,
    input: GetObjectRequest,
) -> Result<GetObjectOutput, GetObjectError> {
    check_overrides(&input)?;
    let (record, body) =
        s3.open_object(|| s3.object_version(&input.bucket, &input.key, input.version_id.as_deref()))?;
    check_readable(&record, s3.now_ms())?;
    customer_key::check_read(record.customer_key_md5.as_deref(), given!(input))?;
    ReadConditions {
        if_match: input.if_match.as_deref(),
        if_none_match: input.if_none_match.as_deref(),
        if_modified_since: input.if_modified_since.as_ref(),
        if_unmodified_since: input.if_unmodified_since.as_ref(),
        now_ms: s3.now_ms(),
    }
    .check(&record)?;
    let (range, parts_count) = object::read_range(input.range.as_deref(), input.part_number, &record)?;
    let body = s3.read_body(ctx, body, record.size, range).await?;
    let checksum = returned_checksum(&record, input.checksum_mode.as_ref(), range, input.part_number);
    let headers = &record.headers;
    let sse = Reported::of(&record);
    let mut output = GetObjectOutput {
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        content_length: Some(range.map_or(record.size, |(start, end)| end - start + 1) as i64),
        content_range: range.map(|(start, end)| format!("bytes {start}-{end}/{}", record.size)),
        body,
        accept_ranges: Some("bytes".into()),
        last_modified: Some(record.last_modified()),
        e_tag: Some(record.etag.clone()),
        content_type: input.response_content_type.or_else(|| headers.content_type.clone()),
        cache_control: input.response_cache_control.or_else(|| headers.cache_control.clone()),
        content_disposition: input
            .response_content_disposition
            .or_else(|| headers.content_disposition.clone()),
        content_encoding: input
            .response_content_encoding
            .or_else(|| headers.content_encoding.clone()),
        content_language: input
            .response_content_language
            .or_else(|| headers.content_language.clone()),
        expires: input
            .response_expires
            .and_then(|t| t.fmt(aws_smithy_types::date_time::Format::HttpDate).ok())
            .or_else(|| headers.expires.clone()),
        metadata: (!record.metadata.is_empty()).then(|| rfc2047::encode_all(&record.metadata)),
        tag_count: (!record.tags.is_empty()).then_some(record.tags.len() as i32),
        storage_class: record.storage_class.clone().map(|c| StorageClass::from_wire(&c)),
        website_redirect_location: record.website_redirect_location.clone(),
        restore: super::restore::restore_header(&record, s3.now_ms()),
        version_id: record.version_header(),
        checksum_type: checksum.as_ref().map(checksum::Checksum::checksum_type),
        object_lock_mode: record.lock_mode.as_deref().map(ObjectLockMode::from_wire),
        object_lock_retain_until_date: record.lock_until_ms.map(DateTime::from_millis),
        object_lock_legal_hold_status: record.legal_hold.map(lock::legal_hold_status),
        parts_count,
        expiration: current_expiration(s3, &input.bucket, &record, input.version_id.as_deref()),
        ..GetObjectOutput::default()
    };
    set_checksum_members!(output, checksum.as_ref());
    Ok(output)
}

/// The `response-*` overrides of a read, which S3 answers as headers: each must be
/// ISO-8859-1 text, as AWS's headers are.
fn check_overrides(input: &GetObjectRequest) -> Result<(), stratus_core::AwsError> {
    let overrides = [
        ("response-cache-control", &input.response_cache_control),
        ("response-content-disposition", &input.response_content_disposition),
        ("response-content-encoding", &input.response_content_encoding),
        ("response-content-language", &input.response_content_language),
        ("response-content-type", &input.response_content_type),
    ];
    for (name, value) in overrides {
        if let Some(value) = value.as_deref().filter(|v| v.chars().any(|c| u32::from(c) > 0xFF)) {
            return Err(
                S3Error::invalid_argument("Header value cannot be represented using ISO-8859-1.")
                    .with_detail("ArgumentName", name)
                    .with_detail("ArgumentValue", value),
            );
        }
    }
    Ok(())
}

/// The `x-amz-expiration` of a read: for the current version, read without a version id.
fn current_expiration(s3: &S3Service, bucket: &str, record: &ObjectRecord, version_id: Option<&str>) -> Option<String> {
    version_id.is_none().then(|| s3.expiration(bucket, record)).flatten()
}

/// The checksum a read returns when asked with `x-amz-checksum-mode: ENABLED` (in any case, as
/// AWS reads it): the object's for the whole object (part 1 of an object not uploaded in
/// parts is the whole object), the part's for a part of a COMPOSITE multipart object (a
/// FULL_OBJECT one answers only when its one part is the whole object), none for a range.
fn returned_checksum(
    record: &ObjectRecord,
    mode: Option<&ChecksumMode>,
    range: Option<(u64, u64)>,
    part_number: Option<i32>,
) -> Option<checksum::Checksum> {
    if !mode.is_some_and(|m| m.as_str().eq_ignore_ascii_case("ENABLED")) {
        return None;
    }
    let whole = record.checksum.as_ref()?;
    match part_number {
        Some(_) if !whole.composite && record.parts.len() > 1 => None,
        Some(n) if !record.parts.is_empty() => {
            let part = record.parts.iter().find(|p| p.number == n)?;
            Some(checksum::Checksum {
                value: part.checksum.clone()?,
                ..whole.clone()
            })
        }
        Some(_) => Some(whole.clone()),
        None if range.is_none() => Some(whole.clone()),
        None => None,
    }
}

pub(crate) async fn head_object(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: HeadObjectRequest,
) -> Result<HeadObjectOutput, HeadObjectError> {
    let record = s3
        .object_version(&input.bucket, &input.key, input.version_id.as_deref())
        .map_err(S3Error::head)?;
    customer_key::check_read(record.customer_key_md5.as_deref(), given!(input))?;
    ReadConditions {
        if_match: input.if_match.as_deref(),
        if_none_match: input.if_none_match.as_deref(),
        if_modified_since: input.if_modified_since.as_ref(),
        if_unmodified_since: input.if_unmodified_since.as_ref(),
        now_ms: s3.now_ms(),
    }
    .check(&record)?;
    let (range, parts_count) =
        object::read_range(input.range.as_deref(), input.part_number, &record).map_err(S3Error::head)?;
    let checksum = returned_checksum(&record, input.checksum_mode.as_ref(), range, input.part_number);
    let expiration = current_expiration(s3, &input.bucket, &record, input.version_id.as_deref());
    let sse = Reported::of(&record);
    let restore = super::restore::restore_header(&record, s3.now_ms());
    let headers = record.headers;
    let version_id = (record.seq > 0).then(|| record.version_id.unwrap_or_else(|| "null".into()));
    let mut output = HeadObjectOutput {
        restore,
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        expiration,
        version_id,
        parts_count,
        content_length: Some(range.map_or(record.size, |(s, e)| e - s + 1) as i64),
        content_range: range.map(|(start, end)| format!("bytes {start}-{end}/{}", record.size)),
        accept_ranges: Some("bytes".into()),
        last_modified: Some(DateTime::from_secs(record.last_modified_ms.div_euclid(1000))),
        e_tag: Some(record.etag),
        content_type: headers.content_type,
        cache_control: headers.cache_control,
        content_disposition: headers.content_disposition,
        content_encoding: headers.content_encoding,
        content_language: headers.content_language,
        expires: headers.expires,
        metadata: (!record.metadata.is_empty()).then(|| rfc2047::encode_all(&record.metadata)),
        tag_count: (!record.tags.is_empty()).then_some(record.tags.len() as i32),
        storage_class: record.storage_class.map(|c| StorageClass::from_wire(&c)),
        website_redirect_location: record.website_redirect_location,
        checksum_type: checksum.as_ref().map(checksum::Checksum::checksum_type),
        object_lock_mode: record.lock_mode.as_deref().map(ObjectLockMode::from_wire),
        object_lock_retain_until_date: record.lock_until_ms.map(DateTime::from_millis),
        object_lock_legal_hold_status: record.legal_hold.map(lock::legal_hold_status),
        ..HeadObjectOutput::default()
    };
    set_checksum_members!(output, checksum.as_ref());
    Ok(output)
}

pub(crate) async fn delete_object(
    s3: &S3Service,
    ctx: &RequestContext,
    input: DeleteObjectRequest,
) -> Result<DeleteObjectOutput, DeleteObjectError> {
    let version_asked = input.version_id.is_some();
    let mut outcomes = s3
        .delete(
            input.bucket.clone(),
            vec![(input.key.clone(), input.version_id)],
            input.mfa,
            input.bypass_governance_retention.unwrap_or(false),
        )
        .await?;
    let deleted = outcomes.pop().unwrap_or_else(|| Ok(Deleted::default()))?;
    s3.notify(removed_event(&input.bucket, &input.key, &deleted, version_asked, ctx))
        .await;
    Ok(DeleteObjectOutput {
        delete_marker: deleted.delete_marker.then_some(true),
        version_id: deleted.version_id,
        ..DeleteObjectOutput::default()
    })
}

/// The event a successful delete of `key` reports: a delete marker created (a delete without
/// a version id that added one), or a deletion (of an object, a version or a delete marker).
fn removed_event<'a>(
    bucket: &'a str,
    key: &'a str,
    deleted: &'a Deleted,
    version_asked: bool,
    ctx: &'a RequestContext,
) -> notify::Event<'a> {
    let (name, object) = if deleted.delete_marker && !version_asked {
        ("ObjectRemoved:DeleteMarkerCreated", notify::Facts::MarkerCreated)
    } else {
        ("ObjectRemoved:Delete", notify::Facts::Removed)
    };
    notify::Event::removed(
        name,
        object,
        bucket,
        key,
        deleted.version_id.as_deref(),
        ctx,
        ctx.clock.epoch_millis(),
    )
}

pub(crate) async fn delete_objects(
    s3: &S3Service,
    ctx: &RequestContext,
    input: DeleteObjectsRequest,
) -> Result<DeleteObjectsOutput, DeleteObjectsError> {
    let objects = input.delete.objects;
    if objects.is_empty() || objects.len() > MAX_KEYS {
        return Err(S3Error::malformed_xml().into());
    }
    let quiet = input.delete.quiet.unwrap_or(false);
    let targets: Vec<(String, Option<String>)> = objects.into_iter().map(|o| (o.key, o.version_id)).collect();
    let outcomes = s3
        .delete(
            input.bucket.clone(),
            targets.clone(),
            input.mfa,
            input.bypass_governance_retention.unwrap_or(false),
        )
        .await?;
    let (mut deleted, mut errors) = (Vec::new(), Vec::new());
    for ((key, asked), outcome) in targets.into_iter().zip(outcomes) {
        if let Ok(d) = &outcome {
            s3.notify(removed_event(&input.bucket, &key, d, asked.is_some(), ctx))
                .await;
        }
        match outcome {
            Ok(d) => deleted.push(DeletedObject {
                key: Some(key),
                // The version deleted, as asked; a new delete marker is named apart.
                version_id: asked.clone(),
                delete_marker: d.delete_marker.then_some(true),
                delete_marker_version_id: d.version_id.filter(|_| d.delete_marker),
            }),
            // AWS reports a version id it cannot parse as a version that does not exist.
            Err(e) => errors.push(Error {
                key: Some(key),
                version_id: asked,
                code: Some(if e.code == "InvalidArgument" {
                    "NoSuchVersion".into()
                } else {
                    e.code.clone()
                }),
                message: Some(if e.code == "InvalidArgument" {
                    "The specified version does not exist.".into()
                } else {
                    e.message.clone()
                }),
            }),
        }
    }
    Ok(DeleteObjectsOutput {
        deleted: (!quiet && !deleted.is_empty()).then_some(deleted),
        errors: (!errors.is_empty()).then_some(errors),
        ..DeleteObjectsOutput::default()
    })
}

pub(crate) async fn copy_object(
    s3: &S3Service,
    ctx: &RequestContext,
    input: CopyObjectRequest,
) -> Result<CopyObjectOutput, CopyObjectError> {
    check_storage_class(input.storage_class.as_ref())?;
    let sse = input.server_side_encryption.as_ref().map(ServerSideEncryption::as_str);
    let customer_key = customer_key::for_write(given!(input), sse)?;
    let new_encryption = sse.is_some() || customer_key.is_some();
    let kms = match customer_key {
        Some(_) => None,
        None => {
            s3.kms_for_write(ctx, &input.bucket, &input.key, kms_headers!(input))
                .await?
        }
    };
    // A copy has the ACL its request sets (the source's is not copied).
    let acl = s3.object_acl_headers(
        &input.bucket,
        &ctx.account_id,
        input.acl.as_ref(),
        [
            input.grant_full_control.as_ref(),
            input.grant_read.as_ref(),
            input.grant_read_acp.as_ref(),
            input.grant_write_acp.as_ref(),
        ],
    )?;
    let (source_bucket, source_key, source_version) = copy_source(&input.copy_source)?;
    let (source, source_body) =
        s3.open_object(|| s3.copy_source_object(&source_bucket, &source_key, source_version.as_deref()))?;
    customer_key::check_read(source.customer_key_md5.as_deref(), given!(copy_source input))?;
    if archived(&source).is_some() && !restored(&source, s3.now_ms()) {
        return Err(AwsError::new(
            "InvalidObjectState",
            "The source object of the COPY action is not in the active tier and is only stored in Amazon Glacier.",
            403,
        )
        .into());
    }
    let conditions = ReadConditions {
        if_match: input.copy_source_if_match.as_deref(),
        if_none_match: input.copy_source_if_none_match.as_deref(),
        if_modified_since: input.copy_source_if_modified_since.as_ref(),
        if_unmodified_since: input.copy_source_if_unmodified_since.as_ref(),
        now_ms: s3.now_ms(),
    };
    // A copy's failed conditions are all 412s.
    conditions.check(&source).map_err(|_| S3Error::precondition_failed())?;
    let replace = input
        .metadata_directive
        .as_ref()
        .is_some_and(|d| d.as_str() == "REPLACE");
    let replace_tags = input
        .tagging_directive
        .as_ref()
        .is_some_and(|d| d.as_str() == "REPLACE");
    let annotations_from = match &input.annotation_directive {
        None | Some(AnnotationDirective::Copy) => Some(versioning::annotated(
            &store::bucket(&s3.store()?, &source_bucket)?,
            &source,
        )),
        Some(AnnotationDirective::Exclude) => None,
        Some(AnnotationDirective::Unknown(_)) => {
            return Err(S3Error::invalid_argument("Unknown annotation directive.").into())
        }
    };
    // Copying a named version onto its own key is how a version is restored; a bucket with a
    // default encryption configuration re-encrypts what is copied onto itself (recorded).
    let same_place = source_bucket == input.bucket && source_key == input.key && source_version.is_none();
    // A source under SSE-KMS or SSE-C copied without asking becomes SSE-S3: a change too.
    let source_keyed = source.kms.is_some() || source.customer_key_md5.is_some();
    let unchanged = !replace
        && input.storage_class.is_none()
        && input.website_redirect_location.is_none()
        && !new_encryption
        && !source_keyed;
    if same_place && unchanged && s3.load_config(&input.bucket, config::ENCRYPTION)?.is_none() {
        return Err(S3Error::invalid_request(
            "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
        )
        .into());
    }
    let (headers, metadata) = if replace {
        (
            ContentHeaders {
                content_type: Some(input.content_type.unwrap_or_else(|| "binary/octet-stream".into())),
                cache_control: input.cache_control,
                content_disposition: input.content_disposition,
                content_encoding: input.content_encoding,
                content_language: input.content_language,
                expires: input.expires,
            },
            rfc2047::decode_all(input.metadata.unwrap_or_default()),
        )
    } else {
        (source.headers.clone(), source.metadata.clone())
    };
    let tags = match (replace_tags, &input.tagging) {
        (true, Some(header)) => object::parse_tagging_header(header)?,
        (true, None) => BTreeMap::new(),
        (false, _) => source.tags.clone(),
    };
    // A copy's lock settings are the request's (or the bucket's default), never the source's.
    let lock = lock::Requested::from_headers(
        input.object_lock_mode.as_ref(),
        input.object_lock_retain_until_date.as_ref(),
        input.object_lock_legal_hold_status.as_ref(),
        s3.now_ms(),
    )?;
    // The copy keeps the source's full-object checksum unless asked for another algorithm; a
    // composite one cannot describe the copy, which gets a full-object checksum in the same
    // algorithm (the default CRC64NVME when the source has none).
    let kept = source.checksum.clone().filter(|c| !c.composite);
    let algorithm = match checksum::sdk_algorithm(input.checksum_algorithm.as_ref())? {
        Some(a) => Some(a),
        None if kept.is_some() => None,
        None => Some(source.checksum.as_ref().map_or(Algorithm::Crc64Nvme, |c| c.algorithm)),
    };
    let (blob, written) = s3
        .write_body("obj", Source::Blob(source_body, None), algorithm, u64::MAX)
        .await?;
    let checksum = match (algorithm, written.checksum.clone()) {
        (Some(algorithm), Some(digest)) => Some(checksum::Checksum {
            algorithm,
            value: checksum::encode(&digest),
            composite: false,
        }),
        _ => kept,
    };
    // The copy is written in one piece: a multipart source's ETag (of its parts) becomes the
    // MD5 of the bytes.
    let etag = match source.parts.is_empty() {
        true => source.etag.clone(),
        false => written.etag(),
    };
    let record = ObjectRecord {
        key: input.key,
        size: source.size,
        etag,
        last_modified_ms: s3.now_ms(),
        blob,
        headers,
        metadata,
        tags,
        // A copy is STANDARD unless it says otherwise: the source's class is not kept.
        storage_class: kept_storage_class(input.storage_class),
        website_redirect_location: input.website_redirect_location,
        acl,
        checksum,
        customer_key_md5: customer_key,
        kms,
        ..ObjectRecord::default()
    };
    let bucket = input.bucket.clone();
    let stored = s3.put(input.bucket, record, lock, annotations_from, |_| Ok(())).await?;
    s3.notify(notify::Event::created("ObjectCreated:Copy", &bucket, &stored, ctx))
        .await;
    let mut result = CopyObjectResult {
        e_tag: Some(stored.etag.clone()),
        last_modified: Some(stored.last_modified()),
        checksum_type: stored.checksum.as_ref().map(checksum::Checksum::checksum_type),
        ..CopyObjectResult::default()
    };
    set_checksum_members!(result, stored.checksum.as_ref());
    let sse = Reported::of(&stored);
    Ok(CopyObjectOutput {
        expiration: s3.expiration(&bucket, &stored),
        // Only a source with a version id of its own is named.
        copy_source_version_id: source.version_id.clone(),
        version_id: stored.version_header(),
        copy_object_result: Some(result),
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        ..CopyObjectOutput::default()
    })
}

pub(crate) async fn put_object_tagging(
    s3: &S3Service,
    ctx: &RequestContext,
    input: PutObjectTaggingRequest,
) -> Result<PutObjectTaggingOutput, PutObjectTaggingError> {
    let tags = from_tags(input.tagging.tag_set, 10)?;
    let bucket = input.bucket.clone();
    let updated = s3
        .update_object(input.bucket, input.key, input.version_id, move |o| {
            o.tags = tags;
            Ok(())
        })
        .await?;
    s3.notify(notify::Event::annotated(
        "ObjectTagging:Put",
        &bucket,
        &updated,
        ctx,
        s3.now_ms(),
    ))
    .await;
    Ok(PutObjectTaggingOutput {
        version_id: updated.version_header(),
    })
}

pub(crate) async fn get_object_tagging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectTaggingRequest,
) -> Result<GetObjectTaggingOutput, GetObjectTaggingError> {
    let record = s3.subresource_version(&input.bucket, &input.key, input.version_id.as_deref())?;
    Ok(GetObjectTaggingOutput {
        version_id: record.version_header(),
        tag_set: to_tags(&record.tags),
    })
}

pub(crate) async fn delete_object_tagging(
    s3: &S3Service,
    ctx: &RequestContext,
    input: DeleteObjectTaggingRequest,
) -> Result<DeleteObjectTaggingOutput, DeleteObjectTaggingError> {
    let bucket = input.bucket.clone();
    let updated = s3
        .update_object(input.bucket, input.key, input.version_id, |o| {
            o.tags.clear();
            Ok(())
        })
        .await?;
    s3.notify(notify::Event::annotated(
        "ObjectTagging:Delete",
        &bucket,
        &updated,
        ctx,
        s3.now_ms(),
    ))
    .await;
    Ok(DeleteObjectTaggingOutput {
        version_id: updated.version_header(),
    })
}

/// Changes a version's reported encryption to SSE-KMS: metadata only, so its ETag, checksum,
/// last-modified time and storage class stay as they are.
pub(crate) async fn update_object_encryption(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: UpdateObjectEncryptionRequest,
) -> Result<UpdateObjectEncryptionResponse, UpdateObjectEncryptionError> {
    let owner = store::bucket(&s3.store()?, &input.bucket)?.owner;
    let kms = encryption::requested(input.object_encryption, &owner)?;
    let now = s3.now_ms();
    s3.update_object(input.bucket, input.key, input.version_id, move |o| {
        encryption::check_unlocked(o, now)?;
        o.kms = Some(kms);
        Ok(())
    })
    .await?;
    Ok(UpdateObjectEncryptionResponse::default())
}

/// GetObjectAttributes: the attributes asked for, as AWS answers them — the ETag without its
/// quotes, a composite checksum without its part count, and the parts (with paging) of a
/// multipart object with a COMPOSITE checksum; a FULL_OBJECT one reports only the count.
pub(crate) async fn get_object_attributes(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectAttributesRequest,
) -> Result<GetObjectAttributesOutput, GetObjectAttributesError> {
    if input
        .object_attributes
        .iter()
        .any(|a| matches!(a, ObjectAttributes::Unknown(_)))
    {
        return Err(S3Error::invalid_argument("Invalid attribute name specified.").into());
    }
    let max_parts = match input.max_parts {
        None => 1000,
        Some(n) if n < 0 => {
            return Err(
                S3Error::invalid_argument("Argument max-parts must be an integer between 0 and 2147483647").into(),
            )
        }
        Some(n) => (n as usize).min(1000),
    };
    let marker: i32 = match input.part_number_marker.as_deref() {
        None | Some("") => 0,
        Some(m) => m.parse().map_err(|_| {
            S3Error::invalid_argument("Argument part-number-marker must be an integer between 0 and 2147483647")
        })?,
    };
    let record = s3.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
    customer_key::check_read(record.customer_key_md5.as_deref(), given!(input))?;
    let wants = |a: ObjectAttributes| input.object_attributes.contains(&a);
    let checksum = record
        .checksum
        .as_ref()
        .filter(|_| wants(ObjectAttributes::Checksum))
        .map(|c| {
            let mut out = Checksum {
                checksum_type: Some(c.checksum_type()),
                ..Checksum::default()
            };
            let value = c.value.split('-').next().unwrap_or_default().to_owned();
            let whole = checksum::Checksum { value, ..c.clone() };
            set_checksum_members!(out, Some(&whole));
            out
        });
    let object_parts = (!record.parts.is_empty() && wants(ObjectAttributes::ObjectParts)).then(|| {
        let total = Some(record.parts.len() as i32);
        if !record.checksum.as_ref().is_some_and(|c| c.composite) {
            return GetObjectAttributesParts {
                total_parts_count: total,
                ..GetObjectAttributesParts::default()
            };
        }
        let after: Vec<_> = record.parts.iter().filter(|p| p.number > marker).collect();
        let page = &after[..after.len().min(max_parts)];
        let algorithm = record.checksum.as_ref().map(|c| c.algorithm);
        GetObjectAttributesParts {
            total_parts_count: total,
            part_number_marker: Some(marker.to_string()),
            next_part_number_marker: Some(page.last().map_or(0, |p| p.number).to_string()),
            max_parts: Some(max_parts as i32),
            is_truncated: Some(after.len() > page.len()),
            parts: (!page.is_empty()).then(|| {
                page.iter()
                    .map(|p| {
                        let mut part = ObjectPart {
                            part_number: Some(p.number),
                            size: Some(p.size as i64),
                            ..ObjectPart::default()
                        };
                        let sum = algorithm
                            .zip(p.checksum.clone())
                            .map(|(algorithm, value)| checksum::Checksum {
                                algorithm,
                                value,
                                composite: false,
                            });
                        set_checksum_members!(part, sum.as_ref());
                        part
                    })
                    .collect()
            }),
        }
    });
    Ok(GetObjectAttributesOutput {
        last_modified: Some(record.last_modified()),
        version_id: record.version_header(),
        e_tag: wants(ObjectAttributes::Etag).then(|| record.etag.trim_matches('"').to_owned()),
        checksum,
        object_parts,
        storage_class: wants(ObjectAttributes::StorageClass)
            .then(|| StorageClass::from_wire(record.storage_class.as_deref().unwrap_or("STANDARD"))),
        object_size: wants(ObjectAttributes::ObjectSize).then(|| i64::try_from(record.size).unwrap_or(i64::MAX)),
        ..GetObjectAttributesOutput::default()
    })
}
