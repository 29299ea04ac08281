//! PartiQL for DynamoDB: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
//!
//! [`lexer`] and [`parser`] read a statement (`SELECT`, `INSERT`, `UPDATE`, `DELETE`) into a
//! small tree, with `?` parameters already replaced by the request's values; `exec`
//! translates its `WHERE` clause, `SET`/`REMOVE` changes and projection into DynamoDB's own
//! condition, update and projection expressions (with generated `#n`/`:v` placeholders), so
//! PartiQL is evaluated exactly as the expression APIs evaluate, and runs it through the same
//! scan and write paths as Query, Scan, PutItem, UpdateItem, DeleteItem and
//! TransactWriteItems — indexes, statistics and streams follow every change.

mod exec;
pub mod lexer;
pub mod parser;

pub use exec::{batch_execute_statement, execute_statement, execute_transaction};

/// A statement's refusal, always a ValidationException.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartiqlError {
    #[error("{0}")]
    Validation(String),
}

/// AWS's syntax error: `Statement wasn't well formed, can't be processed: <detail>`.
pub fn malformed(detail: impl std::fmt::Display) -> PartiqlError {
    PartiqlError::Validation(format!("Statement wasn't well formed, can't be processed: {detail}"))
}

impl From<PartiqlError> for crate::error::DdbError {
    fn from(e: PartiqlError) -> crate::error::DdbError {
        match e {
            PartiqlError::Validation(message) => crate::error::DdbError::Validation(message),
        }
    }
}
