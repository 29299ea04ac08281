//! SQS's refusals, in one enum that converts into every operation's generated error type.
//!
//! Every refusal becomes a plain [`AwsError`] with its Query code, which the generated code
//! promotes to the operation's modelled error where the model lists one (so the JSON protocol
//! sends its shape name and the `x-amzn-query-error` header its Query code); any other
//! operation answers the plain error.

use stratus_core::AwsError;
use stratus_gen_sqs::*;
use stratus_storage::StorageError;

/// Everything an SQS operation can refuse with.
#[derive(Debug)]
pub enum SqsError {
    /// The queue URL does not name a queue.
    InvalidAddress(String),
    QueueDoesNotExist,
    /// A queue of that name exists with a different value for this attribute.
    QueueNameExists(String),
    InvalidAttributeName(String),
    InvalidAttributeValue(String),
    ReceiptHandleIsInvalid(String),
    MessageNotInflight,
    InvalidMessageContents,
    EmptyBatchRequest(&'static str),
    TooManyEntriesInBatchRequest(usize),
    BatchEntryIdsNotDistinct(String),
    InvalidBatchEntryId,
    BatchRequestTooLong(usize),
    /// The queue (named) was purged less than a minute ago.
    PurgeQueueInProgress(String),
    /// A queue of that name was deleted less than a minute ago.
    QueueDeletedRecently,
    /// A named resource (the message says which) does not exist.
    ResourceNotFoundException(String),
    /// A common error: validation, missing parameters, internal faults.
    Aws(AwsError),
}

impl SqsError {
    /// A common error as SQS answers it: its Query error document carries an empty `Detail`
    /// element after the message (errors the model lists are promoted to their shapes, which
    /// have no such member, so only the common ones carry it).
    fn common(code: &str, message: impl Into<String>) -> SqsError {
        SqsError::Aws(AwsError::new(code, message, 400).with_detail("Detail", ""))
    }

    pub fn invalid_parameter(message: impl Into<String>) -> SqsError {
        SqsError::common("InvalidParameterValue", message)
    }

    /// AWS's wording for a parameter outside its range.
    pub fn invalid_value(parameter: &str, value: impl std::fmt::Display, reason: &str) -> SqsError {
        SqsError::invalid_parameter(format!(
            "Value {value} for parameter {parameter} is invalid. Reason: {reason}"
        ))
    }

    pub fn missing(parameter: &str) -> SqsError {
        SqsError::common(
            "MissingParameter",
            format!("The request must contain the parameter {parameter}."),
        )
    }

    pub fn invalid_attribute_name(name: &str) -> SqsError {
        SqsError::InvalidAttributeName(format!("Unknown Attribute {name}."))
    }

    pub fn invalid_attribute_value(name: &str) -> SqsError {
        SqsError::InvalidAttributeValue(format!("Invalid value for the parameter {name}."))
    }

    /// The error's message.
    fn message(&self) -> String {
        match self {
            SqsError::InvalidAddress(url) => format!("The address {url} is not valid for this endpoint."),
            SqsError::QueueDoesNotExist => "The specified queue does not exist.".into(),
            SqsError::QueueNameExists(attribute) => {
                format!("A queue already exists with the same name and a different value for attribute {attribute}")
            }
            SqsError::InvalidAttributeName(m) | SqsError::InvalidAttributeValue(m) => m.clone(),
            SqsError::ReceiptHandleIsInvalid(handle) => {
                format!("The input receipt handle \"{handle}\" is not a valid receipt handle.")
            }
            SqsError::MessageNotInflight => "The message referred to isn't in flight.".into(),
            SqsError::InvalidMessageContents => "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF".into(),
            SqsError::EmptyBatchRequest(entry) => {
                format!("There should be at least one {entry} in the request.")
            }
            SqsError::TooManyEntriesInBatchRequest(n) => {
                format!("Maximum number of entries per request are 10. You have sent {n}.")
            }
            SqsError::BatchEntryIdsNotDistinct(id) => format!("Id {id} repeated."),
            SqsError::InvalidBatchEntryId => "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.".into(),
            SqsError::BatchRequestTooLong(n) => {
                format!("Batch requests cannot be longer than 1048576 bytes. You have sent {n} bytes.")
            }
            SqsError::PurgeQueueInProgress(name) => {
                format!("Only one PurgeQueue operation on {name} is allowed every 60 seconds.")
            }
            SqsError::QueueDeletedRecently => {
                "You must wait 60 seconds after deleting a queue before you can create another with the same name."
                    .into()
            }
            SqsError::ResourceNotFoundException(m) => m.clone(),
            SqsError::Aws(e) => e.message.clone(),
        }
    }

    /// The error as a common error with its Query code.
    pub fn into_aws(self) -> AwsError {
        let (code, status) = match &self {
            SqsError::Aws(e) => return e.clone(),
            SqsError::InvalidAddress(_) => ("InvalidAddress", 404),
            SqsError::QueueDoesNotExist => ("AWS.SimpleQueueService.NonExistentQueue", 400),
            SqsError::QueueNameExists(_) => ("QueueAlreadyExists", 400),
            SqsError::InvalidAttributeName(_) => ("InvalidAttributeName", 400),
            SqsError::InvalidAttributeValue(_) => ("InvalidAttributeValue", 400),
            SqsError::ReceiptHandleIsInvalid(_) => ("ReceiptHandleIsInvalid", 404),
            SqsError::MessageNotInflight => ("AWS.SimpleQueueService.MessageNotInflight", 400),
            SqsError::InvalidMessageContents => ("InvalidMessageContents", 400),
            SqsError::EmptyBatchRequest(_) => ("AWS.SimpleQueueService.EmptyBatchRequest", 400),
            SqsError::TooManyEntriesInBatchRequest(_) => ("AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400),
            SqsError::BatchEntryIdsNotDistinct(_) => ("AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400),
            SqsError::InvalidBatchEntryId => ("AWS.SimpleQueueService.InvalidBatchEntryId", 400),
            SqsError::BatchRequestTooLong(_) => ("AWS.SimpleQueueService.BatchRequestTooLong", 400),
            SqsError::PurgeQueueInProgress(_) => ("AWS.SimpleQueueService.PurgeQueueInProgress", 403),
            SqsError::QueueDeletedRecently => ("AWS.SimpleQueueService.QueueDeletedRecently", 400),
            SqsError::ResourceNotFoundException(_) => ("ResourceNotFoundException", 404),
        };
        AwsError::new(code, self.message(), status)
    }
}

impl From<StorageError> for SqsError {
    fn from(e: StorageError) -> SqsError {
        SqsError::Aws(AwsError::internal(format!("queue store: {e}")))
    }
}

/// `impl From<SqsError> for OpError`: every refusal travels as a common error with its Query
/// code, which the generated code promotes to the operation's modelled error of that code
/// (`OperationError::promote`), so SDKs of both protocols raise the typed exception. The one
/// modelled error without a message member, which promotion leaves alone, is built here.
macro_rules! into_operation_error {
    ($($op:ident $({ $variant:ident })?)*) => {$(
        impl From<SqsError> for $op {
            fn from(e: SqsError) -> $op {
                match e {
                    $(SqsError::$variant => $op::$variant($variant {}),)?
                    other => $op::Aws(other.into_aws()),
                }
            }
        }
    )*};
}

into_operation_error! {
    CreateQueueError GetQueueUrlError ListQueuesError DeleteQueueError GetQueueAttributesError
    SetQueueAttributesError PurgeQueueError SendMessageError SendMessageBatchError ReceiveMessageError
    DeleteMessageError DeleteMessageBatchError ChangeMessageVisibilityError { MessageNotInflight }
    ChangeMessageVisibilityBatchError
    TagQueueError UntagQueueError ListQueueTagsError AddPermissionError RemovePermissionError
    ListDeadLetterSourceQueuesError StartMessageMoveTaskError CancelMessageMoveTaskError
    ListMessageMoveTasksError
}
