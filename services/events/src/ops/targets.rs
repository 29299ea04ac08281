//! Targets: PutTargets, RemoveTargets and ListTargetsByRule, with AWS's checks and limits.

use stratus_core::paging::{take_page, Token};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_eventbridge::*;

use crate::error::{invalid_token, limit_exceeded, validation, Result};
use crate::listing::PAGE;
use crate::records::{StoredTarget, RULES};
use crate::service::{bus_name, load_rule, rule_key, EventsService};
use crate::transform::{placeholders, PREDEFINED};

/// The most targets one rule may have.
pub(crate) const MAX_TARGETS: usize = 5;

const TARGET_LISTING: Token = Token::for_listing("events:ListTargetsByRule");

/// Refuses a target AWS refuses for the whole request.
pub(crate) fn check_target(target: &Target) -> Result<()> {
    if stratus_core::arn::Arn::parse(&target.arn).is_err() {
        return Err(validation(format!(
            "Parameter {} is not valid. Reason: Provided Arn is not in correct format.",
            target.arn
        )));
    }
    let inputs = [
        target.input.is_some(),
        target.input_path.is_some(),
        target.input_transformer.is_some(),
    ];
    if inputs.into_iter().filter(|&given| given).count() > 1 {
        return Err(validation(format!(
            "Only one of Input, InputPath, or InputTransformer must be provided for target {}.",
            target.id
        )));
    }
    if let Some(transformer) = &target.input_transformer {
        let paths = transformer.input_paths_map.clone().unwrap_or_default();
        for name in placeholders(&transformer.input_template) {
            if !paths.contains_key(name) && !PREDEFINED.contains(&name) {
                return Err(validation(format!(
                    "InputTemplate for target {} contains invalid placeholder {name}.",
                    target.id
                )));
            }
        }
        for (name, path) in &paths {
            if PREDEFINED.contains(&name.as_str()) {
                return Err(validation(format!(
                    "Parameter InputPathsMap is not valid. Reason: {name} is a reserved key."
                )));
            }
            if !crate::transform::valid_path(path) {
                return Err(validation(format!(
                    "Target {} InputPathsMap contains invalid JSONPath {path}.",
                    target.id
                )));
            }
        }
    }
    if let Some(path) = &target.input_path {
        if !crate::transform::valid_path(path) {
            return Err(validation(format!(
                "Target {} InputPath contains invalid JSONPath {path}.",
                target.id
            )));
        }
    }
    Ok(())
}

pub(crate) async fn put_targets(
    svc: &EventsService,
    ctx: &RequestContext,
    input: PutTargetsRequest,
) -> Result<PutTargetsResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    for target in &input.targets {
        check_target(target)?;
    }
    let rule_name = input.rule;
    let targets = input.targets;
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut rule = load_rule(tx, &bus, &rule_name)?;
        let mut after = rule.targets.clone();
        for target in targets {
            let stored = StoredTarget::new(target);
            match after.iter_mut().find(|t| t.id == stored.id) {
                Some(existing) => *existing = stored,
                None => after.push(stored),
            }
        }
        if after.len() > MAX_TARGETS {
            return Err(limit_exceeded());
        }
        rule.targets = after;
        RULES.put(tx, rule_key(&bus, &rule_name), &rule)?;
        Ok(())
    })
    .await?;
    Ok(PutTargetsResponse {
        failed_entry_count: 0,
        failed_entries: Some(Vec::new()),
    })
}

pub(crate) async fn remove_targets(
    svc: &EventsService,
    ctx: &RequestContext,
    input: RemoveTargetsRequest,
) -> Result<RemoveTargetsResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    let rule_name = input.rule;
    let ids = input.ids;
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut rule = load_rule(tx, &bus, &rule_name)?;
        rule.targets.retain(|t| !ids.contains(&t.id));
        RULES.put(tx, rule_key(&bus, &rule_name), &rule)?;
        Ok(())
    })
    .await?;
    Ok(RemoveTargetsResponse {
        failed_entry_count: 0,
        failed_entries: Some(Vec::new()),
    })
}

pub(crate) async fn list_targets_by_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListTargetsByRuleRequest,
) -> Result<ListTargetsByRuleResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    let size = PAGE.clamp(input.limit);
    let after = match &input.next_token {
        Some(token) => Some(TARGET_LISTING.decode_str(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let rule = load_rule(&*store, &bus, &input.rule)?;
    let skip = match &after {
        Some(id) => rule.targets.iter().position(|t| &t.id == id).map_or(0, |i| i + 1),
        None => 0,
    };
    let (page, more) = take_page(rule.targets.into_iter().skip(skip), size);
    let next_token = more
        .then(|| page.last().map(|t| TARGET_LISTING.encode_str(&t.id)))
        .flatten();
    let targets = page
        .iter()
        .map(StoredTarget::target)
        .collect::<Result<Vec<_>, AwsError>>()?;
    Ok(ListTargetsByRuleResponse {
        targets: Some(targets),
        next_token,
    })
}
