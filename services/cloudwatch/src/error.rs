//! CloudWatch's refusals, in AWS's words, and the error transactions fail with. Each is an
//! [`AwsError`] whose Query code and status are one of the model's errors, which the
//! generated `into_operation_error` promotes to that error.

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// A refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct CwError(pub(crate) AwsError);

impl From<AwsError> for CwError {
    fn from(e: AwsError) -> CwError {
        CwError(e)
    }
}

impl From<StorageError> for CwError {
    fn from(e: StorageError) -> CwError {
        CwError(AwsError::new("InternalServiceError", format!("metric store: {e}"), 500))
    }
}

impl From<CwError> for AwsError {
    fn from(e: CwError) -> AwsError {
        e.0
    }
}

pub(crate) type Result<T, E = CwError> = std::result::Result<T, E>;

/// `InvalidParameterValue`.
pub(crate) fn invalid_value(message: impl Into<String>) -> CwError {
    CwError(AwsError::new("InvalidParameterValue", message, 400))
}

/// `InvalidParameterCombination`.
pub(crate) fn invalid_combination(message: impl Into<String>) -> CwError {
    CwError(AwsError::new("InvalidParameterCombination", message, 400))
}

/// `MissingParameter`.
pub(crate) fn missing(message: impl Into<String>) -> CwError {
    CwError(AwsError::new("MissingParameter", message, 400))
}

/// `ResourceNotFound` (404), which AWS sends without a message for alarms.
pub(crate) fn alarm_not_found() -> CwError {
    CwError(AwsError::new("ResourceNotFound", "", 404))
}

/// `ResourceNotFoundException` (404), the newer operations' form.
pub(crate) fn resource_not_found(message: impl Into<String>) -> CwError {
    CwError(AwsError::new("ResourceNotFoundException", message, 404))
}

/// `LimitExceeded`.
pub(crate) fn limit_exceeded(message: impl Into<String>) -> CwError {
    CwError(AwsError::new("LimitExceeded", message, 400))
}

/// `InvalidNextToken`.
pub(crate) fn invalid_next_token() -> CwError {
    CwError(AwsError::new(
        "InvalidNextToken",
        "The service cannot process the NextToken.",
        400,
    ))
}

/// What Stratus answers for an operation it does not serve, with the reason.
pub(crate) fn not_served(what: &str, why: &str) -> CwError {
    CwError(AwsError::new(
        "NotImplemented",
        format!("{what} is not served by Stratus: {why}."),
        501,
    ))
}
