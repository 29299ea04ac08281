//! Versions and aliases.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::functions::{check_revision, publish};
use super::{function_ref, revision, unqualified_only, version_named};
use crate::config::{configuration, View};
use crate::error::{self, conflict, function_not_found, invalid_parameter, not_found};
use crate::function_urls;
use crate::names::{FunctionRef, LATEST};
use crate::records::AliasRecord;
use crate::routing;
use crate::service::LambdaService;

const VERSION_LISTING: Token = Token::for_listing("lambda:ListVersionsByFunction");
const ALIAS_LISTING: Token = Token::for_listing("lambda:ListAliases");
/// Lambda's listings answer at most 50 a page, whatever `MaxItems` asks.
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

pub(crate) async fn publish_version(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PublishVersionRequest,
) -> Result<FunctionConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let now = lambda.now_ms();
    let (name, region, arn) = (f.name.clone(), f.region.clone(), f.arn());
    lambda
        .update(&f, f.arn(), move |record, _| {
            if let Some(sha) = &input.code_sha256 {
                if *sha != record.latest.code.sha256 {
                    return Err(invalid_parameter(format!(
                        "CodeSHA256 ({sha}) is different from current CodeSHA256 in $LATEST ({}). Please try again with \
                         the CodeSHA256 in $LATEST.",
                        record.latest.code.sha256
                    )));
                }
            }
            check_revision(input.revision_id.as_deref(), &record.latest.revision_id)?;
            let v = publish(record, input.description, now);
            Ok(configuration(&name, format!("{arn}:{}", v.version), &region, &v, View::Read))
        })
        .await
}

/// A listing's marker, read back.
fn after(token: &Token, marker: Option<&str>) -> Result<Option<String>, AwsError> {
    marker
        .map(|m| token.decode_str(m).map_err(|_| invalid_parameter("Invalid marker")))
        .transpose()
}

pub(crate) async fn list_versions_by_function(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListVersionsByFunctionRequest,
) -> Result<ListVersionsByFunctionResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda.function(&f, &f.arn())?;
    let after = after(&VERSION_LISTING, input.marker.as_deref())?;
    let arn = f.arn();
    let items = std::iter::once((String::new(), &record.latest))
        .chain(record.versions.iter().map(|(n, v)| (format!("{n:020}"), v)))
        .filter(|(key, _)| after.as_ref().is_none_or(|a| key > a));
    let (page, more) = take_page(items, PAGE.clamp(input.max_items));
    let next_marker = more
        .then(|| page.last().map(|(k, _)| VERSION_LISTING.encode_str(k)))
        .flatten();
    Ok(ListVersionsByFunctionResponse {
        next_marker,
        versions: Some(
            page.into_iter()
                .map(|(_, v)| configuration(&f.name, format!("{arn}:{}", v.version), &f.region, v, View::Listed))
                .collect(),
        ),
    })
}

fn alias_configuration(f: &FunctionRef, alias: &AliasRecord) -> AliasConfiguration {
    AliasConfiguration {
        alias_arn: Some(format!("{}:{}", f.arn(), alias.name)),
        name: Some(alias.name.clone()),
        function_version: Some(alias.function_version.clone()),
        description: Some(alias.description.clone()),
        routing_config: (!alias.weights.is_empty()).then(|| AliasRoutingConfiguration {
            additional_version_weights: Some(alias.weights.clone()),
        }),
        revision_id: Some(alias.revision_id.clone()),
    }
}

/// An alias that does not exist, as GetAlias words it.
fn alias_not_found(f: &FunctionRef, name: &str) -> AwsError {
    not_found(format!("Cannot find alias arn: {}:{name}", f.arn()))
}

pub(crate) async fn create_alias(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: CreateAliasRequest,
) -> Result<AliasConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let f2 = f.clone();
    // A missing function is named with the version the alias was to point at.
    let missing = format!("{}:{}", f.arn(), input.function_version);
    lambda
        .update(&f, missing, move |record, _| {
            let f = f2;
            if version_named(record, &input.function_version).is_none() {
                return Err(function_not_found(&format!("{}:{}", f.arn(), input.function_version)));
            }
            if record.aliases.contains_key(&input.name) {
                return Err(conflict(format!("Alias already exists: {}:{}", f.arn(), input.name)));
            }
            let weights = input
                .routing_config
                .and_then(|r| r.additional_version_weights)
                .unwrap_or_default();
            routing::check(
                &input.function_version,
                &weights,
                |v| version_named(record, v).is_some_and(|c| c.version != LATEST),
                &f.arn(),
            )?;
            let alias = AliasRecord {
                name: input.name.clone(),
                function_version: input.function_version,
                description: input.description.unwrap_or_default(),
                weights,
                revision_id: revision(),
            };
            let answer = alias_configuration(&f, &alias);
            record.aliases.insert(input.name, alias);
            Ok(answer)
        })
        .await
}

pub(crate) async fn get_alias(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetAliasRequest,
) -> Result<AliasConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda.function(&f, &f.arn())?;
    let alias = record
        .aliases
        .get(&input.name)
        .ok_or_else(|| alias_not_found(&f, &input.name))?;
    Ok(alias_configuration(&f, alias))
}

pub(crate) async fn update_alias(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateAliasRequest,
) -> Result<AliasConfiguration, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    unqualified_only(&f)?;
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            let f = f2;
            let Some(mut alias) = record.aliases.get(&input.name).cloned() else {
                return Err(not_found(format!("Alias not found: {}:{}", f.arn(), input.name)));
            };
            if let Some(r) = &input.revision_id {
                if *r != alias.revision_id {
                    return Err(error::revision_mismatch("GetFunction/GetAlias"));
                }
            }
            if let Some(v) = input.function_version {
                if version_named(record, &v).is_none() {
                    return Err(function_not_found(&format!("{}:{v}", f.arn())));
                }
                alias.function_version = v;
            }
            if let Some(d) = input.description {
                alias.description = d;
            }
            if let Some(r) = input.routing_config {
                alias.weights = r.additional_version_weights.unwrap_or_default();
            }
            routing::check(
                &alias.function_version,
                &alias.weights,
                |v| version_named(record, v).is_some_and(|c| c.version != LATEST),
                &f.arn(),
            )?;
            alias.revision_id = revision();
            let answer = alias_configuration(&f, &alias);
            record.aliases.insert(input.name, alias);
            Ok(answer)
        })
        .await
}

pub(crate) async fn delete_alias(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteAliasRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    lambda
        .update(&f, f.arn(), move |record, tx| {
            record.aliases.remove(&input.name);
            record.policies.remove(&input.name);
            record.event_invoke.remove(&input.name);
            function_urls::forget(tx, record.urls.remove(&input.name).iter());
            record.provisioned.remove(&input.name);
            Ok(stratus_core::Unit)
        })
        .await
}

pub(crate) async fn list_aliases(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListAliasesRequest,
) -> Result<ListAliasesResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda.function(&f, &f.arn())?;
    let after = after(&ALIAS_LISTING, input.marker.as_deref())?;
    let items = record
        .aliases
        .values()
        .filter(|a| {
            input
                .function_version
                .as_ref()
                .is_none_or(|v| a.function_version == *v || a.weights.contains_key(v))
        })
        .filter(|a| after.as_ref().is_none_or(|m| a.name > *m));
    let (page, more) = take_page(items, PAGE.clamp(input.max_items));
    let next_marker = more
        .then(|| page.last().map(|a| ALIAS_LISTING.encode_str(&a.name)))
        .flatten();
    Ok(ListAliasesResponse {
        next_marker,
        aliases: Some(page.into_iter().map(|a| alias_configuration(&f, a)).collect()),
    })
}
