//! Condition and filter expressions: parsing, and evaluation against an item.
//!
//! Evaluation never fails: as in DynamoDB, comparing values of different types, or a
//! missing attribute, makes the comparison false (and `<>` true), and `size` of a value
//! without a size (a number, a boolean, null) makes any comparison with it false.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::ast::{Comparator, Expr, Func};
use super::document::get;
use super::error::{ExprError, ExpressionKind};
use super::parser::Parser;
use super::{check, Placeholders};
use crate::value::{compare, equal, numbers_equal, type_name};
use crate::{AttributeValue, Item};

/// A checked condition, filter or key condition, ready to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition<'a> {
    expr: Expr<'a>,
}

/// Parses and checks a `ConditionExpression` or `FilterExpression` (`kind` names it in
/// errors). Key conditions go through [`super::parse_key_condition`].
pub fn parse_condition<'a>(
    expression: &'a str,
    kind: ExpressionKind,
    placeholders: &mut Placeholders<'a>,
) -> Result<Condition<'a>, ExprError> {
    let expr = parse_tree(expression, kind, placeholders)?;
    Ok(Condition { expr })
}

/// The checked tree of a condition; shared with key conditions.
pub(crate) fn parse_tree<'a>(
    expression: &'a str,
    kind: ExpressionKind,
    placeholders: &mut Placeholders<'a>,
) -> Result<Expr<'a>, ExprError> {
    let mut parser = Parser::new(expression, kind, placeholders)?;
    let expr = parser.condition()?;
    parser.expect_end()?;
    let mut deferred = parser.deferred;
    check::in_condition(&expr, &mut deferred);
    deferred.into_result(kind)?;
    Ok(expr)
}

impl<'a> Condition<'a> {
    /// Whether `item` satisfies the condition; a missing item is an empty one.
    pub fn evaluate(&self, item: &Item) -> bool {
        evaluate(&self.expr, item)
    }

    /// The tree, for callers that look inside (such as query planning).
    pub fn expr(&self) -> &Expr<'a> {
        &self.expr
    }
}

pub(crate) fn evaluate(expr: &Expr<'_>, item: &Item) -> bool {
    match expr {
        Expr::And(pair) => evaluate(&pair[0], item) && evaluate(&pair[1], item),
        Expr::Or(pair) => evaluate(&pair[0], item) || evaluate(&pair[1], item),
        Expr::Not(inner) => !evaluate(inner, item),
        Expr::Compare(comparator, pair) => {
            let (left, right) = (operand(&pair[0], item), operand(&pair[1], item));
            match (left, right) {
                (Some(left), Some(right)) => compares(*comparator, &left, &right),
                _ => *comparator == Comparator::Ne,
            }
        }
        Expr::Between(operands) => {
            let [value, low, high] = operands.as_ref();
            match (operand(value, item), operand(low, item), operand(high, item)) {
                (Some(value), Some(low), Some(high)) => {
                    compare(&value, &low).is_some_and(Ordering::is_ge)
                        && compare(&value, &high).is_some_and(Ordering::is_le)
                }
                _ => false,
            }
        }
        Expr::In(left, list) => operand(left, item).is_some_and(|value| {
            list.iter()
                .any(|e| operand(e, item).is_some_and(|other| equal(&value, &other)))
        }),
        Expr::Call(func, args) => call(*func, args, item),
        Expr::Path(_) | Expr::Value(_) | Expr::Invalid | Expr::Arith(..) => false,
    }
}

fn compares(comparator: Comparator, left: &AttributeValue, right: &AttributeValue) -> bool {
    match comparator {
        Comparator::Eq => equal(left, right),
        Comparator::Ne => !equal(left, right),
        Comparator::Lt => compare(left, right).is_some_and(Ordering::is_lt),
        Comparator::Le => compare(left, right).is_some_and(Ordering::is_le),
        Comparator::Gt => compare(left, right).is_some_and(Ordering::is_gt),
        Comparator::Ge => compare(left, right).is_some_and(Ordering::is_ge),
    }
}

fn operand<'v>(expr: &'v Expr<'_>, item: &'v Item) -> Option<Cow<'v, AttributeValue>> {
    match expr {
        Expr::Path(path) => get(item, path).map(Cow::Borrowed),
        Expr::Value(value) => Some(Cow::Borrowed(*value)),
        Expr::Call(Func::Size, args) => {
            let size = size(operand(args.first()?, item)?.as_ref())?;
            Some(Cow::Owned(AttributeValue::N(size.to_string())))
        }
        _ => None,
    }
}

/// `size()`: UTF-8 bytes of a string (the Developer Guide gives string sizes in bytes),
/// bytes of a binary, members of a set, elements of a list or map.
fn size(value: &AttributeValue) -> Option<usize> {
    Some(match value {
        AttributeValue::S(text) => text.len(),
        AttributeValue::B(bytes) => bytes.len(),
        AttributeValue::Ss(set) | AttributeValue::Ns(set) => set.len(),
        AttributeValue::Bs(set) => set.len(),
        AttributeValue::L(list) => list.len(),
        AttributeValue::M(map) => map.len(),
        AttributeValue::N(_) | AttributeValue::Bool(_) | AttributeValue::Null(_) => return None,
    })
}

fn call(func: Func, args: &[Expr<'_>], item: &Item) -> bool {
    let path_exists = |arg: &Expr<'_>| matches!(arg, Expr::Path(path) if get(item, path).is_some());
    match (func, args) {
        (Func::AttributeExists, [arg]) => path_exists(arg),
        (Func::AttributeNotExists, [arg]) => !path_exists(arg),
        (Func::AttributeType, [value, wanted]) => match (operand(value, item), operand(wanted, item)) {
            (Some(value), Some(wanted)) => matches!(wanted.as_ref(), AttributeValue::S(t) if t == type_name(&value)),
            _ => false,
        },
        (Func::BeginsWith, [whole, prefix]) => match (operand(whole, item), operand(prefix, item)) {
            (Some(whole), Some(prefix)) => match (whole.as_ref(), prefix.as_ref()) {
                (AttributeValue::S(whole), AttributeValue::S(prefix)) => whole.starts_with(prefix.as_str()),
                (AttributeValue::B(whole), AttributeValue::B(prefix)) => whole.starts_with(prefix),
                _ => false,
            },
            _ => false,
        },
        (Func::Contains, [whole, part]) => match (operand(whole, item), operand(part, item)) {
            (Some(whole), Some(part)) => contains(&whole, &part),
            _ => false,
        },
        _ => false,
    }
}

/// `contains()`: a substring of a string, a member of a set of the same scalar type, an
/// element of a list.
fn contains(whole: &AttributeValue, part: &AttributeValue) -> bool {
    use AttributeValue as V;
    match (whole, part) {
        (V::S(text), V::S(needle)) => text.contains(needle.as_str()),
        (V::Ss(set), V::S(member)) => set.contains(member),
        (V::Bs(set), V::B(member)) => set.contains(member),
        (V::Ns(set), V::N(member)) => set.iter().any(|n| numbers_equal(n, member)),
        (V::L(list), _) => list.iter().any(|element| equal(element, part)),
        _ => false,
    }
}
