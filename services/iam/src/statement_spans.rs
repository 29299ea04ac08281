//! Where each statement of a policy document lies in its text, as the Simulate operations
//! report a deciding statement (`MatchedStatements`: its start and end line and column).
//!
//! IAM counts lines and columns from 1 and reports the position just past the statement's
//! opening brace and just past its closing one: for
//! `{"Version": "2012-10-17", "Statement": {"Effect": …}}` on one line, the statement runs
//! from column 41 to column 113 of line 1 (recorded from AWS by the parity suite's
//! simulation tests). The scanner reads only what it needs — the top-level `Version` and
//! `Statement` members — of a document `stratus-policy` has already accepted; anything else
//! yields `None`, never a panic.

/// A line and column, both counted from 1, columns in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) line: i32,
    pub(crate) column: i32,
}

/// One statement: its text (braces included) and where IAM says it starts and ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StatementSpan<'a> {
    pub(crate) text: &'a str,
    pub(crate) start: Position,
    pub(crate) end: Position,
}

/// The document's `Version` (if it has one) and its statements in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Spans<'a> {
    pub(crate) version: Option<&'a str>,
    pub(crate) statements: Vec<StatementSpan<'a>>,
}

/// The statements of `document`, or `None` when it is not a JSON object whose `Statement`
/// is an object or an array of objects.
pub(crate) fn statement_spans(document: &str) -> Option<Spans<'_>> {
    let mut scanner = Scanner {
        text: document,
        at: 0,
        line: 1,
        column: 1,
    };
    let mut spans = Spans::default();
    scanner.expect('{')?;
    if scanner.peek()? == '}' {
        return Some(spans);
    }
    loop {
        let key = scanner.string()?;
        scanner.expect(':')?;
        match key {
            "Version" => spans.version = Some(scanner.string()?),
            "Statement" => spans.statements = scanner.statements()?,
            _ => scanner.skip_value()?,
        }
        match scanner.next_token()? {
            ',' => continue,
            '}' => return Some(spans),
            _ => return None,
        }
    }
}

struct Scanner<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    line: i32,
    column: i32,
}

impl<'a> Scanner<'a> {
    fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    /// The next character, consumed.
    fn bump(&mut self) -> Option<char> {
        let c = self.text[self.at..].chars().next()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while self.text[self.at..].starts_with([' ', '\t', '\n', '\r']) {
            self.bump();
        }
    }

    /// The next character after whitespace, not consumed.
    fn peek(&mut self) -> Option<char> {
        self.skip_whitespace();
        self.text[self.at..].chars().next()
    }

    /// The next character after whitespace, consumed.
    fn next_token(&mut self) -> Option<char> {
        self.skip_whitespace();
        self.bump()
    }

    fn expect(&mut self, wanted: char) -> Option<()> {
        (self.next_token()? == wanted).then_some(())
    }

    /// A string's raw text between its quotes (escapes left as written).
    fn string(&mut self) -> Option<&'a str> {
        self.expect('"')?;
        let start = self.at;
        loop {
            match self.bump()? {
                '"' => return Some(&self.text[start..self.at - 1]),
                '\\' => {
                    self.bump()?;
                }
                _ => {}
            }
        }
    }

    /// Skips one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            '"' => self.string().map(drop),
            open @ ('{' | '[') => {
                let close = if open == '{' { '}' } else { ']' };
                self.bump();
                if self.peek()? == close {
                    self.bump();
                    return Some(());
                }
                loop {
                    if open == '{' {
                        self.string()?;
                        self.expect(':')?;
                    }
                    self.skip_value()?;
                    match self.next_token()? {
                        ',' => continue,
                        c if c == close => return Some(()),
                        _ => return None,
                    }
                }
            }
            _ => {
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let start = self.at;
                while !self.text[self.at..].starts_with([',', '}', ']', ' ', '\t', '\n', '\r']) {
                    self.bump()?;
                }
                (self.at > start).then_some(())
            }
        }
    }

    /// One statement object, with where it starts and ends.
    fn statement(&mut self) -> Option<StatementSpan<'a>> {
        if self.peek()? != '{' {
            return None;
        }
        let from = self.at;
        // Just past the brace, which is one character.
        let start = Position {
            column: self.column + 1,
            ..self.position()
        };
        self.skip_value()?;
        Some(StatementSpan {
            text: &self.text[from..self.at],
            start,
            end: self.position(),
        })
    }

    /// `Statement`'s value: one statement or an array of them.
    fn statements(&mut self) -> Option<Vec<StatementSpan<'a>>> {
        if self.peek()? == '{' {
            return Some(vec![self.statement()?]);
        }
        self.expect('[')?;
        let mut out = Vec::new();
        if self.peek()? == ']' {
            self.bump();
            return Some(out);
        }
        loop {
            out.push(self.statement()?);
            match self.next_token()? {
                ',' => continue,
                ']' => return Some(out),
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: i32, column: i32) -> Position {
        Position { line, column }
    }

    #[test]
    fn a_lone_statement_on_one_line_runs_from_past_its_brace_to_past_its_close() {
        // The shape json.dumps gives, as AWS was asked to simulate it.
        let document = r#"{"Version": "2012-10-17", "Statement": {"Sid": "", "Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}}"#;
        let spans = statement_spans(document).unwrap();
        assert_eq!(spans.version, Some("2012-10-17"));
        assert_eq!(spans.statements.len(), 1);
        let statement = &spans.statements[0];
        assert_eq!((statement.start, statement.end), (at(1, 41), at(1, 113)));
        assert!(statement.text.starts_with("{\"Sid\"") && statement.text.ends_with("\"*\"}"));
    }

    #[test]
    fn statements_in_an_array_across_lines() {
        let document = "{\n  \"Statement\": [\n    {\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"},\n    {\n      \"Effect\": \"Deny\",\n      \"Action\": [\"s3:Delete*\"],\n      \"Resource\": \"*\",\n      \"Condition\": {\"Bool\": {\"aws:SecureTransport\": \"false\"}}\n    }\n  ],\n  \"Version\": \"2012-10-17\"\n}";
        let spans = statement_spans(document).unwrap();
        assert_eq!(spans.version, Some("2012-10-17"));
        let positions: Vec<_> = spans.statements.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(positions, [(at(3, 6), at(3, 59)), (at(4, 6), at(9, 6))]);
        assert!(spans.statements[1].text.contains("SecureTransport"));
    }

    #[test]
    fn strings_with_braces_and_escapes_do_not_end_a_statement() {
        let document = r#"{"Statement":[{"Sid":"a}\"b{","Effect":"Allow","Action":"s3:*","Resource":"*"}],"Id":"x"}"#;
        let spans = statement_spans(document).unwrap();
        assert_eq!(spans.statements.len(), 1);
        assert_eq!(spans.statements[0].text, &document[14..document.len() - 11]);
        assert_eq!(spans.version, None);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let document = r#"{"Id":"é","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#;
        let spans = statement_spans(document).unwrap();
        assert_eq!(spans.statements[0].start, at(1, 24));
    }

    #[test]
    fn what_is_not_a_policy_object_has_no_spans() {
        for document in [
            "",
            "[]",
            "{",
            r#"{"Statement": "x"}"#,
            r#"{"Statement": [1]}"#,
            r#"{"a" 1}"#,
        ] {
            assert_eq!(statement_spans(document), None, "{document}");
        }
    }
}
