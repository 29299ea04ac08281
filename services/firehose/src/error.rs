//! Firehose's refusals, in AWS's words, and the error transactions fail with.

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// Why an operation or a transaction failed: a refusal to answer, or the store.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FirehoseError {
    #[error("{}", .0.message)]
    Refused(AwsError),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl From<AwsError> for FirehoseError {
    fn from(e: AwsError) -> FirehoseError {
        FirehoseError::Refused(e)
    }
}

impl From<FirehoseError> for AwsError {
    fn from(e: FirehoseError) -> AwsError {
        match e {
            FirehoseError::Refused(e) => e,
            FirehoseError::Storage(e) => {
                AwsError::new("ServiceUnavailableException", format!("storage failure: {e}"), 500)
            }
        }
    }
}

pub(crate) type Result<T, E = FirehoseError> = std::result::Result<T, E>;

pub(crate) fn invalid_argument(message: impl Into<String>) -> FirehoseError {
    AwsError::new("InvalidArgumentException", message, 400).into()
}

pub(crate) fn in_use(message: impl Into<String>) -> FirehoseError {
    AwsError::new("ResourceInUseException", message, 400).into()
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> FirehoseError {
    AwsError::new("LimitExceededException", message, 400).into()
}

pub(crate) fn concurrent_modification(message: impl Into<String>) -> FirehoseError {
    AwsError::new("ConcurrentModificationException", message, 400).into()
}

/// What Stratus does not do, named: `NotImplemented` with the reason.
pub(crate) fn not_served(what: &str) -> FirehoseError {
    AwsError::new("NotImplemented", format!("{what} is not served by Stratus."), 501).into()
}

/// `Firehose NAME under account ACCOUNT not found.`, as AWS answers for a delivery stream it
/// does not have (turbot/steampipe-plugin-aws#759 quotes it).
pub(crate) fn stream_not_found(name: &str, account: &str) -> FirehoseError {
    AwsError::new(
        "ResourceNotFoundException",
        format!("Firehose {name} under account {account} not found."),
        400,
    )
    .into()
}
