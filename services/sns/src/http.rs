//! Deliveries to `http` subscriptions: one POST per attempt, as SNS makes them ("Parsing
//! message formats" and "HTTP/HTTPS headers" in the SNS developer guide): the JSON document in
//! a `text/plain; charset=UTF-8` body, `x-amz-sns-message-type`, `x-amz-sns-message-id`,
//! `x-amz-sns-topic-arn` and, for notifications, `x-amz-sns-subscription-arn`.
//!
//! A status from 200 to 499 is a delivery; anything else, a refused connection, or no answer
//! within 15 seconds is a failure, retried on the HTTP/S default policy (three retries, 20
//! seconds apart). `https` endpoints are not reached: Stratus has no TLS client.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Uri;
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};

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
    let uri: Uri = post
        .url
        .parse()
        .map_err(|_| Failure::Never(format!("the endpoint {} is not a URL", post.url)))?;
    if uri.scheme_str() != Some("http") {
        return Err(Failure::Never(format!(
            "the endpoint {} is not plain http: Stratus makes no TLS connections",
            post.url
        )));
    }
    let host = uri
        .host()
        .ok_or_else(|| Failure::Never(format!("the endpoint {} names no host", post.url)))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(80);
    let authority = uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_default();
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let mut request = hyper::Request::post(path)
        .header(hyper::header::HOST, authority)
        .header(hyper::header::CONTENT_TYPE, "text/plain; charset=UTF-8")
        .header(hyper::header::USER_AGENT, "Amazon Simple Notification Service Agent")
        .header("x-amz-sns-message-type", &post.message_type)
        .header("x-amz-sns-message-id", &post.message_id)
        .header("x-amz-sns-topic-arn", &post.topic_arn);
    if let Some(subscription) = &post.subscription_arn {
        request = request.header("x-amz-sns-subscription-arn", subscription);
    }
    if post.raw {
        request = request.header("x-amz-sns-rawdelivery", "true");
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_owned())))
        .map_err(|e| Failure::Never(e.to_string()))?;
    let attempt = async {
        let stream = tokio::net::TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|e| format!("could not connect: {e}"))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        // Read the answer to its end, so the endpoint is not cut off mid-reply.
        let _ = response.into_body().collect().await;
        Ok::<u16, String>(status)
    };
    match tokio::time::timeout(ANSWER_WITHIN, attempt).await {
        Err(_) => Err(Failure::Retry("no answer within 15 seconds".to_owned())),
        Ok(Err(e)) => Err(Failure::Retry(e)),
        Ok(Ok(status)) if (200..500).contains(&status) => Ok(()),
        Ok(Ok(status)) => Err(Failure::Retry(format!("the endpoint answered {status}"))),
    }
}
