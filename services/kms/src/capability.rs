//! What KMS provides other services: [`KeyService`] (encryption under a key, data keys) and
//! the key policies of its keys as [`ResourcePolicies`].

use stratus_core::arn::Arn;
use stratus_core::service::capabilities::{DataKey, EncryptionContext, Keyed};
use stratus_core::service::{BoxFuture, Caller, KeyService, ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;
use stratus_gen_kms::EncryptionAlgorithmSpec;

use crate::keys::KeyRecord;
use crate::lookup::{find_key, Scope};
use crate::ops::cryptography::{data_key, data_key_owner, decrypt_with, encrypt_with};
use crate::ops::keys::resolve;
use crate::service::KmsService;

fn scope(caller: &Caller<'_>) -> Scope {
    Scope {
        account: caller.account_id.to_owned(),
        region: caller.region.to_owned(),
    }
}

impl KeyService for KmsService {
    fn encrypt<'a>(
        &'a self,
        caller: Caller<'a>,
        key_id: &'a str,
        plaintext: Vec<u8>,
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<Keyed, AwsError>> {
        Box::pin(async move {
            let key = resolve(self, &scope(&caller), key_id).await.map_err(|e| e.0)?;
            let bytes =
                encrypt_with(&key, &EncryptionAlgorithmSpec::SymmetricDefault, context, &plaintext).map_err(|e| e.0)?;
            Ok(Keyed {
                key_arn: key.arn,
                bytes,
            })
        })
    }

    fn decrypt<'a>(
        &'a self,
        caller: Caller<'a>,
        ciphertext: &'a [u8],
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<Keyed, AwsError>> {
        Box::pin(async move {
            let opened = decrypt_with(self, &scope(&caller), ciphertext, None, None, context)
                .await
                .map_err(|e| e.0)?;
            Ok(Keyed {
                key_arn: opened.key.arn,
                bytes: opened.plaintext,
            })
        })
    }

    fn generate_data_key<'a>(
        &'a self,
        caller: Caller<'a>,
        key_id: &'a str,
        bytes: usize,
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<DataKey, AwsError>> {
        Box::pin(async move {
            let key = data_key_owner(self, &scope(&caller), key_id, "GenerateDataKey")
                .await
                .map_err(|e| e.0)?;
            let (plaintext, ciphertext) = data_key(&key, bytes.clamp(1, 1024), context).map_err(|e| e.0)?;
            Ok(DataKey {
                key_arn: key.arn,
                plaintext,
                ciphertext,
            })
        })
    }
}

impl KmsService {
    /// The key an ARN (of a key or an alias) names, read inline.
    fn key_of_arn(&self, arn: &str) -> Result<Option<KeyRecord>, AwsError> {
        let Ok(parsed) = Arn::parse(arn) else { return Ok(None) };
        let scope = Scope {
            account: parsed.account,
            region: parsed.region,
        };
        let store = self.store(&scope.account, &scope.region).map_err(|e| e.0)?;
        Ok(find_key(&*store, &scope, arn).ok())
    }
}

impl ResourcePolicies for KmsService {
    fn arn_service(&self) -> &'static str {
        "kms"
    }

    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        Ok(self.key_of_arn(arn)?.map(|key| ResourcePolicy {
            owner_account: key.account,
            document: Some(key.policy),
        }))
    }

    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        Ok(self.key_of_arn(arn)?.map(|key| key.tags))
    }
}
