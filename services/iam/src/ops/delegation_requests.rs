//! Delegation requests (temporary access a partner asks an account for). IAM takes
//! `CreateDelegationRequest` only from partners it has onboarded ("This API is not available
//! for general use", the CreateDelegationRequest reference; "Customers review and approve
//! these requests but cannot create them directly", the User Guide's "IAM temporary
//! delegation"); Stratus onboards none, so no delegation request ever exists: creating one
//! is refused, listing finds none, and every operation on one by id finds nothing.

use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::listing::page;
use crate::service::IamService;

/// The refusal of an id that names no delegation request (wording not verified against AWS).
fn no_such(id: &str) -> IamError {
    IamError::NoSuchEntity(format!("The delegation request with id {id} cannot be found."))
}

pub(crate) async fn create_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: CreateDelegationRequestRequest,
) -> Result<CreateDelegationRequestResponse, IamError> {
    // The code and wording AWS gives a caller that is not onboarded are not verified.
    Err(IamError::AccessDenied(
        "CreateDelegationRequest is available only to partners onboarded for IAM delegation requests.".into(),
    ))
}

pub(crate) async fn list_delegation_requests(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: ListDelegationRequestsRequest,
) -> Result<ListDelegationRequestsResponse, IamError> {
    const LISTING: stratus_core::paging::Token = stratus_core::paging::Token::for_listing("iam:ListDelegationRequests");
    let page = page::<DelegationRequest>(LISTING, Vec::new(), input.marker.as_deref(), input.max_items)?;
    Ok(ListDelegationRequestsResponse {
        delegation_requests: Some(page.items),
        marker: page.marker,
        is_truncated: page.is_truncated,
    })
}

pub(crate) async fn get_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: GetDelegationRequestRequest,
) -> Result<GetDelegationRequestResponse, IamError> {
    Err(no_such(&input.delegation_request_id))
}

pub(crate) async fn accept_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: AcceptDelegationRequestRequest,
) -> Result<Unit, IamError> {
    Err(no_such(&input.delegation_request_id))
}

pub(crate) async fn associate_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: AssociateDelegationRequestRequest,
) -> Result<Unit, IamError> {
    Err(no_such(&input.delegation_request_id))
}

pub(crate) async fn reject_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: RejectDelegationRequestRequest,
) -> Result<Unit, IamError> {
    Err(no_such(&input.delegation_request_id))
}

pub(crate) async fn update_delegation_request(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: UpdateDelegationRequestRequest,
) -> Result<Unit, IamError> {
    Err(no_such(&input.delegation_request_id))
}

pub(crate) async fn send_delegation_token(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: SendDelegationTokenRequest,
) -> Result<Unit, IamError> {
    Err(no_such(&input.delegation_request_id))
}

/// The summary of an entity; "At this time, the only supported entity type is
/// delegation-request" (the GetHumanReadableSummary reference), and none exists.
pub(crate) async fn get_human_readable_summary(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: GetHumanReadableSummaryRequest,
) -> Result<GetHumanReadableSummaryResponse, IamError> {
    let resource = stratus_core::arn::Arn::parse(&input.entity_arn)
        .map_err(|_| IamError::InvalidInput(format!("Invalid ARN: {}", input.entity_arn)))?
        .resource;
    match resource.strip_prefix("delegation-request/") {
        Some(id) => Err(no_such(id.rsplit('/').next().unwrap_or(id))),
        // Wording not verified against AWS.
        None => Err(IamError::InvalidInput(
            "The only supported entity type is delegation-request.".into(),
        )),
    }
}
