//! Tokens of the expression languages. Identifiers start with a letter and continue with
//! letters, digits and `_`; placeholders are `#` or `:` and at least one of those; numbers
//! appear only as list indexes. Anything else is a one-character `Unknown`, which the parser
//! reports as a syntax error naming it.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident,
    Name,
    Value,
    Number,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Unknown,
    Eof,
}

/// A token and its byte span in the expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, pos: 0 }
    }

    pub(super) fn at(src: &'a str, pos: usize) -> Lexer<'a> {
        Lexer { src, pos }
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        let bytes = self.src.as_bytes();
        while self.pos < bytes.len() && keep(bytes[self.pos]) {
            self.pos += 1;
        }
    }

    pub(super) fn next_token(&mut self) -> Token {
        self.skip_while(|b| b.is_ascii_whitespace());
        let start = self.pos;
        let Some(&first) = self.src.as_bytes().get(start) else {
            return Token {
                kind: Tok::Eof,
                start,
                end: start,
            };
        };
        self.pos += 1;
        let second = self.src.as_bytes().get(self.pos).copied();
        let kind = match first {
            b'a'..=b'z' | b'A'..=b'Z' => {
                self.skip_while(is_word_byte);
                Tok::Ident
            }
            b'0'..=b'9' => {
                self.skip_while(|b| b.is_ascii_digit());
                Tok::Number
            }
            b'#' | b':' if second.is_some_and(is_word_byte) => {
                self.skip_while(is_word_byte);
                if first == b'#' {
                    Tok::Name
                } else {
                    Tok::Value
                }
            }
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b',' => Tok::Comma,
            b'.' => Tok::Dot,
            b'=' => Tok::Eq,
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'<' => match second {
                Some(b'=') => self.two(Tok::Le),
                Some(b'>') => self.two(Tok::Ne),
                _ => Tok::Lt,
            },
            b'>' => match second {
                Some(b'=') => self.two(Tok::Ge),
                _ => Tok::Gt,
            },
            _ => {
                // One whole character, so the message quotes it intact.
                let width = self.src[start..].chars().next().map_or(1, char::len_utf8);
                self.pos = start + width;
                Tok::Unknown
            }
        };
        Token {
            kind,
            start,
            end: self.pos,
        }
    }

    fn two(&mut self, kind: Tok) -> Tok {
        self.pos += 1;
        kind
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token();
            out.push(token.kind);
            if token.kind == Tok::Eof {
                return out;
            }
        }
    }

    #[test]
    fn splits_the_grammar_tokens() {
        use Tok::*;
        assert_eq!(
            kinds("a.b[10] <> :v1 AND #n_2 <= (x) >= y < z > w = +-,"),
            vec![
                Ident, Dot, Ident, LBracket, Number, RBracket, Ne, Value, Ident, Name, Le, LParen, Ident, RParen, Ge,
                Ident, Lt, Ident, Gt, Ident, Eq, Plus, Minus, Comma, Eof
            ]
        );
    }

    #[test]
    fn odd_characters_are_single_unknown_tokens() {
        assert_eq!(kinds("_a"), vec![Tok::Unknown, Tok::Ident, Tok::Eof]);
        assert_eq!(kinds("ü"), vec![Tok::Unknown, Tok::Eof]);
        assert_eq!(kinds("# :"), vec![Tok::Unknown, Tok::Unknown, Tok::Eof]);
        let mut lexer = Lexer::new("😀");
        assert_eq!(
            lexer.next_token(),
            Token {
                kind: Tok::Unknown,
                start: 0,
                end: 4
            }
        );
    }
}
