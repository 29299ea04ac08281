//! The search expressions of `SEARCH()` (user guide, "CloudWatch search expression syntax"):
//! an optional schema `{Namespace, DimensionName, …}` — metrics of that namespace with
//! exactly those dimensions — then terms: a word (matched, ignoring case, within the
//! namespace, metric name, dimension names and values), a quoted phrase (a whole value), a
//! `Property=value` (`Namespace`, `MetricName` or a dimension name; quoted means the whole
//! value), joined by `AND` (also implied), `OR` and `NOT`, grouped by parentheses.

use crate::metric::MetricId;

/// A parsed search expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Search {
    schema: Option<(String, Vec<String>)>,
    terms: Term,
}

#[derive(Clone, Debug, PartialEq)]
enum Term {
    All,
    Word(String),
    Phrase(String),
    Property(String, String, bool),
    And(Box<Term>, Box<Term>),
    Or(Box<Term>, Box<Term>),
    Not(Box<Term>),
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Open,
    Close,
}

const MAX_DEPTH: usize = 32;

fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            c if c.is_whitespace() => i += 1,
            '=' => {
                tokens.push(Token::Equals);
                i += 1;
            }
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            '"' => {
                let mut value = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("Unterminated quoted term in search expression".to_owned()),
                        Some('\\') if i + 1 < chars.len() => {
                            value.push(chars[i + 1]);
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(c) => {
                            value.push(*c);
                            i += 1;
                        }
                    }
                }
                tokens.push(Token::Quoted(value));
            }
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !matches!(chars[i], '=' | '(' | ')' | '"') {
                    i += 1;
                }
                tokens.push(Token::Word(chars[start..i].iter().collect()));
            }
        }
    }
    Ok(tokens)
}

/// Parses a search expression.
pub(crate) fn parse(text: &str) -> Result<Search, String> {
    let text = text.trim();
    let (schema, rest) = match text.strip_prefix('{') {
        Some(after) => {
            let (inside, rest) = after
                .split_once('}')
                .ok_or_else(|| "Unterminated schema in search expression".to_owned())?;
            let mut names = inside.split(',').map(|n| n.trim().trim_matches('"').to_owned());
            let namespace = names
                .next()
                .filter(|n| !n.is_empty())
                .ok_or("Empty schema in search expression")?;
            let mut dimensions: Vec<String> = names.filter(|n| !n.is_empty()).collect();
            dimensions.sort();
            (Some((namespace, dimensions)), rest)
        }
        None => (None, text),
    };
    let tokens = lex(rest)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    let terms = if parser.tokens.is_empty() {
        Term::All
    } else {
        parser.or()?
    };
    if parser.at != parser.tokens.len() {
        return Err("Unexpected ')' in search expression".to_owned());
    }
    if schema.is_none() && terms == Term::All {
        return Err("Empty search expression".to_owned());
    }
    Ok(Search { schema, terms })
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn keyword(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(w)) if w == word)
    }

    fn or(&mut self) -> Result<Term, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("Search expression nested too deeply".to_owned());
        }
        let mut left = self.and()?;
        while self.keyword("OR") {
            self.at += 1;
            left = Term::Or(Box::new(left), Box::new(self.and()?));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn and(&mut self) -> Result<Term, String> {
        let mut left = self.unary()?;
        loop {
            if self.keyword("AND") {
                self.at += 1;
            } else if self.at >= self.tokens.len() || self.keyword("OR") || self.tokens[self.at] == Token::Close {
                return Ok(left);
            }
            left = Term::And(Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Term, String> {
        if self.keyword("NOT") {
            self.at += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err("Search expression nested too deeply".to_owned());
            }
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Term::Not(Box::new(inner)));
        }
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or_else(|| "Search expression ends early".to_owned())?;
        self.at += 1;
        match token {
            Token::Open => {
                let inner = self.or()?;
                if self.tokens.get(self.at) != Some(&Token::Close) {
                    return Err("Expected ')' in search expression".to_owned());
                }
                self.at += 1;
                Ok(inner)
            }
            Token::Word(name) | Token::Quoted(name) if self.tokens.get(self.at) == Some(&Token::Equals) => {
                self.at += 1;
                match self.tokens.get(self.at).cloned() {
                    Some(Token::Word(value)) => {
                        self.at += 1;
                        Ok(Term::Property(name, value, false))
                    }
                    Some(Token::Quoted(value)) => {
                        self.at += 1;
                        Ok(Term::Property(name, value, true))
                    }
                    _ => Err(format!("Expected a value after {name}= in search expression")),
                }
            }
            Token::Word(word) => Ok(Term::Word(word.to_lowercase())),
            Token::Quoted(phrase) => Ok(Term::Phrase(phrase)),
            Token::Close | Token::Equals => Err("Unexpected symbol in search expression".to_owned()),
        }
    }
}

impl Search {
    /// Whether `metric` is one this expression finds.
    pub(crate) fn matches(&self, metric: &MetricId) -> bool {
        if let Some((namespace, dimensions)) = &self.schema {
            let names: Vec<&str> = metric.dimensions.iter().map(|(n, _)| n.as_str()).collect();
            if &metric.namespace != namespace || names != dimensions.iter().map(String::as_str).collect::<Vec<_>>() {
                return false;
            }
        }
        self.terms.matches(metric)
    }
}

impl Term {
    fn matches(&self, m: &MetricId) -> bool {
        let fields = || {
            [m.namespace.as_str(), m.name.as_str()]
                .into_iter()
                .chain(m.dimensions.iter().flat_map(|(n, v)| [n.as_str(), v.as_str()]))
        };
        match self {
            Term::All => true,
            Term::Word(word) => fields().any(|f| f.to_lowercase().contains(word.as_str())),
            Term::Phrase(phrase) => fields().any(|f| f == phrase),
            Term::Property(name, value, exact) => {
                let actual = match name.as_str() {
                    "Namespace" => Some(m.namespace.as_str()),
                    "MetricName" => Some(m.name.as_str()),
                    other => m.dimension(other),
                };
                actual.is_some_and(|a| {
                    if *exact {
                        a == value
                    } else {
                        a.to_lowercase().contains(&value.to_lowercase())
                    }
                })
            }
            Term::And(a, b) => a.matches(m) && b.matches(m),
            Term::Or(a, b) => a.matches(m) || b.matches(m),
            Term::Not(a) => !a.matches(m),
        }
    }
}
