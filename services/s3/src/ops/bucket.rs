//! Buckets: create, head, delete, list, location and bucket tagging.

use std::collections::BTreeMap;

use stratus_core::{AwsError, DateTime, RequestContext, Unit};
use stratus_gen_s3::*;
use stratus_storage::{Direction, KeyRange};

use crate::bucket::{self, BucketRecord};
use crate::error::S3Error;
use crate::listing::{decode_token, BUCKET_LISTING};
use crate::store::{self, object_key, BUCKETS, OBJECTS};
use crate::versioning::VERSIONS;
use crate::{config, from_tags, owner, to_tags, S3Service};

pub(crate) async fn create_bucket(
    s3: &S3Service,
    ctx: &RequestContext,
    input: CreateBucketRequest,
) -> Result<CreateBucketOutput, CreateBucketError> {
    if !bucket::valid_name(&input.bucket) {
        return Err(S3Error::invalid_bucket_name(&input.bucket).into());
    }
    let constraint = input
        .create_bucket_configuration
        .as_ref()
        .and_then(|c| c.location_constraint.as_ref())
        .map(|c| c.as_str().to_owned());
    let (region, location_constraint) = bucket::placement(constraint.as_deref(), &ctx.region)?;
    let object_lock = input.object_lock_enabled_for_bucket.unwrap_or(false);
    let tags = match input.create_bucket_configuration.and_then(|c| c.tags) {
        Some(tags) => from_tags(tags, 50)?,
        None => BTreeMap::new(),
    };
    let record = BucketRecord {
        name: input.bucket.clone(),
        owner: ctx.account_id.clone(),
        region,
        location_constraint,
        created: s3.now_ms() / 1000,
        tags,
        // A bucket with Object Lock is versioned from the start.
        versioning: object_lock.then(|| "Enabled".to_owned()),
        mfa_delete: None,
        object_lock,
    };
    let arn = record.arn();
    // AWS answers a bucket outside us-east-1 with its URL, one in us-east-1 with its path.
    let location = match record.region.as_str() {
        "us-east-1" => format!("/{}", input.bucket),
        _ => format!("{}/", bucket::url(ctx.host.as_deref(), &input.bucket)),
    };
    let ownership = match input.object_ownership {
        None => None,
        Some(ObjectOwnership::Unknown(_)) => {
            return Err(S3Error::invalid_argument("Invalid x-amz-object-ownership header").into());
        }
        Some(o) => Some(OwnershipControls {
            rules: vec![OwnershipControlsRule { object_ownership: o }],
        }),
    };
    let headers = [
        (Permission::FullControl, input.grant_full_control.as_ref()),
        (Permission::Read, input.grant_read.as_ref()),
        (Permission::ReadAcp, input.grant_read_acp.as_ref()),
        (Permission::Write, input.grant_write.as_ref()),
        (Permission::WriteAcp, input.grant_write_acp.as_ref()),
    ];
    let acl = config::acl::requested_acl(
        input.acl.as_ref().map(BucketCannedACL::as_str),
        &headers,
        None,
        &ctx.account_id,
        &ctx.account_id,
    )?;
    // A bucket that enforces ownership (the default) takes no ACL but the owner's.
    let enforcing = config::ownership::enforced(Some(
        ownership.as_ref().unwrap_or(&config::ownership::default_ownership()),
    ));
    if enforcing
        && acl
            .as_ref()
            .is_some_and(|g| !config::acl::owner_only(g, &ctx.account_id))
    {
        return Err(S3Error::invalid_bucket_acl_with_ownership().into());
    }
    s3.write(move |tx| {
        if let Some(existing) = BUCKETS.get(tx, &record.name).map_err(S3Error::storage)? {
            // us-east-1 keeps its legacy answer: creating your own bucket again succeeds.
            return match (existing.owner == record.owner, existing.region.as_str()) {
                (true, "us-east-1") if record.region == "us-east-1" => Ok(()),
                (true, _) => Err(S3Error::bucket_owned(&record.name)),
                (false, _) => Err(S3Error::bucket_exists()),
            };
        }
        store::save_bucket(tx, &record)?;
        // A name used before starts with no configuration of its past life.
        config::remove_all(tx, &record.name)?;
        if let Some(controls) = ownership {
            tx.put(
                config::CONFIGS,
                config::config_key(&record.name, config::OWNERSHIP),
                config::encode(&schema::OWNERSHIP_CONTROLS, controls),
            );
        }
        if let Some(grants) = acl {
            tx.put(
                config::CONFIGS,
                config::config_key(&record.name, config::ACL),
                config::encode(&schema::GRANTS, grants),
            );
        }
        Ok(())
    })
    .await?;
    Ok(CreateBucketOutput {
        location: Some(location),
        bucket_arn: Some(arn),
    })
}

pub(crate) async fn head_bucket(
    s3: &S3Service,
    ctx: &RequestContext,
    input: HeadBucketRequest,
) -> Result<HeadBucketOutput, HeadBucketError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket).map_err(S3Error::head)?;
    // AWS answers with the content type of the document it does not send (recorded).
    ctx.answer_headers.add("content-type", "application/xml");
    Ok(HeadBucketOutput {
        bucket_arn: Some(bucket.arn()),
        bucket_region: Some(bucket.region),
        access_point_alias: Some(false),
        ..HeadBucketOutput::default()
    })
}

pub(crate) async fn delete_bucket(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketRequest,
) -> Result<Unit, DeleteBucketError> {
    let name = input.bucket;
    s3.write(move |tx| {
        store::bucket(tx, &name)?;
        let holds_any = |table: &str| {
            tx.scan(
                table,
                &KeyRange::prefix(&object_key(&name, "")),
                Direction::Forward,
                Some(1),
            )
            .map(|found| !found.is_empty())
            .map_err(S3Error::storage)
        };
        if holds_any(OBJECTS.name())? {
            return Err(S3Error::bucket_not_empty(&name));
        }
        if holds_any(VERSIONS.name())? {
            return Err(AwsError::new(
                "BucketNotEmpty",
                "The bucket you tried to delete is not empty. You must delete all versions in the bucket.",
                409,
            ));
        }
        BUCKETS.delete(tx, name.as_bytes());
        config::remove_all(tx, &name)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_buckets(
    s3: &S3Service,
    ctx: &RequestContext,
    input: ListBucketsRequest,
) -> Result<ListBucketsOutput, ListBucketsError> {
    let limit = match input.max_buckets {
        None => usize::MAX,
        Some(n @ 1..=10_000) => n as usize,
        Some(_) => {
            return Err(S3Error::invalid_argument("The value of max-buckets must be between 1 and 10000").into());
        }
    };
    let after = input
        .continuation_token
        .as_deref()
        .map(|t| decode_token(BUCKET_LISTING, t))
        .transpose()?;
    let prefix = input.prefix.clone().unwrap_or_default();
    let mut buckets: Vec<BucketRecord> = Vec::new();
    for (_, b) in BUCKETS.scan_prefix(&s3.store()?, &prefix).map_err(S3Error::storage)? {
        let wanted = b.owner == ctx.account_id
            && after.as_ref().is_none_or(|a| b.name > *a)
            && input.bucket_region.as_ref().is_none_or(|r| *r == b.region);
        if wanted {
            buckets.push(b);
        }
    }
    let more = buckets.len() > limit;
    buckets.truncate(limit);
    Ok(ListBucketsOutput {
        continuation_token: more
            .then(|| buckets.last().map(|b| BUCKET_LISTING.encode_str(&b.name)))
            .flatten(),
        buckets: Some(
            buckets
                .iter()
                .map(|b| Bucket {
                    name: Some(b.name.clone()),
                    creation_date: Some(DateTime::from_secs(b.created)),
                    bucket_region: Some(b.region.clone()),
                    bucket_arn: Some(b.arn()),
                })
                .collect(),
        ),
        owner: Some(owner(&ctx.account_id)),
        prefix: input.prefix,
    })
}

pub(crate) async fn get_bucket_location(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketLocationRequest,
) -> Result<GetBucketLocationOutput, GetBucketLocationError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    // us-east-1 buckets report no location constraint; the others the one they were created with.
    let constraint = bucket.location_constraint.as_deref().unwrap_or(&bucket.region);
    Ok(GetBucketLocationOutput {
        location_constraint: (bucket.region != "us-east-1").then(|| BucketLocationConstraint::from_wire(constraint)),
    })
}

pub(crate) async fn put_bucket_tagging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketTaggingRequest,
) -> Result<Unit, PutBucketTaggingError> {
    let tags = from_tags(input.tagging.tag_set, 50)?;
    s3.update_bucket(input.bucket, move |b| b.tags = tags).await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_tagging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketTaggingRequest,
) -> Result<GetBucketTaggingOutput, GetBucketTaggingError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    if bucket.tags.is_empty() {
        return Err(S3Error::no_such_tag_set(&input.bucket).into());
    }
    Ok(GetBucketTaggingOutput {
        tag_set: to_tags(&bucket.tags),
    })
}

pub(crate) async fn delete_bucket_tagging(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: DeleteBucketTaggingRequest,
) -> Result<Unit, DeleteBucketTaggingError> {
    s3.update_bucket(input.bucket, |b| b.tags.clear()).await?;
    Ok(Unit {})
}
