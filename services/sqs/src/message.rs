//! Messages: how they are stored, checked, digested and chosen for delivery.
//!
//! A message is a [`StoredMessage`] in the `messages` table, keyed by its queue's name, a zero
//! byte and its sequence number (big-endian), so a queue's messages scan in the order they
//! were sent. Visibility is a deadline kept in the message (`visible_at_ms`) and compared with
//! the clock when a receive looks at it: nothing runs while a message is in flight.
//!
//! The digests are AWS's: the hex MD5 of the body, and of the message attributes encoded as
//! AWS describes (per attribute, sorted by name: name, data type, a transport byte and the
//! value, each string or binary preceded by its length as a 4-byte big-endian integer).

use std::collections::{BTreeMap, BTreeSet};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use stratus_gen_sqs::{Message, MessageAttributeValue, MessageSystemAttributeValue};

use crate::error::SqsError;

/// A message attribute as stored (list values are reserved by AWS and refused).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Attribute {
    pub data_type: String,
    pub string: Option<String>,
    pub binary: Option<Vec<u8>>,
}

/// A message as stored.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct StoredMessage {
    pub id: String,
    pub sequence: u64,
    pub body: String,
    pub attributes: BTreeMap<String, Attribute>,
    /// The `AWSTraceHeader` system attribute.
    pub trace_header: Option<String>,
    /// Milliseconds since the epoch.
    pub sent_ms: u64,
    /// Who sent it (the `SenderId` attribute).
    pub sender_id: String,
    /// Until then the message is delayed (never received) or in flight (received).
    pub visible_at_ms: u64,
    pub receive_count: u32,
    pub first_receive_ms: Option<u64>,
    /// Changes on every receive; the current receipt handle carries it.
    pub receipt_token: u64,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
    /// The ARN of the queue a dead-letter redrive moved the message from.
    #[serde(default)]
    pub dead_letter_source: Option<String>,
}

/// Where a message stands at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Visible,
    InFlight,
    Delayed,
}

impl StoredMessage {
    pub(crate) fn state(&self, now_ms: u64) -> State {
        if self.visible_at_ms <= now_ms {
            State::Visible
        } else if self.receive_count > 0 {
            State::InFlight
        } else {
            State::Delayed
        }
    }

    /// When the message last became visible: when it was sent (or its delay ended), or when it
    /// came back after a receive. For a visible message only.
    pub(crate) fn visible_since(&self) -> u64 {
        self.visible_at_ms.max(self.sent_ms)
    }

    /// Marks the message received at `now_ms`, invisible for `visibility_secs`.
    pub(crate) fn receive(&mut self, now_ms: u64, visibility_secs: u64, token: u64) {
        self.visible_at_ms = now_ms + visibility_secs * 1000;
        self.receive_count += 1;
        self.first_receive_ms.get_or_insert(now_ms);
        self.receipt_token = token;
    }

    /// The handle this receive hands out: the sequence number and the receive's token.
    pub(crate) fn receipt_handle(&self) -> String {
        format!("{:016x}{:016x}", self.sequence, self.receipt_token)
    }

    /// The message as ReceiveMessage returns it, with the system attributes named in
    /// `system` and the message attributes named in `wanted` (`All`, `*`, `.*`, or
    /// `prefix.*`); only a FIFO queue's messages have a sequence number.
    pub(crate) fn to_message(&self, system: &BTreeSet<String>, wanted: &[String], fifo: bool) -> Message {
        let all = system.contains("All");
        let mut attributes = BTreeMap::new();
        let mut put = |name: &str, value: Option<String>| {
            if let Some(value) = value.filter(|_| all || system.contains(name)) {
                attributes.insert(name.to_owned(), value);
            }
        };
        put("SenderId", Some(self.sender_id.clone()));
        put("SentTimestamp", Some(self.sent_ms.to_string()));
        put("ApproximateReceiveCount", Some(self.receive_count.to_string()));
        put(
            "ApproximateFirstReceiveTimestamp",
            self.first_receive_ms.map(|t| t.to_string()),
        );
        put("AWSTraceHeader", self.trace_header.clone());
        put("MessageGroupId", self.group_id.clone());
        put("MessageDeduplicationId", self.dedup_id.clone());
        put("DeadLetterQueueSourceArn", self.dead_letter_source.clone());
        put("SequenceNumber", fifo.then(|| sequence_number(self.sequence)));
        let selected: BTreeMap<String, Attribute> = self
            .attributes
            .iter()
            .filter(|(name, _)| {
                wanted.iter().any(|w| {
                    matches!(w.as_str(), "All" | "*" | ".*")
                        || w == *name
                        || w.strip_suffix(".*").is_some_and(|p| name.starts_with(p))
                })
            })
            .map(|(name, a)| (name.clone(), a.clone()))
            .collect();
        // The digest covers the attributes returned, as SDKs verify it.
        let md5_of_message_attributes = attributes_md5(&selected);
        let selected: BTreeMap<String, MessageAttributeValue> = selected
            .into_iter()
            .map(|(name, a)| {
                let value = MessageAttributeValue {
                    string_value: a.string,
                    binary_value: a.binary,
                    string_list_values: None,
                    binary_list_values: None,
                    data_type: a.data_type,
                };
                (name, value)
            })
            .collect();
        Message {
            message_id: Some(self.id.clone()),
            receipt_handle: Some(self.receipt_handle()),
            md5_of_body: Some(md5_hex(self.body.as_bytes())),
            body: Some(self.body.clone()),
            attributes: (!attributes.is_empty()).then_some(attributes),
            md5_of_message_attributes,
            message_attributes: (!selected.is_empty()).then_some(selected),
        }
    }
}

/// A FIFO message's sequence number as AWS describes it: a large, non-consecutive number
/// (twenty digits) that grows with each message sent to the queue.
pub(crate) fn sequence_number(sequence: u64) -> String {
    const FIRST: u128 = 12_345_678_901_234_567_890;
    const STEP: u128 = 4_096;
    (FIRST + u128::from(sequence) * STEP).to_string()
}

/// The sequence number and token a receipt handle carries.
pub(crate) fn parse_receipt_handle(handle: &str) -> Result<(u64, u64), SqsError> {
    let invalid = || SqsError::ReceiptHandleIsInvalid(handle.to_owned());
    if handle.len() != 32 || !handle.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid());
    }
    let sequence = u64::from_str_radix(&handle[..16], 16).map_err(|_| invalid())?;
    let token = u64::from_str_radix(&handle[16..], 16).map_err(|_| invalid())?;
    Ok((sequence, token))
}

/// Lower-case hex MD5 of `data`.
pub(crate) fn md5_hex(data: &[u8]) -> String {
    stratus_core::hex::encode(&Md5::digest(data))
}

/// AWS's MD5 of message attributes; `None` when there are none.
pub(crate) fn attributes_md5(attributes: &BTreeMap<String, Attribute>) -> Option<String> {
    if attributes.is_empty() {
        return None;
    }
    let mut buf = Vec::new();
    let field = |buf: &mut Vec<u8>, bytes: &[u8]| {
        buf.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
        buf.extend_from_slice(bytes);
    };
    for (name, a) in attributes {
        field(&mut buf, name.as_bytes());
        field(&mut buf, a.data_type.as_bytes());
        match (&a.string, &a.binary) {
            (Some(s), _) => {
                buf.push(1);
                field(&mut buf, s.as_bytes());
            }
            (None, Some(b)) => {
                buf.push(2);
                field(&mut buf, b);
            }
            (None, None) => {}
        }
    }
    Some(md5_hex(&buf))
}

/// Whether `body` has only the characters AWS allows in a message.
pub(crate) fn valid_characters(body: &str) -> bool {
    body.chars().all(|c| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    })
}

/// Checks message attributes and converts them for storage.
pub(crate) fn attributes(
    given: Option<BTreeMap<String, MessageAttributeValue>>,
) -> Result<BTreeMap<String, Attribute>, SqsError> {
    let given = given.unwrap_or_default();
    if given.len() > 10 {
        return Err(SqsError::invalid_parameter(format!(
            "Number of message attributes [{}] exceeds the allowed maximum [10].",
            given.len()
        )));
    }
    given
        .into_iter()
        .map(|(name, v)| {
            check_attribute_name(&name)?;
            if v.data_type.chars().count() > 256 {
                return Err(SqsError::invalid_parameter(format!(
                    "Message (user) attribute '{name}' has an invalid data type: it is longer than 256 characters."
                )));
            }
            let base = v.data_type.split('.').next().unwrap_or("").to_owned();
            let attribute = Attribute {
                string: v.string_value.filter(|s| !s.is_empty()),
                binary: v.binary_value.filter(|b| !b.is_empty()),
                data_type: v.data_type,
            };
            let value_ok = match base.as_str() {
                "String" => attribute.string.is_some(),
                "Number" => attribute.string.as_deref().is_some_and(|s| s.trim().parse::<f64>().is_ok()),
                "Binary" => attribute.binary.is_some(),
                _ => {
                    return Err(SqsError::invalid_parameter(format!(
                        "The type of message (user) attribute '{name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String."
                    )))
                }
            };
            if !value_ok {
                return Err(SqsError::invalid_parameter(format!(
                    "Message (user) attribute '{name}' must contain a non-empty value of type '{base}'."
                )));
            }
            // String values obey the body's character rules.
            if attribute.string.as_deref().is_some_and(|s| !valid_characters(s)) {
                return Err(SqsError::invalid_parameter(format!(
                    "Message (user) attribute '{name}' contains invalid characters."
                )));
            }
            Ok((name, attribute))
        })
        .collect()
}

/// AWS's rules for a message attribute's name: letters, digits, `_`, `-` and `.`, at most 256
/// characters, neither starting nor ending with a period nor holding two in a row, and not
/// starting with the reserved `AWS.` or `Amazon.` in any case.
fn check_attribute_name(name: &str) -> Result<(), SqsError> {
    let lower = name.to_lowercase();
    let valid = (1..=256).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && !lower.starts_with("aws.")
        && !lower.starts_with("amazon.");
    if valid {
        Ok(())
    } else {
        Err(SqsError::invalid_parameter(format!(
            "Message (user) attribute name '{name}' is invalid. Names may hold letters, digits, '_', '-' and '.', \
             at most 256 characters, must neither start nor end with '.' nor hold '..', and must not start with \
             'AWS.' or 'Amazon.'."
        )))
    }
}

/// The `AWSTraceHeader` system attribute, the only one AWS accepts on sends.
pub(crate) fn trace_header(
    given: Option<BTreeMap<String, MessageSystemAttributeValue>>,
) -> Result<Option<String>, SqsError> {
    let mut trace = None;
    for (name, value) in given.unwrap_or_default() {
        if name != "AWSTraceHeader" || value.data_type != "String" || value.string_value.is_none() {
            return Err(SqsError::invalid_parameter(format!(
                "Message system attribute name '{name}' is invalid."
            )));
        }
        trace = value.string_value;
    }
    Ok(trace)
}

/// AWS's size of a message: the body plus every attribute's name, type and value, in bytes.
pub(crate) fn size(body: &str, attributes: &BTreeMap<String, Attribute>) -> usize {
    body.len()
        + attributes
            .iter()
            .map(|(n, a)| {
                n.len()
                    + a.data_type.len()
                    + a.string.as_ref().map_or(0, String::len)
                    + a.binary.as_ref().map_or(0, Vec::len)
            })
            .sum::<usize>()
}

/// A FIFO group's place in line: when its first deliverable message became visible; at the
/// same moment, a message never received goes first, then the one sent earlier.
type Turn = (u64, bool, u64);

/// Which of `messages` (in sequence order) a receive of at most `max` delivers at `now_ms`,
/// in the order it delivers them.
///
/// In a FIFO queue a group's messages are delivered together, in order, up to the first one
/// not visible (an in-flight or delayed message holds back the rest of its group). Groups take
/// turns by when their first deliverable message became visible: a group received and made
/// visible again (its visibility timeout expired or was changed, or its in-flight messages
/// deleted) goes behind groups that have waited since they were sent.
pub(crate) fn deliverable<'a>(
    messages: impl IntoIterator<Item = &'a StoredMessage>,
    now_ms: u64,
    max: usize,
    fifo: bool,
) -> Vec<usize> {
    if !fifo {
        return messages
            .into_iter()
            .enumerate()
            .filter(|(_, m)| m.state(now_ms) == State::Visible)
            .map(|(i, _)| i)
            .take(max)
            .collect();
    }
    let mut blocked: BTreeSet<&str> = BTreeSet::new();
    // Per group: its turn and its deliverable messages.
    let mut runs: BTreeMap<&str, (Turn, Vec<usize>)> = BTreeMap::new();
    for (i, m) in messages.into_iter().enumerate() {
        let group = m.group_id.as_deref().unwrap_or_default();
        if blocked.contains(group) {
            continue;
        }
        if m.state(now_ms) == State::Visible {
            runs.entry(group)
                .or_insert_with(|| ((m.visible_since(), m.receive_count > 0, m.sequence), Vec::new()))
                .1
                .push(i);
        } else {
            blocked.insert(group);
        }
    }
    let mut runs: Vec<_> = runs.into_values().collect();
    runs.sort_by_key(|(turn, _)| *turn);
    runs.into_iter().flat_map(|(_, run)| run).take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(sequence: u64, group: Option<&str>, visible_at_ms: u64, receive_count: u32) -> StoredMessage {
        StoredMessage {
            id: format!("m{sequence}"),
            sequence,
            body: "b".into(),
            attributes: BTreeMap::new(),
            trace_header: None,
            sent_ms: 0,
            sender_id: String::new(),
            visible_at_ms,
            receive_count,
            first_receive_ms: None,
            receipt_token: 0,
            group_id: group.map(Into::into),
            dedup_id: None,
            dead_letter_source: None,
        }
    }

    #[test]
    fn visibility_is_a_deadline() {
        let mut m = message(1, None, 1_000, 0);
        assert_eq!(m.state(999), State::Delayed);
        assert_eq!(m.state(1_000), State::Visible);
        m.receive(2_000, 30, 7);
        assert_eq!((m.state(31_999), m.state(32_000)), (State::InFlight, State::Visible));
        assert_eq!((m.receive_count, m.first_receive_ms), (1, Some(2_000)));
        m.receive(40_000, 0, 8);
        assert_eq!((m.state(40_000), m.first_receive_ms), (State::Visible, Some(2_000)));
        assert_eq!(parse_receipt_handle(&m.receipt_handle()).unwrap(), (1, 8));
        assert!(parse_receipt_handle("nope").is_err());
    }

    #[test]
    fn fifo_groups_wait_for_their_earlier_messages() {
        let ms = [
            message(1, Some("a"), 50, 1), // in flight: blocks group a
            message(2, Some("a"), 0, 0),
            message(3, Some("b"), 0, 0),
            message(4, Some("b"), 0, 0),
            message(5, None, 0, 0),
        ];
        assert_eq!(deliverable(&ms, 10, 10, true), vec![2, 3, 4]);
        assert_eq!(deliverable(&ms, 10, 2, true), vec![2, 3]);
        assert_eq!(deliverable(&ms, 10, 10, false), vec![1, 2, 3, 4]);
        // Group a, visible again at 50, waits behind the groups visible since they were sent.
        assert_eq!(deliverable(&ms, 50, 10, true), vec![2, 3, 4, 0, 1]);
    }

    #[test]
    fn digests_match_aws() {
        // The MD5 of "This is a test message" as AWS returns it for SendMessage.
        assert_eq!(md5_hex(b"This is a test message"), "fafb00f5732ab283681e124bf8747ed1");
        // Attribute digest as AWS computes it (the encoding the SQS developer guide gives),
        // cross-checked against the Java SDK's MessageMD5ChecksumInterceptor algorithm.
        let attrs = BTreeMap::from([(
            "City".to_owned(),
            Attribute {
                data_type: "String".into(),
                string: Some("Any City".into()),
                binary: None,
            },
        )]);
        let mut buf = Vec::new();
        for part in [&b"City"[..], b"String"] {
            buf.extend_from_slice(&(part.len() as u32).to_be_bytes());
            buf.extend_from_slice(part);
        }
        buf.push(1);
        buf.extend_from_slice(&8u32.to_be_bytes());
        buf.extend_from_slice(b"Any City");
        assert_eq!(attributes_md5(&attrs), Some(md5_hex(&buf)));
        assert_eq!(attributes_md5(&BTreeMap::new()), None);
    }

    #[test]
    fn characters_and_sizes() {
        assert!(valid_characters("tab\tnewline\n\u{10000}"));
        assert!(!valid_characters("nul\u{0}"));
        assert!(!valid_characters("\u{FFFE}"));
        let attrs = attributes(Some(BTreeMap::from([(
            "n".to_owned(),
            MessageAttributeValue {
                data_type: "Number".into(),
                string_value: Some("12".into()),
                ..Default::default()
            },
        )])))
        .unwrap();
        assert_eq!(size("abc", &attrs), 3 + 1 + 6 + 2);
        assert!(attributes(Some(BTreeMap::from([(
            "n".to_owned(),
            MessageAttributeValue {
                data_type: "Number".into(),
                string_value: Some("x".into()),
                ..Default::default()
            },
        )])))
        .is_err());
    }
}
