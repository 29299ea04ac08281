//! Queue operations: create, find, list, delete, attributes, purge, and the dead-letter
//! source listing.

use std::collections::BTreeMap;

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{RequestContext, Unit};
use stratus_gen_sqs::*;
use stratus_storage::{Direction, KeyRange, Tx};

use crate::error::SqsError;
use crate::message::State;
use crate::moves;
use crate::queue::{self, QueueRecord};
use crate::queue_ref::QueueRef;
use crate::service::SqsService;
use crate::store::{dead_letter_sources, delete_all, load_queue, queue_prefix, DEDUP, DELETED, MESSAGES, QUEUES};

/// How long a purge blocks the next, and a deletion the name's reuse.
const COOL_DOWN_MS: u64 = 60_000;

/// ListQueues' and ListDeadLetterSourceQueues' `MaxResults`.
pub(crate) const MAX_RESULTS: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 1000,
};

pub(crate) const QUEUE_LISTING: Token = Token::for_listing("sqs:ListQueues");
pub(crate) const DEAD_LETTER_SOURCES: Token = Token::for_listing("sqs:ListDeadLetterSourceQueues");

/// A listing's page size: AWS's MaxResults, 1 to 1000 (1000 when not given).
pub(crate) fn page_size(max_results: Option<i32>) -> Result<usize, SqsError> {
    MAX_RESULTS.check(max_results).map_err(|e| {
        SqsError::invalid_value(
            "MaxResults",
            e.asked,
            "MaxResults must be an integer between 1 and 1000.",
        )
    })
}

/// The name a listing continues after, from its NextToken.
pub(crate) fn continuation(listing: Token, token: Option<&str>) -> Result<Option<String>, SqsError> {
    match token {
        None | Some("") => Ok(None),
        Some(token) => listing
            .decode_str(token)
            .map(Some)
            .map_err(|_| SqsError::invalid_parameter("Invalid NextToken value.")),
    }
}

/// The first `limit` of `names` and, when paging was asked for and more remain, the token
/// that continues after them.
pub(crate) fn paginate(
    listing: Token,
    names: Vec<String>,
    limit: usize,
    paging: bool,
) -> (Vec<String>, Option<String>) {
    let (names, more) = take_page(names, limit);
    let token = (paging && more)
        .then(|| names.last().map(|n| listing.encode_str(n)))
        .flatten();
    (names, token)
}

pub(crate) async fn create_queue(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: CreateQueueRequest,
) -> Result<CreateQueueResult, SqsError> {
    let given = input.attributes.unwrap_or_default();
    let now = sqs.now_ms();
    let mut record = QueueRecord::new(&input.queue_name, &given, now / 1000)?;
    record.tags = input.tags.unwrap_or_default();
    queue::check_tags(&record.tags)?;
    let queue = QueueRef {
        account: ctx.account_id.clone(),
        region: ctx.region.clone(),
        name: input.queue_name,
    };
    let target = queue.clone();
    sqs.write(&queue, move |tx| {
        if let Some(existing) = QUEUES.get(tx, &record.name)? {
            return match existing.first_difference(&given) {
                Some(attribute) => Err(SqsError::QueueNameExists(attribute.to_owned())),
                None => Ok(()),
            };
        }
        if let Some(bytes) = tx.get(DELETED, record.name.as_bytes())? {
            let deleted = bytes.try_into().map(u64::from_be_bytes).unwrap_or(0);
            if now < deleted + COOL_DOWN_MS {
                return Err(SqsError::QueueDeletedRecently);
            }
        }
        check_redrive(tx, &record, &target, &given)?;
        QUEUES.put(tx, record.name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateQueueResult {
        queue_url: Some(queue::url(
            ctx.host.as_deref(),
            &queue.region,
            &queue.account,
            &queue.name,
        )),
    })
}

pub(crate) async fn get_queue_url(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: GetQueueUrlRequest,
) -> Result<GetQueueUrlResult, SqsError> {
    let queue = QueueRef {
        account: input
            .queue_owner_aws_account_id
            .unwrap_or_else(|| ctx.account_id.clone()),
        region: ctx.region.clone(),
        name: input.queue_name,
    };
    sqs.queue(&queue)?;
    Ok(GetQueueUrlResult {
        queue_url: Some(queue::url(
            ctx.host.as_deref(),
            &queue.region,
            &queue.account,
            &queue.name,
        )),
    })
}

pub(crate) async fn list_queues(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ListQueuesRequest,
) -> Result<ListQueuesResult, SqsError> {
    let limit = page_size(input.max_results)?;
    let after = continuation(QUEUE_LISTING, input.next_token.as_deref())?;
    let queue = QueueRef {
        account: ctx.account_id.clone(),
        region: ctx.region.clone(),
        name: String::new(),
    };
    let prefix = input.queue_name_prefix.unwrap_or_default();
    let names: Vec<String> = sqs
        .reader(&queue)?
        .scan(
            QUEUES.name(),
            &KeyRange::prefix(prefix.as_bytes()),
            Direction::Forward,
            None,
        )
        .map_err(SqsError::from)?
        .into_iter()
        .map(|(k, _)| String::from_utf8_lossy(&k).into_owned())
        .filter(|n| after.as_ref().is_none_or(|a| n > a))
        .take(limit + 1)
        .collect();
    let (page, next_token) = paginate(QUEUE_LISTING, names, limit, input.max_results.is_some());
    Ok(ListQueuesResult {
        queue_urls: (!page.is_empty()).then(|| {
            page.iter()
                .map(|n| queue::url(ctx.host.as_deref(), &queue.region, &queue.account, n))
                .collect()
        }),
        next_token,
    })
}

pub(crate) async fn delete_queue(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: DeleteQueueRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let name = queue.name.clone();
    let now = sqs.now_ms();
    sqs.write(&queue, move |tx| {
        load_queue(tx, &name)?;
        QUEUES.delete(tx, name.as_bytes());
        tx.put(DELETED, name.as_bytes(), now.to_be_bytes().to_vec());
        for table in [MESSAGES.name(), DEDUP.name(), moves::MOVE_TASKS.name()] {
            delete_all(tx, table, &name)?;
        }
        Ok(())
    })
    .await?;
    sqs.shared.arrivals.remove(&queue.signal_key());
    Ok(Unit {})
}

pub(crate) async fn get_queue_attributes(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: GetQueueAttributesRequest,
) -> Result<GetQueueAttributesResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let record = sqs.queue(&queue)?;
    let names: Vec<String> = input
        .attribute_names
        .unwrap_or_default()
        .iter()
        .map(|n| n.as_str().to_owned())
        .collect();
    if let Some(bad) = names.iter().find(|n| !QueueAttributeName::VALUES.contains(&n.as_str())) {
        return Err(SqsError::invalid_attribute_name(bad));
    }
    let all = names.iter().any(|n| n == "All");
    let wanted = |n: &str| all || names.iter().any(|w| w == n);
    let mut attributes: BTreeMap<String, String> = record
        .reported_attributes()
        .into_iter()
        .filter(|(n, _)| wanted(n))
        .collect();
    if queue::COMPUTED.iter().any(|n| wanted(n)) {
        let now = sqs.now_ms();
        let mut counts = [0u64; 3];
        let messages = MESSAGES
            .scan_prefix(&sqs.reader(&queue)?, queue_prefix(&queue.name))
            .map_err(SqsError::from)?;
        for (_, m) in messages {
            counts[m.state(now) as usize] += 1;
        }
        let computed = [
            (
                "ApproximateNumberOfMessages",
                counts[State::Visible as usize].to_string(),
            ),
            (
                "ApproximateNumberOfMessagesNotVisible",
                counts[State::InFlight as usize].to_string(),
            ),
            (
                "ApproximateNumberOfMessagesDelayed",
                counts[State::Delayed as usize].to_string(),
            ),
            ("CreatedTimestamp", record.created.to_string()),
            ("LastModifiedTimestamp", record.modified.to_string()),
            ("QueueArn", queue.arn()),
        ];
        for (name, value) in computed {
            if wanted(name) {
                attributes.insert(name.to_owned(), value);
            }
        }
    }
    Ok(GetQueueAttributesResult {
        attributes: (!attributes.is_empty()).then_some(attributes),
    })
}

pub(crate) async fn set_queue_attributes(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: SetQueueAttributesRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let name = queue.name.clone();
    let target = queue.clone();
    let now = sqs.now_ms();
    sqs.write(&queue, move |tx| {
        let mut record = load_queue(tx, &name)?;
        record.set(&input.attributes, now / 1000)?;
        check_redrive(tx, &record, &target, &input.attributes)?;
        QUEUES.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn purge_queue(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: PurgeQueueRequest,
) -> Result<Unit, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    let name = queue.name.clone();
    let now = sqs.now_ms();
    sqs.write(&queue, move |tx| {
        let mut record = load_queue(tx, &name)?;
        // AWS allows one purge a minute: the time a purge may take to finish.
        if record.purged_ms.is_some_and(|t| now < t + COOL_DOWN_MS) {
            return Err(SqsError::PurgeQueueInProgress(name));
        }
        record.purged_ms = Some(now);
        QUEUES.put(tx, name.as_bytes(), &record)?;
        // A purge also forgets the deduplication ids: the same id may be sent again at once.
        delete_all(tx, DEDUP.name(), &name)?;
        delete_all(tx, MESSAGES.name(), &name)
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_dead_letter_source_queues(
    sqs: &SqsService,
    ctx: &RequestContext,
    input: ListDeadLetterSourceQueuesRequest,
) -> Result<ListDeadLetterSourceQueuesResult, SqsError> {
    let queue = QueueRef::from_url(ctx, &input.queue_url)?;
    sqs.queue(&queue)?;
    let limit = page_size(input.max_results)?;
    let after = continuation(DEAD_LETTER_SOURCES, input.next_token.as_deref())?;
    let names: Vec<String> = dead_letter_sources(&sqs.reader(&queue)?, &queue.arn())?
        .into_iter()
        .filter(|n| after.as_ref().is_none_or(|a| n > a))
        .collect();
    let (page, next_token) = paginate(DEAD_LETTER_SOURCES, names, limit, input.max_results.is_some());
    Ok(ListDeadLetterSourceQueuesResult {
        queue_urls: page
            .iter()
            .map(|n| queue::url(ctx.host.as_deref(), &queue.region, &queue.account, n))
            .collect(),
        next_token,
    })
}

/// AWS's checks of a `RedrivePolicy` being given to `record` (in the `given` attributes)
/// against the dead-letter queue it names.
pub(crate) fn check_redrive(
    tx: &Tx<'_>,
    record: &QueueRecord,
    queue: &QueueRef,
    given: &BTreeMap<String, String>,
) -> Result<(), SqsError> {
    let Some(text) = given.get("RedrivePolicy").filter(|t| !t.is_empty()) else {
        return Ok(());
    };
    let policy = queue::RedrivePolicy::parse(text)?;
    let invalid = |reason: &str| SqsError::invalid_value("RedrivePolicy", text, reason);
    let target = QueueRef::from_arn(&policy.dead_letter_target_arn)
        .ok_or_else(|| invalid("Only SQS queues are valid resources for deadLetterTargetArn."))?;
    if target.account != queue.account || target.region != queue.region {
        return Err(invalid("Dead-letter target owner should be same as the source."));
    }
    let dlq = load_queue(tx, &target.name).map_err(|_| invalid("Dead letter target does not exist."))?;
    if dlq.is_fifo() != record.is_fifo() {
        return Err(invalid("Dead-letter queue must be same type of queue as the source."));
    }
    if !dlq.allows_redrive_from(&queue.arn()) {
        return Err(invalid(
            "The dead-letter queue's RedriveAllowPolicy does not allow this queue as a source.",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_continue_after_their_own_tokens_only() {
        let token = QUEUE_LISTING.encode_str("jobs-1.fifo");
        assert_eq!(
            continuation(QUEUE_LISTING, Some(&token)).unwrap().as_deref(),
            Some("jobs-1.fifo")
        );
        assert!(continuation(DEAD_LETTER_SOURCES, Some(&token)).is_err());
        assert!(continuation(QUEUE_LISTING, Some("zz")).is_err());
        assert_eq!(continuation(QUEUE_LISTING, Some("")).unwrap(), None);
    }
}
