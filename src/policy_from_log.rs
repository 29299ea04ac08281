//! `stratus iam policy-from-log FILE`: the least-privilege identity policy a workload needed,
//! from the decisions `--iam-log` recorded while it ran — every action it was allowed or
//! refused, on exactly the resources it asked for, one statement per set of resources.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use stratus_core::json::{self, write_string, KeyNames};
use stratus_core::prelude_shapes::DOCUMENT;
use stratus_core::value::{Document, Value};

/// Prints the policy the decisions of `principal` (of everyone when `None`) in `log` call for.
pub(crate) fn run(log: &Path, principal: Option<&str>) -> Result<()> {
    let text = fs::read_to_string(log).with_context(|| format!("reading {}", log.display()))?;
    let mut needed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let decision =
            Decision::parse(line).with_context(|| format!("{}:{}: not a decision line", log.display(), number + 1))?;
        if principal.is_some_and(|wanted| wanted != decision.principal) {
            continue;
        }
        needed.entry(decision.action).or_default().extend(decision.resources);
    }
    if needed.is_empty() {
        bail!(
            "{} records no decision for {}",
            log.display(),
            principal.unwrap_or("anyone")
        );
    }
    println!("{}", policy(&needed));
    Ok(())
}

/// What one line of the log says.
struct Decision {
    principal: String,
    action: String,
    resources: Vec<String>,
}

impl Decision {
    fn parse(line: &str) -> Option<Decision> {
        let Ok(Value::Document(document)) = json::decode(&DOCUMENT, line.as_bytes(), KeyNames::Member) else {
            return None;
        };
        let Document::Map(fields) = *document else {
            return None;
        };
        let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value);
        let text = |name: &str| match field(name)? {
            Document::String(text) => Some(text.clone()),
            _ => None,
        };
        let resources = match field("resources")? {
            Document::List(items) => items
                .iter()
                .map(|item| match item {
                    Document::String(text) => Some(text.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?,
            _ => return None,
        };
        Some(Decision {
            principal: text("principal")?,
            action: text("action")?,
            resources,
        })
    }
}

/// An identity policy allowing each action on its resources: actions that need the same
/// resources share a statement.
fn policy(needed: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut statements: BTreeMap<&BTreeSet<String>, Vec<&str>> = BTreeMap::new();
    for (action, resources) in needed {
        statements.entry(resources).or_default().push(action);
    }
    let list = |items: &mut dyn Iterator<Item = &str>| {
        let mut out = String::from("[");
        for (i, item) in items.enumerate() {
            out.push_str(if i == 0 { "\n        " } else { ",\n        " });
            write_string(&mut out, item);
        }
        out.push_str("\n      ]");
        out
    };
    let mut out = String::from("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [");
    for (i, (resources, actions)) in statements.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str("    {\n      \"Effect\": \"Allow\",\n      \"Action\": ");
        out.push_str(&list(&mut actions.iter().copied()));
        out.push_str(",\n      \"Resource\": ");
        out.push_str(&list(&mut resources.iter().map(String::as_str)));
        out.push_str("\n    }");
    }
    out.push_str("\n  ]\n}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_on_the_same_resources_share_a_statement() {
        let line = |action: &str, resource: &str| {
            format!(
                r#"{{"time":"t","principal":"p","action":"{action}","resources":["{resource}"],"decision":"Allow"}}"#
            )
        };
        let mut needed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for text in [
            line("sqs:SendMessage", "arn:q"),
            line("sqs:ReceiveMessage", "arn:q"),
            line("s3:ListAllMyBuckets", "*"),
        ] {
            let d = Decision::parse(&text).unwrap();
            needed.entry(d.action).or_default().extend(d.resources);
        }
        let written = policy(&needed);
        assert!(
            json::decode(&DOCUMENT, written.as_bytes(), KeyNames::Member).is_ok(),
            "{written}"
        );
        assert!(
            written.contains("\"sqs:ReceiveMessage\",\n        \"sqs:SendMessage\""),
            "{written}"
        );
        assert!(
            written.contains("\"s3:ListAllMyBuckets\"\n      ],\n      \"Resource\": [\n        \"*\""),
            "{written}"
        );
    }

    #[test]
    fn lines_that_are_no_decisions_are_refused() {
        for bad in [
            "",
            "{}",
            "[1]",
            r#"{"principal":"p","action":"a","resources":"r"}"#,
            r#"{"principal":"p","action":1,"resources":[]}"#,
        ] {
            assert!(Decision::parse(bad).is_none(), "{bad}");
        }
    }
}
