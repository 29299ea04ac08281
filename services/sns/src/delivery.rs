//! Deliveries: one record per subscription of each accepted message, written in the
//! transaction that acknowledges the publish and drained by a scheduler job that exists only
//! while deliveries are queued. A delivery that fails with a server-side error is retried on
//! AWS's policy for AWS-managed endpoints (three immediate retries, two a second apart, ten
//! backing off from one to twenty seconds, then every twenty seconds, 100,015 attempts in
//! all); one whose endpoint is gone (a deleted queue or function: a client-side error) is not
//! retried. Either way, what cannot be delivered goes to the subscription's dead-letter
//! queue when its RedrivePolicy names one, else it is dropped, as AWS drops it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use stratus_core::service::capabilities::{
    Invocation, InvocationType, MessageAttribute, MessageAttributeValue, QueueMessage,
};
use stratus_core::service::Caller;
use stratus_core::AwsError;
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange};

use crate::messages::Attribute;
use crate::service::{lock, SnsService};
use crate::store::DELIVERIES;

/// The service principal SNS delivers as.
const PRINCIPAL: &str = "sns.amazonaws.com";

/// Where a delivery goes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) enum Target {
    /// An SQS queue, by ARN.
    Queue(String),
    /// A Lambda function, by ARN (invoked asynchronously).
    Function(String),
}

/// One message on its way to one subscription.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Delivery {
    /// Orders deliveries due at the same moment as they were accepted.
    pub(crate) sequence: u64,
    pub(crate) subscription_arn: String,
    pub(crate) target: Target,
    /// The queue message's body, or the function's event.
    pub(crate) body: String,
    /// The queue message's attributes (raw deliveries).
    pub(crate) attributes: BTreeMap<String, Attribute>,
    pub(crate) group_id: Option<String>,
    pub(crate) dedup_id: Option<String>,
    /// The subscription's dead-letter queue, and what it receives.
    pub(crate) dead_letter: Option<(String, String)>,
    pub(crate) attempts: u32,
    pub(crate) due_ms: i64,
}

pub(crate) fn delivery_key(d: &Delivery) -> Vec<u8> {
    TupleKey::new()
        .u64(u64::try_from(d.due_ms).unwrap_or(0))
        .u64(d.sequence)
        .into_bytes()
}

/// How long after its `failures`-th failed attempt a delivery is tried again, on AWS's
/// policy for AWS-managed endpoints; `None` once it has had them all.
pub(crate) fn retry_delay_ms(failures: u32) -> Option<i64> {
    match failures {
        0..=3 => Some(0),
        4..=5 => Some(1_000),
        6..=15 => {
            let step = f64::from(failures - 6) / 9.0;
            Some((1_000.0 * 20f64.powf(step)).round() as i64)
        }
        16..=100_014 => Some(20_000),
        _ => None,
    }
}

/// What an attempt came to.
enum Outcome {
    Delivered,
    /// The endpoint is gone or refuses the message: not retried.
    ClientError(AwsError),
    /// Worth another attempt.
    ServerError(AwsError),
}

fn outcome(result: Result<(), AwsError>) -> Outcome {
    match result {
        Ok(()) => Outcome::Delivered,
        Err(e) if e.http_status < 500 && e.code != "ThrottlingException" && e.code != "TooManyRequestsException" => {
            Outcome::ClientError(e)
        }
        Err(e) => Outcome::ServerError(e),
    }
}

fn queue_attributes(attributes: &BTreeMap<String, Attribute>) -> BTreeMap<String, MessageAttribute> {
    attributes
        .iter()
        .map(|(name, a)| {
            let value = match (&a.string, &a.binary) {
                (_, Some(b)) => MessageAttributeValue::Binary(b.clone()),
                (Some(s), None) => MessageAttributeValue::String(s.clone()),
                (None, None) => MessageAttributeValue::String(String::new()),
            };
            (
                name.clone(),
                MessageAttribute {
                    data_type: a.data_type.clone(),
                    value,
                },
            )
        })
        .collect()
}

/// Whether `arn` names a FIFO queue, which takes group and deduplication ids.
fn is_fifo_queue(arn: &str) -> bool {
    arn.ends_with(".fifo")
}

impl SnsService {
    /// Makes sure a drain of the account's and region's deliveries runs at `due_ms` (or
    /// earlier).
    pub(crate) fn schedule_drain(&self, account: &str, region: &str, due_ms: i64) {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let _ = self.shared.settings.runtime.set(handle);
        }
        let key = (account.to_owned(), region.to_owned());
        {
            let mut draining = lock(&self.shared.draining);
            if draining.get(&key).is_some_and(|&at| at <= due_ms) {
                return;
            }
            draining.insert(key.clone(), due_ms);
        }
        let delay = Duration::from_millis(u64::try_from(due_ms - self.now_ms()).unwrap_or(0));
        let sns = self.clone();
        self.shared.scheduler.after(delay, move || {
            let Some(handle) = sns.shared.settings.runtime.get().cloned() else {
                // Only right after start, before the binary has its runtime running.
                lock(&sns.shared.draining).remove(&key);
                let soon = sns.now_ms() + 100;
                sns.schedule_drain(&key.0, &key.1, soon);
                return;
            };
            handle.spawn(async move {
                let one_at_a_time = lock(&sns.shared.drain_locks).entry(key.clone()).or_default().clone();
                let _draining = one_at_a_time.lock().await;
                lock(&sns.shared.draining).remove(&key);
                sns.drain(&key.0, &key.1).await;
            });
        });
    }

    /// Runs every due delivery of `account` and `region`, in order, then schedules the next.
    async fn drain(&self, account: &str, region: &str) {
        loop {
            let Ok(store) = self.store(account, region) else { return };
            let Ok(queued) = DELIVERIES.scan(&*store, &KeyRange::all(), Direction::Forward, Some(32)) else {
                return;
            };
            let now = self.now_ms();
            let due: Vec<Delivery> = queued
                .iter()
                .map(|(_, d)| d.clone())
                .filter(|d| d.due_ms <= now)
                .collect();
            if due.is_empty() {
                if let Some((_, next)) = queued.first() {
                    self.schedule_drain(account, region, next.due_ms);
                }
                return;
            }
            for delivery in due {
                if !self.deliver(account, region, delivery).await {
                    return;
                }
            }
        }
    }

    /// One attempt at `delivery`; then it is removed, or put back for its next attempt.
    /// Answers whether the queue could be updated.
    async fn deliver(&self, account: &str, region: &str, delivery: Delivery) -> bool {
        let caller = Caller::service(PRINCIPAL, account, region);
        let result = match &delivery.target {
            Target::Queue(arn) => self.send_to_queue(caller, arn, &delivery).await,
            Target::Function(arn) => self.invoke_function(caller, arn, &delivery).await,
        };
        let now = self.now_ms();
        let attempts = delivery.attempts + 1;
        let (retry, dead) = match outcome(result) {
            Outcome::Delivered => (None, false),
            Outcome::ClientError(e) => {
                tracing::info!(subscription = %delivery.subscription_arn, error = %e.message, "delivery failed: endpoint refused it");
                (None, true)
            }
            Outcome::ServerError(e) => match retry_delay_ms(attempts) {
                Some(delay) => (
                    Some(Delivery {
                        attempts,
                        due_ms: now + delay,
                        ..delivery.clone()
                    }),
                    false,
                ),
                None => {
                    tracing::info!(subscription = %delivery.subscription_arn, error = %e.message, "delivery failed: retries exhausted");
                    (None, true)
                }
            },
        };
        let old_key = delivery_key(&delivery);
        let next = retry.clone();
        let written = self
            .transact(account, region, move |tx| {
                DELIVERIES.delete(tx, old_key);
                if let Some(next) = &next {
                    DELIVERIES.put(tx, delivery_key(next), next)?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = written {
            tracing::error!(error = %e.0.message, "could not update the queue of deliveries");
            return false;
        }
        if let Some(next) = retry {
            self.schedule_drain(account, region, next.due_ms);
        }
        if dead {
            self.dead_letter(caller, &delivery).await;
        }
        true
    }

    async fn send_to_queue(&self, caller: Caller<'_>, arn: &str, d: &Delivery) -> Result<(), AwsError> {
        let Some(queues) = &self.shared.queues else {
            return Err(AwsError::new(
                "AWS.SimpleQueueService.NonExistentQueue",
                "The specified queue does not exist.",
                400,
            ));
        };
        let fifo = is_fifo_queue(arn);
        // Standard queues take a group id too (and keep it as an attribute), not a dedup id.
        let message = QueueMessage {
            body: d.body.clone(),
            attributes: queue_attributes(&d.attributes),
            group_id: d.group_id.clone(),
            dedup_id: d.dedup_id.clone().filter(|_| fifo),
        };
        queues.send_message(caller, arn, message).await
    }

    async fn invoke_function(&self, caller: Caller<'_>, arn: &str, d: &Delivery) -> Result<(), AwsError> {
        let Some(functions) = &self.shared.functions else {
            return Err(AwsError::new(
                "ResourceNotFoundException",
                format!("Function not found: {arn}"),
                404,
            ));
        };
        let invocation = Invocation {
            function: arn.to_owned(),
            qualifier: None,
            invocation_type: InvocationType::Event,
            payload: d.body.clone().into_bytes(),
        };
        functions.invoke(caller, invocation).await.map(|_| ())
    }

    /// Hands what could not be delivered to the subscription's dead-letter queue.
    async fn dead_letter(&self, caller: Caller<'_>, d: &Delivery) {
        let Some((queue, body)) = &d.dead_letter else { return };
        let Some(queues) = &self.shared.queues else { return };
        let fifo = is_fifo_queue(queue);
        let message = QueueMessage {
            body: body.clone(),
            attributes: queue_attributes(&d.attributes),
            group_id: d.group_id.clone(),
            dedup_id: d.dedup_id.clone().filter(|_| fifo),
        };
        if let Err(e) = queues.send_message(caller, queue, message).await {
            tracing::warn!(queue = %queue, error = %e.message, "could not move an undeliverable message to its dead-letter queue");
        }
    }

    /// After a restart: drains the queues left with deliveries in them.
    pub(crate) fn resume_deliveries(&self) {
        let Ok(namespaces) = self.shared.storage.regional_namespaces("sns") else {
            return;
        };
        for ns in namespaces {
            let Some(region) = ns.region.as_deref() else {
                continue;
            };
            let account = ns.account.as_str();
            let Ok(store) = self.store(account, region) else {
                continue;
            };
            if let Ok(first) = DELIVERIES.scan(&*store, &KeyRange::all(), Direction::Forward, Some(1)) {
                if let Some((_, d)) = first.first() {
                    self.schedule_drain(account, region, d.due_ms);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_aws_managed_policy() {
        assert_eq!((1..=3).map(retry_delay_ms).collect::<Vec<_>>(), [Some(0); 3]);
        assert_eq!(retry_delay_ms(4), Some(1_000));
        assert_eq!(retry_delay_ms(6), Some(1_000));
        assert_eq!(retry_delay_ms(15), Some(20_000));
        assert_eq!(retry_delay_ms(100_014), Some(20_000));
        assert_eq!(retry_delay_ms(100_015), None);
        let backoff: Vec<i64> = (6..=15).filter_map(retry_delay_ms).collect();
        assert!(backoff.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn deleted_endpoints_are_not_retried() {
        let gone = AwsError::new("AWS.SimpleQueueService.NonExistentQueue", "gone", 400);
        assert!(matches!(outcome(Err(gone)), Outcome::ClientError(_)));
        assert!(matches!(outcome(Err(AwsError::internal("x"))), Outcome::ServerError(_)));
        assert!(matches!(outcome(Ok(())), Outcome::Delivered));
    }

    #[test]
    fn keys_order_by_due_time_then_acceptance() {
        let d = |due, sequence| Delivery {
            sequence,
            subscription_arn: String::new(),
            target: Target::Queue(String::new()),
            body: String::new(),
            attributes: BTreeMap::new(),
            group_id: None,
            dedup_id: None,
            dead_letter: None,
            attempts: 0,
            due_ms: due,
        };
        assert!(delivery_key(&d(1, 9)) < delivery_key(&d(2, 1)));
        assert!(delivery_key(&d(2, 1)) < delivery_key(&d(2, 2)));
    }
}
