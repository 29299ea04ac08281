//! TagResource, UntagResource and ListTagsForResource, for alarms (the resources Stratus
//! keeps that take tags).

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_cloudwatch::{
    ListTagsForResourceInput, ListTagsForResourceOutput, Tag, TagResourceInput, TagResourceOutput, UntagResourceInput,
    UntagResourceOutput,
};

use crate::alarms::ALARMS;
use crate::error::{invalid_value, limit_exceeded, resource_not_found, CwError, Result};
use crate::service::CloudWatchService;

/// CloudWatch's tag rules: 50 per resource; `aws:` is AWS's own.
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// Tags as a map, refusing a key given twice.
pub(crate) fn tag_map(tags: Vec<Tag>) -> Result<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    for tag in tags {
        if map.insert(tag.key.clone(), tag.value).is_some() {
            return Err(invalid_value(format!("Duplicate tag key {}.", tag.key)));
        }
    }
    Ok(map)
}

pub(crate) fn check_tags(tags: &BTreeMap<String, String>) -> Result<()> {
    check(tags, RULES).map_err(|violation| match violation {
        TagViolation::TooMany { max, .. } => limit_exceeded(format!("A resource can have at most {max} tags.")),
        TagViolation::KeyLength(key) => invalid_value(format!("The tag key {key} must be 1 to 128 characters long.")),
        TagViolation::ValueLength(key) => {
            invalid_value(format!("The value of tag {key} must be at most 256 characters long."))
        }
        TagViolation::ReservedPrefix(key) => {
            invalid_value(format!("Invalid tag key {key}: the aws: prefix is reserved."))
        }
    })
}

/// The account, region and name of the alarm `arn` names.
fn alarm_of(arn: &str) -> Result<(String, String, String)> {
    let parts: Vec<&str> = arn.splitn(7, ':').collect();
    match parts.as_slice() {
        ["arn", _, "cloudwatch", region, account, "alarm", name] if !name.is_empty() => {
            Ok((account.to_string(), region.to_string(), name.to_string()))
        }
        _ => Err(resource_not_found(format!("The resource {arn} does not exist."))),
    }
}

async fn change_tags(
    cw: &CloudWatchService,
    arn: &str,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<()> + Send + 'static,
) -> Result<()> {
    let (account, region, name) = alarm_of(arn)?;
    let missing = format!("The resource {arn} does not exist.");
    cw.store(&account, &region)?
        .transact_async(move |tx| {
            let mut alarm = ALARMS
                .get(&*tx, name.as_bytes())?
                .ok_or_else(|| resource_not_found(missing))?;
            change(&mut alarm.tags)?;
            ALARMS.put(tx, name.as_bytes(), &alarm)?;
            Ok::<(), CwError>(())
        })
        .await
}

pub(crate) async fn tag_resource(
    cw: &CloudWatchService,
    _ctx: &RequestContext,
    input: TagResourceInput,
) -> Result<TagResourceOutput, AwsError> {
    let added = tag_map(input.tags)?;
    change_tags(cw, &input.resource_arn, move |tags| {
        let mut merged = tags.clone();
        merged.extend(added);
        check_tags(&merged)?;
        *tags = merged;
        Ok(())
    })
    .await?;
    Ok(TagResourceOutput {})
}

pub(crate) async fn untag_resource(
    cw: &CloudWatchService,
    _ctx: &RequestContext,
    input: UntagResourceInput,
) -> Result<UntagResourceOutput, AwsError> {
    let keys = input.tag_keys;
    change_tags(cw, &input.resource_arn, move |tags| {
        for key in &keys {
            tags.remove(key);
        }
        Ok(())
    })
    .await?;
    Ok(UntagResourceOutput {})
}

pub(crate) async fn list_tags_for_resource(
    cw: &CloudWatchService,
    _ctx: &RequestContext,
    input: ListTagsForResourceInput,
) -> Result<ListTagsForResourceOutput, AwsError> {
    // AWS's recorded answer: a deleted (or never created) alarm has no tags, not an error.
    let (account, region, name) = alarm_of(&input.resource_arn)?;
    let store = cw.store(&account, &region)?;
    let tags = ALARMS
        .get(&*store, name.as_bytes())
        .map_err(CwError::from)?
        .map(|alarm| alarm.tags)
        .unwrap_or_default();
    Ok(ListTagsForResourceOutput {
        tags: Some(tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
    })
}
