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

/// The function a tagging request's `Resource` names; qualified ARNs are refused.
fn resource(ctx: &RequestContext, arn: &str) -> Result<FunctionRef, AwsError> {
    let f = function_ref(ctx, arn, None)?;
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
