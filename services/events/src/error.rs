//! EventBridge's refusals, in AWS's words, and the error transactions fail with.

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// Why an operation or a transaction failed: a refusal to answer, or the store.
#[derive(Debug)]
pub(crate) enum EventsError {
    Refused(AwsError),
    Storage(StorageError),
}

impl From<AwsError> for EventsError {
    fn from(e: AwsError) -> EventsError {
        EventsError::Refused(e)
    }
}

impl From<StorageError> for EventsError {
    fn from(e: StorageError) -> EventsError {
        EventsError::Storage(e)
    }
}

impl From<EventsError> for AwsError {
    fn from(e: EventsError) -> AwsError {
        match e {
            EventsError::Refused(e) => e,
            EventsError::Storage(e) => AwsError::new("InternalException", format!("storage failure: {e}"), 500),
        }
    }
}

pub(crate) type Result<T, E = EventsError> = std::result::Result<T, E>;

pub(crate) fn validation(message: impl Into<String>) -> EventsError {
    AwsError::new("ValidationException", message, 400).into()
}

pub(crate) fn not_found(message: impl Into<String>) -> EventsError {
    AwsError::new("ResourceNotFoundException", message, 400).into()
}

pub(crate) fn already_exists(message: impl Into<String>) -> EventsError {
    AwsError::new("ResourceAlreadyExistsException", message, 400).into()
}

pub(crate) fn limit_exceeded() -> EventsError {
    AwsError::new(
        "LimitExceededException",
        "The requested resource exceeds the maximum number allowed.",
        400,
    )
    .into()
}

pub(crate) fn bus_not_found(bus: &str) -> EventsError {
    not_found(format!("Event bus {bus} does not exist."))
}

pub(crate) fn rule_not_found(rule: &str, bus: &str) -> EventsError {
    not_found(format!("Rule {rule} does not exist on EventBus {bus}."))
}

pub(crate) fn invalid_token() -> EventsError {
    validation("The NextToken provided is invalid.")
}

/// What AWS answers for an operation Stratus does not serve, with the reason.
pub(crate) fn not_served(what: &str) -> EventsError {
    AwsError::new("NotImplemented", format!("{what} is not served by Stratus."), 501).into()
}
