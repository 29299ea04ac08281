//! Logs Insights: StartQuery (run as it starts, over the named groups' events in the time
//! range), GetQueryResults, StopQuery, DescribeQueries.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::{Direction, KeyRange, Read};

use crate::error::{invalid_parameter, invalid_token, not_found, Result};
use crate::events::decode_row;
use crate::insights::{Event, Query};
use crate::records::{event_key, QueryRecord, EVENTS, QUERIES};
use crate::service::{find_group, group_of_identifier, LogsService};

const QUERY_LISTING: Token = Token::for_listing("logs:DescribeQueries");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 1000,
};
/// StartQuery's default and largest `limit` (API reference, StartQuery).
const MAX_ROWS: usize = 10_000;

/// Every event of `group` with a timestamp in `[from, to]`.
fn events_between(r: &(impl Read + ?Sized), group: &str, from: i64, to: i64) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for (stream, _) in super::streams::streams_of(r, group)? {
        let lo = event_key(group, &stream, from, 0);
        let hi = event_key(group, &stream, to, u64::MAX);
        let range = KeyRange::between(std::ops::Bound::Included(&lo[..]), std::ops::Bound::Included(&hi[..]));
        for (key, row) in r.scan(EVENTS, &range, Direction::Forward, None)? {
            let e = decode_row(&key, &row)?;
            events.push(Event {
                timestamp: e.timestamp,
                ingestion: e.ingestion,
                group: group.to_owned(),
                stream: e.stream.clone(),
                pointer: crate::events::event_id(&e.stream, e.seq),
                message: e.message.clone(),
            });
        }
    }
    Ok(events)
}

pub(crate) async fn start_query(
    logs: &LogsService,
    ctx: &RequestContext,
    input: StartQueryRequest,
) -> Result<StartQueryResponse, AwsError> {
    let mut groups: Vec<String> = input.log_group_name.into_iter().collect();
    groups.extend(input.log_group_names.unwrap_or_default());
    groups.extend(
        input
            .log_group_identifiers
            .unwrap_or_default()
            .iter()
            .map(|i| group_of_identifier(i).to_owned()),
    );
    if groups.is_empty() {
        return Err(invalid_parameter("Query must specify at least one log group.").into());
    }
    let query =
        Query::parse(&input.query_string).map_err(|e| AwsError::new("MalformedQueryException", e.to_string(), 400))?;
    let (from, to) = (
        input.start_time.saturating_mul(1000),
        input.end_time.saturating_mul(1000).saturating_add(999),
    );
    let limit = input.limit.map_or(MAX_ROWS, |l| (l.max(1) as usize).min(MAX_ROWS));
    let account = ctx.account_id.clone();
    let now = ctx.clock.epoch_millis();
    let text = input.query_string;
    let id = stratus_core::id::uuid();
    let answer = id.clone();
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut events = Vec::new();
        for group in &groups {
            if find_group(&*tx, group)?.is_none() {
                return Err(not_found(format!(
                    "Log group '{group}' does not exist for account ID '{account}'"
                )));
            }
            events.extend(events_between(&*tx, group, from, to)?);
        }
        let bytes: usize = events.iter().map(|e| e.message.len()).sum();
        let (rows, matched) = query.run(&account, &events, limit);
        // AWS describes a query with the source and range it was given.
        let sources: Vec<String> = groups.iter().map(|g| format!("\"{g}\"")).collect();
        let record = QueryRecord {
            id: id.clone(),
            query_string: format!("SOURCE {} START={} END={} | {text}", sources.join(" "), from, to),
            group: groups[0].clone(),
            status: "Complete".to_owned(),
            create_time: now,
            rows,
            records_matched: matched as f64,
            records_scanned: events.len() as f64,
            bytes_scanned: bytes as f64,
            groups_scanned: groups.len() as f64,
        };
        QUERIES.put(tx, id.into_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(StartQueryResponse { query_id: Some(answer) })
}

async fn load_query(logs: &LogsService, ctx: &RequestContext, id: String) -> Result<QueryRecord, AwsError> {
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        QUERIES
            .get(store, id.as_bytes())?
            .ok_or_else(|| not_found("The specified query does not exist."))
    })
    .await
}

pub(crate) async fn get_query_results(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetQueryResultsRequest,
) -> Result<GetQueryResultsResponse, AwsError> {
    let q = load_query(logs, ctx, input.query_id).await?;
    Ok(GetQueryResultsResponse {
        query_language: Some(QueryLanguage::Cwli),
        results: Some(
            q.rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|(field, value)| ResultField {
                            field: Some(field),
                            value: Some(value),
                        })
                        .collect()
                })
                .collect(),
        ),
        statistics: Some(QueryStatistics {
            records_matched: q.records_matched,
            records_scanned: q.records_scanned,
            bytes_scanned: q.bytes_scanned,
            log_groups_scanned: q.groups_scanned,
            ..QueryStatistics::default()
        }),
        status: Some(QueryStatus::from_wire(&q.status)),
        encryption_key: None,
        next_token: None,
    })
}

pub(crate) async fn stop_query(
    logs: &LogsService,
    ctx: &RequestContext,
    input: StopQueryRequest,
) -> Result<StopQueryResponse, AwsError> {
    // Queries complete as they start, so there is never one left to stop.
    load_query(logs, ctx, input.query_id).await?;
    Ok(StopQueryResponse { success: false })
}

pub(crate) async fn describe_queries(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeQueriesRequest,
) -> Result<DescribeQueriesResponse, AwsError> {
    let after = input
        .next_token
        .as_deref()
        .map(|t| QUERY_LISTING.decode_str(t).map_err(|_| invalid_token()))
        .transpose()?;
    let size = PAGE.clamp(input.max_results);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let queries = QUERIES
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .into_iter()
            .map(|(_, q)| q)
            .filter(|q| input.log_group_name.as_ref().is_none_or(|g| &q.group == g))
            .filter(|q| input.status.as_ref().is_none_or(|s| s.as_str() == q.status))
            .filter(|q| after.as_deref().is_none_or(|a| q.id.as_str() > a));
        let (page, more) = take_page(queries, size);
        let next_token = more
            .then(|| page.last().map(|q| QUERY_LISTING.encode_str(&q.id)))
            .flatten();
        Ok(DescribeQueriesResponse {
            queries: Some(
                page.into_iter()
                    .map(|q| QueryInfo {
                        query_language: Some(QueryLanguage::Cwli),
                        query_id: Some(q.id),
                        query_string: Some(q.query_string),
                        status: Some(QueryStatus::from_wire(&q.status)),
                        create_time: Some(q.create_time),
                        log_group_name: Some(q.group),
                        ..QueryInfo::default()
                    })
                    .collect(),
            ),
            next_token,
        })
    })
    .await
}
