//! Log streams: CreateLogStream, DeleteLogStream, DescribeLogStreams.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::tuple::TupleReader;
use stratus_storage::StorageError;

use crate::error::{already_exists, invalid_parameter, invalid_token, Result};
use crate::events::digits;
use crate::ingest::remove_events;
use crate::records::{group_key, pair_key, StreamRecord, STREAMS};
use crate::service::{group_named, load_group, load_stream, stream_arn, LogsService};

const STREAM_LISTING: Token = Token::for_listing("logs:DescribeLogStreams");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

pub(crate) async fn create_log_stream(
    logs: &LogsService,
    ctx: &RequestContext,
    input: CreateLogStreamRequest,
) -> Result<Unit, AwsError> {
    let now = ctx.clock.epoch_millis();
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        load_group(&*tx, &input.log_group_name)?;
        let key = pair_key(&input.log_group_name, &input.log_stream_name);
        if STREAMS.get(&*tx, &key)?.is_some() {
            return Err(already_exists("The specified log stream already exists"));
        }
        STREAMS.put(tx, key, &StreamRecord::new(now))?;
        Ok(Unit {})
    })
    .await
}

impl StreamRecord {
    pub(crate) fn new(now: i64) -> StreamRecord {
        StreamRecord {
            creation_time: now,
            first_event: None,
            last_event: None,
            last_ingestion: None,
            next_seq: 0,
            stored_bytes: 0,
        }
    }
}

pub(crate) async fn delete_log_stream(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteLogStreamRequest,
) -> Result<Unit, AwsError> {
    let freed = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let (group, stream) = (input.log_group_name, input.log_stream_name);
            load_group(&*tx, &group)?;
            load_stream(&*tx, &group, &stream)?;
            let freed = remove_events(tx, &group, Some(&stream), None)?;
            STREAMS.delete(tx, pair_key(&group, &stream));
            Ok(freed)
        })
        .await?;
    logs.add_used(&ctx.account_id, &ctx.region, -freed);
    Ok(Unit {})
}

/// A stream as DescribeLogStreams shows it: `storedBytes` is always 0, as AWS has reported
/// for streams since 2019 (API reference, LogStream).
pub(crate) fn describe((region, account): &(String, String), group: &str, name: String, s: &StreamRecord) -> LogStream {
    LogStream {
        arn: Some(stream_arn(region, account, group, &name)),
        creation_time: Some(s.creation_time),
        first_event_timestamp: s.first_event,
        last_event_timestamp: s.last_event,
        last_ingestion_time: s.last_ingestion,
        upload_sequence_token: s.last_ingestion.map(|_| digits(1, s.next_seq)),
        stored_bytes: Some(0),
        log_stream_name: Some(name),
    }
}

/// The group's streams, by name.
pub(crate) fn streams_of(
    r: &(impl stratus_storage::Read + ?Sized),
    group: &str,
) -> Result<Vec<(String, StreamRecord)>> {
    STREAMS
        .scan_prefix(r, group_key(group))?
        .into_iter()
        .map(|(key, s)| {
            let mut reader = TupleReader::new(&key);
            let name = reader
                .bytes()
                .and_then(|_| reader.string())
                .map_err(|_| StorageError::CorruptRecord {
                    table: STREAMS.name(),
                    key: String::from_utf8_lossy(&key).into_owned(),
                    reason: "not a (group, stream) key".to_owned(),
                })?;
            Ok((name, s))
        })
        .collect()
}

pub(crate) async fn describe_log_streams(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeLogStreamsRequest,
) -> Result<DescribeLogStreamsResponse, AwsError> {
    let group = group_named(input.log_group_name.as_deref(), input.log_group_identifier.as_deref())?;
    let by_time = matches!(input.order_by, Some(OrderBy::LastEventTime));
    if by_time && input.log_stream_name_prefix.is_some() {
        return Err(invalid_parameter("Cannot order by LastEventTime with a logStreamNamePrefix.").into());
    }
    let descending = input.descending.unwrap_or(false);
    let after = match input.next_token.as_deref() {
        Some(token) => Some(STREAM_LISTING.decode_str(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let size = PAGE.clamp(input.limit);
    let place = (ctx.region.clone(), ctx.account_id.clone());
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        load_group(store, &group)?;
        let prefix = input.log_stream_name_prefix.as_deref().unwrap_or("");
        let mut streams: Vec<(String, StreamRecord)> = streams_of(store, &group)?
            .into_iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .collect();
        // The order's key, which the token carries: the name, or the last event time and the name.
        let key = |(name, s): &(String, StreamRecord)| {
            if by_time {
                format!("{:020}/{name}", s.last_event.unwrap_or(s.creation_time).max(0))
            } else {
                name.clone()
            }
        };
        streams.sort_by_key(key);
        if descending {
            streams.reverse();
        }
        let rest = streams.into_iter().filter(|item| {
            after.as_deref().is_none_or(|a| {
                let k = key(item);
                if descending {
                    k.as_str() < a
                } else {
                    k.as_str() > a
                }
            })
        });
        let (page, more) = take_page(rest, size);
        let next_token = more
            .then(|| page.last().map(|item| STREAM_LISTING.encode_str(&key(item))))
            .flatten();
        Ok(DescribeLogStreamsResponse {
            log_streams: Some(
                page.into_iter()
                    .map(|(name, s)| describe(&place, &group, name, &s))
                    .collect(),
            ),
            next_token,
        })
    })
    .await
}
