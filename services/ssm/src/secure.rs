//! SecureString values: encrypted through KMS's [`KeyService`](stratus_core::service::KeyService)
//! with the parameter's ARN as encryption context, as Parameter Store does, and stored as
//! the ciphertext in base64 — which is what GetParameter answers without `WithDecryption`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use stratus_core::service::capabilities::EncryptionContext;
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext};

use crate::error::{refuse, SsmError};
use crate::service::SsmService;

/// The key a SecureString is encrypted under when PutParameter names none.
pub(crate) const DEFAULT_KEY: &str = "alias/aws/ssm";

fn context(arn: &str) -> EncryptionContext {
    EncryptionContext::from([("PARAMETER_ARN".to_owned(), arn.to_owned())])
}

/// KMS's refusal as SSM reports it: `InvalidKeyId`, with KMS's words.
fn key_refusal(e: AwsError) -> SsmError {
    if e.http_status >= 500 {
        return SsmError(e);
    }
    refuse("InvalidKeyId", e.message)
}

fn no_kms(key_id: &str) -> SsmError {
    refuse(
        "InvalidKeyId",
        format!("Key {key_id} does not exist (KMS is not served)."),
    )
}

impl SsmService {
    /// `plaintext` encrypted under `key_id` for the parameter `arn`, as stored.
    pub(crate) async fn seal(
        &self,
        ctx: &RequestContext,
        principal: &str,
        key_id: &str,
        arn: &str,
        plaintext: &str,
    ) -> Result<String, SsmError> {
        let keys = self.shared.keys.as_ref().ok_or_else(|| no_kms(key_id))?;
        let caller = Caller {
            account_id: &ctx.account_id,
            region: &ctx.region,
            principal,
        };
        let sealed = keys
            .encrypt(caller, key_id, plaintext.as_bytes().to_vec(), &context(arn))
            .await
            .map_err(key_refusal)?;
        Ok(STANDARD.encode(sealed.bytes))
    }

    /// The plaintext of a stored SecureString value of the parameter `arn`.
    pub(crate) async fn open(
        &self,
        ctx: &RequestContext,
        principal: &str,
        key_id: &str,
        arn: &str,
        stored: &str,
    ) -> Result<String, SsmError> {
        let keys = self.shared.keys.as_ref().ok_or_else(|| no_kms(key_id))?;
        let bytes = STANDARD
            .decode(stored)
            .map_err(|_| SsmError(AwsError::internal("a stored SecureString is not base64")))?;
        let caller = Caller {
            account_id: &ctx.account_id,
            region: &ctx.region,
            principal,
        };
        let opened = keys.decrypt(caller, &bytes, &context(arn)).await.map_err(key_refusal)?;
        String::from_utf8(opened.bytes).map_err(|_| SsmError(AwsError::internal("a SecureString is not UTF-8")))
    }
}
