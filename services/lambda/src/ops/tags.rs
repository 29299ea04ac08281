//! Tags of functions and event source mappings.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::mappings::mapping_missing;
use super::{function_ref, revision};
use crate::error::{invalid_parameter, storage};
use crate::mappings::MAPPINGS;
use crate::names::FunctionRef;
use crate::service::LambdaService;

const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: None,
};

/// Checks a function's tags against Lambda's limits.
pub(crate) fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), AwsError> {
    match check(tags, RULES) {
        Ok(()) => Ok(()),
        Err(TagViolation::TooMany { .. }) => Err(invalid_parameter("Number of tags exceeds resource tag limit.")),
        Err(_) => Err(invalid_parameter(
            "An error occurred and the request cannot be processed.",
        )),
    }
}

/// The pattern AWS checks a tagging request's `Resource` against, as its refusal quotes it.
const RESOURCE_PATTERN: &str = r"arn:(aws[a-zA-Z-]*):lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:(function:[a-zA-Z0-9-_]+(:(\$LATEST|[a-zA-Z0-9-_]+))?|layer:([a-zA-Z0-9-_]+)|code-signing-config:csc-[a-z0-9]{17}|event-source-mapping:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|capacity-provider:[a-zA-Z0-9-_]+)";

/// What a tagging request's `Resource` names.
enum Tagged {
    Function(FunctionRef),
    /// An event source mapping, by UUID.
    Mapping(String),
}

/// What a tagging request's `Resource` names: a function (qualified ARNs are refused) or an
/// event source mapping of the request's account and region.
fn resource(ctx: &RequestContext, arn: &str) -> Result<Tagged, AwsError> {
    let invalid = || {
        AwsError::new(
            "ValidationException",
            format!(
                "1 validation error detected: Value '{arn}' at 'resource' failed to satisfy constraint: Member must \
                 satisfy regular expression pattern: {RESOURCE_PATTERN}"
            ),
            400,
        )
    };
    let parts: Vec<&str> = arn.split(':').collect();
    let is_lambda_arn = arn.starts_with("arn:") && parts.get(2) == Some(&"lambda");
    if is_lambda_arn && parts.len() == 7 && parts[5] == "event-source-mapping" {
        if parts[3] != ctx.region || parts[4] != ctx.account_id {
            return Err(mapping_missing());
        }
        return Ok(Tagged::Mapping(parts[6].to_owned()));
    }
    if !(is_lambda_arn && parts.get(5) == Some(&"function")) {
        return Err(invalid());
    }
    let f = function_ref(ctx, arn, None).map_err(|e| if e.code == "ValidationException" { invalid() } else { e })?;
    if f.qualifier.is_some() {
        return Err(invalid_parameter(
            "Tags on function aliases and versions are not supported. Please specify a function ARN.",
        ));
    }
    Ok(Tagged::Function(f))
}

/// Runs `change` on the tags of event source mapping `uuid`.
async fn update_mapping_tags(
    lambda: &LambdaService,
    ctx: &RequestContext,
    uuid: String,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<(), AwsError> + Send + 'static,
) -> Result<stratus_core::Unit, AwsError> {
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut record = MAPPINGS
                .get(tx, uuid.as_bytes())
                .map_err(storage)?
                .ok_or_else(mapping_missing)?;
            change(&mut record.tags)?;
            MAPPINGS.put(tx, uuid.as_bytes(), &record).map_err(storage)?;
            Ok(stratus_core::Unit)
        })
        .await
}

pub(crate) async fn tag_resource(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let target = resource(ctx, &input.resource)?;
    if input.tags.is_empty() {
        return Err(invalid_parameter(
            "An error occurred and the request cannot be processed.",
        ));
    }
    let f = match target {
        Tagged::Function(f) => f,
        Tagged::Mapping(uuid) => {
            return update_mapping_tags(lambda, ctx, uuid, move |tags| {
                let mut merged = tags.clone();
                merged.extend(input.tags);
                check_tags(&merged)?;
                *tags = merged;
                Ok(())
            })
            .await
        }
    };
    lambda
        .update(&f, f.arn(), move |record, _| {
            let mut tags = record.tags.clone();
            tags.extend(input.tags);
            check_tags(&tags)?;
            record.tags = tags;
            // A tag change is a change of the function: AWS gives it a new revision.
            record.latest.revision_id = revision();
            record.latest.settled_revision_id = record.latest.revision_id.clone();
            Ok(stratus_core::Unit)
        })
        .await
}

pub(crate) async fn untag_resource(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let target = resource(ctx, &input.resource)?;
    if input.tag_keys.is_empty() {
        return Err(AwsError::new(
            "ValidationException",
            "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null",
            400,
        ));
    }
    let f = match target {
        Tagged::Function(f) => f,
        Tagged::Mapping(uuid) => {
            return update_mapping_tags(lambda, ctx, uuid, move |tags| {
                for key in &input.tag_keys {
                    tags.remove(key);
                }
                Ok(())
            })
            .await
        }
    };
    lambda
        .update(&f, f.arn(), move |record, _| {
            for key in &input.tag_keys {
                record.tags.remove(key);
            }
            record.latest.revision_id = revision();
            record.latest.settled_revision_id = record.latest.revision_id.clone();
            Ok(stratus_core::Unit)
        })
        .await
}

pub(crate) async fn list_tags(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListTagsRequest,
) -> Result<ListTagsResponse, AwsError> {
    let tags = match resource(ctx, &input.resource)? {
        Tagged::Function(f) => lambda.function(&f, &f.arn())?.tags,
        Tagged::Mapping(uuid) => {
            let store = lambda.store(&ctx.account_id, &ctx.region)?;
            MAPPINGS
                .get(&*store, uuid.as_bytes())
                .map_err(storage)?
                .ok_or_else(mapping_missing)?
                .tags
        }
    };
    Ok(ListTagsResponse { tags: Some(tags) })
}
