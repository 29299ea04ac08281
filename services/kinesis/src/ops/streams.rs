//! Streams: CreateStream, DeleteStream, DescribeStream(Summary), ListStreams, DescribeLimits,
//! UpdateStreamMode, the retention period and enhanced monitoring.

use std::collections::BTreeSet;

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, DateTime, RequestContext, Unit};
use stratus_gen_kinesis::*;
use stratus_storage::{Direction, KeyRange, Read};

use crate::error::{in_use, invalid_argument, limit_exceeded, Result};
use crate::ops::shard_view;
use crate::ops::tags::check_new_tags;
use crate::service::{stream_arn, KinesisService, StreamAt};
use crate::store::{shard_index, stream_key, StreamRecord, CONSUMERS, RECORDS, STREAMS};

/// The shards an on-demand stream starts with (API reference, StreamModeDetails).
const ON_DEMAND_SHARDS: u32 = 4;
/// On-demand streams an account may have in a region (DescribeLimits).
const ON_DEMAND_STREAM_LIMIT: i32 = 50;
const MIN_RETENTION_HOURS: i32 = 24;
const MAX_RETENTION_HOURS: i32 = 8760;

const STREAM_LISTING: Token = Token::for_listing("kinesis:ListStreams");
const STREAMS_PAGE: PageSize = PageSize {
    min: 1,
    max: 10_000,
    default: 100,
};
const SHARDS_PAGE: PageSize = PageSize {
    min: 1,
    max: 10_000,
    default: 100,
};

/// The shards an account may have open in `region`: 500 in us-east-1, us-west-2 and
/// eu-west-1, 200 elsewhere (Kinesis Data Streams quotas).
pub(crate) fn shard_limit(region: &str) -> i32 {
    match region {
        "us-east-1" | "us-west-2" | "eu-west-1" => 500,
        _ => 200,
    }
}

/// The open shards of every stream in the store, and how many streams are on-demand.
pub(crate) fn account_usage(r: &(impl Read + ?Sized)) -> Result<(i32, i32)> {
    let (mut shards, mut on_demand) = (0, 0);
    for (_, stream) in STREAMS.scan_prefix(r, [])? {
        shards += stream.open_shard_count();
        on_demand += i32::from(stream.mode == "ON_DEMAND");
    }
    Ok((shards, on_demand))
}

/// Refuses `added` more open shards past the account's limit, in AWS's words.
pub(crate) fn check_shard_limit(r: &(impl Read + ?Sized), at: &StreamAt, added: i32) -> Result<()> {
    let (open, _) = account_usage(r)?;
    let limit = shard_limit(&at.region);
    if open + added > limit {
        return Err(limit_exceeded(format!(
            "This request would exceed the shard limit for the account {} in {}. Current shard count for the account: {open}. Limit: {limit}. Number of additional shards that would have resulted from this request: {added}. Refer to the AWS Service Limits page (https://docs.aws.amazon.com/general/latest/gr/aws_service_limits.html) for current limits and how to request higher limits.",
            at.account, at.region
        )));
    }
    Ok(())
}

pub(crate) async fn create_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: CreateStreamInput,
) -> Result<Unit, AwsError> {
    let mode = input
        .stream_mode_details
        .map(|d| d.stream_mode)
        .unwrap_or(match input.shard_count {
            Some(_) => StreamMode::Provisioned,
            None => StreamMode::OnDemand,
        });
    let count = match (&mode, input.shard_count) {
        (StreamMode::OnDemand, None) => ON_DEMAND_SHARDS,
        (StreamMode::OnDemand, Some(_)) => {
            return Err(invalid_argument("ShardCount is not supported for streams in ON_DEMAND mode.").into())
        }
        (_, Some(count)) => u32::try_from(count).map_err(|_| invalid_argument("ShardCount must be positive."))?,
        (_, None) => return Err(invalid_argument("ShardCount is required for streams in PROVISIONED mode.").into()),
    };
    let tags = input.tags.unwrap_or_default();
    check_new_tags(&tags, &input.stream_name, &ctx.account_id)?;
    let at = StreamAt::named(ctx, Some(&input.stream_name), None)?;
    let now = ctx.clock.epoch_millis();
    kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            if STREAMS.get(&*tx, at.name.as_bytes())?.is_some() {
                return Err(in_use(format!(
                    "Stream {} under account {} already exists.",
                    at.name, at.account
                )));
            }
            let added = i32::try_from(count).unwrap_or(i32::MAX);
            check_shard_limit(&*tx, &at, added)?;
            if mode == StreamMode::OnDemand && account_usage(&*tx)?.1 >= ON_DEMAND_STREAM_LIMIT {
                return Err(limit_exceeded(format!(
                    "This request would exceed the on-demand stream limit for the account {} in {}.",
                    at.account, at.region
                )));
            }
            let mut stream = StreamRecord::new(&at.name, mode.as_str(), count, now);
            stream.tags = tags;
            STREAMS.put(tx, at.name.as_bytes(), &stream)?;
            Ok(Unit {})
        })
        .await
}

pub(crate) async fn delete_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: DeleteStreamInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let enforce = input.enforce_consumer_deletion.unwrap_or(false);
    kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            at.load(&*tx)?;
            let prefix = stream_key(&at.name);
            let consumers = tx.scan(CONSUMERS.name(), &KeyRange::prefix(&prefix), Direction::Forward, None)?;
            if !consumers.is_empty() && !enforce {
                return Err(in_use(format!(
                    "Stream {} under account {} has registered consumers. Set EnforceConsumerDeletion to true to delete the stream and its consumers.",
                    at.name, at.account
                )));
            }
            for (key, _) in consumers {
                CONSUMERS.delete(tx, key);
            }
            for (key, _) in tx.scan(RECORDS.name(), &KeyRange::prefix(&prefix), Direction::Forward, None)? {
                RECORDS.delete(tx, key);
            }
            STREAMS.delete(tx, at.name.as_bytes());
            Ok(Unit {})
        })
        .await
}

pub(crate) async fn describe_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: DescribeStreamInput,
) -> Result<DescribeStreamOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let size = SHARDS_PAGE
        .check(input.limit)
        .map_err(|_| invalid_argument("Limit must be between 1 and 10000."))?;
    let after = input
        .exclusive_start_shard_id
        .as_deref()
        .map(|id| shard_index(id).unwrap_or(0));
    let read_at = at.clone();
    let stream = kinesis
        .read(&at.account, &at.region, move |store| read_at.load(store))
        .await?;
    let shards = stream
        .shards
        .iter()
        .filter(|s| after.is_none_or(|a| s.index > a))
        .map(shard_view);
    let (shards, has_more_shards) = take_page(shards, size);
    let summary = summary_of(&at, &stream, 0);
    Ok(DescribeStreamOutput {
        stream_description: StreamDescription {
            stream_name: summary.stream_name,
            stream_arn: summary.stream_arn,
            stream_status: summary.stream_status,
            stream_mode_details: summary.stream_mode_details,
            shards,
            has_more_shards,
            retention_period_hours: summary.retention_period_hours,
            stream_creation_timestamp: summary.stream_creation_timestamp,
            enhanced_monitoring: summary.enhanced_monitoring,
            encryption_type: summary.encryption_type,
            key_id: summary.key_id,
        },
    })
}

fn summary_of(at: &StreamAt, stream: &StreamRecord, consumers: i32) -> StreamDescriptionSummary {
    StreamDescriptionSummary {
        stream_name: stream.name.clone(),
        stream_arn: at.arn(),
        stream_status: StreamStatus::Active,
        stream_mode_details: Some(stream.mode_details()),
        retention_period_hours: stream.retention_hours,
        stream_creation_timestamp: DateTime::from_millis(stream.created_ms),
        enhanced_monitoring: vec![EnhancedMetrics {
            shard_level_metrics: Some(stream.metrics.iter().map(|m| MetricsName::from_wire(m)).collect()),
        }],
        encryption_type: Some(stream.encryption()),
        key_id: stream.key_id.clone(),
        open_shard_count: stream.open_shard_count(),
        consumer_count: Some(consumers),
    }
}

pub(crate) async fn describe_stream_summary(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: DescribeStreamSummaryInput,
) -> Result<DescribeStreamSummaryOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let read_at = at.clone();
    let (stream, consumers) = kinesis
        .read(&at.account, &at.region, move |store| {
            let stream = read_at.load(store)?;
            let consumers = CONSUMERS.scan_prefix(store, stream_key(&read_at.name))?.len();
            Ok((stream, consumers))
        })
        .await?;
    let consumers = i32::try_from(consumers).unwrap_or(i32::MAX);
    Ok(DescribeStreamSummaryOutput {
        stream_description_summary: summary_of(&at, &stream, consumers),
    })
}

pub(crate) async fn list_streams(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: ListStreamsInput,
) -> Result<ListStreamsOutput, AwsError> {
    let size = STREAMS_PAGE
        .check(input.limit)
        .map_err(|_| invalid_argument("Limit must be between 1 and 10000."))?;
    let after = match input.next_token.as_deref() {
        Some(token) => Some(
            STREAM_LISTING
                .decode_str(token)
                .map_err(|_| invalid_argument("Invalid NextToken."))?,
        ),
        None => input.exclusive_start_stream_name,
    };
    let streams = kinesis
        .read(&ctx.account_id, &ctx.region, move |store| {
            let range = match &after {
                Some(name) => KeyRange::between(std::ops::Bound::Excluded(name.as_bytes()), std::ops::Bound::Unbounded),
                None => KeyRange::all(),
            };
            Ok(STREAMS.scan(store, &range, Direction::Forward, Some(size + 1))?)
        })
        .await?;
    let (page, has_more_streams) = take_page(streams.into_iter().map(|(_, s)| s), size);
    let next_token = match (has_more_streams, page.last()) {
        (true, Some(last)) => Some(STREAM_LISTING.encode_str(&last.name)),
        _ => None,
    };
    Ok(ListStreamsOutput {
        stream_names: page.iter().map(|s| s.name.clone()).collect(),
        has_more_streams,
        next_token,
        stream_summaries: Some(
            page.iter()
                .map(|s| StreamSummary {
                    stream_name: s.name.clone(),
                    stream_arn: stream_arn(&ctx.region, &ctx.account_id, &s.name),
                    stream_status: StreamStatus::Active,
                    stream_mode_details: Some(s.mode_details()),
                    stream_creation_timestamp: Some(DateTime::from_millis(s.created_ms)),
                })
                .collect(),
        ),
    })
}

pub(crate) async fn describe_limits(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    _input: DescribeLimitsInput,
) -> Result<DescribeLimitsOutput, AwsError> {
    let (open, on_demand) = kinesis
        .read(&ctx.account_id, &ctx.region, |store| account_usage(store))
        .await?;
    Ok(DescribeLimitsOutput {
        shard_limit: shard_limit(&ctx.region),
        open_shard_count: open,
        on_demand_stream_count: on_demand,
        on_demand_stream_count_limit: ON_DEMAND_STREAM_LIMIT,
    })
}

/// Reads the stream `at` names, changes it with `change` and writes it back, in one
/// transaction.
pub(crate) async fn update_stream<R, F>(kinesis: &KinesisService, at: StreamAt, change: F) -> Result<R, AwsError>
where
    R: Send + 'static,
    F: FnOnce(&StreamAt, &mut StreamRecord) -> Result<R> + Send + 'static,
{
    kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            let mut stream = at.load(&*tx)?;
            let answer = change(&at, &mut stream)?;
            STREAMS.put(tx, at.name.as_bytes(), &stream)?;
            Ok(answer)
        })
        .await
}

pub(crate) async fn update_stream_mode(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: UpdateStreamModeInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::of_arn(&input.stream_arn)?;
    let mode = input.stream_mode_details.stream_mode;
    update_stream(kinesis, at, move |_, stream| {
        stream.mode = mode.as_str().to_owned();
        Ok(Unit {})
    })
    .await
}

fn check_retention_bounds(hours: i32) -> Result<()> {
    if hours < MIN_RETENTION_HOURS {
        return Err(invalid_argument(format!(
            "Minimum allowed retention period is {MIN_RETENTION_HOURS} hours. Requested retention period ({hours} hours) is too short."
        )));
    }
    if hours > MAX_RETENTION_HOURS {
        return Err(invalid_argument(format!(
            "Maximum allowed retention period is {MAX_RETENTION_HOURS} hours. Requested retention period ({hours} hours) is too long."
        )));
    }
    Ok(())
}

pub(crate) async fn increase_stream_retention_period(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: IncreaseStreamRetentionPeriodInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let hours = input.retention_period_hours;
    check_retention_bounds(hours)?;
    update_stream(kinesis, at, move |at, stream| {
        if hours < stream.retention_hours {
            return Err(invalid_argument(format!(
                "Requested retention period ({hours} hours) for stream {} can not be shorter than existing retention period ({} hours). Use DecreaseRetentionPeriod API.",
                at.name, stream.retention_hours
            )));
        }
        stream.retention_hours = hours;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn decrease_stream_retention_period(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: DecreaseStreamRetentionPeriodInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let hours = input.retention_period_hours;
    check_retention_bounds(hours)?;
    update_stream(kinesis, at, move |at, stream| {
        if hours > stream.retention_hours {
            return Err(invalid_argument(format!(
                "Requested retention period ({hours} hours) for stream {} can not be longer than existing retention period ({} hours). Use IncreaseRetentionPeriod API.",
                at.name, stream.retention_hours
            )));
        }
        stream.retention_hours = hours;
        Ok(Unit {})
    })
    .await
}

/// The shard-level metrics `names` stand for: `ALL` is every one of them.
fn metrics_named(names: &[MetricsName]) -> BTreeSet<String> {
    if names.contains(&MetricsName::All) {
        return MetricsName::VALUES
            .iter()
            .filter(|m| **m != "ALL")
            .map(|m| (*m).to_owned())
            .collect();
    }
    names.iter().map(|m| m.as_str().to_owned()).collect()
}

async fn change_monitoring(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    (name, arn): (Option<String>, Option<String>),
    names: Vec<MetricsName>,
    enable: bool,
) -> Result<EnhancedMonitoringOutput, AwsError> {
    let at = StreamAt::named(ctx, name.as_deref(), arn.as_deref())?;
    let changed = metrics_named(&names);
    let arn = at.arn();
    let (current, desired) = update_stream(kinesis, at, move |_, stream| {
        let current = stream.metrics.clone();
        match enable {
            true => stream.metrics.extend(changed),
            false => stream.metrics.retain(|m| !changed.contains(m)),
        }
        Ok((current, stream.metrics.clone()))
    })
    .await?;
    let listed = |set: BTreeSet<String>| Some(set.iter().map(|m| MetricsName::from_wire(m)).collect());
    Ok(EnhancedMonitoringOutput {
        stream_name: arn.rsplit_once('/').map(|(_, n)| n.to_owned()),
        current_shard_level_metrics: listed(current),
        desired_shard_level_metrics: listed(desired),
        stream_arn: Some(arn),
    })
}

pub(crate) async fn enable_enhanced_monitoring(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: EnableEnhancedMonitoringInput,
) -> Result<EnhancedMonitoringOutput, AwsError> {
    let named = (input.stream_name, input.stream_arn);
    change_monitoring(kinesis, ctx, named, input.shard_level_metrics, true).await
}

pub(crate) async fn disable_enhanced_monitoring(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: DisableEnhancedMonitoringInput,
) -> Result<EnhancedMonitoringOutput, AwsError> {
    let named = (input.stream_name, input.stream_arn);
    change_monitoring(kinesis, ctx, named, input.shard_level_metrics, false).await
}
