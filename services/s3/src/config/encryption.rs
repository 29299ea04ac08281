//! Default encryption: the SSE-S3 default and the checks of a stored configuration.

use stratus_core::AwsError;
use stratus_gen_s3::*;

use crate::error::S3Error;

/// The default encryption every bucket has had since January 2023: SSE-S3.
pub(crate) fn default_encryption() -> ServerSideEncryptionConfiguration {
    ServerSideEncryptionConfiguration {
        rules: vec![ServerSideEncryptionRule {
            apply_server_side_encryption_by_default: Some(ServerSideEncryptionByDefault {
                sse_algorithm: ServerSideEncryption::Aes256,
                kms_master_key_id: None,
            }),
            bucket_key_enabled: Some(false),
            blocked_encryption_types: None,
        }],
    }
}

pub(crate) fn check_encryption(config: &ServerSideEncryptionConfiguration) -> Result<(), AwsError> {
    if config.rules.len() != 1 {
        return Err(S3Error::malformed_xml());
    }
    for rule in &config.rules {
        let Some(default) = &rule.apply_server_side_encryption_by_default else {
            continue;
        };
        let kms = match &default.sse_algorithm {
            ServerSideEncryption::Aes256 => false,
            ServerSideEncryption::AwsKms | ServerSideEncryption::AwsKmsDsse => true,
            _ => return Err(S3Error::malformed_xml()),
        };
        if !kms && default.kms_master_key_id.is_some() {
            return Err(S3Error::invalid_argument(
                "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse",
            ));
        }
    }
    Ok(())
}
