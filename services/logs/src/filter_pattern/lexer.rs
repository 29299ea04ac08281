//! Tokens of the structured filter patterns (`{…}` and `[…]`).

use super::{error, PatternError};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    And,
    Or,
    Op(Op),
    /// A quoted string, unescaped.
    Quoted(String),
    /// A `%regex%` body.
    Regex(String),
    /// A run of other characters: a selector, a field name, a bare value, `IS`, `NULL`…
    Word(String),
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Splits `text` into tokens. Inside a word that starts with `$`, `[`, `]` and `*` belong to
/// the selector (`$.a[0]`, `$.b[*].c`).
pub(crate) fn lex(text: &str) -> Result<Vec<Tok>, PatternError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let single = match c {
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(tok) = single {
            tokens.push(tok);
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let two = |a: char, b: char| c == a && next == Some(b);
        let (tok, width) = if two('&', '&') {
            (Tok::And, 2)
        } else if two('|', '|') {
            (Tok::Or, 2)
        } else if two('!', '=') {
            (Tok::Op(Op::Ne), 2)
        } else if two('<', '=') {
            (Tok::Op(Op::Le), 2)
        } else if two('>', '=') {
            (Tok::Op(Op::Ge), 2)
        } else if c == '=' {
            (Tok::Op(Op::Eq), 1)
        } else if c == '<' {
            (Tok::Op(Op::Lt), 1)
        } else if c == '>' {
            (Tok::Op(Op::Gt), 1)
        } else if c == '"' {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => return Err(error("unterminated quoted string")),
                    Some('"') => break,
                    Some('\\') => {
                        j += 1;
                        match chars.get(j) {
                            Some(&e) => s.push(e),
                            None => return Err(error("unterminated quoted string")),
                        }
                    }
                    Some(&ch) => s.push(ch),
                }
                j += 1;
            }
            tokens.push(Tok::Quoted(s));
            i = j + 1;
            continue;
        } else if c == '%' {
            let Some(end) = chars[i + 1..].iter().position(|&ch| ch == '%') else {
                return Err(error("unterminated regular expression"));
            };
            tokens.push(Tok::Regex(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
            continue;
        } else {
            let selector = c == '$';
            let mut j = i;
            while let Some(&ch) = chars.get(j) {
                let ends = ch.is_whitespace()
                    || matches!(
                        ch,
                        '{' | '}' | '(' | ')' | ',' | '"' | '=' | '<' | '>' | '!' | '&' | '|'
                    )
                    || (!selector && matches!(ch, '[' | ']'));
                if ends {
                    break;
                }
                j += 1;
            }
            if j == i {
                return Err(error(format!("unexpected character {c:?}")));
            }
            tokens.push(Tok::Word(chars[i..j].iter().collect()));
            i = j;
            continue;
        };
        tokens.push(tok);
        i += width;
    }
    Ok(tokens)
}
