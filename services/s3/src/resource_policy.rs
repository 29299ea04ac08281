//! Bucket policies, for the gateway to authorize requests on buckets and objects
//! ([`ResourcePolicies`]).

use stratus_core::service::{ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;

use crate::config::POLICY;
use crate::S3Service;

impl ResourcePolicies for S3Service {
    fn arn_service(&self) -> &'static str {
        "s3"
    }

    /// `arn:aws:s3:::BUCKET` or `arn:aws:s3:::BUCKET/KEY`: the bucket's owner and policy.
    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        let Some(resource) = arn.splitn(6, ':').nth(5) else {
            return Ok(None);
        };
        let bucket = resource.split('/').next().unwrap_or_default();
        let record = match self.bucket(bucket) {
            Ok(record) => record,
            Err(e) if e.code == "NoSuchBucket" => return Ok(None),
            Err(e) => return Err(e),
        };
        let document = self
            .load_config(bucket, POLICY)?
            .filter(|doc| !doc.is_empty())
            .and_then(|doc| String::from_utf8(doc).ok());
        Ok(Some(ResourcePolicy {
            owner_account: record.owner,
            document,
        }))
    }
}
