//! Object ownership controls and the public access block: their defaults for new buckets,
//! checks, and the refusals they cause.

use stratus_core::AwsError;
use stratus_gen_s3::*;

use crate::error::S3Error;

/// The object ownership of a bucket with no stored controls: AWS's default since April 2023.
pub(crate) fn default_ownership() -> OwnershipControls {
    OwnershipControls {
        rules: vec![OwnershipControlsRule {
            object_ownership: ObjectOwnership::BucketOwnerEnforced,
        }],
    }
}

pub(crate) fn check_ownership(controls: &OwnershipControls) -> Result<(), AwsError> {
    match controls.rules.as_slice() {
        [rule] if !matches!(rule.object_ownership, ObjectOwnership::Unknown(_)) => Ok(()),
        _ => Err(S3Error::malformed_xml()),
    }
}

pub(crate) fn enforced(controls: Option<&OwnershipControls>) -> bool {
    controls.is_some_and(|c| {
        c.rules
            .iter()
            .any(|r| r.object_ownership == ObjectOwnership::BucketOwnerEnforced)
    })
}

/// Every block on: AWS's default for new buckets since April 2023.
pub(crate) fn default_public_access_block() -> PublicAccessBlockConfiguration {
    PublicAccessBlockConfiguration {
        block_public_acls: Some(true),
        ignore_public_acls: Some(true),
        block_public_policy: Some(true),
        restrict_public_buckets: Some(true),
    }
}

pub(crate) fn acls_not_supported() -> AwsError {
    AwsError::new("AccessControlListNotSupported", "The bucket does not allow ACLs", 400)
}

pub(crate) fn access_denied() -> AwsError {
    AwsError::new("AccessDenied", "Access Denied", 403)
}
