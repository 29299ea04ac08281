//! Expression errors. `Display` is AWS's ValidationException message, word for word; the
//! sources are dynalite's recordings of DynamoDB (mhart/dynalite test/scan.js, query.js,
//! updateItem.js) unless a variant says otherwise.

use std::fmt;

use crate::number::NumberError;
use crate::value::ValueError;

/// Which request parameter an expression came from; AWS names it in every message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpressionKind {
    Condition,
    Filter,
    KeyCondition,
    Projection,
    Update,
}

impl fmt::Display for ExpressionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExpressionKind::Condition => "ConditionExpression",
            ExpressionKind::Filter => "FilterExpression",
            ExpressionKind::KeyCondition => "KeyConditionExpression",
            ExpressionKind::Projection => "ProjectionExpression",
            ExpressionKind::Update => "UpdateExpression",
        })
    }
}

/// An expression or its placeholders refused before anything is evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    #[error("Invalid {0}: {1}")]
    Invalid(ExpressionKind, Reason),
    #[error("ExpressionAttributeNames must not be empty")]
    EmptyNames,
    #[error("ExpressionAttributeValues must not be empty")]
    EmptyValues,
    #[error("ExpressionAttributeNames contains invalid key: Syntax error; key: \"{0}\"")]
    InvalidNameKey(String),
    #[error("ExpressionAttributeValues contains invalid key: Syntax error; key: \"{0}\"")]
    InvalidValueKey(String),
    #[error("ExpressionAttributeValues contains invalid value: {1} for key {0}")]
    InvalidValue(String, ValueError),
    #[error("Value provided in ExpressionAttributeNames unused in expressions: keys: {{{0}}}")]
    UnusedNames(String),
    #[error("Value provided in ExpressionAttributeValues unused in expressions: keys: {{{0}}}")]
    UnusedValues(String),
    #[error("Invalid operator used in KeyConditionExpression: {0}")]
    KeyOperator(&'static str),
    #[error(
        "Invalid condition in KeyConditionExpression: {0} operator must have the key attribute as its first operand"
    )]
    KeyNotFirst(&'static str),
    #[error("KeyConditionExpressions cannot contain nested operations")]
    KeyNestedOperation,
    #[error("KeyConditionExpressions cannot have conditions on nested attributes")]
    KeyNestedAttribute,
    #[error("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")]
    KeyMultipleNames,
    #[error("Invalid condition in KeyConditionExpression: No key attribute specified")]
    KeyNoAttribute,
    #[error("KeyConditionExpressions must only contain one condition per key")]
    KeyRepeated,
    #[error("Query condition missed key schema element: {0}")]
    KeyMissing(String),
    #[error("Query key condition not supported")]
    KeyNotSupported,
    /// A multi-attribute sort key's conditions must be equalities on a leading run of its
    /// attributes, then at most one other condition (AWS's wording, probed 2026-10).
    #[error(
        "RANGE key attributes {prior} must have equality conditions specified in the query because a condition is present on key attribute {later}"
    )]
    KeySortGap { prior: String, later: String },
}

/// What is wrong inside an expression: the part after `Invalid <Kind>Expression: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    #[error("The expression can not be empty;")]
    Empty,
    // Wording and limit (4 KB) as AWS answers (a FilterExpression report of "expression size: 5872").
    #[error("Expression size has exceeded the maximum allowed size; expression size: {0}")]
    TooLong(usize),
    #[error("Syntax error; token: \"{token}\", near: \"{near}\"")]
    Syntax { token: String, near: String },
    #[error("The expression has redundant parentheses;")]
    RedundantParentheses,
    #[error("Invalid function name; function: {0}")]
    UnknownFunction(String),
    #[error("The function is not allowed to be used this way in an expression; function: {0}")]
    FunctionMisused(&'static str),
    // Wording as DynamoDB Local answers `SET a = size(b)`.
    #[error("The function is not allowed in an update expression; function: {0}")]
    FunctionNotInUpdate(&'static str),
    #[error("Attribute name is a reserved keyword; reserved keyword: {0}")]
    Reserved(String),
    #[error("The \"{0}\" section can only be used once in an update expression;")]
    RepeatedSection(&'static str),
    #[error("An expression attribute name used in the document path is not defined; attribute name: {0}")]
    UndefinedName(String),
    #[error("An expression attribute value used in expression is not defined; attribute value: {0}")]
    UndefinedValue(String),
    #[error(
        "Incorrect number of operands for operator or function; operator or function: {0}, number of operands: {1}"
    )]
    OperandCount(&'static str, usize),
    #[error("Incorrect operand type for operator or function; operator or function: {0}, operand type: {1}")]
    OperandType(&'static str, &'static str),
    #[error("Incorrect operand type for operator or function; operator: {0}, operand type: {1}")]
    ActionOperandType(&'static str, &'static str),
    #[error("Invalid attribute type name found; type: {0}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}")]
    TypeName(String),
    #[error("Operator or function requires a document path; operator or function: {0}")]
    PathRequired(&'static str),
    #[error(
        "The first operand must be distinct from the remaining operands for this operator or function; operator: {0}, first operand: {1}"
    )]
    NotDistinct(&'static str, String),
    #[error(
        "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: {0}, upper bound operand: {1}"
    )]
    BetweenTypes(String, String),
    #[error(
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: {0}, upper bound operand: {1}"
    )]
    BetweenOrder(String, String),
    // Wording from the AWS Developer Guide's limit on IN operands (100).
    #[error("The IN operator is provided with too many operands; number of operands: {0}")]
    TooManyInOperands(usize),
    #[error("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {0}, path two: {1}")]
    Overlap(String, String),
    #[error("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {0}, path two: {1}")]
    Conflict(String, String),
}

impl Reason {
    /// AWS reports one error per expression. Syntax errors stop parsing at once; the others
    /// are collected and the best-ranked is reported, the first found among equals. Reserved
    /// words and misused functions outrank everything found node by node (dynalite's tests
    /// pin the pairs: `attribute_exists(views, #undefined)` reports `views`).
    fn rank(&self) -> u8 {
        match self {
            Reason::Empty | Reason::TooLong(_) | Reason::Syntax { .. } | Reason::RedundantParentheses => 0,
            Reason::UnknownFunction(_) => 1,
            Reason::FunctionMisused(_) | Reason::FunctionNotInUpdate(_) => 2,
            Reason::Reserved(_) => 3,
            Reason::RepeatedSection(_) => 4,
            Reason::UndefinedName(_)
            | Reason::UndefinedValue(_)
            | Reason::OperandCount(..)
            | Reason::OperandType(..)
            | Reason::ActionOperandType(..)
            | Reason::TypeName(_)
            | Reason::PathRequired(_)
            | Reason::NotDistinct(..)
            | Reason::BetweenTypes(..)
            | Reason::BetweenOrder(..)
            | Reason::TooManyInOperands(_) => 5,
            Reason::Overlap(..) | Reason::Conflict(..) => 6,
        }
    }
}

/// The best-ranked problem found so far in one expression.
#[derive(Debug, Default)]
pub(crate) struct Deferred(Option<(u8, Reason)>);

const UPDATE_VALUE_RANK: u8 = 7;

impl Deferred {
    pub(crate) fn push(&mut self, reason: Reason) {
        let rank = reason.rank();
        self.push_ranked(rank, reason);
    }

    /// Records a problem in an update expression's values. AWS checks those after
    /// overlapping paths: `SET c[1].a = a, c = if_not_exists(a)` reports the overlap.
    pub(crate) fn push_update_value(&mut self, reason: Reason) {
        self.push_ranked(UPDATE_VALUE_RANK, reason);
    }

    fn push_ranked(&mut self, rank: u8, reason: Reason) {
        if self.0.as_ref().is_none_or(|(kept, _)| rank < *kept) {
            self.0 = Some((rank, reason));
        }
    }

    pub(crate) fn into_result(self, kind: ExpressionKind) -> Result<(), ExprError> {
        match self.0 {
            Some((_, reason)) => Err(ExprError::Invalid(kind, reason)),
            None => Ok(()),
        }
    }
}

/// Why applying an update expression to an item failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    #[error("The provided expression refers to an attribute that does not exist in the item")]
    MissingAttribute,
    #[error("The document path provided in the update expression is invalid for update")]
    InvalidPath,
    #[error("An operand in the update expression has an incorrect data type")]
    WrongType,
    #[error("{0}")]
    Number(#[from] NumberError),
}
