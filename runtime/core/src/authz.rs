//! The IAM authorization table: which actions an operation needs, on which resources, with
//! which condition keys — as static data the code generator writes into every service's
//! schema (`Service::authorization`), and [`evaluate`], which reads it against a decoded input.
//!
//! Each generated service carries one [`Authorization`]: its IAM prefix, its resource types
//! with their ARN templates (as the AWS Service Authorization Reference writes them), and one
//! [`OperationAuthorization`] per operation, in the order of `Service::operations`. An entry
//! lists [`ActionRule`]s; each names an action and how to fill its resources' templates from
//! input members ([`Binding`]), through a small fixed set of [`Transform`]s. The data comes
//! from `models/authorization/<sdk-id>.toml` (docs/authorization.md).
//!
//! [`evaluate`] never fails and never panics: a member the input leaves out drops the resource
//! it would fill, and an action left with no resource applies to `*`, as AWS evaluates an
//! action whose resource it cannot name. It never answers that a request needs nothing.
//!
//! ```
//! use stratus_core::authz::*;
//! use stratus_core::Value;
//!
//! static QUEUE: &[Binding] = &[Binding {
//!     variable: "QueueName",
//!     pieces: &[Source { path: &[Step::Member(0)], transform: Transform::QueueUrlName }],
//! }];
//! static SEND: OperationAuthorization = OperationAuthorization {
//!     actions: &[ActionRule {
//!         action: "sqs:SendMessage",
//!         only_if: None,
//!         resources: &[ResourceRule {
//!             resource_type: "queue",
//!             arn: "arn:${Partition}:sqs:${Region}:${Account}:${QueueName}",
//!             bindings: QUEUE,
//!         }],
//!         conditions: &[],
//!     }],
//! };
//! let input = Value::Struct(vec![Some(Value::String("http://localhost:4566/000000000000/jobs".into()))]);
//! let scope = Scope::new("eu-west-1", "123456789012");
//! let needed = evaluate(&SEND, &input, &scope);
//! assert_eq!(needed[0].action, "sqs:SendMessage");
//! assert_eq!(needed[0].resources, ["arn:aws:sqs:eu-west-1:123456789012:jobs"]);
//! ```

use crate::schema::{Operation, Service};
use crate::value::Value;

/// A service's authorization table.
#[derive(Debug)]
pub struct Authorization {
    /// The IAM service prefix actions are written with (`s3`, `states`, `execute-api`).
    pub prefix: &'static str,
    /// The resource types the service defines, with their ARN templates.
    pub resource_types: &'static [ResourceType],
    /// One entry per operation, in the order of `Service::operations`.
    pub operations: &'static [OperationAuthorization],
}

impl Authorization {
    /// A table with no operations, for services built by hand (tests).
    pub const NONE: Authorization = Authorization {
        prefix: "",
        resource_types: &[],
        operations: &[],
    };

    /// The entry of `op`, one of `service`'s operations (looked up by position, so an
    /// operation of another service is found by name or not at all).
    pub fn operation(&self, service: &Service, op: &Operation) -> Option<&'static OperationAuthorization> {
        let index = match service.operations.iter().position(|o| std::ptr::eq(o, op)) {
            Some(i) => i,
            None => service.operations.binary_search_by(|o| o.name.cmp(op.name)).ok()?,
        };
        self.operations.get(index)
    }

    /// The resource type named `name`.
    pub fn resource_type(&self, name: &str) -> Option<&'static ResourceType> {
        self.resource_types.iter().find(|r| r.name == name)
    }
}

/// A resource type of the Service Authorization Reference.
#[derive(Debug)]
pub struct ResourceType {
    /// Its name there (`object`, `queue`, `function`).
    pub name: &'static str,
    /// Its ARN template, with `${Variable}`s (`arn:${Partition}:sqs:${Region}:${Account}:${QueueName}`).
    pub arn: &'static str,
}

/// What one operation needs.
#[derive(Debug)]
pub struct OperationAuthorization {
    /// The actions, each with its resources; never empty in generated tables.
    pub actions: &'static [ActionRule],
}

/// One action an operation needs.
#[derive(Debug)]
pub struct ActionRule {
    /// The action with its prefix (`s3:GetObject`, `iam:PassRole`).
    pub action: &'static str,
    /// When set, the action is needed only if the member is present (non-empty) or absent, as
    /// the presence says: `sts:TagSession` only for an AssumeRole that passes tags.
    pub only_if: Option<Presence>,
    /// The resources it applies to; none (or none the input names) means `*`.
    pub resources: &'static [ResourceRule],
    /// Condition keys the request supplies from its input.
    pub conditions: &'static [ConditionRule],
}

/// A member's presence, as a condition on an [`ActionRule`].
#[derive(Debug, Clone, Copy)]
pub struct Presence {
    /// The member.
    pub path: &'static [Step],
    /// [`Transform::Text`] asks for the member itself (a non-empty string, list or map, a
    /// `true`); another asks whether the transform finds something in it (a copy source's
    /// version).
    pub transform: Transform,
    /// Whether the rule applies when the member is present (`true`) or absent.
    pub present: bool,
}

/// A resource of an action: a template and the members that fill its variables.
#[derive(Debug)]
pub struct ResourceRule {
    /// The resource type's name, or `arn` for a member that is an ARN of another service's.
    pub resource_type: &'static str,
    /// The ARN template. `${Partition}`, `${Region}` and `${Account}` are the request's
    /// unless bound.
    pub arn: &'static str,
    /// How the other variables are filled.
    pub bindings: &'static [Binding],
}

/// A template variable filled from the input: the pieces' texts, concatenated.
#[derive(Debug)]
pub struct Binding {
    /// The variable's name inside `${…}`.
    pub variable: &'static str,
    /// Where its text comes from; usually one piece.
    pub pieces: &'static [Source],
}

/// A value read out of the input.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// The member path from the input structure.
    pub path: &'static [Step],
    /// What the member's text becomes.
    pub transform: Transform,
}

/// One step of a member path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The structure or union member at this index (model order).
    Member(u16),
    /// Every element of a list (every value of a map): one resource or condition value each.
    Each,
    /// Every key of a map (DynamoDB's `RequestItems` by table name, tag maps by key); ends a
    /// path.
    Keys,
    /// Every key and value of a map, as pairs (a tag map, for `aws:RequestTag/…`); ends a
    /// path.
    Entries,
    /// Every element of a list of structures, as the pair of its `key` and `value` members
    /// (a list of `Tag { Key, Value }`, for `aws:RequestTag/…`); ends a path.
    Pairs {
        /// The index of the key member.
        key: u16,
        /// The index of the value member.
        value: u16,
    },
}

/// The condition key a table writes for the request's tags: each tag the source's pairs
/// ([`Step::Entries`], [`Step::Pairs`]) give becomes `aws:RequestTag/KEY` with its value
/// ([`RequiredAction::request_tags`]).
pub const REQUEST_TAG_KEY: &str = "aws:RequestTag/${TagKey}";

/// The fixed set of ways a member's value becomes a template variable or condition value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// The value's text as it is.
    Text,
    /// The value is a whole ARN; anything else leaves the variable unfilled.
    Arn,
    /// A name, or an ARN that stands for the whole resource (DynamoDB's `TableName`).
    NameOrArn,
    /// A Lambda function name: `name`, `name:qualifier`, a partial ARN
    /// (`123456789012:function:name`) or a full one.
    LambdaFunction,
    /// `:qualifier` for a present value, nothing for an absent one (Lambda's `Qualifier`).
    QualifierSuffix,
    /// The queue name of an SQS queue URL (its last path segment).
    QueueUrlName,
    /// The account of an SQS queue URL (the path segment before the name).
    QueueUrlAccount,
    /// The bucket of S3's `x-amz-copy-source` (`bucket/key?versionId=…`, URL-encoded).
    CopySourceBucket,
    /// The key of S3's `x-amz-copy-source`.
    CopySourceKey,
    /// The `versionId` of S3's `x-amz-copy-source`, when it names one.
    CopySourceVersion,
    /// An IAM path (`/division/`) as it precedes a name in an ARN (`division/`); `/` or an
    /// absent path is nothing.
    IamPath,
    /// The value without its leading `/` (SSM's parameter names: `/app/db` is
    /// `parameter/app/db`).
    StripLeadingSlash,
    /// The table a PartiQL `SELECT … FROM table` reads; nothing for another statement.
    PartiqlSelect,
    /// The table of a PartiQL `INSERT INTO table`.
    PartiqlInsert,
    /// The table of a PartiQL `UPDATE table`.
    PartiqlUpdate,
    /// The table of a PartiQL `DELETE FROM table`.
    PartiqlDelete,
}

/// A condition key the request supplies from a member.
#[derive(Debug)]
pub struct ConditionRule {
    /// The key (`s3:prefix`, `sts:ExternalId`, `aws:TagKeys`).
    pub key: &'static str,
    /// Its values; an absent member supplies no key.
    pub source: Source,
}

/// The partition, region and account a request is made in.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// `aws`, `aws-cn`, … ([`crate::arn::partition_of`]).
    pub partition: &'a str,
    /// The request's region.
    pub region: &'a str,
    /// The account the request is made in.
    pub account: &'a str,
}

impl<'a> Scope<'a> {
    /// The scope of a request in `region` and `account`, in the region's partition.
    pub fn new(region: &'a str, account: &'a str) -> Scope<'a> {
        Scope {
            partition: crate::arn::partition_of(region),
            region,
            account,
        }
    }
}

/// One action a request needs, on the resources and with the condition keys its input names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredAction {
    /// The action with its prefix.
    pub action: &'static str,
    /// Resource ARNs; `["*"]` when the input names none.
    pub resources: Vec<String>,
    /// Condition keys and their values, in table order.
    pub conditions: Vec<(&'static str, Vec<String>)>,
    /// The tags the request asks for (`aws:RequestTag/KEY` is the value), as its input
    /// names them, in input order: tagging and creating operations.
    pub request_tags: Vec<(String, String)>,
}

/// No request names more resources than this for one action (S3's DeleteObjects takes 1000
/// keys); a larger product of bound values is cut off here.
pub const MAX_RESOURCES: usize = 1000;

/// The actions `entry` says a request with `input` needs in `scope`: never none, for an entry
/// with actions — when no rule's presence condition holds, the first action on `*`.
pub fn evaluate(entry: &OperationAuthorization, input: &Value, scope: &Scope<'_>) -> Vec<RequiredAction> {
    let mut out = Vec::with_capacity(entry.actions.len());
    for rule in entry.actions {
        if let Some(p) = rule.only_if {
            if present(input, &p, scope) != p.present {
                continue;
            }
        }
        let mut resources = Vec::new();
        for resource in rule.resources {
            fill_resource(resource, input, scope, &mut resources);
        }
        if resources.is_empty() {
            resources.push("*".to_string());
        }
        let mut request_tags = Vec::new();
        for c in rule.conditions.iter().filter(|c| c.key == REQUEST_TAG_KEY) {
            collect_pairs(input, c.source.path, &mut request_tags);
        }
        let conditions = rule
            .conditions
            .iter()
            .filter(|c| c.key != REQUEST_TAG_KEY)
            .filter_map(|c| {
                let values: Vec<String> = read(input, &c.source, scope).into_iter().map(Fill::into_text).collect();
                (!values.is_empty()).then_some((c.key, values))
            })
            .collect();
        out.push(RequiredAction {
            action: rule.action,
            resources,
            conditions,
            request_tags,
        });
    }
    // A request none of whose rules apply (a PartiQL statement of no kind the table reads)
    // still needs something: the first action, on everything.
    if out.is_empty() {
        if let Some(first) = entry.actions.first() {
            out.push(RequiredAction {
                action: first.action,
                resources: vec!["*".to_string()],
                conditions: Vec::new(),
                request_tags: Vec::new(),
            });
        }
    }
    out
}

/// What a source gives a variable: text to put in its place, or an ARN that stands for the
/// template up to and including the variable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fill {
    Text(String),
    Arn(String),
}

impl Fill {
    fn into_text(self) -> String {
        match self {
            Fill::Text(s) | Fill::Arn(s) => s,
        }
    }
}

const CONTEXT_VARIABLES: [&str; 3] = ["Partition", "Region", "Account"];

fn fill_resource(rule: &ResourceRule, input: &Value, scope: &Scope<'_>, out: &mut Vec<String>) {
    // Each binding's possible fills; a bound variable the input leaves empty drops the
    // resource, except the request's own partition, region and account, which fall back.
    let mut choices: Vec<(&str, Vec<Fill>)> = Vec::with_capacity(rule.bindings.len());
    for b in rule.bindings {
        let fills = concatenate(b.pieces, input, scope);
        if fills.is_empty() {
            if CONTEXT_VARIABLES.contains(&b.variable) {
                continue;
            }
            return;
        }
        choices.push((b.variable, fills));
    }
    let mut index = vec![0usize; choices.len()];
    loop {
        if out.len() >= MAX_RESOURCES {
            return;
        }
        let chosen: Vec<(&str, &Fill)> = choices.iter().zip(&index).map(|((v, f), i)| (*v, &f[*i])).collect();
        out.push(render(rule.arn, &chosen, scope));
        // Advance the odometer over the choices.
        let mut k = 0;
        loop {
            if k == index.len() {
                return;
            }
            index[k] += 1;
            if index[k] < choices[k].1.len() {
                break;
            }
            index[k] = 0;
            k += 1;
        }
    }
}

/// Writes `template` with its variables filled; an unbound variable other than the request's
/// partition, region and account is `*`.
fn render(template: &str, chosen: &[(&str, &Fill)], scope: &Scope<'_>) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else { break };
        out.push_str(&rest[..start]);
        let name = &rest[start + 2..start + len];
        rest = &rest[start + len + 1..];
        match chosen.iter().find(|(v, _)| *v == name).map(|(_, f)| *f) {
            Some(Fill::Text(t)) => out.push_str(t),
            Some(Fill::Arn(a)) => {
                out.clear();
                out.push_str(a);
            }
            None => out.push_str(match name {
                "Partition" => scope.partition,
                "Region" => scope.region,
                "Account" => scope.account,
                _ => "*",
            }),
        }
    }
    out.push_str(rest);
    out
}

/// The fills of a binding: one per combination of its pieces' values, texts joined (an ARN
/// survives only as a binding's only piece).
fn concatenate(pieces: &[Source], input: &Value, scope: &Scope<'_>) -> Vec<Fill> {
    let mut acc = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let values = read(input, piece, scope);
        if values.is_empty() {
            return Vec::new();
        }
        if i == 0 {
            acc = values;
            continue;
        }
        let mut next = Vec::with_capacity(acc.len() * values.len());
        for a in &acc {
            for v in &values {
                if next.len() >= MAX_RESOURCES {
                    break;
                }
                let tail = match v {
                    Fill::Text(s) | Fill::Arn(s) => s.as_str(),
                };
                // The first piece decides whether the whole is an ARN.
                next.push(match a {
                    Fill::Text(t) => Fill::Text(format!("{t}{tail}")),
                    Fill::Arn(t) => Fill::Arn(format!("{t}{tail}")),
                });
            }
        }
        acc = next;
    }
    acc
}

/// The values at `source`'s path, transformed; a transform may also speak for an absent value.
fn read(input: &Value, source: &Source, scope: &Scope<'_>) -> Vec<Fill> {
    let mut found = Vec::new();
    collect(input, source.path, &mut found);
    let mut out = Vec::new();
    if found.is_empty() {
        if let Some(f) = transform(None, source.transform, scope) {
            out.push(f);
        }
        return out;
    }
    for found in found {
        match found {
            // A list reached without `Each` (a member that is itself a list of names, like
            // UntagResource's TagKeys) gives each element.
            Found::Value(Value::List(items)) => {
                for item in items {
                    if let Some(f) = transform(text(item), source.transform, scope) {
                        out.push(f);
                    }
                }
            }
            Found::Value(other) => {
                if let Some(f) = transform(text(other), source.transform, scope) {
                    out.push(f);
                }
            }
            Found::Key(k) => {
                if let Some(f) = transform(Some(k.to_string()), source.transform, scope) {
                    out.push(f);
                }
            }
        }
        if out.len() >= MAX_RESOURCES {
            break;
        }
    }
    out
}

/// A value a path reaches: a member's value, or a map key.
enum Found<'v> {
    Value(&'v Value),
    Key(&'v str),
}

fn collect<'v>(value: &'v Value, path: &[Step], out: &mut Vec<Found<'v>>) {
    if out.len() >= MAX_RESOURCES {
        return;
    }
    let Some((step, rest)) = path.split_first() else {
        if !matches!(value, Value::Null) {
            out.push(Found::Value(value));
        }
        return;
    };
    match (step, value) {
        (Step::Member(i), Value::Struct(slots)) => {
            if let Some(Some(v)) = slots.get(usize::from(*i)) {
                collect(v, rest, out);
            }
        }
        (Step::Member(i), Value::Union(set, v)) if *set == usize::from(*i) => collect(v, rest, out),
        (Step::Each, Value::List(items)) => {
            for item in items {
                collect(item, rest, out);
            }
        }
        (Step::Each, Value::Map(entries)) => {
            for (_, v) in entries {
                collect(v, rest, out);
            }
        }
        (Step::Keys, Value::Map(entries)) if rest.is_empty() => {
            out.extend(entries.iter().take(MAX_RESOURCES).map(|(k, _)| Found::Key(k)));
        }
        _ => {}
    }
}

/// The key-value pairs at the end of `path` ([`Step::Entries`] of a map, [`Step::Pairs`] of
/// a list of structures); nothing for a path that ends otherwise.
fn collect_pairs(input: &Value, path: &[Step], out: &mut Vec<(String, String)>) {
    let Some((last, leading)) = path.split_last() else {
        return;
    };
    let mut found = Vec::new();
    collect(input, leading, &mut found);
    for found in found {
        match (last, found) {
            (Step::Entries, Found::Value(Value::Map(entries))) => {
                out.extend(entries.iter().filter_map(|(k, v)| Some((k.clone(), text(v)?))));
            }
            (Step::Pairs { key, value }, Found::Value(Value::List(items))) => {
                for item in items {
                    let Value::Struct(slots) = item else { continue };
                    let member = |i: &u16| slots.get(usize::from(*i)).and_then(Option::as_ref).and_then(text);
                    if let (Some(k), Some(v)) = (member(key), member(value)) {
                        out.push((k, v));
                    }
                }
            }
            _ => {}
        }
        if out.len() >= MAX_RESOURCES {
            out.truncate(MAX_RESOURCES);
            return;
        }
    }
}

fn present(input: &Value, presence: &Presence, scope: &Scope<'_>) -> bool {
    if presence.transform != Transform::Text {
        let source = Source {
            path: presence.path,
            transform: presence.transform,
        };
        return read(input, &source, scope)
            .into_iter()
            .any(|f| !f.into_text().is_empty());
    }
    let mut found = Vec::new();
    collect(input, presence.path, &mut found);
    found.iter().any(|f| match f {
        Found::Key(k) => !k.is_empty(),
        Found::Value(Value::String(s)) => !s.is_empty(),
        Found::Value(Value::List(items)) => !items.is_empty(),
        Found::Value(Value::Map(entries)) => !entries.is_empty(),
        Found::Value(Value::Bool(b)) => *b,
        Found::Value(_) => true,
    })
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Int(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Float(x) if x.is_finite() => Some(x.to_string()),
        _ => None,
    }
}

fn transform(value: Option<String>, how: Transform, scope: &Scope<'_>) -> Option<Fill> {
    let s = value.filter(|s| !s.is_empty());
    let is_arn = s.as_deref().is_some_and(|s| s.starts_with("arn:"));
    Some(match how {
        Transform::IamPath => Fill::Text(s.unwrap_or_default().trim_start_matches('/').to_string()),
        Transform::QualifierSuffix => Fill::Text(s.map(|q| format!(":{q}")).unwrap_or_default()),
        Transform::Text => Fill::Text(s?),
        Transform::StripLeadingSlash => Fill::Text(s?.trim_start_matches('/').to_string()),
        Transform::PartiqlSelect | Transform::PartiqlInsert | Transform::PartiqlUpdate | Transform::PartiqlDelete => {
            Fill::Text(partiql_table(&s?, how)?)
        }
        Transform::Arn if is_arn => Fill::Arn(s?),
        Transform::Arn => return None,
        Transform::NameOrArn | Transform::LambdaFunction if is_arn => Fill::Arn(s?),
        Transform::NameOrArn => Fill::Text(s?),
        Transform::LambdaFunction => {
            let s = s?;
            match s.split_once(':') {
                Some((account, rest)) if crate::arn::is_account_id(account) && rest.starts_with("function:") => {
                    Fill::Arn(format!("arn:{}:lambda:{}:{s}", scope.partition, scope.region))
                }
                _ => Fill::Text(s),
            }
        }
        Transform::QueueUrlName | Transform::QueueUrlAccount => {
            let s = s?;
            let path = s.split(['?', '#']).next().unwrap_or_default();
            let path = path.split_once("://").map_or(path, |(_, rest)| rest);
            let segments: Vec<&str> = path.split('/').skip(1).filter(|p| !p.is_empty()).collect();
            let name = segments.last().copied();
            let account = segments.len().checked_sub(2).map(|i| segments[i]);
            let piece = if how == Transform::QueueUrlName { name } else { account };
            Fill::Text(piece?.to_string())
        }
        Transform::CopySourceVersion => {
            let s = s?;
            let (_, version) = s.split_once("?versionId=")?;
            let version = version.split('&').next().unwrap_or_default();
            if version.is_empty() {
                return None;
            }
            Fill::Text(version.to_string())
        }
        Transform::CopySourceBucket | Transform::CopySourceKey => {
            let s = s?;
            let raw = s.split_once("?versionId=").map_or(s.as_str(), |(p, _)| p);
            let decoded = percent_decode(raw.trim_start_matches('/'));
            if decoded.starts_with("arn:") {
                return Some(Fill::Arn(decoded));
            }
            let (bucket, key) = decoded.split_once('/')?;
            let piece = if how == Transform::CopySourceBucket {
                bucket
            } else {
                key
            };
            if piece.is_empty() {
                return None;
            }
            Fill::Text(piece.to_string())
        }
    })
}

/// The table a PartiQL statement of the transform's kind names, by its first keyword and the
/// identifier after `FROM`, `INTO` or the verb (quoted or not; an index after a `.` is left
/// out, as the statement's table is what it is authorized on here).
fn partiql_table(statement: &str, how: Transform) -> Option<String> {
    let (verb, before_table) = match how {
        Transform::PartiqlSelect => ("SELECT", "FROM"),
        Transform::PartiqlInsert => ("INSERT", "INTO"),
        Transform::PartiqlUpdate => ("UPDATE", "UPDATE"),
        _ => ("DELETE", "FROM"),
    };
    let text = statement.trim_start();
    let first = text.split(|c: char| c.is_whitespace()).next()?;
    if !first.eq_ignore_ascii_case(verb) {
        return None;
    }
    // The keyword before the table, outside quotes; for UPDATE it is the verb itself.
    let mut rest = if verb == before_table {
        &text[first.len()..]
    } else {
        let mut quoted = false;
        let mut at = None;
        let bytes = text.as_bytes();
        for (i, c) in text.char_indices() {
            match c {
                '"' | '\'' => quoted = !quoted,
                _ if !quoted
                    && i > 0
                    && bytes[i - 1].is_ascii_whitespace()
                    && text[i..].len() > before_table.len()
                    && text.is_char_boundary(i + before_table.len())
                    && text[i..i + before_table.len()].eq_ignore_ascii_case(before_table)
                    && bytes[i + before_table.len()].is_ascii_whitespace() =>
                {
                    at = Some(i + before_table.len());
                    break;
                }
                _ => {}
            }
        }
        &text[at?..]
    };
    rest = rest.trim_start();
    let name = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
            .next()?,
    };
    (!name.is_empty()).then(|| name.to_string())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCOPE: Scope<'static> = Scope {
        partition: "aws-cn",
        region: "cn-north-1",
        account: "111122223333",
    };

    fn fill(value: &str, how: Transform) -> Option<Fill> {
        transform(Some(value.to_string()), how, &SCOPE)
    }

    fn text_of(value: &str, how: Transform) -> Option<String> {
        fill(value, how).map(Fill::into_text)
    }

    #[test]
    fn request_tags_come_from_maps_and_lists_of_pairs() {
        static LIST: OperationAuthorization = OperationAuthorization {
            actions: &[ActionRule {
                action: "x:Create",
                only_if: None,
                resources: &[],
                conditions: &[
                    ConditionRule {
                        key: REQUEST_TAG_KEY,
                        source: Source {
                            path: &[Step::Member(0), Step::Pairs { key: 0, value: 1 }],
                            transform: Transform::Text,
                        },
                    },
                    ConditionRule {
                        key: REQUEST_TAG_KEY,
                        source: Source {
                            path: &[Step::Member(1), Step::Entries],
                            transform: Transform::Text,
                        },
                    },
                    ConditionRule {
                        key: "aws:TagKeys",
                        source: Source {
                            path: &[Step::Member(1), Step::Keys],
                            transform: Transform::Text,
                        },
                    },
                ],
            }],
        };
        let tag = |k: &str, v: &str| Value::Struct(vec![Some(Value::String(k.into())), Some(Value::String(v.into()))]);
        let input = Value::Struct(vec![
            Some(Value::List(vec![tag("team", "blue"), Value::Struct(vec![None, None])])),
            Some(Value::Map(vec![("env".into(), Value::String("prod".into()))])),
        ]);
        let needed = evaluate(&LIST, &input, &SCOPE);
        assert_eq!(
            needed[0].request_tags,
            [
                ("team".to_owned(), "blue".to_owned()),
                ("env".to_owned(), "prod".to_owned())
            ]
        );
        assert_eq!(needed[0].conditions, [("aws:TagKeys", vec!["env".to_owned()])]);
        let untagged = evaluate(&LIST, &Value::Struct(vec![None, None]), &SCOPE);
        assert!(untagged[0].request_tags.is_empty() && untagged[0].conditions.is_empty());
    }

    #[test]
    fn queue_urls_give_their_name_and_account() {
        let url = "https://sqs.us-east-1.amazonaws.com/444455556666/jobs?x=1";
        assert_eq!(text_of(url, Transform::QueueUrlName).as_deref(), Some("jobs"));
        assert_eq!(
            text_of(url, Transform::QueueUrlAccount).as_deref(),
            Some("444455556666")
        );
        assert_eq!(text_of("http://localhost/jobs", Transform::QueueUrlAccount), None);
        assert_eq!(text_of("http://localhost/", Transform::QueueUrlName), None);
    }

    #[test]
    fn copy_sources_are_decoded_and_split() {
        let src = "/bucket/a%2Fb%20c.txt?versionId=xyz";
        assert_eq!(text_of(src, Transform::CopySourceBucket).as_deref(), Some("bucket"));
        assert_eq!(text_of(src, Transform::CopySourceKey).as_deref(), Some("a/b c.txt"));
        assert_eq!(text_of("bucket", Transform::CopySourceKey), None);
        assert_eq!(text_of(src, Transform::CopySourceVersion).as_deref(), Some("xyz"));
        assert_eq!(text_of("/b/k", Transform::CopySourceVersion), None);
        assert_eq!(text_of("/b/k?versionId=", Transform::CopySourceVersion), None);
        assert_eq!(text_of("%", Transform::CopySourceKey), None);
        assert_eq!(
            text_of("%e2%82/x", Transform::CopySourceBucket).as_deref(),
            Some("\u{fffd}")
        );
    }

    #[test]
    fn lambda_function_names_in_their_three_forms() {
        assert_eq!(fill("f", Transform::LambdaFunction), Some(Fill::Text("f".into())));
        assert_eq!(
            fill("444455556666:function:f:1", Transform::LambdaFunction),
            Some(Fill::Arn(
                "arn:aws-cn:lambda:cn-north-1:444455556666:function:f:1".into()
            ))
        );
        let full = "arn:aws:lambda:us-west-2:444455556666:function:f";
        assert_eq!(fill(full, Transform::LambdaFunction), Some(Fill::Arn(full.into())));
    }

    #[test]
    fn iam_paths_and_qualifiers_speak_for_absent_members() {
        assert_eq!(
            transform(None, Transform::IamPath, &SCOPE),
            Some(Fill::Text(String::new()))
        );
        assert_eq!(text_of("/", Transform::IamPath).as_deref(), Some(""));
        assert_eq!(text_of("/a/b/", Transform::IamPath).as_deref(), Some("a/b/"));
        assert_eq!(
            transform(None, Transform::QualifierSuffix, &SCOPE),
            Some(Fill::Text(String::new()))
        );
        assert_eq!(text_of("7", Transform::QualifierSuffix).as_deref(), Some(":7"));
        assert_eq!(transform(None, Transform::Text, &SCOPE), None);
    }

    static TABLE_INDEX: ResourceRule = ResourceRule {
        resource_type: "index",
        arn: "arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}/index/${IndexName}",
        bindings: &[
            Binding {
                variable: "TableName",
                pieces: &[Source {
                    path: &[Step::Member(0)],
                    transform: Transform::NameOrArn,
                }],
            },
            Binding {
                variable: "IndexName",
                pieces: &[Source {
                    path: &[Step::Member(1), Step::Each],
                    transform: Transform::Text,
                }],
            },
        ],
    };

    static QUERY: OperationAuthorization = OperationAuthorization {
        actions: &[
            ActionRule {
                action: "dynamodb:Query",
                only_if: Some(Presence {
                    path: &[Step::Member(1)],
                    transform: Transform::Text,
                    present: true,
                }),
                resources: std::slice::from_ref(&TABLE_INDEX),
                conditions: &[ConditionRule {
                    key: "dynamodb:Select",
                    source: Source {
                        path: &[Step::Member(2)],
                        transform: Transform::Text,
                    },
                }],
            },
            ActionRule {
                action: "dynamodb:Scan",
                only_if: Some(Presence {
                    path: &[Step::Member(1)],
                    transform: Transform::Text,
                    present: false,
                }),
                resources: &[],
                conditions: &[],
            },
        ],
    };

    fn strings(items: &[&str]) -> Value {
        Value::List(items.iter().map(|s| Value::String(s.to_string())).collect())
    }

    #[test]
    fn an_arn_stands_for_the_template_up_to_its_variable() {
        let input = Value::Struct(vec![
            Some(Value::String("arn:aws:dynamodb:eu-west-1:444455556666:table/T".into())),
            Some(strings(&["I"])),
            None,
        ]);
        let needed = evaluate(&QUERY, &input, &SCOPE);
        assert_eq!(needed.len(), 1);
        assert_eq!(
            needed[0].resources,
            ["arn:aws:dynamodb:eu-west-1:444455556666:table/T/index/I"]
        );
        assert!(needed[0].conditions.is_empty());
    }

    #[test]
    fn several_values_make_several_resources_and_presence_picks_the_rule() {
        let input = Value::Struct(vec![
            Some(Value::String("T".into())),
            Some(strings(&["A", "B"])),
            Some(Value::String("COUNT".into())),
        ]);
        let needed = evaluate(&QUERY, &input, &SCOPE);
        assert_eq!(
            needed[0].resources,
            [
                "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/T/index/A",
                "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/T/index/B"
            ]
        );
        assert_eq!(needed[0].conditions, [("dynamodb:Select", vec!["COUNT".to_string()])]);

        let without_index = Value::Struct(vec![Some(Value::String("T".into())), Some(strings(&[])), None]);
        let needed = evaluate(&QUERY, &without_index, &SCOPE);
        assert_eq!(needed.len(), 1);
        assert_eq!(
            (needed[0].action, needed[0].resources.as_slice()),
            ("dynamodb:Scan", &["*".to_string()][..])
        );
    }

    #[test]
    fn a_missing_member_drops_the_resource_and_wrong_shapes_do_not_panic() {
        for input in [
            Value::Null,
            Value::Struct(Vec::new()),
            Value::Struct(vec![Some(Value::Int(3)), Some(Value::Map(Vec::new()))]),
            Value::Union(0, Box::new(Value::Null)),
            Value::List(vec![Value::Null]),
        ] {
            for action in evaluate(&QUERY, &input, &SCOPE) {
                assert_eq!(action.resources, ["*"]);
            }
        }
    }

    #[test]
    fn the_product_of_bound_values_is_capped() {
        let many: Vec<String> = (0..1500).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let input = Value::Struct(vec![Some(Value::String("T".into())), Some(strings(&refs)), None]);
        let needed = evaluate(&QUERY, &input, &SCOPE);
        assert_eq!(needed[0].resources.len(), MAX_RESOURCES);
    }

    #[test]
    fn partiql_statements_name_their_table() {
        let cases = [
            (
                "SELECT * FROM \"Music\" WHERE Artist = ?",
                Transform::PartiqlSelect,
                Some("Music"),
            ),
            ("select a from Music.ByArtist", Transform::PartiqlSelect, Some("Music")),
            ("SELECT \"from\" FROM \"T-1\"", Transform::PartiqlSelect, Some("T-1")),
            (
                "INSERT INTO \"Music\" VALUE {'a': 1}",
                Transform::PartiqlInsert,
                Some("Music"),
            ),
            ("  UPDATE Music SET x = 1", Transform::PartiqlUpdate, Some("Music")),
            ("DELETE FROM Music WHERE a = 1", Transform::PartiqlDelete, Some("Music")),
            ("DELETE FROM Music", Transform::PartiqlSelect, None),
            ("SELECT * FROM", Transform::PartiqlSelect, None),
            ("SELECT", Transform::PartiqlSelect, None),
            ("SELECT * FROM \"", Transform::PartiqlSelect, None),
            ("SELECT 'é FROM x' FROM t", Transform::PartiqlSelect, Some("t")),
            ("SELECT é FROMé", Transform::PartiqlSelect, None),
        ];
        for (statement, how, table) in cases {
            assert_eq!(text_of(statement, how).as_deref(), table, "{statement}");
        }
    }

    #[test]
    fn a_scope_takes_its_region_s_partition() {
        let scope = Scope::new("us-gov-west-1", "111122223333");
        assert_eq!((scope.partition, scope.region), ("aws-us-gov", "us-gov-west-1"));
    }

    #[test]
    fn unbound_variables_are_wildcards() {
        assert_eq!(render("a/${Nope}/${Account}", &[], &SCOPE), "a/*/111122223333");
        assert_eq!(render("a/${unclosed", &[], &SCOPE), "a/${unclosed");
    }
}
