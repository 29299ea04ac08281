//! Objects' server-side encryption as S3 reports it, and UpdateObjectEncryption's rules.
//!
//! Every object is SSE-S3 (`AES256`), as on AWS since January 2023, unless its write asked for
//! SSE-KMS (or its bucket's default encryption is SSE-KMS), it was written under a
//! customer-provided key (SSE-C, [`crate::customer_key`]), or UpdateObjectEncryption turned the
//! version into SSE-KMS with a key ([`KmsEncryption`], kept in the object record).
//! Bodies are not encrypted either way: only what S3 reports is kept, and the KMS key is not
//! looked up. Reads report it with `x-amz-server-side-encryption`,
//! `x-amz-server-side-encryption-aws-kms-key-id` and `-bucket-key-enabled` ([`Reported`]).
//!
//! The refusals are worded as UpdateObjectEncryption's documentation in the S3 API reference
//! lists them ("Errors").

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::service::capabilities::EncryptionContext;
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::{schema, ObjectEncryption, ServerSideEncryption, ServerSideEncryptionConfiguration};

use crate::error::S3Error;
use crate::object::ObjectRecord;
use crate::{config, lock, S3Service, S3_PRINCIPAL};

/// The AWS managed key of objects that ask for SSE-KMS without naming a key.
const DEFAULT_KEY: &str = "alias/aws/s3";

/// The SSE-KMS headers of a write: `x-amz-server-side-encryption`, its key id and whether
/// an S3 Bucket Key is used.
#[derive(Clone, Copy, Default)]
pub(crate) struct KmsHeaders<'a> {
    pub sse: Option<&'a ServerSideEncryption>,
    pub key_id: Option<&'a str>,
    pub bucket_key: Option<bool>,
}

/// The SSE-KMS headers of a generated write input (all name them alike).
macro_rules! kms_headers {
    ($input:expr) => {
        $crate::encryption::KmsHeaders {
            sse: $input.server_side_encryption.as_ref(),
            key_id: $input.ssekms_key_id.as_deref(),
            bucket_key: $input.bucket_key_enabled,
        }
    };
}
pub(crate) use kms_headers;

impl S3Service {
    /// The SSE-KMS encryption a write of `key` into `bucket` gets: the request's
    /// (`aws:kms`, with its key or the AWS managed `aws/s3`), else the bucket's default
    /// encryption when that is SSE-KMS; `None` for SSE-S3. The key is resolved through KMS,
    /// which names it by its ARN, as S3's answers do.
    pub(crate) async fn kms_for_write(
        &self,
        ctx: &RequestContext,
        bucket: &str,
        key: &str,
        headers: KmsHeaders<'_>,
    ) -> Result<Option<KmsEncryption>, AwsError> {
        let (key_id, bucket_key) = match headers.sse {
            Some(ServerSideEncryption::AwsKms | ServerSideEncryption::AwsKmsDsse) => (
                headers.key_id.unwrap_or(DEFAULT_KEY).to_owned(),
                headers.bucket_key.unwrap_or(false),
            ),
            Some(ServerSideEncryption::Unknown(value)) => {
                return Err(S3Error::invalid_argument("The encryption method specified is not supported")
                    .with_detail("ArgumentName", "x-amz-server-side-encryption")
                    .with_detail("ArgumentValue", value.as_str()))
            }
            _ if headers.key_id.is_some() => {
                return Err(S3Error::invalid_argument(
                    "Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms",
                ))
            }
            Some(_) => return Ok(None),
            None => match self.default_kms(bucket)? {
                Some((key_id, bucket_key)) => (key_id, headers.bucket_key.unwrap_or(bucket_key)),
                None => return Ok(None),
            },
        };
        let Some(keys) = self.providers().and_then(|p| p.keys.as_deref()) else {
            return Err(kms_error(
                "NotFoundException",
                &format!("Invalid keyId '{key_id}': KMS is not served"),
            ));
        };
        // S3's encryption context (S3 user guide, "Encryption context"): the object's ARN.
        let context = EncryptionContext::from([("aws:s3:arn".to_owned(), format!("arn:aws:s3:::{bucket}/{key}"))]);
        let caller = Caller::service(S3_PRINCIPAL, &ctx.account_id, &ctx.region);
        let data_key = keys
            .generate_data_key(caller, &key_id, 32, &context)
            .await
            .map_err(|e| kms_error(e.code.trim_start_matches("KMS."), &e.message))?;
        Ok(Some(KmsEncryption {
            key_arn: data_key.key_arn,
            bucket_key: bucket_key.then_some(true),
        }))
    }

    /// The KMS key and Bucket Key setting of `bucket`'s default encryption, when it is SSE-KMS.
    fn default_kms(&self, bucket: &str) -> Result<Option<(String, bool)>, AwsError> {
        let stored: Option<ServerSideEncryptionConfiguration> = self.typed_config(
            bucket,
            config::ENCRYPTION,
            &schema::SERVER_SIDE_ENCRYPTION_CONFIGURATION,
        )?;
        let Some(rule) = stored.and_then(|c| c.rules.into_iter().next()) else {
            return Ok(None);
        };
        let Some(default) = rule.apply_server_side_encryption_by_default else {
            return Ok(None);
        };
        Ok(match default.sse_algorithm {
            ServerSideEncryption::AwsKms | ServerSideEncryption::AwsKmsDsse => Some((
                default.kms_master_key_id.unwrap_or_else(|| DEFAULT_KEY.to_owned()),
                rule.bucket_key_enabled.unwrap_or(false),
            )),
            _ => None,
        })
    }
}

/// A KMS refusal as S3 passes it on: KMS's code with a `KMS.` prefix, and its message.
fn kms_error(code: &str, message: &str) -> AwsError {
    AwsError::new(format!("KMS.{code}"), message, 400)
}

/// SSE-KMS, as UpdateObjectEncryption set it on a version.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct KmsEncryption {
    /// The full KMS key ARN.
    pub key_arn: String,
    /// Whether an S3 Bucket Key is used; `None` when answers leave it unsaid, as they do for
    /// a write without one (an UpdateObjectEncryption says `false`).
    pub bucket_key: Option<bool>,
}

/// The encryption headers an answer about a version carries: SSE-S3 or SSE-KMS, or SSE-C's
/// algorithm and key MD5 (and then no `x-amz-server-side-encryption`).
pub(crate) struct Reported {
    pub server_side_encryption: Option<ServerSideEncryption>,
    pub kms_key_id: Option<String>,
    pub bucket_key_enabled: Option<bool>,
    pub customer_algorithm: Option<String>,
    pub customer_key_md5: Option<String>,
}

impl Reported {
    pub(crate) fn of(record: &ObjectRecord) -> Reported {
        Reported::for_keys(record.kms.as_ref(), record.customer_key_md5.as_deref())
    }

    /// What an object under `kms`, or under the customer key of MD5 `customer_key_md5`, or
    /// under neither (SSE-S3) reports.
    pub(crate) fn for_keys(kms: Option<&KmsEncryption>, customer_key_md5: Option<&str>) -> Reported {
        let (customer_algorithm, customer_key_md5) = crate::customer_key::reported(customer_key_md5);
        let server_side_encryption = match (kms, &customer_algorithm) {
            (_, Some(_)) => None,
            (Some(_), None) => Some(ServerSideEncryption::AwsKms),
            (None, None) => Some(ServerSideEncryption::Aes256),
        };
        Reported {
            server_side_encryption,
            kms_key_id: kms.map(|k| k.key_arn.clone()),
            bucket_key_enabled: kms.and_then(|k| k.bucket_key),
            customer_algorithm,
            customer_key_md5,
        }
    }
}

/// The SSE-KMS encryption an UpdateObjectEncryption asks for, for an object of a bucket owned
/// by `bucket_owner` (an account id): the key must be a full KMS key ARN of that account (the
/// model's pattern has already refused other ARNs).
pub(crate) fn requested(encryption: ObjectEncryption, bucket_owner: &str) -> Result<KmsEncryption, AwsError> {
    let ObjectEncryption::Ssekms(sse) = encryption;
    let key = Arn::parse(&sse.kms_key_arn)
        .ok()
        .filter(|a| a.resource.starts_with("key/"));
    let Some(key) = key else {
        return Err(invalid_request(
            "Requests that modify an object's encryption type to SSE-KMS require a valid Amazon Web Services KMS key Amazon Resource Name (ARN). Confirm that you have a correctly formatted KMS key ARN in your request, and then try again.",
        ));
    };
    if key.account != bucket_owner {
        return Err(AwsError::new(
            "AccessDenied",
            "The Amazon Web Services KMS key in the request must be owned by the same account as the bucket. Modify the request to specify a KMS key from the same account, and then try again.",
            403,
        ));
    }
    Ok(KmsEncryption {
        key_arn: sse.kms_key_arn,
        bucket_key: Some(sse.bucket_key_enabled.unwrap_or(false)),
    })
}

/// Refuses a version under Object Lock: an unexpired retention of either mode, or a legal hold.
pub(crate) fn check_unlocked(record: &ObjectRecord, now_ms: i64) -> Result<(), AwsError> {
    lock::check_delete(record, false, now_ms).map_err(|_| {
        AwsError::new(
            "AccessDenied",
            "The encryption type for the specified object can't be updated because that object is protected by S3 Object Lock. If the object has a governance-mode retention period or a legal hold, you must first remove the Object Lock status on the object before you issue your UpdateObjectEncryption request.",
            403,
        )
    })
}

fn invalid_request(message: &str) -> AwsError {
    AwsError::new("InvalidRequest", message, 400)
}

#[cfg(test)]
mod tests {
    use stratus_gen_s3::SSEKMSEncryption;

    use super::*;

    const OWNER: &str = "000000000000";

    fn kms(arn: &str, bucket_key: Option<bool>) -> ObjectEncryption {
        ObjectEncryption::Ssekms(SSEKMSEncryption {
            kms_key_arn: arn.into(),
            bucket_key_enabled: bucket_key,
        })
    }

    #[test]
    fn a_key_of_the_bucket_owner_is_taken() {
        let arn = "arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab";
        let got = requested(kms(arn, Some(true)), OWNER).unwrap();
        assert_eq!((got.key_arn.as_str(), got.bucket_key), (arn, Some(true)));
        assert_eq!(requested(kms(arn, None), OWNER).unwrap().bucket_key, Some(false));
    }

    // UpdateObjectEncryption's documented refusals: another account's key (AccessDenied),
    // a key that is not a key ARN (InvalidRequest).
    #[test]
    fn other_keys_are_refused() {
        let other = "arn:aws:kms:us-east-1:111122223333:key/1234abcd";
        assert_eq!(requested(kms(other, None), OWNER).unwrap_err().http_status, 403);
        let alias = "arn:aws:kms:us-east-1:000000000000:alias/mine";
        assert_eq!(requested(kms(alias, None), OWNER).unwrap_err().code, "InvalidRequest");
    }

    #[test]
    fn locked_versions_are_refused() {
        let now = 1_000;
        let retained = |mode: &str| ObjectRecord {
            lock_mode: Some(mode.into()),
            lock_until_ms: Some(now + 1),
            ..ObjectRecord::default()
        };
        assert_eq!(
            check_unlocked(&retained("COMPLIANCE"), now).unwrap_err().http_status,
            403
        );
        assert_eq!(
            check_unlocked(&retained("GOVERNANCE"), now).unwrap_err().http_status,
            403
        );
        let held = ObjectRecord {
            legal_hold: Some(true),
            ..ObjectRecord::default()
        };
        assert!(check_unlocked(&held, now).is_err());
        assert!(check_unlocked(&ObjectRecord::default(), now).is_ok());
    }
}
