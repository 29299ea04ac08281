//! Object annotations: put, get, delete and list the named payloads of an object version
//! (see [`crate::annotation`] for the rules and the layout).

use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::*;

use crate::annotation::{self, AnnotationRecord, VersionRef, MAX_PAYLOAD, MAX_PER_VERSION};
use crate::body::{self, Declared};
use crate::checksum::{checksum_members, set_checksum_members};
use crate::encryption::Reported;
use crate::error::S3Error;
use crate::object::{self, ObjectRecord};
use crate::{checksum, listing, store, versioning, S3Service};

/// Refuses to act on `object` unless its ETag matches `x-amz-object-if-match`.
fn check_object_if_match(object: &ObjectRecord, if_match: Option<&str>) -> Result<(), AwsError> {
    match if_match {
        Some(tags) if !object::etag_matches(tags, &object.etag) => Err(S3Error::precondition_failed()),
        _ => Ok(()),
    }
}

pub(crate) async fn put_object_annotation(
    s3: &S3Service,
    ctx: &RequestContext,
    mut input: PutObjectAnnotationRequest,
) -> Result<PutObjectAnnotationOutput, PutObjectAnnotationError> {
    annotation::check_name(&input.annotation_name)?;
    let body = std::mem::take(&mut input.annotation_payload);
    let declared = Declared::of(
        ctx,
        body,
        input.content_md5.as_deref(),
        input.checksum_algorithm.as_ref(),
        checksum_members!(input),
    )?;
    let algorithm = declared.algorithm;
    let (payload, written) =
        body::read_whole(declared.incoming.source, algorithm, MAX_PAYLOAD as u64).map_err(|e| {
            match e.code.as_str() {
                "EntityTooLarge" => annotation::payload_out_of_range(),
                _ => e,
            }
        })?;
    annotation::check_payload(&payload)?;
    written.verify(
        declared.content_md5.as_deref(),
        declared.sent.as_ref(),
        body::DigestText::Hex,
    )?;
    let record = AnnotationRecord {
        name: input.annotation_name.clone(),
        size: written.size,
        etag: written.etag(),
        checksum: checksum::Checksum {
            algorithm,
            value: checksum::encode(written.checksum.as_deref().unwrap_or_default()),
            composite: false,
        },
        last_modified_ms: s3.now_ms(),
    };
    let (bucket, key, version_id, if_match) =
        (input.bucket, input.key.clone(), input.version_id, input.object_if_match);
    let stored = record.clone();
    let object = s3
        .write(move |tx| {
            let b = store::bucket(tx, &bucket)?;
            let object = versioning::current_or_named(tx, &b, &key, version_id.as_deref())?;
            check_object_if_match(&object, if_match.as_deref())?;
            annotation::put(tx, &versioning::annotated(&b, &object), &stored, payload)?;
            Ok(object)
        })
        .await?;
    let mut output = PutObjectAnnotationOutput {
        key: Some(input.key),
        annotation_name: Some(record.name),
        object_version_id: object.version_header(),
        e_tag: Some(record.etag),
        checksum_type: Some(record.checksum.checksum_type()),
        server_side_encryption: Reported::of(&object).server_side_encryption,
        ..PutObjectAnnotationOutput::default()
    };
    set_checksum_members!(output, Some(&record.checksum));
    Ok(output)
}

/// The object version a read names, and where its annotations are.
fn read_target(
    s3: &S3Service,
    bucket: &str,
    key: &str,
    version_id: Option<&str>,
) -> Result<(ObjectRecord, VersionRef), AwsError> {
    let object = s3.object_version(bucket, key, version_id)?;
    let version = versioning::annotated(&store::bucket(&s3.store()?, bucket)?, &object);
    Ok((object, version))
}

pub(crate) async fn get_object_annotation(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectAnnotationRequest,
) -> Result<GetObjectAnnotationOutput, GetObjectAnnotationError> {
    let (object, version) = read_target(s3, &input.bucket, &input.key, input.version_id.as_deref())?;
    let (record, payload) = annotation::get(s3.store()?.as_ref(), &version, &input.annotation_name)?;
    let checksum = matches!(input.checksum_mode, Some(ChecksumMode::Enabled)).then_some(&record.checksum);
    let mut output = GetObjectAnnotationOutput {
        annotation_payload: payload,
        object_version_id: object.version_header(),
        last_modified: Some(record.last_modified()),
        content_length: Some(record.size as i64),
        e_tag: Some(record.etag.clone()),
        checksum_type: checksum.map(checksum::Checksum::checksum_type),
        server_side_encryption: Reported::of(&object).server_side_encryption,
        ..GetObjectAnnotationOutput::default()
    };
    set_checksum_members!(output, checksum);
    Ok(output)
}

pub(crate) async fn delete_object_annotation(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteObjectAnnotationRequest,
) -> Result<DeleteObjectAnnotationOutput, DeleteObjectAnnotationError> {
    let (bucket, key, version_id, name, if_match) = (
        input.bucket,
        input.key,
        input.version_id,
        input.annotation_name,
        input.object_if_match,
    );
    let object = s3
        .write(move |tx| {
            let b = store::bucket(tx, &bucket)?;
            let object = versioning::current_or_named(tx, &b, &key, version_id.as_deref())?;
            check_object_if_match(&object, if_match.as_deref())?;
            annotation::delete(tx, &versioning::annotated(&b, &object), &name)?;
            Ok(object)
        })
        .await?;
    Ok(DeleteObjectAnnotationOutput {
        object_version_id: object.version_header(),
        ..DeleteObjectAnnotationOutput::default()
    })
}

pub(crate) async fn list_object_annotations(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: ListObjectAnnotationsRequest,
) -> Result<ListObjectAnnotationsOutput, ListObjectAnnotationsError> {
    let limit = match input.max_annotation_results {
        None => MAX_PER_VERSION,
        Some(n) if (1..=MAX_PER_VERSION as i32).contains(&n) => n as usize,
        Some(_) => {
            return Err(
                S3Error::invalid_argument("max-annotation-results must be an integer between 1 and 1000").into(),
            )
        }
    };
    let prefix = input.annotation_prefix.clone().unwrap_or_default();
    annotation::check_prefix(&prefix)?;
    let after = input
        .continuation_token
        .as_deref()
        .map(|t| listing::decode_token(listing::ANNOTATION_LISTING, t))
        .transpose()?;
    let (object, version) = read_target(s3, &input.bucket, &input.key, input.version_id.as_deref())?;
    let (found, more) = annotation::list(s3.store()?.as_ref(), &version, &prefix, after.as_deref(), limit)?;
    let next = more
        .then(|| found.last().map(|a| listing::ANNOTATION_LISTING.encode_str(&a.name)))
        .flatten();
    let entries: Vec<AnnotationEntry> = found
        .into_iter()
        .map(|a| AnnotationEntry {
            last_modified: a.last_modified(),
            e_tag: Some(a.etag),
            checksum_algorithm: Some(vec![a.checksum.algorithm.to_model()]),
            size: a.size as i64,
            annotation_name: a.name,
            replication_status: None,
        })
        .collect();
    Ok(ListObjectAnnotationsOutput {
        annotation_count: Some(entries.len() as i32),
        annotations: (!entries.is_empty()).then_some(entries),
        bucket: Some(input.bucket),
        key: Some(input.key),
        object_version_id: object.version_header(),
        annotation_prefix: input.annotation_prefix,
        max_annotation_results: Some(limit as i32),
        continuation_token: input.continuation_token,
        next_continuation_token: next,
        ..ListObjectAnnotationsOutput::default()
    })
}
