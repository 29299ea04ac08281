//! The Organizations features of IAM (centralized root access for member accounts). Stratus
//! serves no AWS Organizations, so every account stands alone and these answer as AWS
//! answers an account outside any organization.

use stratus_core::RequestContext;
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::service::IamService;

fn no_organization<T>() -> Result<T, IamError> {
    Err(IamError::OrganizationNotFound(
        "Your account is not a member of an organization.".into(),
    ))
}

pub(crate) async fn list_organizations_features(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: ListOrganizationsFeaturesRequest,
) -> Result<ListOrganizationsFeaturesResponse, IamError> {
    no_organization()
}

pub(crate) async fn enable_organizations_root_sessions(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: EnableOrganizationsRootSessionsRequest,
) -> Result<EnableOrganizationsRootSessionsResponse, IamError> {
    no_organization()
}

pub(crate) async fn disable_organizations_root_sessions(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: DisableOrganizationsRootSessionsRequest,
) -> Result<DisableOrganizationsRootSessionsResponse, IamError> {
    no_organization()
}

pub(crate) async fn enable_organizations_root_credentials_management(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: EnableOrganizationsRootCredentialsManagementRequest,
) -> Result<EnableOrganizationsRootCredentialsManagementResponse, IamError> {
    no_organization()
}

pub(crate) async fn disable_organizations_root_credentials_management(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: DisableOrganizationsRootCredentialsManagementRequest,
) -> Result<DisableOrganizationsRootCredentialsManagementResponse, IamError> {
    no_organization()
}

/// The Organizations access report is of an organization's entities (`EntityPath`
/// `o-…/r-…/…`), which an account outside any organization has none of.
pub(crate) async fn generate_organizations_access_report(
    _iam: &IamService,
    _ctx: &RequestContext,
    _input: GenerateOrganizationsAccessReportRequest,
) -> Result<GenerateOrganizationsAccessReportResponse, IamError> {
    no_organization()
}

/// No report can have been generated, so no job id names one (wording not verified).
pub(crate) async fn get_organizations_access_report(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: GetOrganizationsAccessReportRequest,
) -> Result<GetOrganizationsAccessReportResponse, IamError> {
    Err(IamError::NoSuchEntity(format!(
        "The report with job id {} cannot be found.",
        input.job_id
    )))
}
