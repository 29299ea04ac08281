//! Tags on log groups: TagResource, UntagResource, ListTagsForResource (by ARN) and the older
//! TagLogGroup, UntagLogGroup, ListTagsLogGroup (by name).

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;

use super::groups::change_group;
use crate::error::{invalid_parameter, not_found, Result};
use crate::records::DESTINATIONS;
use crate::service::{group_of_identifier, load_group, LogsService};

/// A log group carries at most 50 tags (API reference, TagResource).
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

pub(crate) fn check_tags(tags: &BTreeMap<String, String>) -> Result<()> {
    match check(tags, RULES) {
        Ok(()) => Ok(()),
        Err(TagViolation::TooMany { .. }) => {
            Err(AwsError::new("TooManyTagsException", "A resource can have no more than 50 tags.", 400).into())
        }
        Err(_) => Err(invalid_parameter("Invalid tag key or value.")),
    }
}

/// What a tagging ARN names: a log group or a destination.
enum Tagged {
    Group(String),
    Destination(String),
}

fn tagged(arn: &str) -> Result<Tagged> {
    let missing = || not_found(format!("The specified resource {arn} does not exist."));
    if !arn.starts_with("arn:") {
        return Err(missing());
    }
    if arn.contains(":log-group:") {
        Ok(Tagged::Group(group_of_identifier(arn).to_owned()))
    } else if let Some((_, name)) = arn.split_once(":destination:") {
        Ok(Tagged::Destination(name.to_owned()))
    } else {
        Err(missing())
    }
}

/// Changes the tags of what `arn` names with `change`.
async fn change_tags(
    logs: &LogsService,
    ctx: &RequestContext,
    target: Tagged,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<()> + Send + 'static,
) -> Result<Unit, AwsError> {
    match target {
        Tagged::Group(group) => {
            change_group(logs, ctx, group, move |g| {
                change(&mut g.tags)?;
                Ok(Unit {})
            })
            .await
        }
        Tagged::Destination(name) => {
            logs.transact(&ctx.account_id, &ctx.region, move |tx| {
                let Some(mut d) = DESTINATIONS.get(&*tx, name.as_bytes())? else {
                    return Err(not_found("The specified destination does not exist."));
                };
                change(&mut d.tags)?;
                DESTINATIONS.put(tx, name.into_bytes(), &d)?;
                Ok(Unit {})
            })
            .await
        }
    }
}

fn merging(
    added: BTreeMap<String, String>,
) -> impl FnOnce(&mut BTreeMap<String, String>) -> Result<()> + Send + 'static {
    move |tags| {
        let mut merged = tags.clone();
        merged.extend(added);
        check_tags(&merged)?;
        *tags = merged;
        Ok(())
    }
}

fn removing(keys: Vec<String>) -> impl FnOnce(&mut BTreeMap<String, String>) -> Result<()> + Send + 'static {
    move |tags| {
        for key in &keys {
            tags.remove(key);
        }
        Ok(())
    }
}

async fn tags_of(
    logs: &LogsService,
    ctx: &RequestContext,
    target: Tagged,
) -> Result<BTreeMap<String, String>, AwsError> {
    logs.read(&ctx.account_id, &ctx.region, move |store| match target {
        Tagged::Group(group) => Ok(load_group(store, &group)?.tags),
        Tagged::Destination(name) => match DESTINATIONS.get(store, name.as_bytes())? {
            Some(d) => Ok(d.tags),
            None => Err(not_found("The specified destination does not exist.")),
        },
    })
    .await
}

pub(crate) async fn tag_resource(
    logs: &LogsService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<Unit, AwsError> {
    change_tags(logs, ctx, tagged(&input.resource_arn)?, merging(input.tags)).await
}

pub(crate) async fn untag_resource(
    logs: &LogsService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<Unit, AwsError> {
    change_tags(logs, ctx, tagged(&input.resource_arn)?, removing(input.tag_keys)).await
}

pub(crate) async fn list_tags_for_resource(
    logs: &LogsService,
    ctx: &RequestContext,
    input: ListTagsForResourceRequest,
) -> Result<ListTagsForResourceResponse, AwsError> {
    Ok(ListTagsForResourceResponse {
        tags: Some(tags_of(logs, ctx, tagged(&input.resource_arn)?).await?),
    })
}

pub(crate) async fn tag_log_group(
    logs: &LogsService,
    ctx: &RequestContext,
    input: TagLogGroupRequest,
) -> Result<Unit, AwsError> {
    change_tags(logs, ctx, Tagged::Group(input.log_group_name), merging(input.tags)).await
}

pub(crate) async fn untag_log_group(
    logs: &LogsService,
    ctx: &RequestContext,
    input: UntagLogGroupRequest,
) -> Result<Unit, AwsError> {
    change_tags(logs, ctx, Tagged::Group(input.log_group_name), removing(input.tags)).await
}

pub(crate) async fn list_tags_log_group(
    logs: &LogsService,
    ctx: &RequestContext,
    input: ListTagsLogGroupRequest,
) -> Result<ListTagsLogGroupResponse, AwsError> {
    Ok(ListTagsLogGroupResponse {
        tags: Some(tags_of(logs, ctx, Tagged::Group(input.log_group_name)).await?),
    })
}
