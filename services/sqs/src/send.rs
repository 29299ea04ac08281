//! Storing sent messages: the checks of a message, FIFO deduplication and sequence numbers.

use std::collections::BTreeMap;

use sha2::Sha256;
use stratus_core::{hex, id};
use stratus_gen_sqs::{MessageAttributeValue, MessageSystemAttributeValue};
use stratus_storage::Tx;

use crate::error::SqsError;
use crate::message::{self, Attribute, StoredMessage};
use crate::queue::QueueRecord;
use crate::queue_ref::QueueRef;
use crate::service::SqsService;
use crate::store::{load_queue, message_key, queue_prefix, Dedup, DEDUP, MESSAGES, QUEUES};

/// AWS's deduplication interval for FIFO queues.
const DEDUP_WINDOW_MS: u64 = 5 * 60 * 1000;

/// A message to send, from SendMessage or a SendMessageBatch entry.
pub(crate) struct Outgoing {
    pub(crate) body: String,
    pub(crate) delay_seconds: Option<i32>,
    pub(crate) attributes: Option<BTreeMap<String, MessageAttributeValue>>,
    pub(crate) system_attributes: Option<BTreeMap<String, MessageSystemAttributeValue>>,
    pub(crate) dedup_id: Option<String>,
    pub(crate) group_id: Option<String>,
    pub(crate) sender_id: String,
    /// The X-Ray trace of the request that sent it (its `X-Amzn-Trace-Id`), kept as
    /// `AWSTraceHeader` when the message names none itself.
    pub(crate) request_trace: Option<String>,
}

/// How messages are sent: AWS words some refusals differently for a batch's entries, and
/// refuses a whole batch for a FIFO entry without its group or deduplication id.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sending {
    One,
    Batch,
}

/// What a send reports.
pub(crate) struct Sent {
    pub(crate) message_id: String,
    pub(crate) md5_of_body: String,
    pub(crate) md5_of_attributes: Option<String>,
    pub(crate) md5_of_system_attributes: Option<String>,
    pub(crate) sequence_number: Option<String>,
}

impl SqsService {
    pub(crate) async fn send(
        &self,
        queue: &QueueRef,
        outgoing: Vec<Outgoing>,
        sending: Sending,
    ) -> Result<Vec<Result<Sent, SqsError>>, SqsError> {
        let name = queue.name.clone();
        let now = self.now_ms();
        let sent = self
            .write(queue, move |tx| {
                let mut record = load_queue(tx, &name)?;
                if sending == Sending::Batch && record.is_fifo() {
                    for o in &outgoing {
                        check_fifo_ids(&record, o)?;
                    }
                }
                let sent: Vec<_> = outgoing
                    .into_iter()
                    .map(|o| enqueue(tx, &mut record, o, now, sending))
                    .collect();
                QUEUES.put(tx, name.as_bytes(), &record)?;
                Ok(sent)
            })
            .await?;
        self.shared.arrivals.signal(&queue.signal_key());
        Ok(sent)
    }
}

/// A batch to a FIFO queue is refused as a whole when an entry lacks its group id, or its
/// deduplication id without content-based deduplication.
fn check_fifo_ids(queue: &QueueRecord, o: &Outgoing) -> Result<(), SqsError> {
    if o.group_id.is_none() {
        return Err(SqsError::invalid_parameter(
            "The request must contain the parameter MessageGroupId.",
        ));
    }
    if o.dedup_id.is_none() && !content_based_deduplication(queue) {
        return Err(missing_deduplication_id());
    }
    Ok(())
}

fn content_based_deduplication(queue: &QueueRecord) -> bool {
    queue
        .attributes
        .get("ContentBasedDeduplication")
        .is_some_and(|v| v == "true")
}

fn missing_deduplication_id() -> SqsError {
    SqsError::invalid_parameter(
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
    )
}

/// AWS's rule for group and deduplication ids: 1 to 128 ASCII letters, digits and
/// punctuation.
fn check_id(parameter: &str, id: Option<&str>) -> Result<(), SqsError> {
    match id {
        Some(id) if !(1..=128).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_graphic()) => {
            Err(SqsError::invalid_value(
                parameter,
                id,
                &format!("{parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length."),
            ))
        }
        _ => Ok(()),
    }
}

/// Checks and stores one message in `queue` (whose sequence counter it advances).
pub(crate) fn enqueue(
    tx: &mut Tx<'_>,
    queue: &mut QueueRecord,
    o: Outgoing,
    now: u64,
    sending: Sending,
) -> Result<Sent, SqsError> {
    if o.body.is_empty() {
        return Err(SqsError::missing("MessageBody"));
    }
    if !message::valid_characters(&o.body) {
        return Err(SqsError::InvalidMessageContents);
    }
    check_id("MessageGroupId", o.group_id.as_deref())?;
    check_id("MessageDeduplicationId", o.dedup_id.as_deref())?;
    let attributes = message::attributes(o.attributes)?;
    let named_trace = message::trace_header(o.system_attributes)?;
    let max = queue.number("MaximumMessageSize");
    if message::size(&o.body, &attributes) as u64 > max {
        let wording = match sending {
            Sending::One => "are invalid",
            Sending::Batch => "cannot be validated",
        };
        return Err(SqsError::invalid_parameter(format!(
            "One or more parameters {wording}. Reason: Message must be shorter than {max} bytes."
        )));
    }
    let fifo = queue.is_fifo();
    let delay = match o.delay_seconds {
        // A FIFO queue has no per-message delay, but takes an explicit 0 (its own delay applies).
        Some(0) if fifo => queue.number("DelaySeconds"),
        Some(d) if fifo => {
            return Err(SqsError::invalid_value(
                "DelaySeconds",
                d,
                "The request include parameter that is not valid for this queue type.",
            ))
        }
        Some(d) => match u64::try_from(d) {
            Ok(d) if d <= 900 => d,
            _ => {
                return Err(SqsError::invalid_value(
                    "DelaySeconds",
                    d,
                    "DelaySeconds must be >= 0 and <= 900.",
                ))
            }
        },
        None => queue.number("DelaySeconds"),
    };
    let md5_of_body = message::md5_hex(o.body.as_bytes());
    let md5_of_attributes = message::attributes_md5(&attributes);
    // Only a trace the message names is in the digest of what it was sent with.
    let md5_of_system_attributes = named_trace.as_ref().and_then(|t| {
        message::attributes_md5(&BTreeMap::from([(
            "AWSTraceHeader".to_owned(),
            Attribute {
                data_type: "String".into(),
                string: Some(t.clone()),
                binary: None,
            },
        )]))
    });
    let sequence = queue.next_sequence;
    let mut dedup = None;
    if fifo {
        let group = o
            .group_id
            .as_deref()
            .ok_or_else(|| SqsError::missing("MessageGroupId"))?;
        let id = match o.dedup_id {
            Some(id) => id,
            None if content_based_deduplication(queue) => {
                use sha2::Digest;
                hex::encode(&Sha256::digest(o.body.as_bytes()))
            }
            None => return Err(missing_deduplication_id()),
        };
        let mut key = queue_prefix(&queue.name);
        if queue
            .attributes
            .get("DeduplicationScope")
            .is_some_and(|s| s == "messageGroup")
        {
            key.extend_from_slice(group.as_bytes());
            key.push(0);
        }
        key.extend_from_slice(id.as_bytes());
        if let Some(earlier) = DEDUP.get(tx, &key)? {
            if earlier.expires_ms > now {
                // A duplicate within the window: accepted, not delivered again.
                return Ok(Sent {
                    message_id: earlier.message_id,
                    md5_of_body,
                    md5_of_attributes,
                    md5_of_system_attributes,
                    sequence_number: Some(message::sequence_number(earlier.sequence)),
                });
            }
        }
        dedup = Some((key, id));
    }
    let stored = StoredMessage {
        id: id::uuid(),
        sequence,
        body: o.body,
        attributes,
        trace_header: named_trace.or(o.request_trace),
        sent_ms: now,
        sender_id: o.sender_id,
        visible_at_ms: now + delay * 1000,
        receive_count: 0,
        first_receive_ms: None,
        receipt_token: 0,
        group_id: o.group_id,
        dedup_id: dedup.as_ref().map(|(_, id)| id.clone()),
        dead_letter_source: None,
    };
    if let Some((key, _)) = dedup {
        let entry = Dedup {
            message_id: stored.id.clone(),
            sequence,
            expires_ms: now + DEDUP_WINDOW_MS,
        };
        DEDUP.put(tx, key, &entry)?;
    }
    queue.next_sequence += 1;
    MESSAGES.put(tx, message_key(&queue.name, sequence), &stored)?;
    Ok(Sent {
        message_id: stored.id,
        md5_of_body,
        md5_of_attributes,
        md5_of_system_attributes,
        sequence_number: fifo.then(|| message::sequence_number(sequence)),
    })
}
