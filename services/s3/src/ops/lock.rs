//! Object Lock: the bucket's configuration, and each version's retention and legal hold (the
//! rules are in [`crate::lock`]).

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::error::S3Error;
use crate::lock::{self, OBJECT_LOCK};
use crate::object::ObjectRecord;
use crate::{config, store, versioning, S3Service};

pub(crate) async fn put_object_lock_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutObjectLockConfigurationRequest,
) -> Result<PutObjectLockConfigurationOutput, PutObjectLockConfigurationError> {
    // moto's AWS-verified test_put_object_lock_misconfiguration: no body at all.
    let config = input
        .object_lock_configuration
        .ok_or_else(|| AwsError::new("MissingRequestBodyError", "Request Body is empty", 400))?;
    lock::check_configuration(&config)?;
    let doc = config.rule.map(|rule| config::encode(&schema::OBJECT_LOCK_RULE, rule));
    let name = input.bucket;
    s3.write(move |tx| {
        let mut bucket = store::bucket(tx, &name)?;
        // Object Lock can be turned on for an existing bucket once versioning is enabled.
        if !bucket.object_lock {
            if bucket.versioning.as_deref() != Some("Enabled") {
                return Err(AwsError::new(
                    "InvalidBucketState",
                    "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration",
                    409,
                ));
            }
            bucket.object_lock = true;
            store::save_bucket(tx, &bucket)?;
        }
        let key = config::config_key(&name, OBJECT_LOCK);
        match doc {
            Some(doc) => tx.put(config::CONFIGS, key, doc),
            None => tx.delete(config::CONFIGS, key),
        }
        Ok(())
    })
    .await?;
    Ok(PutObjectLockConfigurationOutput::default())
}

pub(crate) async fn get_object_lock_configuration(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectLockConfigurationRequest,
) -> Result<GetObjectLockConfigurationOutput, GetObjectLockConfigurationError> {
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    if !bucket.object_lock {
        return Err(config::not_found(
            &input.bucket,
            "ObjectLockConfigurationNotFoundError",
            "Object Lock configuration does not exist for this bucket",
        )
        .into());
    }
    let rule: Option<ObjectLockRule> = s3.typed_config(&input.bucket, OBJECT_LOCK, &schema::OBJECT_LOCK_RULE)?;
    Ok(GetObjectLockConfigurationOutput {
        object_lock_configuration: Some(ObjectLockConfiguration {
            object_lock_enabled: Some(ObjectLockEnabled::Enabled),
            rule,
        }),
    })
}

/// Changes a version's lock settings with `change` after `check` accepts the version as it is,
/// in a bucket with Object Lock.
async fn change_lock(
    s3: &S3Service,
    bucket: String,
    key: String,
    version_id: Option<String>,
    check: impl FnOnce(&ObjectRecord) -> Result<(), AwsError> + Send + 'static,
    change: impl FnOnce(&mut ObjectRecord) + Send + 'static,
) -> Result<(), AwsError> {
    s3.write(move |tx| {
        let b = store::bucket(tx, &bucket)?;
        if !b.object_lock {
            return Err(lock::missing_configuration());
        }
        let current = match version_id.as_deref() {
            Some(id) => {
                versioning::check_id(id)?;
                versioning::find(tx, &b, &key, id)?.ok_or_else(S3Error::no_such_version)?
            }
            None => store::current(tx, &bucket, &key)?.ok_or_else(|| S3Error::no_such_key(&key))?,
        };
        check(&current)?;
        versioning::update(tx, &b, &key, version_id.as_deref(), |o| {
            change(o);
            Ok(())
        })?;
        Ok(())
    })
    .await
}

pub(crate) async fn put_object_retention(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutObjectRetentionRequest,
) -> Result<PutObjectRetentionOutput, PutObjectRetentionError> {
    let now = s3.now_ms();
    let (mode, until) = lock::requested_retention(input.retention.as_ref(), now)?;
    let bypass = input.bypass_governance_retention.unwrap_or(false);
    change_lock(
        s3,
        input.bucket,
        input.key,
        input.version_id,
        move |current| lock::check_retention_change(current, mode, until, bypass, now),
        move |o| {
            o.lock_mode = mode.map(str::to_owned);
            o.lock_until_ms = until;
        },
    )
    .await?;
    Ok(PutObjectRetentionOutput::default())
}

/// The version a lock read names, in a bucket with Object Lock.
fn locked_version(s3: &S3Service, bucket: &str, key: &str, version_id: Option<&str>) -> Result<ObjectRecord, AwsError> {
    if !store::bucket(&s3.store()?, bucket)?.object_lock {
        return Err(lock::missing_configuration());
    }
    s3.subresource_version(bucket, key, version_id)
}

pub(crate) async fn get_object_retention(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectRetentionRequest,
) -> Result<GetObjectRetentionOutput, GetObjectRetentionError> {
    let record = locked_version(s3, &input.bucket, &input.key, input.version_id.as_deref())?;
    let (Some(mode), Some(until)) = (record.lock_mode, record.lock_until_ms) else {
        return Err(lock::no_configuration().into());
    };
    Ok(GetObjectRetentionOutput {
        retention: Some(ObjectLockRetention {
            mode: Some(ObjectLockRetentionMode::from_wire(&mode)),
            retain_until_date: Some(DateTime::from_millis(until)),
        }),
    })
}

pub(crate) async fn put_object_legal_hold(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutObjectLegalHoldRequest,
) -> Result<PutObjectLegalHoldOutput, PutObjectLegalHoldError> {
    let on = match input.legal_hold.and_then(|h| h.status) {
        Some(ObjectLockLegalHoldStatus::On) => true,
        Some(ObjectLockLegalHoldStatus::Off) => false,
        _ => return Err(S3Error::malformed_xml().into()),
    };
    change_lock(
        s3,
        input.bucket,
        input.key,
        input.version_id,
        |_| Ok(()),
        move |o| o.legal_hold = Some(on),
    )
    .await?;
    Ok(PutObjectLegalHoldOutput::default())
}

pub(crate) async fn get_object_legal_hold(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetObjectLegalHoldRequest,
) -> Result<GetObjectLegalHoldOutput, GetObjectLegalHoldError> {
    let record = locked_version(s3, &input.bucket, &input.key, input.version_id.as_deref())?;
    let on = record.legal_hold.ok_or_else(lock::no_configuration)?;
    Ok(GetObjectLegalHoldOutput {
        legal_hold: Some(ObjectLockLegalHold {
            status: Some(lock::legal_hold_status(on)),
        }),
    })
}
