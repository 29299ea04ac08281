//! SSM's refusals, in AWS's words. Each is an [`AwsError`] whose code and status are one of
//! the model's errors, which the generated `into_operation_error` promotes to that error.

use stratus_core::AwsError;
use stratus_gen_ssm::{
    AddTagsToResourceError, CreateDocumentError, DeleteDocumentError, DeleteParameterError, DeleteParametersError,
    DescribeDocumentError, DescribeDocumentPermissionError, DescribeMaintenanceWindowsError, DescribeParametersError,
    GetDocumentError, GetMaintenanceWindowError, GetParameterError, GetParameterHistoryError, GetParametersByPathError,
    GetParametersError, GetServiceSettingError, LabelParameterVersionError, ListDocumentVersionsError,
    ListDocumentsError, ListTagsForResourceError, ModifyDocumentPermissionError, PutParameterError,
    RemoveTagsFromResourceError, ResetServiceSettingError, UnlabelParameterVersionError,
    UpdateDocumentDefaultVersionError, UpdateDocumentError, UpdateServiceSettingError,
};
use stratus_storage::StorageError;

/// An SSM refusal, or a storage fault met on the way (an internal error).
#[derive(Debug)]
pub(crate) struct SsmError(pub(crate) AwsError);

impl From<AwsError> for SsmError {
    fn from(e: AwsError) -> SsmError {
        SsmError(e)
    }
}

impl From<StorageError> for SsmError {
    fn from(e: StorageError) -> SsmError {
        SsmError(AwsError::new(
            "InternalServerError",
            format!("parameter store: {e}"),
            500,
        ))
    }
}

/// A refusal with `code` (status 400, as SSM answers every client error).
pub(crate) fn refuse(code: &str, message: impl Into<String>) -> SsmError {
    SsmError(AwsError::new(code, message, 400))
}

pub(crate) fn validation(message: impl Into<String>) -> SsmError {
    refuse("ValidationException", message)
}

/// AWS's answer to a parameter name of no valid form (recorded: `a/b/c`, `/a//b`).
pub(crate) const INVALID_NAME: &str = "Parameter name: can't be prefixed with \"ssm\" (case-insensitive). If formed \
     as a path, it can consist of sub-paths divided by slash symbol; each sub-path can be formed as a mix of letters, \
     numbers and the following 3 symbols .-_";

pub(crate) fn invalid_name() -> SsmError {
    validation(INVALID_NAME)
}

/// `ParameterNotFound`, which GetParameter and DeleteParameter answer with no message.
pub(crate) fn parameter_not_found() -> SsmError {
    refuse("ParameterNotFound", "")
}

pub(crate) fn version_not_found(name: &str, version: impl std::fmt::Display) -> SsmError {
    refuse(
        "ParameterVersionNotFound",
        format!("Systems Manager could not find version {version} of {name}. Verify the version and try again."),
    )
}

/// A `NextToken` this listing did not issue.
pub(crate) fn invalid_token() -> SsmError {
    refuse("InvalidNextToken", "The specified token isn't valid.")
}

/// `impl From<SsmError> for OpError` for every implemented operation's error enum.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<SsmError> for $op {
            fn from(e: SsmError) -> $op {
                $op::from(e.0)
            }
        }
    )*};
}

into_operation_error! {
    AddTagsToResourceError CreateDocumentError DeleteDocumentError DeleteParameterError DeleteParametersError
    DescribeDocumentError DescribeDocumentPermissionError DescribeMaintenanceWindowsError DescribeParametersError
    GetDocumentError GetMaintenanceWindowError GetParameterError GetParameterHistoryError GetParametersByPathError
    GetParametersError GetServiceSettingError LabelParameterVersionError ListDocumentVersionsError ListDocumentsError
    ListTagsForResourceError ModifyDocumentPermissionError PutParameterError RemoveTagsFromResourceError
    ResetServiceSettingError UnlabelParameterVersionError UpdateDocumentDefaultVersionError UpdateDocumentError
    UpdateServiceSettingError
}
