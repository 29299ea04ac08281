//! Browser POST uploads (POST Object), handed over by the gateway's form-upload hook. The
//! checks come in the order S3's recorded answers imply: the form's media type (412), the
//! bucket, the form itself (`MalformedPOSTRequest`), the required fields (`key`, the file, the
//! signature fields), access, the policy (its document, expiry, conditions, fields it does not
//! cover) — and the file's size while it is stored.
//!
//! A form without signature fields is anonymous, and S3 takes it only into a publicly
//! writable bucket ("Requests without a security policy are considered anonymous and work only
//! on publicly writable buckets"): one whose ACL grants `WRITE` (or `FULL_CONTROL`) to
//! everyone, which AWS's 2023 defaults (ACLs disabled, public access blocked) rule out until
//! they are changed. Signatures are not verified, as no Stratus signature is.

use stratus_core::service::{FormAnswer, FormPost};
use stratus_core::{AwsError, OperationError, PayloadFraming, RequestContext, Streams};
use stratus_gen_s3::*;

use crate::error::S3Error;
use crate::post::fields::{Auth, Fields};
use crate::post::multipart::{self, FormError};
use crate::post::policy::Policy;
use crate::post::{self, answer, Checked};
use crate::{config, store, S3Service};

pub(crate) async fn post_object(
    s3: &S3Service,
    ctx: &RequestContext,
    form: FormPost<'_>,
) -> Result<FormAnswer, OperationError> {
    let bucket = post::bucket_of(form.path).ok_or_else(|| S3Error::no_such_bucket(""))?;
    let boundary = match form.content_type.map(multipart::boundary) {
        Some(Ok(Some(boundary))) => boundary,
        Some(Err(e)) => return Err(post::form_error(&e).into()),
        None | Some(Ok(None)) => return Err(post::not_multipart().into()),
    };
    store::bucket(&s3.store()?, bucket)?;
    let body = ctx
        .streams
        .take_request()
        .ok_or_else(|| post::form_error(&FormError::Malformed))?;
    let read = tokio::task::spawn_blocking(move || multipart::read(body, &boundary))
        .await
        .map_err(|e| AwsError::internal(format!("form reader failed: {e}")))?
        .map_err(|e| post::form_error(&e))?;
    let filename = read.file.as_ref().and_then(|file| file.filename.clone());
    let fields = Fields::new(read.fields, bucket, filename.as_deref());
    let key = fields.key()?.to_owned();
    let file = read.file.ok_or_else(post::no_file)?;
    if fields.auth()? == Auth::Anonymous && !s3.publicly_writable(bucket)? {
        return Err(config::ownership::access_denied().into());
    }
    let size_range = match fields.get("policy") {
        Some(encoded) => {
            let policy = Policy::parse(encoded).map_err(post::invalid_policy)?;
            policy.check(&fields, s3.now_ms()).map_err(post::refused)?;
            policy.size_range()
        }
        None => None,
    };
    let input = fields.put_request(&key)?;
    let upload = RequestContext {
        account_id: ctx.account_id.clone(),
        region: ctx.region.clone(),
        request_id: ctx.request_id.clone(),
        access_key_id: ctx.access_key_id.clone(),
        principal: ctx.principal.clone(),
        source_ip: ctx.source_ip,
        trace_header: ctx.trace_header.clone(),
        host: ctx.host.clone(),
        streams: Streams::with_request(Box::new(Checked::new(file, size_range))),
        // The file is the form's part as sent: never aws-chunked.
        framing: PayloadFraming::default(),
        clock: ctx.clock.clone(),
        answer_headers: Default::default(),
    };
    let output = super::object::write_object(s3, &upload, input, "ObjectCreated:Post")
        .await
        .map_err(PutObjectError::into_operation_error)?;
    // The Location names the bucket as AWS does (virtual-hosted where the host allows).
    let bucket_url = match ctx.host.as_deref() {
        Some(host) => crate::bucket::url(Some(host), bucket),
        None => form.url.to_owned(),
    };
    Ok(answer::answer(&fields, &bucket_url, bucket, &key, &output))
}

impl S3Service {
    /// Whether the bucket's ACL lets anyone write to it.
    fn publicly_writable(&self, bucket: &str) -> Result<bool, AwsError> {
        let grants: Vec<Grant> = self
            .typed_config(bucket, config::ACL, &schema::GRANTS)?
            .unwrap_or_default();
        Ok(grants.iter().any(|grant| {
            let everyone = grant.grantee.as_ref().and_then(|g| g.uri.as_deref()) == Some(config::acl::ALL_USERS);
            everyone && matches!(grant.permission, Some(Permission::Write | Permission::FullControl))
        }))
    }
}
