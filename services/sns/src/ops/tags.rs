//! Topic tags.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::AwsError;
use stratus_core::RequestContext;
use stratus_gen_sns::*;

use crate::error::{invalid_parameter, resource_not_found, SnsError};
use crate::names::TopicRef;
use crate::service::SnsService;
use crate::store::TOPICS;

/// SNS's tag rules: 50 per topic; `aws:` is AWS's own.
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// Tags as a map, refusing a key given twice.
pub(crate) fn tag_map(tags: Vec<Tag>) -> Result<BTreeMap<String, String>, SnsError> {
    let mut map = BTreeMap::new();
    for tag in tags {
        if map.insert(tag.key, tag.value).is_some() {
            return Err(invalid_parameter("Duplicated keys are not allowed."));
        }
    }
    Ok(map)
}

/// Checks a topic's tags against SNS's limits.
pub(crate) fn check_new_tags(tags: &BTreeMap<String, String>) -> Result<(), SnsError> {
    check(tags, RULES).map_err(|violation| match violation {
        TagViolation::TooMany { .. } => SnsError(AwsError::new(
            "TagLimitExceeded",
            "Could not complete request: tag quota of per resource exceeded",
            400,
        )),
        TagViolation::KeyLength(_) => invalid_parameter("Tag Reason: Key must be 1 to 128 characters long"),
        TagViolation::ValueLength(_) => invalid_parameter("Tag Reason: Value must be at most 256 characters long"),
        TagViolation::ReservedPrefix(_) => invalid_parameter("Tag Reason: Keys may not start with aws:"),
    })
}

pub(crate) async fn tag_resource(
    sns: &SnsService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<TagResourceResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "ResourceArn", &input.resource_arn)?;
    let added = tag_map(input.tags)?;
    let name = topic.name.clone();
    sns.transact(&topic.account, &topic.region, move |tx| {
        let mut record = TOPICS.get(tx, &name)?.ok_or_else(resource_not_found)?;
        let mut tags = record.tags.clone();
        tags.extend(added);
        check_new_tags(&tags)?;
        record.tags = tags;
        TOPICS.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(TagResourceResponse {})
}

pub(crate) async fn untag_resource(
    sns: &SnsService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<UntagResourceResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "ResourceArn", &input.resource_arn)?;
    let name = topic.name.clone();
    sns.transact(&topic.account, &topic.region, move |tx| {
        let mut record = TOPICS.get(tx, &name)?.ok_or_else(resource_not_found)?;
        for key in &input.tag_keys {
            record.tags.remove(key);
        }
        TOPICS.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(UntagResourceResponse {})
}

pub(crate) async fn list_tags_for_resource(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ListTagsForResourceRequest,
) -> Result<ListTagsForResourceResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "ResourceArn", &input.resource_arn)?;
    let store = sns.store(&topic.account, &topic.region)?;
    let record = TOPICS.get(&*store, &topic.name)?.ok_or_else(resource_not_found)?;
    Ok(ListTagsForResourceResponse {
        tags: Some(record.tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
    })
}
