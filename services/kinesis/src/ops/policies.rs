//! Resource policies of streams and consumers: PutResourcePolicy, GetResourcePolicy,
//! DeleteResourcePolicy. Stored and answered; `--iam enforce` does not weigh them yet.

use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_kinesis::*;

use crate::error::{invalid_argument, not_found};
use crate::ops::tags::Resource;
use crate::service::KinesisService;

pub(crate) async fn put_resource_policy(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: PutResourcePolicyInput,
) -> Result<Unit, AwsError> {
    if !serde_json::from_str::<serde_json::Value>(&input.policy).is_ok_and(|v| v.is_object()) {
        return Err(invalid_argument("Policy is not a valid JSON document.").into());
    }
    let policy = input.policy;
    Resource::of_arn(&input.resource_arn)?
        .update(kinesis, move |parts| {
            *parts.policy = Some(policy);
            Ok(Unit {})
        })
        .await
}

/// A resource without a policy answers the empty document (recorded against AWS).
pub(crate) async fn get_resource_policy(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: GetResourcePolicyInput,
) -> Result<GetResourcePolicyOutput, AwsError> {
    let (_, policy) = Resource::of_arn(&input.resource_arn)?.view(kinesis).await?;
    Ok(GetResourcePolicyOutput {
        policy: policy.unwrap_or_else(|| "{}".to_owned()),
    })
}

pub(crate) async fn delete_resource_policy(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: DeleteResourcePolicyInput,
) -> Result<Unit, AwsError> {
    let arn = input.resource_arn.clone();
    Resource::of_arn(&input.resource_arn)?
        .update(kinesis, move |parts| match parts.policy.take() {
            Some(_) => Ok(Unit {}),
            None => Err(not_found(format!("No resource policy found for resource ARN {arn}."))),
        })
        .await
}
