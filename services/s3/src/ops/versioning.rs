//! Bucket versioning.

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_s3::*;

use crate::error::S3Error;
use crate::versioning::{self, State};
use crate::{store, S3Service};

pub(crate) async fn put_bucket_versioning(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: PutBucketVersioningRequest,
) -> Result<Unit, PutBucketVersioningError> {
    let config = input.versioning_configuration;
    let status = match config.status {
        Some(BucketVersioningStatus::Enabled) => "Enabled",
        Some(BucketVersioningStatus::Suspended) => "Suspended",
        _ => return Err(S3Error::malformed_xml().into()),
    };
    let mfa_delete = match config.mfa_delete {
        None => None,
        Some(MFADelete::Enabled) => Some("Enabled"),
        Some(MFADelete::Disabled) => Some("Disabled"),
        Some(MFADelete::Unknown(_)) => return Err(S3Error::malformed_xml().into()),
    };
    // Changing MFA delete needs the device's serial number and code in `x-amz-mfa`;
    // Stratus keeps the setting but checks no code.
    if mfa_delete.is_some() && input.mfa.as_deref().is_none_or(|m| m.split_whitespace().count() != 2) {
        return Err(AwsError::new(
            "InvalidRequest",
            "The x-amz-mfa header is required and must be the MFA device serial number and code, separated by a space.",
            400,
        )
        .into());
    }
    let name = input.bucket;
    let mfa = input.mfa;
    s3.write(move |tx| {
        let mut bucket = store::bucket(tx, &name)?;
        if bucket.mfa_delete.as_deref() == Some("Enabled") && mfa.is_none() {
            return Err(S3Error::mfa_required());
        }
        if bucket.object_lock && status != "Enabled" {
            return Err(AwsError::new(
                "InvalidBucketState",
                "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.",
                409,
            ));
        }
        if bucket.state() == State::Unversioned {
            versioning::start_versioning(tx, &name)?;
        }
        bucket.versioning = Some(status.to_owned());
        if let Some(m) = mfa_delete {
            bucket.mfa_delete = Some(m.to_owned());
        }
        store::save_bucket(tx, &bucket)
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_bucket_versioning(
    s3: &S3Service,
    _ctx: &RequestContext,
    input: GetBucketVersioningRequest,
) -> Result<GetBucketVersioningOutput, GetBucketVersioningError> {
    // A bucket that was never versioned answers an empty configuration.
    let bucket = store::bucket(&s3.store()?, &input.bucket)?;
    Ok(GetBucketVersioningOutput {
        status: bucket.versioning.as_deref().map(BucketVersioningStatus::from_wire),
        mfa_delete: bucket.mfa_delete.as_deref().map(MFADeleteStatus::from_wire),
    })
}
