//! Shards: ListShards (filters and paging), SplitShard, MergeShards, UpdateShardCount.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_kinesis::*;

use crate::error::{invalid_argument, Result};
use crate::hash_key;
use crate::ops::shard_view;
use crate::ops::streams::{check_shard_limit, update_stream};
use crate::service::{KinesisService, StreamAt};
use crate::store::{shard_index, ShardRecord, StreamRecord};

const SHARD_LISTING: Token = Token::for_listing("kinesis:ListShards");
const SHARDS_PAGE: PageSize = PageSize {
    min: 1,
    max: 10_000,
    default: 1000,
};
/// How long a ListShards token may be used (API reference, ListShards: 300 seconds).
const TOKEN_LIFETIME_MS: i64 = 300_000;

/// A ListShards token: the stream, the last shard listed and when it was issued.
fn encode_token(stream: &str, after: u32, now_ms: i64) -> String {
    let mut bytes = now_ms.to_be_bytes().to_vec();
    bytes.extend_from_slice(&after.to_be_bytes());
    bytes.extend_from_slice(stream.as_bytes());
    SHARD_LISTING.encode(&bytes)
}

fn decode_token(token: &str) -> Option<(String, u32, i64)> {
    let bytes = SHARD_LISTING.decode(token).ok()?;
    let (issued, rest) = bytes.split_first_chunk::<8>()?;
    let (after, name) = rest.split_first_chunk::<4>()?;
    Some((
        String::from_utf8(name.to_vec()).ok()?,
        u32::from_be_bytes(*after),
        i64::from_be_bytes(*issued),
    ))
}

/// Whether `shard` was open at `ts` (a shard created with its stream counts from the start).
fn open_at(stream: &StreamRecord, shard: &ShardRecord, ts: i64) -> bool {
    let created = match shard.created_ms == stream.created_ms {
        true => i64::MIN,
        false => shard.created_ms,
    };
    created <= ts && shard.closed_ms.is_none_or(|closed| closed > ts)
}

/// The shards `filter` selects: AWS's six filter types (API reference, ShardFilter).
fn filtered<'s>(stream: &'s StreamRecord, filter: Option<&ShardFilter>, now_ms: i64) -> Result<Vec<&'s ShardRecord>> {
    let horizon = now_ms - i64::from(stream.retention_hours) * 3_600_000;
    let retained = |s: &&ShardRecord| s.closed_ms.is_none_or(|closed| closed > horizon);
    let all = stream.shards.iter().filter(retained);
    let Some(filter) = filter else {
        return Ok(all.collect());
    };
    let timestamp = || {
        filter.timestamp.and_then(|t| t.to_millis().ok()).ok_or_else(|| {
            invalid_argument(format!(
                "Timestamp must be specified for ShardFilter type {}.",
                filter.r#type.as_str()
            ))
        })
    };
    Ok(match &filter.r#type {
        ShardFilterType::AfterShardId => {
            let id = filter
                .shard_id
                .as_deref()
                .ok_or_else(|| invalid_argument("ShardId must be specified for ShardFilter type AFTER_SHARD_ID."))?;
            let after = shard_index(id).unwrap_or(0);
            all.filter(|s| s.index > after).collect()
        }
        ShardFilterType::AtTrimHorizon => all.filter(|s| open_at(stream, s, horizon)).collect(),
        ShardFilterType::FromTrimHorizon => all.collect(),
        ShardFilterType::AtLatest => all.filter(|s| s.is_open()).collect(),
        ShardFilterType::AtTimestamp => {
            let ts = timestamp()?;
            all.filter(|s| open_at(stream, s, ts)).collect()
        }
        ShardFilterType::FromTimestamp => {
            let ts = timestamp()?;
            all.filter(|s| s.closed_ms.is_none_or(|closed| closed > ts)).collect()
        }
        ShardFilterType::Unknown(other) => return Err(invalid_argument(format!("Invalid ShardFilter type {other}."))),
    })
}

pub(crate) async fn list_shards(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: ListShardsInput,
) -> Result<ListShardsOutput, AwsError> {
    let now = ctx.clock.epoch_millis();
    let size = SHARDS_PAGE
        .check(input.max_results)
        .map_err(|_| invalid_argument("MaxResults must be between 1 and 10000."))?;
    let (at, after) = match input.next_token.as_deref() {
        Some(token) => {
            if input.stream_name.is_some() {
                return Err(invalid_argument("NextToken and StreamName cannot be provided together.").into());
            }
            let (name, after, issued) = decode_token(token).ok_or_else(|| invalid_argument("Invalid NextToken."))?;
            if now - issued > TOKEN_LIFETIME_MS {
                return Err(AwsError::new(
                    "ExpiredNextTokenException",
                    format!("The timestamp of the NextToken has expired: issued {issued}, now {now}."),
                    400,
                ));
            }
            (StreamAt::named(ctx, Some(&name), None)?, Some(after))
        }
        None => {
            let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
            (
                at,
                input
                    .exclusive_start_shard_id
                    .as_deref()
                    .map(|id| shard_index(id).unwrap_or(0)),
            )
        }
    };
    let read_at = at.clone();
    let stream = kinesis
        .read(&at.account, &at.region, move |store| read_at.load(store))
        .await?;
    let shards = filtered(&stream, input.shard_filter.as_ref(), now)?
        .into_iter()
        .filter(|s| after.is_none_or(|a| s.index > a));
    let (page, more) = take_page(shards, size);
    let next_token = match (more, page.last()) {
        (true, Some(last)) => Some(encode_token(&stream.name, last.index, now)),
        _ => None,
    };
    Ok(ListShardsOutput {
        shards: Some(page.into_iter().map(shard_view).collect()),
        next_token,
    })
}

pub(crate) async fn split_shard(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: SplitShardInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let now = ctx.clock.epoch_millis();
    let key = hash_key::parse(&input.new_starting_hash_key).ok_or_else(|| {
        invalid_argument(format!(
            "NewStartingHashKey {} is not a hash key in the range [0, 2^128-1].",
            input.new_starting_hash_key
        ))
    })?;
    let id = input.shard_to_split;
    kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            check_shard_limit(&*tx, &at, 1)?;
            let mut stream = at.load(&*tx)?;
            stream.split(&at.account, &id, shard_index(&id), key, now)?;
            crate::store::STREAMS.put(tx, at.name.as_bytes(), &stream)?;
            Ok(Unit {})
        })
        .await
}

pub(crate) async fn merge_shards(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: MergeShardsInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let now = ctx.clock.epoch_millis();
    let (a, b) = (input.shard_to_merge, input.adjacent_shard_to_merge);
    update_stream(kinesis, at, move |at, stream| {
        stream.merge(&at.account, (&a, shard_index(&a)), (&b, shard_index(&b)), now)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn update_shard_count(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: UpdateShardCountInput,
) -> Result<UpdateShardCountOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let now = ctx.clock.epoch_millis();
    let target = input.target_shard_count;
    let arn = at.arn();
    let name = at.name.clone();
    let current = kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            let mut stream = at.load(&*tx)?;
            if stream.mode == "ON_DEMAND" {
                return Err(crate::error::validation(format!(
                    "UpdateShardCount is not supported for stream {} under account {} in ON_DEMAND mode.",
                    at.name, at.account
                )));
            }
            let current = stream.open_shard_count();
            if target > current.saturating_mul(2) || target < (current + 1) / 2 {
                return Err(invalid_argument(format!(
                    "UpdateShardCount cannot scale stream {} under account {} from {current} shards to {target}: the target must be at least half and at most double the current shard count.",
                    at.name, at.account
                )));
            }
            check_shard_limit(&*tx, &at, (target - current).max(0))?;
            stream.scale_to(&at.account, u32::try_from(target).unwrap_or(1), now)?;
            crate::store::STREAMS.put(tx, at.name.as_bytes(), &stream)?;
            Ok(current)
        })
        .await?;
    Ok(UpdateShardCountOutput {
        stream_name: Some(name),
        current_shard_count: Some(current),
        target_shard_count: Some(target),
        stream_arn: Some(arn),
    })
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    #[test]
    fn tokens_round_trip_and_edited_ones_never_panic() {
        let token = encode_token("orders", 7, 123);
        assert_eq!(decode_token(&token), Some(("orders".to_owned(), 7, 123)));
        let mut rng = Rng(13);
        for _ in 0..3000 {
            if let Ok(text) = String::from_utf8(mutate(&mut rng, token.as_bytes(), &[b"0", b"z"])) {
                let _ = decode_token(&text);
            }
        }
    }

    #[test]
    fn filters_select_shards_by_when_they_were_open() {
        let mut stream = StreamRecord::new("s", "PROVISIONED", 1, 0);
        stream
            .split("1", "shardId-000000000000", Some(0), 1 << 127, 1_000)
            .unwrap();
        let ids = |filter: ShardFilter| -> Vec<u32> {
            filtered(&stream, Some(&filter), 2_000)
                .unwrap()
                .iter()
                .map(|s| s.index)
                .collect()
        };
        let at = |ty, ms: i64| ShardFilter {
            r#type: ty,
            shard_id: None,
            timestamp: Some(stratus_core::DateTime::from_millis(ms)),
        };
        assert_eq!(ids(at(ShardFilterType::AtLatest, 0)), vec![1, 2]);
        assert_eq!(ids(at(ShardFilterType::AtTimestamp, 500)), vec![0]);
        assert_eq!(ids(at(ShardFilterType::AtTimestamp, 1_500)), vec![1, 2]);
        assert_eq!(ids(at(ShardFilterType::FromTimestamp, 500)), vec![0, 1, 2]);
        assert_eq!(ids(at(ShardFilterType::AtTrimHorizon, 0)), vec![0]);
        assert_eq!(ids(at(ShardFilterType::FromTrimHorizon, 0)), vec![0, 1, 2]);
        let after = ShardFilter {
            r#type: ShardFilterType::AfterShardId,
            shard_id: Some("shardId-000000000001".into()),
            timestamp: None,
        };
        assert_eq!(ids(after), vec![2]);
    }
}
