//! Reserved and provisioned concurrency, and the account's settings.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, unqualified_only};
use crate::code::MAX_UNZIPPED;
use crate::error::{self, conflict, function_not_found, invalid_parameter, not_found};
use crate::invoke::ACCOUNT_CONCURRENCY;
use crate::names::{FunctionRef, Qualifier};
use crate::records::{FunctionRecord, ProvisionedRecord};
use crate::service::{lambda_time, LambdaService, FUNCTIONS};

const PROVISIONED_LISTING: stratus_core::paging::Token =
    stratus_core::paging::Token::for_listing("lambda:ListProvisionedConcurrencyConfigs");

/// The least concurrency the account keeps unreserved.
const MIN_UNRESERVED: i32 = 100;

/// Every function of the request's account and region.
fn all_functions(lambda: &LambdaService, account: &str, region: &str) -> Result<Vec<FunctionRecord>, AwsError> {
    let store = lambda.store(account, region)?;
    Ok(FUNCTIONS
        .scan_prefix(&*store, b"")
        .map_err(error::storage)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

pub(crate) async fn put_function_concurrency(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutFunctionConcurrencyRequest,
) -> Result<Concurrency, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    lambda.function(&f, &f.latest_qualified_arn())?;
    let others: i32 = all_functions(lambda, &f.account, &f.region)?
        .iter()
        .filter(|r| r.name != f.name)
        .filter_map(|r| r.reserved_concurrency)
        .sum();
    let wanted = input.reserved_concurrent_executions;
    if ACCOUNT_CONCURRENCY - others - wanted < MIN_UNRESERVED {
        return Err(invalid_parameter(format!(
            "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution \
             below its minimum value of [{MIN_UNRESERVED}]."
        )));
    }
    lambda
        .update(&f, f.arn(), move |record, _| {
            record.reserved_concurrency = Some(wanted);
            Ok(())
        })
        .await?;
    lambda.stop_instances(&f.arn());
    Ok(Concurrency {
        reserved_concurrent_executions: Some(wanted),
    })
}

pub(crate) async fn get_function_concurrency(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionConcurrencyRequest,
) -> Result<GetFunctionConcurrencyResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let record = lambda.function(&f, &f.arn())?;
    Ok(GetFunctionConcurrencyResponse {
        reserved_concurrent_executions: record.reserved_concurrency,
    })
}

pub(crate) async fn delete_function_concurrency(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteFunctionConcurrencyRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    lambda
        .update(&f, f.arn(), |record, _| {
            record.reserved_concurrency = None;
            Ok(())
        })
        .await?;
    lambda.stop_instances(&f.arn());
    Ok(stratus_core::Unit)
}

pub(crate) async fn get_account_settings(
    lambda: &LambdaService,
    ctx: &RequestContext,
    _input: GetAccountSettingsRequest,
) -> Result<GetAccountSettingsResponse, AwsError> {
    let functions = all_functions(lambda, &ctx.account_id, &ctx.region)?;
    let reserved: i32 = functions.iter().filter_map(|r| r.reserved_concurrency).sum();
    let code: u64 = functions
        .iter()
        .map(|r| r.latest.code.size + r.versions.values().map(|v| v.code.size).sum::<u64>())
        .sum::<u64>()
        + super::layers::layers_code_size(lambda, &ctx.account_id, &ctx.region)?;
    Ok(GetAccountSettingsResponse {
        account_limit: Some(AccountLimit {
            total_code_size: 80_530_636_800,
            code_size_unzipped: i64::try_from(MAX_UNZIPPED).unwrap_or(i64::MAX),
            code_size_zipped: 52_428_800,
            concurrent_executions: ACCOUNT_CONCURRENCY,
            unreserved_concurrent_executions: Some(ACCOUNT_CONCURRENCY - reserved),
        }),
        account_usage: Some(AccountUsage {
            total_code_size: i64::try_from(code).unwrap_or(i64::MAX),
            function_count: functions.len() as i64,
        }),
    })
}

/// Refuses a qualifier provisioned concurrency cannot be configured on; `writing` for Put,
/// whose refusal of `$LATEST` AWS words differently.
fn check_provisioned_target(record: &FunctionRecord, f: &FunctionRef, writing: bool) -> Result<String, AwsError> {
    let q = f.qualifier.clone().unwrap_or_default();
    match Qualifier::of(Some(&q)) {
        Qualifier::Latest if writing => Err(invalid_parameter(
            "Provisioned Concurrency Configs cannot be applied to unpublished function versions.",
        )),
        Qualifier::Latest => Err(invalid_parameter(
            "The function resource provided must be an alias or a published version.",
        )),
        Qualifier::Version(n) if record.versions.contains_key(&n) => Ok(q),
        Qualifier::Version(_) => Err(function_not_found(&f.qualified_arn())),
        Qualifier::Alias(a) if record.aliases.contains_key(a) => Ok(q),
        Qualifier::Alias(_) => Err(not_found(format!("Cannot find alias arn: {}", f.qualified_arn()))),
    }
}

fn provisioned_not_found() -> AwsError {
    AwsError::new(
        "ProvisionedConcurrencyConfigNotFoundException",
        "No Provisioned Concurrency Config found for this function",
        404,
    )
}

pub(crate) async fn put_provisioned_concurrency_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutProvisionedConcurrencyConfigRequest,
) -> Result<PutProvisionedConcurrencyConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, Some(&input.qualifier))?;
    let reserved: i32 = all_functions(lambda, &f.account, &f.region)?
        .iter()
        .filter_map(|r| r.reserved_concurrency)
        .sum();
    let unreserved = ACCOUNT_CONCURRENCY - reserved;
    let wanted = input.provisioned_concurrent_executions;
    if wanted > unreserved {
        return Err(invalid_parameter(format!(
            "Specified ConcurrentExecutions for function is greater than account's unreserved concurrency [{unreserved}]."
        )));
    }
    if unreserved - wanted < MIN_UNRESERVED {
        return Err(invalid_parameter(format!(
            "Specified ConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its \
             minimum value of [{MIN_UNRESERVED}]."
        )));
    }
    let now = lambda_time(lambda.now_ms());
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            let key = check_provisioned_target(record, &f2, true)?;
            // A version is provisioned once: directly or through one alias.
            match Qualifier::of(Some(&key)) {
                Qualifier::Alias(a) => {
                    let version = record
                        .aliases
                        .get(a)
                        .map(|a| a.function_version.clone())
                        .unwrap_or_default();
                    if record.provisioned.contains_key(&version) {
                        return Err(conflict(
                            "Alias can't be used for Provisioned Concurrency configuration on an already Provisioned \
                             version",
                        ));
                    }
                }
                Qualifier::Version(n) => {
                    let pointed = record
                        .aliases
                        .values()
                        .any(|a| a.function_version == n.to_string() && record.provisioned.contains_key(&a.name));
                    if pointed {
                        return Err(conflict("Version is pointed by a Provisioned Concurrency alias"));
                    }
                }
                Qualifier::Latest => {}
            }
            let provisioned = ProvisionedRecord {
                requested: input.provisioned_concurrent_executions,
                last_modified: now.clone(),
            };
            record.provisioned.insert(key, provisioned);
            Ok(PutProvisionedConcurrencyConfigResponse {
                requested_provisioned_concurrent_executions: Some(input.provisioned_concurrent_executions),
                allocated_provisioned_concurrent_executions: Some(0),
                available_provisioned_concurrent_executions: Some(0),
                status: Some(ProvisionedConcurrencyStatusEnum::from_wire("IN_PROGRESS")),
                status_reason: None,
                last_modified: Some(now),
            })
        })
        .await
}

pub(crate) async fn get_provisioned_concurrency_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetProvisionedConcurrencyConfigRequest,
) -> Result<GetProvisionedConcurrencyConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, Some(&input.qualifier))?;
    // A missing function is refused as its missing version or alias would be.
    let record = lambda.function(&f, &f.arn()).unwrap_or_default();
    let key = check_provisioned_target(&record, &f, false)?;
    let p = record.provisioned.get(&key).ok_or_else(provisioned_not_found)?;
    Ok(GetProvisionedConcurrencyConfigResponse {
        requested_provisioned_concurrent_executions: Some(p.requested),
        available_provisioned_concurrent_executions: Some(p.requested),
        allocated_provisioned_concurrent_executions: Some(p.requested),
        status: Some(ProvisionedConcurrencyStatusEnum::from_wire("READY")),
        status_reason: None,
        last_modified: Some(p.last_modified.clone()),
    })
}

pub(crate) async fn delete_provisioned_concurrency_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteProvisionedConcurrencyConfigRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, Some(&input.qualifier))?;
    check_provisioned_target(&lambda.function(&f, &f.arn()).unwrap_or_default(), &f, false)?;
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            let key = check_provisioned_target(record, &f2, false)?;
            // Deleting a configuration that does not exist is idempotent, as on AWS.
            record.provisioned.remove(&key);
            Ok(stratus_core::Unit)
        })
        .await
}

pub(crate) async fn list_provisioned_concurrency_configs(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListProvisionedConcurrencyConfigsRequest,
) -> Result<ListProvisionedConcurrencyConfigsResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda.function(&f, &f.arn())?;
    let items = record.provisioned.iter().map(|(q, p)| {
        (
            q.clone(),
            ProvisionedConcurrencyConfigListItem {
                function_arn: Some(format!("{}:{q}", f.arn())),
                requested_provisioned_concurrent_executions: Some(p.requested),
                available_provisioned_concurrent_executions: Some(p.requested),
                allocated_provisioned_concurrent_executions: Some(p.requested),
                status: Some(ProvisionedConcurrencyStatusEnum::from_wire("READY")),
                status_reason: None,
                last_modified: Some(p.last_modified.clone()),
            },
        )
    });
    let (items, next_marker) = super::page(&PROVISIONED_LISTING, input.marker.as_deref(), input.max_items, items)?;
    Ok(ListProvisionedConcurrencyConfigsResponse {
        provisioned_concurrency_configs: Some(items),
        next_marker,
    })
}
