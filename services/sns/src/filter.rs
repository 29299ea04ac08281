//! Filter policies: checked when a subscription takes one (in SNS's words, by
//! `stratus-event-pattern`), and matched against each message's attributes or body before a
//! delivery is queued.

use std::collections::BTreeMap;

use stratus_core::AwsError;
use stratus_event_pattern::{Attribute as PatternAttribute, Dialect, Pattern};

use crate::error::SnsError;
use crate::messages::Message;
use crate::subscriptions::SubscriptionRecord;

/// The dialect a subscription's `FilterPolicyScope` asks for (`MessageAttributes` unless set).
fn dialect(attributes: &BTreeMap<String, String>) -> Dialect {
    attributes
        .get("FilterPolicyScope")
        .and_then(|s| Dialect::sns_scope(s))
        .unwrap_or(Dialect::SnsMessageAttributes)
}

/// Checks the `FilterPolicy` of `attributes` under their scope: Subscribe words a refusal
/// `Attributes Reason: FilterPolicy: …` (`subscribing`), SetSubscriptionAttributes
/// `FilterPolicy: …`.
pub(crate) fn check(attributes: &BTreeMap<String, String>, subscribing: bool) -> Result<(), SnsError> {
    // An empty policy is none.
    let Some(policy) = attributes.get("FilterPolicy").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    Pattern::parse(policy, dialect(attributes)).map(|_| ()).map_err(|e| {
        let message = if subscribing {
            e.attributes_message()
        } else {
            e.message()
        };
        SnsError(AwsError::new(e.code(), message, 400))
    })
}

/// Whether `sub` takes `message`: it has no filter policy, or the policy matches the
/// message's attributes (or, in the `MessageBody` scope, the text it would receive).
pub(crate) fn accepts(sub: &SubscriptionRecord, message: &Message) -> bool {
    let Some(policy) = sub.attributes.get("FilterPolicy").filter(|p| !p.is_empty()) else {
        return true;
    };
    let Ok(pattern) = Pattern::parse(policy, dialect(&sub.attributes)) else {
        // Checked when it was set; a policy that no longer parses matches nothing.
        return false;
    };
    match pattern.dialect() {
        Dialect::SnsMessageBody => pattern.matches_json(message.text_for(&sub.protocol)),
        _ => {
            let attributes: Vec<PatternAttribute<'_>> = message
                .attributes
                .iter()
                .map(|(name, a)| PatternAttribute::new(name, &a.data_type, a.string.as_deref().unwrap_or("")))
                .collect();
            pattern.matches_attributes(&attributes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Attribute;

    fn sub(attributes: &[(&str, &str)]) -> SubscriptionRecord {
        SubscriptionRecord {
            id: "s".into(),
            protocol: "sqs".into(),
            endpoint: "arn:aws:sqs:us-east-1:000000000000:q".into(),
            owner: "000000000000".into(),
            principal: String::new(),
            attributes: attributes.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            pending: false,
            token: None,
        }
    }

    fn message(body: &str, attributes: &[(&str, &str, &str)]) -> Message {
        Message {
            message: body.into(),
            subject: None,
            per_protocol: None,
            attributes: attributes
                .iter()
                .map(|(n, t, v)| {
                    (
                        n.to_string(),
                        Attribute {
                            data_type: t.to_string(),
                            string: Some(v.to_string()),
                            binary: None,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn attribute_policies_match_attributes() {
        let s = sub(&[(
            "FilterPolicy",
            r#"{"store": ["north"], "price": [{"numeric": [">", 10]}]}"#,
        )]);
        assert!(accepts(
            &s,
            &message("m", &[("store", "String", "north"), ("price", "Number", "11")])
        ));
        assert!(!accepts(
            &s,
            &message("m", &[("store", "String", "south"), ("price", "Number", "11")])
        ));
        assert!(!accepts(&s, &message("m", &[])));
        assert!(accepts(&sub(&[]), &message("m", &[])));
    }

    #[test]
    fn body_policies_match_the_body() {
        let s = sub(&[
            ("FilterPolicy", r#"{"kind": ["order"]}"#),
            ("FilterPolicyScope", "MessageBody"),
        ]);
        assert!(accepts(&s, &message(r#"{"kind": "order"}"#, &[])));
        assert!(!accepts(&s, &message(r#"{"kind": "refund"}"#, &[])));
        assert!(!accepts(&s, &message("not json", &[("kind", "String", "order")])));
    }

    #[test]
    fn refusals_are_worded_for_the_operation() {
        let attrs = BTreeMap::from([("FilterPolicy".to_owned(), "{invalid".to_owned())]);
        let subscribing = check(&attrs, true).unwrap_err().0;
        assert_eq!(subscribing.code, "InvalidParameter");
        assert!(subscribing
            .message
            .starts_with("Invalid parameter: Attributes Reason: FilterPolicy: "));
        assert!(check(&attrs, false)
            .unwrap_err()
            .0
            .message
            .starts_with("Invalid parameter: FilterPolicy: "));
        let nested = BTreeMap::from([("FilterPolicy".to_owned(), r#"{"a": {"b": ["c"]}}"#.to_owned())]);
        assert!(check(&nested, true).is_err());
        let mut body = nested.clone();
        body.insert("FilterPolicyScope".into(), "MessageBody".into());
        assert!(check(&body, true).is_ok());
    }
}
