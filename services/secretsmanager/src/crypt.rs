//! Secret values sealed and opened through KMS's [`KeyService`]: each version is encrypted
//! under the secret's key (the AWS managed `alias/aws/secretsmanager` unless the secret names
//! one), bound to the secret's ARN and the version's id as encryption context.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use stratus_core::service::capabilities::EncryptionContext;
use stratus_core::service::{Caller, KeyService};
use stratus_core::AwsError;

use crate::error::SmError;
use crate::secret::{Sealed, SecretRecord};
use crate::service::SecretsService;

/// The AWS managed key a secret uses when it names none.
pub(crate) const DEFAULT_KEY: &str = "alias/aws/secretsmanager";

/// A value in the clear.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plain {
    String(String),
    Binary(Vec<u8>),
}

impl Plain {
    /// The value a request gave, refusing both or (when `required`) neither.
    pub(crate) fn from_input(string: Option<String>, binary: Option<Vec<u8>>) -> Result<Option<Plain>, SmError> {
        match (string, binary) {
            (Some(_), Some(_)) => Err(crate::error::invalid_parameter(
                "You can't specify both a binary secret value and a string secret value in the same secret.",
            )),
            (Some(s), None) => Ok(Some(Plain::String(s))),
            (None, Some(b)) => Ok(Some(Plain::Binary(b))),
            (None, None) => Ok(None),
        }
    }

    pub(crate) fn into_parts(self) -> (Option<String>, Option<Vec<u8>>) {
        match self {
            Plain::String(s) => (Some(s), None),
            Plain::Binary(b) => (None, Some(b)),
        }
    }
}

fn context(arn: &str, version_id: &str) -> EncryptionContext {
    [
        ("SecretARN".to_owned(), arn.to_owned()),
        ("SecretVersionId".to_owned(), version_id.to_owned()),
    ]
    .into()
}

fn encryption_failure() -> SmError {
    SmError(AwsError::new(
        "EncryptionFailure",
        "Secrets Manager can't encrypt the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state.",
        400,
    ))
}

fn decryption_failure() -> SmError {
    SmError(AwsError::new(
        "DecryptionFailure",
        "Secrets Manager can't decrypt the protected secret text using the provided KMS key.",
        400,
    ))
}

impl SecretsService {
    fn keys(&self) -> Option<&dyn KeyService> {
        self.shared.keys.as_deref()
    }

    /// Encrypts `value` for version `version_id` of `secret`, under `key` (the secret's own
    /// when `None`), in the secret's account and region.
    pub(crate) async fn seal(
        &self,
        secret: &SecretRecord,
        key: Option<&str>,
        version_id: &str,
        value: &Plain,
        principal: &str,
    ) -> Result<Sealed, SmError> {
        let keys = self.keys().ok_or_else(encryption_failure)?;
        let key = key.or(secret.kms_key_id.as_deref()).unwrap_or(DEFAULT_KEY);
        let (binary, bytes) = match value {
            Plain::String(s) => (false, s.as_bytes().to_vec()),
            Plain::Binary(b) => (true, b.clone()),
        };
        let caller = Caller {
            account_id: &secret.account,
            region: &secret.region,
            principal,
        };
        let context = context(&secret.arn(), version_id);
        let sealed = keys.encrypt(caller, key, bytes, &context).await.map_err(|e| {
            tracing::debug!("secretsmanager: KMS refused to encrypt: {}: {}", e.code, e.message);
            encryption_failure()
        })?;
        Ok(Sealed {
            binary,
            ciphertext: STANDARD.encode(sealed.bytes),
        })
    }

    /// Decrypts a version's value of `secret`.
    pub(crate) async fn open(
        &self,
        secret: &SecretRecord,
        version_id: &str,
        sealed: &Sealed,
        principal: &str,
    ) -> Result<Plain, SmError> {
        let keys = self.keys().ok_or_else(decryption_failure)?;
        let ciphertext = STANDARD.decode(&sealed.ciphertext).map_err(|_| decryption_failure())?;
        let caller = Caller {
            account_id: &secret.account,
            region: &secret.region,
            principal,
        };
        let context = context(&secret.arn(), version_id);
        let opened = keys
            .decrypt(caller, &ciphertext, &context)
            .await
            .map_err(|_| decryption_failure())?;
        if sealed.binary {
            Ok(Plain::Binary(opened.bytes))
        } else {
            String::from_utf8(opened.bytes)
                .map(Plain::String)
                .map_err(|_| decryption_failure())
        }
    }
}
