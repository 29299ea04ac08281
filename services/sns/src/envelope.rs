//! What subscribers receive: the JSON envelope SNS wraps a notification in for queues (and,
//! later, HTTP and email-json), and the event it hands functions.
//!
//! Field order and names are AWS's: the queue envelope writes `Type`, `MessageId`,
//! `SequenceNumber` (FIFO), `TopicArn`, `Subject` (when set), `Message`, `Timestamp`,
//! `SignatureVersion` (standard topics), `UnsubscribeURL` and `MessageAttributes` (when there
//! are any, each as `{"Type","Value"}`); the function event spells `SigningCertUrl` and
//! `UnsubscribeUrl` in its own case and always carries `Subject` and `MessageAttributes`.
//! `Signature` and `SigningCertURL` are written in as each delivery is made
//! ([`signing`](crate::signing)), after `SignatureVersion`.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::{json, Map, Value};

use crate::messages::Attribute;

/// One notification, as every envelope describes it.
pub(crate) struct Notification<'a> {
    pub(crate) message_id: &'a str,
    pub(crate) topic_arn: &'a str,
    pub(crate) subscription_arn: &'a str,
    pub(crate) subject: Option<&'a str>,
    pub(crate) message: &'a str,
    pub(crate) timestamp_ms: i64,
    /// FIFO topics' sequence number.
    pub(crate) sequence_number: Option<&'a str>,
    /// The `SignatureVersion` its deliveries are signed with; `None` for a FIFO topic, whose
    /// queue envelopes carry none.
    pub(crate) signature_version: Option<&'a str>,
    pub(crate) attributes: &'a BTreeMap<String, Attribute>,
    /// Where `UnsubscribeURL` points: the endpoint the publisher addressed.
    pub(crate) endpoint: &'a str,
}

/// A time as SNS writes it: `2024-05-01T12:00:00.000Z`.
pub(crate) fn timestamp(epoch_ms: i64) -> String {
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        epoch_ms.rem_euclid(1000)
    )
}

impl Notification<'_> {
    fn unsubscribe_url(&self) -> String {
        format!(
            "{}/?Action=Unsubscribe&SubscriptionArn={}",
            self.endpoint, self.subscription_arn
        )
    }

    /// The attributes as envelopes carry them: `{"Type": …, "Value": …}`, binary values in
    /// base64.
    fn attributes_value(&self) -> Map<String, Value> {
        self.attributes
            .iter()
            .map(|(name, a)| {
                let value = match (&a.string, &a.binary) {
                    (Some(s), _) => s.clone(),
                    (None, Some(b)) => base64::engine::general_purpose::STANDARD.encode(b),
                    (None, None) => String::new(),
                };
                (name.clone(), json!({"Type": a.data_type, "Value": value}))
            })
            .collect()
    }

    /// The envelope a queue receives when the subscription is not raw.
    pub(crate) fn queue_envelope(&self) -> String {
        let mut m = Map::new();
        m.insert("Type".into(), json!("Notification"));
        m.insert("MessageId".into(), json!(self.message_id));
        if let Some(seq) = self.sequence_number {
            m.insert("SequenceNumber".into(), json!(seq));
        }
        m.insert("TopicArn".into(), json!(self.topic_arn));
        if let Some(subject) = self.subject {
            m.insert("Subject".into(), json!(subject));
        }
        m.insert("Message".into(), json!(self.message));
        m.insert("Timestamp".into(), json!(timestamp(self.timestamp_ms)));
        if let Some(version) = self.signature_version {
            m.insert("SignatureVersion".into(), json!(version));
        }
        m.insert("UnsubscribeURL".into(), json!(self.unsubscribe_url()));
        if !self.attributes.is_empty() {
            m.insert("MessageAttributes".into(), Value::Object(self.attributes_value()));
        }
        Value::Object(m).to_string()
    }

    /// The event a function subscribed to the topic is invoked with.
    pub(crate) fn lambda_event(&self) -> String {
        let mut sns = Map::new();
        sns.insert("Type".into(), json!("Notification"));
        sns.insert("MessageId".into(), json!(self.message_id));
        if let Some(seq) = self.sequence_number {
            sns.insert("SequenceNumber".into(), json!(seq));
        }
        sns.insert("TopicArn".into(), json!(self.topic_arn));
        sns.insert("Subject".into(), self.subject.map_or(Value::Null, |s| json!(s)));
        sns.insert("Message".into(), json!(self.message));
        sns.insert("Timestamp".into(), json!(timestamp(self.timestamp_ms)));
        // A function's event says version 1 whatever the topic's; its signature is still made
        // with the topic's version (AWS's recordings: a SHA256withRSA signature under "1").
        sns.insert("SignatureVersion".into(), json!("1"));
        sns.insert("UnsubscribeUrl".into(), json!(self.unsubscribe_url()));
        sns.insert("MessageAttributes".into(), Value::Object(self.attributes_value()));
        json!({
            "Records": [{
                "EventSource": "aws:sns",
                "EventVersion": "1.0",
                "EventSubscriptionArn": self.subscription_arn,
                "Sns": Value::Object(sns),
            }]
        })
        .to_string()
    }
}

/// What an `http` or `https` endpoint receives when it is subscribed: the token, and the link
/// that confirms the subscription (`SubscribeURL`, ConfirmSubscription on the endpoint the
/// subscriber reached SNS at).
pub(crate) fn subscription_confirmation(
    message_id: &str,
    token: &str,
    topic_arn: &str,
    endpoint: &str,
    timestamp_ms: i64,
    signature_version: &str,
) -> String {
    let mut m = Map::new();
    m.insert("Type".into(), json!("SubscriptionConfirmation"));
    m.insert("MessageId".into(), json!(message_id));
    m.insert("Token".into(), json!(token));
    m.insert("TopicArn".into(), json!(topic_arn));
    m.insert(
        "Message".into(),
        json!(format!(
            "You have chosen to subscribe to the topic {topic_arn}.\nTo confirm the subscription, visit the SubscribeURL included in this message."
        )),
    );
    m.insert(
        "SubscribeURL".into(),
        json!(format!(
            "{endpoint}/?Action=ConfirmSubscription&TopicArn={topic_arn}&Token={token}"
        )),
    );
    m.insert("Timestamp".into(), json!(timestamp(timestamp_ms)));
    m.insert("SignatureVersion".into(), json!(signature_version));
    Value::Object(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs() -> BTreeMap<String, Attribute> {
        BTreeMap::from([(
            "attr1".to_owned(),
            Attribute {
                data_type: "Number".into(),
                string: Some("99.12".into()),
                binary: None,
            },
        )])
    }

    fn note<'a>(attributes: &'a BTreeMap<String, Attribute>, seq: Option<&'a str>) -> Notification<'a> {
        Notification {
            message_id: "id-1",
            topic_arn: "arn:aws:sns:us-east-1:000000000000:t",
            subscription_arn: "arn:aws:sns:us-east-1:000000000000:t:s",
            subject: None,
            message: "hello",
            timestamp_ms: 1_700_000_000_123,
            sequence_number: seq,
            signature_version: seq.is_none().then_some("1"),
            attributes,
            endpoint: "http://localhost:4566",
        }
    }

    #[test]
    fn the_queue_envelope_is_aws_shape() {
        let a = attrs();
        let text = note(&a, None).queue_envelope();
        let keys: Vec<String> = serde_json::from_str::<Map<String, Value>>(&text)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            [
                "Type",
                "MessageId",
                "TopicArn",
                "Message",
                "Timestamp",
                "SignatureVersion",
                "UnsubscribeURL",
                "MessageAttributes"
            ]
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["Timestamp"], "2023-11-14T22:13:20.123Z");
        assert_eq!(
            v["MessageAttributes"]["attr1"],
            json!({"Type": "Number", "Value": "99.12"})
        );
        assert_eq!(
            v["UnsubscribeURL"],
            "http://localhost:4566/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:000000000000:t:s"
        );
        assert!(v.get("Subject").is_none() && v.get("Signature").is_none());
    }

    #[test]
    fn fifo_envelopes_carry_the_sequence_number_and_no_signature_version() {
        let a = BTreeMap::new();
        let v: Value = serde_json::from_str(&note(&a, Some("10000000000000000001")).queue_envelope()).unwrap();
        assert_eq!(v["SequenceNumber"], "10000000000000000001");
        assert!(v.get("SignatureVersion").is_none() && v.get("MessageAttributes").is_none());
    }

    #[test]
    fn the_lambda_event_is_aws_shape() {
        let a = attrs();
        let v: Value = serde_json::from_str(&note(&a, None).lambda_event()).unwrap();
        let record = &v["Records"][0];
        assert_eq!(record["EventSource"], "aws:sns");
        assert_eq!(record["EventVersion"], "1.0");
        assert_eq!(record["EventSubscriptionArn"], "arn:aws:sns:us-east-1:000000000000:t:s");
        assert_eq!(record["Sns"]["Subject"], Value::Null);
        assert_eq!(record["Sns"]["MessageAttributes"]["attr1"]["Type"], "Number");
        assert!(record["Sns"]["UnsubscribeUrl"].is_string());
    }
}
