//! One difference between two versions of a shape, and how it reads in a report.

use std::fmt;

use serde_json::Value;

use crate::model::Kind;

/// A trait value longer than this is shortened in a report: it is a rule set or a document,
/// and the report says that it changed, not how.
const LONGEST_VALUE: usize = 100;

/// One change to a shape, an operation or the service shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The shape's type changed (a string became an enum, a set a list...).
    Kind {
        from: Kind,
        to: Kind,
    },
    MemberAdded {
        member: String,
        target: String,
    },
    MemberRemoved {
        member: String,
    },
    /// A member now targets another shape (names without namespace).
    Target {
        member: String,
        from: String,
        to: String,
    },
    /// A member became required, or stopped being.
    Required {
        member: String,
        now: bool,
    },
    /// Any other trait the generator reads, on the shape (`member: None`) or on one member.
    Trait {
        member: Option<String>,
        id: String,
        from: Option<Value>,
        to: Option<Value>,
    },
    /// Values of an enum, an intEnum or a string with the Smithy 1 `@enum` trait.
    EnumValues {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// An operation's input or output structure is another shape.
    Io {
        which: Io,
        from: String,
        to: String,
    },
    /// Errors an operation (or, on the service shape, every operation) can answer.
    Errors {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// The service shape's API version.
    Version {
        from: Option<String>,
        to: Option<String>,
    },
}

/// Which end of an operation a [`Change::Io`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Io {
    Input,
    Output,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Kind { from, to } => write!(f, "type {} → {}", kind_name(*from), kind_name(*to)),
            Change::MemberAdded { member, target } => write!(f, "+{member}: {target}"),
            Change::MemberRemoved { member } => write!(f, "-{member}"),
            Change::Target { member, from, to } => write!(f, "{member}: {from} → {to}"),
            Change::Required { member, now: true } => write!(f, "{member} now required"),
            Change::Required { member, now: false } => write!(f, "{member} no longer required"),
            Change::Trait { member, id, from, to } => {
                if let Some(member) = member {
                    write!(f, "{member} ")?;
                }
                let name = trait_name(id);
                match (from, to) {
                    (None, Some(to)) => write!(f, "+@{name}{}", spaced(&trait_value(id, to))),
                    (Some(from), None) => write!(f, "-@{name}{}", spaced(&trait_value(id, from))),
                    (Some(from), Some(to)) => {
                        write!(f, "@{name} {} → {}", trait_value(id, from), trait_value(id, to))
                    }
                    (None, None) => Ok(()),
                }
            }
            Change::EnumValues { added, removed } => f.write_str(&added_and_removed("values", added, removed)),
            Change::Io { which, from, to } => {
                let which = match which {
                    Io::Input => "input",
                    Io::Output => "output",
                };
                write!(f, "{which} {from} → {to}")
            }
            Change::Errors { added, removed } => f.write_str(&added_and_removed("errors", added, removed)),
            Change::Version { from, to } => {
                let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
                write!(f, "version {} → {}", or_none(from), or_none(to))
            }
        }
    }
}

/// A kind as Smithy spells it: `structure`, `intEnum`.
pub fn kind_name(kind: Kind) -> String {
    crate::names::lower_camel(&format!("{kind:?}"))
}

/// `smithy.api#length` → `length`; traits from other namespaces keep theirs.
fn trait_name(id: &str) -> &str {
    id.strip_prefix("smithy.api#").unwrap_or(id)
}

/// A trait's value as a reader wants it: `1..64` for a length or range, `POST /path` for
/// `@http`, the pattern in a code span, nothing for a marker trait.
fn trait_value(id: &str, value: &Value) -> String {
    let text = match (id, value) {
        ("smithy.api#length" | "smithy.api#range", Value::Object(bounds)) => {
            let bound = |key: &str| bounds.get(key).map(Value::to_string).unwrap_or_default();
            format!("{}..{}", bound("min"), bound("max"))
        }
        ("smithy.api#http", Value::Object(http)) => {
            let text = |key: &str| http.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
            let mut route = format!("{} {}", text("method"), text("uri"));
            if let Some(code) = http.get("code").filter(|c| c.as_u64() != Some(200)) {
                route.push_str(&format!(" ({code})"));
            }
            route
        }
        ("smithy.api#pattern", Value::String(pattern)) => return code_span(pattern),
        (_, Value::Object(o)) if o.is_empty() => String::new(),
        _ => value.to_string(),
    };
    shorten(text)
}

/// `text` whole, or its start and how long it was when it is too long to read in a line.
fn shorten(text: String) -> String {
    if text.chars().count() <= LONGEST_VALUE {
        return text;
    }
    let start: String = text.chars().take(LONGEST_VALUE / 2).collect();
    format!("{start}… ({} characters)", text.chars().count())
}

/// `text` as a Markdown code span, fenced with more backticks than it contains in a row.
pub fn code_span(text: &str) -> String {
    let mut longest_run = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest_run = longest_run.max(run);
    }
    let fence = "`".repeat(longest_run + 1);
    let pad = if longest_run > 0 { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `values added: a, b; values removed: c`, leaving out an empty side.
fn added_and_removed(noun: &str, added: &[String], removed: &[String]) -> String {
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("{noun} added: {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("{noun} removed: {}", removed.join(", ")));
    }
    parts.join("; ")
}

fn spaced(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" {text}")
    }
}
