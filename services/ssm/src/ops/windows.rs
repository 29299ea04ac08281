//! Maintenance windows are not served, so none exists: a named one is AWS's
//! `DoesNotExistException`, and the listing is empty.

use stratus_core::RequestContext;
use stratus_gen_ssm::{
    DescribeMaintenanceWindowsRequest, DescribeMaintenanceWindowsResult, GetMaintenanceWindowRequest,
    GetMaintenanceWindowResult,
};

use crate::error::{refuse, SsmError};
use crate::service::SsmService;

pub(crate) async fn get_maintenance_window(
    _ssm: &SsmService,
    _ctx: &RequestContext,
    input: GetMaintenanceWindowRequest,
) -> Result<GetMaintenanceWindowResult, SsmError> {
    Err(refuse(
        "DoesNotExistException",
        format!("Maintenance window {} does not exist", input.window_id),
    ))
}

pub(crate) async fn describe_maintenance_windows(
    _ssm: &SsmService,
    _ctx: &RequestContext,
    _input: DescribeMaintenanceWindowsRequest,
) -> Result<DescribeMaintenanceWindowsResult, SsmError> {
    Ok(DescribeMaintenanceWindowsResult {
        window_identities: Some(Vec::new()),
        next_token: None,
    })
}
