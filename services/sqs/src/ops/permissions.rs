//! AddPermission and RemovePermission: statements of the queue's `Policy` attribute.

use stratus_core::{RequestContext, Unit};
use stratus_gen_sqs::*;

use crate::error::SqsError;
use crate::permissions;
use crate::queue_ref::QueueRef;
use crate::service::SqsService;

pub(crate) async fn add_permission(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: AddPermissionRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let arn = queue.arn();
    sqs.update_queue(&queue, move |record| {
        let policy = permissions::add(
            record.attributes.get("Policy").map(String::as_str),
            &arn,
            &input.label,
            &input.aws_account_ids,
            &input.actions,
        )?;
        record.attributes.insert("Policy".into(), policy);
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn remove_permission(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: RemovePermissionRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let arn = queue.arn();
    sqs.update_queue(&queue, move |record| {
        match permissions::remove(record.attributes.get("Policy").map(String::as_str), &arn, &input.label)? {
            Some(policy) => record.attributes.insert("Policy".into(), policy),
            None => record.attributes.remove("Policy"),
        };
        Ok(())
    })
    .await?;
    Ok(Unit {})
}
