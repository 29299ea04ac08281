//! Function policies: AddPermission, RemovePermission, GetPolicy.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, version_named};
use crate::error::{self, conflict, function_not_found, invalid_parameter, not_found};
use crate::names::{FunctionRef, Qualifier};
use crate::policy::{self, MAX_POLICY_BYTES};
use crate::records::{FunctionRecord, PolicyRecord};
use crate::service::LambdaService;

/// Refuses a qualifier that names nothing of `record`, in AddPermission's words.
fn check_qualifier(record: &FunctionRecord, f: &FunctionRef) -> Result<(), AwsError> {
    match Qualifier::of(f.qualifier.as_deref()) {
        Qualifier::Latest => Ok(()),
        Qualifier::Version(_) => match version_named(record, f.qualifier.as_deref().unwrap_or_default()) {
            Some(_) => Ok(()),
            None => Err(function_not_found(&f.qualified_arn())),
        },
        Qualifier::Alias(a) if record.aliases.contains_key(a) => Ok(()),
        // Not an alias name: a version-like qualifier that names nothing.
        Qualifier::Alias(a) if a.contains('$') => Err(function_not_found(&f.qualified_arn())),
        Qualifier::Alias(_) => Err(not_found(format!("Cannot find alias arn: {}", f.qualified_arn()))),
    }
}

pub(crate) async fn add_permission(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: AddPermissionRequest,
) -> Result<AddPermissionResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    if f.qualifier.as_deref() == Some("$LATEST") {
        return Err(invalid_parameter(
            "We currently do not support adding policies for $LATEST.",
        ));
    }
    let statement = policy::statement(&input, &f.qualified_arn())?;
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            let f = f2;
            check_qualifier(record, &f)?;
            let key = f.qualifier.clone().unwrap_or_default();
            let current_revision = super::target_revision(record, &f).unwrap_or_default();
            if input.revision_id.as_ref().is_some_and(|r| *r != current_revision) {
                return Err(error::revision_mismatch("GetPolicy"));
            }
            let mut policy = record.policies.get(&key).cloned().unwrap_or_default();
            if policy
                .statements
                .iter()
                .any(|s| policy::sid(s) == Some(input.statement_id.as_str()))
            {
                return Err(conflict(format!(
                    "The statement id ({}) provided already exists. Please provide a new statement id, or remove the \
                     existing statement.",
                    input.statement_id
                )));
            }
            policy.statements.push(statement.clone());
            let size = policy::document(&policy).len();
            if size > MAX_POLICY_BYTES {
                return Err(AwsError::new(
                    "PolicyLengthExceededException",
                    format!("The final policy size ({size}) is bigger than the limit ({MAX_POLICY_BYTES})."),
                    400,
                ));
            }
            record.policies.insert(key, policy);
            Ok(AddPermissionResponse {
                statement: Some(statement.to_string()),
            })
        })
        .await
}

pub(crate) async fn remove_permission(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: RemovePermissionRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let f2 = f.clone();
    lambda
        .update(
            &f,
            format!("No policy found for: {}", f.qualified_arn()),
            move |record, _| {
                let f = f2;
                check_qualifier(record, &f)?;
                let key = f.qualifier.clone().unwrap_or_default();
                let current_revision = super::target_revision(record, &f).unwrap_or_default();
                if input.revision_id.as_ref().is_some_and(|r| *r != current_revision) {
                    return Err(error::revision_mismatch("GetPolicy"));
                }
                let Some(policy) = record.policies.get_mut(&key).filter(|p| !p.statements.is_empty()) else {
                    return Err(not_found("No policy is associated with the given resource."));
                };
                let before = policy.statements.len();
                policy
                    .statements
                    .retain(|s| policy::sid(s) != Some(input.statement_id.as_str()));
                if policy.statements.len() == before {
                    return Err(not_found(format!(
                        "Statement {} is not found in resource policy.",
                        input.statement_id
                    )));
                }
                if policy.statements.is_empty() {
                    record.policies.remove(&key);
                }
                Ok(stratus_core::Unit)
            },
        )
        .await
        .map_err(|e| {
            // A missing function is worded as a missing policy.
            if e.message.starts_with("Function not found: No policy found for: ") {
                not_found(e.message.trim_start_matches("Function not found: ").to_owned())
            } else {
                e
            }
        })
}

pub(crate) async fn get_policy(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetPolicyRequest,
) -> Result<GetPolicyResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let missing = || not_found("The resource you requested does not exist.");
    let record = lambda.function(&f, &f.arn()).map_err(|_| missing())?;
    if f.qualifier
        .as_deref()
        .is_some_and(|q| !super::qualifier_exists(&record, q))
    {
        return Err(missing());
    }
    let key = f.qualifier.clone().unwrap_or_default();
    let policy: &PolicyRecord = record
        .policies
        .get(&key)
        .filter(|p| !p.statements.is_empty())
        .ok_or_else(missing)?;
    Ok(GetPolicyResponse {
        policy: Some(policy::document(policy)),
        revision_id: super::target_revision(&record, &f),
    })
}
