//! Alarm actions: on a state change, each SNS topic among the new state's actions gets AWS's
//! alarm notification (the JSON message and subject AWS publishes), through the outbox, so a
//! notification queued with the change survives a restart. The courier publishes through
//! SNS's [`TopicPublisher`](stratus_core::service::TopicPublisher) and records the outcome
//! as an `Action` history item, as AWS does. Other action types (Auto Scaling, EC2, Systems
//! Manager, Lambda) are recorded as failed: Stratus runs only SNS actions.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use stratus_core::service::capabilities::Publication;
use stratus_core::service::{BoxFuture, Caller};
use stratus_outbox::{Courier, Entry, Next, Place};
use stratus_storage::Tx;

use super::{record_history, AlarmKind, AlarmRecord, At, HistoryRecord};
use crate::dates;
use crate::error::Result;
use crate::regions;
use crate::service::CloudWatchService;

/// The outbox's table in each account's and region's store.
pub(crate) const NOTIFICATIONS: &str = "pending_notifications";
/// The service principal alarms publish as.
const PRINCIPAL: &str = "cloudwatch.amazonaws.com";
/// SNS's longest subject.
const MAX_SUBJECT_CHARS: usize = 100;

/// One notification on its way to a topic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Notification {
    pub alarm_name: String,
    pub composite: bool,
    pub topic_arn: String,
    pub subject: String,
    pub message: String,
}

/// The `Trigger` of a metric alarm's notification.
fn trigger(alarm: &AlarmRecord) -> Value {
    let AlarmKind::Metric(spec) = &alarm.kind else {
        return Value::Null;
    };
    let mut trigger = serde_json::Map::new();
    if let Some(metric) = &spec.metric {
        trigger.insert("MetricName".into(), json!(metric.name));
        trigger.insert("Namespace".into(), json!(metric.namespace));
    }
    match (&spec.statistic, &spec.extended_statistic) {
        (Some(statistic), _) => {
            trigger.insert("StatisticType".into(), json!("Statistic"));
            trigger.insert("Statistic".into(), json!(statistic.to_uppercase()));
        }
        (None, Some(extended)) => {
            trigger.insert("StatisticType".into(), json!("ExtendedStatistic"));
            trigger.insert("ExtendedStatistic".into(), json!(extended));
        }
        (None, None) => {}
    }
    trigger.insert("Unit".into(), json!(spec.unit));
    if let Some(metric) = &spec.metric {
        let dimensions: Vec<Value> = metric
            .dimensions
            .iter()
            .map(|(name, value)| json!({"value": value, "name": name}))
            .collect();
        trigger.insert("Dimensions".into(), Value::Array(dimensions));
    }
    if let Some(period) = spec.period {
        trigger.insert("Period".into(), json!(period));
    }
    trigger.insert("EvaluationPeriods".into(), json!(spec.evaluation_periods));
    if let Some(m) = spec.datapoints_to_alarm {
        trigger.insert("DatapointsToAlarm".into(), json!(m));
    }
    if let Some(queries) = &spec.metrics {
        let metrics: Vec<Value> = queries
            .iter()
            .map(|q| {
                let mut m = json!({"Id": q.id, "ReturnData": q.returned()});
                if let Some(e) = &q.expression {
                    m["Expression"] = json!(e);
                }
                if let Some(l) = &q.label {
                    m["Label"] = json!(l);
                }
                m
            })
            .collect();
        trigger.insert("Metrics".into(), Value::Array(metrics));
    }
    trigger.insert("ComparisonOperator".into(), json!(spec.comparison_operator));
    if let Some(threshold) = spec.threshold {
        trigger.insert("Threshold".into(), json!(threshold));
    }
    trigger.insert(
        "TreatMissingData".into(),
        json!(spec.treat_missing_data.clone().unwrap_or_default()),
    );
    trigger.insert(
        "EvaluateLowSampleCountPercentile".into(),
        json!(spec.evaluate_low_sample_count_percentile.clone().unwrap_or_default()),
    );
    Value::Object(trigger)
}

/// The message AWS publishes for `alarm`'s move from `old_state`.
pub(crate) fn message(
    alarm: &AlarmRecord,
    old_state: &str,
    at: At<'_>,
    triggering: Option<&super::rule::Trigger>,
) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("AlarmName".into(), json!(alarm.name));
    m.insert("AlarmDescription".into(), json!(alarm.description));
    m.insert("AWSAccountId".into(), json!(at.account));
    m.insert(
        "AlarmConfigurationUpdatedTimestamp".into(),
        json!(dates::iso(alarm.configuration_updated_ms)),
    );
    m.insert("NewStateValue".into(), json!(alarm.state));
    m.insert("NewStateReason".into(), json!(alarm.state_reason));
    m.insert("StateChangeTime".into(), json!(dates::iso(alarm.state_transitioned_ms)));
    m.insert("Region".into(), json!(regions::long_name(at.region)));
    m.insert("AlarmArn".into(), json!(alarm.arn));
    m.insert("OldStateValue".into(), json!(old_state));
    m.insert("OKActions".into(), json!(alarm.ok_actions));
    m.insert("AlarmActions".into(), json!(alarm.alarm_actions));
    m.insert("InsufficientDataActions".into(), json!(alarm.insufficient_data_actions));
    match &alarm.kind {
        AlarmKind::Metric(_) => {
            m.insert("Trigger".into(), trigger(alarm));
        }
        AlarmKind::Composite(spec) => {
            m.insert("AlarmRule".into(), json!(spec.rule));
            let children: Vec<Value> = triggering
                .map(|t| json!({"Arn": t.arn, "State": {"Value": t.state, "Timestamp": dates::iso(t.timestamp_ms)}}))
                .into_iter()
                .collect();
            m.insert("TriggeringChildren".into(), Value::Array(children));
        }
    }
    Value::Object(m)
}

fn is_topic(arn: &str) -> bool {
    arn.split(':').nth(2) == Some("sns")
}

/// Queues a notification for each SNS action of `alarm`'s new state, in `tx`; the other
/// actions get a failed `Action` history item.
pub(crate) fn queue(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    alarm: &AlarmRecord,
    old_state: &str,
    at: At<'_>,
    triggering: Option<&super::rule::Trigger>,
) -> Result<()> {
    let actions = alarm.actions_for(&alarm.state).to_vec();
    if actions.is_empty() {
        return Ok(());
    }
    let message = message(alarm, old_state, at, triggering).to_string();
    let subject: String = format!(
        "{}: \"{}\" in {}",
        alarm.state,
        alarm.name,
        regions::long_name(at.region)
    )
    .chars()
    .take(MAX_SUBJECT_CHARS)
    .collect();
    for action in actions {
        if is_topic(&action) {
            cw.shared.notifications.put(
                tx,
                Notification {
                    alarm_name: alarm.name.clone(),
                    composite: alarm.is_composite(),
                    topic_arn: action,
                    subject: subject.clone(),
                    message: message.clone(),
                },
            )?;
        } else {
            let item = action_history(
                &alarm.name,
                alarm.is_composite(),
                at.now_ms,
                &action,
                Err("Stratus runs only SNS alarm actions"),
            );
            record_history(cw, tx, item)?;
        }
    }
    Ok(())
}

fn action_history(
    alarm: &str,
    composite: bool,
    now_ms: i64,
    action: &str,
    outcome: std::result::Result<&str, &str>,
) -> HistoryRecord {
    let (summary, data) = match outcome {
        Ok(message_id) => (
            format!("Successfully executed action {action}"),
            json!({"actionState": "Succeeded", "stateUpdateTimestamp": now_ms, "notificationResource": action, "publishedMessage": {"messageId": message_id}}),
        ),
        Err(error) => (
            format!("Failed to execute action {action}. Received error: \"{error}\""),
            json!({"actionState": "Failed", "stateUpdateTimestamp": now_ms, "error": error}),
        ),
    };
    HistoryRecord {
        alarm_name: alarm.to_owned(),
        composite,
        timestamp_ms: now_ms,
        item_type: "Action".to_owned(),
        summary,
        data: data.to_string(),
    }
}

impl Courier<Notification> for CloudWatchService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<Notification>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let n = &entry.item;
            let caller = Caller::service(PRINCIPAL, &to.account, &to.region);
            let outcome = match &self.shared.topics {
                Some(topics) => topics
                    .publish(
                        caller,
                        Publication {
                            topic_arn: n.topic_arn.clone(),
                            subject: Some(n.subject.clone()),
                            message: n.message.clone(),
                            attributes: Default::default(),
                            group_id: None,
                            dedup_id: None,
                        },
                    )
                    .await
                    .map_err(|e| e.message),
                None => Err("Resource not found".to_owned()),
            };
            let item = action_history(
                &n.alarm_name,
                n.composite,
                self.now_ms(),
                &n.topic_arn,
                outcome.as_deref().map_err(String::as_str),
            );
            if let Ok(store) = self.store(&to.account, &to.region) {
                let cw = self.clone();
                let written = store.transact_async(move |tx| record_history(&cw, tx, item)).await;
                if let Err(e) = written {
                    tracing::warn!(alarm = %n.alarm_name, error = %e.0.message, "could not record an alarm action");
                }
            }
            Next::Done
        })
    }
}
