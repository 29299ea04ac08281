//! Kinesis's refusals, in AWS's words, and the error transactions fail with.

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// Why an operation or a transaction failed: a refusal to answer, or the store.
#[derive(Debug)]
pub(crate) enum KinesisError {
    Refused(AwsError),
    Storage(StorageError),
}

impl From<AwsError> for KinesisError {
    fn from(e: AwsError) -> KinesisError {
        KinesisError::Refused(e)
    }
}

impl From<StorageError> for KinesisError {
    fn from(e: StorageError) -> KinesisError {
        KinesisError::Storage(e)
    }
}

impl From<KinesisError> for AwsError {
    fn from(e: KinesisError) -> AwsError {
        match e {
            KinesisError::Refused(e) => e,
            KinesisError::Storage(e) => AwsError::new("InternalFailureException", format!("storage failure: {e}"), 500),
        }
    }
}

pub(crate) type Result<T, E = KinesisError> = std::result::Result<T, E>;

pub(crate) fn invalid_argument(message: impl Into<String>) -> KinesisError {
    AwsError::new("InvalidArgumentException", message, 400).into()
}

pub(crate) fn not_found(message: impl Into<String>) -> KinesisError {
    AwsError::new("ResourceNotFoundException", message, 400).into()
}

pub(crate) fn in_use(message: impl Into<String>) -> KinesisError {
    AwsError::new("ResourceInUseException", message, 400).into()
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> KinesisError {
    AwsError::new("LimitExceededException", message, 400).into()
}

pub(crate) fn validation(message: impl Into<String>) -> KinesisError {
    AwsError::new("ValidationException", message, 400).into()
}

/// `Stream NAME under account ACCOUNT not found.`, as AWS answers for a stream it does not
/// have (recorded against AWS).
pub(crate) fn stream_not_found(name: &str, account: &str) -> KinesisError {
    not_found(format!("Stream {name} under account {account} not found."))
}
