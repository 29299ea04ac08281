//! Publish and PublishBatch.

use std::collections::HashSet;

use stratus_core::{id, RequestContext};
use stratus_gen_sns::*;

use crate::error::{batch, invalid_parameter, SnsError};
use crate::messages::{self, MAX_SIZE};
use crate::names::TopicRef;
use crate::ops::{endpoint_of, platform};
use crate::publish::Outgoing;
use crate::service::SnsService;
use crate::subscriptions::valid_e164;

pub(crate) async fn publish(
    sns: &SnsService,
    ctx: &RequestContext,
    input: PublishInput,
) -> Result<PublishResponse, SnsError> {
    let topic = match (&input.topic_arn, &input.target_arn, &input.phone_number) {
        (Some(arn), _, _) => TopicRef::parse(ctx, "TopicArn", arn)?,
        (None, Some(arn), _) if is_endpoint(arn) => {
            if !platform::endpoint_exists(sns, ctx, arn)? {
                return Err(invalid_parameter(
                    "TargetArn Reason: No endpoint found for the target arn specified",
                ));
            }
            // Mobile pushes are accepted and not sent.
            return accepted_unsent(input);
        }
        (None, Some(arn), _) => TopicRef::parse(ctx, "TargetArn", arn)?,
        (None, None, Some(number)) => {
            if !valid_e164(number) {
                return Err(invalid_parameter(format!(
                    "PhoneNumber Reason: {number} is not valid to publish to"
                )));
            }
            // Text messages are accepted and not sent.
            return accepted_unsent(input);
        }
        (None, None, None) => {
            return Err(invalid_parameter(
                "TopicArn or TargetArn Reason: no value for required parameter",
            ))
        }
    };
    let message = messages::check(
        input.message,
        input.subject,
        input.message_structure.as_deref(),
        input.message_attributes,
    )?;
    let outgoing = Outgoing {
        message,
        group_id: input.message_group_id,
        dedup_id: input.message_deduplication_id,
    };
    let mut published = sns.publish_all(&topic, endpoint_of(ctx), vec![outgoing]).await?;
    let p = published
        .pop()
        .ok_or_else(|| SnsError(stratus_core::AwsError::internal("nothing published")))?;
    Ok(PublishResponse {
        message_id: Some(p.message_id),
        sequence_number: p.sequence_number,
    })
}

/// A message to a phone number or mobile endpoint: checked as any other, then given an id
/// and not sent.
fn accepted_unsent(input: PublishInput) -> Result<PublishResponse, SnsError> {
    messages::check(
        input.message,
        input.subject,
        input.message_structure.as_deref(),
        input.message_attributes,
    )?;
    Ok(PublishResponse {
        message_id: Some(id::uuid()),
        sequence_number: None,
    })
}

/// Whether a `TargetArn` names a mobile endpoint rather than a topic.
fn is_endpoint(arn: &str) -> bool {
    arn.split(':').nth(5).is_some_and(|r| r.starts_with("endpoint/"))
}

/// A batch entry id: 1 to 80 letters, digits, hyphens and underscores.
fn check_entry_id(id: &str) -> Result<(), SnsError> {
    if id.len() > 80 {
        return Err(batch(
            "InvalidBatchEntryId",
            format!("The Id of a batch entry in the batch request is too long: {id}"),
        ));
    }
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(batch(
            "InvalidBatchEntryId",
            format!("The Id of a batch entry in the batch request contains an impermissible character: {id}"),
        ));
    }
    Ok(())
}

pub(crate) async fn publish_batch(
    sns: &SnsService,
    ctx: &RequestContext,
    input: PublishBatchInput,
) -> Result<PublishBatchResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let entries = input.publish_batch_request_entries;
    if entries.is_empty() {
        return Err(batch(
            "EmptyBatchRequest",
            "The batch request doesn't contain any entries.",
        ));
    }
    if entries.len() > 10 {
        return Err(batch(
            "TooManyEntriesInBatchRequest",
            "The batch request contains more entries than permissible.",
        ));
    }
    let mut ids = HashSet::new();
    for entry in &entries {
        if !ids.insert(entry.id.as_str()) {
            return Err(batch(
                "BatchEntryIdsNotDistinct",
                "Two or more batch entries in the request have the same Id.",
            ));
        }
        check_entry_id(&entry.id)?;
    }
    let mut total = 0;
    let mut checked = Vec::with_capacity(entries.len());
    for entry in entries {
        let message = messages::check(
            entry.message,
            entry.subject,
            entry.message_structure.as_deref(),
            entry.message_attributes,
        )?;
        total += messages::size(&message.message, &message.attributes);
        checked.push((
            entry.id,
            Outgoing {
                message,
                group_id: entry.message_group_id,
                dedup_id: entry.message_deduplication_id,
            },
        ));
    }
    if total > MAX_SIZE {
        return Err(batch(
            "BatchRequestTooLong",
            "The length of all the messages put together is more than the limit.",
        ));
    }
    let (ids, outgoing): (Vec<String>, Vec<Outgoing>) = checked.into_iter().unzip();
    let published = sns.publish_all(&topic, endpoint_of(ctx), outgoing).await?;
    let successful = ids
        .into_iter()
        .zip(published)
        .map(|(id, p)| PublishBatchResultEntry {
            id: Some(id),
            message_id: Some(p.message_id),
            sequence_number: p.sequence_number,
        })
        .collect();
    Ok(PublishBatchResponse {
        successful: Some(successful),
        failed: Some(Vec::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_checked_in_aws_words() {
        assert!(check_entry_id("ok-1_2").is_ok());
        let e = check_entry_id("message.id").unwrap_err();
        assert_eq!(
            e.0.message,
            "The Id of a batch entry in the batch request contains an impermissible character: message.id"
        );
        let long = "a".repeat(81);
        assert!(check_entry_id(&long).unwrap_err().0.message.contains("is too long"));
    }
}
