//! PartiQL tokens: words, `"quoted identifiers"`, `'strings'`, numbers, `?` and punctuation.

use super::{malformed, PartiqlError};

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A bare word: an identifier or a keyword (compared without case).
    Word(String),
    /// A `"double-quoted"` identifier, taken as written.
    Quoted(String),
    /// A `'single-quoted'` string.
    Str(String),
    /// A number as written.
    Num(String),
    /// `?`, a parameter.
    Param,
    /// Punctuation and operators.
    Sym(&'static str),
}

impl Tok {
    pub fn is_word(&self, keyword: &str) -> bool {
        matches!(self, Tok::Word(w) if w.eq_ignore_ascii_case(keyword))
    }
}

const SYMBOLS: [&str; 21] = [
    "<<", ">>", "<=", ">=", "<>", "!=", "=", "<", ">", "(", ")", "[", "]", "{", "}", ",", ".", ":", "*", "+", "-",
];

/// The tokens of `text`.
pub fn tokens(text: &str) -> Result<Vec<Tok>, PartiqlError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii_whitespace() {
            at += 1;
        } else if b == b'-' && bytes.get(at + 1) == Some(&b'-') {
            // A comment to the end of the line.
            while at < bytes.len() && bytes[at] != b'\n' {
                at += 1;
            }
        } else if b == b'\'' || b == b'"' {
            let (content, next) = quoted(text, at, b)?;
            out.push(if b == b'\'' {
                Tok::Str(content)
            } else {
                Tok::Quoted(content)
            });
            at = next;
        } else if b.is_ascii_digit() || (b == b'.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)) {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
                at += 1;
            }
            if at < bytes.len() && (bytes[at] == b'e' || bytes[at] == b'E') {
                at += 1;
                if at < bytes.len() && (bytes[at] == b'+' || bytes[at] == b'-') {
                    at += 1;
                }
                while at < bytes.len() && bytes[at].is_ascii_digit() {
                    at += 1;
                }
            }
            out.push(Tok::Num(text[start..at].to_owned()));
        } else if b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_' || bytes[at] == b'$') {
                at += 1;
            }
            out.push(Tok::Word(text[start..at].to_owned()));
        } else if b == b'?' {
            out.push(Tok::Param);
            at += 1;
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| text[at..].starts_with(**s)) {
            out.push(Tok::Sym(symbol));
            at += symbol.len();
        } else {
            let c = text[at..].chars().next().unwrap_or('?');
            return Err(malformed(format!("Unexpected character: {c}")));
        }
    }
    Ok(out)
}

/// The content of the quoted text starting at `start` (a doubled quote is one quote), and
/// where it ends.
fn quoted(text: &str, start: usize, quote: u8) -> Result<(String, usize), PartiqlError> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut at = start + 1;
    let mut run = at;
    loop {
        let Some(&b) = bytes.get(at) else {
            return Err(malformed(if quote == b'\'' {
                "Unterminated string literal"
            } else {
                "Unterminated quoted identifier"
            }));
        };
        if b == quote {
            out.push_str(&text[run..at]);
            if bytes.get(at + 1) == Some(&quote) {
                out.push(quote as char);
                at += 2;
                run = at;
                continue;
            }
            return Ok((out, at + 1));
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_statements() {
        let toks = tokens(r#"SELECT "a b", c FROM "T"."i" WHERE x <> 'it''s' AND n >= -1.5e3 AND s = <<?>>"#).unwrap();
        assert_eq!(toks[1], Tok::Quoted("a b".into()));
        assert!(toks.contains(&Tok::Str("it's".into())));
        assert!(toks.contains(&Tok::Sym("<>")));
        assert!(toks.contains(&Tok::Num("1.5e3".into())));
        assert!(toks.contains(&Tok::Sym("<<")));
        assert!(toks.contains(&Tok::Param));
    }

    #[test]
    fn refuses_unterminated_text() {
        assert!(tokens("SELECT * FROM t WHERE a = 'x").is_err());
        assert!(tokens("SELECT * FROM \"t").is_err());
        assert!(tokens("SELECT # FROM t").is_err());
    }
}
