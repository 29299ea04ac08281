//! DynamoDB's refusals, in one enum that converts into every operation's generated error.
//!
//! Operations whose model lists an error get the modelled shape (so SDKs raise the typed
//! exception); the rest get the same code and message as a plain [`AwsError`].

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

/// AWS's message when a transaction fails, naming every action's reason code in order.
pub fn cancellation_message(reasons: &[CancellationReason]) -> String {
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
            DdbError::ConditionalCheckFailed(_) => "The conditional request failed".into(),
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

/// `impl From<DdbError> for OpError`: the listed variants become the operation's modelled
/// errors, the rest `Aws`.
macro_rules! into_operation_error {
    ($($op:ident { $($variant:ident => $shape:ident),* $(,)? })*) => {$(
        impl From<DdbError> for $op {
            fn from(e: DdbError) -> $op {
                let message = Some(e.message());
                match e {
                    $(DdbError::$variant(inner) => $op::$shape(into_operation_error!(@shape $shape, message, inner)),)*
                    other => $op::Aws(other.into_aws()),
                }
            }
        }
    )*};
    (@shape ConditionalCheckFailedException, $message:expr, $inner:expr) => {
        ConditionalCheckFailedException { message: $message, item: $inner }
    };
    (@shape TransactionCanceledException, $message:expr, $inner:expr) => {
        TransactionCanceledException { message: $message, cancellation_reasons: Some($inner) }
    };
    (@shape $shape:ident, $message:expr, $inner:expr) => {{
        let _ = $inner;
        $shape { message: $message }
    }};
}

into_operation_error! {
    CreateTableError { ResourceInUse => ResourceInUseException, LimitExceeded => LimitExceededException }
    DescribeTableError { ResourceNotFound => ResourceNotFoundException }
    DeleteTableError {
        ResourceNotFound => ResourceNotFoundException, ResourceInUse => ResourceInUseException,
        LimitExceeded => LimitExceededException,
    }
    UpdateTableError {
        ResourceNotFound => ResourceNotFoundException, ResourceInUse => ResourceInUseException,
        LimitExceeded => LimitExceededException,
    }
    TagResourceError {
        ResourceNotFound => ResourceNotFoundException, ResourceInUse => ResourceInUseException,
        LimitExceeded => LimitExceededException,
    }
    UntagResourceError {
        ResourceNotFound => ResourceNotFoundException, ResourceInUse => ResourceInUseException,
        LimitExceeded => LimitExceededException,
    }
    ListTagsOfResourceError { ResourceNotFound => ResourceNotFoundException }
    UpdateTimeToLiveError {
        ResourceNotFound => ResourceNotFoundException, ResourceInUse => ResourceInUseException,
        LimitExceeded => LimitExceededException,
    }
    DescribeTimeToLiveError { ResourceNotFound => ResourceNotFoundException }
    DescribeContinuousBackupsError { TableNotFound => TableNotFoundException }
    UpdateContinuousBackupsError { TableNotFound => TableNotFoundException }
    PutItemError {
        ResourceNotFound => ResourceNotFoundException, ConditionalCheckFailed => ConditionalCheckFailedException,
    }
    UpdateItemError {
        ResourceNotFound => ResourceNotFoundException, ConditionalCheckFailed => ConditionalCheckFailedException,
    }
    DeleteItemError {
        ResourceNotFound => ResourceNotFoundException, ConditionalCheckFailed => ConditionalCheckFailedException,
    }
    GetItemError { ResourceNotFound => ResourceNotFoundException }
    QueryError { ResourceNotFound => ResourceNotFoundException }
    ScanError { ResourceNotFound => ResourceNotFoundException }
    BatchGetItemError { ResourceNotFound => ResourceNotFoundException }
    BatchWriteItemError { ResourceNotFound => ResourceNotFoundException }
    TransactGetItemsError {
        ResourceNotFound => ResourceNotFoundException, TransactionCanceled => TransactionCanceledException,
    }
    TransactWriteItemsError {
        ResourceNotFound => ResourceNotFoundException, TransactionCanceled => TransactionCanceledException,
        IdempotentParameterMismatch => IdempotentParameterMismatchException,
    }
    ExecuteStatementError {
        ResourceNotFound => ResourceNotFoundException, ConditionalCheckFailed => ConditionalCheckFailedException,
        DuplicateItem => DuplicateItemException,
    }
    ExecuteTransactionError {
        ResourceNotFound => ResourceNotFoundException, TransactionCanceled => TransactionCanceledException,
        IdempotentParameterMismatch => IdempotentParameterMismatchException,
    }
    UpdateContributorInsightsError { ResourceNotFound => ResourceNotFoundException }
    DescribeContributorInsightsError { ResourceNotFound => ResourceNotFoundException }
    PutResourcePolicyError {
        ResourceNotFound => ResourceNotFoundException, PolicyNotFound => PolicyNotFoundException,
        ResourceInUse => ResourceInUseException, LimitExceeded => LimitExceededException,
    }
    GetResourcePolicyError { ResourceNotFound => ResourceNotFoundException, PolicyNotFound => PolicyNotFoundException }
    DeleteResourcePolicyError {
        ResourceNotFound => ResourceNotFoundException, PolicyNotFound => PolicyNotFoundException,
        ResourceInUse => ResourceInUseException, LimitExceeded => LimitExceededException,
    }
}

/// Errors of operations whose model lists no error DdbError maps to.
macro_rules! as_aws_error {
    ($($op:ident)*) => {$(
        impl From<DdbError> for $op {
            fn from(e: DdbError) -> $op {
                $op::Aws(e.into_aws())
            }
        }
    )*};
}

as_aws_error!(BatchExecuteStatementError ListContributorInsightsError);

impl From<DdbError> for DescribeKinesisStreamingDestinationError {
    fn from(e: DdbError) -> DescribeKinesisStreamingDestinationError {
        match e {
            DdbError::ResourceNotFound(message) => {
                DescribeKinesisStreamingDestinationError::ResourceNotFoundException(ResourceNotFoundException {
                    message: Some(message),
                })
            }
            other => DescribeKinesisStreamingDestinationError::Aws(other.into_aws()),
        }
    }
}

impl From<DdbError> for ListTablesError {
    fn from(e: DdbError) -> ListTablesError {
        ListTablesError::Aws(e.into_aws())
    }
}
