//! Multipart uploads: the wire side of [`crate::multipart`].

use stratus_core::{DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::body::{Incoming, Source};
use crate::checksum::{checksum_members, set_checksum_members};
use crate::customer_key::{self, given};
use crate::encryption::{kms_headers, Reported};
use crate::error::S3Error;
use crate::multipart::PartChecks;
use crate::object::{self, copy_source, ReadConditions};
use crate::{bucket, checksum, notify, S3Service};

pub(crate) async fn create_multipart_upload(
    s3: &S3Service,
    ctx: &RequestContext,
    input: CreateMultipartUploadRequest,
) -> Result<CreateMultipartUploadOutput, CreateMultipartUploadError> {
    let kms = match input.sse_customer_algorithm {
        Some(_) => None,
        None => {
            s3.kms_for_write(ctx, &input.bucket, &input.key, kms_headers!(input))
                .await?
        }
    };
    Ok(s3.create_upload(ctx.account_id.clone(), input, kms).await?)
}

pub(crate) async fn upload_part(
    s3: &S3Service,
    ctx: &RequestContext,
    mut input: UploadPartRequest,
) -> Result<UploadPartOutput, UploadPartError> {
    let incoming = Incoming::of(ctx, std::mem::take(&mut input.body))?;
    let content_md5 = input.content_md5.as_deref().map(object::content_md5).transpose()?;
    let sent = checksum::requested(
        input.checksum_algorithm.as_ref(),
        checksum_members!(input),
        incoming.trailer,
    )?;
    let customer_key = customer_key::for_write(given!(input), None)?;
    let checks = PartChecks {
        content_md5,
        sent,
        customer_key: customer_key.clone(),
    };
    let (part, kms) = s3
        .store_part(
            input.bucket,
            input.key,
            input.upload_id,
            input.part_number,
            incoming.source,
            checks,
        )
        .await?;
    // Parts report their upload's encryption (crate::encryption).
    let sse = Reported::for_keys(kms.as_ref(), customer_key.as_deref());
    let mut output = UploadPartOutput {
        e_tag: Some(part.etag),
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        ..UploadPartOutput::default()
    };
    set_checksum_members!(output, part.checksum.as_ref());
    Ok(output)
}

pub(crate) async fn upload_part_copy(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: UploadPartCopyRequest,
) -> Result<UploadPartCopyOutput, UploadPartCopyError> {
    let (source_bucket, source_key, source_version) = copy_source(&input.copy_source)?;
    let (source, source_body) =
        s3.open_object(|| s3.copy_source_object(&source_bucket, &source_key, source_version.as_deref()))?;
    customer_key::check_read(source.customer_key_md5.as_deref(), given!(copy_source input))?;
    let customer_key = customer_key::for_write(given!(input), None)?;
    ReadConditions {
        if_match: input.copy_source_if_match.as_deref(),
        if_none_match: input.copy_source_if_none_match.as_deref(),
        if_modified_since: input.copy_source_if_modified_since.as_ref(),
        if_unmodified_since: input.copy_source_if_unmodified_since.as_ref(),
        now_ms: s3.now_ms(),
    }
    .check(&source)
    .map_err(|_| S3Error::precondition_failed())?;
    let range = match input.copy_source_range.as_deref() {
        None => None,
        Some(spec) => Some(object::byte_range(Some(spec), source.size)?.ok_or_else(|| {
            S3Error::invalid_argument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
        })?),
    };
    let (part, kms) = s3
        .store_part(
            input.bucket,
            input.key,
            input.upload_id,
            input.part_number,
            Source::Blob(source_body, range),
            PartChecks {
                customer_key: customer_key.clone(),
                ..PartChecks::default()
            },
        )
        .await?;
    let sse = Reported::for_keys(kms.as_ref(), customer_key.as_deref());
    let mut result = CopyPartResult {
        e_tag: Some(part.etag),
        last_modified: Some(DateTime::from_secs(part.last_modified_ms.div_euclid(1000))),
        ..CopyPartResult::default()
    };
    set_checksum_members!(result, part.checksum.as_ref());
    Ok(UploadPartCopyOutput {
        copy_source_version_id: source.version_id.clone(),
        copy_part_result: Some(result),
        server_side_encryption: sse.server_side_encryption,
        sse_customer_algorithm: sse.customer_algorithm,
        sse_customer_key_md5: sse.customer_key_md5,
        ssekms_key_id: sse.kms_key_id,
        bucket_key_enabled: sse.bucket_key_enabled,
        ..UploadPartCopyOutput::default()
    })
}

pub(crate) async fn complete_multipart_upload(
    s3: &S3Service,
    ctx: &RequestContext,
    input: CompleteMultipartUploadRequest,
) -> Result<CompleteMultipartUploadOutput, CompleteMultipartUploadError> {
    let (bucket, key) = (input.bucket.clone(), input.key.clone());
    let mut output = s3.complete_upload(input).await?;
    output.location = Some(object_url(ctx.host.as_deref(), &bucket, &key));
    if let Ok(record) = s3.object_version(&bucket, &key, output.version_id.as_deref()) {
        let event = notify::Event::created("ObjectCreated:CompleteMultipartUpload", &bucket, &record, ctx);
        s3.notify(event).await;
    }
    Ok(output)
}

/// The object's URL as CompleteMultipartUpload's `Location` gives it: the bucket's
/// ([`bucket::url`]) and the key percent-encoded, `/` kept.
fn object_url(host: Option<&str>, bucket: &str, key: &str) -> String {
    format!(
        "{}/{}",
        bucket::url(host, bucket),
        crate::listing::escape(key, b"~/", "%20")
    )
}

pub(crate) async fn abort_multipart_upload(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: AbortMultipartUploadRequest,
) -> Result<AbortMultipartUploadOutput, AbortMultipartUploadError> {
    s3.abort_upload(input.bucket, input.key, input.upload_id).await?;
    Ok(AbortMultipartUploadOutput::default())
}

pub(crate) async fn list_parts(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: ListPartsRequest,
) -> Result<ListPartsOutput, ListPartsError> {
    Ok(s3.list_parts_of(input).await?)
}

pub(crate) async fn list_multipart_uploads(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: ListMultipartUploadsRequest,
) -> Result<ListMultipartUploadsOutput, ListMultipartUploadsError> {
    Ok(s3.list_uploads_of(input)?)
}

#[cfg(test)]
mod tests {
    use super::object_url;

    #[test]
    fn locations_are_virtual_hosted_where_the_host_allows() {
        let key = "dir/uni_\u{2014}_file";
        assert_eq!(
            object_url(Some("s3.localhost.localstack.cloud:4566"), "b", key),
            "http://b.s3.localhost.localstack.cloud:4566/dir/uni_%E2%80%94_file"
        );
        assert_eq!(
            object_url(Some("b.s3.localhost:4566"), "b", "k"),
            "http://b.s3.localhost:4566/k"
        );
        assert_eq!(
            object_url(Some("127.0.0.1:4566"), "b", "k"),
            "http://127.0.0.1:4566/b/k"
        );
        assert_eq!(object_url(None, "b", "k"), "/b/k");
    }
}
