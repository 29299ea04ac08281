//! Lambda's refusals, in AWS's words (from AWS's recorded answers). Each is an [`AwsError`]
//! whose code and status are the operation's modelled error, which the generated
//! `into_operation_error` promotes to it.

use stratus_core::AwsError;
use stratus_storage::StorageError;

pub(crate) fn invalid_parameter(message: impl Into<String>) -> AwsError {
    AwsError::new("InvalidParameterValueException", message, 400)
}

pub(crate) fn not_found(message: impl Into<String>) -> AwsError {
    AwsError::new("ResourceNotFoundException", message, 404)
}

pub(crate) fn conflict(message: impl Into<String>) -> AwsError {
    AwsError::new("ResourceConflictException", message, 409)
}

/// A function (or one of its versions) that does not exist: `arn` as the request named it.
pub(crate) fn function_not_found(arn: &str) -> AwsError {
    not_found(format!("Function not found: {arn}"))
}

/// A `FunctionName` that is no name or ARN of a function.
pub(crate) fn invalid_function_name(name: &str) -> AwsError {
    AwsError::new(
        "ValidationException",
        format!(
            "1 validation error detected: Value '{name}' at 'functionName' failed to satisfy constraint: Member must \
             satisfy regular expression pattern: (arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{{2}}((-gov)|(-iso([a-z]?\
             )))?-[a-z]+-\\d{{1}}:)?(\\d{{12}}:)?(function:)?([a-zA-Z0-9-_]+)(:(\\$LATEST|[a-zA-Z0-9-_]+))?"
        ),
        400,
    )
}

/// A `RevisionId` precondition that does not hold; `api` names where the current one is read.
pub(crate) fn revision_mismatch(api: &str) -> AwsError {
    AwsError::new(
        "PreconditionFailedException",
        format!(
            "The Revision Id provided does not match the latest Revision Id. Call the {api} API to retrieve the latest \
             Revision Id"
        ),
        412,
    )
}

pub(crate) fn storage(e: StorageError) -> AwsError {
    AwsError::new("ServiceException", format!("storage failure: {e}"), 500)
}

/// Transactions fail with either.
#[derive(Debug)]
pub(crate) enum TxError {
    Aws(AwsError),
    Storage(StorageError),
}

impl From<AwsError> for TxError {
    fn from(e: AwsError) -> TxError {
        TxError::Aws(e)
    }
}

impl From<StorageError> for TxError {
    fn from(e: StorageError) -> TxError {
        TxError::Storage(e)
    }
}

impl From<TxError> for AwsError {
    fn from(e: TxError) -> AwsError {
        match e {
            TxError::Aws(e) => e,
            TxError::Storage(e) => storage(e),
        }
    }
}
