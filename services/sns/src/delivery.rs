//! Deliveries: one outbox entry per subscription of each accepted message, written in the
//! transaction that acknowledges the publish (`stratus-outbox` drains them). A delivery that fails with a server-side error is retried on
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
use stratus_core::service::{BoxFuture, Caller};
use stratus_core::AwsError;
use stratus_outbox::{Courier, Entry, Next, Place};

use crate::http;
use crate::messages::Attribute;
use crate::service::SnsService;
use crate::signing::Signing;

/// The service principal SNS delivers as.
const PRINCIPAL: &str = "sns.amazonaws.com";

/// Where a delivery goes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) enum Target {
    /// An SQS queue, by ARN.
    Queue(String),
    /// A Lambda function, by ARN (invoked asynchronously).
    Function(String),
    /// An `http` endpoint.
    Http(http::Post),
}

/// The outbox's table in each account's and region's store.
pub(crate) const DELIVERIES: &str = "pending_deliveries";

/// One message on its way to one subscription.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Delivery {
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
    /// How the body (and the dead-letter body) are signed as the delivery is made; `None`
    /// for what carries no signature (raw deliveries, FIFO topics' envelopes).
    #[serde(default)]
    pub(crate) signing: Option<Signing>,
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

/// One attempt at a delivery; then a retry, the dead-letter queue, or nothing.
impl Courier<Delivery> for SnsService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<Delivery>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let signed;
            let delivery = match &entry.item.signing {
                None => &entry.item,
                Some(signing) => match self.signed(to, &entry.item, signing).await {
                    Ok(d) => {
                        signed = d;
                        &signed
                    }
                    Err(e) => {
                        tracing::warn!(error = %e.0.message, "no signing key: the delivery waits");
                        return Next::Retry(Duration::from_secs(1));
                    }
                },
            };
            let caller = Caller::service(PRINCIPAL, &to.account, &to.region);
            let result = match &delivery.target {
                Target::Queue(arn) => self.send_to_queue(caller, arn, delivery).await,
                Target::Function(arn) => self.invoke_function(caller, arn, delivery).await,
                Target::Http(post) => {
                    return match http::deliver(post, &delivery.body).await {
                        Ok(()) => Next::Done,
                        Err(http::Failure::Retry(_)) if entry.attempts < http::RETRIES => {
                            Next::Retry(http::RETRY_DELAY)
                        }
                        Err(http::Failure::Retry(reason) | http::Failure::Never(reason)) => {
                            tracing::info!(subscription = %delivery.subscription_arn, %reason, "HTTP delivery failed");
                            self.dead_letter(caller, delivery).await;
                            Next::Done
                        }
                    };
                }
            };
            match outcome(result) {
                Outcome::Delivered => return Next::Done,
                Outcome::ClientError(e) => {
                    tracing::info!(subscription = %delivery.subscription_arn, error = %e.message, "delivery failed: endpoint refused it");
                }
                Outcome::ServerError(e) => match retry_delay_ms(entry.attempts + 1) {
                    Some(delay) => return Next::Retry(Duration::from_millis(u64::try_from(delay).unwrap_or(0))),
                    None => {
                        tracing::info!(subscription = %delivery.subscription_arn, error = %e.message, "delivery failed: retries exhausted");
                    }
                },
            }
            self.dead_letter(caller, delivery).await;
            Next::Done
        })
    }
}

impl SnsService {
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
            trace_header: None,
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
            source_arn: None,
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
            trace_header: None,
        };
        if let Err(e) = queues.send_message(caller, queue, message).await {
            tracing::warn!(queue = %queue, error = %e.message, "could not move an undeliverable message to its dead-letter queue");
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
}
