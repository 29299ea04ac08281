//! The structured forms: JSON expressions (`{ $.a = "x" && $.b > 3 }`) and space-delimited
//! fields (`[ip, user, status = 4*, ...]`), parsed from [`lexer`](super::lexer) tokens and
//! evaluated against one message.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value as Json;

use super::lexer::{lex, Op, Tok};
use super::{compile_regex, error, glob_matches, PatternError};

/// How deep parentheses may nest, so that no pattern exhausts the stack.
const MAX_DEPTH: usize = 32;

/// A value compared against.
#[derive(Debug, Clone)]
pub(crate) enum Operand {
    /// A quoted or bare string, which may hold `*` wildcards.
    Text(String),
    Number(f64),
    Regex(Regex),
}

/// One test of a selected value.
#[derive(Debug, Clone)]
pub(crate) enum Condition {
    Compare(Op, Operand),
    IsNull,
    IsTrue,
    IsFalse,
    Exists,
    NotExists,
}

#[derive(Debug, Clone)]
pub(crate) enum JsonExpr {
    Test {
        selector: Vec<Step>,
        text: String,
        condition: Condition,
    },
    And(Box<JsonExpr>, Box<JsonExpr>),
    Or(Box<JsonExpr>, Box<JsonExpr>),
}

/// A step of a JSON selector after `$`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
    AnyIndex,
}

/// A field of a space-delimited pattern.
#[derive(Debug, Clone)]
pub(crate) enum FieldSpec {
    /// `...`: any number of fields.
    Rest,
    /// A named field, with the conditions (or-ed groups of and-ed ones) its value must meet.
    Named {
        name: String,
        conditions: Vec<Vec<(Op, Operand)>>,
    },
}

struct Parser {
    tokens: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let tok = self.tokens.get(self.at).cloned();
        self.at += 1;
        tok
    }

    fn expect(&mut self, want: &Tok) -> Result<(), PatternError> {
        match self.next() {
            Some(t) if &t == want => Ok(()),
            other => Err(error(format!("expected {want:?}, found {other:?}"))),
        }
    }

    fn operand(&mut self) -> Result<Operand, PatternError> {
        match self.next() {
            Some(Tok::Quoted(s)) => Ok(Operand::Text(s)),
            Some(Tok::Regex(body)) => Ok(Operand::Regex(compile_regex(&body)?)),
            Some(Tok::Word(w)) => Ok(match w.parse::<f64>() {
                Ok(n) if n.is_finite() => Operand::Number(n),
                _ => Operand::Text(w),
            }),
            other => Err(error(format!("expected a value, found {other:?}"))),
        }
    }

    fn json_or(&mut self, depth: usize) -> Result<JsonExpr, PatternError> {
        let mut left = self.json_and(depth)?;
        while self.peek() == Some(&Tok::Or) {
            self.next();
            left = JsonExpr::Or(Box::new(left), Box::new(self.json_and(depth)?));
        }
        Ok(left)
    }

    fn json_and(&mut self, depth: usize) -> Result<JsonExpr, PatternError> {
        let mut left = self.json_unary(depth)?;
        while self.peek() == Some(&Tok::And) {
            self.next();
            left = JsonExpr::And(Box::new(left), Box::new(self.json_unary(depth)?));
        }
        Ok(left)
    }

    fn json_unary(&mut self, depth: usize) -> Result<JsonExpr, PatternError> {
        if self.peek() == Some(&Tok::LParen) {
            if depth >= MAX_DEPTH {
                return Err(error("parentheses nested too deep"));
            }
            self.next();
            let inner = self.json_or(depth + 1)?;
            self.expect(&Tok::RParen)?;
            return Ok(inner);
        }
        let text = match self.next() {
            Some(Tok::Word(w)) if w.starts_with('$') => w,
            other => return Err(error(format!("expected a selector such as $.field, found {other:?}"))),
        };
        let selector = parse_selector(&text)?;
        let condition = match self.next() {
            Some(Tok::Op(op)) => Condition::Compare(op, self.operand()?),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("IS") => match self.next() {
                Some(Tok::Word(v)) if v.eq_ignore_ascii_case("NULL") => Condition::IsNull,
                Some(Tok::Word(v)) if v.eq_ignore_ascii_case("TRUE") => Condition::IsTrue,
                Some(Tok::Word(v)) if v.eq_ignore_ascii_case("FALSE") => Condition::IsFalse,
                other => return Err(error(format!("expected NULL, TRUE or FALSE after IS, found {other:?}"))),
            },
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("NOT") => match self.next() {
                Some(Tok::Word(v)) if v.eq_ignore_ascii_case("EXISTS") => Condition::NotExists,
                other => return Err(error(format!("expected EXISTS after NOT, found {other:?}"))),
            },
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("EXISTS") => Condition::Exists,
            other => return Err(error(format!("expected a comparison, found {other:?}"))),
        };
        if let Condition::Compare(op, Operand::Text(_) | Operand::Regex(_)) = &condition {
            if !matches!(op, Op::Eq | Op::Ne) {
                return Err(error("only = and != compare strings"));
            }
        }
        Ok(JsonExpr::Test {
            selector,
            text,
            condition,
        })
    }
}

/// `$.a.b[0][*].c` into steps.
fn parse_selector(text: &str) -> Result<Vec<Step>, PatternError> {
    let mut rest = &text[1..];
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let key = &after[..end];
            if key.is_empty() || key.contains(']') {
                return Err(error(format!("invalid selector {text}")));
            }
            steps.push(if key == "*" {
                Step::AnyIndex
            } else {
                Step::Key(key.to_owned())
            });
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return Err(error(format!("invalid selector {text}")));
            };
            let inside = &after[..end];
            steps.push(match inside {
                "*" => Step::AnyIndex,
                _ => Step::Index(inside.parse().map_err(|_| error(format!("invalid selector {text}")))?),
            });
            rest = &after[end + 1..];
        } else {
            return Err(error(format!("invalid selector {text}")));
        }
    }
    if steps.is_empty() {
        return Err(error("a selector must name a field after $"));
    }
    Ok(steps)
}

pub(crate) fn parse_json(text: &str) -> Result<JsonExpr, PatternError> {
    let mut p = Parser {
        tokens: lex(text)?,
        at: 0,
    };
    p.expect(&Tok::LBrace)?;
    let expr = p.json_or(0)?;
    p.expect(&Tok::RBrace)?;
    if p.peek().is_some() {
        return Err(error("unexpected text after }"));
    }
    Ok(expr)
}

pub(crate) fn parse_fields(text: &str) -> Result<Vec<FieldSpec>, PatternError> {
    let mut p = Parser {
        tokens: lex(text)?,
        at: 0,
    };
    p.expect(&Tok::LBracket)?;
    let mut fields = Vec::new();
    if p.peek() == Some(&Tok::RBracket) {
        return Err(error("a space-delimited pattern needs at least one field"));
    }
    loop {
        let name = match p.next() {
            Some(Tok::Word(w)) => w,
            other => return Err(error(format!("expected a field name, found {other:?}"))),
        };
        if name == "..." {
            fields.push(FieldSpec::Rest);
        } else {
            let mut conditions: Vec<Vec<(Op, Operand)>> = Vec::new();
            let mut group: Vec<(Op, Operand)> = Vec::new();
            if let Some(Tok::Op(_)) = p.peek() {
                loop {
                    let Some(Tok::Op(op)) = p.next() else {
                        return Err(error("expected a comparison"));
                    };
                    group.push((op, p.operand()?));
                    match p.peek() {
                        Some(Tok::And) | Some(Tok::Or) => {
                            if p.next() == Some(Tok::Or) {
                                conditions.push(std::mem::take(&mut group));
                            }
                            // The field is named again before each further comparison.
                            match p.next() {
                                Some(Tok::Word(again)) if again == name => {}
                                other => return Err(error(format!("expected field {name} again, found {other:?}"))),
                            }
                        }
                        _ => break,
                    }
                }
                conditions.push(group);
            }
            fields.push(FieldSpec::Named { name, conditions });
        }
        match p.next() {
            Some(Tok::Comma) => continue,
            Some(Tok::RBracket) => break,
            other => return Err(error(format!("expected , or ], found {other:?}"))),
        }
    }
    if p.peek().is_some() {
        return Err(error("unexpected text after ]"));
    }
    Ok(fields)
}

/// Whether `value` (a string, or a number's text) meets `op operand`.
fn compare_text(value: &str, number: Option<f64>, op: Op, operand: &Operand) -> bool {
    match operand {
        Operand::Text(glob) => {
            let eq = glob_matches(glob, value);
            if op == Op::Ne {
                !eq
            } else {
                eq
            }
        }
        Operand::Regex(re) => re.is_match(value) == (op != Op::Ne),
        Operand::Number(n) => {
            let Some(v) = number.or_else(|| value.parse::<f64>().ok()) else {
                return op == Op::Ne;
            };
            match op {
                Op::Eq => v == *n,
                Op::Ne => v != *n,
                Op::Lt => v < *n,
                Op::Le => v <= *n,
                Op::Gt => v > *n,
                Op::Ge => v >= *n,
            }
        }
    }
}

/// The values `selector` reaches in `root`.
fn select<'j>(root: &'j Json, selector: &[Step]) -> Vec<&'j Json> {
    let mut current = vec![root];
    for step in selector {
        let mut next = Vec::new();
        for value in current {
            match (step, value) {
                (Step::Key(k), Json::Object(map)) => next.extend(map.get(k)),
                (Step::Index(i), Json::Array(items)) => next.extend(items.get(*i)),
                (Step::AnyIndex, Json::Array(items)) => next.extend(items.iter()),
                (Step::AnyIndex, Json::Object(map)) => next.extend(map.values()),
                _ => {}
            }
        }
        current = next;
    }
    current
}

fn test(values: &[&Json], condition: &Condition) -> bool {
    match condition {
        Condition::Exists => !values.is_empty(),
        Condition::NotExists => values.is_empty(),
        Condition::IsNull => values.iter().any(|v| v.is_null()),
        Condition::IsTrue => values.iter().any(|v| v.as_bool() == Some(true)),
        Condition::IsFalse => values.iter().any(|v| v.as_bool() == Some(false)),
        Condition::Compare(op, operand) => values.iter().any(|v| match v {
            Json::String(s) => !matches!(operand, Operand::Number(_)) && compare_text(s, None, *op, operand),
            Json::Number(n) => match operand {
                Operand::Number(_) => compare_text("", n.as_f64(), *op, operand),
                _ => compare_text(&n.to_string(), None, *op, operand),
            },
            Json::Bool(b) => !matches!(operand, Operand::Number(_)) && compare_text(&b.to_string(), None, *op, operand),
            _ => false,
        }),
    }
}

fn eval(e: &JsonExpr, root: &Json) -> bool {
    match e {
        JsonExpr::Test {
            selector, condition, ..
        } => test(&select(root, selector), condition),
        JsonExpr::And(a, b) => eval(a, root) && eval(b, root),
        JsonExpr::Or(a, b) => eval(a, root) || eval(b, root),
    }
}

pub(crate) fn json_matches(e: &JsonExpr, message: &str) -> bool {
    serde_json::from_str::<Json>(message.trim()).is_ok_and(|root| eval(e, &root))
}

/// The first value each selector of `e` reaches, by the selector's text.
pub(crate) fn json_extract(e: &JsonExpr, message: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(root) = serde_json::from_str::<Json>(message.trim()) else {
        return out;
    };
    fn walk(e: &JsonExpr, root: &Json, out: &mut BTreeMap<String, String>) {
        match e {
            JsonExpr::Test { selector, text, .. } => {
                if let Some(v) = select(root, selector).first() {
                    let shown = match v {
                        Json::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    out.insert(text.clone(), shown);
                }
            }
            JsonExpr::And(a, b) | JsonExpr::Or(a, b) => {
                walk(a, root, out);
                walk(b, root, out);
            }
        }
    }
    walk(e, &root, &mut out);
    out
}

/// A message's space-delimited fields: runs of non-blanks, with `"…"` and `[…]` each one
/// field (quotes and brackets taken off).
fn split_fields(message: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let bytes = message.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' => i += 1,
            open @ (b'"' | b'[') => {
                let close = if open == b'"' { b'"' } else { b']' };
                let end = bytes[i + 1..]
                    .iter()
                    .position(|&b| b == close)
                    .map_or(bytes.len(), |p| i + 1 + p);
                fields.push(&message[i + 1..end]);
                i = end + 1;
            }
            _ => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b' ' || b == b'\t')
                    .map_or(bytes.len(), |p| i + p);
                fields.push(&message[i..end]);
                i = end;
            }
        }
    }
    fields
}

fn field_ok(conditions: &[Vec<(Op, Operand)>], value: &str) -> bool {
    conditions.is_empty()
        || conditions.iter().any(|group| {
            group
                .iter()
                .all(|(op, operand)| compare_text(value, None, *op, operand))
        })
}

/// The named fields' values when `message` matches `fields`, else `None`.
pub(crate) fn fields_match(fields: &[FieldSpec], message: &str) -> Option<BTreeMap<String, String>> {
    let values = split_fields(message);
    let mut bound = BTreeMap::new();
    align(fields, &values, &mut bound).then_some(bound)
}

fn align(fields: &[FieldSpec], values: &[&str], bound: &mut BTreeMap<String, String>) -> bool {
    match fields.split_first() {
        None => values.is_empty(),
        Some((FieldSpec::Rest, rest)) => (0..=values.len()).any(|skip| align(rest, &values[skip..], bound)),
        Some((FieldSpec::Named { name, conditions }, rest)) => {
            let Some((value, others)) = values.split_first() else {
                return false;
            };
            if !field_ok(conditions, value) || !align(rest, others, bound) {
                return false;
            }
            bound.insert(format!("${name}"), (*value).to_owned());
            true
        }
    }
}
