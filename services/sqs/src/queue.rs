//! Queues: names, URLs, and the attributes a queue is created with or given later.
//!
//! A queue is a [`QueueRecord`] in the `queues` table of its account and region's `sqs`
//! store, keyed by its name. Its settable attributes are kept as AWS reports them (strings),
//! with AWS's defaults filled in at creation, so `GetQueueAttributes` answers from the record
//! and the idempotence check of `CreateQueue` compares like with like.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::tags::{TagRules, TagViolation};

use crate::error::SqsError;

/// Attributes whose values are numbers within a range: name, minimum, maximum, default.
const NUMERIC: &[(&str, u64, u64, u64)] = &[
    ("DelaySeconds", 0, 900, 0),
    // 1 MiB, the limit and the default since August 2025 (256 KiB before).
    ("MaximumMessageSize", 1024, 1_048_576, 1_048_576),
    ("MessageRetentionPeriod", 60, 1_209_600, 345_600),
    ("ReceiveMessageWaitTimeSeconds", 0, 20, 0),
    ("VisibilityTimeout", 0, 43_200, 30),
    ("KmsDataKeyReusePeriodSeconds", 60, 86_400, 300),
];

/// Attributes taken as given (the access policy is an IAM document; KMS is not emulated).
const FREE_FORM: &[&str] = &["Policy", "KmsMasterKeyId"];

/// Attributes an empty value removes.
const REMOVABLE: &[&str] = &["Policy", "RedrivePolicy", "RedriveAllowPolicy", "KmsMasterKeyId"];

/// Attributes only FIFO queues have, with their allowed values (the first is the default).
const FIFO_ONLY: &[(&str, &[&str])] = &[
    ("ContentBasedDeduplication", &["false", "true"]),
    ("DeduplicationScope", &["queue", "messageGroup"]),
    ("FifoThroughputLimit", &["perQueue", "perMessageGroupId"]),
];

/// Attributes computed from the queue's state, which can be read but not set.
pub(crate) const COMPUTED: &[&str] = &[
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
];

/// A queue as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct QueueRecord {
    pub name: String,
    /// Settable attributes, defaults included, as AWS spells their values.
    pub attributes: BTreeMap<String, String>,
    /// Seconds since the epoch.
    pub created: u64,
    pub modified: u64,
    /// The sequence number the next message gets: orders messages and names their keys.
    pub next_sequence: u64,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// When the queue was last purged (milliseconds since the epoch).
    #[serde(default)]
    pub purged_ms: Option<u64>,
}

impl QueueRecord {
    /// A new queue called `name` with `given` attributes over AWS's defaults.
    pub(crate) fn new(name: &str, given: &BTreeMap<String, String>, now_secs: u64) -> Result<QueueRecord, SqsError> {
        let fifo = name.ends_with(".fifo");
        check_name(name, fifo)?;
        let mut attributes: BTreeMap<String, String> = NUMERIC
            .iter()
            .filter(|(n, ..)| *n != "KmsDataKeyReusePeriodSeconds")
            .map(|&(n, .., default)| (n.to_owned(), default.to_string()))
            .collect();
        attributes.insert("SqsManagedSseEnabled".into(), "true".into());
        if fifo {
            attributes.insert("FifoQueue".into(), "true".into());
            for (n, values) in FIFO_ONLY {
                attributes.insert((*n).into(), values[0].into());
            }
        }
        // AWS takes booleans in any case; a standard queue knows no `FifoQueue` at all.
        match (given.get("FifoQueue").map(|v| v.to_ascii_lowercase()).as_deref(), fifo) {
            (Some("true"), true) => {}
            (None, false) => {}
            (Some("false"), false) => return Err(SqsError::invalid_attribute_name("FifoQueue")),
            (Some("true" | "false") | None, _) => return Err(fifo_name_error()),
            (Some(_), _) => return Err(SqsError::invalid_attribute_value("FifoQueue")),
        }
        let mut queue = QueueRecord {
            name: name.to_owned(),
            attributes,
            created: now_secs,
            modified: now_secs,
            next_sequence: 1,
            tags: BTreeMap::new(),
            purged_ms: None,
        };
        let settable: BTreeMap<String, String> = given
            .iter()
            .filter(|(k, _)| k.as_str() != "FifoQueue")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        queue.set(&settable, now_secs)?;
        Ok(queue)
    }

    pub(crate) fn redrive_policy(&self) -> Option<RedrivePolicy> {
        RedrivePolicy::parse(self.attributes.get("RedrivePolicy")?).ok()
    }

    /// Whether this queue, as a dead-letter queue, takes messages from `source_arn`.
    pub(crate) fn allows_redrive_from(&self, source_arn: &str) -> bool {
        self.attributes
            .get("RedriveAllowPolicy")
            .and_then(|p| RedriveAllowPolicy::parse(p).ok())
            .is_none_or(|p| p.allows(source_arn))
    }

    /// The settable attributes as GetQueueAttributes reports them: the KMS data key reuse
    /// period only while a KMS key encrypts the queue (300 s unless set).
    pub(crate) fn reported_attributes(&self) -> BTreeMap<String, String> {
        let mut attributes = self.attributes.clone();
        if attributes.contains_key("KmsMasterKeyId") {
            attributes
                .entry("KmsDataKeyReusePeriodSeconds".into())
                .or_insert_with(|| "300".into());
        } else {
            attributes.remove("KmsDataKeyReusePeriodSeconds");
        }
        attributes
    }

    pub(crate) fn is_fifo(&self) -> bool {
        self.attributes.get("FifoQueue").is_some_and(|v| v == "true")
    }

    /// A numeric attribute's value (every numeric attribute has a default).
    pub(crate) fn number(&self, name: &str) -> u64 {
        self.attributes
            .get(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_default()
    }

    /// Checks `given` and applies it: SetQueueAttributes.
    pub(crate) fn set(&mut self, given: &BTreeMap<String, String>, now_secs: u64) -> Result<(), SqsError> {
        for (name, value) in given {
            if value.is_empty() && REMOVABLE.contains(&name.as_str()) {
                self.attributes.remove(name);
                continue;
            }
            let normalized = self.check_attribute(name, value)?;
            if name == "KmsMasterKeyId" {
                // A KMS key replaces SQS-managed encryption.
                self.attributes.insert("SqsManagedSseEnabled".into(), "false".into());
            }
            self.attributes.insert(name.clone(), normalized);
        }
        if !given.is_empty() {
            self.modified = now_secs;
        }
        Ok(())
    }

    /// The first attribute in `given` whose value differs from this queue's: CreateQueue on an
    /// existing name is idempotent only when there is none.
    pub(crate) fn first_difference<'a>(&self, given: &'a BTreeMap<String, String>) -> Option<&'a str> {
        given
            .iter()
            .find(|(name, value)| {
                let wanted = self.check_attribute(name, value).ok();
                wanted.as_deref() != self.attributes.get(name.as_str()).map(String::as_str)
            })
            .map(|(name, _)| name.as_str())
    }

    /// `value` checked against the rules for attribute `name`, in the form it is stored.
    fn check_attribute(&self, name: &str, value: &str) -> Result<String, SqsError> {
        if let Some(&(_, min, max, _)) = NUMERIC.iter().find(|(n, ..)| *n == name) {
            return match value.trim().parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n.to_string()),
                _ => Err(SqsError::invalid_attribute_value(name)),
            };
        }
        if FREE_FORM.contains(&name) {
            return Ok(value.to_owned());
        }
        if name == "RedrivePolicy" {
            return Ok(RedrivePolicy::parse(value)?.to_json());
        }
        if name == "RedriveAllowPolicy" {
            return RedriveAllowPolicy::parse(value).map(|p| p.to_json());
        }
        if name == "SqsManagedSseEnabled" {
            return bool_value(name, value);
        }
        if name == "FifoQueue" && self.is_fifo() {
            return match bool_value(name, value)?.as_str() {
                "true" => Ok("true".into()),
                _ => Err(SqsError::InvalidAttributeValue(
                    "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.".into(),
                )),
            };
        }
        if let Some((_, allowed)) = FIFO_ONLY.iter().find(|(n, _)| *n == name) {
            if !self.is_fifo() {
                return Err(match name {
                    "ContentBasedDeduplication" => SqsError::invalid_attribute_name(name),
                    _ => SqsError::InvalidAttributeName(format!(
                        "You can specify the {name} only when FifoQueue is set to true."
                    )),
                });
            }
            if name == "ContentBasedDeduplication" {
                return bool_value(name, value);
            }
            return match allowed.iter().find(|a| **a == value) {
                Some(v) => Ok((*v).to_owned()),
                None => Err(SqsError::invalid_attribute_value(name)),
            };
        }
        Err(SqsError::invalid_attribute_name(name))
    }
}

/// A queue's `RedrivePolicy`: where messages go after too many receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RedrivePolicy {
    pub dead_letter_target_arn: String,
    pub max_receive_count: u32,
}

impl RedrivePolicy {
    /// Parses a policy as AWS accepts it: a JSON object whose `maxReceiveCount` may be a
    /// number or a numeric string.
    pub(crate) fn parse(text: &str) -> Result<RedrivePolicy, SqsError> {
        let invalid = |reason: &str| SqsError::invalid_value("RedrivePolicy", text, reason);
        let map = json_object(text).ok_or_else(|| invalid("Redrive policy is not a valid JSON map."))?;
        let target = map
            .get("deadLetterTargetArn")
            .ok_or_else(|| invalid("Redrive policy does not contain mandatory attribute: deadLetterTargetArn."))?
            .as_str()
            .ok_or_else(|| invalid("Invalid value for deadLetterTargetArn."))?;
        let count = map
            .get("maxReceiveCount")
            .ok_or_else(|| invalid("Redrive policy does not contain mandatory attribute: maxReceiveCount."))?;
        let count_text = match count {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let max_receive_count = count_text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| {
                invalid(&format!(
                    "Invalid value for maxReceiveCount: {count_text}, valid values are from 1 to 1000 both inclusive."
                ))
            })?;
        if parse_arn(target).is_none() {
            return Err(invalid("Only SQS queues are valid resources for deadLetterTargetArn."));
        }
        Ok(RedrivePolicy {
            dead_letter_target_arn: target.to_owned(),
            max_receive_count,
        })
    }

    /// The policy as AWS returns it.
    pub(crate) fn to_json(&self) -> String {
        serde_json::json!({
            "deadLetterTargetArn": self.dead_letter_target_arn,
            "maxReceiveCount": self.max_receive_count,
        })
        .to_string()
    }
}

/// A dead-letter queue's `RedriveAllowPolicy`: which queues may use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RedriveAllowPolicy {
    pub permission: String,
    pub source_queue_arns: Vec<String>,
}

impl RedriveAllowPolicy {
    pub(crate) fn parse(text: &str) -> Result<RedriveAllowPolicy, SqsError> {
        let invalid = |reason: &str| SqsError::invalid_value("RedriveAllowPolicy", text, reason);
        let map = json_object(text).ok_or_else(|| invalid("Redrive allow policy is not a valid JSON map."))?;
        let permission = map
            .get("redrivePermission")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| invalid("Redrive allow policy does not contain mandatory attribute: redrivePermission."))?;
        let arns: Option<Vec<String>> = match map.get("sourceQueueArns") {
            None => None,
            Some(serde_json::Value::Array(items)) => Some(
                items
                    .iter()
                    .map(|a| a.as_str().map(str::to_owned))
                    .collect::<Option<_>>()
                    .ok_or_else(|| invalid("sourceQueueArns must be a list of queue ARNs."))?,
            ),
            Some(_) => return Err(invalid("sourceQueueArns must be a list of queue ARNs.")),
        };
        match (permission, arns) {
            ("allowAll" | "denyAll", None) => Ok(RedriveAllowPolicy {
                permission: permission.to_owned(),
                source_queue_arns: Vec::new(),
            }),
            ("allowAll" | "denyAll", Some(_)) => Err(invalid(
                "sourceQueueArns may be given only when redrivePermission is byQueue.",
            )),
            ("byQueue", Some(arns)) if (1..=10).contains(&arns.len()) => Ok(RedriveAllowPolicy {
                permission: permission.to_owned(),
                source_queue_arns: arns,
            }),
            ("byQueue", _) => Err(invalid(
                "When redrivePermission is byQueue, sourceQueueArns must list 1 to 10 queue ARNs.",
            )),
            _ => Err(invalid(&format!("Invalid value for redrivePermission: {permission}."))),
        }
    }

    pub(crate) fn allows(&self, source_arn: &str) -> bool {
        match self.permission.as_str() {
            "allowAll" => true,
            "byQueue" => self.source_queue_arns.iter().any(|a| a == source_arn),
            _ => false,
        }
    }

    pub(crate) fn to_json(&self) -> String {
        let mut policy = serde_json::json!({ "redrivePermission": self.permission });
        if self.permission == "byQueue" {
            policy["sourceQueueArns"] = serde_json::json!(self.source_queue_arns);
        }
        policy.to_string()
    }
}

fn json_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(text).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The parts of an SQS queue ARN, whose resource is the queue's name.
pub(crate) fn parse_arn(arn: &str) -> Option<Arn> {
    Arn::parse(arn)
        .ok()
        .filter(|a| a.service == "sqs" && !a.resource.contains(':'))
}

/// AWS's rules for a queue's tags: at most 50, keys of 1 to 128 characters, values of at most
/// 256, no `aws:` prefix.
pub(crate) fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), SqsError> {
    let rules = TagRules {
        max: 50,
        reserved_prefix: Some("aws:"),
    };
    stratus_core::tags::check(tags, rules).map_err(|violation| {
        SqsError::invalid_parameter(match violation {
            TagViolation::TooMany { count, max } => {
                format!("Too many tags added for queue. Queue can have at most {max} tags; {count} were given.")
            }
            TagViolation::KeyLength(key) => format!("Tag key must be between 1 and 128 characters long: {key}"),
            TagViolation::ValueLength(key) => format!("Tag value must be at most 256 characters long for key {key}"),
            TagViolation::ReservedPrefix(key) => format!("Tag keys may not start with the reserved prefix aws: {key}"),
        })
    })
}

/// A boolean attribute, which AWS takes in any case (`True`) and reports in lower case.
fn bool_value(name: &str, value: &str) -> Result<String, SqsError> {
    match value.to_ascii_lowercase().as_str() {
        v @ ("true" | "false") => Ok(v.to_owned()),
        _ => Err(SqsError::invalid_attribute_value(name)),
    }
}

fn fifo_name_error() -> SqsError {
    SqsError::invalid_parameter(
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.",
    )
}

/// AWS's rule for queue names: 1 to 80 letters, digits, `-` and `_`, plus `.fifo` for FIFO
/// queues (counted in the 80).
pub(crate) fn check_name(name: &str, fifo: bool) -> Result<(), SqsError> {
    let stem = if fifo {
        name.strip_suffix(".fifo").unwrap_or(name)
    } else {
        name
    };
    let valid = !stem.is_empty()
        && name.len() <= 80
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if valid {
        Ok(())
    } else if fifo {
        Err(fifo_name_error())
    } else {
        Err(SqsError::invalid_parameter(
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        ))
    }
}

/// A queue's URL, which names the region as AWS's does
/// (`https://sqs.REGION.amazonaws.com/ACCOUNT/NAME`), so queues of one name in two regions
/// have different URLs, and which reaches the host the client addressed, whatever it is:
///
/// - a host that names the region's SQS endpoint (`sqs.REGION.…`) is kept as it is:
///   `http://sqs.REGION.HOST/ACCOUNT/NAME`;
/// - any other host (`localhost:4566`, a container's name) cannot be assumed to have
///   subdomains that resolve, so the region goes in the path:
///   `http://HOST/queue/REGION/ACCOUNT/NAME`;
/// - without a host, `http://sqs.REGION.localhost:4566/ACCOUNT/NAME`.
///
/// Requests may use any URL whose last two path segments are the account and the name
/// ([`parse_url`]).
pub(crate) fn url(host: Option<&str>, region: &str, account: &str, name: &str) -> String {
    match host {
        Some(host) if host.starts_with(&format!("sqs.{region}.")) => format!("http://{host}/{account}/{name}"),
        Some(host) => format!("http://{host}/queue/{region}/{account}/{name}"),
        None => format!("http://sqs.{region}.localhost:4566/{account}/{name}"),
    }
}

/// The account and queue name a queue URL names: its last two path segments, whatever the
/// scheme, host and port (SDKs build URLs from `AWS_ENDPOINT_URL`).
pub(crate) fn parse_url(queue_url: &str) -> Result<(&str, &str), SqsError> {
    let path = queue_url
        .split_once("://")
        .map_or(queue_url, |(_, rest)| rest.split_once('/').map_or("", |(_, path)| path));
    let mut segments = path.trim_end_matches('/').rsplit('/');
    match (segments.next(), segments.next()) {
        (Some(name), Some(account)) if stratus_core::arn::is_account_id(account) && !name.is_empty() => {
            Ok((account, name))
        }
        _ => Err(SqsError::InvalidAddress(queue_url.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
    }

    #[test]
    fn defaults_are_aws_defaults() {
        let q = QueueRecord::new("jobs", &BTreeMap::new(), 7).unwrap();
        assert_eq!(q.number("VisibilityTimeout"), 30);
        assert_eq!(q.number("MessageRetentionPeriod"), 345_600);
        assert_eq!(q.number("MaximumMessageSize"), 1_048_576);
        assert_eq!(q.number("DelaySeconds"), 0);
        assert_eq!(q.number("ReceiveMessageWaitTimeSeconds"), 0);
        assert!(!q.is_fifo() && !q.attributes.contains_key("FifoQueue"));
        let f = QueueRecord::new("jobs.fifo", &attrs(&[("FifoQueue", "true")]), 7).unwrap();
        assert!(f.is_fifo());
        assert_eq!(f.attributes["ContentBasedDeduplication"], "false");
    }

    #[test]
    fn fifo_attributes_as_aws_takes_them() {
        let f = QueueRecord::new(
            "jobs.fifo",
            &attrs(&[("FifoQueue", "True"), ("ContentBasedDeduplication", "TRUE")]),
            7,
        )
        .unwrap();
        assert_eq!(f.attributes["ContentBasedDeduplication"], "true");
        assert!(matches!(
            QueueRecord::new("jobs", &attrs(&[("FifoQueue", "false")]), 0),
            Err(SqsError::InvalidAttributeName(_))
        ));
        let mut f = f;
        assert!(f.set(&attrs(&[("FifoQueue", "TRUE")]), 8).is_ok());
        assert!(matches!(
            f.set(&attrs(&[("FifoQueue", "false")]), 8),
            Err(SqsError::InvalidAttributeValue(_))
        ));
    }

    #[test]
    fn attribute_rules() {
        assert!(QueueRecord::new("jobs", &attrs(&[("VisibilityTimeout", "43201")]), 0).is_err());
        assert!(QueueRecord::new("jobs", &attrs(&[("Bogus", "1")]), 0).is_err());
        assert!(QueueRecord::new("jobs", &attrs(&[("ContentBasedDeduplication", "true")]), 0).is_err());
        assert!(QueueRecord::new("jobs.fifo", &BTreeMap::new(), 0).is_err());
        assert!(QueueRecord::new("jobs", &attrs(&[("FifoQueue", "true")]), 0).is_err());
        assert!(QueueRecord::new("bad name", &BTreeMap::new(), 0).is_err());
        assert!(QueueRecord::new(&"x".repeat(81), &BTreeMap::new(), 0).is_err());
        let q = QueueRecord::new("jobs", &attrs(&[("DelaySeconds", "5")]), 0).unwrap();
        assert_eq!(q.first_difference(&attrs(&[("DelaySeconds", "5")])), None);
        assert_eq!(q.first_difference(&attrs(&[("VisibilityTimeout", "30")])), None);
        assert_eq!(
            q.first_difference(&attrs(&[("DelaySeconds", "6")])),
            Some("DelaySeconds")
        );
    }

    #[test]
    fn urls() {
        assert_eq!(
            parse_url("http://localhost:4566/000000000000/jobs").unwrap(),
            ("000000000000", "jobs")
        );
        assert_eq!(
            parse_url(&url(None, "eu-west-1", "123456789012", "a.fifo")).unwrap(),
            ("123456789012", "a.fifo")
        );
        assert_eq!(
            parse_url("https://sqs.us-east-1.amazonaws.com/123456789012/q/").unwrap(),
            ("123456789012", "q")
        );
        assert!(parse_url("http://localhost:4566/jobs").is_err());
        assert!(parse_url("jobs").is_err());
    }

    #[test]
    fn minted_urls_name_the_region() {
        assert_eq!(
            url(Some("localhost:4566"), "eu-west-1", "123456789012", "q"),
            "http://localhost:4566/queue/eu-west-1/123456789012/q"
        );
        assert_eq!(
            url(
                Some("sqs.us-east-1.localhost.localstack.cloud:4566"),
                "us-east-1",
                "123456789012",
                "q"
            ),
            "http://sqs.us-east-1.localhost.localstack.cloud:4566/123456789012/q"
        );
        assert_eq!(
            url(Some("sqs.us-east-1.example"), "eu-west-1", "123456789012", "q"),
            "http://sqs.us-east-1.example/queue/eu-west-1/123456789012/q"
        );
        let minted = url(Some("stratus:4566"), "us-east-1", "123456789012", "q.fifo");
        assert_eq!(parse_url(&minted).unwrap(), ("123456789012", "q.fifo"));
    }
}
