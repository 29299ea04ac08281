//! Message operations: send, receive (with long polling), delete and change visibility,
//! one at a time or in batches.

use std::collections::BTreeSet;
use std::time::Duration;

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_sqs::*;

use crate::batch::{check_batch, failed};
use crate::error::SqsError;
use crate::message;
use crate::queue_ref::QueueRef;
use crate::receive::visibility_timeout;
use crate::send::{Outgoing, Sending};
use crate::service::SqsService;

/// The most a batch request may carry in total, whatever the queues' own limits (1 MiB
/// since August 2025).
const MAX_BATCH_BYTES: usize = 1_048_576;

pub(crate) async fn send_message(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: SendMessageRequest,
) -> Result<SendMessageResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let outgoing = Outgoing {
        body: input.message_body,
        delay_seconds: input.delay_seconds,
        attributes: input.message_attributes,
        system_attributes: input.message_system_attributes,
        dedup_id: input.message_deduplication_id,
        group_id: input.message_group_id,
        sender_id: ctx.account_id.clone(),
        request_trace: ctx.trace_header.clone(),
    };
    let sent = sqs
        .send(&queue, vec![outgoing], Sending::One)
        .await?
        .pop()
        .ok_or_else(|| SqsError::Aws(AwsError::internal("a send of one message reported none")))??;
    Ok(SendMessageResult {
        md5_of_message_body: Some(sent.md5_of_body),
        md5_of_message_attributes: sent.md5_of_attributes,
        md5_of_message_system_attributes: sent.md5_of_system_attributes,
        message_id: Some(sent.message_id),
        sequence_number: sent.sequence_number,
    })
}

pub(crate) async fn send_message_batch(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: SendMessageBatchRequest,
) -> Result<SendMessageBatchResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    check_batch(
        input.entries.iter().map(|e| e.id.as_str()),
        "SendMessageBatchRequestEntry",
    )?;
    let total: usize = input
        .entries
        .iter()
        .map(|e| {
            let attributes = message::attributes(e.message_attributes.clone()).unwrap_or_default();
            message::size(&e.message_body, &attributes)
        })
        .sum();
    if total > MAX_BATCH_BYTES {
        return Err(SqsError::BatchRequestTooLong(total));
    }
    let (ids, outgoing): (Vec<String>, Vec<Outgoing>) = input
        .entries
        .into_iter()
        .map(|e| {
            let o = Outgoing {
                body: e.message_body,
                delay_seconds: e.delay_seconds,
                attributes: e.message_attributes,
                system_attributes: e.message_system_attributes,
                dedup_id: e.message_deduplication_id,
                group_id: e.message_group_id,
                sender_id: ctx.account_id.clone(),
                request_trace: ctx.trace_header.clone(),
            };
            (e.id, o)
        })
        .unzip();
    let mut result = SendMessageBatchResult::default();
    for (id, sent) in ids.into_iter().zip(sqs.send(&queue, outgoing, Sending::Batch).await?) {
        match sent {
            Ok(s) => result.successful.push(SendMessageBatchResultEntry {
                id,
                message_id: s.message_id,
                md5_of_message_body: s.md5_of_body,
                md5_of_message_attributes: s.md5_of_attributes,
                md5_of_message_system_attributes: s.md5_of_system_attributes,
                sequence_number: s.sequence_number,
            }),
            Err(e) => result.failed.push(failed(id, e)),
        }
    }
    Ok(result)
}

pub(crate) async fn receive_message(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ReceiveMessageRequest,
) -> Result<ReceiveMessageResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let max = match input.max_number_of_messages.unwrap_or(1) {
        n @ 1..=10 => n as usize,
        n => {
            return Err(SqsError::invalid_value(
                "MaxNumberOfMessages",
                n,
                "Must be between 1 and 10, if provided.",
            ))
        }
    };
    let visibility = input.visibility_timeout.map(visibility_timeout).transpose()?;
    let requested_wait = match input.wait_time_seconds {
        None => None,
        Some(n @ 0..=20) => Some(n as u64),
        Some(n) => {
            return Err(SqsError::invalid_value(
                "WaitTimeSeconds",
                n,
                "Must be >= 0 and <= 20, if provided.",
            ))
        }
    };
    let system: BTreeSet<String> = input
        .attribute_names
        .iter()
        .flatten()
        .map(|n| n.as_str().to_owned())
        .chain(
            input
                .message_system_attribute_names
                .iter()
                .flatten()
                .map(|n| n.as_str().to_owned()),
        )
        .collect();
    let wanted = input.message_attribute_names.unwrap_or_default();
    let clock = sqs.shared.scheduler.clock();
    let queue_wait = sqs.queue(&queue)?.number("ReceiveMessageWaitTimeSeconds");
    let deadline = clock.moment_after(Duration::from_secs(requested_wait.unwrap_or(queue_wait)));
    let (delivered, fifo) = sqs.receive_waiting(&queue, max, visibility, Some(deadline)).await?;
    let messages: Vec<Message> = delivered.iter().map(|m| m.to_message(&system, &wanted, fifo)).collect();
    Ok(ReceiveMessageResult {
        messages: (!messages.is_empty()).then_some(messages),
    })
}

pub(crate) async fn delete_message(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: DeleteMessageRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    sqs.delete_messages(&queue, vec![input.receipt_handle])
        .await?
        .into_iter()
        .collect::<Result<Vec<()>, SqsError>>()?;
    Ok(Unit {})
}

pub(crate) async fn delete_message_batch(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: DeleteMessageBatchRequest,
) -> Result<DeleteMessageBatchResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    check_batch(
        input.entries.iter().map(|e| e.id.as_str()),
        "DeleteMessageBatchRequestEntry",
    )?;
    let (ids, handles): (Vec<String>, Vec<String>) =
        input.entries.into_iter().map(|e| (e.id, e.receipt_handle)).unzip();
    let mut result = DeleteMessageBatchResult::default();
    for (id, outcome) in ids.into_iter().zip(sqs.delete_messages(&queue, handles).await?) {
        match outcome {
            Ok(()) => result.successful.push(DeleteMessageBatchResultEntry { id }),
            Err(e) => result.failed.push(failed(id, e)),
        }
    }
    Ok(result)
}

pub(crate) async fn change_message_visibility(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ChangeMessageVisibilityRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    visibility_timeout(input.visibility_timeout)?;
    sqs.change_visibility(&queue, vec![(input.receipt_handle, input.visibility_timeout)])
        .await?
        .into_iter()
        .collect::<Result<Vec<()>, SqsError>>()?;
    Ok(Unit {})
}

pub(crate) async fn change_message_visibility_batch(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ChangeMessageVisibilityBatchRequest,
) -> Result<ChangeMessageVisibilityBatchResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    check_batch(
        input.entries.iter().map(|e| e.id.as_str()),
        "ChangeMessageVisibilityBatchRequestEntry",
    )?;
    let (ids, changes): (Vec<String>, Vec<(String, i32)>) = input
        .entries
        .into_iter()
        .map(|e| (e.id, (e.receipt_handle, e.visibility_timeout.unwrap_or(0))))
        .unzip();
    let mut result = ChangeMessageVisibilityBatchResult::default();
    for (id, outcome) in ids.into_iter().zip(sqs.change_visibility(&queue, changes).await?) {
        match outcome {
            Ok(()) => result.successful.push(ChangeMessageVisibilityBatchResultEntry { id }),
            Err(e) => result.failed.push(failed(id, e)),
        }
    }
    Ok(result)
}
