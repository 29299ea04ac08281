//! Event buses: the implicit `default` bus, custom buses, their resource policies and tags.

use serde_json::{json, Value};
use stratus_core::paging::Token;
use stratus_core::{AwsError, DateTime, RequestContext, Unit};
use stratus_gen_eventbridge::*;
use stratus_storage::{Direction, KeyRange};

use crate::error::{already_exists, bus_not_found, not_found, rule_not_found, validation, Result};
use crate::listing::page;
use crate::records::{BusRecord, BUSES, DEFAULT_BUS, RULES};
use crate::service::{bus_arn, bus_name, bus_prefix, find_bus, load_bus, load_rule, rule_key, EventsService};

const BUS_LISTING: Token = Token::for_listing("events:ListEventBuses");

pub(crate) fn time(ms: i64) -> DateTime {
    DateTime::from_millis(ms)
}

pub(crate) async fn create_event_bus(
    svc: &EventsService,
    ctx: &RequestContext,
    input: CreateEventBusRequest,
) -> Result<CreateEventBusResponse, AwsError> {
    let name = input.name.clone();
    // Partner buses take their name from a partner event source, which Stratus has none of.
    if name.starts_with("aws.partner/") || input.event_source_name.is_some() {
        let source = input.event_source_name.clone().unwrap_or_else(|| name.clone());
        return Err(not_found(format!("Event source {source} does not exist.")).into());
    }
    if name.contains('/') {
        return Err(validation("Event bus name must not contain '/'.").into());
    }
    let tags = super::tags::tag_map(input.tags.as_deref())?;
    let now = svc.now_ms();
    let record = BusRecord {
        description: input.description.clone(),
        kms_key_identifier: input.kms_key_identifier.clone(),
        dead_letter_arn: input.dead_letter_config.as_ref().and_then(|d| d.arn.clone()),
        tags,
        ..BusRecord::new(&name, now)
    };
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        if find_bus(tx, &record.name, now)?.is_some() {
            return Err(already_exists(format!("Event bus {} already exists.", record.name)));
        }
        BUSES.put(tx, record.name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateEventBusResponse {
        event_bus_arn: Some(bus_arn(&ctx.region, &ctx.account_id, &name)),
        description: input.description,
        kms_key_identifier: input.kms_key_identifier,
        dead_letter_config: input.dead_letter_config,
        log_config: None,
    })
}

pub(crate) async fn delete_event_bus(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeleteEventBusRequest,
) -> Result<Unit, AwsError> {
    let name = bus_name(Some(&input.name));
    if name == DEFAULT_BUS {
        return Err(validation("Cannot delete event bus default.").into());
    }
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        BUSES.delete(tx, name.as_bytes().to_vec());
        for (key, _) in RULES.scan_prefix(tx, bus_prefix(&name))? {
            RULES.delete(tx, key);
        }
        Ok(())
    })
    .await?;
    Ok(Unit)
}

pub(crate) async fn describe_event_bus(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeEventBusRequest,
) -> Result<DescribeEventBusResponse, AwsError> {
    let name = bus_name(input.name.as_deref());
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let bus = load_bus(&*store, &name, svc.now_ms())?;
    Ok(DescribeEventBusResponse {
        name: Some(bus.name.clone()),
        arn: Some(bus_arn(&ctx.region, &ctx.account_id, &bus.name)),
        description: bus.description.clone(),
        kms_key_identifier: bus.kms_key_identifier.clone(),
        dead_letter_config: bus
            .dead_letter_arn
            .clone()
            .map(|arn| DeadLetterConfig { arn: Some(arn) }),
        policy: bus.policy.clone(),
        log_config: None,
        creation_time: Some(time(bus.created_ms)),
        last_modified_time: Some(time(bus.modified_ms)),
    })
}

pub(crate) async fn update_event_bus(
    svc: &EventsService,
    ctx: &RequestContext,
    input: UpdateEventBusRequest,
) -> Result<UpdateEventBusResponse, AwsError> {
    let name = bus_name(input.name.as_deref());
    let now = svc.now_ms();
    let (description, kms, dlq) = (
        input.description.clone(),
        input.kms_key_identifier.clone(),
        input.dead_letter_config.clone(),
    );
    let bus = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut bus = load_bus(tx, &name, now)?;
            if description.is_some() {
                bus.description = description;
            }
            if kms.is_some() {
                bus.kms_key_identifier = kms;
            }
            if let Some(dlq) = dlq {
                bus.dead_letter_arn = dlq.arn;
            }
            bus.modified_ms = now;
            BUSES.put(tx, bus.name.as_bytes(), &bus)?;
            Ok(bus)
        })
        .await?;
    Ok(UpdateEventBusResponse {
        arn: Some(bus_arn(&ctx.region, &ctx.account_id, &bus.name)),
        name: Some(bus.name),
        kms_key_identifier: bus.kms_key_identifier,
        description: bus.description,
        dead_letter_config: bus.dead_letter_arn.map(|arn| DeadLetterConfig { arn: Some(arn) }),
        log_config: None,
    })
}

pub(crate) async fn list_event_buses(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListEventBusesRequest,
) -> Result<ListEventBusesResponse, AwsError> {
    let prefix = input.name_prefix.unwrap_or_default();
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let mut buses: Vec<BusRecord> = BUSES
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
        .map_err(crate::error::EventsError::from)?
        .into_iter()
        .map(|(_, bus)| bus)
        .collect();
    if !buses.iter().any(|b| b.name == DEFAULT_BUS) {
        buses.push(BusRecord::new(DEFAULT_BUS, svc.now_ms()));
        buses.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let listed = buses.into_iter().filter(|b| b.name.starts_with(&prefix));
    let (page, next_token) = page(
        &BUS_LISTING,
        listed,
        |b| &b.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListEventBusesResponse {
        event_buses: Some(
            page.into_iter()
                .map(|bus| EventBus {
                    arn: Some(bus_arn(&ctx.region, &ctx.account_id, &bus.name)),
                    description: bus.description,
                    policy: bus.policy,
                    creation_time: Some(time(bus.created_ms)),
                    last_modified_time: Some(time(bus.modified_ms)),
                    name: Some(bus.name),
                })
                .collect(),
        ),
        next_token,
    })
}

pub(crate) async fn put_permission(
    svc: &EventsService,
    ctx: &RequestContext,
    input: PutPermissionRequest,
) -> Result<Unit, AwsError> {
    let name = bus_name(input.event_bus_name.as_deref());
    let arn = bus_arn(&ctx.region, &ctx.account_id, &name);
    let now = svc.now_ms();
    let replacement = match &input.policy {
        Some(policy) => {
            serde_json::from_str::<Value>(policy)
                .ok()
                .filter(Value::is_object)
                .ok_or_else(|| validation("Policy is not valid."))?;
            Some(policy.clone())
        }
        None => None,
    };
    let statement = if replacement.is_none() {
        let (Some(sid), Some(principal)) = (&input.statement_id, &input.principal) else {
            return Err(validation("Parameter(s) StatementId, Principal must be specified.").into());
        };
        let action = input.action.clone().unwrap_or_else(|| "events:PutEvents".to_owned());
        let principal = if principal == "*" {
            json!("*")
        } else {
            json!({"AWS": format!("arn:{}:iam::{principal}:root", stratus_core::arn::partition_of(&ctx.region))})
        };
        let mut statement = json!({
            "Sid": sid,
            "Effect": "Allow",
            "Principal": principal,
            "Action": action,
            "Resource": arn,
        });
        if let Some(c) = &input.condition {
            statement["Condition"] = json!({ c.r#type.clone(): { c.key.clone(): c.value.clone() } });
        }
        Some(statement)
    } else {
        None
    };
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut bus = load_bus(tx, &name, now)?;
        bus.policy = match (replacement, statement) {
            (Some(policy), _) => Some(policy),
            (None, Some(statement)) => {
                let mut policy = bus
                    .policy
                    .as_deref()
                    .and_then(|p| serde_json::from_str::<Value>(p).ok())
                    .unwrap_or_else(|| json!({"Version": "2012-10-17", "Statement": []}));
                if let Some(list) = policy.get_mut("Statement").and_then(Value::as_array_mut) {
                    list.retain(|s| s.get("Sid") != statement.get("Sid"));
                    list.push(statement);
                }
                Some(policy.to_string())
            }
            (None, None) => bus.policy,
        };
        BUSES.put(tx, bus.name.as_bytes(), &bus)?;
        Ok(())
    })
    .await?;
    Ok(Unit)
}

pub(crate) async fn remove_permission(
    svc: &EventsService,
    ctx: &RequestContext,
    input: RemovePermissionRequest,
) -> Result<Unit, AwsError> {
    let name = bus_name(input.event_bus_name.as_deref());
    let now = svc.now_ms();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut bus = load_bus(tx, &name, now)?;
        if input.remove_all_permissions {
            bus.policy = None;
        } else {
            let sid = input.statement_id.unwrap_or_default();
            let missing = || not_found("Statement with the provided id does not exist.");
            let mut policy: Value = bus
                .policy
                .as_deref()
                .and_then(|p| serde_json::from_str(p).ok())
                .ok_or_else(missing)?;
            let list = policy
                .get_mut("Statement")
                .and_then(Value::as_array_mut)
                .ok_or_else(missing)?;
            let before = list.len();
            list.retain(|s| s.get("Sid").and_then(Value::as_str) != Some(sid.as_str()));
            if list.len() == before {
                return Err(missing());
            }
            bus.policy = if list.is_empty() {
                None
            } else {
                Some(policy.to_string())
            };
        }
        BUSES.put(tx, bus.name.as_bytes(), &bus)?;
        Ok(())
    })
    .await?;
    Ok(Unit)
}

/// What a tagged ARN names: a bus, or a rule on a bus.
pub(crate) enum Tagged {
    Bus(String),
    Rule { bus: String, name: String },
}

pub(crate) fn tagged(arn: &str) -> Option<Tagged> {
    let parsed = stratus_core::arn::Arn::parse(arn).ok()?;
    if parsed.service != "events" {
        return None;
    }
    if let Some(bus) = parsed.resource.strip_prefix("event-bus/") {
        return Some(Tagged::Bus(bus.to_owned()));
    }
    let rule = parsed.resource.strip_prefix("rule/")?;
    Some(match rule.split_once('/') {
        Some((bus, name)) => Tagged::Rule {
            bus: bus.to_owned(),
            name: name.to_owned(),
        },
        None => Tagged::Rule {
            bus: DEFAULT_BUS.to_owned(),
            name: rule.to_owned(),
        },
    })
}

/// Applies `change` to the tags of the bus or rule `arn` names, in one transaction.
pub(crate) async fn change_tags<F>(
    svc: &EventsService,
    ctx: &RequestContext,
    arn: &str,
    change: F,
) -> Result<(), AwsError>
where
    F: FnOnce(&mut std::collections::BTreeMap<String, String>) -> Result<()> + Send + 'static,
{
    let target = tagged(arn).ok_or_else(|| validation(format!("Parameter {arn} is not valid.")))?;
    let now = svc.now_ms();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| match target {
        Tagged::Bus(name) => {
            let mut bus = find_bus(tx, &name, now)?.ok_or_else(|| bus_not_found(&name))?;
            change(&mut bus.tags)?;
            BUSES.put(tx, bus.name.as_bytes(), &bus)?;
            Ok(())
        }
        Tagged::Rule { bus, name } => {
            let mut rule = RULES
                .get(tx, rule_key(&bus, &name))?
                .ok_or_else(|| rule_not_found(&name, &bus))?;
            change(&mut rule.tags)?;
            RULES.put(tx, rule_key(&bus, &name), &rule)?;
            Ok(())
        }
    })
    .await
}

pub(crate) fn read_tags(
    svc: &EventsService,
    ctx: &RequestContext,
    arn: &str,
) -> Result<std::collections::BTreeMap<String, String>, AwsError> {
    let target = tagged(arn).ok_or_else(|| validation(format!("Parameter {arn} is not valid.")))?;
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    Ok(match target {
        Tagged::Bus(name) => load_bus(&*store, &name, svc.now_ms())?.tags,
        Tagged::Rule { bus, name } => load_rule(&*store, &bus, &name)?.tags,
    })
}
