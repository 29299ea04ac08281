//! Accepting messages: in one transaction, FIFO deduplication and sequence numbers, and one
//! delivery record per subscription that receives the message — so that once Publish answers,
//! every delivery survives a restart.

use sha2::{Digest, Sha256};
use stratus_core::{hex, id};
use stratus_outbox::Outbox;
use stratus_storage::Tx;

use crate::delivery::{Delivery, Target};
use crate::envelope::Notification;
use crate::error::{invalid_parameter, SnsError};
use crate::filter;
use crate::http;
use crate::messages::{check_fifo_id, Message};
use crate::names::TopicRef;
use crate::service::SnsService;
use crate::signing::Signing;
use crate::store::{dedup_key, load_topic, topic_subscriptions, DedupEntry, DEDUP, TOPICS};
use crate::subscriptions::SubscriptionRecord;
use crate::topics::TopicRecord;

/// AWS's deduplication interval for FIFO topics.
const DEDUP_WINDOW_MS: i64 = 5 * 60 * 1000;

/// A message to publish, checked.
pub(crate) struct Outgoing {
    pub(crate) message: Message,
    pub(crate) group_id: Option<String>,
    pub(crate) dedup_id: Option<String>,
}

/// What a publish reports.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    pub(crate) message_id: String,
    pub(crate) sequence_number: Option<String>,
}

/// FIFO sequence numbers as SNS writes them: twenty digits.
fn sequence_number(n: u64) -> String {
    format!("{}", 10_000_000_000_000_000_000u64.saturating_add(n))
}

/// Checks the FIFO ids of `o` against its topic, as SNS does before accepting anything.
pub(crate) fn check_ids(topic: &TopicRecord, o: &Outgoing) -> Result<(), SnsError> {
    if let Some(group) = &o.group_id {
        check_fifo_id("MessageGroupId", group)?;
    }
    if let Some(dedup) = &o.dedup_id {
        check_fifo_id("MessageDeduplicationId", dedup)?;
    }
    if topic.is_fifo() {
        if o.group_id.is_none() {
            return Err(invalid_parameter(
                "The MessageGroupId parameter is required for FIFO topics",
            ));
        }
        if o.dedup_id.is_none() && !topic.content_based_deduplication() {
            return Err(invalid_parameter(
                "The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
            ));
        }
    } else if o.dedup_id.is_some() {
        return Err(invalid_parameter(
            "MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type",
        ));
    }
    Ok(())
}

impl SnsService {
    /// Publishes `outgoing` to `topic` in one transaction; `endpoint` is where the publisher
    /// reached SNS (the envelopes' `UnsubscribeURL`). Refuses the whole batch for a FIFO
    /// entry without its ids.
    pub(crate) async fn publish_all(
        &self,
        topic: &TopicRef,
        endpoint: String,
        outgoing: Vec<Outgoing>,
    ) -> Result<Vec<Published>, SnsError> {
        let now = self.now_ms();
        let t = topic.clone();
        let outbox = self.shared.deliveries.clone();
        let (published, queued) = self
            .transact(&topic.account, &topic.region, move |tx| {
                let mut record = load_topic(tx, &t.name)?;
                for o in &outgoing {
                    check_ids(&record, o)?;
                }
                let subs = topic_subscriptions(tx, &t.name)?;
                let mut published = Vec::with_capacity(outgoing.len());
                let mut queued = false;
                for o in outgoing {
                    let publishing = Publishing {
                        topic: &t,
                        subs: &subs,
                        outbox: &outbox,
                        now,
                        endpoint: &endpoint,
                    };
                    let (p, any) = accept(tx, publishing, &mut record, o)?;
                    queued |= any;
                    published.push(p);
                }
                TOPICS.put(tx, t.name.as_bytes(), &record)?;
                Ok((published, queued))
            })
            .await?;
        if queued {
            self.shared.deliveries.wake(&topic.account, &topic.region);
        }
        Ok(published)
    }
}

/// What every message of one publish shares.
#[derive(Clone, Copy)]
struct Publishing<'a> {
    topic: &'a TopicRef,
    subs: &'a [(Vec<u8>, SubscriptionRecord)],
    outbox: &'a Outbox<Delivery>,
    now: i64,
    /// Where the publisher reached SNS (the envelopes' `UnsubscribeURL`).
    endpoint: &'a str,
}

/// Accepts one message: deduplicates it (FIFO), numbers it, and queues its deliveries.
/// Answers what Publish reports and whether any delivery was queued.
fn accept(
    tx: &mut Tx<'_>,
    publishing: Publishing<'_>,
    record: &mut TopicRecord,
    o: Outgoing,
) -> Result<(Published, bool), SnsError> {
    let Publishing {
        topic,
        subs,
        outbox,
        now,
        endpoint,
    } = publishing;
    let mut dedup_id = None;
    if record.is_fifo() {
        let id = match &o.dedup_id {
            Some(id) => id.clone(),
            None => hex::encode(&Sha256::digest(o.message.message.as_bytes())),
        };
        let key = dedup_key(&topic.name, &id);
        if let Some(earlier) = DEDUP.get(tx, &key)? {
            if earlier.expires_ms > now {
                // A duplicate within the window: accepted again, delivered once.
                return Ok((
                    Published {
                        message_id: earlier.message_id,
                        sequence_number: Some(earlier.sequence_number),
                    },
                    false,
                ));
            }
        }
        dedup_id = Some((key, id));
    }
    let message_id = id::uuid();
    let sequence = record.is_fifo().then(|| {
        let n = record.next_sequence;
        record.next_sequence += 1;
        sequence_number(n)
    });
    if let (Some((key, _)), Some(seq)) = (&dedup_id, &sequence) {
        let entry = DedupEntry {
            message_id: message_id.clone(),
            sequence_number: seq.clone(),
            expires_ms: now + DEDUP_WINDOW_MS,
        };
        DEDUP.put(tx, key.clone(), &entry)?;
    }
    let topic_arn = topic.arn();
    let fifo_topic = record.is_fifo();
    let signature_version = (!fifo_topic).then(|| record.signature_version().to_owned());
    let mut queued = false;
    for (_, sub) in subs {
        if sub.pending || !filter::accepts(sub, &o.message) {
            continue;
        }
        let subscription_arn = format!("{topic_arn}:{}", sub.id);
        let text = o.message.text_for(&sub.protocol);
        let note = Notification {
            message_id: &message_id,
            topic_arn: &topic_arn,
            subscription_arn: &subscription_arn,
            subject: o.message.subject.as_deref(),
            message: text,
            timestamp_ms: now,
            sequence_number: sequence.as_deref(),
            signature_version: signature_version.as_deref(),
            attributes: &o.message.attributes,
            endpoint,
        };
        let signing = signature_version.as_ref().map(|version| Signing {
            version: version.clone(),
            endpoint: endpoint.to_owned(),
        });
        let (target, body, attributes) = match sub.protocol.as_str() {
            "sqs" if sub.raw() => (
                Target::Queue(sub.endpoint.clone()),
                text.to_owned(),
                o.message.attributes.clone(),
            ),
            "sqs" => (
                Target::Queue(sub.endpoint.clone()),
                note.queue_envelope(),
                Default::default(),
            ),
            "lambda" => (
                Target::Function(sub.endpoint.clone()),
                note.lambda_event(),
                Default::default(),
            ),
            "http" | "https" => (
                Target::Http(http::Post {
                    url: sub.endpoint.clone(),
                    message_type: "Notification".to_owned(),
                    message_id: message_id.clone(),
                    topic_arn: topic_arn.clone(),
                    subscription_arn: Some(subscription_arn.clone()),
                    raw: sub.raw(),
                }),
                if sub.raw() {
                    text.to_owned()
                } else {
                    note.queue_envelope()
                },
                Default::default(),
            ),
            // Email, SMS, mobile and Firehose deliveries are not made yet.
            _ => continue,
        };
        // A dead-letter queue receives what a queue subscription would have (the envelope,
        // for a function's subscription).
        let dead_letter = sub.dead_letter_queue().map(|queue| {
            let dead_body = if sub.protocol == "sqs" {
                body.clone()
            } else {
                note.queue_envelope()
            };
            (queue, dead_body)
        });
        let delivery = Delivery {
            subscription_arn,
            target,
            body,
            attributes,
            // A FIFO topic's group reaches FIFO queues only; a standard topic's reaches any.
            group_id: o
                .group_id
                .clone()
                .filter(|_| !fifo_topic || sub.endpoint.ends_with(".fifo")),
            dedup_id: dedup_id.as_ref().map(|(_, id)| id.clone()),
            dead_letter,
            // A raw delivery carries the message alone, with nothing to sign.
            signing: signing.filter(|_| !sub.raw()),
        };
        outbox.put(tx, delivery)?;
        queued = true;
    }
    Ok((
        Published {
            message_id,
            sequence_number: sequence,
        },
        queued,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_have_twenty_digits() {
        assert_eq!(sequence_number(1), "10000000000000000001");
        assert_eq!(sequence_number(1).len(), 20);
    }
}
