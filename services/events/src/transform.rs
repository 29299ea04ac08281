//! What a target receives: the event, a constant `Input`, the part an `InputPath` selects, or
//! an `InputTransformer`'s template filled from the event.
//!
//! Paths are the JSON path subset EventBridge takes: `$`, then `.name` or `['name']` steps and
//! `[N]` indices. In a template, `<name>` is replaced by the value its path selects (or by one
//! of the predefined variables): inside a JSON string a string value goes in without its
//! quotes (escaped as JSON), outside one every value goes in as JSON, and a path that selects
//! nothing is the empty string (`""` outside quotes).

use std::collections::BTreeMap;

use serde_json::Value;

/// The predefined variables a template may name without an `InputPathsMap` entry.
pub(crate) const PREDEFINED: [&str; 5] = [
    "aws.events.rule-arn",
    "aws.events.rule-name",
    "aws.events.event.ingestion-time",
    "aws.events.event",
    "aws.events.event.json",
];

/// The value `path` selects in `event`, `None` when it selects nothing or is not a path.
pub(crate) fn select<'a>(event: &'a Value, path: &str) -> Option<&'a Value> {
    let mut rest = path.trim().strip_prefix('$')?;
    let mut at = event;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("['") {
            let (name, tail) = after.split_once("']")?;
            at = at.get(name)?;
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('[') {
            let (index, tail) = after.split_once(']')?;
            let index: usize = index.trim().parse().ok()?;
            at = at.get(index)?;
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            if name.is_empty() {
                return None;
            }
            at = at.get(name)?;
            rest = &after[end..];
        } else {
            return None;
        }
    }
    Some(at)
}

/// Whether `path` is one EventBridge accepts.
pub(crate) fn valid_path(path: &str) -> bool {
    select(&Value::Null, path).is_some() || {
        // Checked on an empty object of any shape: only the syntax matters here.
        let mut rest = match path.trim().strip_prefix('$') {
            Some(rest) => rest,
            None => return false,
        };
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("['") {
                match after.split_once("']") {
                    Some((_, tail)) => rest = tail,
                    None => return false,
                }
            } else if let Some(after) = rest.strip_prefix('[') {
                match after.split_once(']') {
                    Some((index, tail)) if index.trim().parse::<usize>().is_ok() || index == "*" => rest = tail,
                    _ => return false,
                }
            } else if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                if end == 0 {
                    return false;
                }
                rest = &after[end..];
            } else {
                return false;
            }
        }
        true
    }
}

/// The placeholders `<name>` of `template`, in order.
pub(crate) fn placeholders(template: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        match after.find('>') {
            Some(close) if is_name(&after[..close]) => {
                found.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// What the predefined variables stand for in one delivery.
pub(crate) struct Context<'a> {
    pub(crate) rule_arn: &'a str,
    pub(crate) rule_name: &'a str,
    pub(crate) ingestion_time: &'a str,
}

/// `template` filled from `event`.
pub(crate) fn fill(template: &str, paths: &BTreeMap<String, String>, event: &Value, context: &Context<'_>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if c == '<' && !escaped {
            let after = &rest[1..];
            if let Some(close) = after.find('>') {
                let name = &after[..close];
                if is_name(name) {
                    if let Some(value) = variable(name, paths, event, context) {
                        insert(&mut out, &value, in_string);
                        rest = &after[close + 1..];
                        continue;
                    }
                }
            }
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The value of `name` in this delivery: `None` when the name is no variable at all (the
/// text is kept as written), `Some(Null)` when its path selects nothing.
fn variable(name: &str, paths: &BTreeMap<String, String>, event: &Value, context: &Context<'_>) -> Option<Value> {
    if let Some(path) = paths.get(name) {
        // A path that selects nothing is the empty string, in quotes or not, as AWS fills it.
        return Some(
            select(event, path)
                .cloned()
                .unwrap_or_else(|| Value::String(String::new())),
        );
    }
    match name {
        "aws.events.rule-arn" => Some(Value::String(context.rule_arn.to_owned())),
        "aws.events.rule-name" => Some(Value::String(context.rule_name.to_owned())),
        "aws.events.event.ingestion-time" => Some(Value::String(context.ingestion_time.to_owned())),
        "aws.events.event" => Some(without_detail(event)),
        "aws.events.event.json" => Some(event.clone()),
        _ => None,
    }
}

/// The event without its detail, as AWS hands it to `<aws.events.event>`: its own order,
/// and `detailType` for `detail-type`.
fn without_detail(event: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (from, to) in [
        ("id", "id"),
        ("account", "account"),
        ("detail-type", "detailType"),
        ("time", "time"),
        ("source", "source"),
        ("region", "region"),
        ("resources", "resources"),
        ("version", "version"),
    ] {
        if let Some(value) = event.get(from) {
            out.insert(to.to_owned(), value.clone());
        }
    }
    Value::Object(out)
}

/// Inside a JSON string a string goes in escaped, without its quotes, and a list or object as
/// its JSON with every quote left out (`[HIGH]`, `{a:1}`), as AWS writes them.
fn insert(out: &mut String, value: &Value, in_string: bool) {
    match (value, in_string) {
        (Value::String(s), true) => {
            let quoted = Value::String(s.clone()).to_string();
            out.push_str(&quoted[1..quoted.len() - 1]);
        }
        (Value::Null, true) => {}
        (other, true) => out.extend(other.to_string().chars().filter(|&c| c != '"')),
        (other, false) => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn context() -> Context<'static> {
        Context {
            rule_arn: "arn:aws:events:us-east-1:000000000000:rule/r",
            rule_name: "r",
            ingestion_time: "2024-01-01T00:00:00Z",
        }
    }

    fn event() -> Value {
        json!({"version": "0", "id": "1", "detail-type": "t", "source": "s", "detail": {"instance": "i-1", "state": "running", "n": 3, "list": [1, 2]}})
    }

    fn paths() -> BTreeMap<String, String> {
        [
            ("instance", "$.detail.instance"),
            ("state", "$.detail.state"),
            ("n", "$.detail.n"),
            ("missing", "$.detail.nope"),
            ("second", "$.detail.list[1]"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    #[test]
    fn paths_select_as_jsonpath() {
        let e = event();
        assert_eq!(select(&e, "$.detail.state"), Some(&json!("running")));
        assert_eq!(select(&e, "$['detail-type']"), Some(&json!("t")));
        assert_eq!(select(&e, "$.detail.list[0]"), Some(&json!(1)));
        assert_eq!(select(&e, "$"), Some(&e));
        assert_eq!(select(&e, "$.nope"), None);
        assert_eq!(select(&e, "detail"), None);
        assert!(valid_path("$.detail.x[3]"));
        assert!(!valid_path("detail"));
        assert!(!valid_path("$..x"));
    }

    #[test]
    fn json_templates_quote_values_outside_strings_only() {
        let out = fill(
            r#"{"instance": <instance>, "said": "<instance> is <state>", "n": <n>, "m": <missing>, "q": "<missing>", "s": <second>}"#,
            &paths(),
            &event(),
            &context(),
        );
        assert_eq!(
            out,
            r#"{"instance": "i-1", "said": "i-1 is running", "n": 3, "m": "", "q": "", "s": 2}"#
        );
    }

    #[test]
    fn lists_and_objects_inside_strings_lose_their_quotes() {
        let out = fill(
            r#""<list> and <detail>""#,
            &[
                ("list".to_owned(), "$.detail.list".to_owned()),
                ("detail".to_owned(), "$.detail.inner".to_owned()),
            ]
            .into_iter()
            .collect(),
            &json!({"detail": {"list": ["A", "B"], "inner": {"k": "v"}}}),
            &context(),
        );
        assert_eq!(out, r#""[A,B] and {k:v}""#);
    }

    #[test]
    fn string_templates_keep_their_quotes() {
        let out = fill(r#""<instance> is in state <state>""#, &paths(), &event(), &context());
        assert_eq!(out, r#""i-1 is in state running""#);
        assert_eq!(
            fill("plain <instance>", &paths(), &event(), &context()),
            r#"plain "i-1""#
        );
    }

    #[test]
    fn predefined_variables() {
        let out = fill(
            r#"{"arn": "<aws.events.rule-arn>", "name": <aws.events.rule-name>, "e": <aws.events.event>, "at": "<aws.events.event.ingestion-time>"}"#,
            &BTreeMap::new(),
            &event(),
            &context(),
        );
        let parsed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed["arn"], json!("arn:aws:events:us-east-1:000000000000:rule/r"));
        assert_eq!(parsed["name"], json!("r"));
        assert_eq!(parsed["e"]["id"], json!("1"));
        assert!(parsed["e"].get("detail").is_none());
        assert_eq!(parsed["e"]["detailType"], json!("t"));
        assert_eq!(parsed["at"], json!("2024-01-01T00:00:00Z"));
        let whole = fill("<aws.events.event.json>", &BTreeMap::new(), &event(), &context());
        assert_eq!(serde_json::from_str::<Value>(&whole).unwrap(), event());
    }

    #[test]
    fn placeholders_and_unknown_names() {
        assert_eq!(
            placeholders(r#"{"a": <a>, "b": "<b.c>", "html": "< not one >"}"#),
            ["a", "b.c"]
        );
        assert_eq!(
            fill("<unknown> <instance>", &paths(), &event(), &context()),
            r#"<unknown> "i-1""#
        );
    }

    #[test]
    fn never_panics() {
        for t in ["<", ">", "<<>>", "\"<instance>", "é<instance>é", "\\<instance>"] {
            let _ = fill(t, &paths(), &event(), &context());
            let _ = placeholders(t);
        }
        for p in ["$[", "$['", "$.", "$[x]", "$[99999999999999999999999]"] {
            let _ = select(&event(), p);
            let _ = valid_path(p);
        }
    }
}
