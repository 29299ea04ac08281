//! What other parts of Stratus ask of queues: deliveries into them, through [`MessageSink`],
//! and their policies, through [`ResourcePolicies`].

use stratus_core::service::capabilities::{self, MessageAttribute, QueueMessage};
use stratus_core::service::{BoxFuture, Caller, MessageSink, ResourcePolicies, ResourcePolicy};
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
