//! Per-function settings with no behaviour behind them in Stratus: recursion detection and
//! runtime management, stored and answered as AWS does.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, resolve, unqualified_only};
use crate::config::runtime_version_arn;
use crate::service::LambdaService;

pub(crate) async fn get_function_recursion_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionRecursionConfigRequest,
) -> Result<GetFunctionRecursionConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let record = lambda.function(&f, &f.arn())?;
    Ok(GetFunctionRecursionConfigResponse {
        recursive_loop: Some(RecursiveLoop::from_wire(
            record.recursive_loop.as_deref().unwrap_or("Terminate"),
        )),
    })
}

pub(crate) async fn put_function_recursion_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutFunctionRecursionConfigRequest,
) -> Result<PutFunctionRecursionConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let value = input.recursive_loop.as_str().to_owned();
    let stored = value.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            record.recursive_loop = Some(stored);
            Ok(())
        })
        .await?;
    Ok(PutFunctionRecursionConfigResponse {
        recursive_loop: Some(RecursiveLoop::from_wire(&value)),
    })
}

pub(crate) async fn get_runtime_management_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetRuntimeManagementConfigRequest,
) -> Result<GetRuntimeManagementConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let record = lambda.function(&f, &f.qualified_arn())?;
    resolve(&record, &f)?;
    let key = f.qualifier.clone().unwrap_or_default();
    let (on, arn) = record
        .runtime_management
        .get(&key)
        .cloned()
        .unwrap_or_else(|| ("Auto".to_owned(), None));
    Ok(GetRuntimeManagementConfigResponse {
        update_runtime_on: Some(UpdateRuntimeOn::from_wire(&on)),
        function_arn: Some(f.qualified_arn()),
        runtime_version_arn: arn,
    })
}

pub(crate) async fn put_runtime_management_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutRuntimeManagementConfigRequest,
) -> Result<PutRuntimeManagementConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let on = input.update_runtime_on.as_str().to_owned();
    let f2 = f.clone();
    let region = f.region.clone();
    let (stored_on, arn) = lambda
        .update(&f, f.qualified_arn(), move |record, _| {
            let runtime = resolve(record, &f2)?.runtime.clone().unwrap_or_default();
            let arn = match on.as_str() {
                "Manual" => Some(
                    input
                        .runtime_version_arn
                        .unwrap_or_else(|| runtime_version_arn(&region, &runtime)),
                ),
                _ => None,
            };
            record
                .runtime_management
                .insert(f2.qualifier.clone().unwrap_or_default(), (on.clone(), arn.clone()));
            Ok((on, arn))
        })
        .await?;
    Ok(PutRuntimeManagementConfigResponse {
        update_runtime_on: UpdateRuntimeOn::from_wire(&stored_on),
        function_arn: f.qualified_arn(),
        runtime_version_arn: arn,
    })
}
