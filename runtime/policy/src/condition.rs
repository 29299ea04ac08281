//! The `Condition` element: operators, their set qualifiers and `...IfExists`, compiled once
//! when the policy is parsed.
//!
//! Within a statement every operator, and every key under an operator, must hold (AND); the
//! values listed for one key are alternatives (OR). A key missing from the request makes an
//! operator false, a negated one (`StringNotEquals`, `ArnNotLike`, ...) true; `...IfExists`
//! makes it true either way, and `Null` tests for the absence itself.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-logic-multiple-context-keys-or-values.html>)

use ipnet::IpNet;

use crate::context::Request;
use crate::dates;
use crate::error::PolicyError;
use crate::json::Json;
use crate::variables::Template;
use crate::wildcard::{self, ArnGlob, Glob};

/// How a multivalued context key's values are tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Qualifier {
    /// The key is treated as single-valued: any of its values may match.
    Single,
    /// `ForAnyValue:`: at least one request value matches; false when the key is absent.
    AnyValue,
    /// `ForAllValues:`: every request value matches; true when the key is absent or empty.
    AllValues,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn holds<T: PartialOrd>(self, request: T, policy: T) -> bool {
        match self {
            Cmp::Eq => request == policy,
            Cmp::Lt => request < policy,
            Cmp::Le => request <= policy,
            Cmp::Gt => request > policy,
            Cmp::Ge => request >= policy,
        }
    }
}

/// The values after an operator, compiled for its type.
#[derive(Debug, Clone)]
enum Values {
    /// `StringEquals`: exact and case-sensitive.
    Exact(Vec<Text<String>>),
    /// `StringEqualsIgnoreCase`: stored lowercased.
    IgnoreCase(Vec<Text<String>>),
    /// `StringLike`: `*` and `?`, case-sensitive.
    Like(Vec<Text<Glob>>),
    /// `ArnEquals` and `ArnLike` (the same test): segment by segment, with wildcards.
    Arn(Vec<Text<ArnGlob>>),
    Numeric(Cmp, Vec<Option<f64>>),
    Date(Cmp, Vec<Option<i64>>),
    /// `Bool`: `true` or `false` in any case; variables allowed, as for strings and ARNs.
    Bool(Vec<Text<Option<bool>>>),
    /// `BinaryEquals`: base64 text, compared as written.
    Binary(Vec<String>),
    Ip(Vec<Option<IpNet>>),
    /// `Null`: `true` asks for the key's absence, `false` for its presence.
    Null(Vec<Option<bool>>),
}

/// A string value: compiled now, or a template with variables to fill in per request.
#[derive(Debug, Clone)]
enum Text<T> {
    Fixed(T),
    Variables(Template),
}

/// One operator applied to one context key.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    qualifier: Qualifier,
    negated: bool,
    if_exists: bool,
    /// Lowercased.
    key: String,
    /// As the policy writes it (what `GetContextKeysFor*Policy` answers).
    written_key: String,
    values: Values,
}

/// The type an operator compares as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exact,
    IgnoreCase,
    Like,
    Arn,
    Numeric(Cmp),
    Date(Cmp),
    Bool,
    Binary,
    Ip,
    Null,
}

/// The parts of an operator name such as `ForAllValues:StringNotLikeIfExists`.
struct Operator {
    qualifier: Qualifier,
    kind: Kind,
    negated: bool,
    if_exists: bool,
}

fn operator(name: &str) -> Option<Operator> {
    let (qualifier, rest) = if let Some(rest) = name.strip_prefix("ForAnyValue:") {
        (Qualifier::AnyValue, rest)
    } else if let Some(rest) = name.strip_prefix("ForAllValues:") {
        (Qualifier::AllValues, rest)
    } else {
        (Qualifier::Single, name)
    };
    let (rest, if_exists) = match rest.strip_suffix("IfExists") {
        Some(base) => (base, true),
        None => (rest, false),
    };
    let (kind, negated) = match rest {
        "StringEquals" => (Kind::Exact, false),
        "StringNotEquals" => (Kind::Exact, true),
        "StringEqualsIgnoreCase" => (Kind::IgnoreCase, false),
        "StringNotEqualsIgnoreCase" => (Kind::IgnoreCase, true),
        "StringLike" => (Kind::Like, false),
        "StringNotLike" => (Kind::Like, true),
        "NumericEquals" => (Kind::Numeric(Cmp::Eq), false),
        "NumericNotEquals" => (Kind::Numeric(Cmp::Eq), true),
        "NumericLessThan" => (Kind::Numeric(Cmp::Lt), false),
        "NumericLessThanEquals" => (Kind::Numeric(Cmp::Le), false),
        "NumericGreaterThan" => (Kind::Numeric(Cmp::Gt), false),
        "NumericGreaterThanEquals" => (Kind::Numeric(Cmp::Ge), false),
        "DateEquals" => (Kind::Date(Cmp::Eq), false),
        "DateNotEquals" => (Kind::Date(Cmp::Eq), true),
        "DateLessThan" => (Kind::Date(Cmp::Lt), false),
        "DateLessThanEquals" => (Kind::Date(Cmp::Le), false),
        "DateGreaterThan" => (Kind::Date(Cmp::Gt), false),
        "DateGreaterThanEquals" => (Kind::Date(Cmp::Ge), false),
        "Bool" => (Kind::Bool, false),
        "BinaryEquals" => (Kind::Binary, false),
        "IpAddress" => (Kind::Ip, false),
        "NotIpAddress" => (Kind::Ip, true),
        // ArnEquals and ArnLike are one test: both take wildcards in every segment.
        "ArnEquals" | "ArnLike" => (Kind::Arn, false),
        "ArnNotEquals" | "ArnNotLike" => (Kind::Arn, true),
        // `Null` tests for presence itself, so it has no `IfExists` form.
        "Null" if !if_exists => (Kind::Null, false),
        _ => return None,
    };
    Some(Operator {
        qualifier,
        kind,
        negated,
        if_exists,
    })
}

/// The condition values as strings: a string, number or boolean, or an array of them.
fn value_strings(value: &Json) -> Result<Vec<String>, PolicyError> {
    let one = |v: &Json| match v {
        Json::String(s) => Ok(s.clone()),
        Json::Number(n) => Ok(n.clone()),
        Json::Bool(b) => Ok(b.to_string()),
        _ => Err(PolicyError::Syntax),
    };
    match value {
        Json::Array(items) => items.iter().map(one).collect(),
        v => Ok(vec![one(v)?]),
    }
}

fn text<T>(value: String, variables: bool, compile: impl Fn(&str) -> T) -> Text<T> {
    match variables.then(|| Template::parse(&value)).flatten() {
        Some(template) => Text::Variables(template),
        None => Text::Fixed(compile(&value)),
    }
}

fn ip(text: &str) -> Option<IpNet> {
    text.parse::<IpNet>()
        .ok()
        .or_else(|| text.parse::<std::net::IpAddr>().ok().map(IpNet::from))
}

fn boolean(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// Compiles a `Condition` element; `variables` is whether the policy's version has them.
pub(crate) fn parse(block: &Json, variables: bool) -> Result<Vec<Condition>, PolicyError> {
    let operators = block.members().ok_or(PolicyError::Syntax)?;
    let mut conditions = Vec::new();
    for (name, keys) in operators {
        let op = operator(name).ok_or_else(|| PolicyError::InvalidConditionType(name.clone()))?;
        let keys = keys.members().ok_or(PolicyError::Syntax)?;
        for (key, value) in keys {
            if !key.contains(':') {
                return Err(PolicyError::MissingVendor);
            }
            let raw = value_strings(value)?;
            let values = match op.kind {
                Kind::Exact => Values::Exact(raw.into_iter().map(|v| text(v, variables, str::to_owned)).collect()),
                Kind::IgnoreCase => {
                    Values::IgnoreCase(raw.into_iter().map(|v| text(v, variables, str::to_lowercase)).collect())
                }
                Kind::Like => Values::Like(
                    raw.into_iter()
                        .map(|v| text(v, variables, |s| Glob::parse(s, false)))
                        .collect(),
                ),
                Kind::Arn => Values::Arn(raw.into_iter().map(|v| text(v, variables, ArnGlob::parse)).collect()),
                Kind::Numeric(cmp) => Values::Numeric(cmp, raw.iter().map(|v| v.trim().parse().ok()).collect()),
                Kind::Date(cmp) => Values::Date(cmp, raw.iter().map(|v| dates::parse(v)).collect()),
                Kind::Bool => Values::Bool(raw.into_iter().map(|v| text(v, variables, boolean)).collect()),
                Kind::Binary => Values::Binary(raw),
                Kind::Ip => Values::Ip(raw.iter().map(|v| ip(v.trim())).collect()),
                Kind::Null => Values::Null(raw.iter().map(|v| boolean(v)).collect()),
            };
            conditions.push(Condition {
                qualifier: op.qualifier,
                negated: op.negated,
                if_exists: op.if_exists,
                key: key.to_ascii_lowercase(),
                written_key: key.clone(),
                values,
            });
        }
    }
    Ok(conditions)
}

impl Condition {
    /// The context keys the condition reads: its own key as written, then those of the
    /// variables in its values (lowercased).
    pub(crate) fn context_keys(&self) -> impl Iterator<Item = &str> {
        fn of<T>(texts: &[Text<T>]) -> Vec<&Template> {
            texts
                .iter()
                .filter_map(|t| match t {
                    Text::Variables(template) => Some(template),
                    Text::Fixed(_) => None,
                })
                .collect()
        }
        let templates = match &self.values {
            Values::Exact(v) | Values::IgnoreCase(v) => of(v),
            Values::Like(v) => of(v),
            Values::Arn(v) => of(v),
            Values::Bool(v) => of(v),
            _ => Vec::new(),
        };
        std::iter::once(self.written_key.as_str()).chain(templates.into_iter().flat_map(Template::variable_keys))
    }

    /// Whether the condition holds for `request`.
    pub(crate) fn holds(&self, request: &Request) -> bool {
        let present = request.values(&self.key).filter(|v| !v.is_empty());
        if let Values::Null(wants) = &self.values {
            let absent = present.is_none();
            return wants.contains(&Some(absent));
        }
        let Some(context) = present else {
            // An absent (or empty) key: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html
            return self.if_exists
                || match self.qualifier {
                    Qualifier::AllValues => true,
                    Qualifier::AnyValue => false,
                    Qualifier::Single => self.negated,
                };
        };
        match self.qualifier {
            // A negated operator over a single-valued key: none of the values may match.
            Qualifier::Single => context.iter().any(|c| self.matches(c, request)) != self.negated,
            Qualifier::AnyValue => context.iter().any(|c| self.matches(c, request) != self.negated),
            Qualifier::AllValues => context.iter().all(|c| self.matches(c, request) != self.negated),
        }
    }

    /// Whether one request value matches any of the policy's values (before negation).
    fn matches(&self, context: &str, request: &Request) -> bool {
        match &self.values {
            Values::Exact(values) => values.iter().any(|v| match v {
                Text::Fixed(s) => s == context,
                Text::Variables(t) => t.equals(request, context),
            }),
            Values::IgnoreCase(values) => {
                let lower = || context.chars().flat_map(char::to_lowercase);
                values.iter().any(|v| match v {
                    Text::Fixed(s) => lower().eq(s.chars()),
                    Text::Variables(t) => t
                        .resolve_text(request)
                        .is_some_and(|s| lower().eq(s.chars().flat_map(char::to_lowercase))),
                })
            }
            Values::Like(values) => values.iter().any(|v| match v {
                Text::Fixed(glob) => glob.is_match(context),
                Text::Variables(t) => t
                    .resolve_tokens(request)
                    .is_some_and(|tokens| wildcard::glob_match(&tokens, context)),
            }),
            // The request value is split at its colons in place: no ARN is built.
            Values::Arn(values) => values.iter().any(|v| match v {
                Text::Fixed(glob) => glob.is_match(context, None),
                Text::Variables(t) => t
                    .resolve_tokens(request)
                    .is_some_and(|tokens| wildcard::arn_match(&tokens, context, None)),
            }),
            Values::Numeric(cmp, values) => match context.trim().parse::<f64>() {
                Ok(n) => values.iter().flatten().any(|v| cmp.holds(n, *v)),
                Err(_) => false,
            },
            Values::Date(cmp, values) => match dates::parse(context) {
                Some(d) => values.iter().flatten().any(|v| cmp.holds(d, *v)),
                None => false,
            },
            Values::Bool(values) => boolean(context).is_some_and(|b| {
                values.iter().any(|v| match v {
                    Text::Fixed(want) => *want == Some(b),
                    Text::Variables(t) => t.resolve_text(request).and_then(|s| boolean(&s)) == Some(b),
                })
            }),
            Values::Binary(values) => values.iter().any(|v| v == context),
            Values::Ip(values) => match context.trim().parse::<std::net::IpAddr>() {
                Ok(addr) => values.iter().flatten().any(|net| net.contains(&addr)),
                Err(_) => false,
            },
            Values::Null(_) => false,
        }
    }
}
