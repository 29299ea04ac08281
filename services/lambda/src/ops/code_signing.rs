//! Code signing configurations and which functions use them. Stored and answered as AWS does;
//! code is not checked against them.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;
use stratus_storage::Table;

use super::{function_ref, unqualified_only};
use crate::error::{self, not_found};
use crate::names::function_arn;
use crate::records::CodeSigningRecord;
use crate::service::{lambda_time, LambdaService, FUNCTIONS};

/// Code signing configurations by id.
const CODE_SIGNING: Table<CodeSigningRecord> = Table::new("code_signing");

const CSC_LISTING: Token = Token::for_listing("lambda:ListCodeSigningConfigs");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 10_000,
    default: 50,
};

fn csc_arn(ctx: &RequestContext, id: &str) -> String {
    stratus_core::arn::Arn::new(
        "lambda",
        &ctx.region,
        &ctx.account_id,
        &format!("code-signing-config:{id}"),
    )
    .to_string()
}

/// The id an ARN (or bare id) names.
fn csc_id(arn: &str) -> &str {
    arn.rsplit(':').next().unwrap_or(arn)
}

fn missing(arn: &str) -> AwsError {
    not_found(format!("The Lambda code signing configuration {arn} can not be found."))
}

fn view(ctx: &RequestContext, r: &CodeSigningRecord) -> CodeSigningConfig {
    CodeSigningConfig {
        code_signing_config_id: r.id.clone(),
        code_signing_config_arn: csc_arn(ctx, &r.id),
        description: Some(r.description.clone()),
        allowed_publishers: AllowedPublishers {
            signing_profile_version_arns: r.signing_profile_version_arns.clone(),
        },
        code_signing_policies: CodeSigningPolicies {
            untrusted_artifact_on_deployment: Some(CodeSigningPolicy::from_wire(&r.untrusted_artifact_on_deployment)),
        },
        last_modified: r.last_modified.clone(),
    }
}

fn load(lambda: &LambdaService, ctx: &RequestContext, arn: &str) -> Result<Option<CodeSigningRecord>, AwsError> {
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    CODE_SIGNING.get(&*store, csc_id(arn)).map_err(error::storage)
}

pub(crate) async fn create_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: CreateCodeSigningConfigRequest,
) -> Result<CreateCodeSigningConfigResponse, AwsError> {
    let id = format!("csc-{}", stratus_core::id::random_string(b"0123456789abcdef", 17));
    let record = CodeSigningRecord {
        id: id.clone(),
        description: input.description.unwrap_or_default(),
        signing_profile_version_arns: input.allowed_publishers.signing_profile_version_arns,
        untrusted_artifact_on_deployment: input
            .code_signing_policies
            .and_then(|p| p.untrusted_artifact_on_deployment)
            .map_or("Warn".to_owned(), |p| p.as_str().to_owned()),
        last_modified: lambda_time(lambda.now_ms()),
    };
    let answer = view(ctx, &record);
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            CODE_SIGNING.put(tx, id.as_bytes(), &record).map_err(error::storage)
        })
        .await?;
    Ok(CreateCodeSigningConfigResponse {
        code_signing_config: answer,
    })
}

pub(crate) async fn get_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetCodeSigningConfigRequest,
) -> Result<GetCodeSigningConfigResponse, AwsError> {
    let record =
        load(lambda, ctx, &input.code_signing_config_arn)?.ok_or_else(|| missing(&input.code_signing_config_arn))?;
    Ok(GetCodeSigningConfigResponse {
        code_signing_config: view(ctx, &record),
    })
}

pub(crate) async fn update_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateCodeSigningConfigRequest,
) -> Result<UpdateCodeSigningConfigResponse, AwsError> {
    let arn = input.code_signing_config_arn.clone();
    let now = lambda_time(lambda.now_ms());
    let record = lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let id = csc_id(&arn).to_owned();
            let mut r = CODE_SIGNING
                .get(tx, &id)
                .map_err(error::storage)?
                .ok_or_else(|| missing(&arn))?;
            if let Some(d) = input.description {
                r.description = d;
            }
            if let Some(p) = input.allowed_publishers {
                r.signing_profile_version_arns = p.signing_profile_version_arns;
            }
            if let Some(p) = input
                .code_signing_policies
                .and_then(|p| p.untrusted_artifact_on_deployment)
            {
                r.untrusted_artifact_on_deployment = p.as_str().to_owned();
            }
            r.last_modified = now;
            CODE_SIGNING.put(tx, id.as_bytes(), &r).map_err(error::storage)?;
            Ok(r)
        })
        .await?;
    Ok(UpdateCodeSigningConfigResponse {
        code_signing_config: view(ctx, &record),
    })
}

pub(crate) async fn delete_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteCodeSigningConfigRequest,
) -> Result<DeleteCodeSigningConfigResponse, AwsError> {
    let arn = input.code_signing_config_arn;
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let id = csc_id(&arn).to_owned();
            if CODE_SIGNING.get(tx, &id).map_err(error::storage)?.is_none() {
                return Err(missing(&arn));
            }
            CODE_SIGNING.delete(tx, id.as_bytes());
            Ok(())
        })
        .await?;
    Ok(DeleteCodeSigningConfigResponse {})
}

pub(crate) async fn list_code_signing_configs(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListCodeSigningConfigsRequest,
) -> Result<ListCodeSigningConfigsResponse, AwsError> {
    let after = input
        .marker
        .as_deref()
        .map(|m| {
            CSC_LISTING
                .decode_str(m)
                .map_err(|_| error::invalid_parameter("Invalid marker"))
        })
        .transpose()?;
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let all = CODE_SIGNING.scan_prefix(&*store, b"").map_err(error::storage)?;
    let items = all
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| after.as_ref().is_none_or(|a| r.id > *a));
    let (page, more) = take_page(items, PAGE.clamp(input.max_items));
    let next_marker = more
        .then(|| page.last().map(|r| CSC_LISTING.encode_str(&r.id)))
        .flatten();
    Ok(ListCodeSigningConfigsResponse {
        next_marker,
        code_signing_configs: Some(page.iter().map(|r| view(ctx, r)).collect()),
    })
}

pub(crate) async fn list_functions_by_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListFunctionsByCodeSigningConfigRequest,
) -> Result<ListFunctionsByCodeSigningConfigResponse, AwsError> {
    let wanted = csc_id(&input.code_signing_config_arn).to_owned();
    if load(lambda, ctx, &wanted)?.is_none() {
        return Err(missing(&input.code_signing_config_arn));
    }
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let arns = FUNCTIONS
        .scan_prefix(&*store, b"")
        .map_err(error::storage)?
        .into_iter()
        .filter(|(_, r)| r.code_signing_config_arn.as_deref().map(csc_id) == Some(wanted.as_str()))
        .map(|(_, r)| function_arn(&ctx.region, &ctx.account_id, &r.name))
        .collect();
    Ok(ListFunctionsByCodeSigningConfigResponse {
        next_marker: None,
        function_arns: Some(arns),
    })
}

pub(crate) async fn put_function_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutFunctionCodeSigningConfigRequest,
) -> Result<PutFunctionCodeSigningConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    // The configuration is checked before the function, as AWS does.
    if load(lambda, ctx, &input.code_signing_config_arn)?.is_none() {
        return Err(AwsError::new(
            "CodeSigningConfigNotFoundException",
            format!(
                "The code signing configuration cannot be found. Check that the provided configuration is not \
                 deleted: {}.",
                input.code_signing_config_arn
            ),
            404,
        ));
    }
    let arn = input.code_signing_config_arn.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            record.code_signing_config_arn = Some(arn);
            Ok(())
        })
        .await?;
    Ok(PutFunctionCodeSigningConfigResponse {
        code_signing_config_arn: input.code_signing_config_arn,
        function_name: f.name,
    })
}

pub(crate) async fn get_function_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionCodeSigningConfigRequest,
) -> Result<GetFunctionCodeSigningConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let record = lambda.function(&f, &f.arn())?;
    let function_name = record
        .code_signing_config_arn
        .as_ref()
        .map(|_| f.name.clone())
        .unwrap_or_default();
    Ok(GetFunctionCodeSigningConfigResponse {
        code_signing_config_arn: record.code_signing_config_arn.unwrap_or_default(),
        function_name,
    })
}

pub(crate) async fn delete_function_code_signing_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteFunctionCodeSigningConfigRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    lambda
        .update(&f, f.arn(), |record, _| {
            record.code_signing_config_arn = None;
            Ok(stratus_core::Unit)
        })
        .await
}
