//! Secrets Manager's refusals, in AWS's words (from AWS's recorded answers where they exist;
//! the others from the API reference). Each is an [`AwsError`] whose code and status are one
//! of the model's errors, which the generated `into_operation_error` promotes to that error,
//! so SDKs raise the typed exception.

use stratus_core::AwsError;
use stratus_gen_secrets_manager::*;
use stratus_storage::StorageError;

/// A Secrets Manager refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct SmError(pub(crate) AwsError);

impl From<AwsError> for SmError {
    fn from(e: AwsError) -> SmError {
        SmError(e)
    }
}

impl From<StorageError> for SmError {
    fn from(e: StorageError) -> SmError {
        SmError(AwsError::new("InternalServiceError", format!("secret store: {e}"), 500))
    }
}

fn error(code: &str, message: impl Into<String>) -> SmError {
    SmError(AwsError::new(code, message, 400))
}

pub(crate) fn invalid_parameter(message: impl Into<String>) -> SmError {
    error("InvalidParameterException", message)
}

pub(crate) fn invalid_request(message: impl Into<String>) -> SmError {
    error("InvalidRequestException", message)
}

pub(crate) fn not_found(message: impl Into<String>) -> SmError {
    error("ResourceNotFoundException", message)
}

pub(crate) fn exists(message: impl Into<String>) -> SmError {
    error("ResourceExistsException", message)
}

pub(crate) fn validation(message: impl Into<String>) -> SmError {
    error("ValidationException", message)
}

pub(crate) fn malformed_policy(message: impl Into<String>) -> SmError {
    error("MalformedPolicyDocumentException", message)
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> SmError {
    error("LimitExceededException", message)
}

/// The secret is not there (or not in this account and region).
pub(crate) fn secret_not_found() -> SmError {
    not_found("Secrets Manager can't find the specified secret.")
}

/// The secret waits for deletion; only DescribeSecret, RestoreSecret, DeleteSecret (forced)
/// and the listings still see it.
pub(crate) fn marked_for_deletion() -> SmError {
    invalid_request("You can't perform this operation on the secret because it was marked for deletion.")
}

/// A name or id with characters no secret name may hold.
pub(crate) fn invalid_name() -> SmError {
    validation(
        "Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!",
    )
}

/// A request that creates a version without the token SDKs fill in themselves.
pub(crate) fn missing_token(code_is_parameter: bool) -> SmError {
    let message = "You must provide a ClientRequestToken value. We recommend a UUID-type value.";
    if code_is_parameter {
        invalid_parameter(message)
    } else {
        invalid_request(message)
    }
}

/// Writes on a replica, which only its primary changes.
pub(crate) fn on_replica() -> SmError {
    invalid_request("Operation not permitted on a replica secret. Call must be made in primary secret's region.")
}

/// `impl From<SmError> for OpError` for every operation's error enum.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<SmError> for $op {
            fn from(e: SmError) -> $op {
                $op::from(e.0)
            }
        }
    )*};
}

into_operation_error! {
    BatchGetSecretValueError CancelRotateSecretError CreateSecretError DeleteResourcePolicyError
    DeleteSecretError DescribeSecretError GetRandomPasswordError GetResourcePolicyError
    GetSecretValueError ListSecretVersionIdsError ListSecretsError PutResourcePolicyError
    PutSecretValueError RemoveRegionsFromReplicationError ReplicateSecretToRegionsError
    RestoreSecretError RotateSecretError StopReplicationToReplicaError TagResourceError
    UntagResourceError UpdateSecretError UpdateSecretVersionStageError ValidateResourcePolicyError
}
