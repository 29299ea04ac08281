//! Bucket configuration subresources: CORS, policy, default encryption, ownership controls,
//! public access block, website, lifecycle, ACLs, accelerate, request payment, logging,
//! notifications, replication and ABAC. This module keeps the documents; each submodule
//! holds AWS's checks and defaults for one kind of them.
//!
//! Each document lives in the `configs` table under bucket name, zero byte and the
//! subresource's name, as JSON written by `stratus_core::json` against the model's own shape
//! (so a stored document is exactly what the model can say, and decodes back to the typed
//! value). Ownership controls and the public access block have AWS's defaults for new buckets
//! (since April 2023: `BucketOwnerEnforced`, every block on) while no document is stored;
//! deleting one stores an empty value, meaning "none".
//!
//! What is stored is checked as AWS checks it, and the settings that refuse requests are
//! enforced: ACLs on a `BucketOwnerEnforced` bucket (`AccessControlListNotSupported`), public
//! ACLs under `BlockPublicAcls` and public policies under `BlockPublicPolicy`
//! (`AccessDenied`); CORS rules are evaluated by [`crate::cors`]. Lifecycle expiration is
//! applied by [`crate::sweeper`]; lifecycle transitions, website hosting, access logs,
//! replication itself and ABAC's tag conditions are not emulated yet.

pub(crate) mod acl;
pub(crate) mod cors_rules;
pub(crate) mod encryption;
pub(crate) mod lifecycle_rules;
pub(crate) mod ownership;
pub(crate) mod policy;
pub(crate) mod replication;
pub(crate) mod website;

use stratus_core::json::{self, KeyNames};
use stratus_core::schema::Shape;
use stratus_core::{AwsError, FromValue, IntoValue};
use stratus_gen_s3::*;
use stratus_storage::{Direction, KeyRange, Read, Tx};

use crate::bucket::BucketRecord;
use crate::config::ownership::{default_ownership, default_public_access_block};
use crate::error::S3Error;
use crate::store::{self, object_key};
use crate::S3Service;

pub(crate) const CONFIGS: &str = "configs";

pub(crate) const CORS: &str = "cors";
pub(crate) const POLICY: &str = "policy";
pub(crate) const ENCRYPTION: &str = "encryption";
pub(crate) const OWNERSHIP: &str = "ownership";
pub(crate) const PUBLIC_ACCESS_BLOCK: &str = "public-access-block";
pub(crate) const WEBSITE: &str = "website";
pub(crate) const LIFECYCLE: &str = "lifecycle";
/// The lifecycle configuration's `x-amz-transition-default-minimum-object-size`.
pub(crate) const LIFECYCLE_SIZE: &str = "lifecycle-size";
pub(crate) const ACL: &str = "acl";
pub(crate) const ACCELERATE: &str = "accelerate";
pub(crate) const REQUEST_PAYMENT: &str = "request-payment";
pub(crate) const LOGGING: &str = "logging";
pub(crate) const NOTIFICATION: &str = "notification";
pub(crate) const REPLICATION: &str = "replication";
/// Whether tags authorize requests (ABAC): `Enabled` or `Disabled`.
pub(crate) const ABAC: &str = "abac";

pub(crate) fn config_key(bucket: &str, name: &str) -> Vec<u8> {
    object_key(bucket, name)
}

/// A typed value as stored: JSON of `shape`.
pub(crate) fn encode<T: IntoValue>(shape: &'static Shape, value: T) -> Vec<u8> {
    json::encode(shape, &value.into_value(), KeyNames::Member).into_bytes()
}

pub(crate) fn decode<T: FromValue>(shape: &'static Shape, bytes: &[u8]) -> Result<T, AwsError> {
    let value = json::decode(shape, bytes, KeyNames::Member)
        .map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))?;
    T::from_value(value).map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))
}

/// A bucket's missing configuration, naming the bucket in `<BucketName>` as AWS does.
pub(crate) fn not_found(bucket: &str, code: &str, message: &str) -> AwsError {
    AwsError::new(code, message, 404).with_detail("BucketName", bucket)
}

/// What a configuration write does to the stored document.
pub(crate) enum Change {
    Set(Vec<u8>),
    /// Remove the document (the bucket falls back to AWS's default, if there is one).
    Remove,
    /// Store "none", overriding a default.
    Clear,
}

impl S3Service {
    /// The stored document `name` of `bucket` (`Some(empty)` is an explicit "none").
    pub(crate) fn load_config(&self, bucket: &str, name: &str) -> Result<Option<Vec<u8>>, AwsError> {
        let db = self.store()?;
        store::bucket(&db, bucket)?;
        document(&db, bucket, name)
    }

    /// Document `name` of `bucket` as text: the one-word settings (accelerate, request
    /// payment, ABAC).
    pub(crate) fn load_text_config(&self, bucket: &str, name: &str) -> Result<Option<String>, AwsError> {
        Ok(self.load_config(bucket, name)?.and_then(|b| String::from_utf8(b).ok()))
    }

    /// Changes document `name` of `bucket`, after `check` (run in the same transaction with
    /// the bucket's record) allows it.
    pub(crate) async fn change_config(
        &self,
        bucket: String,
        name: &'static str,
        change: Change,
        check: impl FnOnce(&Tx<'_>, &BucketRecord) -> Result<(), AwsError> + Send + 'static,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            let record = store::bucket(tx, &bucket)?;
            check(tx, &record)?;
            let key = config_key(&bucket, name);
            match change {
                Change::Set(bytes) => tx.put(CONFIGS, key, bytes),
                Change::Remove => tx.delete(CONFIGS, key),
                Change::Clear => tx.put(CONFIGS, key, Vec::new()),
            }
            Ok(())
        })
        .await
    }

    /// The bucket's policy text, or `NoSuchBucketPolicy`.
    pub(crate) fn policy(&self, bucket: &str) -> Result<String, AwsError> {
        self.load_config(bucket, POLICY)?
            .filter(|b| !b.is_empty())
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| not_found(bucket, "NoSuchBucketPolicy", "The bucket policy does not exist"))
    }

    /// A typed document, `Ok(None)` when there is none.
    pub(crate) fn typed_config<T: FromValue>(
        &self,
        bucket: &str,
        name: &str,
        shape: &'static Shape,
    ) -> Result<Option<T>, AwsError> {
        let db = self.store()?;
        store::bucket(&db, bucket)?;
        typed(&db, bucket, name, shape, || None)
    }
}

/// The stored document `name` of `bucket` (`Some(empty)` is an explicit "none").
fn document(r: &(impl Read + ?Sized), bucket: &str, name: &str) -> Result<Option<Vec<u8>>, AwsError> {
    r.get(CONFIGS, &config_key(bucket, name)).map_err(S3Error::storage)
}

/// Document `name` of `bucket` as its typed value; `default` stands in while none is stored.
pub(crate) fn typed<T: FromValue>(
    r: &(impl Read + ?Sized),
    bucket: &str,
    name: &str,
    shape: &'static Shape,
    default: impl FnOnce() -> Option<T>,
) -> Result<Option<T>, AwsError> {
    match document(r, bucket, name)? {
        None => Ok(default()),
        Some(bytes) if bytes.is_empty() => Ok(None),
        Some(bytes) => decode(shape, &bytes).map(Some),
    }
}

/// The bucket's ownership controls, inside a transaction.
pub(crate) fn tx_ownership(tx: &Tx<'_>, bucket: &str) -> Result<Option<OwnershipControls>, AwsError> {
    typed(tx, bucket, OWNERSHIP, &schema::OWNERSHIP_CONTROLS, || {
        Some(default_ownership())
    })
}

/// The bucket's public access block, inside a transaction.
pub(crate) fn tx_public_access_block(
    tx: &Tx<'_>,
    bucket: &str,
) -> Result<Option<PublicAccessBlockConfiguration>, AwsError> {
    typed(
        tx,
        bucket,
        PUBLIC_ACCESS_BLOCK,
        &schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION,
        || Some(default_public_access_block()),
    )
}

/// Removes every configuration document of `bucket` (when the bucket is deleted).
pub(crate) fn remove_all(tx: &mut Tx<'_>, bucket: &str) -> Result<(), AwsError> {
    let keys: Vec<Vec<u8>> = tx
        .scan(
            CONFIGS,
            &KeyRange::prefix(&object_key(bucket, "")),
            Direction::Forward,
            None,
        )
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for k in keys {
        tx.delete(CONFIGS, k);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_documents_round_trip() {
        let rules = vec![CORSRule {
            allowed_methods: vec!["GET".into()],
            allowed_origins: vec!["*".into()],
            max_age_seconds: Some(30),
            ..CORSRule::default()
        }];
        let bytes = encode(&stratus_gen_s3::schema::CORS_RULES, rules.clone());
        let back: Vec<CORSRule> = decode(&stratus_gen_s3::schema::CORS_RULES, &bytes).unwrap();
        assert_eq!(back, rules);
    }
}
