//! Metric and composite alarms: their records, their history, and the one way an alarm
//! changes state ([`transition`]), which SetAlarmState, the evaluation on the scheduler
//! ([`evaluate`]) and composite alarms ([`rule`]) share: it writes the history item, queues
//! the notifications of the new state's actions ([`notify`]) and re-evaluates the composite
//! alarms over it, all in the caller's transaction.

pub(crate) mod evaluate;
pub(crate) mod notify;
pub(crate) mod rule;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;
use stratus_core::arn::Arn;
use stratus_core::DateTime;
use stratus_gen_cloudwatch::{
    AlarmHistoryItem, AlarmType, ComparisonOperator, CompositeAlarm, HistoryItemType, MetricAlarm, StandardUnit,
    StateValue, Statistic,
};
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange, Read, Table, Tx};

use crate::error::Result;
use crate::metric::MetricId;
use crate::ops::metrics::{dimensions_out, query_out};
use crate::query::QuerySpec;
use crate::service::CloudWatchService;

/// Alarms by name.
pub(crate) const ALARMS: Table<AlarmRecord> = Table::new("alarms");
/// History items by (time, sequence).
pub(crate) const HISTORY: Table<HistoryRecord> = Table::new("alarm_history");

/// How long history is kept (API reference, DescribeAlarmHistory: "up to 30 days").
pub(crate) const HISTORY_MS: i64 = 30 * 86_400 * 1000;

pub(crate) const INSUFFICIENT_DATA: &str = "INSUFFICIENT_DATA";
pub(crate) const OK: &str = "OK";
pub(crate) const ALARM: &str = "ALARM";

/// An alarm, either kind.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct AlarmRecord {
    pub name: String,
    pub arn: String,
    #[serde(default)]
    pub description: Option<String>,
    pub actions_enabled: bool,
    #[serde(default)]
    pub ok_actions: Vec<String>,
    #[serde(default)]
    pub alarm_actions: Vec<String>,
    #[serde(default)]
    pub insufficient_data_actions: Vec<String>,
    pub configuration_updated_ms: i64,
    pub state: String,
    pub state_reason: String,
    #[serde(default)]
    pub state_reason_data: Option<String>,
    pub state_updated_ms: i64,
    pub state_transitioned_ms: i64,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    pub kind: AlarmKind,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum AlarmKind {
    Metric(Box<MetricSpec>),
    Composite(CompositeSpec),
}

/// What a metric alarm watches and how it decides.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct MetricSpec {
    /// The metric (namespace, name, dimensions), for an alarm on one metric.
    #[serde(default)]
    pub metric: Option<MetricId>,
    #[serde(default)]
    pub statistic: Option<String>,
    #[serde(default)]
    pub extended_statistic: Option<String>,
    #[serde(default)]
    pub period: Option<i32>,
    #[serde(default)]
    pub unit: Option<String>,
    pub evaluation_periods: i32,
    #[serde(default)]
    pub datapoints_to_alarm: Option<i32>,
    #[serde(default)]
    pub threshold: Option<f64>,
    pub comparison_operator: String,
    #[serde(default)]
    pub treat_missing_data: Option<String>,
    #[serde(default)]
    pub evaluate_low_sample_count_percentile: Option<String>,
    /// The queries, for an alarm on metric math.
    #[serde(default)]
    pub metrics: Option<Vec<QuerySpec>>,
    #[serde(default)]
    pub threshold_metric_id: Option<String>,
}

/// A composite alarm's rule and action suppression.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CompositeSpec {
    pub rule: String,
    #[serde(default)]
    pub actions_suppressor: Option<String>,
    #[serde(default)]
    pub actions_suppressor_wait_period: Option<i32>,
    #[serde(default)]
    pub actions_suppressor_extension_period: Option<i32>,
}

/// One DescribeAlarmHistory item.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct HistoryRecord {
    pub alarm_name: String,
    pub composite: bool,
    pub timestamp_ms: i64,
    /// `ConfigurationUpdate`, `StateUpdate` or `Action`.
    pub item_type: String,
    pub summary: String,
    pub data: String,
}

pub(crate) fn alarm_arn(region: &str, account: &str, name: &str) -> String {
    Arn::new("cloudwatch", region, account, &format!("alarm:{name}")).to_string()
}

impl AlarmRecord {
    /// A new alarm in `INSUFFICIENT_DATA`, as AWS creates every alarm.
    pub(crate) fn new(region: &str, account: &str, name: String, kind: AlarmKind, now_ms: i64) -> AlarmRecord {
        AlarmRecord {
            arn: alarm_arn(region, account, &name),
            name,
            description: None,
            actions_enabled: true,
            ok_actions: Vec::new(),
            alarm_actions: Vec::new(),
            insufficient_data_actions: Vec::new(),
            configuration_updated_ms: now_ms,
            state: INSUFFICIENT_DATA.to_owned(),
            state_reason: "Unchecked: Initial alarm creation".to_owned(),
            state_reason_data: None,
            state_updated_ms: now_ms,
            state_transitioned_ms: now_ms,
            tags: BTreeMap::new(),
            kind,
        }
    }

    pub(crate) fn is_composite(&self) -> bool {
        matches!(self.kind, AlarmKind::Composite(_))
    }

    pub(crate) fn actions_for(&self, state: &str) -> &[String] {
        match state {
            OK => &self.ok_actions,
            ALARM => &self.alarm_actions,
            _ => &self.insufficient_data_actions,
        }
    }

    /// DescribeAlarms' view of a metric alarm.
    pub(crate) fn metric_alarm(&self) -> Option<MetricAlarm> {
        let AlarmKind::Metric(spec) = &self.kind else {
            return None;
        };
        Some(MetricAlarm {
            alarm_name: Some(self.name.clone()),
            alarm_arn: Some(self.arn.clone()),
            alarm_description: self.description.clone(),
            alarm_configuration_updated_timestamp: Some(DateTime::from_millis(self.configuration_updated_ms)),
            actions_enabled: Some(self.actions_enabled),
            ok_actions: Some(self.ok_actions.clone()),
            alarm_actions: Some(self.alarm_actions.clone()),
            insufficient_data_actions: Some(self.insufficient_data_actions.clone()),
            state_value: Some(StateValue::from_wire(&self.state)),
            state_reason: Some(self.state_reason.clone()),
            state_reason_data: self.state_reason_data.clone(),
            state_updated_timestamp: Some(DateTime::from_millis(self.state_updated_ms)),
            metric_name: spec.metric.as_ref().map(|m| m.name.clone()),
            namespace: spec.metric.as_ref().map(|m| m.namespace.clone()),
            statistic: spec.statistic.as_deref().map(Statistic::from_wire),
            extended_statistic: spec.extended_statistic.clone(),
            dimensions: Some(spec.metric.as_ref().map(dimensions_out).unwrap_or_default()),
            period: spec.period,
            unit: spec.unit.as_deref().map(StandardUnit::from_wire),
            evaluation_periods: Some(spec.evaluation_periods),
            datapoints_to_alarm: spec.datapoints_to_alarm,
            threshold: spec.threshold,
            comparison_operator: Some(ComparisonOperator::from_wire(&spec.comparison_operator)),
            treat_missing_data: spec.treat_missing_data.clone(),
            evaluate_low_sample_count_percentile: spec.evaluate_low_sample_count_percentile.clone(),
            metrics: spec.metrics.as_ref().map(|m| m.iter().map(query_out).collect()),
            threshold_metric_id: spec.threshold_metric_id.clone(),
            evaluation_state: None,
            state_transitioned_timestamp: Some(DateTime::from_millis(self.state_transitioned_ms)),
        })
    }

    /// DescribeAlarms' view of a composite alarm.
    pub(crate) fn composite_alarm(&self) -> Option<CompositeAlarm> {
        let AlarmKind::Composite(spec) = &self.kind else {
            return None;
        };
        Some(CompositeAlarm {
            actions_enabled: Some(self.actions_enabled),
            alarm_actions: Some(self.alarm_actions.clone()),
            alarm_arn: Some(self.arn.clone()),
            alarm_configuration_updated_timestamp: Some(DateTime::from_millis(self.configuration_updated_ms)),
            alarm_description: self.description.clone(),
            alarm_name: Some(self.name.clone()),
            alarm_rule: Some(spec.rule.clone()),
            insufficient_data_actions: Some(self.insufficient_data_actions.clone()),
            ok_actions: Some(self.ok_actions.clone()),
            state_reason: Some(self.state_reason.clone()),
            state_reason_data: self.state_reason_data.clone(),
            state_updated_timestamp: Some(DateTime::from_millis(self.state_updated_ms)),
            state_value: Some(StateValue::from_wire(&self.state)),
            state_transitioned_timestamp: Some(DateTime::from_millis(self.state_transitioned_ms)),
            actions_suppressed_by: None,
            actions_suppressed_reason: None,
            actions_suppressor: spec.actions_suppressor.clone(),
            actions_suppressor_wait_period: spec.actions_suppressor_wait_period,
            actions_suppressor_extension_period: spec.actions_suppressor_extension_period,
        })
    }
}

impl HistoryRecord {
    pub(crate) fn item(&self) -> AlarmHistoryItem {
        AlarmHistoryItem {
            alarm_name: Some(self.alarm_name.clone()),
            alarm_contributor_id: None,
            alarm_type: Some(if self.composite {
                AlarmType::CompositeAlarm
            } else {
                AlarmType::MetricAlarm
            }),
            timestamp: Some(DateTime::from_millis(self.timestamp_ms)),
            history_item_type: Some(HistoryItemType::from_wire(&self.item_type)),
            history_summary: Some(self.summary.clone()),
            history_data: Some(self.data.clone()),
            alarm_contributor_attributes: None,
        }
    }
}

/// Adds a history item for `alarm` in `tx`.
pub(crate) fn record_history(cw: &CloudWatchService, tx: &mut Tx<'_>, item: HistoryRecord) -> Result<()> {
    let seq = cw.shared.sequence.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let key = TupleKey::new().i64(item.timestamp_ms).u64(seq).into_bytes();
    HISTORY.put(tx, key, &item)?;
    Ok(())
}

/// The history items within the last 30 days, oldest first.
pub(crate) fn history(r: &(impl Read + ?Sized), now_ms: i64) -> Result<Vec<HistoryRecord>> {
    let from = TupleKey::new().i64(now_ms - HISTORY_MS).into_bytes();
    Ok(HISTORY
        .scan(r, &KeyRange::new(from..), Direction::Forward, None)?
        .into_iter()
        .map(|(_, item)| item)
        .collect())
}

/// A state to move an alarm to.
#[derive(Clone, Debug)]
pub(crate) struct NewState {
    pub value: String,
    pub reason: String,
    pub reason_data: Option<String>,
}

/// Where a transition happens: the account and region of the alarm, when, and how many
/// composite alarms deep (composites over composites are followed a few levels).
#[derive(Clone, Copy, Debug)]
pub(crate) struct At<'a> {
    pub account: &'a str,
    pub region: &'a str,
    pub now_ms: i64,
    pub level: usize,
}

impl<'a> At<'a> {
    pub(crate) fn new(account: &'a str, region: &'a str, now_ms: i64) -> At<'a> {
        At {
            account,
            region,
            now_ms,
            level: 0,
        }
    }
}

/// Moves `alarm` to `new` in `tx`: a state update with a history item, and (when the value
/// changes and actions are enabled) a notification for each of the new state's SNS and Lambda
/// actions, then the composite alarms over it. Answers whether the value changed; the caller wakes
/// the notification outbox after the commit.
pub(crate) fn transition(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    alarm: &mut AlarmRecord,
    new: NewState,
    at: At<'_>,
    triggering: Option<rule::Trigger>,
) -> Result<bool> {
    let old_value = alarm.state.clone();
    let old_reason = alarm.state_reason.clone();
    let (old_reason_data, old_updated_ms) = (alarm.state_reason_data.clone(), alarm.state_updated_ms);
    let changed = old_value != new.value;
    alarm.state = new.value.clone();
    alarm.state_reason = new.reason.clone();
    alarm.state_reason_data = new.reason_data.clone();
    alarm.state_updated_ms = at.now_ms;
    if changed {
        alarm.state_transitioned_ms = at.now_ms;
    }
    ALARMS.put(tx, alarm.name.as_bytes(), alarm)?;
    if !changed {
        return Ok(false);
    }
    let mut new_state = json!({"stateValue": new.value, "stateReason": new.reason});
    if let Some(data) = new
        .reason_data
        .as_deref()
        .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
    {
        new_state["stateReasonData"] = data;
    }
    let data = json!({
        "version": "1.0",
        "oldState": {"stateValue": old_value, "stateReason": old_reason},
        "newState": new_state,
    });
    record_history(
        cw,
        tx,
        HistoryRecord {
            alarm_name: alarm.name.clone(),
            composite: alarm.is_composite(),
            timestamp_ms: at.now_ms,
            item_type: "StateUpdate".to_owned(),
            summary: format!("Alarm updated from {old_value} to {}", new.value),
            data: data.to_string(),
        },
    )?;
    if alarm.actions_enabled {
        let previous = notify::Previous {
            value: &old_value,
            reason: &old_reason,
            reason_data: old_reason_data.as_deref(),
            updated_ms: old_updated_ms,
        };
        notify::queue(cw, tx, alarm, previous, at, triggering.as_ref())?;
    }
    rule::reevaluate_composites(cw, tx, alarm, at)?;
    Ok(true)
}

/// A configuration update's history item (`Alarm "name" created` or `updated`).
pub(crate) fn configuration_history(alarm: &AlarmRecord, created: bool, now_ms: i64) -> HistoryRecord {
    let (summary, kind) = if created {
        (format!("Alarm \"{}\" created", alarm.name), "Create")
    } else {
        (format!("Alarm \"{}\" updated", alarm.name), "Update")
    };
    let data = json!({
        "version": "1.0",
        "type": kind,
        "createdAlarm": {"alarmName": alarm.name, "alarmArn": alarm.arn},
    });
    HistoryRecord {
        alarm_name: alarm.name.clone(),
        composite: alarm.is_composite(),
        timestamp_ms: now_ms,
        item_type: "ConfigurationUpdate".to_owned(),
        summary,
        data: data.to_string(),
    }
}
