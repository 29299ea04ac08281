//! KMS's refusals, in AWS's words (from AWS's recorded answers). Each is an [`AwsError`] whose
//! code and status are one of the model's errors, which the generated
//! `into_operation_error` promotes to that error.

use stratus_core::AwsError;
use stratus_gen_kms::*;
use stratus_storage::StorageError;

/// A KMS refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct KmsError(pub(crate) AwsError);

impl From<AwsError> for KmsError {
    fn from(e: AwsError) -> KmsError {
        KmsError(e)
    }
}

impl From<StorageError> for KmsError {
    fn from(e: StorageError) -> KmsError {
        KmsError(AwsError::new("KMSInternalException", format!("key store: {e}"), 500))
    }
}

fn refuse(code: &str, message: impl Into<String>) -> KmsError {
    KmsError(AwsError::new(code, message, 400))
}

/// `NotFoundException` for a key or alias, worded by the caller.
pub(crate) fn not_found(message: impl Into<String>) -> KmsError {
    refuse("NotFoundException", message)
}

/// `NotFoundException` for a well-formed key ARN no key answers to.
pub(crate) fn key_not_found(arn: &str) -> KmsError {
    not_found(format!("Key '{arn}' does not exist"))
}

/// `NotFoundException` for a key id that is neither a key id, an ARN nor an alias.
pub(crate) fn invalid_key_id(key_id: &str) -> KmsError {
    not_found(format!("Invalid keyId '{key_id}'"))
}

pub(crate) fn alias_not_found(alias_arn: &str) -> KmsError {
    not_found(format!("Alias {alias_arn} is not found."))
}

pub(crate) fn disabled(arn: &str) -> KmsError {
    refuse("DisabledException", format!("{arn} is disabled."))
}

pub(crate) fn invalid_state(message: impl Into<String>) -> KmsError {
    refuse("KMSInvalidStateException", message)
}

pub(crate) fn validation(message: impl Into<String>) -> KmsError {
    refuse("ValidationException", message)
}

pub(crate) fn unsupported(message: impl Into<String>) -> KmsError {
    refuse("UnsupportedOperationException", message)
}

/// `InvalidCiphertextException`, which AWS answers with an empty message.
pub(crate) fn invalid_ciphertext() -> KmsError {
    refuse("InvalidCiphertextException", "")
}

pub(crate) fn incorrect_key() -> KmsError {
    refuse(
        "IncorrectKeyException",
        "The key ID in the request does not identify a CMK that can perform this operation.",
    )
}

/// `InvalidKeyUsageException` for a key used for what its usage does not allow.
pub(crate) fn wrong_usage(arn: &str, usage: &str, operation: &str) -> KmsError {
    refuse(
        "InvalidKeyUsageException",
        format!("{arn} key usage is {usage} which is not valid for {operation}."),
    )
}

pub(crate) fn invalid_key_usage(message: impl Into<String>) -> KmsError {
    refuse("InvalidKeyUsageException", message)
}

pub(crate) fn already_exists(message: impl Into<String>) -> KmsError {
    refuse("AlreadyExistsException", message)
}

pub(crate) fn tag_error(message: impl Into<String>) -> KmsError {
    refuse("TagException", message)
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> KmsError {
    refuse("LimitExceededException", message)
}

pub(crate) fn not_authorized(message: impl Into<String>) -> KmsError {
    refuse("NotAuthorizedException", message)
}

pub(crate) fn dry_run() -> KmsError {
    refuse(
        "DryRunOperationException",
        "The request would have succeeded, but the DryRun option is set.",
    )
}

/// `impl From<KmsError> for OpError` for every operation's error enum.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<KmsError> for $op {
            fn from(e: KmsError) -> $op {
                $op::from(e.0)
            }
        }
    )*};
}

into_operation_error! {
    CancelKeyDeletionError ConnectCustomKeyStoreError CreateAliasError CreateCustomKeyStoreError
    CreateGrantError CreateKeyError DeleteAliasError DeleteCustomKeyStoreError
    DeleteImportedKeyMaterialError DeriveSharedSecretError DescribeCustomKeyStoresError
    DescribeKeyError DisableKeyError DisableKeyRotationError DisconnectCustomKeyStoreError
    EnableKeyError EnableKeyRotationError EncryptError GenerateDataKeyError GenerateDataKeyPairError
    GenerateDataKeyPairWithoutPlaintextError GenerateDataKeyWithoutPlaintextError GenerateMacError
    GenerateRandomError GetKeyLastUsageError GetKeyPolicyError GetKeyRotationStatusError
    GetParametersForImportError GetPublicKeyError ImportKeyMaterialError ListAliasesError
    ListGrantsError ListKeyPoliciesError ListKeyRotationsError ListKeysError ListResourceTagsError
    ListRetirableGrantsError PutKeyPolicyError ReplicateKeyError RetireGrantError RevokeGrantError
    ScheduleKeyDeletionError SignError TagResourceError UntagResourceError UpdateAliasError
    UpdateCustomKeyStoreError UpdateKeyDescriptionError UpdatePrimaryRegionError
}

/// The same, for the operations whose refusals AWS sends without a message when it has none
/// (`InvalidCiphertextException`, `KMSInvalidSignatureException`, …): those are built as the
/// modelled error with no `message` member, as AWS's bodies leave it out.
macro_rules! into_operation_error_bare {
    ($($op:ident { $($code:ident)* })*) => {$(
        impl From<KmsError> for $op {
            fn from(e: KmsError) -> $op {
                match e.0.code.as_str() {
                    $(stringify!($code) if e.0.message.is_empty() => $op::$code($code { message: None }),)*
                    _ => $op::from(e.0),
                }
            }
        }
    )*};
}

into_operation_error_bare! {
    DecryptError { InvalidCiphertextException }
    ReEncryptError { InvalidCiphertextException }
    VerifyError { KMSInvalidSignatureException }
    VerifyMacError { KMSInvalidMacException }
    RotateKeyOnDemandError { UnsupportedOperationException }
}
