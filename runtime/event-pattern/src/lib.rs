//! EventBridge event patterns and SNS filter policies: one matcher for both, AWS-exact.
//!
//! Both services filter JSON with the same language (AWS's "event ruler"): a pattern names
//! fields and, for each, a list of values or match expressions (`prefix`, `suffix`,
//! `equals-ignore-case`, `wildcard`, `anything-but`, `numeric`, `exists`, `cidr`), with
//! `$or` for alternatives. The services differ in which expressions they take and in their
//! limits and messages, so a pattern is parsed for one [`Dialect`]:
//!
//! - [`Dialect::EventBridge`]: rules' `EventPattern` and `TestEventPattern`.
//! - [`Dialect::SnsMessageAttributes`]: a subscription's `FilterPolicy` with the default
//!   `FilterPolicyScope` `MessageAttributes` (flat; matched with [`Pattern::matches_attributes`]).
//! - [`Dialect::SnsMessageBody`]: `FilterPolicyScope` `MessageBody` (matched against the JSON
//!   body with [`Pattern::matches`]).
//!
//! A pattern AWS refuses is a [`PatternError`] carrying AWS's message, including the parser
//! position AWS appends (`at [Source: …; line: 1, column: 23]`).
//!
//! Matching walks only the paths the pattern names and allocates nothing (but for SNS
//! `String.Array` attributes, whose JSON is parsed).
//!
//! ```
//! use serde_json::json;
//! use stratus_event_pattern::{Attribute, Dialect, Pattern};
//!
//! let rule = Pattern::parse(
//!     r#"{"source": ["aws.ec2"], "detail": {"state": [{"anything-but": "pending"}]}}"#,
//!     Dialect::EventBridge,
//! )?;
//! assert!(rule.matches(&json!({"source": "aws.ec2", "detail": {"state": "running"}})));
//! assert!(!rule.matches(&json!({"source": "aws.ec2", "detail": {"state": "pending"}})));
//!
//! let policy = Pattern::parse(
//!     r#"{"price": [{"numeric": [">", 10, "<=", 20]}], "store": [{"prefix": "north"}]}"#,
//!     Dialect::SnsMessageAttributes,
//! )?;
//! let attributes = [
//!     Attribute::new("price", "Number", "15"),
//!     Attribute::new("store", "String", "north-1"),
//! ];
//! assert!(policy.matches_attributes(&attributes));
//!
//! let refused = Pattern::parse(r#"{"source": "aws.ec2"}"#, Dialect::EventBridge).unwrap_err();
//! assert_eq!(refused.code(), "InvalidEventPatternException");
//! assert_eq!(refused.reason(), r#""source" must be an object or an array"#);
//! assert!(refused
//!     .to_string()
//!     .starts_with(r#"Event pattern is not valid. Reason: "source" must be an object or an array"#));
//! # Ok::<(), stratus_event_pattern::PatternError>(())
//! ```
#![warn(missing_docs)]

mod compile;
mod json;
mod matcher;

use matcher::{AttributeKind, Node};

/// Which service's rules a pattern is parsed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// EventBridge event patterns (`InvalidEventPatternException` when refused).
    EventBridge,
    /// SNS filter policies with `FilterPolicyScope` `MessageAttributes` (the default).
    SnsMessageAttributes,
    /// SNS filter policies with `FilterPolicyScope` `MessageBody`.
    SnsMessageBody,
}

impl Dialect {
    /// The SNS dialect for a `FilterPolicyScope` value, or `None` for one SNS refuses.
    pub fn sns_scope(scope: &str) -> Option<Dialect> {
        match scope {
            "MessageAttributes" => Some(Dialect::SnsMessageAttributes),
            "MessageBody" => Some(Dialect::SnsMessageBody),
            _ => None,
        }
    }

    fn is_sns(self) -> bool {
        self != Dialect::EventBridge
    }
}

/// What kind of refusal a [`PatternError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// The pattern breaks the language's rules or limits.
    Invalid,
    /// SNS: a nested policy under the message-attribute scope (a message of its own form).
    NestedInAttributeScope,
}

/// A pattern AWS refuses, with AWS's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct PatternError {
    dialect: Dialect,
    kind: ErrorKind,
    reason: String,
    location: String,
}

impl PatternError {
    pub(crate) fn new(dialect: Dialect, kind: ErrorKind, reason: String, location: String) -> PatternError {
        PatternError {
            dialect,
            kind,
            reason,
            location,
        }
    }

    /// The error code AWS answers with: `InvalidEventPatternException` (EventBridge) or
    /// `InvalidParameter` (SNS).
    pub fn code(&self) -> &'static str {
        match self.dialect {
            Dialect::EventBridge => "InvalidEventPatternException",
            _ => "InvalidParameter",
        }
    }

    /// AWS's reason alone, without the position (`Empty arrays are not allowed`).
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The reason with the parser position AWS appends to most reasons
    /// (`…\n at [Source: (String)"…"; line: 1, column: 10]`).
    pub fn detail(&self) -> String {
        format!("{}{}", self.reason, self.location)
    }

    /// The whole message as AWS words it for EventBridge's `PutRule`/`TestEventPattern` and
    /// SNS's `Subscribe`: `Event pattern is not valid. Reason: …` or
    /// `Invalid parameter: FilterPolicy: …`.
    pub fn message(&self) -> String {
        match (self.dialect, self.kind) {
            (Dialect::EventBridge, _) => {
                format!("Event pattern is not valid. Reason: {}", self.detail())
            }
            (_, ErrorKind::NestedInAttributeScope) => format!("Invalid parameter: {}", self.reason),
            _ => format!("Invalid parameter: FilterPolicy: {}", self.detail()),
        }
    }

    /// SNS's message for the policy refused by `SetSubscriptionAttributes`:
    /// `Invalid parameter: Attributes Reason: FilterPolicy: …` (EventBridge's message for an
    /// EventBridge pattern).
    pub fn attributes_message(&self) -> String {
        match (self.dialect, self.kind) {
            (Dialect::EventBridge, _) | (_, ErrorKind::NestedInAttributeScope) => self.message(),
            _ => format!("Invalid parameter: Attributes Reason: FilterPolicy: {}", self.detail()),
        }
    }
}

/// A compiled event pattern or filter policy.
#[derive(Debug)]
pub struct Pattern {
    root: Node,
    dialect: Dialect,
}

impl Pattern {
    /// Parses and validates a pattern's JSON text as the dialect's service does.
    pub fn parse(text: &str, dialect: Dialect) -> Result<Pattern, PatternError> {
        let mut root = compile::compile(text, dialect)?;
        root.finish();
        Ok(Pattern { root, dialect })
    }

    /// The dialect the pattern was parsed for.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Whether an event (EventBridge) or a message body (SNS `MessageBody` scope) matches.
    /// A value other than a JSON object matches only a pattern asking for no field to exist.
    pub fn matches(&self, event: &serde_json::Value) -> bool {
        self.root.matches_value(event)
    }

    /// Whether a message body given as text matches (SNS `MessageBody` scope): a body that is
    /// not JSON is matched as a string.
    pub fn matches_json(&self, body: &str) -> bool {
        match serde_json::from_str::<serde_json::Value>(body) {
            Ok(v) => self.matches(&v),
            Err(_) => self.matches(&serde_json::Value::String(body.to_owned())),
        }
    }

    /// Whether SNS message attributes match (SNS `MessageAttributes` scope). `String` and
    /// `Number` attributes (and their custom types such as `Number.float`) and `String.Array`
    /// (a JSON array in the string value; also `Number.Array`, which SNS's guide shows) are
    /// compared; `Binary` attributes never are.
    pub fn matches_attributes(&self, attributes: &[Attribute<'_>]) -> bool {
        self.root.matches_attributes(attributes)
    }
}

/// An SNS message attribute, as a filter policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute<'a> {
    name: &'a str,
    kind: AttributeKind,
    value: &'a str,
}

impl<'a> Attribute<'a> {
    /// An attribute from its name, `DataType` (`String`, `Number`, `String.Array`, `Binary`,
    /// or a custom type like `Number.float`) and `StringValue` (empty for `Binary`).
    pub fn new(name: &'a str, data_type: &str, value: &'a str) -> Attribute<'a> {
        Attribute {
            name,
            kind: AttributeKind::of(data_type),
            value,
        }
    }

    pub(crate) fn kind(&self) -> AttributeKind {
        self.kind
    }
}
