//! Update expressions: `SET`, `REMOVE`, `ADD` and `DELETE` clauses, each at most once, and
//! their application to an item.
//!
//! Applying reads every operand from the item as it was before the update, then sets,
//! removes (list elements from the highest index down, so indexes mean what they meant in
//! the original item), adds and deletes. Protecting key attributes is the caller's job; it
//! knows the key schema.

use std::collections::BTreeMap;

use super::ast::{ArithOp, Element, Expr, Func, Path};
use super::check::overlapping_paths;
use super::document::{get, parent_mut, Parent};
use super::error::{ExprError, ExpressionKind, Reason, UpdateError};
use super::parser::{Parser, RawAction};
use super::Placeholders;
use crate::number::Number;
use crate::value::{long_type_name, numbers_equal};
use crate::{AttributeValue, Item};

/// A checked update expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Update<'a> {
    actions: Vec<Action<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action<'a> {
    /// `SET path = value`, the value an operand, `a + b`, `a - b`, `if_not_exists` or
    /// `list_append`.
    Set(Path<'a>, Expr<'a>),
    Remove(Path<'a>),
    /// `ADD path :v`: a number to add or set members to add.
    Add(Path<'a>, &'a AttributeValue),
    /// `DELETE path :v`: set members to remove.
    Delete(Path<'a>, &'a AttributeValue),
}

impl<'a> Action<'a> {
    /// The document path the action writes.
    pub fn path(&self) -> &Path<'a> {
        match self {
            Action::Set(path, _) | Action::Remove(path) | Action::Add(path, _) | Action::Delete(path, _) => path,
        }
    }
}

pub fn parse_update<'a>(expression: &'a str, placeholders: &mut Placeholders<'a>) -> Result<Update<'a>, ExprError> {
    let kind = ExpressionKind::Update;
    let mut parser = Parser::new(expression, kind, placeholders)?;
    let raw = parser.update()?;
    let mut deferred = parser.deferred;
    let mut actions = Vec::with_capacity(raw.len());
    for action in raw {
        match action {
            RawAction::Set(path, value) => actions.push(Action::Set(path, value)),
            RawAction::Remove(path) => actions.push(Action::Remove(path)),
            RawAction::Add(path, Expr::Value(value)) => {
                if !matches!(
                    value,
                    AttributeValue::N(_) | AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
                ) {
                    deferred.push(Reason::ActionOperandType("ADD", long_type_name(value)));
                }
                actions.push(Action::Add(path, value));
            }
            RawAction::Delete(path, Expr::Value(value)) => {
                if !matches!(
                    value,
                    AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
                ) {
                    deferred.push(Reason::ActionOperandType("DELETE", long_type_name(value)));
                }
                actions.push(Action::Delete(path, value));
            }
            // An undefined value: its error is already recorded.
            RawAction::Add(..) | RawAction::Delete(..) => {}
        }
    }
    overlapping_paths(&actions.iter().map(Action::path).collect::<Vec<_>>(), &mut deferred);
    deferred.into_result(kind)?;
    Ok(Update { actions })
}

impl<'a> Update<'a> {
    pub fn actions(&self) -> &[Action<'a>] {
        &self.actions
    }

    /// The item after the update; `item` is empty when the update creates the item.
    pub fn apply(&self, item: &Item) -> Result<Item, UpdateError> {
        let sets = self
            .actions
            .iter()
            .filter_map(|action| match action {
                Action::Set(path, value) => Some((path, value)),
                _ => None,
            })
            .map(|(path, value)| Ok((path, evaluate(value, item)?)))
            .collect::<Result<Vec<_>, UpdateError>>()?;
        let mut out = item.clone();
        for (path, value) in sets {
            slot(&mut out, path)?.put(value);
        }
        let mut removals: Vec<&Path<'a>> = self
            .actions
            .iter()
            .filter_map(|action| match action {
                Action::Remove(path) => Some(path),
                _ => None,
            })
            .collect();
        removals.sort_unstable_by(|a, b| b.cmp(a));
        for path in removals {
            slot(&mut out, path)?.take();
        }
        for action in &self.actions {
            match action {
                Action::Add(path, value) => add(slot(&mut out, path)?, value)?,
                Action::Delete(path, value) => delete(slot(&mut out, path)?, value)?,
                _ => {}
            }
        }
        Ok(out)
    }
}

fn evaluate(expr: &Expr<'_>, item: &Item) -> Result<AttributeValue, UpdateError> {
    match expr {
        Expr::Path(path) => get(item, path).cloned().ok_or(UpdateError::MissingAttribute),
        Expr::Value(value) => Ok((*value).clone()),
        Expr::Call(Func::IfNotExists, args) => match args.as_slice() {
            [Expr::Path(path), fallback] => match get(item, path) {
                Some(value) => Ok(value.clone()),
                None => evaluate(fallback, item),
            },
            _ => Err(UpdateError::WrongType),
        },
        Expr::Call(Func::ListAppend, args) => match args.as_slice() {
            [first, second] => match (evaluate(first, item)?, evaluate(second, item)?) {
                (AttributeValue::L(mut first), AttributeValue::L(second)) => {
                    first.extend(second);
                    Ok(AttributeValue::L(first))
                }
                _ => Err(UpdateError::WrongType),
            },
            _ => Err(UpdateError::WrongType),
        },
        Expr::Arith(op, pair) => {
            let (left, right) = (evaluate(&pair[0], item)?, evaluate(&pair[1], item)?);
            let (AttributeValue::N(left), AttributeValue::N(right)) = (left, right) else {
                return Err(UpdateError::WrongType);
            };
            let (left, right) = (left.parse::<Number>()?, right.parse::<Number>()?);
            let result = match op {
                ArithOp::Plus => left.add(&right)?,
                ArithOp::Minus => left.sub(&right)?,
            };
            Ok(AttributeValue::N(result.to_string()))
        }
        _ => Err(UpdateError::WrongType),
    }
}

/// The place a path names inside an item: a map entry or a list position.
enum Slot<'v> {
    Map(&'v mut BTreeMap<String, AttributeValue>, String),
    List(&'v mut Vec<AttributeValue>, usize),
}

/// The slot for `path`'s last step; the steps before it must exist and be containers of
/// the right kind.
fn slot<'v>(item: &'v mut Item, path: &Path<'_>) -> Result<Slot<'v>, UpdateError> {
    let last = path.0.last().ok_or(UpdateError::InvalidPath)?;
    let parent = parent_mut(item, path).ok_or(UpdateError::InvalidPath)?;
    match (parent, last) {
        (Parent::Item(map), Element::Name(name)) | (Parent::Value(AttributeValue::M(map)), Element::Name(name)) => {
            Ok(Slot::Map(map, (*name).to_owned()))
        }
        (Parent::Value(AttributeValue::L(list)), Element::Index(index)) => Ok(Slot::List(list, *index)),
        _ => Err(UpdateError::InvalidPath),
    }
}

impl Slot<'_> {
    fn get(&mut self) -> Option<&mut AttributeValue> {
        match self {
            Slot::Map(map, key) => map.get_mut(key.as_str()),
            Slot::List(list, index) => list.get_mut(*index),
        }
    }

    /// Stores `value`; a list index past the end appends.
    fn put(self, value: AttributeValue) {
        match self {
            Slot::Map(map, key) => {
                map.insert(key, value);
            }
            Slot::List(list, index) if index < list.len() => list[index] = value,
            Slot::List(list, _) => list.push(value),
        }
    }

    fn take(self) {
        match self {
            Slot::Map(map, key) => {
                map.remove(&key);
            }
            Slot::List(list, index) if index < list.len() => {
                list.remove(index);
            }
            Slot::List(..) => {}
        }
    }
}

fn add(mut slot: Slot<'_>, value: &AttributeValue) -> Result<(), UpdateError> {
    use AttributeValue as V;
    let Some(existing) = slot.get() else {
        slot.put(value.clone());
        return Ok(());
    };
    match (existing, value) {
        (V::N(sum), V::N(addend)) => {
            *sum = sum.parse::<Number>()?.add(&addend.parse::<Number>()?)?.to_string();
        }
        (V::Ss(set), V::Ss(more)) => union(set, more, |a, b| a == b),
        (V::Bs(set), V::Bs(more)) => union(set, more, |a, b| a == b),
        (V::Ns(set), V::Ns(more)) => union(set, more, |a, b| numbers_equal(a, b)),
        _ => return Err(UpdateError::WrongType),
    }
    Ok(())
}

fn union<T: Clone>(set: &mut Vec<T>, more: &[T], same: impl Fn(&T, &T) -> bool) {
    for member in more {
        if !set.iter().any(|existing| same(existing, member)) {
            set.push(member.clone());
        }
    }
}

fn delete(mut slot: Slot<'_>, value: &AttributeValue) -> Result<(), UpdateError> {
    use AttributeValue as V;
    let Some(existing) = slot.get() else { return Ok(()) };
    let now_empty = match (existing, value) {
        (V::Ss(set), V::Ss(gone)) => difference(set, gone, |a, b| a == b),
        (V::Bs(set), V::Bs(gone)) => difference(set, gone, |a, b| a == b),
        (V::Ns(set), V::Ns(gone)) => difference(set, gone, |a, b| numbers_equal(a, b)),
        _ => return Err(UpdateError::WrongType),
    };
    // DynamoDB has no empty sets: removing the last member removes the attribute.
    if now_empty {
        slot.take();
    }
    Ok(())
}

fn difference<T>(set: &mut Vec<T>, gone: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    set.retain(|member| !gone.iter().any(|g| same(member, g)));
    set.is_empty()
}
