//! Evaluating metric math: scalars, time series and arrays of time series, as the user
//! guide's "Metric math syntax and functions" describes them.
//!
//! Between two time series an operator applies at the timestamps both have; between a series
//! and a scalar, at every point; between arrays and a series or scalar, to each member.
//! Comparisons and `AND`/`OR`/`NOT` give 1 or 0.

use std::collections::BTreeMap;

use super::parse::{Expr, Op};

/// A time series: values by period start (milliseconds since the epoch), and its label.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Series {
    pub label: String,
    pub points: BTreeMap<i64, f64>,
}

/// What an expression evaluates to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Scalar(f64),
    Series(Series),
    Array(Vec<Series>),
    Str(String),
}

/// What an expression reads: the other queries of the request, the stored metrics, and the
/// window's periods.
pub(crate) trait Source {
    /// The query with this `Id` (a metric's statistic, or another expression).
    fn query(&mut self, id: &str) -> Result<Val, String>;
    /// Every metric query of the request, by `Id` (`METRICS()`).
    fn metric_queries(&mut self) -> Result<Vec<(String, Series)>, String>;
    /// `SEARCH(expression, stat, period)` over the stored metrics.
    fn search(&mut self, expression: &str, stat: &str, period_s: i64) -> Result<Vec<Series>, String>;
    /// The starts of the window's periods, in time order.
    fn grid(&self) -> Vec<i64>;
    /// The period, in seconds.
    fn period_s(&self) -> i64;
}

/// Evaluates `expr` against `source`.
pub(crate) fn eval(expr: &Expr, source: &mut dyn Source) -> Result<Val, String> {
    match expr {
        Expr::Number(n) => Ok(Val::Scalar(*n)),
        Expr::Str(s) => Ok(Val::Str(s.clone())),
        Expr::Id(id) => source.query(id),
        Expr::Array(items) => {
            let mut array = Vec::new();
            for item in items {
                match eval(item, source)? {
                    Val::Series(s) => array.push(s),
                    Val::Array(a) => array.extend(a),
                    _ => return Err("Arrays hold time series only".to_owned()),
                }
            }
            Ok(Val::Array(array))
        }
        Expr::Neg(inner) => map(eval(inner, source)?, |v| -v),
        Expr::Not(inner) => map(eval(inner, source)?, |v| truth(v == 0.0)),
        Expr::Binary(op, left, right) => {
            let (left, right) = (eval(left, source)?, eval(right, source)?);
            binary(*op, left, right)
        }
        Expr::Call(name, args) => call(name, args, source),
    }
}

fn truth(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

fn apply(op: Op, a: f64, b: f64) -> f64 {
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
        Op::Pow => a.powf(b),
        Op::Lt => truth(a < b),
        Op::Le => truth(a <= b),
        Op::Gt => truth(a > b),
        Op::Ge => truth(a >= b),
        Op::Eq => truth(a == b),
        Op::Ne => truth(a != b),
        Op::And => truth(a != 0.0 && b != 0.0),
        Op::Or => truth(a != 0.0 || b != 0.0),
    }
}

/// `f` at every point of `val`.
fn map(val: Val, f: impl Fn(f64) -> f64 + Copy) -> Result<Val, String> {
    let each = |s: Series| Series {
        label: s.label,
        points: s.points.into_iter().map(|(t, v)| (t, f(v))).collect(),
    };
    Ok(match val {
        Val::Scalar(v) => Val::Scalar(f(v)),
        Val::Series(s) => Val::Series(each(s)),
        Val::Array(a) => Val::Array(a.into_iter().map(each).collect()),
        Val::Str(_) => return Err("A string is not a number".to_owned()),
    })
}

fn series_op(op: Op, a: &Series, b: &Series) -> Series {
    Series {
        label: a.label.clone(),
        points: a
            .points
            .iter()
            .filter_map(|(t, x)| b.points.get(t).map(|y| (*t, apply(op, *x, *y))))
            .collect(),
    }
}

fn binary(op: Op, left: Val, right: Val) -> Result<Val, String> {
    Ok(match (left, right) {
        (Val::Scalar(a), Val::Scalar(b)) => Val::Scalar(apply(op, a, b)),
        (Val::Scalar(a), other) => map(other, |b| apply(op, a, b))?,
        (other, Val::Scalar(b)) => map(other, |a| apply(op, a, b))?,
        (Val::Series(a), Val::Series(b)) => Val::Series(series_op(op, &a, &b)),
        (Val::Array(a), Val::Series(b)) => Val::Array(a.iter().map(|s| series_op(op, s, &b)).collect()),
        (Val::Series(a), Val::Array(b)) => Val::Array(b.iter().map(|s| series_op(op, &a, s)).collect()),
        (Val::Array(_), Val::Array(_)) => return Err("Cannot combine two arrays of time series".to_owned()),
        (Val::Str(_), _) | (_, Val::Str(_)) => return Err("A string is not a number".to_owned()),
    })
}

fn arg<'e>(name: &str, args: &'e [Expr], i: usize) -> Result<&'e Expr, String> {
    args.get(i)
        .ok_or_else(|| format!("Function {name} takes at least {} arguments", i + 1))
}

fn arity(name: &str, args: &[Expr], range: std::ops::RangeInclusive<usize>) -> Result<(), String> {
    if range.contains(&args.len()) {
        return Ok(());
    }
    Err(format!("Invalid number of arguments for function {name}"))
}

/// A series' values, summarized (`SUM`, `AVG`, …) over time for one series, or across the
/// members at each timestamp for an array.
fn reduce(name: &str, val: Val, f: fn(&[f64]) -> f64) -> Result<Val, String> {
    match val {
        Val::Series(s) => {
            let values: Vec<f64> = s.points.values().copied().collect();
            Ok(Val::Scalar(if values.is_empty() { f64::NAN } else { f(&values) }))
        }
        Val::Array(array) => {
            let mut at: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
            for s in &array {
                for (t, v) in &s.points {
                    at.entry(*t).or_default().push(*v);
                }
            }
            Ok(Val::Series(Series {
                label: name.to_owned(),
                points: at.into_iter().map(|(t, vs)| (t, f(&vs))).collect(),
            }))
        }
        Val::Scalar(v) => Ok(Val::Scalar(v)),
        Val::Str(_) => Err(format!("Function {name} takes time series")),
    }
}

fn sum(values: &[f64]) -> f64 {
    values.iter().sum()
}

fn avg(values: &[f64]) -> f64 {
    sum(values) / values.len() as f64
}

fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn stddev(values: &[f64]) -> f64 {
    let mean = avg(values);
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt()
}

/// `f` over each series of `val` (a series or an array of them).
fn per_series(name: &str, val: Val, f: impl Fn(&Series) -> Series) -> Result<Val, String> {
    match val {
        Val::Series(s) => Ok(Val::Series(f(&s))),
        Val::Array(a) => Ok(Val::Array(a.iter().map(f).collect())),
        _ => Err(format!("Function {name} takes time series")),
    }
}

/// Consecutive points' `f(previous, current)`, from the second point on.
fn pairwise(s: &Series, f: impl Fn((i64, f64), (i64, f64)) -> f64) -> Series {
    let points: Vec<(i64, f64)> = s.points.iter().map(|(t, v)| (*t, *v)).collect();
    Series {
        label: s.label.clone(),
        points: points.windows(2).map(|w| (w[1].0, f(w[0], w[1]))).collect(),
    }
}

enum Fill {
    Value(f64),
    Repeat,
    Linear,
}

fn fill(s: &Series, grid: &[i64], how: &Fill) -> Series {
    let mut points = BTreeMap::new();
    for &t in grid {
        if let Some(v) = s.points.get(&t) {
            points.insert(t, *v);
            continue;
        }
        let before = s.points.range(..t).next_back();
        let after = s.points.range(t..).next();
        let value = match how {
            Fill::Value(v) => Some(*v),
            Fill::Repeat => before.or(after).map(|(_, v)| *v),
            Fill::Linear => match (before, after) {
                (Some((t0, v0)), Some((t1, v1))) => Some(v0 + (v1 - v0) * (t - t0) as f64 / (t1 - t0) as f64),
                _ => before.or(after).map(|(_, v)| *v),
            },
        };
        if let Some(v) = value {
            points.insert(t, v);
        }
    }
    Series {
        label: s.label.clone(),
        points,
    }
}

fn string_arg(name: &str, args: &[Expr], i: usize, source: &mut dyn Source) -> Result<String, String> {
    match eval(arg(name, args, i)?, source)? {
        Val::Str(s) => Ok(s),
        _ => Err(format!("Argument {} of {name} must be a string", i + 1)),
    }
}

fn scalar_arg(name: &str, args: &[Expr], i: usize, source: &mut dyn Source) -> Result<f64, String> {
    match eval(arg(name, args, i)?, source)? {
        Val::Scalar(v) => Ok(v),
        _ => Err(format!("Argument {} of {name} must be a number", i + 1)),
    }
}

fn call(name: &str, args: &[Expr], source: &mut dyn Source) -> Result<Val, String> {
    let first = |source: &mut dyn Source| -> Result<Val, String> { eval(arg(name, args, 0)?, source) };
    match name {
        "SUM" | "AVG" | "MIN" | "MAX" | "STDDEV" => {
            arity(name, args, 1..=1)?;
            let f = match name {
                "SUM" => sum,
                "AVG" => avg,
                "MIN" => min,
                "MAX" => max,
                _ => stddev,
            };
            reduce(name, first(source)?, f)
        }
        "ABS" | "CEIL" | "FLOOR" | "LOG" | "LOG10" => {
            arity(name, args, 1..=1)?;
            let f: fn(f64) -> f64 = match name {
                "ABS" => f64::abs,
                "CEIL" => f64::ceil,
                "FLOOR" => f64::floor,
                "LOG" => f64::ln,
                _ => f64::log10,
            };
            map(first(source)?, f)
        }
        "DIFF" | "RATE" | "DIFF_TIME" => {
            arity(name, args, 1..=1)?;
            let kind = name.to_owned();
            per_series(name, first(source)?, |s| {
                pairwise(s, |(t0, v0), (t1, v1)| match kind.as_str() {
                    "DIFF" => v1 - v0,
                    "RATE" => (v1 - v0) / ((t1 - t0) as f64 / 1000.0),
                    _ => (t1 - t0) as f64 / 1000.0,
                })
            })
        }
        "RUNNING_SUM" => {
            arity(name, args, 1..=1)?;
            per_series(name, first(source)?, |s| {
                let mut total = 0.0;
                Series {
                    label: s.label.clone(),
                    points: s
                        .points
                        .iter()
                        .map(|(t, v)| {
                            total += v;
                            (*t, total)
                        })
                        .collect(),
                }
            })
        }
        "FILL" => {
            arity(name, args, 2..=2)?;
            let how = match &args[1] {
                Expr::Id(w) if w.eq_ignore_ascii_case("REPEAT") => Fill::Repeat,
                Expr::Id(w) if w.eq_ignore_ascii_case("LINEAR") => Fill::Linear,
                other => match eval(other, source)? {
                    Val::Scalar(v) => Fill::Value(v),
                    _ => return Err("The second argument of FILL must be a number, REPEAT or LINEAR".to_owned()),
                },
            };
            let grid = source.grid();
            per_series(name, first(source)?, |s| fill(s, &grid, &how))
        }
        "IF" => {
            arity(name, args, 2..=3)?;
            let condition = first(source)?;
            let then = eval(&args[1], source)?;
            let otherwise = args.get(2).map(|e| eval(e, source)).transpose()?;
            if_then(condition, then, otherwise, &source.grid())
        }
        "METRICS" => {
            arity(name, args, 0..=1)?;
            let filter = if args.is_empty() {
                None
            } else {
                Some(string_arg(name, args, 0, source)?)
            };
            Ok(Val::Array(
                source
                    .metric_queries()?
                    .into_iter()
                    .filter(|(id, _)| filter.as_ref().is_none_or(|f| id.contains(f.as_str())))
                    .map(|(_, s)| s)
                    .collect(),
            ))
        }
        "SEARCH" => {
            arity(name, args, 3..=3)?;
            let expression = string_arg(name, args, 0, source)?;
            let stat = string_arg(name, args, 1, source)?;
            let period = scalar_arg(name, args, 2, source)?;
            Ok(Val::Array(source.search(&expression, &stat, period as i64)?))
        }
        "PERIOD" => {
            arity(name, args, 1..=1)?;
            first(source)?;
            Ok(Val::Scalar(source.period_s() as f64))
        }
        "TIME_SERIES" => {
            arity(name, args, 1..=1)?;
            let value = scalar_arg(name, args, 0, source)?;
            Ok(Val::Series(Series {
                label: String::new(),
                points: source.grid().into_iter().map(|t| (t, value)).collect(),
            }))
        }
        "EPOCH" => {
            arity(name, args, 1..=1)?;
            per_series(name, first(source)?, |s| Series {
                label: s.label.clone(),
                points: s.points.keys().map(|t| (*t, (*t / 1000) as f64)).collect(),
            })
        }
        "DATAPOINT_COUNT" => {
            arity(name, args, 1..=1)?;
            match first(source)? {
                Val::Series(s) => Ok(Val::Scalar(s.points.len() as f64)),
                Val::Array(a) => Ok(Val::Array(
                    a.iter()
                        .map(|s| constant(&s.label, s.points.len() as f64, &source.grid()))
                        .collect(),
                )),
                _ => Err(format!("Function {name} takes time series")),
            }
        }
        "METRIC_COUNT" => {
            arity(name, args, 1..=1)?;
            match first(source)? {
                Val::Array(a) => Ok(Val::Scalar(a.len() as f64)),
                Val::Series(_) => Ok(Val::Scalar(1.0)),
                _ => Err(format!("Function {name} takes an array of time series")),
            }
        }
        "FIRST" | "LAST" => {
            arity(name, args, 1..=1)?;
            match first(source)? {
                Val::Array(mut a) => {
                    let picked = if name == "FIRST" { a.drain(..).next() } else { a.pop() };
                    Ok(Val::Series(picked.unwrap_or_default()))
                }
                Val::Series(s) => Ok(Val::Series(s)),
                _ => Err(format!("Function {name} takes an array of time series")),
            }
        }
        "REMOVE_EMPTY" => {
            arity(name, args, 1..=1)?;
            match first(source)? {
                Val::Array(a) => Ok(Val::Array(a.into_iter().filter(|s| !s.points.is_empty()).collect())),
                other => Ok(other),
            }
        }
        _ => Err(format!("Unsupported function {name}")),
    }
}

fn constant(label: &str, value: f64, grid: &[i64]) -> Series {
    Series {
        label: label.to_owned(),
        points: grid.iter().map(|t| (*t, value)).collect(),
    }
}

/// `IF(condition, then[, otherwise])` at each timestamp of the condition (each period of the
/// window when it is a scalar); without `otherwise`, a false condition leaves no point.
fn if_then(condition: Val, then: Val, otherwise: Option<Val>, grid: &[i64]) -> Result<Val, String> {
    let at = |val: &Val, t: i64| -> Option<f64> {
        match val {
            Val::Scalar(v) => Some(*v),
            Val::Series(s) => s.points.get(&t).copied(),
            _ => None,
        }
    };
    let condition = match condition {
        Val::Scalar(v) => constant("", v, grid),
        Val::Series(s) => s,
        _ => return Err("The condition of IF must be a time series or a number".to_owned()),
    };
    if matches!(then, Val::Array(_) | Val::Str(_)) || matches!(otherwise, Some(Val::Array(_) | Val::Str(_))) {
        return Err("IF takes time series or numbers".to_owned());
    }
    let points = condition
        .points
        .iter()
        .filter_map(|(t, c)| {
            let value = if *c != 0.0 {
                at(&then, *t)
            } else {
                otherwise.as_ref().and_then(|o| at(o, *t))
            };
            value.map(|v| (*t, v))
        })
        .collect();
    Ok(Val::Series(Series {
        label: condition.label,
        points,
    }))
}
