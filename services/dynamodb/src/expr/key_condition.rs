//! Key condition expressions: `pk = :v`, optionally `AND` one condition on the sort key
//! (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `begins_with`), checked against the key schema.
//! A global index with a multi-attribute key takes an equality on each partition attribute
//! and conditions on a leading run of its sort attributes: equalities, the last one perhaps
//! another condition.
//!
//! The checks run in the order DynamoDB applies them (dynalite test/query.js): invalid
//! operators anywhere, then a value as first operand, nested operations, nested attributes,
//! several attributes in one condition, no attribute, a key named twice, and last the key
//! schema. Whether the values' types match the key attributes' is the caller's check.

use std::cmp::Ordering;

use super::ast::{Comparator, Element, Expr, Func, Path};
use super::condition::parse_tree;
use super::error::{ExprError, ExpressionKind};
use super::Placeholders;
use crate::value::compare;
use crate::AttributeValue;

/// A query's key condition: the partition key attributes' values in key schema order, and
/// perhaps a condition on the sort key. With a multi-attribute sort key, the condition is on
/// the attribute after `sort_prefix`, the values the leading sort attributes equal.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCondition<'a> {
    pub partition: Vec<&'a AttributeValue>,
    pub sort_prefix: Vec<&'a AttributeValue>,
    pub sort: Option<SortCondition<'a>>,
}

/// The condition on the sort key.
#[derive(Debug, Clone, PartialEq)]
pub enum SortCondition<'a> {
    Eq(&'a AttributeValue),
    Lt(&'a AttributeValue),
    Le(&'a AttributeValue),
    Gt(&'a AttributeValue),
    Ge(&'a AttributeValue),
    Between(&'a AttributeValue, &'a AttributeValue),
    BeginsWith(&'a AttributeValue),
}

impl SortCondition<'_> {
    /// Whether a sort key value satisfies the condition.
    pub fn matches(&self, value: &AttributeValue) -> bool {
        let against = |bound: &AttributeValue, accept: fn(Ordering) -> bool| compare(value, bound).is_some_and(accept);
        match self {
            SortCondition::Eq(bound) => against(bound, Ordering::is_eq),
            SortCondition::Lt(bound) => against(bound, Ordering::is_lt),
            SortCondition::Le(bound) => against(bound, Ordering::is_le),
            SortCondition::Gt(bound) => against(bound, Ordering::is_gt),
            SortCondition::Ge(bound) => against(bound, Ordering::is_ge),
            SortCondition::Between(low, high) => against(low, Ordering::is_ge) && against(high, Ordering::is_le),
            SortCondition::BeginsWith(prefix) => match (value, prefix) {
                (AttributeValue::S(value), AttributeValue::S(prefix)) => value.starts_with(prefix.as_str()),
                (AttributeValue::B(value), AttributeValue::B(prefix)) => value.starts_with(prefix),
                _ => false,
            },
        }
    }
}

/// Parses a `KeyConditionExpression` for a table (or index) whose partition key attributes
/// are `partition_keys` and sort key attributes `sort_keys`, in key schema order.
pub fn parse_key_condition<'a>(
    expression: &'a str,
    placeholders: &mut Placeholders<'a>,
    partition_keys: &[&str],
    sort_keys: &[&str],
) -> Result<KeyCondition<'a>, ExprError> {
    let expr = parse_tree(expression, ExpressionKind::KeyCondition, placeholders)?;
    invalid_operators(&expr)?;
    let mut conjuncts = Vec::new();
    flatten(&expr, &mut conjuncts);
    for conjunct in &conjuncts {
        match conjunct {
            Expr::Between(operands) if !matches!(operands[0], Expr::Path(_)) => {
                return Err(ExprError::KeyNotFirst("BETWEEN"))
            }
            Expr::Call(Func::BeginsWith, args) if !matches!(args[0], Expr::Path(_)) => {
                return Err(ExprError::KeyNotFirst("begins_with"))
            }
            _ => {}
        }
    }
    if conjuncts
        .iter()
        .any(|c| operands(c).iter().any(|o| matches!(o, Expr::Call(..))))
    {
        return Err(ExprError::KeyNestedOperation);
    }
    let mut terms: Vec<(&'a str, SortCondition<'a>)> = Vec::new();
    for conjunct in &conjuncts {
        let (name, condition) = term(conjunct)?;
        if terms.iter().any(|(seen, _)| *seen == name) {
            return Err(ExprError::KeyRepeated);
        }
        terms.push((name, condition));
    }
    let mut partition = vec![None; partition_keys.len()];
    let mut sort = vec![None; sort_keys.len()];
    for (name, condition) in terms {
        if let Some(at) = partition_keys.iter().position(|k| *k == name) {
            let SortCondition::Eq(value) = condition else {
                return Err(ExprError::KeyNotSupported);
            };
            partition[at] = Some(value);
        } else if let Some(at) = sort_keys.iter().position(|k| *k == name) {
            sort[at] = Some(condition);
        } else {
            return Err(ExprError::KeyNotSupported);
        }
    }
    let partition = partition
        .into_iter()
        .zip(partition_keys)
        .map(|(value, name)| value.ok_or_else(|| ExprError::KeyMissing((*name).to_owned())))
        .collect::<Result<_, _>>()?;
    let used = sort.iter().rposition(Option::is_some).map_or(0, |last| last + 1);
    let unequal: Vec<&str> = sort[..used.saturating_sub(1)]
        .iter()
        .zip(sort_keys)
        .filter(|(condition, _)| !matches!(condition, Some(SortCondition::Eq(_))))
        .map(|(_, name)| *name)
        .collect();
    if !unequal.is_empty() {
        return Err(ExprError::KeySortGap {
            prior: unequal.join(", "),
            later: sort_keys[used - 1].to_owned(),
        });
    }
    let mut sort_prefix = Vec::with_capacity(used);
    let mut last = None;
    for condition in sort.into_iter().take(used).flatten() {
        if let Some(SortCondition::Eq(value)) = last.replace(condition) {
            sort_prefix.push(value);
        }
    }
    Ok(KeyCondition {
        partition,
        sort_prefix,
        sort: last,
    })
}

/// The first operator a key condition may not use, in written order.
fn invalid_operators(expr: &Expr<'_>) -> Result<(), ExprError> {
    let operator = match expr {
        Expr::And(pair) => return pair.iter().try_for_each(invalid_operators),
        Expr::Or(_) => "OR",
        Expr::Not(_) => "NOT",
        Expr::In(..) => "IN",
        Expr::Compare(Comparator::Ne, _) => "<>",
        Expr::Call(func, _) if *func != Func::BeginsWith => func.name(),
        _ => return Ok(()),
    };
    Err(ExprError::KeyOperator(operator))
}

fn flatten<'e, 'a>(expr: &'e Expr<'a>, out: &mut Vec<&'e Expr<'a>>) {
    match expr {
        Expr::And(pair) => pair.iter().for_each(|e| flatten(e, out)),
        other => out.push(other),
    }
}

fn operands<'e, 'a>(expr: &'e Expr<'a>) -> &'e [Expr<'a>] {
    match expr {
        Expr::Compare(_, pair) => pair.as_slice(),
        Expr::Between(operands) => operands.as_slice(),
        Expr::Call(_, args) => args,
        _ => &[],
    }
}

/// The key attribute a condition constrains, and how.
fn term<'a>(conjunct: &Expr<'a>) -> Result<(&'a str, SortCondition<'a>), ExprError> {
    let ops = operands(conjunct);
    let key_at = ops
        .iter()
        .position(|o| matches!(o, Expr::Path(_)))
        .ok_or(ExprError::KeyNoAttribute)?;
    let Expr::Path(path) = &ops[key_at] else {
        return Err(ExprError::KeyNoAttribute);
    };
    let name = top_level_name(path).ok_or(ExprError::KeyNestedAttribute)?;
    let values = ops
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != key_at)
        .map(|(_, o)| match o {
            Expr::Value(value) => Ok(*value),
            _ => Err(ExprError::KeyMultipleNames),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let condition = match (conjunct, values.as_slice()) {
        (Expr::Compare(comparator, _), [value]) => {
            // `:v < sk` means `sk > :v`.
            let comparator = if key_at == 0 { *comparator } else { mirror(*comparator) };
            match comparator {
                Comparator::Eq => SortCondition::Eq(value),
                Comparator::Lt => SortCondition::Lt(value),
                Comparator::Le => SortCondition::Le(value),
                Comparator::Gt => SortCondition::Gt(value),
                Comparator::Ge => SortCondition::Ge(value),
                Comparator::Ne => return Err(ExprError::KeyOperator("<>")),
            }
        }
        (Expr::Between(_), [low, high]) => SortCondition::Between(low, high),
        (Expr::Call(Func::BeginsWith, _), [prefix]) => SortCondition::BeginsWith(prefix),
        _ => return Err(ExprError::KeyNotSupported),
    };
    Ok((name, condition))
}

fn top_level_name<'a>(path: &Path<'a>) -> Option<&'a str> {
    match path.0.as_slice() {
        [Element::Name(name)] => Some(name),
        _ => None,
    }
}

fn mirror(comparator: Comparator) -> Comparator {
    match comparator {
        Comparator::Lt => Comparator::Gt,
        Comparator::Le => Comparator::Ge,
        Comparator::Gt => Comparator::Lt,
        Comparator::Ge => Comparator::Le,
        other => other,
    }
}
