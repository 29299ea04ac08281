//! Archives (events a bus received, kept with the archive's pattern) and replays, which put
//! archived events back on their bus's rules with a `replay-name` field, as AWS adds it.

use serde_json::Value;
use stratus_core::arn::Arn;
use stratus_core::paging::Token;
use stratus_core::{AwsError, RequestContext};
use stratus_event_pattern::{Dialect, Pattern};
use stratus_gen_eventbridge::*;
use stratus_storage::{Direction, KeyRange};

use super::buses::time;
use crate::delivery::Routed;
use crate::error::{already_exists, not_found, validation, EventsError, Result};
use crate::listing::page;
use crate::records::{archived_prefix, ArchiveRecord, ReplayRecord, ARCHIVED, ARCHIVES, REPLAYS};
use crate::service::{find_bus, EventsService};

const ARCHIVE_LISTING: Token = Token::for_listing("events:ListArchives");
const REPLAY_LISTING: Token = Token::for_listing("events:ListReplays");

fn archive_arn(ctx: &RequestContext, name: &str) -> String {
    Arn::new("events", &ctx.region, &ctx.account_id, &format!("archive/{name}")).to_string()
}

fn replay_arn(ctx: &RequestContext, name: &str) -> String {
    Arn::new("events", &ctx.region, &ctx.account_id, &format!("replay/{name}")).to_string()
}

fn archive_missing(name: &str) -> EventsError {
    not_found(format!("Archive {name} does not exist."))
}

pub(crate) async fn create_archive(
    svc: &EventsService,
    ctx: &RequestContext,
    input: CreateArchiveRequest,
) -> Result<CreateArchiveResponse, AwsError> {
    if let Some(pattern) = &input.event_pattern {
        Pattern::parse(pattern, Dialect::EventBridge).map_err(EventsError::from)?;
    }
    let bus = crate::service::bus_name(Some(&input.event_source_arn));
    let now = svc.now_ms();
    let record = ArchiveRecord {
        name: input.archive_name.clone(),
        source_arn: input.event_source_arn.clone(),
        description: input.description,
        event_pattern: input.event_pattern,
        retention_days: input.retention_days.unwrap_or(0),
        created_ms: now,
        event_count: 0,
        size_bytes: 0,
    };
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        if find_bus(tx, &bus, now)?.is_none() {
            return Err(crate::error::bus_not_found(&bus));
        }
        if ARCHIVES.get(tx, record.name.as_bytes())?.is_some() {
            return Err(already_exists(format!("Archive {} already exists.", record.name)));
        }
        ARCHIVES.put(tx, record.name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateArchiveResponse {
        archive_arn: Some(archive_arn(ctx, &input.archive_name)),
        state: Some(ArchiveState::Enabled),
        state_reason: None,
        creation_time: Some(time(now)),
    })
}

pub(crate) async fn describe_archive(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeArchiveRequest,
) -> Result<DescribeArchiveResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let a = ARCHIVES
        .get(&*store, input.archive_name.as_bytes())
        .map_err(EventsError::from)?
        .ok_or_else(|| archive_missing(&input.archive_name))?;
    Ok(DescribeArchiveResponse {
        archive_arn: Some(archive_arn(ctx, &a.name)),
        archive_name: Some(a.name),
        event_source_arn: Some(a.source_arn),
        description: a.description,
        event_pattern: a.event_pattern,
        state: Some(ArchiveState::Enabled),
        state_reason: None,
        kms_key_identifier: None,
        retention_days: Some(a.retention_days),
        size_bytes: a.size_bytes,
        event_count: a.event_count,
        creation_time: Some(time(a.created_ms)),
    })
}

pub(crate) async fn list_archives(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListArchivesRequest,
) -> Result<ListArchivesResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    if let Some(source) = &input.event_source_arn {
        let bus = crate::service::bus_name(Some(source));
        if find_bus(&*store, &bus, svc.now_ms())?.is_none() {
            return Err(crate::error::bus_not_found(&bus).into());
        }
    }
    let prefix = input.name_prefix.unwrap_or_default();
    let all = ARCHIVES
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
        .map_err(EventsError::from)?;
    let listed = all
        .into_iter()
        .map(|(_, a)| a)
        .filter(|a| a.name.starts_with(&prefix))
        .filter(|a| input.event_source_arn.as_ref().is_none_or(|s| &a.source_arn == s));
    let (page, next_token) = page(
        &ARCHIVE_LISTING,
        listed,
        |a| &a.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListArchivesResponse {
        archives: Some(
            page.into_iter()
                .map(|a| Archive {
                    archive_name: Some(a.name),
                    event_source_arn: Some(a.source_arn),
                    state: Some(ArchiveState::Enabled),
                    state_reason: None,
                    retention_days: Some(a.retention_days),
                    size_bytes: a.size_bytes,
                    event_count: a.event_count,
                    creation_time: Some(time(a.created_ms)),
                })
                .collect(),
        ),
        next_token,
    })
}

pub(crate) async fn update_archive(
    svc: &EventsService,
    ctx: &RequestContext,
    input: UpdateArchiveRequest,
) -> Result<UpdateArchiveResponse, AwsError> {
    if input.event_pattern.is_none() && input.retention_days.is_none() && input.description.is_none() {
        return Err(validation("At least one of EventPattern, RetentionDays or Description must be provided.").into());
    }
    if let Some(pattern) = &input.event_pattern {
        Pattern::parse(pattern, Dialect::EventBridge).map_err(EventsError::from)?;
    }
    let name = input.archive_name.clone();
    let archive = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut a = ARCHIVES
                .get(tx, name.as_bytes())?
                .ok_or_else(|| archive_missing(&name))?;
            if input.description.is_some() {
                a.description = input.description;
            }
            if input.event_pattern.is_some() {
                a.event_pattern = input.event_pattern;
            }
            if let Some(days) = input.retention_days {
                a.retention_days = days;
            }
            ARCHIVES.put(tx, name.as_bytes(), &a)?;
            Ok(a)
        })
        .await?;
    Ok(UpdateArchiveResponse {
        archive_arn: Some(archive_arn(ctx, &archive.name)),
        state: Some(ArchiveState::Enabled),
        state_reason: None,
        creation_time: Some(time(archive.created_ms)),
    })
}

pub(crate) async fn delete_archive(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeleteArchiveRequest,
) -> Result<DeleteArchiveResponse, AwsError> {
    let name = input.archive_name;
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        ARCHIVES
            .get(tx, name.as_bytes())?
            .ok_or_else(|| archive_missing(&name))?;
        ARCHIVES.delete(tx, name.as_bytes().to_vec());
        for (key, _) in ARCHIVED.scan_prefix(tx, archived_prefix(&name))? {
            ARCHIVED.delete(tx, key);
        }
        Ok(())
    })
    .await?;
    Ok(DeleteArchiveResponse {})
}

pub(crate) async fn start_replay(
    svc: &EventsService,
    ctx: &RequestContext,
    input: StartReplayRequest,
) -> Result<StartReplayResponse, AwsError> {
    let (start_ms, end_ms) = (
        input.event_start_time.to_millis().unwrap_or(0),
        input.event_end_time.to_millis().unwrap_or(0),
    );
    if start_ms >= end_ms {
        return Err(validation(
            "Parameter EventEndTime is not valid. Reason: EventStartTime must be before EventEndTime.",
        )
        .into());
    }
    let archive_name = input
        .event_source_arn
        .rsplit_once("archive/")
        .map(|(_, n)| n.to_owned())
        .unwrap_or_default();
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let archive = ARCHIVES
        .get(&*store, archive_name.as_bytes())
        .map_err(EventsError::from)?
        .ok_or_else(|| {
            validation(format!(
                "Parameter EventSourceArn is not valid. Reason: Archive {archive_name} does not exist."
            ))
        })?;
    let destination = crate::service::bus_name(Some(&input.destination.arn));
    let local = crate::service::bus_arn(&ctx.region, &ctx.account_id, &destination);
    if local != input.destination.arn || find_bus(&*store, &destination, svc.now_ms())?.is_none() {
        return Err(crate::error::bus_not_found(&destination).into());
    }
    if archive.source_arn != input.destination.arn {
        return Err(validation(
            "Parameter Destination.Arn is not valid. Reason: Cross event bus replay is not permitted.",
        )
        .into());
    }
    if REPLAYS
        .get(&*store, input.replay_name.as_bytes())
        .map_err(EventsError::from)?
        .is_some()
    {
        return Err(already_exists(format!("Replay {} already exists.", input.replay_name)).into());
    }
    let now = svc.now_ms();
    let replay_name = input.replay_name.clone();
    let mut events = Vec::new();
    for (_, archived) in ARCHIVED
        .scan_prefix(&*store, archived_prefix(&archive.name))
        .map_err(EventsError::from)?
    {
        let Ok(mut event) = serde_json::from_str::<Value>(&archived.event) else {
            continue;
        };
        let at = archived.time_ms;
        if at < start_ms || at >= end_ms {
            continue;
        }
        if let Some(object) = event.as_object_mut() {
            object.insert("replay-name".to_owned(), Value::String(replay_name.clone()));
        }
        events.push(Routed {
            bus: crate::service::bus_name(Some(&archive.source_arn)),
            event,
            only_rules: input.destination.filter_arns.clone(),
            archive: false,
        });
    }
    let record = ReplayRecord {
        name: input.replay_name.clone(),
        description: input.description,
        source_arn: input.event_source_arn,
        destination_arn: input.destination.arn,
        filter_arns: input.destination.filter_arns.unwrap_or_default(),
        event_start_ms: start_ms,
        event_end_ms: end_ms,
        state: "COMPLETED".to_owned(),
        state_reason: None,
        start_ms: now,
        end_ms: Some(now),
        last_replayed_ms: Some(end_ms),
    };
    let put = record.clone();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        REPLAYS.put(tx, put.name.as_bytes(), &put)?;
        Ok(())
    })
    .await?;
    svc.ingest(&ctx.account_id, &ctx.region, events).await?;
    Ok(StartReplayResponse {
        replay_arn: Some(replay_arn(ctx, &record.name)),
        state: Some(ReplayState::Starting),
        state_reason: None,
        replay_start_time: Some(time(now)),
    })
}

fn replay_missing(name: &str) -> EventsError {
    not_found(format!("Replay {name} does not exist."))
}

pub(crate) async fn describe_replay(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeReplayRequest,
) -> Result<DescribeReplayResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let r = REPLAYS
        .get(&*store, input.replay_name.as_bytes())
        .map_err(EventsError::from)?
        .ok_or_else(|| replay_missing(&input.replay_name))?;
    Ok(DescribeReplayResponse {
        replay_arn: Some(replay_arn(ctx, &r.name)),
        replay_name: Some(r.name),
        description: r.description,
        state: Some(ReplayState::from_wire(&r.state)),
        state_reason: r.state_reason,
        event_source_arn: Some(r.source_arn),
        destination: Some(ReplayDestination {
            arn: r.destination_arn,
            filter_arns: (!r.filter_arns.is_empty()).then_some(r.filter_arns),
        }),
        event_start_time: Some(time(r.event_start_ms)),
        event_end_time: Some(time(r.event_end_ms)),
        event_last_replayed_time: r.last_replayed_ms.map(time),
        replay_start_time: Some(time(r.start_ms)),
        replay_end_time: r.end_ms.map(time),
    })
}

pub(crate) async fn list_replays(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListReplaysRequest,
) -> Result<ListReplaysResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let prefix = input.name_prefix.unwrap_or_default();
    let all = REPLAYS
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
        .map_err(EventsError::from)?;
    let listed = all
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.name.starts_with(&prefix))
        .filter(|r| input.event_source_arn.as_ref().is_none_or(|s| &r.source_arn == s))
        .filter(|r| input.state.as_ref().is_none_or(|s| s.as_str() == r.state));
    let (page, next_token) = page(
        &REPLAY_LISTING,
        listed,
        |r| &r.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListReplaysResponse {
        replays: Some(
            page.into_iter()
                .map(|r| Replay {
                    replay_name: Some(r.name),
                    event_source_arn: Some(r.source_arn),
                    state: Some(ReplayState::from_wire(&r.state)),
                    state_reason: r.state_reason,
                    event_start_time: Some(time(r.event_start_ms)),
                    event_end_time: Some(time(r.event_end_ms)),
                    // AWS lists replays without it; DescribeReplay has it.
                    event_last_replayed_time: None,
                    replay_start_time: Some(time(r.start_ms)),
                    replay_end_time: r.end_ms.map(time),
                })
                .collect(),
        ),
        next_token,
    })
}

pub(crate) async fn cancel_replay(
    svc: &EventsService,
    ctx: &RequestContext,
    input: CancelReplayRequest,
) -> Result<CancelReplayResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let r = REPLAYS
        .get(&*store, input.replay_name.as_bytes())
        .map_err(EventsError::from)?
        .ok_or_else(|| replay_missing(&input.replay_name))?;
    // Replays finish as they start, so none is left to cancel.
    Err(validation(format!("Replay {} is not in a valid state for cancellation.", r.name)).into())
}
