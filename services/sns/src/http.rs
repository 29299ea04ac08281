//! Deliveries to `http` subscriptions: one POST per attempt, as SNS makes them ("Parsing
//! message formats" and "HTTP/HTTPS headers" in the SNS developer guide): the JSON document in
//! a `text/plain; charset=UTF-8` body, `x-amz-sns-message-type`, `x-amz-sns-message-id`,
//! `x-amz-sns-topic-arn` and, for notifications, `x-amz-sns-subscription-arn`.
//!
//! A status from 200 to 499 is a delivery; anything else, a refused connection, or no answer
//! within 15 seconds is a failure, retried on the HTTP/S default policy (three retries, 20
//! seconds apart). `https` endpoints are not reached: Stratus has no TLS client.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use stratus_http_client::PostError;

/// How long SNS waits for an endpoint's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(15);
/// Retries after a failed attempt, and the wait before each (the default delivery policy).
pub(crate) const RETRIES: u32 = 3;
pub(crate) const RETRY_DELAY: Duration = Duration::from_secs(20);

/// One POST to an endpoint, as stored with the delivery.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Post {
    pub(crate) url: String,
    /// `Notification`, `SubscriptionConfirmation` or `UnsubscribeConfirmation`.
    pub(crate) message_type: String,
    pub(crate) message_id: String,
    pub(crate) topic_arn: String,
    /// Notifications name their subscription; confirmations do not.
    pub(crate) subscription_arn: Option<String>,
    /// Raw message delivery: the message alone is the body.
    pub(crate) raw: bool,
}

/// Why an attempt did not deliver.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Worth another attempt: a 5xx, no connection, no answer in time.
    Retry(String),
    /// Never deliverable (an `https` or malformed endpoint).
    Never(String),
}

/// POSTs `body` to the endpoint of `post`.
pub(crate) async fn deliver(post: &Post, body: &str) -> Result<(), Failure> {
    let mut headers = vec![
        ("content-type", "text/plain; charset=UTF-8".to_owned()),
        ("user-agent", "Amazon Simple Notification Service Agent".to_owned()),
        ("x-amz-sns-message-type", post.message_type.clone()),
        ("x-amz-sns-message-id", post.message_id.clone()),
        ("x-amz-sns-topic-arn", post.topic_arn.clone()),
    ];
    if let Some(subscription) = &post.subscription_arn {
        headers.push(("x-amz-sns-subscription-arn", subscription.clone()));
    }
    if post.raw {
        headers.push(("x-amz-sns-rawdelivery", "true".to_owned()));
    }
    match stratus_http_client::post(&post.url, &headers, body.as_bytes().to_vec(), ANSWER_WITHIN).await {
        Err(PostError::Unreachable(e)) => Err(Failure::Retry(e)),
        Err(PostError::NotPlainHttp(e)) => Err(Failure::Never(e)),
        Ok(answer) if (200..500).contains(&answer.status) => Ok(()),
        Ok(answer) => Err(Failure::Retry(format!("the endpoint answered {}", answer.status))),
    }
}
