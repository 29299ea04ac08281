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
//! Valid input allocates nothing: the path is a chain of stack frames, and text is only
//! rendered for a violation.
//!
//! ```
//! use stratus_core::schema::{Constraints, Member, Shape, ShapeType};
//! use stratus_core::validate::check;
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
//! let report = check(&INPUT, &bad, None).unwrap_err();
//! assert_eq!(
//!     report.message(),
//!     "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: \
//!      Member must have length greater than or equal to 3"
//! );
//! ```

use std::fmt::Write as _;

use crate::error::AwsError;
use crate::schema::{Constraints, Member, Operation, Service, Shape, ShapeType};
use crate::value::Value;

/// AWS reports at most this many violations.
pub const MAX_REPORTED: usize = 10;

/// The violations found in one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    items: Vec<String>,
    /// Whether one of the reported items is a missing required member.
    missing: bool,
}

impl Report {
    /// The reported violations (at most [`MAX_REPORTED`]), each `Value … failed to satisfy …`.
    pub fn items(&self) -> &[String] {
        &self.items
    }

    /// The whole message as AWS writes it.
    pub fn message(&self) -> String {
        let n = self.items.len();
        let noun = if n == 1 { "error" } else { "errors" };
        format!("{n} validation {noun} detected: {}", self.items.join("; "))
    }
}

/// Validates an operation's input as `service` would, answering with the service's own
/// validation error.
pub fn validate_input(service: &Service, operation: &Operation, input: &Value) -> Result<(), AwsError> {
    let style = service.validation;
    let root = style.path_from_input.then_some(operation.name);
    check(operation.input, input, root).map_err(|report| {
        let code = match style.missing_code {
            Some(code) if report.missing && report.items.len() == 1 => code,
            _ => style.code,
        };
        AwsError::new(code, report.message(), style.http_status)
    })
}

/// Checks `value` against `shape`. `root_operation` names an operation whose `<op>Input`
/// prefixes every path.
pub fn check(shape: &'static Shape, value: &Value, root_operation: Option<&str>) -> Result<(), Report> {
    let mut checker = Checker {
        items: Vec::new(),
        missing: false,
        root_operation,
    };
    checker.value(&shape.constraints, shape, value, None);
    if checker.items.is_empty() {
        Ok(())
    } else {
        Err(Report {
            items: checker.items,
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
    items: Vec<String>,
    missing: bool,
    root_operation: Option<&'r str>,
}

/// What a violated constraint says.
enum Rule {
    NotNull,
    MinLength(u64),
    MaxLength(u64),
    MinValue(f64, ShapeType),
    MaxValue(f64, ShapeType),
    Pattern(&'static str),
    EnumSet(&'static [&'static str]),
    IntEnumSet(&'static [i32]),
    UniqueItems,
    /// Every constraint of a collection's elements, keys or values.
    Elements(&'static str, &'static Constraints, ShapeType),
}

impl Checker<'_> {
    fn full(&self) -> bool {
        self.items.len() >= MAX_REPORTED
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
        self.own_constraints(c, shape, value, path);
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
                if is_aggregate(element.target) {
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
                if entries.iter().any(|(k, _)| !key_ok(key.constraints(), k)) {
                    let rule = Rule::Elements("Map keys", key.constraints(), key.target.kind);
                    self.report(path, Some(value), shape, rule);
                }
                if is_aggregate(val.target) {
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

    /// Constraints on the value itself (not its elements), each reported separately.
    fn own_constraints(
        &mut self,
        c: &'static Constraints,
        shape: &'static Shape,
        value: &Value,
        path: Option<&Path<'_>>,
    ) {
        for_each_violation(c, shape.kind, value, |rule| self.report(path, Some(value), shape, rule));
    }

    fn report(&mut self, path: Option<&Path<'_>>, value: Option<&Value>, shape: &Shape, rule: Rule) {
        if self.full() {
            return;
        }
        let mut item = String::from("Value ");
        match value {
            _ if shape.sensitive => {}
            None => item.push_str("null "),
            Some(v) => {
                item.push('\'');
                render_value(&mut item, v, shape);
                item.push_str("' ");
            }
        }
        item.push_str("at '");
        self.render_path(&mut item, path);
        item.push_str("' failed to satisfy constraint: ");
        render_rule(&mut item, &rule);
        self.items.push(item);
    }

    fn render_path(&self, out: &mut String, path: Option<&Path<'_>>) {
        let mut steps = Vec::new();
        let mut cur = path;
        while let Some(p) = cur {
            steps.push(p.step);
            cur = p.parent;
        }
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push('.');
            }
        };
        if let Some(op) = self.root_operation {
            sep(out);
            push_lower_first(out, op);
            out.push_str("Input");
        }
        for step in steps.iter().rev() {
            sep(out);
            match step {
                Step::Member(name) => push_lower_first(out, name),
                Step::Index(i) => {
                    let _ = write!(out, "{i}.member");
                }
                Step::Key(k) => {
                    out.push_str(k);
                    out.push_str(".member");
                }
            }
        }
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
        violated(Rule::EnumSet(c.enum_values));
    }
}

fn length_violations(c: &Constraints, len: u64, violated: &mut impl FnMut(Rule)) {
    if let Some((min, max)) = c.length {
        if let Some(min) = min.filter(|m| len < *m) {
            violated(Rule::MinLength(min));
        }
        if let Some(max) = max.filter(|m| len > *m) {
            violated(Rule::MaxLength(max));
        }
    }
}

fn range_violations(c: &Constraints, x: f64, kind: ShapeType, violated: &mut impl FnMut(Rule)) {
    if let Some((min, max)) = c.range {
        if let Some(min) = min.filter(|m| x < *m) {
            violated(Rule::MinValue(min, kind));
        }
        if let Some(max) = max.filter(|m| x > *m) {
            violated(Rule::MaxValue(max, kind));
        }
    }
}

fn all_unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[i + 1..].iter().all(|b| a != b))
}

fn render_rule(out: &mut String, rule: &Rule) {
    match rule {
        Rule::NotNull => out.push_str("Member must not be null"),
        Rule::MinLength(n) => {
            let _ = write!(out, "Member must have length greater than or equal to {n}");
        }
        Rule::MaxLength(n) => {
            let _ = write!(out, "Member must have length less than or equal to {n}");
        }
        Rule::MinValue(n, kind) => {
            out.push_str("Member must have value greater than or equal to ");
            render_bound(out, *n, *kind);
        }
        Rule::MaxValue(n, kind) => {
            out.push_str("Member must have value less than or equal to ");
            render_bound(out, *n, *kind);
        }
        Rule::Pattern(p) => {
            out.push_str("Member must satisfy regular expression pattern: ");
            out.push_str(p);
        }
        Rule::EnumSet(values) => {
            out.push_str("Member must satisfy enum value set: [");
            out.push_str(&values.join(", "));
            out.push(']');
        }
        Rule::IntEnumSet(values) => {
            out.push_str("Member must satisfy enum value set: [");
            let rendered: Vec<String> = values.iter().map(i32::to_string).collect();
            out.push_str(&rendered.join(", "));
            out.push(']');
        }
        Rule::UniqueItems => out.push_str("Member must have unique items"),
        Rule::Elements(what, c, kind) => {
            out.push_str(what);
            out.push_str(" must satisfy constraint: [");
            let mut first = true;
            let mut each = |rule: Rule| {
                if !std::mem::take(&mut first) {
                    out.push_str(", ");
                }
                render_rule(out, &rule);
            };
            // AWS lists the maximum before the minimum.
            if let Some((min, max)) = c.length {
                max.into_iter().for_each(|n| each(Rule::MaxLength(n)));
                min.into_iter().for_each(|n| each(Rule::MinLength(n)));
            }
            if let Some((min, max)) = c.range {
                max.into_iter().for_each(|n| each(Rule::MaxValue(n, *kind)));
                min.into_iter().for_each(|n| each(Rule::MinValue(n, *kind)));
            }
            if let Some(p) = c.pattern {
                each(Rule::Pattern(p.source()));
            }
            if !c.enum_values.is_empty() {
                each(Rule::EnumSet(c.enum_values));
            }
            if !c.int_enum_values.is_empty() {
                each(Rule::IntEnumSet(c.int_enum_values));
            }
            out.push(']');
        }
    }
}

/// Integral shapes print bounds as integers; float and double shapes as Java's
/// `Double.toString` does (`1.0`, `0.5`).
fn render_bound(out: &mut String, n: f64, kind: ShapeType) {
    if kind.is_integral() {
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
    }
}

fn push_lower_first(out: &mut String, name: &str) {
    let mut chars = name.chars();
    if let Some(first) = chars.next() {
        out.push(first.to_ascii_lowercase());
        out.push_str(chars.as_str());
    }
}
