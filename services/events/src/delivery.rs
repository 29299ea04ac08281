//! Events on their way to targets: matching a bus's rules, the durable deliveries written in
//! the transaction that acknowledges the events, and the drain that makes them, with each
//! target's RetryPolicy and DeadLetterConfig.
//!
//! A delivery is an entry of the service's outbox (`stratus-outbox`), which drains it after
//! the acknowledging commit, writes a failed one back due later, and resumes after a restart.

use std::time::Duration;

use serde_json::Value;
use stratus_core::arn::Arn;
use stratus_core::calendar::format_iso8601;
use stratus_core::service::capabilities::Event;
use stratus_core::service::capabilities::{Invocation, InvocationType, Publication, QueueMessage};
use stratus_core::service::{BoxFuture, Caller, EventBus};
use stratus_core::AwsError;
use stratus_event_pattern::{Dialect, Pattern};
use stratus_gen_eventbridge::Target;
use stratus_outbox::{Courier, Entry, Next, Outbox, Place};
use stratus_storage::{Direction, KeyRange, Tx};

use crate::error::Result;
use crate::records::{archived_key, ArchivedEvent, Delivery, RuleRecord, ARCHIVED, ARCHIVES};
use crate::service::{find_bus, rule_arn, EventsService};
use crate::transform::{self, Context};

/// The outbox's table in each account's and region's store.
pub(crate) const DELIVERIES: &str = "pending_deliveries";
/// The principal deliveries are made as.
const PRINCIPAL: &str = "events.amazonaws.com";
/// AWS's defaults: 185 retries over 24 hours.
const DEFAULT_RETRIES: u32 = 185;
const DEFAULT_MAX_AGE_SECS: u32 = 86_400;

/// One event to route, on the bus it was put on.
pub(crate) struct Routed {
    pub(crate) bus: String,
    pub(crate) event: Value,
    /// Only these rules (a replay's filter); all of the bus's when `None`.
    pub(crate) only_rules: Option<Vec<String>>,
    /// Whether the event is archived (replayed events are not archived again).
    pub(crate) archive: bool,
}

/// Writes, inside `tx`, a delivery per (event, matching target) and the archive entries;
/// answers how many deliveries were written.
pub(crate) fn route(
    tx: &mut Tx<'_>,
    outbox: &Outbox<Delivery>,
    account: &str,
    region: &str,
    now_ms: i64,
    events: &[Routed],
) -> Result<usize> {
    let mut written = 0;
    let archives: Vec<_> = ARCHIVES.scan(tx, &KeyRange::all(), Direction::Forward, None)?;
    for routed in events {
        if find_bus(tx, &routed.bus, now_ms)?.is_none() {
            // AWS accepts events for a bus that does not exist, and drops them.
            continue;
        }
        let event_id = routed
            .event
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        for rule in crate::ops::rules::rules_of(tx, &routed.bus)? {
            if !rule.enabled() || rule.targets.is_empty() {
                continue;
            }
            if let Some(only) = &routed.only_rules {
                if !only.contains(&rule_arn(region, account, &rule.bus, &rule.name)) {
                    continue;
                }
            }
            // A scheduled rule's own event (named by `only_rules`) needs no pattern.
            let scheduled = routed.only_rules.is_some() && rule.event_pattern.is_none();
            if !scheduled && !matches(&rule, &routed.event) {
                continue;
            }
            for stored in &rule.targets {
                let Ok(target) = stored.target() else { continue };
                let delivery = delivery_for(account, region, now_ms, &rule, &target, &event_id, &routed.event);
                outbox.put(tx, delivery)?;
                written += 1;
            }
        }
        if routed.archive {
            let source = crate::service::bus_arn(region, account, &routed.bus);
            for (key, mut archive) in archives.iter().cloned() {
                if archive.source_arn != source {
                    continue;
                }
                let wanted = match &archive.event_pattern {
                    Some(p) => Pattern::parse(p, Dialect::EventBridge).is_ok_and(|p| p.matches(&routed.event)),
                    None => true,
                };
                if wanted {
                    let text = routed.event.to_string();
                    archive.event_count += 1;
                    archive.size_bytes += i64::try_from(text.len()).unwrap_or(0);
                    ARCHIVED.put(
                        tx,
                        archived_key(&archive.name, now_ms, &event_id),
                        &ArchivedEvent {
                            event: text,
                            time_ms: now_ms,
                        },
                    )?;
                    ARCHIVES.put(tx, key, &archive)?;
                }
            }
        }
    }
    Ok(written)
}

fn matches(rule: &RuleRecord, event: &Value) -> bool {
    match &rule.event_pattern {
        Some(text) => Pattern::parse(text, Dialect::EventBridge).is_ok_and(|p| p.matches(event)),
        None => false,
    }
}

/// The delivery of `event` to `target` of `rule`, its body already what the target receives.
pub(crate) fn delivery_for(
    account: &str,
    region: &str,
    now_ms: i64,
    rule: &RuleRecord,
    target: &Target,
    event_id: &str,
    event: &Value,
) -> Delivery {
    let rule_arn = rule_arn(region, account, &rule.bus, &rule.name);
    let body = body_for(target, event, &rule_arn, &rule.name, &format_iso8601(now_ms / 1000));
    let retry = target.retry_policy.as_ref();
    Delivery {
        event_id: event_id.to_owned(),
        rule_arn,
        target_id: target.id.clone(),
        target_arn: target.arn.clone(),
        body,
        message_group_id: target.sqs_parameters.as_ref().and_then(|p| p.message_group_id.clone()),
        max_retries: retry
            .and_then(|r| r.maximum_retry_attempts)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(DEFAULT_RETRIES),
        max_age_secs: retry
            .and_then(|r| r.maximum_event_age_in_seconds)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(DEFAULT_MAX_AGE_SECS),
        dead_letter_arn: target.dead_letter_config.as_ref().and_then(|d| d.arn.clone()),
    }
}

/// What `target` receives for `event`.
pub(crate) fn body_for(
    target: &Target,
    event: &Value,
    rule_arn: &str,
    rule_name: &str,
    ingestion_time: &str,
) -> String {
    if let Some(input) = &target.input {
        return input.clone();
    }
    if let Some(path) = &target.input_path {
        return transform::select(event, path).map_or_else(String::new, Value::to_string);
    }
    if let Some(transformer) = &target.input_transformer {
        let context = Context {
            rule_arn,
            rule_name,
            ingestion_time,
        };
        let paths = transformer.input_paths_map.clone().unwrap_or_default();
        return transform::fill(&transformer.input_template, &paths, event, &context);
    }
    event.to_string()
}

/// How a delivery attempt went.
enum Outcome {
    Delivered,
    /// Worth retrying.
    Failed(String),
    /// The target does not exist (or is not served): not retried.
    Missing(String),
}

/// The wait before retry `attempt` (1-based): exponential from a second, at most five minutes.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_secs(1u64 << attempt.min(9).saturating_sub(1)).min(Duration::from_secs(300))
}

/// One attempt at a delivery; then a retry, the dead-letter queue, or nothing.
impl Courier<Delivery> for EventsService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<Delivery>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let delivery = &entry.item;
            let outcome = self.attempt(&to.account, &to.region, delivery).await;
            let wait = backoff(entry.attempts + 1);
            let retry_at = self.now_ms() + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2);
            let reason = match outcome {
                Outcome::Delivered => return Next::Done,
                Outcome::Failed(_)
                    if entry.attempts < delivery.max_retries
                        && retry_at - entry.accepted_ms < i64::from(delivery.max_age_secs) * 1000 =>
                {
                    return Next::Retry(wait);
                }
                Outcome::Failed(reason) | Outcome::Missing(reason) => reason,
            };
            tracing::warn!(target = %delivery.target_arn, %reason, "EventBridge delivery failed");
            if let (Some(dlq), Some(queues)) = (&delivery.dead_letter_arn, &self.shared.queues) {
                let caller = Caller::service(PRINCIPAL, &to.account, &to.region);
                if let Err(e) = queues.send(caller, dlq, delivery.body.clone()).await {
                    tracing::warn!(dead_letter = %dlq, error = %e, "could not send to the dead-letter queue");
                }
            }
            Next::Done
        })
    }
}

impl EventsService {
    async fn attempt(&self, account: &str, region: &str, delivery: &Delivery) -> Outcome {
        let Ok(arn) = Arn::parse(&delivery.target_arn) else {
            return Outcome::Missing("the target's ARN is not valid".to_owned());
        };
        let caller = Caller::service(PRINCIPAL, account, region);
        let missing = |e: &AwsError| {
            matches!(
                e.code.as_str(),
                "ResourceNotFoundException"
                    | "QueueDoesNotExist"
                    | "AWS.SimpleQueueService.NonExistentQueue"
                    | "NotFound"
            )
        };
        let judged = |result: Result<(), AwsError>| match result {
            Ok(()) => Outcome::Delivered,
            Err(e) if missing(&e) => Outcome::Missing(e.message.clone()),
            Err(e) => Outcome::Failed(e.message.clone()),
        };
        match arn.service.as_str() {
            "sqs" => match &self.shared.queues {
                // A FIFO queue takes the target's SqsParameters.MessageGroupId (and refuses a
                // message without one, so the delivery fails).
                Some(queues) => {
                    // The event id deduplicates, as AWS uses it for FIFO targets.
                    let fifo = delivery.target_arn.ends_with(".fifo");
                    let message = QueueMessage {
                        group_id: delivery.message_group_id.clone(),
                        dedup_id: fifo.then(|| delivery.event_id.clone()),
                        ..QueueMessage::plain(delivery.body.clone())
                    };
                    judged(queues.send_message(caller, &delivery.target_arn, message).await)
                }
                None => Outcome::Missing("SQS is not served".to_owned()),
            },
            "lambda" => match &self.shared.functions {
                Some(functions) => {
                    let invocation = Invocation {
                        function: delivery.target_arn.clone(),
                        qualifier: None,
                        invocation_type: InvocationType::Event,
                        payload: delivery.body.clone().into_bytes(),
                        source_arn: None,
                    };
                    judged(functions.invoke(caller, invocation).await.map(|_| ()))
                }
                None => Outcome::Missing("Lambda is not served".to_owned()),
            },
            "sns" => match &self.shared.topics {
                Some(topics) => {
                    let publication = Publication {
                        topic_arn: delivery.target_arn.clone(),
                        subject: None,
                        message: delivery.body.clone(),
                        attributes: Default::default(),
                        group_id: delivery.message_group_id.clone(),
                        dedup_id: None,
                    };
                    judged(topics.publish(caller, publication).await.map(|_| ()))
                }
                None => Outcome::Missing("SNS is not served".to_owned()),
            },
            "events" if arn.resource.starts_with("event-bus/") => {
                let bus = arn.resource.trim_start_matches("event-bus/").to_owned();
                let Ok(event) = serde_json::from_str::<Value>(&delivery.body) else {
                    return Outcome::Missing("the event is not JSON".to_owned());
                };
                let routed = vec![Routed {
                    bus,
                    event,
                    only_rules: None,
                    archive: true,
                }];
                match self.ingest(&arn.account, &arn.region, routed).await {
                    Ok(()) => Outcome::Delivered,
                    Err(e) => Outcome::Failed(e.message.clone()),
                }
            }
            other => Outcome::Missing(format!("targets of {other} are not served by Stratus")),
        }
    }

    /// Routes `events` in one transaction of `account` and `region`, then drains.
    pub(crate) async fn ingest(&self, account: &str, region: &str, events: Vec<Routed>) -> Result<(), AwsError> {
        let now = self.now_ms();
        let (a, r) = (account.to_owned(), region.to_owned());
        let outbox = self.shared.deliveries.clone();
        let written = self
            .transact(account, region, move |tx| route(tx, &outbox, &a, &r, now, &events))
            .await?;
        if written > 0 {
            self.shared.deliveries.wake(account, region);
        }
        Ok(())
    }
}

/// Other services' events (S3's, Scheduler's): put as PutEvents puts them.
impl EventBus for EventsService {
    fn put_events<'a>(
        &'a self,
        caller: Caller<'a>,
        events: Vec<Event>,
    ) -> BoxFuture<'a, Vec<Result<String, AwsError>>> {
        Box::pin(async move {
            let now_secs = self.now_ms() / 1000;
            let mut answers = Vec::with_capacity(events.len());
            let mut routed = Vec::new();
            for event in events {
                let id = stratus_core::id::uuid();
                let entry = crate::event::Entry {
                    source: Some(&event.source),
                    detail_type: Some(&event.detail_type),
                    detail: Some(&event.detail),
                    resources: &event.resources,
                    time_secs: event.time.map(|t| t.secs()),
                };
                let origin = crate::event::Origin {
                    id: &id,
                    account: caller.account_id,
                    region: caller.region,
                    now_secs,
                };
                match crate::event::build(&entry, &origin) {
                    Ok(built) => {
                        routed.push(Routed {
                            bus: crate::service::bus_name(Some(&event.bus)),
                            event: built,
                            only_rules: None,
                            archive: true,
                        });
                        answers.push(Ok(id));
                    }
                    Err(e) => answers.push(Err(AwsError::new(e.code, e.message, 400))),
                }
            }
            if let Err(e) = self.ingest(caller.account_id, caller.region, routed).await {
                return answers.into_iter().map(|_| Err(e.clone())).collect();
            }
            answers
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_five_minutes() {
        assert_eq!(backoff(1), Duration::from_secs(1));
        assert_eq!(backoff(2), Duration::from_secs(2));
        assert_eq!(backoff(5), Duration::from_secs(16));
        assert_eq!(backoff(50), Duration::from_secs(256));
        assert_eq!(backoff(0), Duration::from_secs(1));
    }
}
