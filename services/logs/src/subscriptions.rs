//! Subscription filters at work: the events a log group ingests that a filter matches are
//! delivered to its destination as AWS delivers them — one `DATA_MESSAGE` per filter and
//! write, gzip-compressed: base64-encoded and handed to a Lambda function as
//! `{"awslogs": {"data": …}}` (an asynchronous invocation, as the logs service principal), or
//! put as one record into a Firehose delivery stream. A Firehose destination first gets
//! AWS's `CONTROL_MESSAGE` when the filter is put, which is also how PutSubscriptionFilter
//! learns that the stream takes records. The deliveries are written to the outbox in the
//! transaction that stores the events, so they survive a restart exactly when the events do
//! (Logs' data is relaxed: a crash may lose the last second of both). Kinesis destinations
//! are kept but not delivered to: Kinesis offers Logs no way in yet.

use std::io::Write;
use std::time::Duration;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::json;
use stratus_core::service::capabilities::{Invocation, InvocationType};
use stratus_core::service::{BoxFuture, Caller};
use stratus_core::{AwsError, RequestContext};
use stratus_outbox::{Courier, Entry, Next, Place};

use crate::error::invalid_parameter;
use crate::events::event_id;
use crate::filter_pattern::FilterPattern;
use crate::records::SubscriptionRecord;
use crate::service::LogsService;

/// The principal Logs invokes functions as; a function's policy must allow it.
pub(crate) const LOGS_PRINCIPAL: &str = "logs.amazonaws.com";
/// The outbox table of deliveries.
pub(crate) const DELIVERIES: &str = "subscription_deliveries";
/// Attempts at a delivery the destination refuses with a server-side error, backing off.
const ATTEMPTS: u32 = 5;

/// One delivery on its way: the destination and the body it receives (for a delivery
/// stream, the gzipped message, base64-encoded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Delivery {
    pub destination_arn: String,
    pub payload: String,
}

/// One stored event, as a subscription sees it.
pub(crate) struct Ingested<'a> {
    pub timestamp: i64,
    pub seq: u64,
    pub message: &'a str,
}

/// What `filters` deliver of `events`, just written to `stream` of `group` in `account`.
pub(crate) fn deliveries_of(
    account: &str,
    group: &str,
    stream: &str,
    filters: &[SubscriptionRecord],
    events: &[Ingested<'_>],
) -> Vec<Delivery> {
    let mut deliveries = Vec::new();
    for filter in filters.iter().filter(|f| delivered(&f.destination_arn)) {
        let Ok(pattern) = FilterPattern::parse(&filter.pattern) else {
            continue;
        };
        let matched: Vec<_> = events
            .iter()
            .filter(|e| pattern.matches(e.message))
            .map(|e| json!({"id": event_id(stream, e.seq), "timestamp": e.timestamp, "message": e.message}))
            .collect();
        if matched.is_empty() {
            continue;
        }
        let message = json!({
            "messageType": "DATA_MESSAGE",
            "owner": account,
            "logGroup": group,
            "logStream": stream,
            "subscriptionFilters": [filter.name],
            "logEvents": matched,
        });
        let data = compressed(&message.to_string());
        let payload = if is_function(&filter.destination_arn) {
            json!({"awslogs": {"data": data}}).to_string()
        } else {
            data
        };
        deliveries.push(Delivery {
            destination_arn: filter.destination_arn.clone(),
            payload,
        });
    }
    deliveries
}

impl LogsService {
    /// Refuses a function destination Logs could not invoke, as PutSubscriptionFilter does.
    pub(crate) async fn check_function(&self, ctx: &RequestContext, group: &str, arn: &str) -> Result<(), AwsError> {
        let refused = || {
            invalid_parameter(
                "Could not execute the lambda function. Make sure you have given CloudWatch Logs permission to execute your function.",
            )
            .into()
        };
        let Some(functions) = self.shared.functions.as_deref() else {
            return Err(refused());
        };
        let dry_run = Invocation {
            function: arn.to_owned(),
            qualifier: None,
            invocation_type: InvocationType::DryRun,
            payload: Vec::new(),
            // The ARN Logs' guide has `AddPermission` name in `--source-arn`.
            source_arn: Some(format!(
                "{}:*",
                crate::service::group_arn(&ctx.region, &ctx.account_id, group)
            )),
        };
        let caller = Caller::service(LOGS_PRINCIPAL, &ctx.account_id, &ctx.region);
        functions.invoke(caller, dry_run).await.map(drop).map_err(|_| refused())
    }

    /// Refuses a Firehose destination that does not take records, as PutSubscriptionFilter
    /// does, having put AWS's control message into it.
    pub(crate) async fn check_delivery_stream(&self, ctx: &RequestContext, arn: &str) -> Result<(), AwsError> {
        let refused = || {
            invalid_parameter(
                "Could not deliver test message to specified Firehose stream. Check if the given Firehose stream is in ACTIVE state.",
            )
            .into()
        };
        let Some(streams) = self.shared.late.get().and_then(|p| p.delivery_streams.clone()) else {
            return Err(refused());
        };
        let control = json!({
            "messageType": "CONTROL_MESSAGE",
            "owner": "CloudwatchLogs",
            "logGroup": "",
            "logStream": "",
            "subscriptionFilters": [],
            "logEvents": [{
                "id": "",
                "timestamp": self.now_ms(),
                "message": "CWL CONTROL MESSAGE: Checking health of destination Firehose.",
            }],
        });
        let caller = Caller::service(LOGS_PRINCIPAL, &ctx.account_id, &ctx.region);
        streams
            .put_records(caller, arn, vec![gzipped(&control.to_string())])
            .await
            .map_err(|_| refused())
    }
}

fn is_function(arn: &str) -> bool {
    arn.split(':').nth(2) == Some("lambda")
}

fn is_delivery_stream(arn: &str) -> bool {
    arn.split(':').nth(2) == Some("firehose")
}

/// Whether Logs delivers to the destination `arn` names.
fn delivered(arn: &str) -> bool {
    is_function(arn) || is_delivery_stream(arn)
}

/// `text` gzip-compressed, as AWS sends subscription data.
fn gzipped(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(text.as_bytes());
    encoder.finish().unwrap_or_default()
}

/// `text` gzip-compressed and base64-encoded.
fn compressed(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(gzipped(text))
}

impl LogsService {
    /// One attempt at handing `delivery` over, with the destination's refusal.
    async fn hand_over(&self, to: &Place, delivery: &Delivery) -> Result<(), AwsError> {
        let caller = Caller::service(LOGS_PRINCIPAL, &to.account, &to.region);
        if is_delivery_stream(&delivery.destination_arn) {
            let Some(streams) = self.shared.late.get().and_then(|p| p.delivery_streams.clone()) else {
                return Err(AwsError::new(
                    "ResourceNotFoundException",
                    "Firehose is not running",
                    400,
                ));
            };
            let record = base64::engine::general_purpose::STANDARD
                .decode(&delivery.payload)
                .unwrap_or_default();
            return streams
                .put_records(caller, &delivery.destination_arn, vec![record])
                .await;
        }
        let Some(functions) = self.shared.functions.as_deref() else {
            return Err(AwsError::new("ResourceNotFoundException", "Lambda is not running", 404));
        };
        let invocation = Invocation {
            function: delivery.destination_arn.clone(),
            qualifier: None,
            invocation_type: InvocationType::Event,
            payload: delivery.payload.clone().into_bytes(),
            source_arn: None,
        };
        functions.invoke(caller, invocation).await.map(drop)
    }
}

/// One attempt at a delivery: a destination that is gone or refuses it (a client-side
/// error) drops it, as AWS drops data it cannot deliver; a server-side error or throttling is
/// retried, backing off from a second, up to [`ATTEMPTS`] attempts.
impl Courier<Delivery> for LogsService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<Delivery>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let delivery = &entry.item;
            let Err(e) = self.hand_over(to, delivery).await else {
                return Next::Done;
            };
            let attempts = entry.attempts + 1;
            if (e.http_status >= 500 || e.http_status == 429) && attempts < ATTEMPTS {
                return Next::Retry(Duration::from_secs(1 << attempts.min(8)));
            }
            tracing::warn!(
                destination = delivery.destination_arn,
                error = e.message,
                attempts,
                "logs: subscription data not delivered"
            );
            Next::Done
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    fn filter(pattern: &str, destination: &str) -> SubscriptionRecord {
        SubscriptionRecord {
            group: "/app".into(),
            name: "to-fn".into(),
            pattern: pattern.into(),
            destination_arn: destination.into(),
            role_arn: None,
            distribution: "ByLogStream".into(),
            creation_time: 0,
            apply_on_transformed_logs: false,
        }
    }

    fn decoded(delivery: &Delivery) -> serde_json::Value {
        let payload: serde_json::Value = serde_json::from_str(&delivery.payload).unwrap();
        let data = payload["awslogs"]["data"].as_str().unwrap();
        let gzipped = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gzipped[..])
            .read_to_string(&mut text)
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    const FUNCTION: &str = "arn:aws:lambda:us-east-1:000000000000:function:f";

    #[test]
    fn matching_events_go_to_the_function_as_one_compressed_data_message() {
        let events = [
            Ingested {
                timestamp: 1,
                seq: 7,
                message: "ERROR a",
            },
            Ingested {
                timestamp: 2,
                seq: 8,
                message: "INFO b",
            },
            Ingested {
                timestamp: 3,
                seq: 9,
                message: "ERROR c",
            },
        ];
        let [delivery] = &deliveries_of("000000000000", "/app", "s", &[filter("ERROR", FUNCTION)], &events)[..] else {
            panic!("one delivery");
        };
        assert_eq!(delivery.destination_arn, FUNCTION);
        let message = decoded(delivery);
        assert_eq!(message["messageType"], "DATA_MESSAGE");
        assert_eq!(
            (&message["owner"], &message["logGroup"], &message["logStream"]),
            (&json!("000000000000"), &json!("/app"), &json!("s"))
        );
        assert_eq!(message["subscriptionFilters"], json!(["to-fn"]));
        let sent: Vec<_> = message["logEvents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["timestamp"].as_i64().unwrap(),
                    e["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(sent, [(1, "ERROR a".to_owned()), (3, "ERROR c".to_owned())]);
        assert_eq!(message["logEvents"][0]["id"], json!(event_id("s", 7)));
    }

    #[test]
    fn a_delivery_stream_gets_the_compressed_message_itself_as_its_record() {
        let events = [Ingested {
            timestamp: 1,
            seq: 1,
            message: "ERROR x",
        }];
        let stream = "arn:aws:firehose:us-east-1:000000000000:deliverystream/d";
        let [delivery] = &deliveries_of("000000000000", "/app", "s", &[filter("ERROR", stream)], &events)[..] else {
            panic!("one delivery");
        };
        let gzipped = base64::engine::general_purpose::STANDARD
            .decode(&delivery.payload)
            .unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gzipped[..])
            .read_to_string(&mut text)
            .unwrap();
        let message: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(message["messageType"], "DATA_MESSAGE");
        assert_eq!(message["logEvents"][0]["message"], "ERROR x");
    }

    #[test]
    fn nothing_is_delivered_without_a_match_or_to_destinations_not_served() {
        let events = [Ingested {
            timestamp: 1,
            seq: 1,
            message: "INFO",
        }];
        assert!(deliveries_of("1", "/app", "s", &[filter("ERROR", FUNCTION)], &events).is_empty());
        let stream = "arn:aws:kinesis:us-east-1:000000000000:stream/s";
        assert!(deliveries_of("1", "/app", "s", &[filter("", stream)], &events).is_empty());
    }
}
