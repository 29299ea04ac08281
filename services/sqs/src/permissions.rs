//! AddPermission and RemovePermission: statements in the queue's `Policy` attribute, one per
//! label, as AWS writes them.

use serde_json::{json, Value};
use stratus_core::arn::Arn;

use crate::error::SqsError;
use crate::queue;

/// The actions AWS lets a queue owner share (`*` shares them all).
const SHAREABLE: &[&str] = &[
    "*",
    "SendMessage",
    "ReceiveMessage",
    "DeleteMessage",
    "ChangeMessageVisibility",
    "GetQueueAttributes",
    "GetQueueUrl",
];

/// `policy` (the queue's, if any) with a statement labelled `label` that allows `accounts`
/// the `actions` on queue `queue_arn`.
pub(crate) fn add(
    policy: Option<&str>,
    queue_arn: &str,
    label: &str,
    accounts: &[String],
    actions: &[String],
) -> Result<String, SqsError> {
    let label_ok = (1..=80).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !label_ok {
        return Err(SqsError::invalid_value(
            "Label",
            label,
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        ));
    }
    if accounts.is_empty() {
        return Err(SqsError::missing("AWSAccountIds"));
    }
    if actions.is_empty() {
        return Err(SqsError::missing("Actions"));
    }
    if let Some(bad) = actions.iter().find(|a| !SHAREABLE.contains(&a.as_str())) {
        return Err(SqsError::invalid_value(
            "ActionName",
            format!("SQS:{bad}"),
            "Only the queue owner is allowed to invoke this action.",
        ));
    }
    let mut document = parse(policy, queue_arn);
    let statements = statements(&mut document);
    if statements.iter().any(|s| s["Sid"] == label) {
        return Err(SqsError::invalid_value("Label", label, "Already exists."));
    }
    let region = queue::parse_arn(queue_arn).map(|q| q.region).unwrap_or_default();
    let principals: Vec<String> = accounts
        .iter()
        .map(|a| Arn::global("iam", &region, a, "root").to_string())
        .collect();
    let actions: Vec<String> = actions.iter().map(|a| format!("SQS:{a}")).collect();
    statements.push(json!({
        "Sid": label,
        "Effect": "Allow",
        "Principal": { "AWS": one_or_many(principals) },
        "Action": one_or_many(actions),
        "Resource": queue_arn,
    }));
    Ok(document.to_string())
}

/// `policy` without the statement labelled `label`; `None` when no statement is left.
pub(crate) fn remove(policy: Option<&str>, queue_arn: &str, label: &str) -> Result<Option<String>, SqsError> {
    let mut document = parse(policy, queue_arn);
    let statements = statements(&mut document);
    let before = statements.len();
    statements.retain(|s| s["Sid"] != label);
    if statements.len() == before {
        return Err(SqsError::invalid_value("Label", label, "can't find label."));
    }
    let empty = statements.is_empty();
    Ok((!empty).then(|| document.to_string()))
}

/// The queue's policy document, or an empty one in AWS's form.
fn parse(policy: Option<&str>, queue_arn: &str) -> Value {
    policy
        .and_then(|p| serde_json::from_str::<Value>(p).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| {
            json!({
                "Version": "2008-10-17",
                "Id": format!("{queue_arn}/SQSDefaultPolicy"),
                "Statement": [],
            })
        })
}

fn statements(document: &mut Value) -> &mut Vec<Value> {
    let slot = &mut document["Statement"];
    if !slot.is_array() {
        // A policy written with a single statement object.
        let single = slot.take();
        *slot = Value::Array(if single.is_null() { Vec::new() } else { vec![single] });
    }
    match slot {
        Value::Array(items) => items,
        _ => unreachable!("the statement slot was just made an array"),
    }
}

/// AWS writes a single principal or action as a string, several as a list.
fn one_or_many(mut items: Vec<String>) -> Value {
    if items.len() == 1 {
        Value::String(items.remove(0))
    } else {
        json!(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:sqs:us-east-1:123456789012:q";

    #[test]
    fn add_then_remove() {
        let policy = add(None, ARN, "l1", &["111122223333".into()], &["SendMessage".into()]).unwrap();
        let doc: Value = serde_json::from_str(&policy).unwrap();
        assert_eq!(
            doc["Statement"][0]["Principal"]["AWS"],
            "arn:aws:iam::111122223333:root"
        );
        assert_eq!(doc["Statement"][0]["Action"], "SQS:SendMessage");
        assert_eq!(doc["Id"], format!("{ARN}/SQSDefaultPolicy"));
        assert!(add(Some(&policy), ARN, "l1", &["1".into()], &["*".into()]).is_err());
        assert!(add(Some(&policy), ARN, "l2", &["1".into()], &["CreateQueue".into()]).is_err());
        let two = add(Some(&policy), ARN, "l2", &["1".into(), "2".into()], &["*".into()]).unwrap();
        let one = remove(Some(&two), ARN, "l1").unwrap().unwrap();
        assert!(one.contains("l2") && !one.contains("\"l1\""));
        assert_eq!(remove(Some(&one), ARN, "l2").unwrap(), None);
        assert!(remove(None, ARN, "l2").is_err());
    }
}
