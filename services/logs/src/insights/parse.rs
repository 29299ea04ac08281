//! The query text into [`Query`](super::Query).

use super::{Aggregate, CmpOp, Command, Condition, Function, GroupKey, Literal, Matcher, Query};

/// Why a query was refused (`MalformedQueryException`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct QueryError(pub(crate) String);

fn error(reason: impl Into<String>) -> QueryError {
    QueryError(reason.into())
}

/// How deep `not` and parentheses may nest.
const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Regex(String),
    Number(f64),
    Sym(&'static str),
}

fn lex(text: &str) -> Result<Vec<Tok>, QueryError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two: String = [c, chars.get(i + 1).copied().unwrap_or(' ')].iter().collect();
        if let Some(sym) = ["!=", "<=", ">=", "=~"].into_iter().find(|s| *s == two) {
            tokens.push(Tok::Sym(sym));
            i += 2;
            continue;
        }
        match c {
            '|' | ',' | '(' | ')' | '=' | '<' | '>' | '*' => {
                let sym = match c {
                    '|' => "|",
                    ',' => ",",
                    '(' => "(",
                    ')' => ")",
                    '=' => "=",
                    '<' => "<",
                    '>' => ">",
                    _ => "*",
                };
                tokens.push(Tok::Sym(sym));
                i += 1;
            }
            '"' | '\'' | '/' | '`' => {
                let close = c;
                let mut s = String::new();
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => return Err(error(format!("unterminated {close}"))),
                        Some(&ch) if ch == close => break,
                        Some('\\') if close != '/' => {
                            j += 1;
                            s.extend(chars.get(j));
                        }
                        Some(&ch) => s.push(ch),
                    }
                    j += 1;
                }
                tokens.push(match close {
                    '/' => Tok::Regex(s),
                    '`' => Tok::Word(s),
                    _ => Tok::Quoted(s),
                });
                i = j + 1;
            }
            _ => {
                let mut j = i;
                while let Some(&ch) = chars.get(j) {
                    if ch.is_whitespace() || "|,()=<>!*\"'/`~".contains(ch) {
                        break;
                    }
                    j += 1;
                }
                if j == i {
                    return Err(error(format!("unexpected character {c:?}")));
                }
                let word: String = chars[i..j].iter().collect();
                tokens.push(match word.parse::<f64>() {
                    Ok(n) if n.is_finite() && !word.starts_with('@') => Tok::Number(n),
                    _ => Tok::Word(word),
                });
                i = j;
            }
        }
    }
    Ok(tokens)
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
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn at_end_of_command(&self) -> bool {
        matches!(self.peek(), None | Some(Tok::Sym("|")))
    }

    fn field(&mut self) -> Result<String, QueryError> {
        match self.next() {
            Some(Tok::Word(w)) => Ok(w),
            other => Err(error(format!("expected a field, found {other:?}"))),
        }
    }

    fn field_list(&mut self) -> Result<Vec<String>, QueryError> {
        let mut fields = vec![self.field()?];
        while self.eat_sym(",") {
            fields.push(self.field()?);
        }
        Ok(fields)
    }

    fn literal(&mut self) -> Result<Literal, QueryError> {
        match self.next() {
            Some(Tok::Quoted(s)) => Ok(Literal::Text(s)),
            Some(Tok::Number(n)) => Ok(Literal::Number(n)),
            Some(Tok::Word(w)) => Ok(Literal::Text(w)),
            other => Err(error(format!("expected a value, found {other:?}"))),
        }
    }

    fn matcher(&mut self) -> Result<Matcher, QueryError> {
        match self.next() {
            Some(Tok::Quoted(s)) => Ok(Matcher::Substring(s)),
            Some(Tok::Regex(r)) => regex::RegexBuilder::new(&r)
                .size_limit(1 << 20)
                .build()
                .map(Matcher::Regex)
                .map_err(|_| error(format!("invalid regular expression /{r}/"))),
            other => Err(error(format!("expected a string or /regex/, found {other:?}"))),
        }
    }

    fn or(&mut self, depth: usize) -> Result<Condition, QueryError> {
        let mut left = self.and(depth)?;
        while self.eat_word("or") {
            left = Condition::Or(Box::new(left), Box::new(self.and(depth)?));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Condition, QueryError> {
        let mut left = self.unary(depth)?;
        while self.eat_word("and") {
            left = Condition::And(Box::new(left), Box::new(self.unary(depth)?));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Condition, QueryError> {
        if depth > MAX_DEPTH {
            return Err(error("the condition nests too deep"));
        }
        if self.eat_word("not") {
            return Ok(Condition::Not(Box::new(self.unary(depth + 1)?)));
        }
        if self.eat_sym("(") {
            let inner = self.or(depth + 1)?;
            if !self.eat_sym(")") {
                return Err(error("expected )"));
            }
            return Ok(inner);
        }
        let field = self.field()?;
        if self.eat_word("like") || self.eat_sym("=~") {
            return Ok(Condition::Like(field, self.matcher()?));
        }
        let negated_like = self.eat_word("not");
        if negated_like {
            if !self.eat_word("like") {
                return Err(error("expected like after not"));
            }
            return Ok(Condition::Not(Box::new(Condition::Like(field, self.matcher()?))));
        }
        let op = match self.next() {
            Some(Tok::Sym("=")) => CmpOp::Eq,
            Some(Tok::Sym("!=")) => CmpOp::Ne,
            Some(Tok::Sym("<")) => CmpOp::Lt,
            Some(Tok::Sym("<=")) => CmpOp::Le,
            Some(Tok::Sym(">")) => CmpOp::Gt,
            Some(Tok::Sym(">=")) => CmpOp::Ge,
            other => return Err(error(format!("expected a comparison, found {other:?}"))),
        };
        Ok(Condition::Compare(field, op, self.literal()?))
    }

    fn stats(&mut self) -> Result<Command, QueryError> {
        let mut aggregates = Vec::new();
        loop {
            let name = self.field()?;
            let function = match name.to_ascii_lowercase().as_str() {
                "count" => Function::Count,
                "sum" => Function::Sum,
                "avg" => Function::Avg,
                "min" => Function::Min,
                "max" => Function::Max,
                other => return Err(error(format!("unsupported stats function {other}"))),
            };
            if !self.eat_sym("(") {
                return Err(error("expected ( after the stats function"));
            }
            let field = if self.eat_sym("*") {
                None
            } else if self.eat_sym(")") {
                self.at -= 1;
                None
            } else {
                Some(self.field()?)
            };
            if !self.eat_sym(")") {
                return Err(error("expected )"));
            }
            if field.is_none() && function != Function::Count {
                return Err(error(format!("{name}() needs a field")));
            }
            let written = format!("{name}({})", field.as_deref().unwrap_or("*"));
            let name = if self.eat_word("as") { self.field()? } else { written };
            aggregates.push(Aggregate { function, field, name });
            if !self.eat_sym(",") {
                break;
            }
        }
        let mut by = Vec::new();
        if self.eat_word("by") {
            loop {
                if self.eat_word("bin") {
                    if !self.eat_sym("(") {
                        return Err(error("expected ( after bin"));
                    }
                    let period = match self.next() {
                        Some(Tok::Word(w)) => w,
                        other => return Err(error(format!("expected a period such as 5m, found {other:?}"))),
                    };
                    if !self.eat_sym(")") {
                        return Err(error("expected )"));
                    }
                    let millis = period_millis(&period)?;
                    let written = format!("bin({period})");
                    let name = if self.eat_word("as") { self.field()? } else { written };
                    by.push(GroupKey::Bin { millis, name });
                } else {
                    let field = self.field()?;
                    if self.eat_word("as") {
                        self.field()?;
                    }
                    by.push(GroupKey::Field(field));
                }
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        Ok(Command::Stats { aggregates, by })
    }

    fn command(&mut self) -> Result<Command, QueryError> {
        let name = match self.next() {
            Some(Tok::Word(w)) => w.to_ascii_lowercase(),
            other => return Err(error(format!("expected a command, found {other:?}"))),
        };
        Ok(match name.as_str() {
            "fields" => Command::Fields(self.field_list()?),
            "display" => Command::Display(self.field_list()?),
            "dedup" => Command::Dedup(self.field_list()?),
            "filter" => Command::Filter(self.or(0)?),
            "stats" => self.stats()?,
            "limit" => match self.next() {
                Some(Tok::Number(n)) if (1.0..=10_000.0).contains(&n) && n.fract() == 0.0 => Command::Limit(n as usize),
                other => return Err(error(format!("limit takes a number from 1 to 10000, not {other:?}"))),
            },
            "sort" => {
                let mut keys = Vec::new();
                loop {
                    let field = self.field()?;
                    let descending = if self.eat_word("desc") {
                        true
                    } else {
                        self.eat_word("asc");
                        false
                    };
                    keys.push((field, descending));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
                Command::Sort(keys)
            }
            "parse" => {
                let source = self.field()?;
                let glob = match self.next() {
                    Some(Tok::Quoted(g)) => g,
                    other => return Err(error(format!("parse takes a quoted glob, not {other:?}"))),
                };
                if !self.eat_word("as") {
                    return Err(error("expected as after the parse pattern"));
                }
                let names = self.field_list()?;
                if names.len() != glob.matches('*').count() {
                    return Err(error("parse needs one name for each * of its pattern"));
                }
                Command::Parse { source, glob, names }
            }
            other => return Err(error(format!("unsupported command {other}"))),
        })
    }
}

/// `5m`, `1h`, `30s`, `1d`, `100ms` in milliseconds.
fn period_millis(period: &str) -> Result<i64, QueryError> {
    let split = period.find(|c: char| !c.is_ascii_digit()).unwrap_or(period.len());
    let (number, unit) = period.split_at(split);
    let n: i64 = number.parse().map_err(|_| error(format!("invalid period {period}")))?;
    let unit_ms = match unit {
        "ms" => 1,
        "s" | "sec" => 1_000,
        "m" | "min" => 60_000,
        "h" | "hr" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        _ => return Err(error(format!("invalid period {period}"))),
    };
    match n.checked_mul(unit_ms) {
        Some(ms) if ms > 0 => Ok(ms),
        _ => Err(error(format!("invalid period {period}"))),
    }
}

impl Query {
    pub(crate) fn parse(text: &str) -> Result<Query, QueryError> {
        let mut p = Parser {
            tokens: lex(text)?,
            at: 0,
        };
        let mut commands = Vec::new();
        loop {
            commands.push(p.command()?);
            if !p.at_end_of_command() {
                return Err(error(format!("unexpected {:?}", p.peek())));
            }
            if p.next().is_none() {
                break;
            }
        }
        Ok(Query { commands })
    }
}
