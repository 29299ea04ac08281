//! Metric and composite alarms: PutMetricAlarm, PutCompositeAlarm, DescribeAlarms,
//! DescribeAlarmsForMetric, DeleteAlarms, SetAlarmState, Enable/DisableAlarmActions and
//! DescribeAlarmHistory.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch::{
    AlarmType, DeleteAlarmsInput, DescribeAlarmHistoryInput, DescribeAlarmHistoryOutput, DescribeAlarmsForMetricInput,
    DescribeAlarmsForMetricOutput, DescribeAlarmsInput, DescribeAlarmsOutput, DisableAlarmActionsInput,
    EnableAlarmActionsInput, PutCompositeAlarmInput, PutMetricAlarmInput, ScanBy, SetAlarmStateInput, Tag,
};
use stratus_storage::{Direction, KeyRange, Tx};

use crate::alarms::rule::{self, named};
use crate::alarms::{
    configuration_history, history, record_history, transition, AlarmKind, AlarmRecord, At, CompositeSpec, MetricSpec,
    NewState, ALARMS,
};
use crate::error::{alarm_not_found, invalid_combination, invalid_next_token, invalid_value, missing, CwError, Result};
use crate::metric::MetricId;
use crate::ops::metrics::{check_period, dimension_pairs, millis, query_spec, unit_name};
use crate::ops::tags::{check_tags, tag_map};
use crate::service::CloudWatchService;
use crate::stats::Stat;

const ALARM_LISTING: Token = Token::for_listing("cloudwatch:DescribeAlarms");
const HISTORY_LISTING: Token = Token::for_listing("cloudwatch:DescribeAlarmHistory");
const ALARM_PAGE: PageSize = PageSize {
    min: 1,
    max: 100,
    default: 50,
};
const HISTORY_PAGE: PageSize = PageSize {
    min: 1,
    max: 100,
    default: 100,
};
const TREATMENTS: [&str; 4] = ["breaching", "notBreaching", "ignore", "missing"];

fn all_alarms(tx: &(impl stratus_storage::Read + ?Sized)) -> Result<Vec<AlarmRecord>> {
    Ok(ALARMS
        .scan(tx, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, a)| a)
        .collect())
}

fn metric_spec(input: &PutMetricAlarmInput) -> Result<MetricSpec> {
    let single = input.metric_name.is_some()
        || input.namespace.is_some()
        || input.statistic.is_some()
        || input.extended_statistic.is_some()
        || input.period.is_some()
        || input.dimensions.is_some();
    let metrics = match &input.metrics {
        Some(queries) => {
            if single {
                return Err(invalid_combination(
                    "The parameters MetricName, Namespace, Statistic, ExtendedStatistic, Dimensions and Period \
                     cannot be used together with Metrics.",
                ));
            }
            let specs = queries
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, q)| query_spec(q, i + 1, "Metrics"))
                .collect::<Result<Vec<_>>>()?;
            if specs.iter().filter(|q| q.returned()).count() != 1 {
                return Err(invalid_value(
                    "Exactly one element of the metrics list should return data.",
                ));
            }
            Some(specs)
        }
        None => None,
    };
    let metric = if metrics.is_none() {
        let name = input
            .metric_name
            .clone()
            .ok_or_else(|| missing("The parameter MetricName is required."))?;
        let namespace = input
            .namespace
            .clone()
            .ok_or_else(|| missing("The parameter Namespace is required."))?;
        let period = input
            .period
            .ok_or_else(|| missing("The parameter Period is required."))?;
        check_period(period, "Period")?;
        match (&input.statistic, &input.extended_statistic) {
            (Some(_), Some(_)) => return Err(invalid_combination(
                "The parameters Statistic and ExtendedStatistic are mutually exclusive and you have specified both.",
            )),
            (None, None) => return Err(missing("The parameter Statistic or ExtendedStatistic is required.")),
            (None, Some(extended)) => {
                if Stat::parse(extended).is_none_or(Stat::is_basic) {
                    return Err(invalid_value(format!(
                        "The value {extended} for parameter ExtendedStatistic is not supported."
                    )));
                }
            }
            (Some(_), None) => {}
        }
        Some(MetricId::new(
            &namespace,
            &name,
            dimension_pairs(input.dimensions.clone()),
        ))
    } else {
        None
    };
    if input.evaluation_periods < 1 {
        return Err(invalid_value(
            "The parameter EvaluationPeriods must be greater than or equal to 1.",
        ));
    }
    if let Some(m) = input.datapoints_to_alarm {
        if m < 1 || m > input.evaluation_periods {
            return Err(invalid_value(
                "DatapointsToAlarm must be greater than 0 and less than or equal to EvaluationPeriods.",
            ));
        }
    }
    if let Some(treat) = &input.treat_missing_data {
        if !TREATMENTS.contains(&treat.as_str()) {
            return Err(invalid_value(format!(
                "The value {treat} for parameter TreatMissingData is not supported. Valid values are [{}].",
                TREATMENTS.join(", ")
            )));
        }
    }
    if input.threshold.is_none() && input.threshold_metric_id.is_none() {
        return Err(missing("The parameter Threshold is required."));
    }
    Ok(MetricSpec {
        metric,
        statistic: input.statistic.as_ref().map(|s| s.as_str().to_owned()),
        extended_statistic: input.extended_statistic.clone(),
        period: input.period,
        unit: unit_name(input.unit.clone()),
        evaluation_periods: input.evaluation_periods,
        datapoints_to_alarm: input.datapoints_to_alarm,
        threshold: input.threshold,
        comparison_operator: input.comparison_operator.as_str().to_owned(),
        treat_missing_data: input.treat_missing_data.clone(),
        evaluate_low_sample_count_percentile: input.evaluate_low_sample_count_percentile.clone(),
        metrics,
        threshold_metric_id: input.threshold_metric_id.clone(),
    })
}

/// What PutMetricAlarm and PutCompositeAlarm share: the description, actions and tags.
struct Common {
    name: String,
    description: Option<String>,
    actions_enabled: Option<bool>,
    ok_actions: Option<Vec<String>>,
    alarm_actions: Option<Vec<String>>,
    insufficient_data_actions: Option<Vec<String>>,
    tags: Option<Vec<Tag>>,
}

/// Creates or replaces the alarm `common.name` of `kind` in `tx`: an existing alarm keeps its
/// state and tags, as AWS's update does.
fn put_alarm(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    ctx: (&str, &str),
    common: Common,
    kind: AlarmKind,
    now: i64,
) -> Result<AlarmRecord> {
    let (account, region) = ctx;
    let existing = ALARMS.get(&*tx, common.name.as_bytes())?;
    if let Some(existing) = &existing {
        if existing.is_composite() != matches!(kind, AlarmKind::Composite(_)) {
            return Err(invalid_value(format!(
                "An alarm named {} of the other type already exists.",
                common.name
            )));
        }
    }
    let created = existing.is_none();
    let mut alarm =
        existing.unwrap_or_else(|| AlarmRecord::new(region, account, common.name.clone(), kind.clone(), now));
    if created {
        let tags = tag_map(common.tags.unwrap_or_default())?;
        check_tags(&tags)?;
        alarm.tags = tags;
    }
    alarm.kind = kind;
    alarm.description = common.description;
    alarm.actions_enabled = common.actions_enabled.unwrap_or(true);
    alarm.ok_actions = common.ok_actions.unwrap_or_default();
    alarm.alarm_actions = common.alarm_actions.unwrap_or_default();
    alarm.insufficient_data_actions = common.insufficient_data_actions.unwrap_or_default();
    alarm.configuration_updated_ms = now;
    ALARMS.put(tx, alarm.name.as_bytes(), &alarm)?;
    record_history(cw, tx, configuration_history(&alarm, created, now))?;
    Ok(alarm)
}

pub(crate) async fn put_metric_alarm(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: PutMetricAlarmInput,
) -> Result<Unit, AwsError> {
    let spec = metric_spec(&input)?;
    let common = Common {
        name: input.alarm_name,
        description: input.alarm_description,
        actions_enabled: input.actions_enabled,
        ok_actions: input.ok_actions,
        alarm_actions: input.alarm_actions,
        insufficient_data_actions: input.insufficient_data_actions,
        tags: input.tags,
    };
    let now = cw.now_ms();
    let (account, region) = (ctx.account_id.clone(), ctx.region.clone());
    let service = cw.clone();
    cw.store(&ctx.account_id, &ctx.region)?
        .transact_async(move |tx| {
            put_alarm(
                &service,
                tx,
                (&account, &region),
                common,
                AlarmKind::Metric(Box::new(spec)),
                now,
            )?;
            Ok::<(), CwError>(())
        })
        .await?;
    cw.ensure_evaluation();
    Ok(Unit)
}

pub(crate) async fn put_composite_alarm(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: PutCompositeAlarmInput,
) -> Result<Unit, AwsError> {
    if input.alarm_rule.chars().count() > rule::MAX_RULE_CHARS {
        return Err(invalid_value(format!(
            "The AlarmRule must not be longer than {} characters.",
            rule::MAX_RULE_CHARS
        ))
        .into());
    }
    let parsed = rule::parse(&input.alarm_rule)
        .map_err(|e| invalid_value(format!("Error in alarm rule [{}]: {e}", input.alarm_rule)))?;
    let children: Vec<String> = parsed.alarms().iter().map(|a| named(a).to_owned()).collect();
    let spec = CompositeSpec {
        rule: input.alarm_rule,
        actions_suppressor: input.actions_suppressor,
        actions_suppressor_wait_period: input.actions_suppressor_wait_period,
        actions_suppressor_extension_period: input.actions_suppressor_extension_period,
    };
    let common = Common {
        name: input.alarm_name,
        description: input.alarm_description,
        actions_enabled: input.actions_enabled,
        ok_actions: input.ok_actions,
        alarm_actions: input.alarm_actions,
        insufficient_data_actions: input.insufficient_data_actions,
        tags: input.tags,
    };
    let now = cw.now_ms();
    let (account, region) = (ctx.account_id.clone(), ctx.region.clone());
    let service = cw.clone();
    cw.store(&ctx.account_id, &ctx.region)?
        .transact_async(move |tx| {
            let missing: Vec<&String> = children
                .iter()
                .filter(|c| **c != common.name)
                .filter(|c| !matches!(ALARMS.get(&*tx, c.as_bytes()), Ok(Some(_))))
                .collect();
            if children.contains(&common.name) {
                return Err(invalid_value("A composite alarm cannot name itself in its alarm rule."));
            }
            if !missing.is_empty() {
                let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                return Err(invalid_value(format!(
                    "Could not save the composite alarm as alarms [{}] in the alarm rule do not exist",
                    names.join(", ")
                )));
            }
            put_alarm(
                &service,
                tx,
                (&account, &region),
                common,
                AlarmKind::Composite(spec),
                now,
            )?;
            Ok(())
        })
        .await?;
    cw.ensure_evaluation();
    Ok(Unit)
}

fn wanted_types(types: &Option<Vec<AlarmType>>) -> (bool, bool) {
    match types {
        None => (true, false),
        Some(types) if types.is_empty() => (true, false),
        Some(types) => (
            types.contains(&AlarmType::MetricAlarm),
            types.contains(&AlarmType::CompositeAlarm),
        ),
    }
}

pub(crate) async fn describe_alarms(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DescribeAlarmsInput,
) -> Result<DescribeAlarmsOutput, AwsError> {
    if input.alarm_names.is_some() && input.alarm_name_prefix.is_some() {
        return Err(invalid_combination(
            "The parameters AlarmNames and AlarmNamePrefix are mutually exclusive and you have specified both.",
        )
        .into());
    }
    let size = ALARM_PAGE.check(input.max_records).map_err(|e| {
        invalid_value(format!(
            "The parameter MaxRecords must be between {} and {}.",
            e.min, e.max
        ))
    })?;
    let after = match &input.next_token {
        Some(token) => Some(ALARM_LISTING.decode_str(token).map_err(|_| invalid_next_token())?),
        None => None,
    };
    let store = cw.store(&ctx.account_id, &ctx.region)?;
    let alarms = stratus_storage::run_blocking(move || all_alarms(&*store)).await?;
    let (metric_wanted, composite_wanted) = wanted_types(&input.alarm_types);
    let children: Option<Vec<String>> = input.children_of_alarm_name.as_ref().map(|parent| {
        alarms
            .iter()
            .find(|a| &a.name == parent)
            .and_then(|a| match &a.kind {
                AlarmKind::Composite(spec) => rule::parse(&spec.rule).ok(),
                AlarmKind::Metric(_) => None,
            })
            .map(|r| r.alarms().iter().map(|n| named(n).to_owned()).collect())
            .unwrap_or_default()
    });
    let parents_of = input.parents_of_alarm_name.clone();
    let listed = alarms.into_iter().filter(|a| {
        (if a.is_composite() {
            composite_wanted
        } else {
            metric_wanted
        }) && input.alarm_names.as_ref().is_none_or(|names| names.contains(&a.name))
            && input
                .alarm_name_prefix
                .as_ref()
                .is_none_or(|p| a.name.starts_with(p.as_str()))
            && input.state_value.as_ref().is_none_or(|s| s.as_str() == a.state)
            && input.action_prefix.as_ref().is_none_or(|p| {
                a.ok_actions
                    .iter()
                    .chain(&a.alarm_actions)
                    .chain(&a.insufficient_data_actions)
                    .any(|action| action.starts_with(p.as_str()))
            })
            && children.as_ref().is_none_or(|c| c.contains(&a.name))
            && parents_of.as_ref().is_none_or(|child| match &a.kind {
                AlarmKind::Composite(spec) => {
                    rule::parse(&spec.rule).is_ok_and(|r| r.alarms().iter().any(|n| named(n) == child.as_str()))
                }
                AlarmKind::Metric(_) => false,
            })
            && after.as_ref().is_none_or(|after| a.name > *after)
    });
    let (page, more) = take_page(listed, size);
    let next_token = if more {
        page.last().map(|a| ALARM_LISTING.encode_str(&a.name))
    } else {
        None
    };
    Ok(DescribeAlarmsOutput {
        composite_alarms: Some(page.iter().filter_map(AlarmRecord::composite_alarm).collect()),
        metric_alarms: Some(page.iter().filter_map(AlarmRecord::metric_alarm).collect()),
        next_token,
    })
}

pub(crate) async fn describe_alarms_for_metric(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DescribeAlarmsForMetricInput,
) -> Result<DescribeAlarmsForMetricOutput, AwsError> {
    let metric = MetricId::new(&input.namespace, &input.metric_name, dimension_pairs(input.dimensions));
    let store = cw.store(&ctx.account_id, &ctx.region)?;
    let alarms = stratus_storage::run_blocking(move || all_alarms(&*store)).await?;
    let unit = unit_name(input.unit);
    let found = alarms
        .iter()
        .filter(|a| match &a.kind {
            AlarmKind::Metric(spec) => {
                spec.metric.as_ref() == Some(&metric)
                    && input
                        .statistic
                        .as_ref()
                        .is_none_or(|s| spec.statistic.as_deref() == Some(s.as_str()))
                    && input
                        .extended_statistic
                        .as_ref()
                        .is_none_or(|s| spec.extended_statistic.as_ref() == Some(s))
                    && input.period.is_none_or(|p| spec.period == Some(p))
                    && unit.as_ref().is_none_or(|u| spec.unit.as_ref() == Some(u))
            }
            AlarmKind::Composite(_) => false,
        })
        .filter_map(AlarmRecord::metric_alarm)
        .collect();
    Ok(DescribeAlarmsForMetricOutput {
        metric_alarms: Some(found),
    })
}

pub(crate) async fn delete_alarms(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DeleteAlarmsInput,
) -> Result<Unit, AwsError> {
    cw.store(&ctx.account_id, &ctx.region)?
        .transact_async(move |tx| {
            for name in &input.alarm_names {
                if ALARMS.get(&*tx, name.as_bytes())?.is_none() {
                    return Err(CwError(AwsError::new(
                        "ResourceNotFound",
                        format!("Alarm {name} does not exist."),
                        404,
                    )));
                }
            }
            for name in &input.alarm_names {
                ALARMS.delete(tx, name.as_bytes());
            }
            Ok(())
        })
        .await?;
    Ok(Unit)
}

pub(crate) async fn set_alarm_state(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: SetAlarmStateInput,
) -> Result<Unit, AwsError> {
    if let Some(data) = &input.state_reason_data {
        if !serde_json::from_str::<serde_json::Value>(data).is_ok_and(|v| v.is_object()) {
            return Err(AwsError::new(
                "InvalidFormat",
                "State reason data must be a valid JSON object.",
                400,
            ));
        }
    }
    let now = cw.now_ms();
    let (account, region) = (ctx.account_id.clone(), ctx.region.clone());
    let service = cw.clone();
    cw.store(&ctx.account_id, &ctx.region)?
        .transact_async(move |tx| {
            let mut alarm = ALARMS
                .get(&*tx, input.alarm_name.as_bytes())?
                .ok_or_else(alarm_not_found)?;
            let new = NewState {
                value: input.state_value.as_str().to_owned(),
                reason: input.state_reason,
                reason_data: input.state_reason_data,
            };
            transition(&service, tx, &mut alarm, new, At::new(&account, &region, now), None)?;
            Ok::<(), CwError>(())
        })
        .await?;
    cw.shared.notifications.wake(&ctx.account_id, &ctx.region);
    Ok(Unit)
}

async fn set_actions_enabled(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    names: Vec<String>,
    enabled: bool,
) -> Result<Unit, AwsError> {
    cw.store(&ctx.account_id, &ctx.region)?
        .transact_async(move |tx| {
            for name in &names {
                if let Some(mut alarm) = ALARMS.get(&*tx, name.as_bytes())? {
                    alarm.actions_enabled = enabled;
                    ALARMS.put(tx, name.as_bytes(), &alarm)?;
                }
            }
            Ok::<(), CwError>(())
        })
        .await?;
    Ok(Unit)
}

pub(crate) async fn enable_alarm_actions(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: EnableAlarmActionsInput,
) -> Result<Unit, AwsError> {
    set_actions_enabled(cw, ctx, input.alarm_names, true).await
}

pub(crate) async fn disable_alarm_actions(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DisableAlarmActionsInput,
) -> Result<Unit, AwsError> {
    set_actions_enabled(cw, ctx, input.alarm_names, false).await
}

pub(crate) async fn describe_alarm_history(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: DescribeAlarmHistoryInput,
) -> Result<DescribeAlarmHistoryOutput, AwsError> {
    let size = HISTORY_PAGE.check(input.max_records).map_err(|e| {
        invalid_value(format!(
            "The parameter MaxRecords must be between {} and {}.",
            e.min, e.max
        ))
    })?;
    let skip = match &input.next_token {
        Some(token) => HISTORY_LISTING
            .decode_str(token)
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or_else(invalid_next_token)?,
        None => 0,
    };
    let now = cw.now_ms();
    let store = cw.store(&ctx.account_id, &ctx.region)?;
    let mut items = stratus_storage::run_blocking(move || history(&*store, now)).await?;
    if input.scan_by != Some(ScanBy::TimestampAscending) {
        items.reverse();
    }
    let (metric_wanted, composite_wanted) = wanted_types(&input.alarm_types);
    let (start, end) = (
        input.start_date.as_ref().map(millis),
        input.end_date.as_ref().map(millis),
    );
    let listed = items
        .into_iter()
        .filter(|h| {
            (if h.composite { composite_wanted } else { metric_wanted })
                && input.alarm_name.as_ref().is_none_or(|n| *n == h.alarm_name)
                && input
                    .history_item_type
                    .as_ref()
                    .is_none_or(|t| t.as_str() == h.item_type)
                && start.is_none_or(|s| h.timestamp_ms >= s)
                && end.is_none_or(|e| h.timestamp_ms <= e)
        })
        .skip(skip);
    let (page, more) = take_page(listed, size);
    Ok(DescribeAlarmHistoryOutput {
        next_token: more.then(|| HISTORY_LISTING.encode_str(&(skip + page.len()).to_string())),
        alarm_history_items: Some(page.iter().map(|h| h.item()).collect()),
    })
}
