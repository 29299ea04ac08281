//! A recursive-descent parser for the four grammars. It resolves placeholders as it goes and
//! records semantic problems (reserved words, undefined placeholders, unknown functions) in
//! a [`Deferred`] instead of stopping, because AWS reports a syntax error anywhere in the
//! expression before any of those.
//!
//! Condition grammar, loosest first: `OR`, `AND`, `NOT`, then a predicate — an operand
//! followed by a comparator, `BETWEEN x AND y` or `IN (…)`, or a function call or
//! parenthesised condition on its own. Parentheses may also wrap operands (`(a) = (b)`).

use super::ast::{ArithOp, Comparator, Element, Expr, Func, Path};
use super::error::{Deferred, ExprError, ExpressionKind, Reason};
use super::lexer::{Lexer, Tok, Token};
use super::reserved::is_reserved;
use super::{check, Placeholders};

/// The longest expression AWS accepts.
pub const MAX_EXPRESSION_BYTES: usize = 4096;

/// How deep parentheses and function calls may nest. The 4 KB limit already bounds this;
/// the lower bound keeps recursion well inside a 2 MB thread stack.
const MAX_NESTING: usize = 100;

/// The clause keywords of an update expression, in the order AWS names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Set,
    Remove,
    Add,
    Delete,
}

impl Section {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Section::Set => "SET",
            Section::Remove => "REMOVE",
            Section::Add => "ADD",
            Section::Delete => "DELETE",
        }
    }

    fn from_word(word: &str) -> Option<Section> {
        [Section::Set, Section::Remove, Section::Add, Section::Delete]
            .into_iter()
            .find(|section| section.name().eq_ignore_ascii_case(word))
    }
}

/// One action of an update expression, before checking.
pub(crate) enum RawAction<'a> {
    Set(Path<'a>, Expr<'a>),
    Remove(Path<'a>),
    Add(Path<'a>, Expr<'a>),
    Delete(Path<'a>, Expr<'a>),
}

pub(crate) struct Parser<'a, 'p> {
    src: &'a str,
    lexer: Lexer<'a>,
    current: Token,
    previous: Option<Token>,
    kind: ExpressionKind,
    placeholders: &'p mut Placeholders<'a>,
    pub(crate) deferred: Deferred,
    /// The span of the last parenthesised group closed, to spot `((…))`.
    last_group: Option<(usize, usize)>,
    /// Open parentheses and calls around the current token.
    nesting: usize,
}

impl<'a, 'p> Parser<'a, 'p> {
    /// A parser positioned on the first token; refuses an empty expression.
    pub(super) fn new(
        src: &'a str,
        kind: ExpressionKind,
        placeholders: &'p mut Placeholders<'a>,
    ) -> Result<Self, ExprError> {
        if src.trim().is_empty() {
            return Err(ExprError::Invalid(kind, Reason::Empty));
        }
        if src.len() > MAX_EXPRESSION_BYTES {
            return Err(ExprError::Invalid(kind, Reason::TooLong(src.len())));
        }
        let mut lexer = Lexer::new(src);
        let current = lexer.next_token();
        Ok(Parser {
            src,
            lexer,
            current,
            previous: None,
            kind,
            placeholders,
            deferred: Deferred::default(),
            last_group: None,
            nesting: 0,
        })
    }

    fn bump(&mut self) -> Token {
        let token = self.current;
        self.previous = Some(token);
        self.current = self.lexer.next_token();
        token
    }

    fn text(&self, token: Token) -> &'a str {
        &self.src[token.start..token.end]
    }

    /// AWS's syntax error: the offending token, and the text from the token before it to the
    /// token after it.
    fn syntax_error(&self, token: Token) -> ExprError {
        let start = self.previous.map_or(token.start, |p| p.start.min(token.start));
        let end = if token.kind == Tok::Eof {
            self.previous.map_or(token.end, |p| p.end)
        } else {
            let after = Lexer::at(self.src, token.end).next_token();
            if after.kind == Tok::Eof {
                token.end
            } else {
                after.end
            }
        };
        let token_text = if token.kind == Tok::Eof {
            "<EOF>".to_owned()
        } else {
            self.text(token).to_owned()
        };
        ExprError::Invalid(
            self.kind,
            Reason::Syntax {
                token: token_text,
                near: self.src[start..end].to_owned(),
            },
        )
    }

    fn expect(&mut self, kind: Tok) -> Result<Token, ExprError> {
        if self.current.kind == kind {
            Ok(self.bump())
        } else {
            Err(self.syntax_error(self.current))
        }
    }

    fn at_keyword(&self, word: &str) -> bool {
        self.current.kind == Tok::Ident && self.text(self.current).eq_ignore_ascii_case(word)
    }

    fn is_grammar_word(&self, word: &str) -> bool {
        let words: &[&str] = match self.kind {
            ExpressionKind::Update => &["SET", "REMOVE", "ADD", "DELETE"],
            ExpressionKind::Projection => &[],
            _ => &["AND", "OR", "NOT", "BETWEEN", "IN"],
        };
        words.iter().any(|w| w.eq_ignore_ascii_case(word))
    }

    pub(super) fn expect_end(&mut self) -> Result<(), ExprError> {
        self.expect(Tok::Eof).map(drop)
    }

    /// After a list item: `true` past a comma, `false` at the end, a syntax error otherwise.
    pub(super) fn expect_comma_or_end(&mut self) -> Result<bool, ExprError> {
        if self.current.kind == Tok::Comma {
            self.bump();
            return Ok(true);
        }
        self.expect_end().map(|()| false)
    }

    // ---- paths ----

    fn path_name(&mut self) -> Result<&'a str, ExprError> {
        let token = self.current;
        match token.kind {
            Tok::Ident => {
                let word = self.text(token);
                if self.is_grammar_word(word) {
                    return Err(self.syntax_error(token));
                }
                self.bump();
                if is_reserved(word) {
                    self.deferred.push(Reason::Reserved(word.to_owned()));
                }
                Ok(word)
            }
            Tok::Name => {
                self.bump();
                let placeholder = self.text(token);
                Ok(self.placeholders.name(placeholder).unwrap_or_else(|| {
                    self.deferred.push(Reason::UndefinedName(placeholder.to_owned()));
                    placeholder
                }))
            }
            _ => Err(self.syntax_error(token)),
        }
    }

    /// The rest of a path whose first name has been read.
    fn path_after(&mut self, first: &'a str) -> Result<Path<'a>, ExprError> {
        let mut elements = vec![Element::Name(first)];
        loop {
            match self.current.kind {
                Tok::Dot => {
                    self.bump();
                    elements.push(Element::Name(self.path_name()?));
                }
                Tok::LBracket => {
                    self.bump();
                    let token = self.current;
                    let index = match token.kind {
                        Tok::Number => self.text(token).parse::<usize>().ok(),
                        _ => None,
                    };
                    let Some(index) = index else {
                        return Err(self.syntax_error(token));
                    };
                    self.bump();
                    self.expect(Tok::RBracket)?;
                    elements.push(Element::Index(index));
                }
                _ => return Ok(Path(elements)),
            }
        }
    }

    pub(super) fn path(&mut self) -> Result<Path<'a>, ExprError> {
        let first = self.path_name()?;
        self.path_after(first)
    }

    fn value(&mut self) -> Expr<'a> {
        let token = self.bump();
        let placeholder = self.text(token);
        match self.placeholders.value(placeholder) {
            Some(value) => Expr::Value(value),
            None => {
                self.deferred.push(Reason::UndefinedValue(placeholder.to_owned()));
                Expr::Invalid
            }
        }
    }

    // ---- conditions ----

    /// A condition node just completed: check it now, after its children (see [`check::node`]).
    fn built(&mut self, expr: Expr<'a>) -> Expr<'a> {
        if self.kind == ExpressionKind::Update {
            check::update_node(&expr, &mut self.deferred);
        } else {
            check::node(&expr, &mut self.deferred);
        }
        expr
    }

    pub(super) fn condition(&mut self) -> Result<Expr<'a>, ExprError> {
        let expr = self.or()?;
        self.require_condition(&expr)?;
        Ok(expr)
    }

    /// A bare operand where a condition belongs is a syntax error at the token after it.
    fn require_condition(&self, expr: &Expr<'a>) -> Result<(), ExprError> {
        if matches!(expr, Expr::Path(_) | Expr::Value(_)) {
            Err(self.syntax_error(self.current))
        } else {
            Ok(())
        }
    }

    fn or(&mut self) -> Result<Expr<'a>, ExprError> {
        let mut left = self.and()?;
        while self.at_keyword("OR") {
            self.require_condition(&left)?;
            self.bump();
            let right = self.and()?;
            self.require_condition(&right)?;
            left = self.built(Expr::Or(Box::new([left, right])));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr<'a>, ExprError> {
        let mut left = self.not()?;
        while self.at_keyword("AND") {
            self.require_condition(&left)?;
            self.bump();
            let right = self.not()?;
            self.require_condition(&right)?;
            left = self.built(Expr::And(Box::new([left, right])));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr<'a>, ExprError> {
        let mut negations = 0;
        while self.at_keyword("NOT") {
            self.bump();
            negations += 1;
        }
        let mut expr = self.predicate()?;
        for _ in 0..negations {
            self.require_condition(&expr)?;
            expr = self.built(Expr::Not(Box::new(expr)));
        }
        Ok(expr)
    }

    /// Enters a parenthesis or call; too deep is a syntax error at its opening token.
    fn enter(&mut self) -> Result<(), ExprError> {
        if self.nesting == MAX_NESTING {
            return Err(self.syntax_error(self.current));
        }
        self.nesting += 1;
        Ok(())
    }

    fn comparator(&self) -> Option<Comparator> {
        Some(match self.current.kind {
            Tok::Eq => Comparator::Eq,
            Tok::Ne => Comparator::Ne,
            Tok::Lt => Comparator::Lt,
            Tok::Le => Comparator::Le,
            Tok::Gt => Comparator::Gt,
            Tok::Ge => Comparator::Ge,
            _ => return None,
        })
    }

    fn predicate(&mut self) -> Result<Expr<'a>, ExprError> {
        let left = self.term()?;
        if let Some(comparator) = self.comparator() {
            self.require_operand(&left)?;
            self.bump();
            let right = self.operand()?;
            return Ok(self.built(Expr::Compare(comparator, Box::new([left, right]))));
        }
        if self.at_keyword("BETWEEN") {
            self.require_operand(&left)?;
            self.bump();
            let low = self.operand()?;
            if !self.at_keyword("AND") {
                return Err(self.syntax_error(self.current));
            }
            self.bump();
            let high = self.operand()?;
            return Ok(self.built(Expr::Between(Box::new([left, low, high]))));
        }
        if self.at_keyword("IN") {
            self.require_operand(&left)?;
            self.bump();
            self.expect(Tok::LParen)?;
            let mut list = vec![self.operand()?];
            while self.current.kind == Tok::Comma {
                self.bump();
                list.push(self.operand()?);
            }
            self.expect(Tok::RParen)?;
            return Ok(self.built(Expr::In(Box::new(left), list)));
        }
        Ok(left)
    }

    fn require_operand(&self, expr: &Expr<'a>) -> Result<(), ExprError> {
        if expr.is_operand() || matches!(expr, Expr::Call(..)) {
            Ok(())
        } else {
            Err(self.syntax_error(self.current))
        }
    }

    fn operand(&mut self) -> Result<Expr<'a>, ExprError> {
        let expr = self.term()?;
        self.require_operand(&expr)?;
        Ok(expr)
    }

    /// A path, a value, a function call or a parenthesised condition or operand.
    fn term(&mut self) -> Result<Expr<'a>, ExprError> {
        match self.current.kind {
            Tok::LParen => {
                self.enter()?;
                let open = self.bump();
                let first_inside = self.current.start;
                let inner = self.or()?;
                let inner_end = self.previous.map(|token| token.end);
                let close = self.expect(Tok::RParen)?;
                self.nesting -= 1;
                // Redundant when the group holds exactly the last group closed: `((…))`.
                if self
                    .last_group
                    .is_some_and(|(start, end)| start == first_inside && Some(end) == inner_end)
                {
                    return Err(ExprError::Invalid(self.kind, Reason::RedundantParentheses));
                }
                self.last_group = Some((open.start, close.end));
                Ok(inner)
            }
            Tok::Value => Ok(self.value()),
            Tok::Ident if Lexer::at(self.src, self.current.end).next_token().kind == Tok::LParen => self.call(),
            Tok::Ident | Tok::Name => Ok(Expr::Path(self.path()?)),
            _ => Err(self.syntax_error(self.current)),
        }
    }

    /// A function call; the arguments of condition functions may be anything a condition
    /// may hold, so misuse like `size(contains(a, b))` is reported by name, as AWS does.
    fn call(&mut self) -> Result<Expr<'a>, ExprError> {
        self.enter()?;
        let token = self.bump();
        let name = self.text(token);
        self.expect(Tok::LParen)?;
        let mut args = Vec::new();
        if self.current.kind != Tok::RParen {
            loop {
                args.push(if self.kind == ExpressionKind::Update {
                    self.update_value()?
                } else {
                    self.or()?
                });
                if self.current.kind != Tok::Comma {
                    break;
                }
                self.bump();
            }
        }
        self.expect(Tok::RParen)?;
        self.nesting -= 1;
        let func = Func::from_name(name);
        match func {
            Some(func) if self.kind == ExpressionKind::Update && !func.is_update_function() => {
                self.deferred.push(Reason::FunctionNotInUpdate(func.name()));
                Ok(Expr::Invalid)
            }
            Some(func) if self.kind != ExpressionKind::Update && func.is_update_function() => {
                self.deferred.push(Reason::UnknownFunction(name.to_owned()));
                Ok(Expr::Invalid)
            }
            Some(func) => Ok(self.built(Expr::Call(func, args))),
            None => {
                self.deferred.push(Reason::UnknownFunction(name.to_owned()));
                Ok(Expr::Invalid)
            }
        }
    }

    // ---- update expressions ----

    /// All actions, in the order written, and the sections seen.
    pub(super) fn update(&mut self) -> Result<Vec<RawAction<'a>>, ExprError> {
        let mut actions = Vec::new();
        let mut seen: Vec<Section> = Vec::new();
        loop {
            let token = self.current;
            let section = match token.kind {
                Tok::Ident => Section::from_word(self.text(token)),
                _ => None,
            };
            let Some(section) = section else {
                return Err(self.syntax_error(token));
            };
            self.bump();
            if seen.contains(&section) {
                self.deferred.push(Reason::RepeatedSection(section.name()));
            }
            seen.push(section);
            loop {
                let path = self.path()?;
                actions.push(match section {
                    Section::Set => {
                        self.expect(Tok::Eq)?;
                        RawAction::Set(path, self.update_value()?)
                    }
                    Section::Remove => RawAction::Remove(path),
                    Section::Add => RawAction::Add(path, self.action_value()?),
                    Section::Delete => RawAction::Delete(path, self.action_value()?),
                });
                if self.current.kind != Tok::Comma {
                    break;
                }
                self.bump();
            }
            if self.current.kind == Tok::Eof {
                return Ok(actions);
            }
        }
    }

    fn action_value(&mut self) -> Result<Expr<'a>, ExprError> {
        if self.current.kind == Tok::Value {
            Ok(self.value())
        } else {
            Err(self.syntax_error(self.current))
        }
    }

    /// `operand`, `operand + operand` or `operand - operand`.
    fn update_value(&mut self) -> Result<Expr<'a>, ExprError> {
        let left = self.update_operand()?;
        let op = match self.current.kind {
            Tok::Plus => ArithOp::Plus,
            Tok::Minus => ArithOp::Minus,
            _ => return Ok(left),
        };
        self.bump();
        let right = self.update_operand()?;
        Ok(self.built(Expr::Arith(op, Box::new([left, right]))))
    }

    fn update_operand(&mut self) -> Result<Expr<'a>, ExprError> {
        match self.current.kind {
            Tok::LParen => {
                self.enter()?;
                self.bump();
                let inner = self.update_value()?;
                self.expect(Tok::RParen)?;
                self.nesting -= 1;
                Ok(inner)
            }
            Tok::Value => Ok(self.value()),
            Tok::Ident if Lexer::at(self.src, self.current.end).next_token().kind == Tok::LParen => self.call(),
            Tok::Ident | Tok::Name => Ok(Expr::Path(self.path()?)),
            _ => Err(self.syntax_error(self.current)),
        }
    }
}
