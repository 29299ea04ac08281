//! Running a [`Query`](super::Query) over events: each command in turn over records of
//! named fields.

use std::collections::{BTreeMap, HashSet};

use stratus_core::calendar::civil_from_seconds;

use super::{CmpOp, Command, Condition, Function, GroupKey, Literal, Matcher, Query};

/// One log event, as the query reads it.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) timestamp: i64,
    pub(crate) ingestion: i64,
    pub(crate) group: String,
    pub(crate) stream: String,
    pub(crate) message: String,
    /// What `@ptr` shows for the event.
    pub(crate) pointer: String,
}

/// One result row: its fields in the order the query shows them.
pub(crate) type Row = Vec<(String, String)>;

/// A record between commands: its time (for `@timestamp` order and `bin`) and its fields.
#[derive(Debug, Clone)]
struct Record {
    timestamp: i64,
    fields: BTreeMap<String, String>,
}

impl Record {
    fn of(account: &str, e: &Event) -> Record {
        let mut fields = BTreeMap::new();
        fields.insert("@timestamp".to_owned(), format_time(e.timestamp));
        fields.insert("@message".to_owned(), e.message.clone());
        fields.insert("@logStream".to_owned(), e.stream.clone());
        fields.insert("@log".to_owned(), format!("{account}:{}", e.group));
        fields.insert("@ingestionTime".to_owned(), format_time(e.ingestion));
        fields.insert("@ptr".to_owned(), e.pointer.clone());
        if e.message.trim_start().starts_with('{') {
            if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(&e.message) {
                flatten("", &serde_json::Value::Object(map), &mut fields);
            }
        }
        Record {
            timestamp: e.timestamp,
            fields,
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// JSON members as `a.b` fields, as Insights discovers them.
fn flatten(prefix: &str, value: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&name, v, out);
            }
        }
        serde_json::Value::String(s) if !prefix.is_empty() => {
            out.insert(prefix.to_owned(), s.clone());
        }
        other if !prefix.is_empty() => {
            out.insert(prefix.to_owned(), other.to_string());
        }
        _ => {}
    }
}

/// Insights' time format: `2024-01-02 03:04:05.678`.
pub(crate) fn format_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(ms.div_euclid(1000));
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{:03}", ms.rem_euclid(1000))
}

fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn holds(c: &Condition, r: &Record) -> bool {
    match c {
        Condition::And(a, b) => holds(a, r) && holds(b, r),
        Condition::Or(a, b) => holds(a, r) || holds(b, r),
        Condition::Not(a) => !holds(a, r),
        Condition::Like(field, matcher) => r.get(field).is_some_and(|v| match matcher {
            Matcher::Substring(s) => v.contains(s.as_str()),
            Matcher::Regex(re) => re.is_match(v),
        }),
        Condition::Compare(field, op, literal) => {
            let Some(value) = r.get(field) else { return false };
            let ordering = match literal {
                Literal::Number(n) => match number(value) {
                    Some(v) => v.partial_cmp(n),
                    None => return *op == CmpOp::Ne,
                },
                Literal::Text(t) => Some(value.cmp(t.as_str())),
            };
            let Some(ordering) = ordering else { return false };
            match op {
                CmpOp::Eq => ordering.is_eq(),
                CmpOp::Ne => ordering.is_ne(),
                CmpOp::Lt => ordering.is_lt(),
                CmpOp::Le => ordering.is_le(),
                CmpOp::Gt => ordering.is_gt(),
                CmpOp::Ge => ordering.is_ge(),
            }
        }
    }
}

/// The values a `*` glob captures from `text`, if it matches.
fn capture(glob: &str, text: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = glob.split('*').collect();
    let start = text.find(parts[0])?;
    let mut rest = &text[start + parts[0].len()..];
    let mut captured = Vec::new();
    for (i, literal) in parts.iter().enumerate().skip(1) {
        let last = i == parts.len() - 1;
        let end = if last && literal.is_empty() {
            rest.len()
        } else {
            rest.find(literal)?
        };
        captured.push(rest[..end].to_owned());
        rest = &rest[end + literal.len()..];
    }
    Some(captured)
}

fn compare_values(a: Option<&str>, b: Option<&str>) -> std::cmp::Ordering {
    match (a.and_then(number), b.and_then(number)) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal),
        _ => a.cmp(&b),
    }
}

/// One stats group: its first record's time, and per aggregate the numbers seen and the
/// records counted.
type Group = (i64, Vec<Vec<f64>>, Vec<usize>);

fn stats(records: Vec<Record>, aggregates: &[super::Aggregate], by: &[GroupKey]) -> (Vec<Record>, Vec<String>) {
    let mut groups: BTreeMap<Vec<String>, Group> = BTreeMap::new();
    for r in &records {
        let key: Vec<String> = by
            .iter()
            .map(|k| match k {
                GroupKey::Field(f) => r.get(f).unwrap_or("").to_owned(),
                GroupKey::Bin { millis, .. } => format_time(r.timestamp.div_euclid(*millis) * millis),
            })
            .collect();
        let entry = groups.entry(key).or_insert_with(|| {
            (
                r.timestamp,
                vec![Vec::new(); aggregates.len()],
                vec![0; aggregates.len()],
            )
        });
        for (i, a) in aggregates.iter().enumerate() {
            match &a.field {
                None => entry.2[i] += 1,
                Some(f) => {
                    if let Some(v) = r.get(f) {
                        entry.2[i] += 1;
                        entry.1[i].extend(number(v));
                    }
                }
            }
        }
    }
    let mut names: Vec<String> = by
        .iter()
        .map(|k| match k {
            GroupKey::Field(f) => f.clone(),
            GroupKey::Bin { name, .. } => name.clone(),
        })
        .collect();
    names.extend(aggregates.iter().map(|a| a.name.clone()));
    let rows = groups
        .into_iter()
        .map(|(key, (timestamp, values, counts))| {
            let mut fields: BTreeMap<String, String> = names.iter().cloned().zip(key).collect();
            for (i, a) in aggregates.iter().enumerate() {
                let v = &values[i];
                let result = match a.function {
                    Function::Count => Some(counts[i] as f64),
                    Function::Sum => Some(v.iter().sum()),
                    Function::Avg => (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64),
                    Function::Min => v.iter().copied().reduce(f64::min),
                    Function::Max => v.iter().copied().reduce(f64::max),
                };
                if let Some(result) = result {
                    fields.insert(a.name.clone(), format_number(result));
                }
            }
            Record { timestamp, fields }
        })
        .collect();
    (rows, names)
}

impl Query {
    /// Runs the query over `events` of `account`, answering at most `limit` rows and how
    /// many events matched before any stats.
    pub(crate) fn run(&self, account: &str, events: &[Event], limit: usize) -> (Vec<Row>, usize) {
        let mut records: Vec<Record> = events.iter().map(|e| Record::of(account, e)).collect();
        let aggregated = self.commands.iter().any(|c| matches!(c, Command::Stats { .. }));
        if !self.commands.iter().any(|c| matches!(c, Command::Sort(_))) && !aggregated {
            // Without a sort, the newest events come first.
            records.sort_by_key(|r| std::cmp::Reverse(r.timestamp));
        }
        let mut shown: Option<Vec<String>> = None;
        let mut matched = 0;
        let mut limited = limit;
        for command in &self.commands {
            match command {
                Command::Fields(f) | Command::Display(f) => shown = Some(f.clone()),
                Command::Filter(c) => records.retain(|r| holds(c, r)),
                Command::Parse { source, glob, names } => {
                    for r in &mut records {
                        let captured = r.get(source).and_then(|text| capture(glob, text));
                        if let Some(values) = captured {
                            r.fields.extend(names.iter().cloned().zip(values));
                        }
                    }
                }
                Command::Stats { aggregates, by } => {
                    matched = records.len();
                    let (rows, names) = stats(std::mem::take(&mut records), aggregates, by);
                    records = rows;
                    shown = Some(names);
                }
                Command::Sort(keys) => records.sort_by(|a, b| {
                    for (field, descending) in keys {
                        let ordering = if field == "@timestamp" {
                            a.timestamp.cmp(&b.timestamp)
                        } else {
                            compare_values(a.get(field), b.get(field))
                        };
                        let ordering = if *descending { ordering.reverse() } else { ordering };
                        if ordering.is_ne() {
                            return ordering;
                        }
                    }
                    std::cmp::Ordering::Equal
                }),
                Command::Limit(n) => limited = limited.min(*n),
                Command::Dedup(fields) => {
                    let mut seen = HashSet::new();
                    records.retain(|r| {
                        seen.insert(fields.iter().map(|f| r.get(f).map(str::to_owned)).collect::<Vec<_>>())
                    });
                }
            }
        }
        if !aggregated {
            matched = records.len();
        }
        let shown = shown.unwrap_or_else(|| vec!["@timestamp".to_owned(), "@message".to_owned()]);
        let rows = records
            .into_iter()
            .take(limited)
            .map(|r| {
                let mut row: Row = shown
                    .iter()
                    .filter_map(|f| r.get(f).map(|v| (f.clone(), v.to_owned())))
                    .collect();
                if !aggregated && !shown.iter().any(|f| f == "@ptr") {
                    if let Some(ptr) = r.get("@ptr") {
                        row.push(("@ptr".to_owned(), ptr.to_owned()));
                    }
                }
                row
            })
            .collect();
        (rows, matched)
    }
}
