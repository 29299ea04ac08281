//! Alarm actions: on a state change, each SNS topic among the new state's actions gets AWS's
//! alarm notification (the JSON message and subject AWS publishes), and each Lambda function
//! is invoked asynchronously with AWS's alarm event (CloudWatch's guide, "Lambda alarm
//! actions"), through the outbox, so an action queued with the change survives a restart. The
//! courier publishes through SNS's [`TopicPublisher`](stratus_core::service::TopicPublisher)
//! and invokes through Lambda's [`FunctionInvoker`](stratus_core::service::FunctionInvoker),
//! and records the outcome as an `Action` history item, as AWS does. Other action types (Auto
//! Scaling, EC2, Systems Manager) are recorded as failed: Stratus runs SNS and Lambda actions.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use stratus_core::service::capabilities::{Invocation, InvocationType, Publication};
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
/// The service principal alarms invoke functions as, which a function's policy names.
const LAMBDA_PRINCIPAL: &str = "lambda.alarms.cloudwatch.amazonaws.com";
/// SNS's longest subject.
const MAX_SUBJECT_CHARS: usize = 100;

/// One notification on its way to a topic (the message and its subject) or a function (the
/// event as the message).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Notification {
    pub alarm_name: String,
    pub composite: bool,
    /// The action's ARN: a topic or a function.
    #[serde(alias = "topic_arn")]
    pub action: String,
    pub subject: String,
    pub message: String,
}

/// The state an alarm left.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Previous<'a> {
    pub value: &'a str,
    pub reason: &'a str,
    pub reason_data: Option<&'a str>,
    pub updated_ms: i64,
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

/// A state as the Lambda alarm event writes it.
fn event_state(value: &str, reason: &str, reason_data: Option<&str>, updated_ms: i64) -> Value {
    let mut state = json!({"value": value, "reason": reason});
    if let Some(data) = reason_data {
        state["reasonData"] = json!(data);
    }
    state["timestamp"] = json!(dates::iso(updated_ms));
    state
}

/// The `configuration` of the Lambda alarm event: a metric alarm's metrics (its one metric
/// under a generated id, or its queries), a composite alarm's rule.
fn event_configuration(alarm: &AlarmRecord) -> Value {
    let mut configuration = serde_json::Map::new();
    if let Some(description) = &alarm.description {
        configuration.insert("description".into(), json!(description));
    }
    match &alarm.kind {
        AlarmKind::Metric(spec) => {
            let metrics: Vec<Value> = match (&spec.metric, &spec.metrics) {
                (Some(metric), _) => {
                    let mut stat = json!({
                        "metric": metric_of_event(metric),
                        "period": spec.period,
                        "stat": spec.statistic.clone().or_else(|| spec.extended_statistic.clone()),
                    });
                    if let Some(unit) = &spec.unit {
                        stat["unit"] = json!(unit);
                    }
                    vec![json!({"id": stratus_core::id::uuid(), "metricStat": stat, "returnData": true})]
                }
                (None, Some(queries)) => queries.iter().map(query_of_event).collect(),
                (None, None) => Vec::new(),
            };
            configuration.insert("metrics".into(), Value::Array(metrics));
        }
        AlarmKind::Composite(spec) => {
            configuration.insert("alarmRule".into(), json!(spec.rule));
            if let Some(suppressor) = &spec.actions_suppressor {
                configuration.insert("actionsSuppressor".into(), json!(suppressor));
                configuration.insert(
                    "actionsSuppressorWaitPeriod".into(),
                    json!(spec.actions_suppressor_wait_period),
                );
                configuration.insert(
                    "actionsSuppressorExtensionPeriod".into(),
                    json!(spec.actions_suppressor_extension_period),
                );
            }
        }
    }
    Value::Object(configuration)
}

/// A metric as the Lambda alarm event writes it: its dimensions as an object.
fn metric_of_event(metric: &crate::metric::MetricId) -> Value {
    let dimensions: serde_json::Map<String, Value> = metric
        .dimensions
        .iter()
        .map(|(name, value)| (name.clone(), json!(value)))
        .collect();
    json!({"namespace": metric.namespace, "name": metric.name, "dimensions": dimensions})
}

/// One query of a metric-math alarm, as the Lambda alarm event writes it.
fn query_of_event(q: &crate::query::QuerySpec) -> Value {
    let mut m = json!({"id": q.id, "returnData": q.returned()});
    if let Some(stat) = &q.stat {
        m["metricStat"] = json!({
            "metric": metric_of_event(&stat.metric),
            "period": stat.period,
            "stat": stat.stat,
        });
        if let Some(unit) = &stat.unit {
            m["metricStat"]["unit"] = json!(unit);
        }
    }
    if let Some(e) = &q.expression {
        m["expression"] = json!(e);
    }
    if let Some(l) = &q.label {
        m["label"] = json!(l);
    }
    m
}

/// The event a Lambda alarm action invokes its function with (recorded against AWS).
pub(crate) fn lambda_event(alarm: &AlarmRecord, previous: Previous<'_>, at: At<'_>) -> Value {
    json!({
        "source": "aws.cloudwatch",
        "alarmArn": alarm.arn,
        "accountId": at.account,
        "time": dates::iso(at.now_ms),
        "region": at.region,
        "alarmData": {
            "alarmName": alarm.name,
            "state": event_state(&alarm.state, &alarm.state_reason, alarm.state_reason_data.as_deref(), alarm.state_updated_ms),
            "previousState": event_state(previous.value, previous.reason, previous.reason_data, previous.updated_ms),
            "configuration": event_configuration(alarm),
        },
    })
}

/// The service an action's ARN names.
fn service_of(arn: &str) -> Option<&str> {
    arn.split(':').nth(2)
}

/// Queues a notification for each SNS and Lambda action of `alarm`'s new state, in `tx`; the
/// other actions get a failed `Action` history item.
pub(crate) fn queue(
    cw: &CloudWatchService,
    tx: &mut Tx<'_>,
    alarm: &AlarmRecord,
    previous: Previous<'_>,
    at: At<'_>,
    triggering: Option<&super::rule::Trigger>,
) -> Result<()> {
    let actions = alarm.actions_for(&alarm.state).to_vec();
    if actions.is_empty() {
        return Ok(());
    }
    let message = message(alarm, previous.value, at, triggering).to_string();
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
        let (subject, message) = match service_of(&action) {
            Some("sns") => (subject.clone(), message.clone()),
            Some("lambda") => (String::new(), lambda_event(alarm, previous, at).to_string()),
            _ => {
                let item = action_history(
                    &alarm.name,
                    alarm.is_composite(),
                    at.now_ms,
                    &action,
                    Err("Stratus runs only SNS and Lambda alarm actions"),
                );
                record_history(cw, tx, item)?;
                continue;
            }
        };
        cw.shared.notifications.put(
            tx,
            Notification {
                alarm_name: alarm.name.clone(),
                composite: alarm.is_composite(),
                action,
                subject,
                message,
            },
        )?;
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
        Ok(message_id) if service_of(action) == Some("sns") => (
            format!("Successfully executed action {action}"),
            json!({"actionState": "Succeeded", "stateUpdateTimestamp": now_ms, "notificationResource": action, "publishedMessage": {"messageId": message_id}}),
        ),
        Ok(_) => (
            format!("Successfully executed action {action}"),
            json!({"actionState": "Succeeded", "stateUpdateTimestamp": now_ms}),
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
            let outcome = if service_of(&n.action) == Some("lambda") {
                self.invoke_action(to, n).await
            } else {
                self.publish_action(to, n).await
            };
            let item = action_history(
                &n.alarm_name,
                n.composite,
                self.now_ms(),
                &n.action,
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

impl CloudWatchService {
    /// Publishes a notification to its topic: the message id, or why it failed.
    async fn publish_action(&self, to: &Place, n: &Notification) -> std::result::Result<String, String> {
        let Some(topics) = &self.shared.topics else {
            return Err("Resource not found".to_owned());
        };
        let publication = Publication {
            topic_arn: n.action.clone(),
            subject: Some(n.subject.clone()),
            message: n.message.clone(),
            attributes: Default::default(),
            group_id: None,
            dedup_id: None,
        };
        topics
            .publish(Caller::service(PRINCIPAL, &to.account, &to.region), publication)
            .await
            .map_err(|e| e.message)
    }

    /// Invokes a notification's function asynchronously with its event.
    async fn invoke_action(&self, to: &Place, n: &Notification) -> std::result::Result<String, String> {
        let Some(functions) = &self.shared.functions else {
            return Err("Resource not found".to_owned());
        };
        let invocation = Invocation {
            function: n.action.clone(),
            qualifier: None,
            invocation_type: InvocationType::Event,
            payload: n.message.clone().into_bytes(),
            source_arn: None,
        };
        functions
            .invoke(Caller::service(LAMBDA_PRINCIPAL, &to.account, &to.region), invocation)
            .await
            .map(|_| String::new())
            .map_err(|e| e.message)
    }
}
