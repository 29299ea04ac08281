//! TagResource, UntagResource and ListTagsForResource, on buses and rules.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_eventbridge::*;

use super::buses::{change_tags, read_tags};
use crate::error::{validation, Result};
use crate::service::EventsService;

const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// `tags` as a map, checked with AWS's tag rules.
pub(crate) fn tag_map(tags: Option<&[Tag]>) -> Result<BTreeMap<String, String>> {
    let map: BTreeMap<String, String> = tags
        .unwrap_or_default()
        .iter()
        .map(|t| (t.key.clone(), t.value.clone()))
        .collect();
    checked(map)
}

fn checked(map: BTreeMap<String, String>) -> Result<BTreeMap<String, String>> {
    let too_many = match check(&map, RULES) {
        Ok(()) => None,
        Err(violation) => Some(matches!(violation, TagViolation::TooMany { .. })),
    };
    match too_many {
        None => Ok(map),
        Some(true) => Err(crate::error::limit_exceeded()),
        Some(false) => Err(validation("Invalid tag key or value.")),
    }
}

pub(crate) async fn tag_resource(
    svc: &EventsService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<TagResourceResponse, AwsError> {
    let added = input.tags;
    change_tags(svc, ctx, &input.resource_arn, move |tags| {
        let mut merged = tags.clone();
        merged.extend(added.into_iter().map(|t| (t.key, t.value)));
        *tags = checked(merged)?;
        Ok(())
    })
    .await?;
    Ok(TagResourceResponse {})
}

pub(crate) async fn untag_resource(
    svc: &EventsService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<UntagResourceResponse, AwsError> {
    let keys = input.tag_keys;
    change_tags(svc, ctx, &input.resource_arn, move |tags| {
        for key in &keys {
            tags.remove(key);
        }
        Ok(())
    })
    .await?;
    Ok(UntagResourceResponse {})
}

pub(crate) async fn list_tags_for_resource(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListTagsForResourceRequest,
) -> Result<ListTagsForResourceResponse, AwsError> {
    let tags = read_tags(svc, ctx, &input.resource_arn)?;
    Ok(ListTagsForResourceResponse {
        tags: Some(tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
    })
}
