//! DynamoDB's refusals, in one enum that converts into every operation's generated error.
//!
//! Operations whose model lists an error answer with the modelled shape (so SDKs raise the
//! typed exception): the generated code promotes a plain [`AwsError`] of the error's code to
//! it, and the two refusals that carry more than a message are built here.

use stratus_core::AwsError;
use stratus_gen_dynamodb::*;
use stratus_storage::StorageError;

use crate::Item;

/// Everything a DynamoDB operation can refuse with.
#[derive(Debug)]
pub enum DdbError {
    /// `ValidationException` with AWS's message.
    Validation(String),
    ResourceNotFound(String),
    /// The backup operations' not-found error.
    TableNotFound(String),
    ResourceInUse(String),
    LimitExceeded(String),
    /// The condition failed; the item is reported when the request asked for `ALL_OLD`.
    ConditionalCheckFailed(Option<Item>),
    /// A PartiQL INSERT of a key that exists.
    DuplicateItem(String),
    PolicyNotFound(String),
    TransactionCanceled(Vec<CancellationReason>),
    IdempotentParameterMismatch(String),
    /// A request Stratus cannot serve (`NotImplemented`, 501), with the reason.
    NotImplemented(String),
    Internal(String),
}

const CONDITION_FAILED: &str = "The conditional request failed";

/// AWS's message when a transaction fails, naming every action's reason code in order.
pub(crate) fn cancellation_message(reasons: &[CancellationReason]) -> String {
    let codes: Vec<&str> = reasons.iter().map(|r| r.code.as_deref().unwrap_or("None")).collect();
    format!(
        "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
        codes.join(", ")
    )
}

impl DdbError {
    pub fn validation(message: impl Into<String>) -> DdbError {
        DdbError::Validation(message.into())
    }

    /// A `ValidationException` in AWS's "One or more parameter values were invalid" form.
    pub fn invalid(detail: impl std::fmt::Display) -> DdbError {
        DdbError::Validation(format!("One or more parameter values were invalid: {detail}"))
    }

    /// The table-level not-found message (DescribeTable, DeleteTable, UpdateTable).
    pub fn table_not_found(name: &str) -> DdbError {
        DdbError::ResourceNotFound(format!("Requested resource not found: Table: {name} not found"))
    }

    /// The item-level not-found message (PutItem, Query, …).
    pub fn resource_not_found() -> DdbError {
        DdbError::ResourceNotFound("Requested resource not found".into())
    }

    pub(crate) fn message(&self) -> String {
        match self {
            DdbError::Validation(m)
            | DdbError::ResourceNotFound(m)
            | DdbError::TableNotFound(m)
            | DdbError::ResourceInUse(m)
            | DdbError::LimitExceeded(m)
            | DdbError::IdempotentParameterMismatch(m)
            | DdbError::DuplicateItem(m)
            | DdbError::PolicyNotFound(m)
            | DdbError::NotImplemented(m)
            | DdbError::Internal(m) => m.clone(),
            DdbError::ConditionalCheckFailed(_) => CONDITION_FAILED.into(),
            DdbError::TransactionCanceled(reasons) => cancellation_message(reasons),
        }
    }

    /// The error as a common error, for operations that do not model it.
    pub fn into_aws(self) -> AwsError {
        let code = match &self {
            DdbError::Internal(m) => return AwsError::internal(m.clone()),
            DdbError::NotImplemented(m) => return AwsError::new("NotImplemented", m.clone(), 501),
            DdbError::Validation(_) => "ValidationException",
            DdbError::ResourceNotFound(_) => "ResourceNotFoundException",
            DdbError::TableNotFound(_) => "TableNotFoundException",
            DdbError::ResourceInUse(_) => "ResourceInUseException",
            DdbError::LimitExceeded(_) => "LimitExceededException",
            DdbError::ConditionalCheckFailed(_) => "ConditionalCheckFailedException",
            DdbError::DuplicateItem(_) => "DuplicateItemException",
            DdbError::PolicyNotFound(_) => "PolicyNotFoundException",
            DdbError::TransactionCanceled(_) => "TransactionCanceledException",
            DdbError::IdempotentParameterMismatch(_) => "IdempotentParameterMismatchException",
        };
        AwsError::new(code, self.message(), 400)
    }
}

impl From<StorageError> for DdbError {
    fn from(e: StorageError) -> DdbError {
        DdbError::Internal(format!("table store: {e}"))
    }
}

impl From<crate::expr::ExprError> for DdbError {
    fn from(e: crate::expr::ExprError) -> DdbError {
        DdbError::Validation(e.to_string())
    }
}

impl From<crate::value::ValueError> for DdbError {
    fn from(e: crate::value::ValueError) -> DdbError {
        DdbError::Validation(e.to_string())
    }
}

impl From<crate::size::SizeError> for DdbError {
    fn from(e: crate::size::SizeError) -> DdbError {
        DdbError::Validation(e.to_string())
    }
}

impl From<crate::codec::CodecError> for DdbError {
    fn from(e: crate::codec::CodecError) -> DdbError {
        DdbError::Internal(format!("corrupt item: {e}"))
    }
}

/// `impl From<DdbError> for OpError`. A refusal that is only a code and a message travels as a
/// common error, which the generated code promotes to the operation's modelled error of that
/// code (`OperationError::promote`); the two that carry more than a message become their
/// modelled error here, on the operations that model them.
macro_rules! into_operation_error {
    ($($op:ident $({ $($variant:ident => $shape:ident),* $(,)? })?)*) => {$(
        impl From<DdbError> for $op {
            fn from(e: DdbError) -> $op {
                match e {
                    $($(DdbError::$variant(inner) => $op::$shape(into_operation_error!(@shape $shape, inner)),)*)?
                    other => $op::Aws(other.into_aws()),
                }
            }
        }
    )*};
    (@shape ConditionalCheckFailedException, $item:expr) => {
        ConditionalCheckFailedException { message: Some(CONDITION_FAILED.into()), item: $item }
    };
    (@shape TransactionCanceledException, $reasons:expr) => {{
        let reasons = $reasons;
        TransactionCanceledException { message: Some(cancellation_message(&reasons)), cancellation_reasons: Some(reasons) }
    }};
}

into_operation_error! {
    CreateTableError DescribeTableError DeleteTableError UpdateTableError ListTablesError
    TagResourceError UntagResourceError ListTagsOfResourceError
    UpdateTimeToLiveError DescribeTimeToLiveError DescribeContinuousBackupsError UpdateContinuousBackupsError
    GetItemError QueryError ScanError BatchGetItemError BatchWriteItemError BatchExecuteStatementError
    UpdateContributorInsightsError DescribeContributorInsightsError ListContributorInsightsError
    PutResourcePolicyError GetResourcePolicyError DeleteResourcePolicyError
    DescribeKinesisStreamingDestinationError EnableKinesisStreamingDestinationError
    DisableKinesisStreamingDestinationError UpdateKinesisStreamingDestinationError
    PutItemError { ConditionalCheckFailed => ConditionalCheckFailedException }
    UpdateItemError { ConditionalCheckFailed => ConditionalCheckFailedException }
    DeleteItemError { ConditionalCheckFailed => ConditionalCheckFailedException }
    ExecuteStatementError { ConditionalCheckFailed => ConditionalCheckFailedException }
    TransactGetItemsError { TransactionCanceled => TransactionCanceledException }
    TransactWriteItemsError { TransactionCanceled => TransactionCanceledException }
    ExecuteTransactionError { TransactionCanceled => TransactionCanceledException }
}
