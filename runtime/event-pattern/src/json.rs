//! A streaming JSON tokenizer that reports where it stands as AWS's parser does.
//!
//! AWS compiles patterns with a streaming parser and, on an error, appends the parser's
//! position: `at [Source: (String)"…"; line: 1, column: 23]`. That position depends on how far
//! the parser has read: a field name is read together with the first token of its value, and a
//! string value's text is only consumed (past its closing quote) once it is asked for. This
//! tokenizer keeps the same bookkeeping so that the compiler's errors carry AWS's column.

/// A token of the pattern's text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    StartObject,
    EndObject,
    StartArray,
    EndArray,
    /// A member name (the tokenizer has already read the start of its value).
    Name(String),
    Str(String),
    /// A number, with its text as written.
    Num(String),
    True,
    False,
    Null,
}

impl Token {
    /// The token's text as the AWS parser's `getText` gives it.
    pub(crate) fn text(&self) -> String {
        match self {
            Token::StartObject => "{".into(),
            Token::EndObject => "}".into(),
            Token::StartArray => "[".into(),
            Token::EndArray => "]".into(),
            Token::Name(s) | Token::Str(s) | Token::Num(s) => s.clone(),
            Token::True => "true".into(),
            Token::False => "false".into(),
            Token::Null => "null".into(),
        }
    }
}

/// A syntax error, with the position (in characters) at which it was found.
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) at: usize,
}

/// How deep containers may nest (the AWS parser's limit), which also bounds the compiler's
/// recursion.
const MAX_DEPTH: usize = 1000;

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Object,
    Array,
}

/// Where the parser stands once a token is read, in characters from the start.
#[derive(Clone, Copy)]
struct Spot {
    /// Just after the token's first character (for a string: after its opening quote).
    lazy: usize,
    /// Just after the whole token.
    end: usize,
}

pub(crate) struct Lexer<'a> {
    chars: Vec<char>,
    text: &'a str,
    pos: usize,
    stack: Vec<Ctx>,
    /// A value token read ahead with its member name, and where it ends.
    pending: Option<(Token, Spot)>,
    /// Whether the next member of the current container needs a comma first.
    need_comma: bool,
    /// Whether the last token was a member name.
    after_name: bool,
    last: Spot,
    last_is_string: bool,
    text_taken: bool,
    name_spot: Spot,
    done_root: bool,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lexer {
            chars: text.chars().collect(),
            text,
            pos: 0,
            stack: Vec::new(),
            pending: None,
            need_comma: false,
            after_name: false,
            last: Spot { lazy: 0, end: 0 },
            last_is_string: false,
            text_taken: false,
            name_spot: Spot { lazy: 0, end: 0 },
            done_root: false,
        }
    }

    /// The parser's current position, in characters, as AWS reports it.
    pub(crate) fn position(&self) -> usize {
        if self.after_name {
            return if self.last_is_string {
                self.name_spot.lazy
            } else {
                self.name_spot.end
            };
        }
        if self.last_is_string && !self.text_taken {
            self.last.lazy
        } else {
            self.last.end
        }
    }

    /// Marks the last string token as read in full (AWS's parser asked for its text).
    pub(crate) fn take_text(&mut self) {
        self.text_taken = true;
        if self.after_name {
            self.name_spot.lazy = self.name_spot.end;
        }
    }

    /// The `at [Source: …]` suffix for a position.
    pub(crate) fn location(&self, at: usize) -> String {
        let (mut line, mut col) = (1, 1);
        for &c in self.chars.iter().take(at) {
            if c == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        let shown: String;
        let source = if self.chars.len() > 500 {
            shown = format!(
                "{}\"[truncated {} chars]",
                self.chars[..500].iter().collect::<String>(),
                self.chars.len() - 500
            );
            format!("(String)\"{shown}")
        } else {
            format!("(String)\"{}\"", self.text)
        };
        format!("\n at [Source: {source}; line: {line}, column: {col}]")
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn unexpected(&self, c: char, expecting: &str) -> SyntaxError {
        SyntaxError {
            message: format!("Unexpected character ({}): {expecting}", describe(c)),
            at: self.pos,
        }
    }

    fn eof(&self, within: &str) -> SyntaxError {
        SyntaxError {
            message: format!("Unexpected end-of-input{within}"),
            at: self.pos,
        }
    }

    /// The next token, or `None` after the root value (trailing text is not read, as AWS's
    /// parser does not read it).
    pub(crate) fn next(&mut self) -> Result<Option<Token>, SyntaxError> {
        self.text_taken = false;
        if let Some((token, spot)) = self.pending.take() {
            self.after_name = false;
            self.last = spot;
            self.last_is_string = matches!(token, Token::Str(_));
            self.open(&token);
            return Ok(Some(token));
        }
        self.after_name = false;
        self.skip_ws();
        let Some(c) = self.peek() else {
            if self.stack.is_empty() {
                return Ok(None);
            }
            return Err(self.eof(self.eof_context()));
        };
        match self.stack.last().copied() {
            None => {
                if self.done_root {
                    return Ok(None);
                }
                let (token, spot) = self.value(c)?;
                self.finish(token, spot)
            }
            Some(Ctx::Array) => {
                if c == ']' {
                    return self.close(Ctx::Array);
                }
                let c = self.separator(c, "Array")?;
                let (token, spot) = self.value(c)?;
                self.need_comma = true;
                self.finish(token, spot)
            }
            Some(Ctx::Object) => {
                if c == '}' {
                    return self.close(Ctx::Object);
                }
                let c = self.separator(c, "Object")?;
                if c != '"' {
                    return Err(self.unexpected(c, "was expecting double-quote to start field name"));
                }
                let name = self.string()?;
                self.skip_ws();
                match self.peek() {
                    Some(':') => self.pos += 1,
                    Some(c) => return Err(self.unexpected(c, "was expecting a colon to separate field name and value")),
                    None => return Err(self.eof(self.eof_context())),
                }
                self.skip_ws();
                let Some(c) = self.peek() else {
                    return Err(self.eof(self.eof_context()));
                };
                let (value, spot) = self.value(c)?;
                self.need_comma = true;
                self.name_spot = spot;
                self.last_is_string = matches!(value, Token::Str(_));
                self.pending = Some((value, spot));
                self.after_name = true;
                Ok(Some(Token::Name(name)))
            }
        }
    }

    /// Past the comma before a container's next entry (if one is due): the entry's first
    /// character.
    fn separator(&mut self, c: char, container: &str) -> Result<char, SyntaxError> {
        if self.need_comma {
            if c != ',' {
                return Err(self.unexpected(c, &format!("was expecting comma to separate {container} entries")));
            }
            self.pos += 1;
            self.skip_ws();
        }
        self.peek().ok_or_else(|| self.eof(self.eof_context()))
    }

    fn eof_context(&self) -> &'static str {
        match self.stack.last() {
            Some(Ctx::Object) => ": expected close marker for OBJECT",
            Some(Ctx::Array) => ": expected close marker for ARRAY",
            None => "",
        }
    }

    fn finish(&mut self, token: Token, spot: Spot) -> Result<Option<Token>, SyntaxError> {
        self.last = spot;
        self.last_is_string = matches!(token, Token::Str(_));
        self.open(&token);
        if self.stack.is_empty() {
            self.done_root = true;
        }
        Ok(Some(token))
    }

    fn open(&mut self, token: &Token) {
        match token {
            Token::StartObject => {
                self.stack.push(Ctx::Object);
                self.need_comma = false;
            }
            Token::StartArray => {
                self.stack.push(Ctx::Array);
                self.need_comma = false;
            }
            _ => {}
        }
    }

    fn close(&mut self, ctx: Ctx) -> Result<Option<Token>, SyntaxError> {
        self.pos += 1;
        self.stack.pop();
        self.need_comma = true;
        self.last = Spot {
            lazy: self.pos,
            end: self.pos,
        };
        self.last_is_string = false;
        if self.stack.is_empty() {
            self.done_root = true;
        }
        Ok(Some(match ctx {
            Ctx::Object => Token::EndObject,
            Ctx::Array => Token::EndArray,
        }))
    }

    /// Reads a value's first token (all of it for scalars).
    fn value(&mut self, c: char) -> Result<(Token, Spot), SyntaxError> {
        let start = self.pos;
        if (c == '{' || c == '[') && self.stack.len() >= MAX_DEPTH {
            return Err(SyntaxError {
                message: format!(
                    "Document nesting depth ({}) exceeds the maximum allowed ({MAX_DEPTH}, from `StreamReadConstraints.getMaxNestingDepth()`)",
                    MAX_DEPTH + 1
                ),
                at: self.pos + 1,
            });
        }
        match c {
            '{' => {
                self.pos += 1;
                Ok((Token::StartObject, self.spot(start)))
            }
            '[' => {
                self.pos += 1;
                Ok((Token::StartArray, self.spot(start)))
            }
            ']' | '}' => Err(self.unexpected(c, "expected a value")),
            '"' => {
                let s = self.string()?;
                Ok((
                    Token::Str(s),
                    Spot {
                        lazy: start + 1,
                        end: self.pos,
                    },
                ))
            }
            '-' | '0'..='9' => {
                let n = self.number()?;
                Ok((Token::Num(n), self.spot(start)))
            }
            _ => {
                let mut word = String::new();
                while let Some(c) = self.peek() {
                    if c.is_alphanumeric() || c == '_' || c == '$' {
                        word.push(c);
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                let token = match word.as_str() {
                    "true" => Token::True,
                    "false" => Token::False,
                    "null" => Token::Null,
                    _ if word.is_empty() => {
                        return Err(self.unexpected(
                            c,
                            "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
                        ))
                    }
                    _ => {
                        return Err(SyntaxError {
                            message: format!(
                                "Unrecognized token '{word}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
                            ),
                            at: self.pos,
                        })
                    }
                };
                Ok((token, self.spot(start)))
            }
        }
    }

    fn spot(&self, start: usize) -> Spot {
        Spot {
            lazy: (start + 1).min(self.pos),
            end: self.pos,
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(SyntaxError {
                    message: "Unexpected end-of-input: was expecting closing quote for a string value".into(),
                    at: self.pos,
                });
            };
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(e) = self.peek() else { continue };
                    self.pos += 1;
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let unit = self.hex4()?;
                            if (0xD800..0xDC00).contains(&unit)
                                && self.peek() == Some('\\')
                                && self.chars.get(self.pos + 1) == Some(&'u')
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                                    continue;
                                }
                                self.pos = save;
                            }
                            out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
                        }
                        other => {
                            return Err(SyntaxError {
                                message: format!(
                                    "Unrecognized character escape {}",
                                    describe(other)
                                ),
                                at: self.pos,
                            })
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    return Err(SyntaxError {
                        message: format!(
                            "Illegal unquoted character ({}): has to be escaped using backslash to be included in string value",
                            describe(c)
                        ),
                        at: self.pos,
                    })
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut v = 0;
        for _ in 0..4 {
            let Some(d) = self.peek().and_then(|c| c.to_digit(16)) else {
                return Err(SyntaxError {
                    message: "Unexpected character: expected a hex-digit for character escape sequence".into(),
                    at: self.pos + 1,
                });
            };
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    fn number(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some('-') {
            self.pos += 1;
        }
        let digits = |l: &mut Self| {
            let s = l.pos;
            while matches!(l.peek(), Some('0'..='9')) {
                l.pos += 1;
            }
            l.pos - s
        };
        if digits(self) == 0 {
            return Err(SyntaxError {
                message: "Unexpected character: expected digit (0-9) to follow minus sign, for valid numeric value"
                    .into(),
                at: self.pos + 1,
            });
        }
        if self.peek() == Some('.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(SyntaxError {
                    message: "Unexpected character: Decimal point not followed by a digit".into(),
                    at: self.pos + 1,
                });
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(SyntaxError {
                    message: "Unexpected character: Exponent indicator not followed by a digit".into(),
                    at: self.pos + 1,
                });
            }
        }
        Ok(self.chars[start..self.pos].iter().collect())
    }
}

/// A character as the AWS parser names it in messages: `''' (code 39)`.
fn describe(c: char) -> String {
    let code = c as u32;
    if code < 0x20 {
        format!("CTRL-CHAR, code {code}")
    } else {
        format!("'{c}' (code {code})")
    }
}

/// The text of a JSON document re-written compactly, members in their order, as SNS re-writes a
/// filter policy before compiling it (so AWS's positions count in this text); `None` if the
/// text is not one JSON value.
pub(crate) fn compact(text: &str) -> Option<String> {
    if serde_json::from_str::<serde_json::Value>(text).is_err() {
        return None;
    }
    let mut lx = Lexer::new(text);
    let mut out = String::with_capacity(text.len());
    // Per open container: whether a member was written.
    let mut started: Vec<bool> = Vec::new();
    let mut after_name = false;
    while let Ok(Some(token)) = lx.next() {
        let closing = matches!(token, Token::EndObject | Token::EndArray);
        if !closing && !after_name {
            if let Some(s) = started.last_mut() {
                if *s {
                    out.push(',');
                }
                *s = true;
            }
        }
        after_name = false;
        match token {
            Token::StartObject => {
                out.push('{');
                started.push(false);
            }
            Token::StartArray => {
                out.push('[');
                started.push(false);
            }
            Token::EndObject => {
                out.push('}');
                started.pop();
            }
            Token::EndArray => {
                out.push(']');
                started.pop();
            }
            Token::Name(n) => {
                quote(&mut out, &n);
                out.push(':');
                after_name = true;
            }
            Token::Str(s) => quote(&mut out, &s),
            Token::Num(n) => out.push_str(&java_number(&n)),
            Token::True => out.push_str("true"),
            Token::False => out.push_str("false"),
            Token::Null => out.push_str("null"),
        }
    }
    Some(out)
}

fn quote(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as Java writes it back: integers as written, others as `Double.toString` does.
fn java_number(text: &str) -> String {
    if !text.contains(['.', 'e', 'E']) {
        return text.to_owned();
    }
    let f: f64 = text.parse().unwrap_or(f64::NAN);
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = f.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{f}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Scientific: d.dddE±n, at least one digit after the point.
    let s = format!("{f:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_owned()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exp}")
}
