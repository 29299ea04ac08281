//! Subscriptions: their record, the protocols and endpoints SNS takes, and their attributes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{invalid_parameter, invalid_parameter_raw, SnsError};
use crate::names::SubscriptionRef;

/// A subscription as stored, keyed by its topic's name and its id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct SubscriptionRecord {
    pub(crate) id: String,
    pub(crate) protocol: String,
    pub(crate) endpoint: String,
    pub(crate) owner: String,
    /// Who subscribed (`SubscriptionPrincipal`).
    pub(crate) principal: String,
    /// The attributes set, as given (RawMessageDelivery, FilterPolicy, RedrivePolicy, …).
    pub(crate) attributes: BTreeMap<String, String>,
    /// Waiting for ConfirmSubscription with `token`.
    pub(crate) pending: bool,
    pub(crate) token: Option<String>,
}

/// The protocols SNS delivers over.
const PROTOCOLS: &[&str] = &[
    "http",
    "https",
    "email",
    "email-json",
    "sms",
    "sqs",
    "application",
    "lambda",
    "firehose",
];

/// The attributes a subscription takes.
const ATTRIBUTES: &[&str] = &[
    "DeliveryPolicy",
    "FilterPolicy",
    "FilterPolicyScope",
    "RawMessageDelivery",
    "RedrivePolicy",
    "SubscriptionRoleArn",
    "ReplayPolicy",
];

/// Checks `protocol` and `endpoint` as Subscribe does.
pub(crate) fn check_endpoint(protocol: &str, endpoint: &str, region: &str) -> Result<(), SnsError> {
    if !PROTOCOLS.contains(&protocol) {
        return Err(invalid_parameter(format!(
            "Amazon SNS does not support this protocol string: {protocol}"
        )));
    }
    let arn_of = |service: &str| {
        let parts: Vec<&str> = endpoint.split(':').collect();
        // Queues and functions of other regions may subscribe; mobile endpoints are regional.
        parts.len() >= 6 && parts[0] == "arn" && parts[2] == service && (service != "sns" || parts[3] == region)
    };
    match protocol {
        "sqs" if !arn_of("sqs") => Err(invalid_parameter("SQS endpoint ARN")),
        "lambda" if !arn_of("lambda") => Err(invalid_parameter("Lambda endpoint ARN")),
        "firehose" if !arn_of("firehose") => Err(invalid_parameter("Firehose endpoint ARN")),
        "application" if !arn_of("sns") => Err(invalid_parameter("Application endpoint ARN")),
        "http" if !endpoint.to_ascii_lowercase().starts_with("http://") => {
            Err(invalid_parameter("Endpoint must match the specified protocol"))
        }
        "https" if !endpoint.to_ascii_lowercase().starts_with("https://") => {
            Err(invalid_parameter("Endpoint must match the specified protocol"))
        }
        "email" | "email-json" if !valid_email(endpoint) => Err(invalid_parameter("Email address")),
        "sms" if !valid_phone_number(endpoint) => {
            Err(invalid_parameter_raw(format!("Invalid SMS endpoint: {endpoint}")))
        }
        _ => Ok(()),
    }
}

fn valid_email(address: &str) -> bool {
    address
        .split_once('@')
        .is_some_and(|(user, domain)| !user.is_empty() && domain.contains('.') && !address.contains(' '))
}

/// A phone number SNS subscribes: an optional `+`, then digits, with single separators
/// (`-`, space, parentheses) between them, 15 digits at most.
pub(crate) fn valid_phone_number(number: &str) -> bool {
    let digits = number.strip_prefix('+').unwrap_or(number);
    let count = digits.bytes().filter(u8::is_ascii_digit).count();
    let mut previous_separator = false;
    for b in digits.bytes() {
        let separator = matches!(b, b'-' | b' ');
        if !(b.is_ascii_digit() || separator || matches!(b, b'(' | b')')) || (separator && previous_separator) {
            return false;
        }
        previous_separator = separator;
    }
    (1..=15).contains(&count)
        && digits.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'(')
        && digits.bytes().last().is_some_and(|b| b.is_ascii_digit())
}

/// A phone number Publish sends to: E.164, `+` and up to 15 digits.
pub(crate) fn valid_e164(number: &str) -> bool {
    let digits = number.strip_prefix('+').unwrap_or(number);
    (2..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0')
}

/// Whether a subscription of this protocol is confirmed at once: AWS confirms endpoints it
/// owns (queues, functions, streams, mobile endpoints, phone numbers); the others wait for
/// their owner to confirm.
pub(crate) fn confirmed_at_once(protocol: &str) -> bool {
    matches!(protocol, "sqs" | "lambda" | "firehose" | "application" | "sms")
}

/// Checks one subscription attribute; the message is what follows `Invalid parameter: `
/// (Subscribe prefixes it with `Attributes Reason: `).
pub(crate) fn check_attribute(name: &str, value: &str, protocol: &str) -> Result<(), String> {
    if !ATTRIBUTES.contains(&name) {
        return Err("AttributeName".into());
    }
    match name {
        "RawMessageDelivery" => {
            if !value.eq_ignore_ascii_case("true") && !value.eq_ignore_ascii_case("false") {
                return Err(format!(
                    "RawMessageDelivery: Invalid value [{value}]. Must be true or false."
                ));
            }
            if value.eq_ignore_ascii_case("true") && !matches!(protocol, "sqs" | "http" | "https" | "firehose") {
                return Err(format!(
                    "Delivery protocol [{protocol}] does not support raw message delivery."
                ));
            }
            Ok(())
        }
        // Checked with its scope, by `filter::check`.
        "FilterPolicy" => Ok(()),
        "FilterPolicyScope" => match value {
            "MessageAttributes" | "MessageBody" => Ok(()),
            _ => Err(format!(
                "FilterPolicyScope: Invalid value [{value}]. Please use either MessageBody or MessageAttributes"
            )),
        },
        "RedrivePolicy" => {
            let policy: Value =
                serde_json::from_str(value).map_err(|e| format!("RedrivePolicy: failed to parse JSON. {e}"))?;
            let target = policy.get("deadLetterTargetArn").and_then(Value::as_str);
            match target {
                Some(arn) if is_queue_arn(arn) => Ok(()),
                Some(_) => Err("RedrivePolicy: deadLetterTargetArn is an invalid arn".into()),
                None => Err("RedrivePolicy: deadLetterTargetArn is missing".into()),
            }
        }
        "DeliveryPolicy" => match serde_json::from_str::<Value>(value) {
            Ok(Value::Object(_)) => Ok(()),
            _ => Err("DeliveryPolicy: failed to parse JSON.".into()),
        },
        _ => Ok(()),
    }
}

fn is_queue_arn(arn: &str) -> bool {
    let parts: Vec<&str> = arn.split(':').collect();
    parts.len() == 6 && parts[0] == "arn" && parts[2] == "sqs" && !parts[5].is_empty()
}

/// An attribute's value as it counts when a subscription is made again: booleans in any
/// case, and the defaults (`RawMessageDelivery` false, `FilterPolicyScope`
/// `MessageAttributes`) as if they had been given.
fn effective(name: &str, value: Option<&str>) -> Option<String> {
    match (name, value) {
        ("RawMessageDelivery", v) => Some(v.unwrap_or("false").to_ascii_lowercase()),
        ("FilterPolicyScope", v) => Some(v.unwrap_or("MessageAttributes").to_owned()),
        (_, v) => v.map(str::to_owned),
    }
}

/// Attributes as SNS keeps them: booleans in lower case, an empty filter policy dropped.
pub(crate) fn normalize(attributes: &mut BTreeMap<String, String>) {
    if let Some(raw) = attributes.get_mut("RawMessageDelivery") {
        *raw = raw.to_ascii_lowercase();
    }
    if attributes.get("FilterPolicy").is_some_and(String::is_empty) {
        attributes.remove("FilterPolicy");
    }
}

impl SubscriptionRecord {
    /// Whether subscribing again with `attributes` asks for anything this subscription does
    /// not have.
    pub(crate) fn differs_from(&self, attributes: &BTreeMap<String, String>) -> bool {
        attributes
            .iter()
            .any(|(k, v)| effective(k, Some(v)) != effective(k, self.attributes.get(k).map(String::as_str)))
    }

    pub(crate) fn raw(&self) -> bool {
        self.attributes
            .get("RawMessageDelivery")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The dead-letter queue of the subscription's RedrivePolicy.
    pub(crate) fn dead_letter_queue(&self) -> Option<String> {
        let policy: Value = serde_json::from_str(self.attributes.get("RedrivePolicy")?).ok()?;
        policy.get("deadLetterTargetArn")?.as_str().map(str::to_owned)
    }

    /// The attributes GetSubscriptionAttributes answers.
    pub(crate) fn attributes(&self, sub: &SubscriptionRef) -> BTreeMap<String, String> {
        let mut out = self.attributes.clone();
        out.insert("SubscriptionArn".into(), sub.arn());
        out.insert("TopicArn".into(), sub.topic.arn());
        out.insert("Owner".into(), self.owner.clone());
        out.insert("Protocol".into(), self.protocol.clone());
        out.insert("Endpoint".into(), self.endpoint.clone());
        out.insert("SubscriptionPrincipal".into(), self.principal.clone());
        out.insert("PendingConfirmation".into(), self.pending.to_string());
        out.insert("ConfirmationWasAuthenticated".into(), (!self.pending).to_string());
        out.entry("RawMessageDelivery".into()).or_insert_with(|| "false".into());
        // The scope is shown only beside a policy.
        if out.contains_key("FilterPolicy") {
            out.entry("FilterPolicyScope".into())
                .or_insert_with(|| "MessageAttributes".into());
        } else {
            out.remove("FilterPolicyScope");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_must_suit_their_protocol() {
        let r = "us-east-1";
        assert!(check_endpoint("sqs", "arn:aws:sqs:us-east-1:000000000000:q", r).is_ok());
        let e = check_endpoint("sqs", "http://localhost/000000000000/q", r).unwrap_err();
        assert_eq!(e.0.message, "Invalid parameter: SQS endpoint ARN");
        let e = check_endpoint("test-protocol", "x", r).unwrap_err();
        assert_eq!(
            e.0.message,
            "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol"
        );
        assert!(check_endpoint("sms", "+15551234567", r).is_ok());
        assert!(check_endpoint("sms", "not a number", r).is_err());
        for bad in ["+15--551234567", "NAA+15551234567", "+15551234567.", "/+15551234567"] {
            assert_eq!(
                check_endpoint("sms", bad, r).unwrap_err().0.message,
                format!("Invalid SMS endpoint: {bad}")
            );
        }
        assert!(valid_e164("+15551234567") && !valid_e164("+1a234"));
        assert!(check_endpoint("email", "me@example.com", r).is_ok());
        assert!(check_endpoint("https", "http://example.com", r).is_err());
    }

    #[test]
    fn subscribing_again_compares_effective_attributes() {
        let record = SubscriptionRecord {
            id: "s".into(),
            protocol: "sqs".into(),
            endpoint: String::new(),
            owner: String::new(),
            principal: String::new(),
            attributes: BTreeMap::from([("RawMessageDelivery".into(), "True".into())]),
            pending: false,
            token: None,
        };
        let ask = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert!(!record.differs_from(&ask(&[("RawMessageDelivery", "true")])));
        assert!(!record.differs_from(&ask(&[("FilterPolicyScope", "MessageAttributes")])));
        assert!(record.differs_from(&ask(&[("RawMessageDelivery", "false")])));
        assert!(record.differs_from(&ask(&[("FilterPolicyScope", "MessageBody")])));
        let mut given = ask(&[
            ("RawMessageDelivery", "True"),
            ("FilterPolicy", ""),
            ("FilterPolicyScope", "MessageBody"),
        ]);
        normalize(&mut given);
        assert_eq!(
            given,
            ask(&[("RawMessageDelivery", "true"), ("FilterPolicyScope", "MessageBody")])
        );
    }

    #[test]
    fn attributes_are_checked_in_aws_words() {
        assert_eq!(
            check_attribute("RawMessageDelivery", "yes", "sqs").unwrap_err(),
            "RawMessageDelivery: Invalid value [yes]. Must be true or false."
        );
        assert_eq!(check_attribute("Nope", "x", "sqs").unwrap_err(), "AttributeName");
        assert_eq!(
            check_attribute("FilterPolicyScope", "Random", "sqs").unwrap_err(),
            "FilterPolicyScope: Invalid value [Random]. Please use either MessageBody or MessageAttributes"
        );
        assert_eq!(
            check_attribute("RedrivePolicy", r#"{"deadLetterTargetArn":"nope"}"#, "sqs").unwrap_err(),
            "RedrivePolicy: deadLetterTargetArn is an invalid arn"
        );
    }
}
