//! Operations answered by name without being served: partner event sources (Stratus has no
//! partners), and what needs real HTTP calls or several regions (connections, API
//! destinations, global endpoints) — see docs/services/eventbridge.md.

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_eventbridge::*;

use crate::error::{not_found, not_served};
use crate::service::EventsService;

pub(crate) async fn describe_event_source(
    _svc: &EventsService,
    _ctx: &RequestContext,
    input: DescribeEventSourceRequest,
) -> Result<DescribeEventSourceResponse, AwsError> {
    Err(not_found(format!("Event source {} does not exist.", input.name)).into())
}

pub(crate) async fn describe_partner_event_source(
    _svc: &EventsService,
    _ctx: &RequestContext,
    input: DescribePartnerEventSourceRequest,
) -> Result<DescribePartnerEventSourceResponse, AwsError> {
    Err(not_found(format!("Event source {} does not exist.", input.name)).into())
}

pub(crate) async fn activate_event_source(
    _svc: &EventsService,
    _ctx: &RequestContext,
    input: ActivateEventSourceRequest,
) -> Result<Unit, AwsError> {
    Err(not_found(format!("Event source {} does not exist.", input.name)).into())
}

pub(crate) async fn deactivate_event_source(
    _svc: &EventsService,
    _ctx: &RequestContext,
    input: DeactivateEventSourceRequest,
) -> Result<Unit, AwsError> {
    Err(not_found(format!("Event source {} does not exist.", input.name)).into())
}

pub(crate) async fn list_event_sources(
    _svc: &EventsService,
    _ctx: &RequestContext,
    _input: ListEventSourcesRequest,
) -> Result<ListEventSourcesResponse, AwsError> {
    Ok(ListEventSourcesResponse {
        event_sources: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn put_partner_events(
    _svc: &EventsService,
    _ctx: &RequestContext,
    _input: PutPartnerEventsRequest,
) -> Result<PutPartnerEventsResponse, AwsError> {
    Err(not_served("PutPartnerEvents (SaaS partners' own operation)").into())
}
