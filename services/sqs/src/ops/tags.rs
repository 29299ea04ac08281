//! Queue tags.

use stratus_core::{RequestContext, Unit};
use stratus_gen_sqs::*;

use crate::error::SqsError;
use crate::queue;
use crate::queue_ref::QueueRef;
use crate::service::SqsService;

pub(crate) async fn tag_queue(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: TagQueueRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    sqs.update_queue(&queue, move |record| {
        let mut tags = record.tags.clone();
        tags.extend(input.tags);
        queue::check_tags(&tags)?;
        record.tags = tags;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn untag_queue(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: UntagQueueRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    sqs.update_queue(&queue, move |record| {
        for key in &input.tag_keys {
            record.tags.remove(key);
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_queue_tags(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ListQueueTagsRequest,
) -> Result<ListQueueTagsResult, SqsError> {
    let record = sqs.queue(&QueueRef::from_url(ctx, &input.queue_url)?)?;
    Ok(ListQueueTagsResult {
        tags: (!record.tags.is_empty()).then_some(record.tags),
    })
}
