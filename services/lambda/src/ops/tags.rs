//! Tags of functions.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, revision};
use crate::error::invalid_parameter;
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

/// The function a tagging request's `Resource` names; qualified ARNs are refused.
fn resource(ctx: &RequestContext, arn: &str) -> Result<FunctionRef, AwsError> {
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
    let is_function_arn =
        arn.starts_with("arn:") && arn.split(':').nth(2) == Some("lambda") && arn.split(':').nth(5) == Some("function");
    if !is_function_arn {
        return Err(invalid());
    }
    let f = function_ref(ctx, arn, None).map_err(|e| if e.code == "ValidationException" { invalid() } else { e })?;
    if f.qualifier.is_some() {
        return Err(invalid_parameter(
            "Tags on function aliases and versions are not supported. Please specify a function ARN.",
        ));
    }
    Ok(f)
}

pub(crate) async fn tag_resource(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = resource(ctx, &input.resource)?;
    if input.tags.is_empty() {
        return Err(invalid_parameter(
            "An error occurred and the request cannot be processed.",
        ));
    }
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
    let f = resource(ctx, &input.resource)?;
    if input.tag_keys.is_empty() {
        return Err(AwsError::new(
            "ValidationException",
            "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null",
            400,
        ));
    }
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
    let f = resource(ctx, &input.resource)?;
    let record = lambda.function(&f, &f.arn())?;
    Ok(ListTagsResponse {
        tags: Some(record.tags),
    })
}
