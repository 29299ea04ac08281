//! Bucket policies, for the gateway to authorize requests on buckets and objects
//! ([`ResourcePolicies`]).

use stratus_core::service::{ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;

use crate::bucket::BucketRecord;
use crate::config::POLICY;
use crate::{store, S3Service};

impl ResourcePolicies for S3Service {
    fn arn_service(&self) -> &'static str {
        "s3"
    }

    /// `arn:aws:s3:::BUCKET` or `arn:aws:s3:::BUCKET/KEY`: the bucket's owner and policy.
    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        let Some(named) = self.bucket_of_arn(arn)? else {
            return Ok(None);
        };
        let document = self
            .load_config(named.bucket, POLICY)?
            .filter(|doc| !doc.is_empty())
            .and_then(|doc| String::from_utf8(doc).ok());
        Ok(Some(ResourcePolicy {
            owner_account: named.record.owner,
            document,
        }))
    }

    /// A bucket's tags (`aws:ResourceTag/…` on bucket operations); an object's ARN has none
    /// here (its own tags are `s3:ExistingObjectTag/…`, not supplied).
    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        Ok(match self.bucket_of_arn(arn)? {
            Some(Named { key: None, record, .. }) => Some(record.tags.into_iter().collect()),
            _ => None,
        })
    }
}

/// A bucket or object ARN's bucket, as stored.
struct Named<'a> {
    bucket: &'a str,
    /// The object's key, for an object's ARN.
    key: Option<&'a str>,
    record: BucketRecord,
}

impl S3Service {
    /// The bucket `arn:aws:s3:::BUCKET[/KEY]` names, `None` when there is no such bucket.
    fn bucket_of_arn<'a>(&self, arn: &'a str) -> Result<Option<Named<'a>>, AwsError> {
        let Some(resource) = arn.splitn(6, ':').nth(5) else {
            return Ok(None);
        };
        let (bucket, key) = match resource.split_once('/') {
            Some((bucket, key)) => (bucket, Some(key)),
            None => (resource, None),
        };
        match self.store().and_then(|db| store::bucket(&db, bucket)) {
            Ok(record) => Ok(Some(Named { bucket, key, record })),
            Err(e) if e.code == "NoSuchBucket" => Ok(None),
            Err(e) => Err(e),
        }
    }
}
