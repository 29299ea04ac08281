//! PutEvents: per-entry checks and ids, then the matching rules' deliveries, written in the
//! transaction the answer waits for.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_eventbridge::*;

use crate::delivery::Routed;
use crate::error::validation;
use crate::event::{build, entry_size, Entry, Origin, MAX_REQUEST_BYTES};
use crate::service::{bus_name, EventsService};

pub(crate) async fn put_events(
    svc: &EventsService,
    ctx: &RequestContext,
    input: PutEventsRequest,
) -> Result<PutEventsResponse, AwsError> {
    if input.endpoint_id.is_some() {
        return Err(crate::error::not_served("Putting events through a global endpoint").into());
    }
    let entries: Vec<(Entry<'_>, Option<&str>)> = input
        .entries
        .iter()
        .map(|e| {
            (
                Entry {
                    source: e.source.as_deref(),
                    detail_type: e.detail_type.as_deref(),
                    detail: e.detail.as_deref(),
                    resources: e.resources.as_deref().unwrap_or_default(),
                    time_secs: e.time.map(|t| t.secs()),
                },
                e.event_bus_name.as_deref(),
            )
        })
        .collect();
    let total: usize = entries.iter().map(|(e, _)| entry_size(e)).sum();
    if total > MAX_REQUEST_BYTES {
        return Err(validation("Total size of the entries in the request is over the limit.").into());
    }
    let now_secs = svc.now_ms() / 1000;
    let mut results = Vec::with_capacity(entries.len());
    let mut routed = Vec::new();
    for (entry, bus) in &entries {
        let id = stratus_core::id::uuid();
        let origin = Origin {
            id: &id,
            account: &ctx.account_id,
            region: &ctx.region,
            now_secs,
        };
        match build(entry, &origin) {
            Ok(event) => {
                routed.push(Routed {
                    bus: bus_name(*bus),
                    event,
                    only_rules: None,
                    archive: true,
                });
                results.push(PutEventsResultEntry {
                    event_id: Some(id),
                    ..PutEventsResultEntry::default()
                });
            }
            Err(e) => results.push(PutEventsResultEntry {
                event_id: None,
                error_code: Some(e.code.to_owned()),
                error_message: Some(e.message),
            }),
        }
    }
    svc.ingest(&ctx.account_id, &ctx.region, routed).await?;
    let failed = results.iter().filter(|r| r.error_code.is_some()).count();
    Ok(PutEventsResponse {
        failed_entry_count: i32::try_from(failed).unwrap_or(i32::MAX),
        entries: Some(results),
    })
}
