//! Other services' deliveries into queues, through [`MessageSink`].

use stratus_core::service::{BoxFuture, Caller, MessageSink};
use stratus_core::AwsError;

use crate::error::SqsError;
use crate::queue_ref::QueueRef;
use crate::send::Outgoing;
use crate::service::SqsService;

/// Other services' deliveries into queues (S3 event notifications): a plain send, as its
/// sender, with the queue's own delay and deduplication rules.
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
        Box::pin(async move {
            let queue = QueueRef::from_arn(queue_arn)
                .ok_or(SqsError::QueueDoesNotExist)
                .map_err(SqsError::into_aws)?;
            let outgoing = Outgoing {
                body,
                delay_seconds: None,
                attributes: None,
                system_attributes: None,
                dedup_id: None,
                group_id: None,
                sender_id: caller.principal.to_owned(),
            };
            for sent in self.send(&queue, vec![outgoing]).await.map_err(SqsError::into_aws)? {
                sent.map_err(SqsError::into_aws)?;
            }
            Ok(())
        })
    }
}
