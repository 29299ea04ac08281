//! The part of jq that dynamic partitioning's inline parsing takes (`MetadataExtractionQuery`,
//! "Partitioning keys" in the Firehose developer guide): one object of keys and the paths
//! into the record that fill them, each path optionally piped through `strftime` (epoch
//! seconds formatted with `%Y %m %d %H %M %S %j %y %%`) or `tostring`:
//!
//! ```text
//! {customer_id: .customer_id, device: .type.device, "year": .ts | strftime("%Y")}
//! ```
//!
//! Paths take `.name`, `."name"`, `.["name"]` and `.[index]`. A key whose value is missing or
//! `null`, an object or an array fails the record, as Firehose fails it.

use std::collections::BTreeMap;

use serde_json::Value;

/// A parsed `MetadataExtractionQuery`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Query {
    keys: Vec<(String, Expr)>,
}

#[derive(Debug, Clone, PartialEq)]
struct Expr {
    path: Vec<Step>,
    filters: Vec<Filter>,
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    Index(i64),
}

#[derive(Debug, Clone, PartialEq)]
enum Filter {
    Strftime(String),
    ToString,
}

/// Why a query does not parse, or a record gives a key no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct JqError(pub(crate) String);

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), JqError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", c as char)))
        }
    }

    fn error(&self, what: &str) -> JqError {
        JqError(format!("jq: error: syntax error, {what} at offset {}", self.at))
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.at += 1;
        }
        let word = &self.text[start..self.at];
        (!word.is_empty() && !word[0].is_ascii_digit()).then(|| String::from_utf8_lossy(word).into_owned())
    }

    /// A JSON string literal, escapes decoded.
    fn string(&mut self) -> Result<String, JqError> {
        self.skip_space();
        if self.text.get(self.at) != Some(&b'"') {
            return Err(self.error("expected a string"));
        }
        let start = self.at;
        self.at += 1;
        while let Some(&c) = self.text.get(self.at) {
            self.at += 1;
            match c {
                b'\\' => self.at += 1,
                b'"' => {
                    return serde_json::from_slice(&self.text[start..self.at.min(self.text.len())])
                        .map_err(|_| self.error("invalid string"))
                }
                _ => {}
            }
        }
        Err(self.error("unterminated string"))
    }

    fn integer(&mut self) -> Result<i64, JqError> {
        self.skip_space();
        let start = self.at;
        if self.text.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        while self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        std::str::from_utf8(&self.text[start..self.at])
            .ok()
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(|| self.error("expected an index"))
    }

    fn path(&mut self) -> Result<Vec<Step>, JqError> {
        self.expect(b'.')?;
        let mut steps = Vec::new();
        let mut first = true;
        loop {
            match self.text.get(self.at).copied() {
                Some(b'[') => {
                    self.at += 1;
                    steps.push(match self.peek() {
                        Some(b'"') => Step::Field(self.string()?),
                        _ => Step::Index(self.integer()?),
                    });
                    self.expect(b']')?;
                }
                Some(b'"') => steps.push(Step::Field(self.string()?)),
                Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                    steps.push(Step::Field(self.ident().ok_or_else(|| self.error("expected a name"))?))
                }
                _ if first => return Ok(steps),
                _ => return Err(self.error("expected a name after '.'")),
            }
            first = false;
            match self.text.get(self.at) {
                Some(b'.') => self.at += 1,
                Some(b'[') => {}
                _ => return Ok(steps),
            }
        }
    }

    fn expr(&mut self) -> Result<Expr, JqError> {
        let path = self.path()?;
        let mut filters = Vec::new();
        while self.peek() == Some(b'|') {
            self.at += 1;
            let name = self.ident().ok_or_else(|| self.error("expected a function"))?;
            filters.push(match name.as_str() {
                "strftime" => {
                    self.expect(b'(')?;
                    let format = self.string()?;
                    self.expect(b')')?;
                    Filter::Strftime(format)
                }
                "tostring" => Filter::ToString,
                other => return Err(JqError(format!("jq: error: {other}/0 is not defined"))),
            });
        }
        Ok(Expr { path, filters })
    }
}

impl Query {
    /// Parses a `MetadataExtractionQuery`.
    pub(crate) fn parse(text: &str) -> Result<Query, JqError> {
        let mut p = Parser {
            text: text.as_bytes(),
            at: 0,
        };
        p.expect(b'{')?;
        let mut keys = Vec::new();
        loop {
            let key = match p.peek() {
                Some(b'"') => p.string()?,
                _ => p.ident().ok_or_else(|| p.error("expected a key"))?,
            };
            p.expect(b':')?;
            keys.push((key, p.expr()?));
            match p.peek() {
                Some(b',') => p.at += 1,
                Some(b'}') => break,
                _ => return Err(p.error("expected ',' or '}'")),
            }
        }
        p.at += 1;
        if p.peek().is_some() {
            return Err(p.error("unexpected text after the query"));
        }
        Ok(Query { keys })
    }

    /// The keys the query defines.
    pub(crate) fn key_names(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(k, _)| k.as_str())
    }

    /// The partition keys of one record, a JSON document.
    pub(crate) fn evaluate(&self, record: &Value) -> Result<BTreeMap<String, String>, JqError> {
        let mut out = BTreeMap::new();
        for (key, expr) in &self.keys {
            let mut value = expr
                .path
                .iter()
                .try_fold(record, |v, step| match step {
                    Step::Field(name) => v.get(name),
                    Step::Index(i) => {
                        let items = v.as_array()?;
                        let i = if *i < 0 { items.len() as i64 + i } else { *i };
                        usize::try_from(i).ok().and_then(|i| items.get(i))
                    }
                })
                .cloned()
                .unwrap_or(Value::Null);
            for filter in &expr.filters {
                value = match filter {
                    Filter::ToString => Value::String(scalar(&value).unwrap_or_else(|| value.to_string())),
                    Filter::Strftime(format) => {
                        let secs = value
                            .as_f64()
                            .filter(|secs| (MIN_SECS..=MAX_SECS).contains(secs))
                            .ok_or_else(|| JqError("jq: error: strftime/1 requires parsed datetime inputs".into()))?;
                        Value::String(strftime(format, secs.floor() as i64))
                    }
                };
            }
            let text = scalar(&value)
                .ok_or_else(|| JqError(format!("partition key {key} has no value usable in an S3 prefix")))?;
            out.insert(key.clone(), text);
        }
        Ok(out)
    }
}

/// The times `strftime` formats: the years 0 to 9999.
const MIN_SECS: f64 = -62_167_219_200.0;
const MAX_SECS: f64 = 253_402_300_799.0;

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `secs` formatted as C's `strftime` formats a UTC time, for the conversions jq's own
/// examples use.
fn strftime(format: &str, secs: i64) -> String {
    let (year, month, day, hour, minute, second) = stratus_core::calendar::civil_from_seconds(secs);
    let day_of_year = secs.div_euclid(86_400) - stratus_core::calendar::days_from_civil(year, 1, 1) + 1;
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&format!("{:02}", year.rem_euclid(100))),
            Some('m') => out.push_str(&format!("{month:02}")),
            Some('d') => out.push_str(&format!("{day:02}")),
            Some('H') => out.push_str(&format!("{hour:02}")),
            Some('M') => out.push_str(&format!("{minute:02}")),
            Some('S') => out.push_str(&format!("{second:02}")),
            Some('j') => out.push_str(&format!("{day_of_year:03}")),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use stratus_test_support::{fuzz_input, Rng};

    use super::*;

    // The developer guide's sample record and its table of keys and jq expressions.
    #[test]
    fn the_guides_keys_come_out_of_its_sample_record() {
        let record = json!({
            "type": {"device": "mobile", "event": "user_clicked_submit_button"},
            "customer_id": "1234567890",
            "event_timestamp": 1565382027,
            "region": "sample_region",
        });
        let query = Query::parse(
            r#"{customer_id: .customer_id, device: .type.device, year: .event_timestamp| strftime("%Y"), month: .event_timestamp| strftime("%m"), day: .event_timestamp| strftime("%d"), hour: .event_timestamp| strftime("%H")}"#,
        )
        .unwrap();
        let keys = query.evaluate(&record).unwrap();
        let pairs: Vec<_> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("customer_id", "1234567890"),
                ("day", "09"),
                ("device", "mobile"),
                ("hour", "20"),
                ("month", "08"),
                ("year", "2019"),
            ]
        );
    }

    #[test]
    fn paths_take_quoted_names_indexes_and_scalars() {
        let record = json!({"a b": {"list": [1, {"x": true}]}, "n": 3.5});
        let query = Query::parse(
            r#"{ "k1" : ."a b".list[1].x, k2: .["a b"]["list"][0], k3: .n | tostring, k4: .["a b"].list[-2] }"#,
        )
        .unwrap();
        let keys = query.evaluate(&record).unwrap();
        assert_eq!(keys["k1"], "true");
        assert_eq!(keys["k2"], "1");
        assert_eq!(keys["k3"], "3.5");
        assert_eq!(keys["k4"], "1");
        assert_eq!(query.key_names().collect::<Vec<_>>(), ["k1", "k2", "k3", "k4"]);
    }

    #[test]
    fn a_key_without_a_scalar_value_fails_the_record() {
        let query = Query::parse("{k: .missing}").unwrap();
        assert!(query.evaluate(&json!({"other": 1})).is_err());
        let query = Query::parse("{k: .obj}").unwrap();
        assert!(query.evaluate(&json!({"obj": {}})).is_err());
        assert!(query.evaluate(&json!(null)).is_err());
    }

    #[test]
    fn malformed_queries_are_refused() {
        for text in [
            "",
            "{",
            "{k}",
            "{k: }",
            "{k: .a",
            "{k: .a,}",
            "{k: .a | nope}",
            "{k: .a} x",
            "{k: .a.}",
            "{k: .[x]}",
        ] {
            assert!(Query::parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn parsing_and_evaluating_never_panic() {
        let seeds: &[&[u8]] = &[
            br#"{customer_id: .customer_id, device: .type.device}"#,
            br#"{"y": .ts | strftime("%Y/%m/%d %j %%"), z: .["a"][0] | tostring}"#,
        ];
        let tokens: &[&[u8]] = &[
            b"{", b"}", b".", b"[", b"]", b"\"", b"|", b":", b",", b"-", b"9", b"\\", b"\xff",
        ];
        let record = json!({"customer_id": "c", "type": {"device": "d"}, "ts": 1e18, "a": [-1]});
        let mut rng = Rng(0x4a51_7e57);
        for i in 0..5_000 {
            let input = fuzz_input(&mut rng, i, seeds, tokens, 16);
            if let Ok(query) = Query::parse(&String::from_utf8_lossy(&input)) {
                let _ = query.evaluate(&record);
            }
        }
    }
}
