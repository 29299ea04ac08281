//! SNS's refusals, in AWS's words (from AWS's recorded answers). Each is an [`AwsError`] whose
//! Query code and status are one of the model's errors, which the generated
//! `into_operation_error` promotes to that error.

use stratus_core::AwsError;
use stratus_gen_sns::*;
use stratus_storage::StorageError;

/// An SNS refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct SnsError(pub(crate) AwsError);

impl From<AwsError> for SnsError {
    fn from(e: AwsError) -> SnsError {
        SnsError(e)
    }
}

impl From<StorageError> for SnsError {
    fn from(e: StorageError) -> SnsError {
        SnsError(AwsError::new("InternalError", format!("topic store: {e}"), 500))
    }
}

/// `InvalidParameter`, worded as SNS words it: `Invalid parameter: <what>`.
pub(crate) fn invalid_parameter(what: impl std::fmt::Display) -> SnsError {
    SnsError(AwsError::new(
        "InvalidParameter",
        format!("Invalid parameter: {what}"),
        400,
    ))
}

/// `InvalidParameter` with the message as given (a few of SNS's carry no prefix).
pub(crate) fn invalid_parameter_raw(message: impl Into<String>) -> SnsError {
    SnsError(AwsError::new("InvalidParameter", message, 400))
}

/// `ParameterValueInvalid`: the refusals of message attributes.
pub(crate) fn parameter_value_invalid(message: impl Into<String>) -> SnsError {
    SnsError(AwsError::new("ParameterValueInvalid", message, 400))
}

pub(crate) fn not_found(message: impl Into<String>) -> SnsError {
    SnsError(AwsError::new("NotFound", message, 404))
}

pub(crate) fn topic_not_found() -> SnsError {
    not_found("Topic does not exist")
}

pub(crate) fn subscription_not_found() -> SnsError {
    not_found("Subscription does not exist")
}

/// `ResourceNotFound`, which the tagging and data protection operations answer.
pub(crate) fn resource_not_found() -> SnsError {
    SnsError(AwsError::new("ResourceNotFound", "Resource does not exist", 404))
}

/// A batch-level refusal of PublishBatch, with its own code.
pub(crate) fn batch(code: &str, message: impl Into<String>) -> SnsError {
    SnsError(AwsError::new(code, message, 400))
}

/// `An ARN must have at least 6 elements, not N`: SNS's refusal of a malformed ARN parameter.
pub(crate) fn malformed_arn(parameter: &str, arn: &str) -> SnsError {
    invalid_parameter(format!(
        "{parameter} Reason: An ARN must have at least 6 elements, not {}",
        arn.split(':').count()
    ))
}

/// `impl From<SnsError> for OpError` for every operation's error enum.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<SnsError> for $op {
            fn from(e: SnsError) -> $op {
                $op::from(e.0)
            }
        }
    )*};
}

into_operation_error! {
    AddPermissionError CheckIfPhoneNumberIsOptedOutError ConfirmSubscriptionError
    CreatePlatformApplicationError CreatePlatformEndpointError CreateSMSSandboxPhoneNumberError
    CreateTopicError DeleteEndpointError DeletePlatformApplicationError DeleteSMSSandboxPhoneNumberError
    DeleteTopicError GetDataProtectionPolicyError GetEndpointAttributesError
    GetPlatformApplicationAttributesError GetSMSAttributesError GetSMSSandboxAccountStatusError
    GetSubscriptionAttributesError GetTopicAttributesError ListEndpointsByPlatformApplicationError
    ListOriginationNumbersError ListPhoneNumbersOptedOutError ListPlatformApplicationsError
    ListSMSSandboxPhoneNumbersError ListSubscriptionsError ListSubscriptionsByTopicError
    ListTagsForResourceError ListTopicsError OptInPhoneNumberError PublishError PublishBatchError
    PutDataProtectionPolicyError RemovePermissionError SetEndpointAttributesError
    SetPlatformApplicationAttributesError SetSMSAttributesError SetSubscriptionAttributesError
    SetTopicAttributesError SubscribeError TagResourceError UnsubscribeError UntagResourceError
    VerifySMSSandboxPhoneNumberError
}
