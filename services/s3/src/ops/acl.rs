//! Bucket and object ACLs.

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_s3::*;

use crate::config::{self, Change};
use crate::{notify, owner, store, versioning, S3Service};

/// An ACL request's grant headers — `x-amz-grant-full-control`, `-read`, `-read-acp`,
/// `-write`, `-write-acp`, in that order — paired with the permission each grants.
fn grant_headers(headers: [&Option<String>; 5]) -> [(Permission, Option<&String>); 5] {
    let [full_control, read, read_acp, write, write_acp] = headers;
    [
        (Permission::FullControl, full_control.as_ref()),
        (Permission::Read, read.as_ref()),
        (Permission::ReadAcp, read_acp.as_ref()),
        (Permission::Write, write.as_ref()),
        (Permission::WriteAcp, write_acp.as_ref()),
    ]
}

pub(crate) async fn put_bucket_acl(
    s3: &S3Service,
    ctx: &RequestContext,
    input: PutBucketAclRequest,
) -> Result<Unit, PutBucketAclError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    let headers = grant_headers([
        &input.grant_full_control,
        &input.grant_read,
        &input.grant_read_acp,
        &input.grant_write,
        &input.grant_write_acp,
    ]);
    let grants = config::acl::requested_acl(
        input.acl.as_ref().map(BucketCannedACL::as_str),
        &headers,
        input.access_control_policy,
        &bucket.owner,
        &bucket.owner,
    )?
    .ok_or_else(config::acl::missing_acl)?;
    let account = ctx.account_id.clone();
    let doc = config::encode(&schema::GRANTS, grants.clone());
    s3.change_config(input.bucket, config::ACL, Change::Set(doc), move |tx, bucket| {
        config::acl::check_acl_allowed(tx, bucket, &grants, &account)
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_acl(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketAclRequest,
) -> Result<GetBucketAclOutput, GetBucketAclError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    let grants = match s3.typed_config(&input.bucket, config::ACL, &schema::GRANTS)? {
        Some(grants) => grants,
        None => config::acl::canned("private", &bucket.owner, &bucket.owner)?,
    };
    Ok(GetBucketAclOutput {
        owner: Some(owner(&bucket.owner)),
        grants: Some(grants),
    })
}

pub(crate) async fn put_object_acl(
    s3: &S3Service,
    ctx: &RequestContext,
    input: PutObjectAclRequest,
) -> Result<PutObjectAclOutput, PutObjectAclError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    let headers = grant_headers([
        &input.grant_full_control,
        &input.grant_read,
        &input.grant_read_acp,
        &input.grant_write,
        &input.grant_write_acp,
    ]);
    let grants = config::acl::requested_acl(
        input.acl.as_ref().map(ObjectCannedACL::as_str),
        &headers,
        input.access_control_policy,
        &ctx.account_id,
        &bucket.owner,
    )?
    .ok_or_else(config::acl::missing_acl)?;
    let account = ctx.account_id.clone();
    let (name, key, version_id) = (input.bucket.clone(), input.key, input.version_id);
    let updated = s3
        .write(move |tx| {
            let b = store::bucket(tx, &name)?;
            config::acl::check_acl_allowed(tx, &b, &grants, &account)?;
            let doc = String::from_utf8(config::encode(&schema::GRANTS, grants))
                .map_err(|e| AwsError::internal(e.to_string()))?;
            versioning::update(tx, &b, &key, version_id.as_deref(), move |o| {
                o.acl = Some(doc);
                Ok(())
            })
        })
        .await?;
    s3.notify(notify::Event::annotated(
        "ObjectAcl:Put",
        &input.bucket,
        &updated,
        ctx,
        s3.now_ms(),
    ))
    .await;
    Ok(PutObjectAclOutput::default())
}

pub(crate) async fn get_object_acl(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectAclRequest,
) -> Result<GetObjectAclOutput, GetObjectAclError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    // Unlike its tagging, a deleted key's ACL is NoSuchKey, as AWS answers it.
    let record = s3.object_version(&input.bucket, &input.key, input.version_id.as_deref())?;
    let grants = match &record.acl {
        Some(doc) => config::decode(&schema::GRANTS, doc.as_bytes())?,
        None => config::acl::canned("private", &bucket.owner, &bucket.owner)?,
    };
    Ok(GetObjectAclOutput {
        owner: Some(owner(&bucket.owner)),
        grants: Some(grants),
        ..GetObjectAclOutput::default()
    })
}
