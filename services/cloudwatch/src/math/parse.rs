//! The metric math expression language (user guide, "Using math expressions with CloudWatch
//! metrics"): numbers, query ids, strings, arrays `[…]`, `+ - * / ^`, comparisons
//! `< <= > >= == !=`, `AND`/`&&`, `OR`/`||`, `NOT`/`!`, and function calls.
//!
//! Precedence, loosest first: `OR`, `AND`, comparisons, `+ -`, `* /`, unary `-` and `NOT`,
//! `^` (right-associative). Nesting is bounded, so no input can exhaust the stack.

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Number(f64),
    Str(String),
    /// Another query's `Id`, or a bare word a function takes (`REPEAT`, `LINEAR`).
    Id(String),
    Array(Vec<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
    /// A function, its name in upper case.
    Call(String, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

/// The deepest nesting of parentheses, brackets and operators accepted.
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Str(String),
    Word(String),
    Sym(&'static str),
}

fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let literal: String = chars[start..i].iter().collect();
            let value = literal.parse().map_err(|_| format!("Invalid number {literal}"))?;
            tokens.push(Token::Number(value));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Word(chars[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let mut value = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err("Unterminated string".to_owned()),
                    Some('\\') if chars.get(i + 1).is_some() => {
                        value.push(chars[i + 1]);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        value.push(other);
                        i += 1;
                    }
                }
            }
            tokens.push(Token::Str(value));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let sym = ["<=", ">=", "==", "!=", "&&", "||"]
                .into_iter()
                .find(|s| *s == two)
                .or_else(|| {
                    ["+", "-", "*", "/", "^", "(", ")", "[", "]", ",", "<", ">", "!"]
                        .into_iter()
                        .find(|s| s.starts_with(c))
                })
                .ok_or_else(|| format!("Unexpected character {c}"))?;
            i += sym.chars().count();
            tokens.push(Token::Sym(sym));
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

/// Parses `text`, or says what is wrong with it.
pub(crate) fn parse(text: &str) -> Result<Expr, String> {
    let mut parser = Parser {
        tokens: lex(text)?,
        at: 0,
        depth: 0,
    };
    if parser.tokens.is_empty() {
        return Err("Empty expression".to_owned());
    }
    let expr = parser.or()?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(t) => Err(format!("Unexpected {}", describe(t))),
    }
}

fn describe(token: &Token) -> String {
    match token {
        Token::Number(n) => format!("number {n}"),
        Token::Str(s) => format!("string '{s}'"),
        Token::Word(w) => format!("word {w}"),
        Token::Sym(s) => format!("'{s}'"),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat_sym(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(s)) if *s == sym) {
            self.at += 1;
            return true;
        }
        false
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            return true;
        }
        false
    }

    fn nested<T>(&mut self, body: impl FnOnce(&mut Parser) -> Result<T, String>) -> Result<T, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("Expression nested too deeply".to_owned());
        }
        let result = body(self);
        self.depth -= 1;
        result
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.eat_sym("||") || self.eat_word("OR") {
            let right = self.nested(Parser::and)?;
            left = Expr::Binary(Op::Or, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.comparison()?;
        while self.eat_sym("&&") || self.eat_word("AND") {
            let right = self.nested(Parser::comparison)?;
            left = Expr::Binary(Op::And, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        let mut left = self.additive()?;
        loop {
            let op = match self.peek() {
                Some(Token::Sym("<")) => Op::Lt,
                Some(Token::Sym("<=")) => Op::Le,
                Some(Token::Sym(">")) => Op::Gt,
                Some(Token::Sym(">=")) => Op::Ge,
                Some(Token::Sym("==")) => Op::Eq,
                Some(Token::Sym("!=")) => Op::Ne,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.nested(Parser::additive)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn additive(&mut self) -> Result<Expr, String> {
        let mut left = self.multiplicative()?;
        loop {
            let op = if self.eat_sym("+") {
                Op::Add
            } else if self.eat_sym("-") {
                Op::Sub
            } else {
                return Ok(left);
            };
            let right = self.nested(Parser::multiplicative)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, String> {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat_sym("*") {
                Op::Mul
            } else if self.eat_sym("/") {
                Op::Div
            } else {
                return Ok(left);
            };
            let right = self.nested(Parser::unary)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat_sym("-") {
            return Ok(Expr::Neg(Box::new(self.nested(Parser::unary)?)));
        }
        if self.eat_sym("!") || self.eat_word("NOT") {
            return Ok(Expr::Not(Box::new(self.nested(Parser::unary)?)));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Expr, String> {
        let base = self.primary()?;
        if self.eat_sym("^") {
            let exponent = self.nested(Parser::unary)?;
            return Ok(Expr::Binary(Op::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn list(&mut self, close: &str) -> Result<Vec<Expr>, String> {
        let mut items = Vec::new();
        if self.eat_sym(close) {
            return Ok(items);
        }
        loop {
            items.push(self.nested(Parser::or)?);
            if self.eat_sym(close) {
                return Ok(items);
            }
            if !self.eat_sym(",") {
                return Err(format!("Expected ',' or '{close}'"));
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(token) = self.peek().cloned() else {
            return Err("Unexpected end of expression".to_owned());
        };
        self.at += 1;
        match token {
            Token::Number(n) => Ok(Expr::Number(n)),
            Token::Str(s) => Ok(Expr::Str(s)),
            Token::Sym("(") => {
                let inner = self.nested(Parser::or)?;
                if !self.eat_sym(")") {
                    return Err("Expected ')'".to_owned());
                }
                Ok(inner)
            }
            Token::Sym("[") => Ok(Expr::Array(self.nested(|p| p.list("]"))?)),
            Token::Word(word) => {
                if self.eat_sym("(") {
                    let args = self.nested(|p| p.list(")"))?;
                    return Ok(Expr::Call(word.to_ascii_uppercase(), args));
                }
                Ok(Expr::Id(word))
            }
            Token::Sym(s) => Err(format!("Unexpected '{s}'")),
        }
    }
}
