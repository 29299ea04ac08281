//! Checks of condition nodes beyond syntax: functions used where they return the wrong
//! kind of thing, operand counts and constant operand types, paths compared with
//! themselves, constant BETWEEN bounds and the IN operand limit.

use std::cmp::Ordering;

use super::ast::{Expr, Func, Path};
use super::error::{Deferred, Reason};
use crate::value::{compare, is_type_name, type_name, Quoted};
use crate::AttributeValue;

/// Most operands `IN` accepts on its right.
pub const MAX_IN_OPERANDS: usize = 100;

/// Checks a node the parser has just built. Nodes complete children first, so problems are
/// recorded in the order DynamoDB finds them: `a = a AND :undefined > b` reports `a = a`,
/// `attribute_not_exists(size(:n))` reports size's operand before the missing path.
pub(crate) fn node(expr: &Expr<'_>, out: &mut Deferred) {
    match expr {
        Expr::And(pair) | Expr::Or(pair) => pair.iter().for_each(|e| in_condition(e, out)),
        Expr::Not(inner) => in_condition(inner, out),
        Expr::Compare(comparator, pair) => {
            pair.iter().for_each(|e| in_operand(e, out));
            distinct(comparator.symbol(), &pair[0], &pair[1..], out);
        }
        Expr::Between(operands) => {
            operands.iter().for_each(|e| in_operand(e, out));
            distinct("BETWEEN", &operands[0], &operands[1..], out);
            if let (Expr::Value(low), Expr::Value(high)) = (&operands[1], &operands[2]) {
                between_bounds(low, high, out);
            }
        }
        Expr::In(left, list) => {
            in_operand(left, out);
            list.iter().for_each(|e| in_operand(e, out));
            if list.len() > MAX_IN_OPERANDS {
                out.push(Reason::TooManyInOperands(list.len()));
            }
            distinct("IN", left, list, out);
        }
        Expr::Call(func, args) => call(*func, args, out),
        Expr::Path(_) | Expr::Value(_) | Expr::Invalid | Expr::Arith(..) => {}
    }
}

/// Checks a child in a position that needs true or false: `size` returns a number.
pub(crate) fn in_condition(expr: &Expr<'_>, out: &mut Deferred) {
    if let Expr::Call(Func::Size, _) = expr {
        out.push(Reason::FunctionMisused(Func::Size.name()));
    }
}

/// Checks a child in a position that needs a value: only `size` returns one.
fn in_operand(expr: &Expr<'_>, out: &mut Deferred) {
    if let Expr::Call(func, _) = expr {
        if *func != Func::Size {
            out.push(Reason::FunctionMisused(func.name()));
        }
    }
}

/// Checks an update expression's value node just built: `+`, `-`, `if_not_exists`,
/// `list_append`.
pub(crate) fn update_node(expr: &Expr<'_>, out: &mut Deferred) {
    match expr {
        Expr::Arith(op, pair) => {
            for operand in pair.iter() {
                if let Expr::Value(value) = operand {
                    if !matches!(value, AttributeValue::N(_)) {
                        out.push_update_value(Reason::OperandType(op.symbol(), type_name(value)));
                    }
                }
            }
        }
        Expr::Call(func, args) => {
            if args.len() != func.arity() {
                out.push_update_value(Reason::OperandCount(func.name(), args.len()));
                return;
            }
            match func {
                Func::IfNotExists if !matches!(args[0], Expr::Path(_) | Expr::Invalid) => {
                    out.push_update_value(Reason::PathRequired(func.name()));
                }
                Func::ListAppend => {
                    for arg in args {
                        if let Expr::Value(value) = arg {
                            if !matches!(value, AttributeValue::L(_)) {
                                out.push_update_value(Reason::OperandType(func.name(), type_name(value)));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// The type a constant operand is known to have: a value's own, or `N` for `size(…)`.
fn constant_type(expr: &Expr<'_>) -> Option<&'static str> {
    match expr {
        Expr::Value(value) => Some(type_name(value)),
        Expr::Call(Func::Size, _) => Some("N"),
        _ => None,
    }
}

fn call(func: Func, args: &[Expr<'_>], out: &mut Deferred) {
    args.iter().for_each(|arg| in_operand(arg, out));
    if args.len() != func.arity() {
        out.push(Reason::OperandCount(func.name(), args.len()));
        return;
    }
    match func {
        Func::AttributeExists | Func::AttributeNotExists => require_path(func, &args[0], out),
        Func::AttributeType => {
            require_path(func, &args[0], out);
            match &args[1] {
                Expr::Value(AttributeValue::S(name)) if !is_type_name(name) => out.push(Reason::TypeName(name.clone())),
                Expr::Value(AttributeValue::S(_)) => {}
                other => {
                    if let Some(found) = constant_type(other) {
                        out.push(Reason::OperandType(func.name(), found));
                    }
                }
            }
            distinct(func.name(), &args[0], &args[1..], out);
        }
        Func::BeginsWith => {
            for arg in args {
                if let Some(found) = constant_type(arg).filter(|t| !matches!(*t, "S" | "B")) {
                    out.push(Reason::OperandType(func.name(), found));
                }
            }
            distinct(func.name(), &args[0], &args[1..], out);
        }
        Func::Contains => distinct(func.name(), &args[0], &args[1..], out),
        Func::Size => {
            if let Some(found) = constant_type(&args[0]).filter(|t| matches!(*t, "N" | "BOOL" | "NULL")) {
                out.push(Reason::OperandType(func.name(), found));
            }
        }
        Func::IfNotExists | Func::ListAppend => {}
    }
}

fn require_path(func: Func, arg: &Expr<'_>, out: &mut Deferred) {
    if !matches!(arg, Expr::Path(_) | Expr::Invalid) {
        out.push(Reason::PathRequired(func.name()));
    }
}

fn distinct(operator: &'static str, first: &Expr<'_>, rest: &[Expr<'_>], out: &mut Deferred) {
    if let Expr::Path(path) = first {
        if rest.iter().any(|other| matches!(other, Expr::Path(p) if p == path)) {
            out.push(Reason::NotDistinct(operator, path.to_string()));
        }
    }
}

fn between_bounds(low: &AttributeValue, high: &AttributeValue, out: &mut Deferred) {
    let quoted = || (Quoted(low).to_string(), Quoted(high).to_string());
    if type_name(low) != type_name(high) {
        let (low, high) = quoted();
        out.push(Reason::BetweenTypes(low, high));
    } else if compare(low, high) == Some(Ordering::Greater) {
        let (low, high) = quoted();
        out.push(Reason::BetweenOrder(low, high));
    }
}

/// Paths that overlap (one is a prefix of the other) or conflict (they part ways where one
/// names a map key and the other a list index). AWS reports every overlap before any
/// conflict, each pair in the order written.
pub(crate) fn overlapping_paths(paths: &[&Path<'_>], out: &mut Deferred) {
    for (i, one) in paths.iter().enumerate() {
        for two in &paths[i + 1..] {
            if one.0.iter().zip(&two.0).all(|(a, b)| a == b) {
                out.push(Reason::Overlap(one.to_string(), two.to_string()));
                return;
            }
        }
    }
    for (i, one) in paths.iter().enumerate() {
        for two in &paths[i + 1..] {
            let parted = one.0.iter().zip(&two.0).find(|(a, b)| a != b);
            if parted.is_some_and(|(a, b)| std::mem::discriminant(a) != std::mem::discriminant(b)) {
                out.push(Reason::Conflict(one.to_string(), two.to_string()));
                return;
            }
        }
    }
}
