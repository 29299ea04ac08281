//! Resource policies: put (checked, and refused when public if asked), get, delete, and
//! validate without storing.

use stratus_core::RequestContext;
use stratus_gen_secrets_manager::*;

use crate::error::SmError;
use crate::names::SecretRef;
use crate::ops::{load, modify, not_deleted};
use crate::policy;
use crate::service::SecretsService;

pub(crate) async fn put_resource_policy(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: PutResourcePolicyRequest,
) -> Result<PutResourcePolicyResponse, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    policy::check(&input.resource_policy)?;
    if input.block_public_policy.unwrap_or(false) {
        policy::check_not_public(&input.resource_policy)?;
    }
    let document = input.resource_policy;
    let (secret, ()) = modify(sm, &at, move |secret| {
        not_deleted(secret)?;
        secret.policy = Some(document);
        Ok(())
    })
    .await?;
    Ok(PutResourcePolicyResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
    })
}

pub(crate) async fn get_resource_policy(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: GetResourcePolicyRequest,
) -> Result<GetResourcePolicyResponse, SmError> {
    let (_, secret) = load(sm, ctx, &input.secret_id)?;
    Ok(GetResourcePolicyResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name.clone()),
        resource_policy: secret.policy,
    })
}

pub(crate) async fn delete_resource_policy(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: DeleteResourcePolicyRequest,
) -> Result<DeleteResourcePolicyResponse, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    let (secret, ()) = modify(sm, &at, |secret| {
        not_deleted(secret)?;
        secret.policy = None;
        Ok(())
    })
    .await?;
    Ok(DeleteResourcePolicyResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
    })
}

pub(crate) async fn validate_resource_policy(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: ValidateResourcePolicyRequest,
) -> Result<ValidateResourcePolicyResponse, SmError> {
    if let Some(id) = &input.secret_id {
        load(sm, ctx, id)?;
    }
    let errors = policy::validate(&input.resource_policy);
    Ok(ValidateResourcePolicyResponse {
        policy_validation_passed: errors.is_empty(),
        validation_errors: Some(errors),
    })
}
