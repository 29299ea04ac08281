//! ACM's refusals, in AWS's words (from AWS's recorded answers where they exist, the API
//! reference otherwise). Each is an [`AwsError`] whose code and status are one of the model's
//! errors, which the generated `into_operation_error` promotes to that error, so SDKs raise
//! the typed exception.

use stratus_core::AwsError;
use stratus_gen_acm::*;
use stratus_storage::StorageError;

/// An ACM refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct AcmError(pub(crate) AwsError);

impl From<AwsError> for AcmError {
    fn from(e: AwsError) -> AcmError {
        AcmError(e)
    }
}

impl From<StorageError> for AcmError {
    fn from(e: StorageError) -> AcmError {
        AcmError(AwsError::new("InternalFailure", format!("certificate store: {e}"), 500))
    }
}

fn error(code: &str, message: impl Into<String>) -> AcmError {
    AcmError(AwsError::new(code, message, 400))
}

pub(crate) fn validation(message: impl Into<String>) -> AcmError {
    error("ValidationException", message)
}

pub(crate) fn invalid_parameter(message: impl Into<String>) -> AcmError {
    error("InvalidParameterException", message)
}

pub(crate) fn invalid_state(message: impl Into<String>) -> AcmError {
    error("InvalidStateException", message)
}

pub(crate) fn invalid_arn(arn: &str) -> AcmError {
    error("InvalidArnException", format!("String '{arn}' is not a valid ARN."))
}

pub(crate) fn not_found(arn: &str) -> AcmError {
    error(
        "ResourceNotFoundException",
        format!("Could not find certificate {arn}."),
    )
}

/// GetCertificate and ExportCertificate before the certificate is issued.
pub(crate) fn in_progress(arn: &str) -> AcmError {
    error(
        "RequestInProgressException",
        format!("Certificate {arn} is not yet issued."),
    )
}

pub(crate) fn invalid_tag(message: impl Into<String>) -> AcmError {
    error("InvalidTagException", message)
}

pub(crate) fn too_many_tags(arn: &str) -> AcmError {
    error(
        "TooManyTagsException",
        format!("the TagSet: for resource {arn} contains more than the maximum of 50 tags."),
    )
}

pub(crate) fn internal(message: impl Into<String>) -> AcmError {
    AcmError(AwsError::new("InternalFailure", message, 500))
}

/// `impl From<AcmError> for OpError` for every operation's error enum.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<AcmError> for $op {
            fn from(e: AcmError) -> $op {
                $op::from(e.0)
            }
        }
    )*};
}

into_operation_error! {
    AddTagsToCertificateError DeleteCertificateError DescribeCertificateError
    ExportCertificateError GetAccountConfigurationError GetCertificateError
    ImportCertificateError ListCertificatesError ListTagsForCertificateError
    PutAccountConfigurationError RemoveTagsFromCertificateError RenewCertificateError
    RequestCertificateError ResendValidationEmailError RevokeCertificateError
    UpdateCertificateOptionsError
}
