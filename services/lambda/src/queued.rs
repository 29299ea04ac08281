//! Asynchronous (`Event`) invocations: queued in the service's outbox in the transaction
//! that acknowledges them, then run with Lambda's retries (two by default, a minute and then
//! two minutes apart), maximum event age, and destinations or dead-letter queue.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use stratus_core::service::capabilities::{Event, MessageAttribute, MessageAttributeValue, Publication, QueueMessage};
use stratus_core::service::{BoxFuture, Caller};
use stratus_core::AwsError;
use stratus_outbox::{Courier, Entry, Next, Place};

use crate::error::{self, function_not_found};
use crate::invoke::{target, too_large, Ran, RunError};
use crate::names::{FunctionRef, LATEST};
use crate::records::QueuedInvocation;
use crate::service::LambdaService;

/// The outbox's table in each account's and region's store.
pub(crate) const QUEUED: &str = "queued_invocations";
/// The largest asynchronous payload, in bytes.
pub(crate) const MAX_ASYNC_PAYLOAD: usize = 1_048_576;
/// Lambda's defaults for an asynchronous invocation without an event invoke configuration.
const DEFAULT_RETRIES: u32 = 2;
const DEFAULT_MAX_AGE_SECS: i64 = 21_600;
/// The longest `ErrorMessage` attribute of a dead-lettered event, in bytes.
const MAX_DEAD_LETTER_ERROR: usize = 1024;

impl LambdaService {
    /// Queues an `Event` invocation of `f` durably and answers once it is written.
    pub(crate) async fn enqueue(&self, f: &FunctionRef, payload: Vec<u8>, id: String) -> Result<(), AwsError> {
        if payload.len() > MAX_ASYNC_PAYLOAD {
            return Err(too_large(MAX_ASYNC_PAYLOAD));
        }
        let record = self.function(f, &f.latest_qualified_arn())?;
        target(&record, f)?;
        let queued = QueuedInvocation {
            id,
            function: record.name,
            qualifier: f.qualifier.clone(),
            payload,
        };
        let outbox = self.shared.queued.clone();
        self.transact(&f.account, &f.region, move |tx| {
            outbox.put(tx, queued).map_err(error::storage)
        })
        .await?;
        self.shared.queued.wake(&f.account, &f.region);
        Ok(())
    }

    /// Sends a destination record, or a dead-lettered event, to an SQS queue, an SNS topic,
    /// a function (invoked asynchronously with the record as its event) or an EventBridge bus
    /// (as the event Lambda's guide describes: source `lambda`, the result as its detail type,
    /// the bus and the function as its resources); other destination types are not served.
    pub(crate) async fn send_to(&self, account: &str, region: &str, destination: &str, sent: Sent<'_>) {
        let caller = Caller::service("lambda.amazonaws.com", account, region);
        let late = self.shared.late.get();
        let message = sent.message;
        let result = match destination.split(':').nth(2) {
            Some("sqs") => match &self.shared.messages {
                Some(queues) => queues.send_message(caller, destination, message).await,
                None => return not_served(destination),
            },
            Some("sns") => match late.and_then(|p| p.topics.clone()) {
                Some(topics) => {
                    let publication = Publication {
                        topic_arn: destination.to_owned(),
                        subject: None,
                        message: message.body,
                        attributes: message.attributes,
                        group_id: None,
                        dedup_id: None,
                    };
                    topics.publish(caller, publication).await.map(drop)
                }
                None => return not_served(destination),
            },
            Some("lambda") => match FunctionRef::parse(destination, None, account, region) {
                Ok(f) => {
                    self.enqueue(&f, message.body.into_bytes(), stratus_core::id::uuid())
                        .await
                }
                Err(e) => Err(e),
            },
            Some("events") => match (late.and_then(|p| p.events.clone()), sent.invocation) {
                (Some(buses), Some(invocation)) => {
                    let event = Event {
                        bus: destination.to_owned(),
                        source: "lambda".to_owned(),
                        detail_type: format!(
                            "Lambda Function Invocation Result - {}",
                            if invocation.succeeded { "Success" } else { "Failure" }
                        ),
                        detail: message.body,
                        resources: vec![destination.to_owned(), invocation.function_arn.to_owned()],
                        time: None,
                    };
                    // One entry put, one answered.
                    let answered = buses.put_events(caller, vec![event]).await;
                    answered.into_iter().try_for_each(|entry| entry.map(drop))
                }
                _ => return not_served(destination),
            },
            _ => return not_served(destination),
        };
        if let Err(e) = result {
            tracing::warn!(destination, error = %e, "could not deliver to the destination");
        }
    }
}

/// What a destination is sent: the message, and for an asynchronous invocation's record, the
/// invocation it reports.
pub(crate) struct Sent<'a> {
    pub(crate) message: QueueMessage,
    pub(crate) invocation: Option<Reported<'a>>,
}

/// The invocation a destination record reports, as an EventBridge destination names it.
pub(crate) struct Reported<'a> {
    pub(crate) succeeded: bool,
    /// The function's ARN with the version that was invoked (`…:$LATEST`).
    pub(crate) function_arn: &'a str,
}

impl Sent<'_> {
    /// A message that reports no invocation (a dead-lettered event, a stream batch's record).
    pub(crate) fn plain(message: QueueMessage) -> Sent<'static> {
        Sent {
            message,
            invocation: None,
        }
    }
}

fn not_served(destination: &str) {
    tracing::warn!(destination, "destination not served by Stratus: record dropped");
}

/// One run of a queued invocation; then a retry, or the destination for its outcome.
impl Courier<QueuedInvocation> for LambdaService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<QueuedInvocation>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let queued = &entry.item;
            let f = FunctionRef {
                account: to.account.clone(),
                region: to.region.clone(),
                name: queued.function.clone(),
                qualifier: queued.qualifier.clone(),
            };
            let record = self.function(&f, &f.arn()).ok();
            let eic_key = f.qualifier.clone().unwrap_or_else(|| LATEST.to_owned());
            let eic = record
                .as_ref()
                .and_then(|r| r.event_invoke.get(&eic_key).cloned())
                .unwrap_or_default();
            let dead_letter = record
                .as_ref()
                .and_then(|r| target(r, &f).ok())
                .and_then(|c| c.dead_letter_target);
            let attempts = entry.attempts + 1;
            let outcome = match record {
                Some(_) => self.run(&f, queued.payload.clone(), None, &queued.id).await,
                None => Err(RunError::Aws(function_not_found(&f.arn()))),
            };
            let now = self.now_ms();
            let max_retries = eic
                .maximum_retry_attempts
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(DEFAULT_RETRIES);
            let max_age_ms = eic.maximum_event_age_in_seconds.map_or(DEFAULT_MAX_AGE_SECS, i64::from) * 1000;
            let failed = !matches!(&outcome, Ok(ran) if ran.function_error.is_none());
            let wait = Duration::from_secs(60 * u64::from(attempts));
            let retry_at = now + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2);
            let too_old = retry_at - entry.accepted_ms >= max_age_ms;
            if failed && function_exists(&outcome) && attempts <= max_retries && !too_old {
                return Next::Retry(wait);
            }
            let destination = if failed {
                eic.on_failure.clone().or(dead_letter)
            } else {
                eic.on_success.clone()
            };
            if let Some(destination) = destination {
                let function_arn = f.latest_qualified_arn();
                let sent = if !failed || eic.on_failure.is_some() {
                    Sent {
                        message: QueueMessage::plain(destination_record(&f, queued, attempts, &outcome, now, too_old)),
                        invocation: Some(Reported {
                            succeeded: !failed,
                            function_arn: &function_arn,
                        }),
                    }
                } else {
                    Sent::plain(dead_letter_message(queued, &outcome))
                };
                self.send_to(&to.account, &to.region, &destination, sent).await;
            }
            Next::Done
        })
    }
}

/// Whether a failed run's function still exists (a deleted one is not retried).
fn function_exists(outcome: &Result<Ran, RunError>) -> bool {
    !matches!(outcome, Err(RunError::Aws(e)) if e.code == "ResourceNotFoundException")
}

/// An event a dead-letter queue receives: its payload unchanged, and why it failed in the
/// attributes `RequestID`, `ErrorCode` (the invocation's HTTP status) and `ErrorMessage` (at
/// most 1 KB), as Lambda's developer guide lists them (lambda/latest/dg/dlq.html).
fn dead_letter_message(queued: &QueuedInvocation, outcome: &Result<Ran, RunError>) -> QueueMessage {
    let (code, message) = match outcome {
        Ok(ran) => {
            let payload = as_json(&ran.payload);
            let message = match payload.get("errorMessage") {
                Some(Value::String(m)) => m.clone(),
                _ => String::from_utf8_lossy(&ran.payload).into_owned(),
            };
            (200, message)
        }
        Err(RunError::Aws(e)) => (e.http_status, e.message.clone()),
        Err(RunError::Throttled(reason)) => (429, format!("Rate Exceeded. Reason: {reason}")),
    };
    let text = |value: String, data_type: &str| MessageAttribute {
        data_type: data_type.to_owned(),
        value: MessageAttributeValue::String(value),
    };
    let mut message = message;
    if message.len() > MAX_DEAD_LETTER_ERROR {
        let cut = (0..=MAX_DEAD_LETTER_ERROR)
            .rev()
            .find(|&i| message.is_char_boundary(i))
            .unwrap_or(0);
        message.truncate(cut);
    }
    QueueMessage {
        body: String::from_utf8_lossy(&queued.payload).into_owned(),
        attributes: BTreeMap::from([
            ("RequestID".to_owned(), text(queued.id.clone(), "String")),
            ("ErrorCode".to_owned(), text(code.to_string(), "Number")),
            ("ErrorMessage".to_owned(), text(message, "String")),
        ]),
        group_id: None,
        dedup_id: None,
        trace_header: None,
    }
}

/// A payload as a destination record carries it: parsed when it is JSON.
fn as_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// A time as destination records write it: `2019-11-14T00:38:06.021Z`.
pub(crate) fn iso_millis(epoch_ms: i64) -> String {
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        epoch_ms.rem_euclid(1000)
    )
}

/// The record Lambda sends to a destination after an asynchronous invocation.
fn destination_record(
    f: &FunctionRef,
    queued: &QueuedInvocation,
    attempts: u32,
    outcome: &Result<Ran, RunError>,
    now_ms: i64,
    too_old: bool,
) -> String {
    let (condition, status, executed, function_error, response) = match outcome {
        Ok(ran) if ran.function_error.is_none() => (
            "Success",
            200,
            ran.executed_version.clone(),
            None,
            Some(as_json(&ran.payload)),
        ),
        Ok(ran) => (
            if too_old {
                "EventAgeExceeded"
            } else {
                "RetriesExhausted"
            },
            200,
            ran.executed_version.clone(),
            ran.function_error.clone(),
            Some(as_json(&ran.payload)),
        ),
        Err(_) => (
            if too_old {
                "EventAgeExceeded"
            } else {
                "RetriesExhausted"
            },
            500,
            f.version_or_latest().to_owned(),
            Some("Unhandled".to_owned()),
            None,
        ),
    };
    let timestamp = iso_millis(now_ms);
    let mut response_context = serde_json::Map::new();
    response_context.insert("statusCode".into(), json!(status));
    response_context.insert("executedVersion".into(), json!(executed));
    if let Some(e) = function_error {
        response_context.insert("functionError".into(), json!(e));
    }
    let mut record = serde_json::Map::new();
    record.insert("version".into(), json!("1.0"));
    record.insert("timestamp".into(), json!(timestamp));
    record.insert(
        "requestContext".into(),
        json!({
            "requestId": queued.id,
            "functionArn": f.latest_qualified_arn(),
            "condition": condition,
            "approximateInvokeCount": attempts,
        }),
    );
    record.insert("requestPayload".into(), as_json(&queued.payload));
    record.insert("responseContext".into(), Value::Object(response_context));
    if let Some(response) = response {
        record.insert("responsePayload".into(), response);
    }
    Value::Object(record).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destination_records_have_aws_shape() {
        let f = FunctionRef {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "f".into(),
            qualifier: None,
        };
        let queued = QueuedInvocation {
            id: "id-1".into(),
            function: "f".into(),
            qualifier: None,
            payload: br#"{"a":1}"#.to_vec(),
        };
        let ran = Ran {
            payload: br#"{"errorMessage":"boom"}"#.to_vec(),
            function_error: Some("Unhandled".into()),
            log_tail: String::new(),
            executed_version: "$LATEST".into(),
        };
        let record: Value = serde_json::from_str(&destination_record(&f, &queued, 3, &Ok(ran), 1_000, false)).unwrap();
        assert_eq!(record["version"], "1.0");
        assert_eq!(record["timestamp"], "1970-01-01T00:00:01.000Z");
        assert_eq!(record["requestContext"]["condition"], "RetriesExhausted");
        assert_eq!(record["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(
            record["requestContext"]["functionArn"],
            "arn:aws:lambda:us-east-1:000000000000:function:f:$LATEST"
        );
        assert_eq!(record["requestPayload"]["a"], 1);
        assert_eq!(record["responseContext"]["functionError"], "Unhandled");
        assert_eq!(record["responsePayload"]["errorMessage"], "boom");
    }

    #[test]
    fn dead_lettered_events_say_why_in_attributes() {
        let queued = QueuedInvocation {
            id: "id-2".into(),
            function: "f".into(),
            qualifier: None,
            payload: br#"{"a":1}"#.to_vec(),
        };
        let long = "é".repeat(700);
        let ran = Ran {
            payload: json!({ "errorMessage": long, "errorType": "Exception" })
                .to_string()
                .into_bytes(),
            function_error: Some("Unhandled".into()),
            log_tail: String::new(),
            executed_version: "$LATEST".into(),
        };
        let message = dead_letter_message(&queued, &Ok(ran));
        assert_eq!(message.body, r#"{"a":1}"#);
        let attribute = |name: &str| match &message.attributes[name] {
            MessageAttribute {
                data_type,
                value: MessageAttributeValue::String(v),
            } => (data_type.clone(), v.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(attribute("RequestID"), ("String".into(), "id-2".into()));
        assert_eq!(attribute("ErrorCode"), ("Number".into(), "200".into()));
        let (_, error) = attribute("ErrorMessage");
        assert_eq!(error.len(), 1024);
        assert!(long.starts_with(&error));
    }
}
