//! CloudWatch Logs filter patterns, as FilterLogEvents, metric filters and subscription
//! filters take them ("Filter pattern syntax for metric filters, subscription filters, filter
//! log events" in the CloudWatch Logs user guide): terms and quoted phrases, `?` for any of
//! several, `-` to exclude, `%regex%`, JSON selectors in `{ … }` and space-delimited fields
//! in `[ … ]`.
//!
//! [`FilterPattern::parse`] refuses what AWS would not take with a [`PatternError`];
//! [`FilterPattern::matches`] answers whether one log message matches, and
//! [`FilterPattern::extract`] what a metric filter would extract from it.
//!
//! ```text
//! let p = FilterPattern::parse(r#"{ $.level = "ERROR" && $.code > 499 }"#).unwrap();
//! assert!(p.matches(r#"{"level":"ERROR","code":503}"#));
//! ```

mod expr;
mod lexer;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use regex::Regex;

pub(crate) use self::expr::{FieldSpec, JsonExpr};

/// Why a filter pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid filter pattern: {0}")]
pub(crate) struct PatternError(pub(crate) String);

pub(crate) fn error(reason: impl Into<String>) -> PatternError {
    PatternError(reason.into())
}

/// A parsed filter pattern.
#[derive(Debug, Clone)]
pub(crate) enum FilterPattern {
    /// The empty pattern, which matches every event.
    All,
    /// Terms, phrases and regular expressions over unstructured text.
    Terms(Vec<Term>),
    /// `{ selector op value && … }` over JSON events.
    Json(JsonExpr),
    /// `[field, field op value, …]` over space-delimited events.
    Fields(Vec<FieldSpec>),
}

/// How a term takes part in a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The message must contain it.
    Required,
    /// `?term`: the message must contain at least one of the optional terms.
    Optional,
    /// `-term`: the message must not contain it.
    Excluded,
}

#[derive(Debug, Clone)]
pub(crate) struct Term {
    pub(crate) role: Role,
    pub(crate) text: Text,
}

/// Text to look for: a literal, or a `%regex%`.
#[derive(Debug, Clone)]
pub(crate) enum Text {
    Literal(String),
    Regex(Regex),
}

impl Text {
    fn found_in(&self, message: &str) -> bool {
        match self {
            Text::Literal(text) => message.contains(text.as_str()),
            Text::Regex(re) => re.is_match(message),
        }
    }
}

/// Compiles a `%regex%` body, bounded so that no pattern costs much to build.
pub(crate) fn compile_regex(body: &str) -> Result<Regex, PatternError> {
    if body.is_empty() {
        return Err(error("empty regular expression"));
    }
    regex::RegexBuilder::new(body)
        .size_limit(1 << 20)
        .nest_limit(64)
        .build()
        .map_err(|_| error(format!("invalid regular expression %{body}%")))
}

impl FilterPattern {
    /// Parses `text` as AWS does: `{…}` is JSON, `[…]` space-delimited, anything else terms;
    /// blank matches everything.
    pub(crate) fn parse(text: &str) -> Result<FilterPattern, PatternError> {
        let trimmed = text.trim();
        // `[]`, a space-delimited pattern of no conditions, takes every event too.
        if trimmed.is_empty() || trimmed == "\"\"" || trimmed.split_whitespace().collect::<String>() == "[]" {
            return Ok(FilterPattern::All);
        }
        if trimmed.starts_with('{') {
            return Ok(FilterPattern::Json(expr::parse_json(trimmed)?));
        }
        if trimmed.starts_with('[') {
            return Ok(FilterPattern::Fields(expr::parse_fields(trimmed)?));
        }
        parse_terms(trimmed).map(FilterPattern::Terms)
    }

    /// Whether `message` matches.
    pub(crate) fn matches(&self, message: &str) -> bool {
        match self {
            FilterPattern::All => true,
            FilterPattern::Terms(terms) => {
                let mut any_optional = false;
                let mut optional_found = false;
                for term in terms {
                    let found = term.text.found_in(message);
                    match term.role {
                        Role::Required if !found => return false,
                        Role::Excluded if found => return false,
                        Role::Optional => {
                            any_optional = true;
                            optional_found |= found;
                        }
                        _ => {}
                    }
                }
                !any_optional || optional_found
            }
            FilterPattern::Json(e) => expr::json_matches(e, message),
            FilterPattern::Fields(fields) => expr::fields_match(fields, message).is_some(),
        }
    }

    /// What a metric filter extracts from a matching `message`: space-delimited fields by
    /// `$name`, JSON selectors by their text. `None` when it does not match.
    pub(crate) fn extract(&self, message: &str) -> Option<BTreeMap<String, String>> {
        match self {
            FilterPattern::Fields(fields) => expr::fields_match(fields, message),
            FilterPattern::Json(e) => expr::json_matches(e, message).then(|| expr::json_extract(e, message)),
            _ => self.matches(message).then(BTreeMap::new),
        }
    }
}

/// Terms, split at blanks outside quotes; `?` and `-` prefix a term, a quoted phrase or a
/// `%regex%`.
fn parse_terms(text: &str) -> Result<Vec<Term>, PatternError> {
    let mut terms = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut role = Role::Required;
        let mut body_start = start;
        if c == '?' || c == '-' {
            role = if c == '?' { Role::Optional } else { Role::Excluded };
            chars.next();
            body_start = start + 1;
        }
        let text_part = match chars.peek().map(|&(_, c)| c) {
            Some('"') => {
                chars.next();
                let mut phrase = String::new();
                let mut closed = false;
                while let Some((_, c)) = chars.next() {
                    match c {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\\' => match chars.next() {
                            Some((_, escaped)) => phrase.push(escaped),
                            None => break,
                        },
                        _ => phrase.push(c),
                    }
                }
                if !closed {
                    return Err(error("unterminated quoted phrase"));
                }
                Text::Literal(phrase)
            }
            Some('%') => {
                chars.next();
                let mut body = String::new();
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    if c == '%' {
                        closed = true;
                        break;
                    }
                    body.push(c);
                }
                if !closed {
                    return Err(error("unterminated regular expression"));
                }
                Text::Regex(compile_regex(&body)?)
            }
            Some(_) => {
                let mut end = text.len();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() {
                        end = i;
                        break;
                    }
                    if c == '"' {
                        return Err(error("a quote inside an unquoted term"));
                    }
                    chars.next();
                }
                let word = &text[body_start..end];
                if word.is_empty() {
                    return Err(error("an empty term"));
                }
                Text::Literal(word.to_owned())
            }
            None => return Err(error("a term is missing after ? or -")),
        };
        terms.push(Term { role, text: text_part });
    }
    Ok(terms)
}

/// `*`-wildcard match of `text` against `glob` (the only wildcard filter patterns have).
pub(crate) fn glob_matches(glob: &str, text: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    if parts.len() == 1 {
        return glob == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}
