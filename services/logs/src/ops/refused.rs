//! Operations Stratus refuses by name, with the reason (docs/services/logs.md lists the rest,
//! which answer the generated `NotImplemented`).

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;

use crate::error::not_served;
use crate::service::LogsService;

const DATA_PROTECTION: &str = "masking needs AWS's managed data identifiers, which Stratus does not have";

pub(crate) async fn put_data_protection_policy(
    _: &LogsService,
    _: &RequestContext,
    _: PutDataProtectionPolicyRequest,
) -> Result<PutDataProtectionPolicyResponse, AwsError> {
    Err(not_served("PutDataProtectionPolicy", DATA_PROTECTION).into())
}

pub(crate) async fn get_data_protection_policy(
    _: &LogsService,
    _: &RequestContext,
    _: GetDataProtectionPolicyRequest,
) -> Result<GetDataProtectionPolicyResponse, AwsError> {
    Err(not_served("GetDataProtectionPolicy", DATA_PROTECTION).into())
}

pub(crate) async fn delete_data_protection_policy(
    _: &LogsService,
    _: &RequestContext,
    _: DeleteDataProtectionPolicyRequest,
) -> Result<Unit, AwsError> {
    Err(not_served("DeleteDataProtectionPolicy", DATA_PROTECTION).into())
}
