//! Enhanced fan-out consumers: RegisterStreamConsumer, DescribeStreamConsumer,
//! ListStreamConsumers, DeregisterStreamConsumer.
//!
//! A consumer is `CREATING` in RegisterStreamConsumer's answer, as on AWS, and `ACTIVE` from
//! then on: Stratus has nothing to provision.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, DateTime, RequestContext, Unit};
use stratus_gen_kinesis::*;
use stratus_storage::Read;

use crate::error::{in_use, invalid_argument, limit_exceeded, not_found, Result};
use crate::ops::tags::check_new_tags;
use crate::service::{consumer_arn, of_consumer_arn, KinesisService, StreamAt};
use crate::store::{consumer_key, stream_key, ConsumerRecord, CONSUMERS};

/// Consumers one stream may have (Kinesis Data Streams quotas).
const MAX_CONSUMERS: usize = 20;
const CONSUMER_LISTING: Token = Token::for_listing("kinesis:ListStreamConsumers");
const CONSUMERS_PAGE: PageSize = PageSize {
    min: 1,
    max: 10_000,
    default: 100,
};

/// The consumer `name` of the stream `at`, or AWS's refusal.
pub(crate) fn find(r: &(impl Read + ?Sized), at: &StreamAt, name: &str) -> Result<ConsumerRecord> {
    CONSUMERS
        .get(r, consumer_key(&at.name, name))?
        .ok_or_else(|| not_found(format!("Consumer {name}, account {} not found.", at.account)))
}

/// The consumer a request names: by `ConsumerARN`, or by `StreamARN` and `ConsumerName`.
pub(crate) fn named(stream_arn: Option<&str>, name: Option<&str>, arn: Option<&str>) -> Result<(StreamAt, String)> {
    match (arn, stream_arn, name) {
        (Some(arn), _, _) => of_consumer_arn(arn),
        (None, Some(stream), Some(name)) => Ok((StreamAt::of_arn(stream)?, name.to_owned())),
        _ => Err(invalid_argument(
            "Either ConsumerARN or both StreamARN and ConsumerName must be provided.",
        )),
    }
}

/// Loads the consumer, checking that an ARN's creation time is this consumer's (a consumer
/// registered again under the same name has a new ARN).
fn load(r: &(impl Read + ?Sized), at: &StreamAt, name: &str, arn: Option<&str>) -> Result<ConsumerRecord> {
    at.load(r)?;
    let consumer = find(r, at, name)?;
    if arn.is_some_and(|arn| arn != consumer_arn(at, name, consumer.created_ms)) {
        return Err(not_found(format!("Consumer {name}, account {} not found.", at.account)));
    }
    Ok(consumer)
}

pub(crate) async fn register_stream_consumer(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: RegisterStreamConsumerInput,
) -> Result<RegisterStreamConsumerOutput, AwsError> {
    let at = StreamAt::of_arn(&input.stream_arn)?;
    let name = input.consumer_name;
    let tags = input.tags.unwrap_or_default();
    check_new_tags(&tags, &name, &at.account)?;
    let now = ctx.clock.epoch_millis();
    let write_at = at.clone();
    let record = kinesis
        .transact(&at.account, &at.region, move |tx| {
            let at = write_at;
            at.load(&*tx)?;
            if CONSUMERS.get(&*tx, consumer_key(&at.name, &name))?.is_some() {
                return Err(in_use(format!(
                    "Consumer {name} under stream {} already exists for account {}.",
                    at.name, at.account
                )));
            }
            if CONSUMERS.scan_prefix(&*tx, stream_key(&at.name))?.len() >= MAX_CONSUMERS {
                return Err(limit_exceeded(format!(
                    "Stream {} under account {} already has {MAX_CONSUMERS} registered consumers.",
                    at.name, at.account
                )));
            }
            let record = ConsumerRecord {
                name: name.clone(),
                created_ms: now,
                tags,
                policy: None,
            };
            CONSUMERS.put(tx, consumer_key(&at.name, &name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(RegisterStreamConsumerOutput {
        consumer: Consumer {
            consumer_arn: consumer_arn(&at, &record.name, record.created_ms),
            consumer_name: record.name,
            consumer_status: ConsumerStatus::Creating,
            consumer_creation_timestamp: DateTime::from_millis(record.created_ms),
        },
    })
}

pub(crate) async fn describe_stream_consumer(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: DescribeStreamConsumerInput,
) -> Result<DescribeStreamConsumerOutput, AwsError> {
    let (at, name) = named(
        input.stream_arn.as_deref(),
        input.consumer_name.as_deref(),
        input.consumer_arn.as_deref(),
    )?;
    let (read_at, arn) = (at.clone(), input.consumer_arn);
    let consumer = kinesis
        .read(&at.account, &at.region, move |store| {
            load(store, &read_at, &name, arn.as_deref())
        })
        .await?;
    Ok(DescribeStreamConsumerOutput {
        consumer_description: ConsumerDescription {
            consumer_arn: consumer_arn(&at, &consumer.name, consumer.created_ms),
            consumer_name: consumer.name,
            consumer_status: ConsumerStatus::Active,
            consumer_creation_timestamp: DateTime::from_millis(consumer.created_ms),
            stream_arn: at.arn(),
        },
    })
}

pub(crate) async fn list_stream_consumers(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: ListStreamConsumersInput,
) -> Result<ListStreamConsumersOutput, AwsError> {
    let at = StreamAt::of_arn(&input.stream_arn)?;
    let size = CONSUMERS_PAGE
        .check(input.max_results)
        .map_err(|_| invalid_argument("MaxResults must be between 1 and 10000."))?;
    let after = match input.next_token.as_deref() {
        Some(token) => Some(
            CONSUMER_LISTING
                .decode_str(token)
                .map_err(|_| invalid_argument("Invalid NextToken."))?,
        ),
        None => None,
    };
    let read_at = at.clone();
    let consumers = kinesis
        .read(&at.account, &at.region, move |store| {
            read_at.load(store)?;
            Ok(CONSUMERS.scan_prefix(store, stream_key(&read_at.name))?)
        })
        .await?;
    let listed = consumers
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| after.as_ref().is_none_or(|a| &c.name > a));
    let (page, more) = take_page(listed, size);
    let next_token = match (more, page.last()) {
        (true, Some(last)) => Some(CONSUMER_LISTING.encode_str(&last.name)),
        _ => None,
    };
    Ok(ListStreamConsumersOutput {
        consumers: Some(
            page.into_iter()
                .map(|c| Consumer {
                    consumer_arn: consumer_arn(&at, &c.name, c.created_ms),
                    consumer_name: c.name,
                    consumer_status: ConsumerStatus::Active,
                    consumer_creation_timestamp: DateTime::from_millis(c.created_ms),
                })
                .collect(),
        ),
        next_token,
    })
}

pub(crate) async fn deregister_stream_consumer(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: DeregisterStreamConsumerInput,
) -> Result<Unit, AwsError> {
    let (at, name) = named(
        input.stream_arn.as_deref(),
        input.consumer_name.as_deref(),
        input.consumer_arn.as_deref(),
    )?;
    let arn = input.consumer_arn;
    kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            load(&*tx, &at, &name, arn.as_deref())?;
            CONSUMERS.delete(tx, consumer_key(&at.name, &name));
            Ok(Unit {})
        })
        .await
}
