//! Policy variables: `${aws:username}` and friends in `Resource` and in string, ARN and
//! `Bool` condition values (the operators page says `Bool` takes them, the variables page
//! says it does not; the operator reference is followed), replaced by the request's value for that context key. `${*}`,
//! `${?}` and `${$}` write those characters literally, and `${key, 'default'}` gives a value
//! for a key the request lacks. A key the request lacks (or holds several values for), with no default,
//! leaves the value matching nothing.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html>)
//!
//! Version `2008-10-17` knows no variables: there `${aws:username}` is literal text.

use crate::context::Request;
use crate::wildcard::{tokenize, Tok, Token};

/// A value as written in the policy, split into text and variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Text as written, and as pattern pieces: `*` and `?` in it are wildcards where the
    /// operator has them.
    Text(String, Vec<Token>),
    /// A character a `${*}`, `${?}` or `${$}` escape wrote: never a wildcard.
    Escaped(Escape),
    Variable {
        /// Lowercased: context keys are not case-sensitive.
        key: String,
        default: Option<String>,
    },
}

impl Template {
    /// `text` with its variables found; `None` when it has none (the common case).
    pub(crate) fn parse(text: &str) -> Option<Template> {
        if !text.contains("${") {
            return None;
        }
        let mut parts = Vec::new();
        let mut text_part = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("${") {
            text_part.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            match variable(after) {
                Some((part, used)) => {
                    if !text_part.is_empty() {
                        parts.push(text_part_of(std::mem::take(&mut text_part)));
                    }
                    parts.push(part);
                    rest = &after[used..];
                }
                None => {
                    // Not a variable (`${foo` unclosed, `${}`): the text stays as written.
                    text_part.push_str("${");
                    rest = after;
                }
            }
        }
        text_part.push_str(rest);
        if !text_part.is_empty() {
            parts.push(text_part_of(text_part));
        }
        Some(Template { parts })
    }

    /// The context keys of its variables (lowercased), in order.
    pub(crate) fn variable_keys(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable { key, .. } => Some(key.as_str()),
            _ => None,
        })
    }

    /// Whether `candidate` is exactly the value with the request's values put in, compared
    /// piece by piece (nothing is built).
    pub(crate) fn equals(&self, request: &Request, candidate: &str) -> bool {
        let mut rest = candidate;
        for part in &self.parts {
            let piece = match part {
                Part::Text(text, _) => text.as_str(),
                Part::Escaped(c) => c.as_str(),
                Part::Variable { key, default } => match value(request, key, default) {
                    Some(v) => v,
                    None => return false,
                },
            };
            match rest.strip_prefix(piece) {
                Some(after) => rest = after,
                None => return false,
            }
        }
        rest.is_empty()
    }

    /// The value with the request's values put in, every character literal.
    pub(crate) fn resolve_text(&self, request: &Request) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text, _) => out.push_str(text),
                Part::Escaped(c) => out.push_str(c.as_str()),
                Part::Variable { key, default } => out.push_str(value(request, key, default)?),
            }
        }
        Some(out)
    }

    /// The value as a wildcard pattern: the written text keeps its wildcards, the values
    /// put in for variables do not. The pieces borrow from the policy and the request.
    pub(crate) fn resolve_tokens<'a>(&'a self, request: &'a Request) -> Option<Vec<Tok<&'a str>>> {
        let mut out = Vec::with_capacity(self.parts.len() * 2);
        for part in &self.parts {
            match part {
                Part::Text(_, tokens) => out.extend(tokens.iter().map(Tok::borrowed)),
                Part::Escaped(c) => out.push(Tok::Lit(c.as_str())),
                Part::Variable { key, default } => out.push(Tok::Lit(value(request, key, default)?)),
            }
        }
        Some(out)
    }
}

fn text_part_of(text: String) -> Part {
    let mut tokens = Vec::new();
    tokenize(&text, &mut tokens);
    Part::Text(text, tokens)
}

/// A character written with `${*}`, `${?}` or `${$}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    Star,
    Question,
    Dollar,
}

impl Escape {
    fn as_str(&self) -> &'static str {
        match self {
            Escape::Star => "*",
            Escape::Question => "?",
            Escape::Dollar => "$",
        }
    }
}

fn value<'a>(request: &'a Request, key: &str, default: &'a Option<String>) -> Option<&'a str> {
    match request.values(key) {
        Some([single]) => Some(single.as_str()),
        _ => default.as_deref(),
    }
}

/// The variable at the start of `text` (just after `${`), and the bytes it took with `}`.
fn variable(text: &str) -> Option<(Part, usize)> {
    let end_of_key = text.find([',', '}'])?;
    let key = text[..end_of_key].trim_matches(' ');
    if key.is_empty() || key.contains(' ') {
        return None;
    }
    if text.as_bytes()[end_of_key] == b'}' {
        let part = match key {
            "*" => Part::Escaped(Escape::Star),
            "?" => Part::Escaped(Escape::Question),
            "$" => Part::Escaped(Escape::Dollar),
            _ => Part::Variable {
                key: key.to_ascii_lowercase(),
                default: None,
            },
        };
        return Some((part, end_of_key + 1));
    }
    // `, 'default'`: a quote inside the default is written twice.
    let after_comma = &text[end_of_key + 1..];
    let quoted = after_comma.trim_start_matches(' ');
    let mut chars = quoted.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let mut default = String::new();
    let mut close = None;
    let bytes = quoted.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                default.push('\'');
                i += 2;
                continue;
            }
            close = Some(i);
            break;
        }
        let len = quoted[i..].chars().next()?.len_utf8();
        default.push_str(&quoted[i..i + len]);
        i += len;
    }
    let close = close?;
    let tail = &quoted[close + 1..];
    let brace = tail.len() - tail.trim_start_matches(' ').len();
    if tail.as_bytes().get(brace) != Some(&b'}') {
        return None;
    }
    let used = (text.len() - tail.len()) + brace + 1;
    let key = key.to_ascii_lowercase();
    Some((
        Part::Variable {
            key,
            default: Some(default),
        },
        used,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Principal;

    fn request() -> Request {
        let principal = Principal::parse("arn:aws:iam::123456789012:user/alice").unwrap();
        Request::new(principal, "s3:GetObject", ["arn:aws:s3:::b/alice/x"]).with_user_id("AIDA1")
    }

    fn text(value: &str) -> Option<String> {
        Template::parse(value).unwrap().resolve_text(&request())
    }

    #[test]
    fn variables_take_the_request_values() {
        assert_eq!(text("home/${aws:username}/").as_deref(), Some("home/alice/"));
        assert_eq!(text("${AWS:UserName}-${aws:userid}").as_deref(), Some("alice-AIDA1"));
        assert_eq!(text("${aws:PrincipalTag/team}"), None);
    }

    #[test]
    fn defaults_and_escapes() {
        assert_eq!(text("${aws:PrincipalTag/team, 'none'}").as_deref(), Some("none"));
        assert_eq!(text("${ aws:PrincipalTag/team ,  'it''s' }").as_deref(), Some("it's"));
        assert_eq!(text("${*}${?}${$}").as_deref(), Some("*?$"));
        assert_eq!(text("a${b").as_deref(), Some("a${b"));
        assert_eq!(text("${}").as_deref(), Some("${}"));
        assert_eq!(text("${x, unquoted}").as_deref(), Some("${x, unquoted}"));
    }

    #[test]
    fn escaped_wildcards_are_literal_in_patterns() {
        let (template, request) = (Template::parse("a*${*}").unwrap(), request());
        let tokens = template.resolve_tokens(&request).unwrap();
        assert_eq!(tokens, vec![Tok::Lit("a"), Tok::Star, Tok::Lit("*")]);
    }
}
