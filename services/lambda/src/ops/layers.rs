//! Layers: versions published from zips, their policies, and the layer versions functions
//! reference.

use serde_json::{json, Map, Value};
use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;
use stratus_storage::tuple::TupleKey;
use stratus_storage::Table;

use super::{caller, revision};
use crate::code::Source;
use crate::error::{self, conflict, invalid_parameter, not_found};
use crate::policy::{self, MAX_POLICY_BYTES};
use crate::records::{LayerUse, LayerVersionRecord};
use crate::service::{lambda_time, LambdaService};

/// Layer versions by (layer name, version).
const LAYERS: Table<LayerVersionRecord> = Table::new("layers");
/// The last version number each layer name has handed out (numbers are never reused).
const LAYER_COUNTERS: Table<u64> = Table::new("layer_counters");

const LAYER_LISTING: Token = Token::for_listing("lambda:ListLayers");
const LAYER_VERSION_LISTING: Token = Token::for_listing("lambda:ListLayerVersions");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

fn key(name: &str, version: u64) -> Vec<u8> {
    TupleKey::new().str(name).u64(version).into_bytes()
}

fn layer_arn(region: &str, account: &str, name: &str) -> String {
    stratus_core::arn::Arn::new("lambda", region, account, &format!("layer:{name}")).to_string()
}

/// A layer's name from `LayerName`, which may also be its ARN.
fn layer_name(text: &str) -> &str {
    match text.strip_prefix("arn:") {
        Some(_) => text.rsplit(':').next().unwrap_or(text),
        None => text,
    }
}

fn check_version(version: i64) -> Result<u64, AwsError> {
    if version < 1 {
        return Err(invalid_parameter("Layer Version Cannot be less than 1"));
    }
    Ok(version as u64)
}

fn resource_missing() -> AwsError {
    not_found("The resource you requested does not exist.")
}

fn version_missing(ctx: &RequestContext, name: &str, version: u64) -> AwsError {
    not_found(format!(
        "Layer version {}:{version} does not exist.",
        layer_arn(&ctx.region, &ctx.account_id, name)
    ))
}

fn content(ctx: &RequestContext, r: &LayerVersionRecord) -> LayerVersionContentOutput {
    let host = ctx.host.as_deref().unwrap_or("127.0.0.1:4566");
    LayerVersionContentOutput {
        location: Some(format!(
            "http://{host}/_stratus/lambda/layers/{}/{}/{}/{}",
            ctx.account_id, ctx.region, r.name, r.version
        )),
        code_sha256: Some(r.code.sha256.clone()),
        code_size: r.code.size as i64,
        ..LayerVersionContentOutput::default()
    }
}

fn runtimes(r: &LayerVersionRecord) -> Vec<Runtime> {
    r.compatible_runtimes.iter().map(|x| Runtime::from_wire(x)).collect()
}

fn architectures(r: &LayerVersionRecord) -> Vec<Architecture> {
    r.compatible_architectures
        .iter()
        .map(|x| Architecture::from_wire(x))
        .collect()
}

fn get_response(ctx: &RequestContext, r: &LayerVersionRecord) -> GetLayerVersionResponse {
    let arn = layer_arn(&ctx.region, &ctx.account_id, &r.name);
    GetLayerVersionResponse {
        content: Some(content(ctx, r)),
        layer_version_arn: Some(format!("{arn}:{}", r.version)),
        layer_arn: Some(arn),
        description: Some(r.description.clone()),
        created_date: Some(r.created.clone()),
        version: r.version as i64,
        compatible_architectures: Some(architectures(r)),
        compatible_runtimes: Some(runtimes(r)),
        license_info: r.license_info.clone(),
    }
}

fn list_item(ctx: &RequestContext, r: &LayerVersionRecord) -> LayerVersionsListItem {
    LayerVersionsListItem {
        layer_version_arn: Some(format!(
            "{}:{}",
            layer_arn(&ctx.region, &ctx.account_id, &r.name),
            r.version
        )),
        version: r.version as i64,
        description: Some(r.description.clone()),
        created_date: Some(r.created.clone()),
        compatible_architectures: Some(architectures(r)),
        compatible_runtimes: Some(runtimes(r)),
        license_info: r.license_info.clone(),
    }
}

pub(crate) async fn publish_layer_version(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PublishLayerVersionRequest,
) -> Result<PublishLayerVersionResponse, AwsError> {
    let name = layer_name(&input.layer_name).to_owned();
    let code = lambda
        .take_zip(
            caller(ctx),
            Source {
                zip_file: input.content.zip_file,
                s3_bucket: input.content.s3_bucket.as_deref(),
                s3_key: input.content.s3_key.as_deref(),
                s3_object_version: input.content.s3_object_version.as_deref(),
            },
            "layer",
        )
        .await?;
    let mut record = LayerVersionRecord {
        name: name.clone(),
        version: 0,
        description: input.description.unwrap_or_default(),
        created: lambda_time(lambda.now_ms()),
        compatible_runtimes: input
            .compatible_runtimes
            .unwrap_or_default()
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect(),
        compatible_architectures: input
            .compatible_architectures
            .unwrap_or_default()
            .iter()
            .map(|a| a.as_str().to_owned())
            .collect(),
        license_info: input.license_info,
        code,
        policy: Default::default(),
    };
    let record = lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let last = LAYER_COUNTERS.get(tx, &name).map_err(error::storage)?.unwrap_or(0);
            record.version = last + 1;
            LAYER_COUNTERS
                .put(tx, name.as_bytes(), &record.version)
                .map_err(error::storage)?;
            LAYERS
                .put(tx, key(&name, record.version), &record)
                .map_err(error::storage)?;
            Ok(record)
        })
        .await?;
    let g = get_response(ctx, &record);
    Ok(PublishLayerVersionResponse {
        content: g.content,
        layer_arn: g.layer_arn,
        layer_version_arn: g.layer_version_arn,
        description: g.description,
        created_date: g.created_date,
        version: g.version,
        compatible_architectures: g.compatible_architectures,
        compatible_runtimes: g.compatible_runtimes,
        license_info: g.license_info,
    })
}

pub(crate) fn load(
    lambda: &LambdaService,
    account: &str,
    region: &str,
    name: &str,
    version: u64,
) -> Result<Option<LayerVersionRecord>, AwsError> {
    let store = lambda.store(account, region)?;
    LAYERS.get(&*store, key(name, version)).map_err(error::storage)
}

pub(crate) async fn get_layer_version(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetLayerVersionRequest,
) -> Result<GetLayerVersionResponse, AwsError> {
    let version = check_version(input.version_number)?;
    let name = layer_name(&input.layer_name);
    let record = load(lambda, &ctx.account_id, &ctx.region, name, version)?.ok_or_else(resource_missing)?;
    Ok(get_response(ctx, &record))
}

pub(crate) async fn get_layer_version_by_arn(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetLayerVersionByArnRequest,
) -> Result<GetLayerVersionResponse, AwsError> {
    let parts: Vec<&str> = input.arn.split(':').collect();
    if parts.len() != 8 || parts[5] != "layer" {
        return Err(resource_missing());
    }
    let version = parts[7].parse::<i64>().map_err(|_| resource_missing())?;
    let version = check_version(version)?;
    let record = load(lambda, parts[4], parts[3], parts[6], version)?.ok_or_else(resource_missing)?;
    Ok(get_response(ctx, &record))
}

fn all_versions(lambda: &LambdaService, ctx: &RequestContext) -> Result<Vec<LayerVersionRecord>, AwsError> {
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    Ok(LAYERS
        .scan_prefix(&*store, b"")
        .map_err(error::storage)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

fn matches(r: &LayerVersionRecord, runtime: &Option<Runtime>, architecture: &Option<Architecture>) -> bool {
    runtime
        .as_ref()
        .is_none_or(|x| r.compatible_runtimes.iter().any(|c| c == x.as_str()))
        && architecture
            .as_ref()
            .is_none_or(|x| r.compatible_architectures.iter().any(|c| c == x.as_str()))
}

pub(crate) async fn list_layers(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListLayersRequest,
) -> Result<ListLayersResponse, AwsError> {
    let after = input
        .marker
        .as_deref()
        .map(|m| {
            LAYER_LISTING
                .decode_str(m)
                .map_err(|_| invalid_parameter("Invalid marker"))
        })
        .transpose()?;
    let mut latest: Vec<LayerVersionRecord> = Vec::new();
    for r in all_versions(lambda, ctx)? {
        if !matches(&r, &input.compatible_runtime, &input.compatible_architecture) {
            continue;
        }
        match latest.last_mut() {
            Some(last) if last.name == r.name => *last = r,
            _ => latest.push(r),
        }
    }
    let items = latest
        .into_iter()
        .filter(|r| after.as_ref().is_none_or(|a| r.name > *a));
    let (page, more) = take_page(items, PAGE.clamp(input.max_items));
    let next_marker = more
        .then(|| page.last().map(|r| LAYER_LISTING.encode_str(&r.name)))
        .flatten();
    Ok(ListLayersResponse {
        next_marker,
        layers: Some(
            page.iter()
                .map(|r| LayersListItem {
                    layer_name: Some(r.name.clone()),
                    layer_arn: Some(layer_arn(&ctx.region, &ctx.account_id, &r.name)),
                    latest_matching_version: Some(list_item(ctx, r)),
                })
                .collect(),
        ),
    })
}

pub(crate) async fn list_layer_versions(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListLayerVersionsRequest,
) -> Result<ListLayerVersionsResponse, AwsError> {
    let name = layer_name(&input.layer_name);
    let after = input
        .marker
        .as_deref()
        .map(|m| {
            LAYER_VERSION_LISTING
                .decode_str(m)
                .map_err(|_| invalid_parameter("Invalid marker"))
        })
        .transpose()?
        .and_then(|m| m.parse::<u64>().ok());
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let mut versions: Vec<LayerVersionRecord> = LAYERS
        .scan_prefix(&*store, TupleKey::new().str(name).into_bytes())
        .map_err(error::storage)?
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| matches(r, &input.compatible_runtime, &input.compatible_architecture))
        .collect();
    versions.reverse();
    let items = versions.into_iter().filter(|r| after.is_none_or(|a| r.version < a));
    let (page, more) = take_page(items, PAGE.clamp(input.max_items));
    let next_marker = more
        .then(|| {
            page.last()
                .map(|r| LAYER_VERSION_LISTING.encode_str(&r.version.to_string()))
        })
        .flatten();
    Ok(ListLayerVersionsResponse {
        next_marker,
        layer_versions: Some(page.iter().map(|r| list_item(ctx, r)).collect()),
    })
}

pub(crate) async fn delete_layer_version(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteLayerVersionRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let version = check_version(input.version_number)?;
    let name = layer_name(&input.layer_name).to_owned();
    // The zip stays: functions that use the version keep it, as on AWS.
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            LAYERS.delete(tx, key(&name, version));
            Ok(())
        })
        .await?;
    Ok(stratus_core::Unit)
}

/// Changes a layer version's policy in one transaction.
async fn change_policy<R: Send + 'static>(
    lambda: &LambdaService,
    ctx: &RequestContext,
    name: &str,
    version: u64,
    change: impl FnOnce(&mut LayerVersionRecord) -> Result<R, AwsError> + Send + 'static,
) -> Result<R, AwsError> {
    let missing = version_missing(ctx, name, version);
    let name = name.to_owned();
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut record = LAYERS
                .get(tx, key(&name, version))
                .map_err(error::storage)?
                .ok_or(missing)?;
            let out = change(&mut record)?;
            LAYERS.put(tx, key(&name, version), &record).map_err(error::storage)?;
            Ok(out)
        })
        .await
}

pub(crate) async fn add_layer_version_permission(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: AddLayerVersionPermissionRequest,
) -> Result<AddLayerVersionPermissionResponse, AwsError> {
    let version = check_version(input.version_number)?;
    let name = layer_name(&input.layer_name).to_owned();
    let resource = format!("{}:{version}", layer_arn(&ctx.region, &ctx.account_id, &name));
    let principal = if input.principal == "*" {
        json!("*")
    } else {
        policy::principal(&input.principal)?
    };
    let mut statement = Map::new();
    statement.insert("Sid".into(), json!(input.statement_id));
    statement.insert("Effect".into(), json!("Allow"));
    statement.insert("Principal".into(), principal);
    statement.insert("Action".into(), json!(input.action));
    statement.insert("Resource".into(), json!(resource));
    if let Some(org) = &input.organization_id {
        statement.insert(
            "Condition".into(),
            json!({ "StringEquals": { "aws:PrincipalOrgID": org } }),
        );
    }
    let statement = Value::Object(statement);
    change_policy(lambda, ctx, &name, version, move |record| {
        let p = &mut record.policy;
        if input.revision_id.as_ref().is_some_and(|r| *r != p.revision_id) {
            return Err(error::revision_mismatch("GetLayerPolicy"));
        }
        if p.statements
            .iter()
            .any(|s| policy::sid(s) == Some(input.statement_id.as_str()))
        {
            return Err(conflict(format!(
                "The statement id ({}) provided already exists. Please provide a new statement id, or remove the \
                 existing statement.",
                input.statement_id
            )));
        }
        p.statements.push(statement.clone());
        if policy::document(p).len() > MAX_POLICY_BYTES {
            return Err(AwsError::new(
                "PolicyLengthExceededException",
                "Layer policy exceeds the maximum size.",
                400,
            ));
        }
        p.revision_id = revision();
        Ok(AddLayerVersionPermissionResponse {
            statement: Some(statement.to_string()),
            revision_id: Some(p.revision_id.clone()),
        })
    })
    .await
}

pub(crate) async fn remove_layer_version_permission(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: RemoveLayerVersionPermissionRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let version = check_version(input.version_number)?;
    let name = layer_name(&input.layer_name).to_owned();
    change_policy(lambda, ctx, &name, version, move |record| {
        let p = &mut record.policy;
        if input.revision_id.as_ref().is_some_and(|r| *r != p.revision_id) {
            return Err(error::revision_mismatch("GetLayerPolicy"));
        }
        let before = p.statements.len();
        p.statements
            .retain(|s| policy::sid(s) != Some(input.statement_id.as_str()));
        if p.statements.len() == before {
            return Err(not_found(format!(
                "Statement {} is not found in resource policy.",
                input.statement_id
            )));
        }
        p.revision_id = revision();
        Ok(stratus_core::Unit)
    })
    .await
}

pub(crate) async fn get_layer_version_policy(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetLayerVersionPolicyRequest,
) -> Result<GetLayerVersionPolicyResponse, AwsError> {
    let version = check_version(input.version_number)?;
    let name = layer_name(&input.layer_name);
    let record = load(lambda, &ctx.account_id, &ctx.region, name, version)?
        .ok_or_else(|| version_missing(ctx, name, version))?;
    if record.policy.statements.is_empty() {
        return Err(not_found("No policy is associated with the given resource."));
    }
    Ok(GetLayerVersionPolicyResponse {
        policy: Some(policy::document(&record.policy)),
        revision_id: Some(record.policy.revision_id.clone()),
    })
}

impl LambdaService {
    /// The layer versions `arns` name, checked as Lambda checks a function's layers.
    pub(crate) fn layer_uses(
        &self,
        _ctx: &RequestContext,
        arns: &[String],
        region: &str,
    ) -> Result<Vec<LayerUse>, AwsError> {
        if arns.len() > 5 {
            return Err(invalid_parameter("Cannot reference more than 5 layers."));
        }
        let mut uses: Vec<LayerUse> = Vec::with_capacity(arns.len());
        let mut names: Vec<(String, &str)> = Vec::new();
        for arn in arns {
            let parts: Vec<&str> = arn.split(':').collect();
            let missing = || invalid_parameter(format!("Layer version {arn} does not exist."));
            if parts.len() != 8 || parts[5] != "layer" {
                return Err(missing());
            }
            if parts[3] != region {
                return Err(invalid_parameter(format!(
                    "Layers are not in the same region as the function. Layers are expected to be in region {region}."
                )));
            }
            let layer = format!("{}:{}", parts[4], parts[6]);
            if let Some((_, other)) = names.iter().find(|(n, _)| *n == layer) {
                return Err(invalid_parameter(format!(
                    "Two different versions of the same layer are not allowed to be referenced in the same function. \
                     {other} and {arn} are versions of the same layer."
                )));
            }
            names.push((layer, arn));
            let version = parts[7].parse::<u64>().map_err(|_| missing())?;
            let record = load(self, parts[4], parts[3], parts[6], version)?.ok_or_else(missing)?;
            uses.push(LayerUse {
                arn: arn.clone(),
                code_size: record.code.size,
                unzipped_size: record.code.unzipped_size,
                sha256: record.code.sha256.clone(),
                blob: record.code.blob.clone().unwrap_or_default(),
            });
        }
        Ok(uses)
    }
}

/// The bytes of every layer version's zip in the store of `account` and `region`, which the
/// account's `TotalCodeSize` counts.
pub(crate) fn layers_code_size(lambda: &LambdaService, account: &str, region: &str) -> Result<u64, AwsError> {
    let store = lambda.store(account, region)?;
    Ok(LAYERS
        .scan_prefix(&*store, b"")
        .map_err(error::storage)?
        .iter()
        .map(|(_, r)| r.code.size)
        .sum())
}
