//! Rules: PutRule and its checks (patterns through the matcher, schedules), the reads,
//! enabling and disabling, deletion, and TestEventPattern.

use stratus_core::paging::Token;
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_event_pattern::{Dialect, Pattern};
use stratus_gen_eventbridge::*;

use crate::error::{validation, EventsError, Result};
use crate::listing::page;
use crate::records::{RuleRecord, DEFAULT_BUS, RULES};
use crate::service::{bus_name, bus_prefix, load_bus, load_rule, rule_arn, rule_key, EventsService};
use crate::{event, schedule};

const RULE_LISTING: Token = Token::for_listing("events:ListRules");
const RULES_BY_TARGET: Token = Token::for_listing("events:ListRuleNamesByTarget");

pub(crate) async fn put_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: PutRuleRequest,
) -> Result<PutRuleResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    if input.event_pattern.is_none() && input.schedule_expression.is_none() {
        return Err(validation("Parameter(s) EventPattern or ScheduleExpression must be specified.").into());
    }
    if let Some(pattern) = &input.event_pattern {
        Pattern::parse(pattern, Dialect::EventBridge).map_err(EventsError::from)?;
    }
    if let Some(expression) = &input.schedule_expression {
        if schedule::parse(expression).is_none() {
            return Err(validation("Parameter ScheduleExpression is not valid.").into());
        }
        if bus != DEFAULT_BUS {
            return Err(validation("ScheduleExpression is supported only on the default event bus.").into());
        }
    }
    let tags = super::tags::tag_map(input.tags.as_deref())?;
    let arn = rule_arn(&ctx.region, &ctx.account_id, &bus, &input.name);
    let now = svc.now_ms();
    let account = ctx.account_id.clone();
    let written = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            load_bus(tx, &bus, now)?;
            let key = rule_key(&bus, &input.name);
            let existing = RULES.get(tx, &key)?;
            let (targets, mut kept_tags, created_by) = match existing {
                Some(rule) => (rule.targets, rule.tags, rule.created_by),
                None => (Vec::new(), Default::default(), account),
            };
            kept_tags.extend(tags);
            let rule = RuleRecord {
                bus: bus.clone(),
                name: input.name.clone(),
                event_pattern: input.event_pattern,
                schedule_expression: input.schedule_expression,
                state: input
                    .state
                    .map_or_else(|| "ENABLED".to_owned(), |s| s.as_str().to_owned()),
                description: input.description,
                role_arn: input.role_arn,
                managed_by: None,
                created_by,
                tags: kept_tags,
                targets,
            };
            RULES.put(tx, key, &rule)?;
            Ok(rule)
        })
        .await?;
    svc.rule_changed(&ctx.account_id, &ctx.region, &written);
    Ok(PutRuleResponse { rule_arn: Some(arn) })
}

pub(crate) async fn describe_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeRuleRequest,
) -> Result<DescribeRuleResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let rule = load_rule(&*store, &bus, &input.name)?;
    Ok(DescribeRuleResponse {
        arn: Some(rule_arn(&ctx.region, &ctx.account_id, &rule.bus, &rule.name)),
        name: Some(rule.name),
        event_pattern: rule.event_pattern,
        schedule_expression: rule.schedule_expression,
        state: Some(RuleState::from_wire(&rule.state)),
        description: rule.description,
        role_arn: rule.role_arn,
        managed_by: rule.managed_by,
        event_bus_name: Some(rule.bus),
        created_by: Some(rule.created_by),
    })
}

pub(crate) async fn delete_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeleteRuleRequest,
) -> Result<Unit, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let key = rule_key(&bus, &input.name);
        if let Some(rule) = RULES.get(tx, &key)? {
            if !rule.targets.is_empty() {
                return Err(validation("Rule can't be deleted since it has targets."));
            }
            RULES.delete(tx, key);
        }
        Ok(())
    })
    .await?;
    Ok(Unit)
}

async fn set_state(
    svc: &EventsService,
    ctx: &RequestContext,
    bus: Option<&str>,
    name: String,
    state: &'static str,
) -> Result<(), AwsError> {
    let bus = bus_name(bus);
    let rule = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut rule = load_rule(tx, &bus, &name)?;
            rule.state = state.to_owned();
            RULES.put(tx, rule_key(&bus, &name), &rule)?;
            Ok(rule)
        })
        .await?;
    svc.rule_changed(&ctx.account_id, &ctx.region, &rule);
    Ok(())
}

pub(crate) async fn enable_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: EnableRuleRequest,
) -> Result<Unit, AwsError> {
    set_state(svc, ctx, input.event_bus_name.as_deref(), input.name, "ENABLED").await?;
    Ok(Unit)
}

pub(crate) async fn disable_rule(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DisableRuleRequest,
) -> Result<Unit, AwsError> {
    set_state(svc, ctx, input.event_bus_name.as_deref(), input.name, "DISABLED").await?;
    Ok(Unit)
}

/// The rules of `bus`, in name order.
pub(crate) fn rules_of(r: &(impl stratus_storage::Read + ?Sized), bus: &str) -> Result<Vec<RuleRecord>> {
    Ok(RULES
        .scan_prefix(r, bus_prefix(bus))?
        .into_iter()
        .map(|(_, rule)| rule)
        .collect())
}

pub(crate) async fn list_rules(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListRulesRequest,
) -> Result<ListRulesResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    load_bus(&*store, &bus, svc.now_ms())?;
    let prefix = input.name_prefix.unwrap_or_default();
    let listed = rules_of(&*store, &bus)?
        .into_iter()
        .filter(|r| r.name.starts_with(&prefix));
    let (page, next_token) = page(
        &RULE_LISTING,
        listed,
        |r| &r.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListRulesResponse {
        rules: Some(
            page.into_iter()
                .map(|rule| Rule {
                    arn: Some(rule_arn(&ctx.region, &ctx.account_id, &rule.bus, &rule.name)),
                    name: Some(rule.name),
                    event_pattern: rule.event_pattern,
                    state: Some(RuleState::from_wire(&rule.state)),
                    description: rule.description,
                    schedule_expression: rule.schedule_expression,
                    role_arn: rule.role_arn,
                    managed_by: rule.managed_by,
                    event_bus_name: Some(rule.bus),
                })
                .collect(),
        ),
        next_token,
    })
}

pub(crate) async fn list_rule_names_by_target(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListRuleNamesByTargetRequest,
) -> Result<ListRuleNamesByTargetResponse, AwsError> {
    let bus = bus_name(input.event_bus_name.as_deref());
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    load_bus(&*store, &bus, svc.now_ms())?;
    let names = rules_of(&*store, &bus)?
        .into_iter()
        .filter(|r| r.targets.iter().any(|t| t.arn == input.target_arn))
        .map(|r| r.name);
    let (page, next_token) = page(&RULES_BY_TARGET, names, |n| n, input.next_token.as_deref(), input.limit)?;
    Ok(ListRuleNamesByTargetResponse {
        rule_names: Some(page),
        next_token,
    })
}

pub(crate) async fn test_event_pattern(
    _svc: &EventsService,
    _ctx: &RequestContext,
    input: TestEventPatternRequest,
) -> Result<TestEventPatternResponse, AwsError> {
    let pattern = Pattern::parse(&input.event_pattern, Dialect::EventBridge).map_err(EventsError::from)?;
    let event = event::test_event(&input.event).ok_or_else(|| validation("Parameter Event is not valid."))?;
    Ok(TestEventPatternResponse {
        result: pattern.matches(&event),
    })
}
