//! What other parts of Stratus ask of queues: deliveries into them, through [`MessageSink`],
//! reads from them, through [`QueueSource`], and their policies, through
//! [`ResourcePolicies`].

use std::collections::BTreeSet;

use stratus_core::clock::Moment;
use stratus_core::service::capabilities::{self, MessageAttribute, QueueFacts, QueueMessage, ReceivedMessage};
use stratus_core::service::{BoxFuture, Caller, MessageSink, QueueSource, ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;
use stratus_gen_sqs::MessageAttributeValue;
use stratus_storage::Durability;

use crate::error::SqsError;
use crate::queue::QueueRecord;
use crate::queue_ref::QueueRef;
use crate::send::{Outgoing, Sending};
use crate::service::SqsService;
use crate::store::load_queue;

/// Other services' deliveries into queues (S3 event notifications, SNS subscriptions): a send
/// as its sender, with the queue's own delay and deduplication rules.
impl MessageSink for SqsService {
    fn exists<'a>(&'a self, _caller: Caller<'a>, queue_arn: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            match QueueRef::from_arn(queue_arn) {
                Some(queue) => self.queue_exists(&queue),
                None => false,
            }
        })
    }

    fn send<'a>(&'a self, caller: Caller<'a>, queue_arn: &'a str, body: String) -> BoxFuture<'a, Result<(), AwsError>> {
        self.send_message(caller, queue_arn, QueueMessage::plain(body))
    }

    fn send_message<'a>(
        &'a self,
        caller: Caller<'a>,
        queue_arn: &'a str,
        message: QueueMessage,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let queue = QueueRef::from_arn(queue_arn)
                .ok_or(SqsError::QueueDoesNotExist)
                .map_err(SqsError::into_aws)?;
            let attributes = (!message.attributes.is_empty()).then(|| {
                message
                    .attributes
                    .into_iter()
                    .map(|(name, a)| (name, attribute_value(a)))
                    .collect()
            });
            let outgoing = Outgoing {
                body: message.body,
                delay_seconds: None,
                attributes,
                system_attributes: None,
                dedup_id: message.dedup_id,
                group_id: message.group_id,
                sender_id: caller.principal.to_owned(),
                request_trace: message.trace_header,
            };
            for sent in self
                .send(&queue, vec![outgoing], Sending::One)
                .await
                .map_err(SqsError::into_aws)?
            {
                sent.map_err(SqsError::into_aws)?;
            }
            Ok(())
        })
    }
}

/// Consumers inside Stratus (Lambda's event source mappings): receives as `ReceiveMessage`
/// makes them, waiting on the same arrival signal as long polls.
impl QueueSource for SqsService {
    fn facts<'a>(&'a self, _caller: Caller<'a>, queue_arn: &'a str) -> BoxFuture<'a, Result<QueueFacts, AwsError>> {
        Box::pin(async move {
            let record = self.queue(&arn_queue(queue_arn)?).map_err(SqsError::into_aws)?;
            Ok(QueueFacts {
                fifo: record.is_fifo(),
                visibility_timeout_secs: record.number("VisibilityTimeout"),
            })
        })
    }

    fn receive<'a>(
        &'a self,
        _caller: Caller<'a>,
        queue_arn: &'a str,
        max: usize,
        until: Option<Moment>,
    ) -> BoxFuture<'a, Result<Vec<ReceivedMessage>, AwsError>> {
        Box::pin(async move {
            let queue = arn_queue(queue_arn)?;
            let (delivered, fifo) = self
                .receive_waiting(&queue, max, None, until)
                .await
                .map_err(SqsError::into_aws)?;
            let all = BTreeSet::from(["All".to_owned()]);
            let every = ["All".to_owned()];
            Ok(delivered
                .iter()
                .map(|m| received(m.to_message(&all, &every, fifo)))
                .collect())
        })
    }

    fn delete<'a>(
        &'a self,
        _caller: Caller<'a>,
        queue_arn: &'a str,
        receipt_handles: Vec<String>,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let queue = arn_queue(queue_arn)?;
            for outcome in self
                .delete_messages(&queue, receipt_handles)
                .await
                .map_err(SqsError::into_aws)?
            {
                outcome.map_err(SqsError::into_aws)?;
            }
            Ok(())
        })
    }
}

fn arn_queue(queue_arn: &str) -> Result<QueueRef, AwsError> {
    QueueRef::from_arn(queue_arn)
        .ok_or(SqsError::QueueDoesNotExist)
        .map_err(SqsError::into_aws)
}

/// A received message as a consumer reads it.
fn received(m: stratus_gen_sqs::Message) -> ReceivedMessage {
    let message_attributes = m
        .message_attributes
        .unwrap_or_default()
        .into_iter()
        .map(|(name, v)| {
            let value = match (v.string_value, v.binary_value) {
                (Some(s), _) => capabilities::MessageAttributeValue::String(s),
                (None, b) => capabilities::MessageAttributeValue::Binary(b.unwrap_or_default()),
            };
            let attribute = MessageAttribute {
                data_type: v.data_type,
                value,
            };
            (name, attribute)
        })
        .collect();
    ReceivedMessage {
        message_id: m.message_id.unwrap_or_default(),
        receipt_handle: m.receipt_handle.unwrap_or_default(),
        body: m.body.unwrap_or_default(),
        md5_of_body: m.md5_of_body.unwrap_or_default(),
        attributes: m.attributes.unwrap_or_default(),
        message_attributes,
        md5_of_message_attributes: m.md5_of_message_attributes,
    }
}

/// Another service's message attribute as SendMessage takes it.
fn attribute_value(attribute: MessageAttribute) -> MessageAttributeValue {
    let (string_value, binary_value) = match attribute.value {
        capabilities::MessageAttributeValue::String(s) => (Some(s), None),
        capabilities::MessageAttributeValue::Binary(b) => (None, Some(b)),
    };
    MessageAttributeValue {
        string_value,
        binary_value,
        string_list_values: None,
        binary_list_values: None,
        data_type: attribute.data_type,
    }
}

/// Queue policies, for the gateway to authorize requests on queues.
impl ResourcePolicies for SqsService {
    fn arn_service(&self) -> &'static str {
        "sqs"
    }

    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        Ok(self.queue_of_arn(arn)?.map(|(queue, record)| ResourcePolicy {
            owner_account: queue.account,
            document: record.attributes.get("Policy").cloned(),
        }))
    }

    /// The queue's tags (`aws:ResourceTag/…`).
    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        Ok(self
            .queue_of_arn(arn)?
            .map(|(_, record)| record.tags.into_iter().collect()))
    }
}

impl SqsService {
    /// The queue `arn` names and its record, `None` when there is no such queue.
    fn queue_of_arn(&self, arn: &str) -> Result<Option<(QueueRef, QueueRecord)>, AwsError> {
        let Some(queue) = QueueRef::from_arn(arn) else {
            return Ok(None);
        };
        let store = self
            .shared
            .storage
            .store(&queue.namespace(), Durability::Strict)
            .map_err(|e| SqsError::from(e).into_aws())?;
        match load_queue(&*store, &queue.name) {
            Ok(record) => Ok(Some((queue, record))),
            Err(SqsError::QueueDoesNotExist) => Ok(None),
            Err(e) => Err(e.into_aws()),
        }
    }
}
