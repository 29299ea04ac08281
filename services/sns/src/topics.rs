//! Topics: their record, name rules, attributes (the set AWS answers, with its defaults) and
//! policy statements.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{invalid_parameter, SnsError};
use crate::names::TopicRef;

/// A topic as stored.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct TopicRecord {
    pub(crate) name: String,
    /// The attributes set on the topic (at creation or since), as given.
    pub(crate) attributes: BTreeMap<String, String>,
    pub(crate) tags: BTreeMap<String, String>,
    pub(crate) data_protection_policy: Option<String>,
    /// The next FIFO sequence number to hand out.
    pub(crate) next_sequence: u64,
    /// How many subscriptions were removed from the topic (`SubscriptionsDeleted`).
    pub(crate) subscriptions_deleted: u64,
}

/// The attributes CreateTopic and SetTopicAttributes take, besides the delivery status
/// logging ones ([`is_feedback_attribute`]).
const SETTABLE: &[&str] = &[
    "DeliveryPolicy",
    "DisplayName",
    "Policy",
    "SignatureVersion",
    "TracingConfig",
    "KmsMasterKeyId",
    "ContentBasedDeduplication",
    "ArchivePolicy",
    "FifoThroughputScope",
];

/// `<Protocol>SuccessFeedbackRoleArn`, `…FailureFeedbackRoleArn`, `…SuccessFeedbackSampleRate`.
fn is_feedback_attribute(name: &str) -> bool {
    ["Application", "HTTP", "Lambda", "SQS", "Firehose"].iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            matches!(
                rest,
                "SuccessFeedbackRoleArn" | "FailureFeedbackRoleArn" | "SuccessFeedbackSampleRate"
            )
        })
    })
}

/// SNS's rule for topic names: 1 to 256 letters, digits, hyphens and underscores, ending in
/// `.fifo` exactly when the topic is FIFO.
pub(crate) fn check_name(name: &str, fifo: bool) -> Result<(), SnsError> {
    let base = if fifo { name.strip_suffix(".fifo") } else { Some(name) };
    let valid = base.is_some_and(|b| {
        !b.is_empty() && name.len() <= 256 && b.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    });
    if valid {
        Ok(())
    } else {
        Err(invalid_parameter("Topic Name"))
    }
}

/// Whether `attributes` ask for a FIFO topic (`FifoTopic` is `true`, in any case).
pub(crate) fn wants_fifo(attributes: &BTreeMap<String, String>) -> bool {
    attributes
        .get("FifoTopic")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// Checks one attribute as CreateTopic (`creating`) or SetTopicAttributes takes it.
pub(crate) fn check_attribute(name: &str, value: &str, fifo: bool, creating: bool) -> Result<(), SnsError> {
    match name {
        "FifoTopic" if creating => check_boolean(name, value),
        "ContentBasedDeduplication" => {
            check_boolean(name, value)?;
            if !fifo && value.eq_ignore_ascii_case("true") {
                return Err(invalid_parameter(
                    "ContentBasedDeduplication Reason: Content based deduplication can only be set for FIFO topics",
                ));
            }
            Ok(())
        }
        "Policy" => check_json(name, value),
        "DeliveryPolicy" | "ArchivePolicy" if !value.is_empty() => check_json(name, value),
        "SignatureVersion" if !matches!(value, "1" | "2") => {
            Err(invalid_parameter("SignatureVersion Reason: must be 1 or 2"))
        }
        "TracingConfig" if !matches!(value, "PassThrough" | "Active") => {
            Err(invalid_parameter("TracingConfig Reason: must be PassThrough or Active"))
        }
        "FifoThroughputScope" if !fifo => Err(invalid_parameter(
            "FifoThroughputScope Reason: The FifoThroughputScope attribute can only be set for FIFO topics",
        )),
        "FifoThroughputScope" if !matches!(value, "Topic" | "MessageGroup") => Err(invalid_parameter(
            "FifoThroughputScope Reason: must be Topic or MessageGroup",
        )),
        "DataProtectionPolicy" if creating => check_json(name, value),
        _ if SETTABLE.contains(&name) || is_feedback_attribute(name) => Ok(()),
        _ => Err(invalid_parameter("AttributeName")),
    }
}

fn check_boolean(name: &str, value: &str) -> Result<(), SnsError> {
    if value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false") {
        Ok(())
    } else {
        Err(invalid_parameter(format!(
            "{name} Reason: Invalid value [{value}]. Must be true or false."
        )))
    }
}

fn check_json(name: &str, value: &str) -> Result<(), SnsError> {
    match serde_json::from_str::<Value>(value) {
        Ok(Value::Object(_)) => Ok(()),
        _ => Err(invalid_parameter(format!("{name} Reason: failed to parse JSON"))),
    }
}

/// The policy AWS gives a new topic: the owner's account may do everything to it.
pub(crate) fn default_policy(topic: &TopicRef) -> String {
    json!({
        "Version": "2008-10-17",
        "Id": "__default_policy_ID",
        "Statement": [{
            "Sid": "__default_statement_ID",
            "Effect": "Allow",
            "Principal": {"AWS": "*"},
            "Action": [
                "SNS:GetTopicAttributes",
                "SNS:SetTopicAttributes",
                "SNS:AddPermission",
                "SNS:RemovePermission",
                "SNS:DeleteTopic",
                "SNS:Subscribe",
                "SNS:ListSubscriptionsByTopic",
                "SNS:Publish"
            ],
            "Resource": topic.arn(),
            "Condition": {"StringEquals": {"AWS:SourceOwner": topic.account}}
        }]
    })
    .to_string()
}

/// The delivery policy in effect when the topic sets none: HTTP's default retries.
const DEFAULT_DELIVERY_POLICY: &str = r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}"#;

/// Subscription counts of a topic, for its attributes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) confirmed: usize,
    pub(crate) pending: usize,
}

impl TopicRecord {
    pub(crate) fn new(name: &str, attributes: BTreeMap<String, String>, tags: BTreeMap<String, String>) -> TopicRecord {
        TopicRecord {
            name: name.to_owned(),
            attributes,
            tags,
            data_protection_policy: None,
            next_sequence: 1,
            subscriptions_deleted: 0,
        }
    }

    pub(crate) fn is_fifo(&self) -> bool {
        self.name.ends_with(".fifo")
    }

    /// The `SignatureVersion` its messages are signed with: "1" (SHA1withRSA, the default)
    /// or "2" (SHA256withRSA).
    pub(crate) fn signature_version(&self) -> &str {
        self.attributes.get("SignatureVersion").map_or("1", String::as_str)
    }

    pub(crate) fn content_based_deduplication(&self) -> bool {
        self.attributes
            .get("ContentBasedDeduplication")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The topic's policy: the one set, or AWS's default.
    pub(crate) fn policy(&self, topic: &TopicRef) -> String {
        self.attributes
            .get("Policy")
            .cloned()
            .unwrap_or_else(|| default_policy(topic))
    }

    /// The attributes GetTopicAttributes answers.
    pub(crate) fn attributes(&self, topic: &TopicRef, counts: Counts) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for (name, value) in &self.attributes {
            if name != "FifoTopic" && name != "DataProtectionPolicy" {
                out.insert(name.clone(), value.clone());
            }
        }
        out.insert("Policy".into(), self.policy(topic));
        out.insert("Owner".into(), topic.account.clone());
        out.insert("TopicArn".into(), topic.arn());
        out.insert("SubscriptionsConfirmed".into(), counts.confirmed.to_string());
        out.insert("SubscriptionsPending".into(), counts.pending.to_string());
        out.insert("SubscriptionsDeleted".into(), self.subscriptions_deleted.to_string());
        out.entry("DisplayName".into()).or_default();
        let effective = self
            .attributes
            .get("DeliveryPolicy")
            .filter(|p| !p.is_empty())
            .map(|p| effective_delivery_policy(p))
            .unwrap_or_else(|| DEFAULT_DELIVERY_POLICY.to_owned());
        out.insert("EffectiveDeliveryPolicy".into(), effective);
        if self.is_fifo() {
            out.insert("FifoTopic".into(), "true".into());
            out.entry("ContentBasedDeduplication".into())
                .or_insert_with(|| "false".into());
        }
        out
    }
}

/// A set delivery policy merged over the default one.
fn effective_delivery_policy(set: &str) -> String {
    let Ok(Value::Object(set)) = serde_json::from_str::<Value>(set) else {
        return DEFAULT_DELIVERY_POLICY.to_owned();
    };
    let mut base: Value = serde_json::from_str(DEFAULT_DELIVERY_POLICY).unwrap_or(Value::Null);
    merge(&mut base, Value::Object(set));
    base.to_string()
}

fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o,
    }
}

/// The actions AddPermission may grant.
const ACTIONS: &[&str] = &[
    "GetTopicAttributes",
    "SetTopicAttributes",
    "AddPermission",
    "RemovePermission",
    "DeleteTopic",
    "Subscribe",
    "ListSubscriptionsByTopic",
    "Publish",
    "Receive",
];

/// The policy with a statement `label` added, as AddPermission writes it.
pub(crate) fn add_statement(
    policy: &str,
    topic: &TopicRef,
    label: &str,
    accounts: &[String],
    actions: &[String],
) -> Result<String, SnsError> {
    let mut doc: Value = serde_json::from_str(policy).map_err(|_| invalid_parameter("Policy"))?;
    if actions.iter().any(|a| !ACTIONS.contains(&a.as_str())) {
        return Err(invalid_parameter("Policy statement action out of service scope!"));
    }
    let statements = statements(&mut doc)?;
    if statements
        .iter()
        .any(|s| s.get("Sid").and_then(Value::as_str) == Some(label))
    {
        return Err(invalid_parameter("Statement already exists"));
    }
    let partition = stratus_core::arn::partition_of(&topic.region);
    let principals: Vec<Value> = accounts
        .iter()
        .map(|a| Value::String(format!("arn:{partition}:iam::{a}:root")))
        .collect();
    let actions: Vec<Value> = actions.iter().map(|a| Value::String(format!("SNS:{a}"))).collect();
    let one_or_list = |mut v: Vec<Value>| if v.len() == 1 { v.remove(0) } else { Value::Array(v) };
    statements.push(json!({
        "Sid": label,
        "Effect": "Allow",
        "Principal": {"AWS": one_or_list(principals)},
        "Action": one_or_list(actions),
        "Resource": topic.arn(),
    }));
    Ok(doc.to_string())
}

/// The policy without statement `label`; unchanged when it has none.
pub(crate) fn remove_statement(policy: &str, label: &str) -> Result<String, SnsError> {
    let mut doc: Value = serde_json::from_str(policy).map_err(|_| invalid_parameter("Policy"))?;
    statements(&mut doc)?.retain(|s| s.get("Sid").and_then(Value::as_str) != Some(label));
    Ok(doc.to_string())
}

fn statements(doc: &mut Value) -> Result<&mut Vec<Value>, SnsError> {
    let Value::Object(map) = doc else {
        return Err(invalid_parameter("Policy"));
    };
    let entry = map.entry("Statement").or_insert_with(|| Value::Array(Vec::new()));
    if entry.is_object() {
        *entry = Value::Array(vec![entry.take()]);
    }
    entry.as_array_mut().ok_or_else(|| invalid_parameter("Policy"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic() -> TopicRef {
        TopicRef {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "t".into(),
        }
    }

    #[test]
    fn names_follow_the_fifo_suffix() {
        assert!(check_name("orders", false).is_ok());
        assert!(check_name("orders.fifo", true).is_ok());
        assert!(check_name("orders.fifo", false).is_err());
        assert!(check_name("orders", true).is_err());
        assert!(check_name("", false).is_err());
        assert!(check_name(".fifo", true).is_err());
        assert!(check_name(&"a".repeat(256), false).is_ok());
        assert!(check_name(&"a".repeat(257), false).is_err());
        assert!(check_name("a b", false).is_err());
    }

    #[test]
    fn the_default_policy_is_aws_own() {
        let policy: Value = serde_json::from_str(&default_policy(&topic())).unwrap();
        assert_eq!(policy["Id"], "__default_policy_ID");
        assert_eq!(
            policy["Statement"][0]["Resource"],
            "arn:aws:sns:us-east-1:000000000000:t"
        );
        assert_eq!(
            policy["Statement"][0]["Condition"]["StringEquals"]["AWS:SourceOwner"],
            "000000000000"
        );
        assert_eq!(policy["Statement"][0]["Action"].as_array().unwrap().len(), 8);
    }

    #[test]
    fn attributes_carry_the_defaults() {
        let record = TopicRecord::new("t", BTreeMap::new(), BTreeMap::new());
        let attrs = record.attributes(&topic(), Counts::default());
        assert_eq!(attrs["DisplayName"], "");
        assert_eq!(attrs["SubscriptionsPending"], "0");
        assert!(!attrs.contains_key("FifoTopic"));
        assert_eq!(attrs["EffectiveDeliveryPolicy"], DEFAULT_DELIVERY_POLICY);
    }

    #[test]
    fn statements_are_added_once_and_removed() {
        let policy = default_policy(&topic());
        let added = add_statement(&policy, &topic(), "p", &["111111111111".into()], &["Publish".into()]).unwrap();
        assert!(add_statement(&added, &topic(), "p", &[], &["Publish".into()]).is_err());
        assert!(add_statement(&policy, &topic(), "q", &[], &["Fly".into()]).is_err());
        let doc: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(doc["Statement"][1]["Action"], "SNS:Publish");
        assert_eq!(remove_statement(&added, "p").unwrap(), policy);
    }

    #[test]
    fn unknown_and_fixed_attributes_are_refused() {
        assert!(check_attribute("Nope", "x", false, true).is_err());
        assert!(check_attribute("FifoTopic", "false", false, false).is_err());
        assert!(check_attribute("LambdaSuccessFeedbackRoleArn", "arn", false, false).is_ok());
        assert!(check_attribute("ContentBasedDeduplication", "true", false, true).is_err());
    }
}
