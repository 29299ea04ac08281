//! CloudWatch Logs' refusals, in AWS's words, and the error transactions fail with.

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// Why an operation or a transaction failed: a refusal to answer, or the store.
#[derive(Debug)]
pub(crate) enum LogsError {
    Refused(AwsError),
    Storage(StorageError),
}

impl From<AwsError> for LogsError {
    fn from(e: AwsError) -> LogsError {
        LogsError::Refused(e)
    }
}

impl From<StorageError> for LogsError {
    fn from(e: StorageError) -> LogsError {
        LogsError::Storage(e)
    }
}

impl From<LogsError> for AwsError {
    fn from(e: LogsError) -> AwsError {
        match e {
            LogsError::Refused(e) => e,
            LogsError::Storage(e) => AwsError::new("ServiceUnavailableException", format!("storage failure: {e}"), 500),
        }
    }
}

pub(crate) type Result<T, E = LogsError> = std::result::Result<T, E>;

pub(crate) fn invalid_parameter(message: impl Into<String>) -> LogsError {
    AwsError::new("InvalidParameterException", message, 400).into()
}

pub(crate) fn validation(message: impl Into<String>) -> LogsError {
    AwsError::new("ValidationException", message, 400).into()
}

pub(crate) fn not_found(message: impl Into<String>) -> LogsError {
    AwsError::new("ResourceNotFoundException", message, 400).into()
}

pub(crate) fn already_exists(message: impl Into<String>) -> LogsError {
    AwsError::new("ResourceAlreadyExistsException", message, 400).into()
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> LogsError {
    AwsError::new("LimitExceededException", message, 400).into()
}

pub(crate) fn group_not_found() -> LogsError {
    not_found("The specified log group does not exist.")
}

pub(crate) fn stream_not_found() -> LogsError {
    not_found("The specified log stream does not exist.")
}

pub(crate) fn invalid_token() -> LogsError {
    invalid_parameter("The specified nextToken is invalid.")
}

/// What Stratus answers for an operation it does not serve, with the reason.
pub(crate) fn not_served(what: &str, why: &str) -> LogsError {
    AwsError::new(
        "NotImplemented",
        format!("{what} is not served by Stratus: {why}."),
        501,
    )
    .into()
}
