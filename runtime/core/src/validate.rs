//! The constraint engine: checks a decoded input against its shape's constraint traits and
//! answers in AWS's words.
//!
//! AWS's services (the Java "Coral" framework behind most of them) report violations as
//! `1 validation error detected: Value 'x' at 'tableName' failed to satisfy constraint:
//! Member must have length greater than or equal to 3`, at most ten items joined by `; `.
//! Paths name members with their first letter lower-cased, list elements as
//! `keySchema.1.member`, structure values of maps as `requestItems.<key>.member`; constraints
//! on scalar list elements, map keys and map values are reported once at the collection with
//! every constraint of the element listed in brackets. Patterns must match the whole value
//! (Java's `String.matches`), and are echoed as the model writes them. The sources for each
//! rule are in `docs/decisions/validation-errors.md`.
//!
//! Services whose model lists the Smithy framework's `ValidationException` (the protocol test
//! services) are answered in that framework's dialect instead: JSON-pointer paths
//! (`/list/0/name`), one report per element, `Member must have length between 2 and 8,
//! inclusive`, and a `fieldList` in a modelled error.
//!
//! Valid input allocates nothing: the path is a chain of stack frames, and text is only
//! rendered for a violation.
//!
//! ```
//! use stratus_core::schema::{Constraints, Member, Shape, ShapeType};
//! use stratus_core::validate::{check, Dialect};
//! use stratus_core::Value;
//! static NAME: Shape = Shape {
//!     constraints: Constraints { length: Some((Some(3), None)), ..Constraints::NONE },
//!     ..Shape::simple("TableName", ShapeType::String)
//! };
//! static INPUT: Shape = Shape {
//!     members: &[Member { required: true, ..Member::plain("TableName", &NAME) }],
//!     ..Shape::simple("DescribeTableInput", ShapeType::Structure)
//! };
//! let bad = Value::Struct(vec![Some(Value::String("ab".into()))]);
//! let report = check(&INPUT, &bad, Dialect::Coral { root_operation: None, unanchored_patterns: false }).unwrap_err();
//! assert_eq!(
//!     report.message(),
//!     "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: \
//!      Member must have length greater than or equal to 3"
//! );
//! ```

use std::fmt::Write as _;

use crate::error::{AwsError, OperationError};
use crate::schema::{Constraints, Member, Operation, Service, Shape, ShapeType};
use crate::value::Value;

/// AWS reports at most this many violations.
pub const MAX_REPORTED: usize = 10;

/// How violations are worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect<'r> {
    /// AWS's services; `root_operation` names an operation whose `<op>Input` prefixes every
    /// path (API Gateway).
    Coral {
        /// That operation's name, e.g. `CreateRestApi`; `None` starts paths at the input's
        /// members.
        root_operation: Option<&'r str>,
        /// Whether pattern violations quote the pattern without its outer `^…$`
        /// ([`ValidationStyle::unanchored_patterns`](crate::schema::ValidationStyle)).
        unanchored_patterns: bool,
    },
    /// The Smithy server framework's `ValidationException`.
    Framework,
}

/// One violation: where, and the whole item text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The member path the violation is at, as the dialect writes it
    /// (`keySchema.1.member.attributeName`; the framework's `/KeySchema/0/AttributeName`).
    pub path: String,
    /// The whole item, e.g. `Value null at 'tableName' failed to satisfy constraint: …`.
    pub message: String,
}

/// The violations found in one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    items: Vec<Violation>,
    framework: bool,
    /// Whether one of the reported items is a missing required member.
    missing: bool,
}

impl Report {
    /// The reported violations (at most [`MAX_REPORTED`]).
    pub fn items(&self) -> &[Violation] {
        &self.items
    }

    /// The member a report of one missing top-level member names, as the model spells it
    /// (`MessageBody` for the path `messageBody`).
    pub fn missing_parameter(&self) -> Option<String> {
        let [only] = self.items.as_slice() else {
            return None;
        };
        if !self.missing || only.path.contains(['.', '/']) {
            return None;
        }
        let mut chars = only.path.chars();
        let first = chars.next()?;
        Some(first.to_uppercase().chain(chars).collect())
    }

    /// The whole message as the service writes it.
    pub fn message(&self) -> String {
        let n = self.items.len();
        let noun = if n == 1 { "error" } else { "errors" };
        let separator = if self.framework { '.' } else { ':' };
        let items: Vec<&str> = self.items.iter().map(|v| v.message.as_str()).collect();
        format!("{n} validation {noun} detected{separator} {}", items.join("; "))
    }
}

/// Validates an operation's input as `service` would, answering with the service's own
/// validation error.
pub fn validate_input(service: &Service, operation: &Operation, input: &Value) -> Result<(), OperationError> {
    let style = service.validation;
    let dialect = match style.framework_error {
        Some(_) => Dialect::Framework,
        None => Dialect::Coral {
            root_operation: style.path_from_input.then_some(operation.name),
            unanchored_patterns: style.unanchored_patterns,
        },
    };
    let Err(report) = check(operation.input, input, dialect) else {
        return Ok(());
    };
    if let Some(shape) = style.framework_error {
        return Err(OperationError::Modeled {
            shape,
            value: framework_error_value(shape, &report),
        });
    }
    let lone_missing = report.missing && report.items.len() == 1;
    let code = match style.missing_code {
        Some(code) if lone_missing => code,
        _ => style.code,
    };
    let message = match report
        .missing_parameter()
        .filter(|_| lone_missing && style.missing_parameter_message)
    {
        Some(name) => format!("The request must contain the parameter {name}."),
        None => report.message(),
    };
    Err(AwsError::new(code, message, style.http_status).into())
}

/// The framework `ValidationException` value: `message` and `fieldList` of `{path, message}`.
fn framework_error_value(shape: &'static Shape, report: &Report) -> Value {
    let mut slots = vec![None; shape.members.len()];
    if let Some(i) = shape.member_index("message") {
        slots[i] = Some(Value::String(report.message()));
    }
    if let Some(i) = shape.member_index("fieldList") {
        let field = shape.members[i].target.list_member().target;
        let fields = report
            .items
            .iter()
            .map(|v| {
                let mut f = vec![None; field.members.len()];
                for (name, text) in [("path", &v.path), ("message", &v.message)] {
                    if let Some(j) = field.member_index(name) {
                        f[j] = Some(Value::String(text.clone()));
                    }
                }
                Value::Struct(f)
            })
            .collect();
        slots[i] = Some(Value::List(fields));
    }
    Value::Struct(slots)
}

/// Checks `value` against `shape`, wording violations in `dialect`.
pub fn check(shape: &'static Shape, value: &Value, dialect: Dialect<'_>) -> Result<(), Report> {
    let mut checker = Checker {
        items: Vec::new(),
        missing: false,
        dialect,
    };
    checker.value(&shape.constraints, shape, value, None);
    if checker.items.is_empty() {
        Ok(())
    } else {
        Err(Report {
            items: checker.items,
            framework: dialect == Dialect::Framework,
            missing: checker.missing,
        })
    }
}

/// One step of a member path, kept on the stack while walking.
#[derive(Clone, Copy)]
enum Step<'a> {
    Member(&'static str),
    /// A list element, 1-based.
    Index(usize),
    /// A map entry's value.
    Key(&'a str),
}

struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Step<'a>,
}

struct Checker<'r> {
    items: Vec<Violation>,
    missing: bool,
    dialect: Dialect<'r>,
}

/// What a violated constraint says.
enum Rule {
    NotNull,
    /// A length out of `bounds`; `too_short` tells which bound.
    Length {
        actual: u64,
        bounds: (Option<u64>, Option<u64>),
        too_short: bool,
    },
    /// A number out of `bounds`; `too_small` tells which bound.
    Range {
        bounds: (Option<f64>, Option<f64>),
        kind: ShapeType,
        too_small: bool,
    },
    Pattern(&'static str),
    /// The enum's values (its `Constraints`, which also tell the internal ones).
    EnumSet(&'static Constraints),
    IntEnumSet(&'static [i32]),
    UniqueItems,
    /// Every constraint of a collection's elements, keys or values (Coral only).
    Elements(&'static str, &'static Constraints, ShapeType),
}

impl Checker<'_> {
    fn full(&self) -> bool {
        self.items.len() >= MAX_REPORTED
    }

    fn framework(&self) -> bool {
        self.dialect == Dialect::Framework
    }

    /// Whether pattern violations quote the pattern without its outer anchors.
    fn unanchored_patterns(&self) -> bool {
        matches!(
            self.dialect,
            Dialect::Coral {
                unanchored_patterns: true,
                ..
            }
        )
    }

    fn member(&mut self, member: &'static Member, value: Option<&Value>, path: Option<&Path<'_>>) {
        let here = Path {
            parent: path,
            step: Step::Member(member.name),
        };
        match value {
            None | Some(Value::Null) => {
                if member.required {
                    self.missing = true;
                    self.report(Some(&here), None, member.target, Rule::NotNull);
                }
            }
            Some(v) => self.value(member.constraints(), member.target, v, Some(&here)),
        }
    }

    fn value(&mut self, c: &'static Constraints, shape: &'static Shape, value: &Value, path: Option<&Path<'_>>) {
        if self.full() {
            return;
        }
        for_each_violation(c, shape.kind, value, |rule| self.report(path, Some(value), shape, rule));
        match value {
            Value::Struct(slots) if matches!(shape.kind, ShapeType::Structure | ShapeType::Union) => {
                for (member, slot) in shape.members.iter().zip(slots) {
                    self.member(member, slot.as_ref(), path);
                }
            }
            Value::Union(index, inner) => {
                if let Some(member) = shape.members.get(*index) {
                    self.member(member, Some(inner), path);
                }
            }
            Value::List(items) if shape.kind == ShapeType::List => {
                let element = shape.list_member();
                if is_aggregate(element.target) || self.framework() {
                    for (i, item) in items.iter().enumerate() {
                        let here = Path {
                            parent: path,
                            step: Step::Index(i + 1),
                        };
                        if !matches!(item, Value::Null) {
                            self.value(element.constraints(), element.target, item, Some(&here));
                        }
                    }
                } else if items
                    .iter()
                    .any(|item| !scalar_ok(element.constraints(), element.target, item))
                {
                    let rule = Rule::Elements("Member", element.constraints(), element.target.kind);
                    self.report(path, Some(value), shape, rule);
                }
            }
            Value::Map(entries) if shape.kind == ShapeType::Map => {
                let (key, val) = shape.map_members();
                if self.framework() {
                    // The framework reports a bad key at the map itself.
                    for (k, _) in entries.iter().filter(|(k, _)| !key_ok(key.constraints(), k)) {
                        self.value(key.constraints(), key.target, &Value::String(k.clone()), path);
                    }
                } else if entries.iter().any(|(k, _)| !key_ok(key.constraints(), k)) {
                    let rule = Rule::Elements("Map keys", key.constraints(), key.target.kind);
                    self.report(path, Some(value), shape, rule);
                }
                if is_aggregate(val.target) || self.framework() {
                    for (k, item) in entries {
                        let here = Path {
                            parent: path,
                            step: Step::Key(k),
                        };
                        if !matches!(item, Value::Null) {
                            self.value(val.constraints(), val.target, item, Some(&here));
                        }
                    }
                } else if entries
                    .iter()
                    .any(|(_, v)| !scalar_ok(val.constraints(), val.target, v))
                {
                    let rule = Rule::Elements("Map value", val.constraints(), val.target.kind);
                    self.report(path, Some(value), shape, rule);
                }
            }
            _ => {}
        }
    }

    fn report(&mut self, path: Option<&Path<'_>>, value: Option<&Value>, shape: &Shape, rule: Rule) {
        if self.full() {
            return;
        }
        let pointer = self.render_path(path);
        let mut message = String::from("Value ");
        match (self.dialect, value) {
            (Dialect::Framework, _) => {
                if let Rule::Length { actual, .. } = rule {
                    let _ = write!(message, "with length {actual} ");
                }
            }
            _ if shape.sensitive => {}
            (_, None) => message.push_str("null "),
            (_, Some(v)) => {
                message.push('\'');
                render_value(&mut message, v, shape);
                message.push_str("' ");
            }
        }
        message.push_str("at '");
        message.push_str(&pointer);
        message.push_str("' failed to satisfy constraint: ");
        render_rule(&mut message, &rule, self.framework(), self.unanchored_patterns());
        self.items.push(Violation { path: pointer, message });
    }

    fn render_path(&self, path: Option<&Path<'_>>) -> String {
        let mut steps = Vec::new();
        let mut cur = path;
        while let Some(p) = cur {
            steps.push(p.step);
            cur = p.parent;
        }
        let mut out = String::new();
        match self.dialect {
            Dialect::Framework => {
                for step in steps.iter().rev() {
                    out.push('/');
                    match step {
                        Step::Member(name) => out.push_str(name),
                        Step::Index(i) => {
                            let _ = write!(out, "{}", i - 1);
                        }
                        Step::Key(k) => out.push_str(k),
                    }
                }
            }
            Dialect::Coral { root_operation, .. } => {
                let mut segments: Vec<String> = Vec::with_capacity(steps.len() + 1);
                if let Some(op) = root_operation {
                    segments.push(format!("{}Input", lower_first(op)));
                }
                for step in steps.iter().rev() {
                    segments.push(match step {
                        Step::Member(name) => lower_first(name),
                        Step::Index(i) => format!("{i}.member"),
                        Step::Key(k) => format!("{k}.member"),
                    });
                }
                out = segments.join(".");
            }
        }
        out
    }
}

fn scalar_ok(c: &'static Constraints, shape: &Shape, value: &Value) -> bool {
    let mut ok = true;
    if !matches!(value, Value::Null) {
        for_each_violation(c, shape.kind, value, |_| ok = false);
    }
    ok
}

fn key_ok(c: &'static Constraints, key: &str) -> bool {
    let mut ok = true;
    string_violations(c, key, |_| ok = false);
    ok
}

fn is_aggregate(shape: &Shape) -> bool {
    matches!(
        shape.kind,
        ShapeType::Structure | ShapeType::Union | ShapeType::List | ShapeType::Map
    )
}

/// Calls `violated` for each constraint of `c` that `value` breaks, in AWS's order.
fn for_each_violation(c: &'static Constraints, kind: ShapeType, value: &Value, mut violated: impl FnMut(Rule)) {
    match value {
        Value::String(s) => string_violations(c, s, violated),
        Value::Blob(b) => length_violations(c, b.len() as u64, &mut violated),
        Value::List(items) => {
            length_violations(c, items.len() as u64, &mut violated);
            if c.unique_items && !all_unique(items) {
                violated(Rule::UniqueItems);
            }
        }
        Value::Map(entries) => length_violations(c, entries.len() as u64, &mut violated),
        Value::Int(n) => {
            if !c.int_enum_values.is_empty() && !c.int_enum_values.iter().any(|v| i64::from(*v) == *n) {
                violated(Rule::IntEnumSet(c.int_enum_values));
            }
            range_violations(c, *n as f64, kind, &mut violated);
        }
        Value::Float(x) => range_violations(c, *x, kind, &mut violated),
        _ => {}
    }
}

fn string_violations(c: &'static Constraints, s: &str, mut violated: impl FnMut(Rule)) {
    if c.length.is_some() {
        length_violations(c, s.chars().count() as u64, &mut violated);
    }
    if let Some(p) = c.pattern {
        if !p.is_match(s) {
            violated(Rule::Pattern(p.source()));
        }
    }
    if !c.enum_values.is_empty() && !c.enum_values.contains(&s) {
        violated(Rule::EnumSet(c));
    }
}

fn length_violations(c: &Constraints, len: u64, violated: &mut impl FnMut(Rule)) {
    if let Some(bounds @ (min, max)) = c.length {
        if min.is_some_and(|m| len < m) {
            violated(Rule::Length {
                actual: len,
                bounds,
                too_short: true,
            });
        }
        if max.is_some_and(|m| len > m) {
            violated(Rule::Length {
                actual: len,
                bounds,
                too_short: false,
            });
        }
    }
}

fn range_violations(c: &Constraints, x: f64, kind: ShapeType, violated: &mut impl FnMut(Rule)) {
    if let Some(bounds @ (min, max)) = c.range {
        if min.is_some_and(|m| x < m) {
            violated(Rule::Range {
                bounds,
                kind,
                too_small: true,
            });
        }
        if max.is_some_and(|m| x > m) {
            violated(Rule::Range {
                bounds,
                kind,
                too_small: false,
            });
        }
    }
}

fn all_unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[i + 1..].iter().all(|b| a != b))
}

fn render_rule(out: &mut String, rule: &Rule, framework: bool, unanchored: bool) {
    match rule {
        Rule::NotNull => out.push_str("Member must not be null"),
        Rule::Length {
            bounds: (Some(min), Some(max)),
            ..
        } if framework => {
            let _ = write!(out, "Member must have length between {min} and {max}, inclusive");
        }
        Rule::Length {
            bounds: (min, max),
            too_short,
            ..
        } => {
            let (relation, bound) = if *too_short { ("greater", min) } else { ("less", max) };
            let _ = write!(
                out,
                "Member must have length {relation} than or equal to {}",
                bound.unwrap_or_default()
            );
        }
        Rule::Range {
            bounds: (Some(min), Some(max)),
            kind,
            ..
        } if framework => {
            out.push_str("Member must be between ");
            render_bound(out, *min, *kind, framework);
            out.push_str(" and ");
            render_bound(out, *max, *kind, framework);
            out.push_str(", inclusive");
        }
        Rule::Range {
            bounds: (min, max),
            kind,
            too_small,
        } => {
            let (relation, bound) = if *too_small { ("greater", min) } else { ("less", max) };
            let verb = if framework { "be" } else { "have value" };
            let _ = write!(out, "Member must {verb} {relation} than or equal to ");
            render_bound(out, bound.unwrap_or_default(), *kind, framework);
        }
        Rule::Pattern(p) => {
            out.push_str("Member must satisfy regular expression pattern: ");
            out.push_str(if unanchored { without_anchors(p) } else { p });
        }
        Rule::EnumSet(c) => {
            out.push_str("Member must satisfy enum value set: [");
            let listed = c.enum_values.iter().filter(|v| !c.internal_enum_values.contains(v));
            for (i, value) in listed.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(value);
            }
            out.push(']');
        }
        Rule::IntEnumSet(values) => {
            out.push_str("Member must satisfy enum value set: [");
            let rendered: Vec<String> = values.iter().map(i32::to_string).collect();
            out.push_str(&rendered.join(", "));
            out.push(']');
        }
        Rule::UniqueItems if framework => out.push_str("Member must have unique values"),
        Rule::UniqueItems => out.push_str("Member must have unique items"),
        Rule::Elements(what, c, kind) => {
            out.push_str(what);
            out.push_str(" must satisfy constraint: [");
            let mut first = true;
            let mut each = |rule: Rule| {
                if !std::mem::take(&mut first) {
                    out.push_str(", ");
                }
                render_rule(out, &rule, framework, unanchored);
            };
            // AWS lists the maximum before the minimum.
            if let Some(bounds @ (min, max)) = c.length {
                if max.is_some() {
                    each(Rule::Length {
                        actual: 0,
                        bounds,
                        too_short: false,
                    });
                }
                if min.is_some() {
                    each(Rule::Length {
                        actual: 0,
                        bounds,
                        too_short: true,
                    });
                }
            }
            if let Some(bounds @ (min, max)) = c.range {
                if max.is_some() {
                    each(Rule::Range {
                        bounds,
                        kind: *kind,
                        too_small: false,
                    });
                }
                if min.is_some() {
                    each(Rule::Range {
                        bounds,
                        kind: *kind,
                        too_small: true,
                    });
                }
            }
            if let Some(p) = c.pattern {
                each(Rule::Pattern(p.source()));
            }
            if !c.enum_values.is_empty() {
                each(Rule::EnumSet(c));
            }
            if !c.int_enum_values.is_empty() {
                each(Rule::IntEnumSet(c.int_enum_values));
            }
            out.push(']');
        }
    }
}

/// Integral shapes print bounds as integers; float and double shapes as Java's
/// `Double.toString` does (`1.0`, `0.5`) for AWS, and as written for the framework.
/// `pattern` without one leading `^` and one trailing `$`, when it has both.
fn without_anchors(pattern: &str) -> &str {
    pattern
        .strip_prefix('^')
        .and_then(|p| p.strip_suffix('$'))
        .unwrap_or(pattern)
}

fn render_bound(out: &mut String, n: f64, kind: ShapeType, framework: bool) {
    if kind.is_integral() || (framework && n.fract() == 0.0) {
        let _ = write!(out, "{}", n as i64);
    } else {
        render_java_double(out, n);
    }
}

fn render_java_double(out: &mut String, x: f64) {
    if x.fract() == 0.0 && x.abs() < 1e7 {
        let _ = write!(out, "{x:.1}");
    } else {
        let _ = write!(out, "{x}");
    }
}

/// Renders a value the way Java's `toString` shows it in AWS's messages.
fn render_value(out: &mut String, value: &Value, shape: &Shape) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => render_java_double(out, *x),
        Value::String(s) => out.push_str(s),
        Value::Blob(b) => {
            let _ = write!(out, "java.nio.HeapByteBuffer[pos=0 lim={0} cap={0}]", b.len());
        }
        Value::Timestamp(t) => {
            let _ = write!(out, "{t}");
        }
        Value::List(items) => {
            out.push('[');
            let element = shape.members.first().map(|m| m.target);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_value(out, item, element.unwrap_or(shape));
            }
            out.push(']');
        }
        Value::Map(entries) => {
            out.push('{');
            let val = shape.members.get(1).map(|m| m.target);
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push('=');
                render_value(out, v, val.unwrap_or(shape));
            }
            out.push('}');
        }
        Value::Struct(slots) => {
            out.push_str(shape.name);
            out.push('(');
            for (i, (member, slot)) in shape.members.iter().zip(slots).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_lower_first(out, member.name);
                out.push('=');
                match slot {
                    Some(v) => render_value(out, v, member.target),
                    None => out.push_str("null"),
                }
            }
            out.push(')');
        }
        Value::Union(index, inner) => {
            out.push_str(shape.name);
            out.push('(');
            if let Some(member) = shape.members.get(*index) {
                push_lower_first(out, member.name);
                out.push('=');
                render_value(out, inner, member.target);
            }
            out.push(')');
        }
        Value::Document(d) => {
            let _ = write!(out, "{d:?}");
        }
        Value::EncodedJson(text) => out.push_str(text),
    }
}

fn push_lower_first(out: &mut String, name: &str) {
    out.push_str(&lower_first(name));
}

/// `TableName` → `tableName`: only the first letter changes (`SSESpecification` →
/// `sSESpecification`), as AWS writes member paths.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}
