//! Pattern text to a compiled tree, validated as AWS validates it.
//!
//! The compiler reads tokens in the order AWS's compiler reads them, so that of several faults
//! the one AWS reports is the one reported here, at the position AWS reports it.

use crate::json::{Lexer, Token};
use crate::matcher::{Cidr, Field, Glob, Matcher, Node, Num, Strings, TOO_COMPLEX};
use crate::{Dialect, ErrorKind, PatternError};

/// The largest magnitude a numeric comparison takes.
pub(crate) const FIVE_BILLION: f64 = 5.0e9;

/// A compile-time fault: its reason and, unless AWS omits it, where the parser stood.
pub(crate) struct Fault {
    reason: String,
    /// `at [Source: …]` suffixes (AWS repeats it when an error is re-raised).
    location: String,
}

type R<T> = Result<T, Fault>;

/// Words that cannot name a field inside `$or`.
const RESERVED_IN_OR: &[&str] = &[
    "anything-but",
    "cidr",
    "equals-ignore-case",
    "exists",
    "numeric",
    "prefix",
    "suffix",
    "wildcard",
];

struct Compiler<'a> {
    lx: Lexer<'a>,
    dialect: Dialect,
}

pub(crate) fn compile(text: &str, dialect: Dialect) -> Result<Node, PatternError> {
    let compacted;
    let text = if dialect.is_sns() {
        compacted = crate::json::compact(text);
        compacted.as_deref().unwrap_or(text)
    } else {
        text
    };
    let mut c = Compiler {
        lx: Lexer::new(text),
        dialect,
    };
    let err = |f: Fault| PatternError::new(dialect, ErrorKind::Invalid, f.reason, f.location);
    let mut root = Node::default();
    match c.next().map_err(err)? {
        Token::StartObject => {}
        _ => return Err(err(c.barf("Filter is not an object"))),
    }
    c.object(&mut root, false).map_err(err)?;
    if dialect == Dialect::SnsMessageAttributes && root.nested() {
        return Err(PatternError::new(
            dialect,
            ErrorKind::NestedInAttributeScope,
            "Filter policy scope MessageAttributes does not support nested filter policy".into(),
            String::new(),
        ));
    }
    if dialect.is_sns() {
        if root.max_keys() > 5 {
            return Err(PatternError::new(
                dialect,
                ErrorKind::Invalid,
                "Filter policy can not have more than 5 keys".into(),
                String::new(),
            ));
        }
        if root.combinations(1) > 150 {
            return Err(PatternError::new(
                dialect,
                ErrorKind::Invalid,
                "Filter policy is too complex".into(),
                String::new(),
            ));
        }
    }
    Ok(root)
}

impl Compiler<'_> {
    fn next(&mut self) -> R<Token> {
        match self.lx.next() {
            Ok(Some(t)) => Ok(t),
            Ok(None) => Err(Fault {
                reason: "Unexpected end-of-input".into(),
                location: self.lx.location(self.lx.position()),
            }),
            Err(e) => Err(Fault {
                reason: e.message,
                location: self.lx.location(e.at),
            }),
        }
    }

    fn barf(&self, reason: impl Into<String>) -> Fault {
        Fault {
            reason: reason.into(),
            location: self.lx.location(self.lx.position()),
        }
    }

    /// A fault raised inside a list and raised again by AWS with its position a second time.
    fn barf_twice(&self, reason: impl Into<String>) -> Fault {
        let mut f = self.barf(reason);
        f.location = format!("{0}{0}", f.location);
        f
    }

    fn text(&mut self, token: &Token) -> String {
        self.lx.take_text();
        token.text()
    }

    fn segments(&self, key: &str) -> Vec<Box<str>> {
        if self.dialect == Dialect::SnsMessageAttributes {
            vec![key.into()]
        } else {
            key.split('.').map(Into::into).collect()
        }
    }

    /// An object's members, after its `{`.
    fn object(&mut self, node: &mut Node, in_or: bool) -> R<()> {
        let mut any = false;
        loop {
            let name = match self.next()? {
                Token::EndObject => break,
                Token::Name(n) => n,
                _ => return Err(self.barf("Unexpected token")),
            };
            any = true;
            if name == "$or" {
                self.or(node)?;
                continue;
            }
            if in_or && RESERVED_IN_OR.contains(&name.as_str()) {
                return Err(self.barf(format!(
                    "{name} is Ruler reserved fieldName which cannot be used inside $or."
                )));
            }
            let segments = self.segments(&name);
            match self.next()? {
                Token::StartObject => {
                    let child = node.child_mut(&segments);
                    self.object(child, in_or)?;
                }
                Token::StartArray => {
                    let field = self.values()?;
                    node.child_mut(&segments).field = Some(field);
                }
                _ => {
                    return Err(self.barf(format!("\"{name}\" must be an object or an array")));
                }
            }
        }
        if !any {
            return Err(self.barf("Empty objects are not allowed"));
        }
        Ok(())
    }

    /// `"$or": [ {…}, {…} ]`, after the name.
    fn or(&mut self, node: &mut Node) -> R<()> {
        if self.next()? != Token::StartArray {
            return Err(self.barf("It must be an Array followed with $or."));
        }
        let mut alternatives = Vec::new();
        loop {
            match self.next()? {
                Token::EndArray => break,
                Token::StartObject => {
                    let mut alt = Node::default();
                    self.object(&mut alt, true)?;
                    alternatives.push(alt);
                }
                _ => return Err(self.barf("Only JSON object is allowed in array of $or relationship.")),
            }
        }
        if alternatives.len() < 2 {
            return Err(self.barf("There must have at least 2 Objects in $or relationship."));
        }
        node.ors.push(alternatives);
        Ok(())
    }

    /// A field's list of values and match expressions, after its `[`.
    fn values(&mut self) -> R<Field> {
        let mut matchers = Vec::new();
        loop {
            let token = self.next()?;
            match token {
                Token::EndArray => break,
                Token::StartObject => matchers.push(self.expression()?),
                Token::Str(_) => {
                    let s = self.text(&token);
                    // AWS reads a value that is an IP address as that address, however written.
                    matchers.push(match Cidr::single(&s) {
                        Some(ip) => Matcher::ExactIp(s.into(), ip),
                        None => Matcher::Exact(s.into()),
                    });
                }
                Token::Num(ref n) => matchers.push(Matcher::ExactNumber(Num::parse(n))),
                Token::True => matchers.push(Matcher::Bool(true)),
                Token::False => matchers.push(Matcher::Bool(false)),
                Token::Null => matchers.push(Matcher::Null),
                _ => return Err(self.barf("Match value must be String, number, true, false, or null")),
            }
        }
        if matchers.is_empty() {
            return Err(self.barf("Empty arrays are not allowed"));
        }
        Ok(Field::new(matchers))
    }

    fn end_object(&mut self) -> R<()> {
        if self.next()? != Token::EndObject {
            return Err(self.barf("Only one key allowed in match expression"));
        }
        Ok(())
    }

    fn string_operand(&mut self, what: &str) -> R<String> {
        let token = self.next()?;
        if !matches!(token, Token::Str(_)) {
            return Err(self.barf(format!("{what} match pattern must be a string")));
        }
        Ok(self.text(&token))
    }

    /// A match expression (`{"prefix": …}` and the like), after its `{`.
    fn expression(&mut self) -> R<Matcher> {
        let Token::Name(kind) = self.next()? else {
            return Err(self.barf("Match expression name not found"));
        };
        let eb = self.dialect == Dialect::EventBridge;
        let matcher = match kind.as_str() {
            "prefix" | "suffix" => {
                let token = self.next()?;
                let prefix = kind == "prefix";
                if eb && token == Token::StartObject {
                    return self.ignore_case_affix(prefix);
                }
                if !matches!(token, Token::Str(_)) {
                    return Err(self.barf(format!("{kind} match pattern must be a string")));
                }
                let s = self.text(&token);
                if prefix {
                    Matcher::Prefix(s.into())
                } else {
                    Matcher::Suffix(s.into())
                }
            }
            "equals-ignore-case" => {
                let s = self.string_operand("equals-ignore-case")?;
                Matcher::EqualsIgnoreCase(fold(&s).into())
            }
            "wildcard" if eb => {
                let s = self.string_operand("wildcard")?;
                Matcher::Wildcard(self.glob(&s)?)
            }
            "numeric" => {
                if self.next()? != Token::StartArray {
                    return Err(self.barf("Value of numeric must be an array."));
                }
                let m = self.numeric()?;
                if self.next()? != Token::EndObject {
                    return Err(self.barf("Too many elements in numeric expression"));
                }
                return Ok(m);
            }
            "anything-but" => return self.anything_but(),
            "exists" => {
                let m = match self.next()? {
                    Token::True => Matcher::Exists(true),
                    Token::False => Matcher::Exists(false),
                    _ => return Err(self.barf("exists match pattern must be either true or false.")),
                };
                self.end_object()?;
                return Ok(m);
            }
            "cidr" => {
                let s = self.string_operand("prefix")?;
                match Cidr::parse(&s) {
                    Ok(c) => Matcher::Cidr(c),
                    Err(reason) => {
                        return Err(Fault {
                            reason,
                            location: String::new(),
                        })
                    }
                }
            }
            _ => return Err(self.barf(format!("Unrecognized match type {kind}"))),
        };
        self.end_object()?;
        Ok(matcher)
    }

    /// `{"prefix": {"equals-ignore-case": "…"}}` (and suffix), after the inner `{`.
    fn ignore_case_affix(&mut self, prefix: bool) -> R<Matcher> {
        let (word, title) = if prefix {
            ("prefix", "Prefix")
        } else {
            ("suffix", "Suffix")
        };
        let Token::Name(op) = self.next()? else {
            return Err(self.barf(format!("{title} expression name not found")));
        };
        if op != "equals-ignore-case" {
            return Err(self.barf(format!("Unsupported {word} pattern: {op}")));
        }
        let s = self.string_operand("equals-ignore-case")?;
        self.end_object()?;
        self.end_object()?;
        let s: Box<str> = fold(&s).into();
        Ok(if prefix {
            Matcher::PrefixIgnoreCase(s)
        } else {
            Matcher::SuffixIgnoreCase(s)
        })
    }

    fn glob(&self, s: &str) -> R<Glob> {
        Glob::parse(s).map_err(|reason| {
            if reason == TOO_COMPLEX {
                // Found once the pattern is compiled: AWS gives no position.
                Fault {
                    reason,
                    location: String::new(),
                }
            } else {
                self.barf(reason)
            }
        })
    }

    fn anything_but(&mut self) -> R<Matcher> {
        let eb = self.dialect == Dialect::EventBridge;
        let mut token = self.next()?;
        let mut ignore_case = false;
        if token == Token::StartObject {
            let Token::Name(op) = self.next()? else {
                return Err(self.barf("Anything-But expression name not found"));
            };
            match op.as_str() {
                "equals-ignore-case" if eb => {
                    ignore_case = true;
                    token = self.next()?;
                }
                "prefix" | "suffix" | "wildcard" if eb => return self.anything_but_affix(&op),
                "prefix" => {
                    let s = self.string_operand("prefix")?;
                    if s.is_empty() {
                        return Err(self.barf("Null prefix/suffix not allowed"));
                    }
                    self.end_object()?;
                    self.end_object()?;
                    return Ok(Matcher::AnythingButPrefix(Strings(vec![s.into()])));
                }
                _ => return Err(self.barf(format!("Unsupported anything-but pattern: {op}"))),
            }
        }
        let matcher = match token {
            Token::StartArray if ignore_case => {
                let values = self.string_list(
                    "Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.",
                    false,
                )?;
                Matcher::AnythingButIgnoreCase(Strings(values.iter().map(|v| fold(v).into()).collect()))
            }
            Token::StartArray => {
                let (mut strings, mut numbers) = (Vec::new(), Vec::new());
                loop {
                    let t = self.next()?;
                    match t {
                        Token::EndArray => break,
                        Token::Str(_) => {
                            let s = self.text(&t);
                            strings.push(s.into());
                        }
                        Token::Num(ref n) => numbers.push(self.comparable(n, true)?),
                        _ => {
                            return Err(
                                self.barf_twice("Inside anything but list, start|null|boolean is not supported.")
                            )
                        }
                    }
                }
                if strings.is_empty() == numbers.is_empty() {
                    return Err(self.barf(
                        "Inside anything but list, either all values are number or string, mixed type is not supported",
                    ));
                }
                if numbers.is_empty() {
                    Matcher::AnythingBut(Strings(strings))
                } else {
                    Matcher::AnythingButNumber(numbers)
                }
            }
            Token::Str(_) if ignore_case => {
                let s = self.text(&token);
                Matcher::AnythingButIgnoreCase(Strings(vec![fold(&s).into()]))
            }
            Token::Str(_) => {
                let s = self.text(&token);
                Matcher::AnythingBut(Strings(vec![s.into()]))
            }
            Token::Num(_) if ignore_case => {
                return Err(self
                    .barf("Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported."))
            }
            Token::Num(ref n) => Matcher::AnythingButNumber(vec![self.comparable(n, false)?]),
            _ => return Err(self.barf("Value of anything-but must be an array or single string/number value.")),
        };
        if self.next()? != Token::EndObject {
            return Err(self.barf("Too many elements in numeric expression"));
        }
        if ignore_case && self.next()? != Token::EndObject {
            return Err(self.barf("Too many elements in numeric expression"));
        }
        Ok(matcher)
    }

    /// A list of strings, after its `[`; anything else (or, if refused, an empty string) is a
    /// fault AWS raises again, repeating its position.
    fn string_list(&mut self, other: &str, refuse_empty: bool) -> R<Vec<String>> {
        let mut values = Vec::new();
        loop {
            let t = self.next()?;
            match t {
                Token::EndArray => return Ok(values),
                Token::Str(_) => {
                    let s = self.text(&t);
                    if s.is_empty() && refuse_empty {
                        return Err(self.barf_twice("Null prefix/suffix not allowed"));
                    }
                    values.push(s);
                }
                _ => return Err(self.barf_twice(other)),
            }
        }
    }

    /// EventBridge's `{"anything-but": {"prefix" | "suffix" | "wildcard": "…" or […]}}`, after
    /// the operator's name.
    fn anything_but_affix(&mut self, op: &str) -> R<Matcher> {
        let what = if op == "wildcard" {
            "wildcard match pattern must be a string"
        } else {
            "prefix/suffix match pattern must be a string"
        };
        let token = self.next()?;
        let mut values: Vec<String> = Vec::new();
        match token {
            Token::Str(_) => {
                let s = self.text(&token);
                if s.is_empty() && op != "wildcard" {
                    return Err(self.barf("Null prefix/suffix not allowed"));
                }
                values.push(s);
            }
            Token::StartArray => values = self.string_list(what, op != "wildcard")?,
            Token::StartObject => {
                return Err(self.barf("Value of anything-but must be an array or single string/number value."))
            }
            _ => return Err(self.barf(what)),
        }
        self.end_object()?;
        self.end_object()?;
        Ok(match op {
            "prefix" => Matcher::AnythingButPrefix(Strings(values.into_iter().map(Into::into).collect())),
            "suffix" => Matcher::AnythingButSuffix(Strings(values.into_iter().map(Into::into).collect())),
            _ => Matcher::AnythingButWildcard(values.iter().map(|v| self.glob(v)).collect::<R<Vec<_>>>()?),
        })
    }

    /// A number as AWS compares it; out of range is a fault (raised again inside lists).
    fn comparable(&self, text: &str, in_list: bool) -> R<i64> {
        let f = Num::parse(text).f;
        match comparable(f) {
            Some(k) => Ok(k),
            None if in_list => Err(self.barf(RANGE_MESSAGE)),
            None => Err(Fault {
                reason: RANGE_MESSAGE.into(),
                location: String::new(),
            }),
        }
    }

    /// A numeric expression's terms, after its `[`.
    fn numeric(&mut self) -> R<Matcher> {
        let token = self.next()?;
        if !matches!(token, Token::Str(_)) {
            let t = self.text(&token);
            return Err(self.barf(format!("Invalid member in numeric match: {t}")));
        }
        let op = self.text(&token);
        let token = self.next()?;
        let value = |c: &mut Self, token: &Token, op: &str| -> R<f64> {
            match token {
                Token::Num(n) => Ok(Num::parse(n).f),
                _ => Err(c.barf(format!("Value of {op} must be numeric"))),
            }
        };
        let bound = |c: &Self, f: f64| -> R<i64> { comparable(f).ok_or_else(|| c.barf(RANGE_MESSAGE)) };
        match op.as_str() {
            "=" => {
                let v = value(self, &token, "equals")?;
                let k = bound(self, v)?;
                if self.next()? != Token::EndArray {
                    return Err(self.barf("Too many elements in numeric expression"));
                }
                Ok(Matcher::Numeric {
                    low: Some((k, true)),
                    high: Some((k, true)),
                })
            }
            ">=" | ">" => {
                let v = value(self, &token, &op)?;
                let k = bound(self, v)?;
                let low = Some((k, op == ">="));
                let token = self.next()?;
                if token == Token::EndArray {
                    return Ok(Matcher::Numeric { low, high: None });
                }
                if !matches!(token, Token::Str(_)) {
                    let t = self.text(&token);
                    return Err(self.barf(format!("Bad value in numeric range: {t}")));
                }
                let op2 = self.text(&token);
                if op2 != "<" && op2 != "<=" {
                    return Err(self.barf(format!("Bad numeric range operator: {op2}")));
                }
                let token = self.next()?;
                let top = value(self, &token, &op2)?;
                if self.next()? != Token::EndArray {
                    return Err(self.barf("Too many terms in numeric range expression"));
                }
                let kt = bound(self, top)?;
                if v >= top {
                    return Err(self.barf("Bottom must be less than top"));
                }
                Ok(Matcher::Numeric {
                    low,
                    high: Some((kt, op2 == "<=")),
                })
            }
            "<=" | "<" => {
                let v = value(self, &token, &op)?;
                let k = bound(self, v)?;
                if self.next()? != Token::EndArray {
                    return Err(self.barf("Too many elements in numeric expression"));
                }
                Ok(Matcher::Numeric {
                    low: None,
                    high: Some((k, op == "<=")),
                })
            }
            _ => Err(self.barf(format!("Unrecognized numeric range operator: {op}"))),
        }
    }
}

const RANGE_MESSAGE: &str = "Value must be between -5.0E9 and 5.0E9, inclusive";

/// A number as AWS compares it: scaled to six decimal places (rounded) and shifted positive,
/// or `None` beyond ±5e9.
pub(crate) fn comparable(f: f64) -> Option<i64> {
    if !(-FIVE_BILLION..=FIVE_BILLION).contains(&f) {
        return None;
    }
    Some((1e6 * FIVE_BILLION) as i64 + (1e6 * f).round() as i64)
}

/// Text folded for case-insensitive comparison.
pub(crate) fn fold(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}
