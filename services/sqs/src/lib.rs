//! Amazon Simple Queue Service: durable standard and FIFO queues.
//!
//! State lives in the `sqs` store of each account and region, written with strict
//! durability: a message is on disk before `SendMessage` answers. Tables:
//!
//! - `queues`: [`queue::QueueRecord`] by queue name;
//! - `messages`: [`message::StoredMessage`] by queue name, a zero byte and the message's
//!   sequence number (big-endian), so a queue's messages scan in sending order;
//! - `dedup`: FIFO deduplication ids by queue name, a zero byte, (group id, zero byte,) id.
//!
//! Nothing runs in the background. Visibility timeouts and delays are deadlines compared
//! with the service's clock when a receive looks at a message; retention is enforced the same
//! way. Long polling waits on the queue's arrival signal and a deadline on the scheduler
//! ([`wait`]), as does a rate-limited message move task between batches.
//!
//! Queue URLs are minted from the request's Host (`http://HOST/ACCOUNT/NAME`), so a returned
//! URL works as given; requests are accepted with any URL whose last two path segments are
//! the account and the queue name.

mod batch;
mod delivery;
mod error;
mod message;
mod moves;
mod ops;
mod permissions;
mod queue;
mod queue_ref;
mod receive;
mod send;
mod service;
mod store;
mod wait;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_core::{RequestContext, Unit};
use stratus_gen_sqs::*;
use stratus_storage::Storage;

pub use crate::service::SqsService;

/// Builds SQS when the binary serves it; its queues are the
/// [`MessageSink`](stratus_core::service::MessageSink) other services
/// deliver into.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sqs = SqsService::new(env.storage.clone(), env.scheduler.clone());
    Registration {
        handlers: vec![Arc::new(Handler(sqs.clone()))],
        provides: Providers {
            messages: Some(Arc::new(sqs)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

impl Sqs for SqsService {
    async fn create_queue(
        &self,
        ctx: &RequestContext,
        input: CreateQueueRequest,
    ) -> Result<CreateQueueResult, CreateQueueError> {
        Ok(ops::queues::create_queue(self, ctx, input).await?)
    }
    async fn get_queue_url(
        &self,
        ctx: &RequestContext,
        input: GetQueueUrlRequest,
    ) -> Result<GetQueueUrlResult, GetQueueUrlError> {
        Ok(ops::queues::get_queue_url(self, ctx, input).await?)
    }
    async fn list_queues(
        &self,
        ctx: &RequestContext,
        input: ListQueuesRequest,
    ) -> Result<ListQueuesResult, ListQueuesError> {
        Ok(ops::queues::list_queues(self, ctx, input).await?)
    }
    async fn delete_queue(&self, ctx: &RequestContext, input: DeleteQueueRequest) -> Result<Unit, DeleteQueueError> {
        Ok(ops::queues::delete_queue(self, ctx, input).await?)
    }
    async fn get_queue_attributes(
        &self,
        ctx: &RequestContext,
        input: GetQueueAttributesRequest,
    ) -> Result<GetQueueAttributesResult, GetQueueAttributesError> {
        Ok(ops::queues::get_queue_attributes(self, ctx, input).await?)
    }
    async fn set_queue_attributes(
        &self,
        ctx: &RequestContext,
        input: SetQueueAttributesRequest,
    ) -> Result<Unit, SetQueueAttributesError> {
        Ok(ops::queues::set_queue_attributes(self, ctx, input).await?)
    }
    async fn purge_queue(&self, ctx: &RequestContext, input: PurgeQueueRequest) -> Result<Unit, PurgeQueueError> {
        Ok(ops::queues::purge_queue(self, ctx, input).await?)
    }
    async fn list_dead_letter_source_queues(
        &self,
        ctx: &RequestContext,
        input: ListDeadLetterSourceQueuesRequest,
    ) -> Result<ListDeadLetterSourceQueuesResult, ListDeadLetterSourceQueuesError> {
        Ok(ops::queues::list_dead_letter_source_queues(self, ctx, input).await?)
    }
    async fn send_message(
        &self,
        ctx: &RequestContext,
        input: SendMessageRequest,
    ) -> Result<SendMessageResult, SendMessageError> {
        Ok(ops::messages::send_message(self, ctx, input).await?)
    }
    async fn send_message_batch(
        &self,
        ctx: &RequestContext,
        input: SendMessageBatchRequest,
    ) -> Result<SendMessageBatchResult, SendMessageBatchError> {
        Ok(ops::messages::send_message_batch(self, ctx, input).await?)
    }
    async fn receive_message(
        &self,
        ctx: &RequestContext,
        input: ReceiveMessageRequest,
    ) -> Result<ReceiveMessageResult, ReceiveMessageError> {
        Ok(ops::messages::receive_message(self, ctx, input).await?)
    }
    async fn delete_message(
        &self,
        ctx: &RequestContext,
        input: DeleteMessageRequest,
    ) -> Result<Unit, DeleteMessageError> {
        Ok(ops::messages::delete_message(self, ctx, input).await?)
    }
    async fn delete_message_batch(
        &self,
        ctx: &RequestContext,
        input: DeleteMessageBatchRequest,
    ) -> Result<DeleteMessageBatchResult, DeleteMessageBatchError> {
        Ok(ops::messages::delete_message_batch(self, ctx, input).await?)
    }
    async fn change_message_visibility(
        &self,
        ctx: &RequestContext,
        input: ChangeMessageVisibilityRequest,
    ) -> Result<Unit, ChangeMessageVisibilityError> {
        Ok(ops::messages::change_message_visibility(self, ctx, input).await?)
    }
    async fn change_message_visibility_batch(
        &self,
        ctx: &RequestContext,
        input: ChangeMessageVisibilityBatchRequest,
    ) -> Result<ChangeMessageVisibilityBatchResult, ChangeMessageVisibilityBatchError> {
        Ok(ops::messages::change_message_visibility_batch(self, ctx, input).await?)
    }
    async fn tag_queue(&self, ctx: &RequestContext, input: TagQueueRequest) -> Result<Unit, TagQueueError> {
        Ok(ops::tags::tag_queue(self, ctx, input).await?)
    }
    async fn untag_queue(&self, ctx: &RequestContext, input: UntagQueueRequest) -> Result<Unit, UntagQueueError> {
        Ok(ops::tags::untag_queue(self, ctx, input).await?)
    }
    async fn list_queue_tags(
        &self,
        ctx: &RequestContext,
        input: ListQueueTagsRequest,
    ) -> Result<ListQueueTagsResult, ListQueueTagsError> {
        Ok(ops::tags::list_queue_tags(self, ctx, input).await?)
    }
    async fn add_permission(
        &self,
        ctx: &RequestContext,
        input: AddPermissionRequest,
    ) -> Result<Unit, AddPermissionError> {
        Ok(ops::permissions::add_permission(self, ctx, input).await?)
    }
    async fn remove_permission(
        &self,
        ctx: &RequestContext,
        input: RemovePermissionRequest,
    ) -> Result<Unit, RemovePermissionError> {
        Ok(ops::permissions::remove_permission(self, ctx, input).await?)
    }
    async fn start_message_move_task(
        &self,
        ctx: &RequestContext,
        input: StartMessageMoveTaskRequest,
    ) -> Result<StartMessageMoveTaskResult, StartMessageMoveTaskError> {
        Ok(ops::move_tasks::start_message_move_task(self, ctx, input).await?)
    }
    async fn cancel_message_move_task(
        &self,
        ctx: &RequestContext,
        input: CancelMessageMoveTaskRequest,
    ) -> Result<CancelMessageMoveTaskResult, CancelMessageMoveTaskError> {
        Ok(ops::move_tasks::cancel_message_move_task(self, ctx, input).await?)
    }
    async fn list_message_move_tasks(
        &self,
        ctx: &RequestContext,
        input: ListMessageMoveTasksRequest,
    ) -> Result<ListMessageMoveTasksResult, ListMessageMoveTasksError> {
        Ok(ops::move_tasks::list_message_move_tasks(self, ctx, input).await?)
    }
}
