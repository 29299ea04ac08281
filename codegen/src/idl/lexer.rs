//! Splits Smithy IDL text into tokens.
//!
//! Commas, spaces, newlines and `//` comments are whitespace. `///` documentation comments
//! are not tokens of their own: the lines are joined and attached to the token that follows
//! them, so the parser can find a shape's or member's documentation on its first token.
//! Quoted strings and text blocks are unescaped here (text blocks after their incidental
//! whitespace is removed), so the parser only sees their values.

use super::{Failure, Pos};

/// One lexical element.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// An identifier, namespace or shape id (`foo`, `smithy.api#String`, `Foo$bar`).
    Ident(String),
    /// A quoted string or text block, unescaped.
    Str(String),
    Number(serde_json::Number),
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Colon,
    /// `:=`, which introduces inline operation input and output.
    Walrus,
    Equals,
    At,
    Dollar,
    Eof,
}

/// A token, where it starts, and the documentation comment lines just before it.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    pub doc: Option<String>,
}

/// Tokenizes a whole file; the last token is always [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, Failure> {
    let mut lexer = Lexer {
        chars: src.chars().collect(),
        i: 0,
        line: 1,
        column: 1,
    };
    let mut tokens = Vec::new();
    let mut doc: Vec<String> = Vec::new();
    let mut line_has_token = false;
    loop {
        let Some(c) = lexer.peek(0) else {
            tokens.push(Token {
                tok: Tok::Eof,
                pos: lexer.pos(),
                doc: None,
            });
            return Ok(tokens);
        };
        match c {
            '\n' => {
                lexer.bump();
                line_has_token = false;
            }
            ' ' | '\t' | '\r' | ',' => lexer.bump(),
            '/' if lexer.peek(1) == Some('/') => {
                let is_doc = lexer.peek(2) == Some('/') && !line_has_token;
                let text = lexer.rest_of_line();
                if is_doc {
                    let body = &text[3..];
                    doc.push(body.strip_prefix(' ').unwrap_or(body).to_string());
                }
            }
            _ => {
                let pos = lexer.pos();
                let tok = lexer.token(c)?;
                line_has_token = true;
                let doc = (!doc.is_empty()).then(|| std::mem::take(&mut doc).join("\n"));
                tokens.push(Token { tok, pos, doc });
            }
        }
    }
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: usize,
    column: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    fn fail(&self, message: impl Into<String>) -> Failure {
        Failure {
            pos: self.pos(),
            message: message.into(),
        }
    }

    /// Consumes up to (not including) the next newline and returns it without a trailing CR.
    fn rest_of_line(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek(0).filter(|&c| c != '\n') {
            text.push(c);
            self.bump();
        }
        text.strip_suffix('\r').map(String::from).unwrap_or(text)
    }

    fn token(&mut self, c: char) -> Result<Tok, Failure> {
        let single = match c {
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '=' => Some(Tok::Equals),
            '@' => Some(Tok::At),
            '$' => Some(Tok::Dollar),
            ':' if self.peek(1) == Some('=') => {
                self.bump();
                Some(Tok::Walrus)
            }
            ':' => Some(Tok::Colon),
            _ => None,
        };
        if let Some(tok) = single {
            self.bump();
            return Ok(tok);
        }
        match c {
            '"' if self.peek(1) == Some('"') && self.peek(2) == Some('"') => self.text_block(),
            '"' => self.quoted(),
            '-' | '0'..='9' => self.number(),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let text = self.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '#' | '$'));
                Ok(Tok::Ident(text))
            }
            other => Err(self.fail(format!("unexpected character {other:?}"))),
        }
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek(0).filter(|&c| keep(c)) {
            text.push(c);
            self.bump();
        }
        text
    }

    fn number(&mut self) -> Result<Tok, Failure> {
        let pos = self.pos();
        let text = self.take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'));
        serde_json::from_str(&text).map(Tok::Number).map_err(|_| Failure {
            pos,
            message: format!("invalid number {text:?}"),
        })
    }

    /// The raw characters up to the closing delimiter of `quotes` double quotes, with escape
    /// sequences left in place (an escaped quote never closes the string).
    fn raw_until(&mut self, quotes: usize) -> Result<String, Failure> {
        let start = self.pos();
        let mut raw = String::new();
        loop {
            match self.peek(0) {
                None => {
                    return Err(Failure {
                        pos: start,
                        message: "unterminated string".into(),
                    })
                }
                Some('\\') => {
                    raw.push('\\');
                    self.bump();
                    if let Some(next) = self.peek(0) {
                        raw.push(next);
                        self.bump();
                    }
                }
                Some('"') if (0..quotes).all(|k| self.peek(k) == Some('"')) => {
                    (0..quotes).for_each(|_| self.bump());
                    return Ok(raw.replace("\r\n", "\n"));
                }
                Some(c) => {
                    raw.push(c);
                    self.bump();
                }
            }
        }
    }

    fn quoted(&mut self) -> Result<Tok, Failure> {
        let pos = self.pos();
        self.bump();
        let raw = self.raw_until(1)?;
        unescape(&raw).map(Tok::Str).map_err(|message| Failure { pos, message })
    }

    fn text_block(&mut self) -> Result<Tok, Failure> {
        let pos = self.pos();
        (0..3).for_each(|_| self.bump());
        self.take_while(|c| c == ' ' || c == '\t');
        if self.peek(0) == Some('\r') {
            self.bump();
        }
        if self.peek(0) != Some('\n') {
            return Err(self.fail("a text block's opening \"\"\" must be followed by a new line"));
        }
        self.bump();
        let raw = self.raw_until(3)?;
        unescape(&strip_incidental_whitespace(&raw))
            .map(Tok::Str)
            .map_err(|message| Failure { pos, message })
    }
}

/// Re-indents a text block's raw content: removes the whitespace prefix common to its
/// non-blank lines (and to the closing delimiter's line), then trailing spaces on every line.
fn strip_incidental_whitespace(raw: &str) -> String {
    let lines: Vec<&str> = raw.split('\n').collect();
    let indent = |line: &str| line.chars().take_while(|c| *c == ' ' || *c == '\t').count();
    let last = lines.len() - 1;
    let common = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| *i == last || !line.trim().is_empty())
        .map(|(_, line)| indent(line))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|line| {
            let rest: String = line.chars().skip(common).collect();
            rest.trim_end_matches([' ', '\t']).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Expands the escape sequences of a quoted string or text block.
fn unescape(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\n') => {}
            Some('u') => {
                let unit = hex4(&mut chars)?;
                let code = if (0xD800..0xDC00).contains(&unit) {
                    let low = match (chars.next(), chars.next()) {
                        (Some('\\'), Some('u')) => hex4(&mut chars)?,
                        _ => return Err("unpaired surrogate in \\u escape".into()),
                    };
                    0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                } else {
                    unit
                };
                out.push(char::from_u32(code).ok_or_else(|| format!("invalid \\u escape {code:#x}"))?);
            }
            other => {
                return Err(format!(
                    "invalid escape sequence \\{}",
                    other.map(String::from).unwrap_or_default()
                ))
            }
        }
    }
    Ok(out)
}

fn hex4(chars: &mut std::str::Chars) -> Result<u32, String> {
    let digits: String = chars.take(4).collect();
    u32::from_str_radix(&digits, 16)
        .ok()
        .filter(|_| digits.len() == 4)
        .ok_or_else(|| format!("invalid \\u escape {digits:?}"))
}
