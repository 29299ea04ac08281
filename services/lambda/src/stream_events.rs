//! What Lambda hands a function, and a failure destination, for a batch of stream records:
//! the Kinesis and DynamoDB Streams record shapes, the tumbling window fields, the record
//! filters match, and the record of a batch given up.

use base64::Engine;
use serde_json::{json, Map, Value};
use stratus_core::calendar::format_iso8601;
use stratus_core::service::ShardRecord;

use crate::invoke::Ran;
use crate::queued::iso_millis;

/// The kind of stream a mapping reads, from its ARN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamKind {
    Kinesis,
    DynamoDb,
}

impl StreamKind {
    pub(crate) fn of_arn(arn: &str) -> StreamKind {
        match arn.split(':').nth(2) {
            Some("dynamodb") => StreamKind::DynamoDb,
            _ => StreamKind::Kinesis,
        }
    }

    /// One record as the function's event carries it.
    pub(crate) fn record(self, r: &ShardRecord, at: &Shard<'_>) -> Value {
        match self {
            StreamKind::Kinesis => kinesis_record(r, at),
            StreamKind::DynamoDb => dynamodb_record(r, at.stream_arn),
        }
    }

    /// A record as `FilterCriteria` patterns see it: for Kinesis its `kinesis` fields with
    /// `data` decoded when it is JSON; for DynamoDB the record itself (Lambda's guide,
    /// "Filtering events from Kinesis / DynamoDB").
    pub(crate) fn filterable(self, record: &Value) -> Value {
        match self {
            StreamKind::DynamoDb => record.clone(),
            StreamKind::Kinesis => {
                let mut fields = record["kinesis"].clone();
                let data = fields["data"]
                    .as_str()
                    .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok())
                    .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
                    .filter(Value::is_object);
                if let Some(data) = data {
                    fields["data"] = data;
                }
                fields
            }
        }
    }

    /// The name the failure record gives the batch's description.
    fn batch_info_key(self) -> &'static str {
        match self {
            StreamKind::Kinesis => "KinesisBatchInfo",
            StreamKind::DynamoDb => "DDBStreamBatchInfo",
        }
    }

    /// An arrival time as the failure record writes it: to the millisecond for Kinesis, to
    /// the second for DynamoDB (both recorded against AWS).
    fn arrival(self, ms: i64) -> String {
        match self {
            StreamKind::Kinesis => iso_millis(ms),
            StreamKind::DynamoDb => format_iso8601(ms.div_euclid(1000)),
        }
    }
}

/// Where records were read: the stream, its shard, and the mapping's region and role.
pub(crate) struct Shard<'a> {
    pub(crate) stream_arn: &'a str,
    pub(crate) shard_id: &'a str,
    pub(crate) region: &'a str,
    pub(crate) role: &'a str,
}

/// One Kinesis record (Lambda's guide, "Example Kinesis record event"; Powertools'
/// `KinesisDataStreamRecord`).
fn kinesis_record(r: &ShardRecord, at: &Shard<'_>) -> Value {
    json!({
        "kinesis": {
            "kinesisSchemaVersion": "1.0",
            "partitionKey": r.partition_key,
            "sequenceNumber": r.sequence_number,
            "data": base64::engine::general_purpose::STANDARD.encode(&r.data),
            "approximateArrivalTimestamp": r.arrival_ms as f64 / 1000.0,
        },
        "eventSource": "aws:kinesis",
        "eventVersion": "1.0",
        "eventID": format!("{}:{}", at.shard_id, r.sequence_number),
        "eventName": "aws:kinesis:record",
        "invokeIdentityArn": at.role,
        "awsRegion": at.region,
        "eventSourceARN": at.stream_arn,
    })
}

/// One DynamoDB Streams record: the record GetRecords answers, which the provider hands over
/// as its data, and the stream's ARN (Lambda's guide, "Example DynamoDB record event"). Its
/// `ApproximateCreationDateTime` is a floating-point number of seconds, as AWS's events
/// write it (recorded against AWS), however whole.
fn dynamodb_record(r: &ShardRecord, stream_arn: &str) -> Value {
    let mut record = match serde_json::from_slice::<Value>(&r.data) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    if let Some(created) = record
        .get_mut("dynamodb")
        .and_then(|d| d.get_mut("ApproximateCreationDateTime"))
    {
        if let Some(secs) = created.as_f64() {
            *created = json!(secs);
        }
    }
    record.insert("eventSourceARN".into(), json!(stream_arn));
    Value::Object(record)
}

/// A tumbling window: the aligned span of arrival times its records share, and the state the
/// function returned so far.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Window {
    pub(crate) start_ms: i64,
    pub(crate) end_ms: i64,
    pub(crate) state: Value,
}

impl Window {
    /// The window of `seconds` that a record arriving at `arrival_ms` falls in: windows are
    /// aligned to multiples of their length since the epoch, as AWS's examples show.
    pub(crate) fn of(arrival_ms: i64, seconds: i32) -> Window {
        let span = i64::from(seconds.max(1)) * 1000;
        let start_ms = arrival_ms.div_euclid(span) * span;
        Window {
            start_ms,
            end_ms: start_ms + span,
            state: json!({}),
        }
    }

    pub(crate) fn holds(&self, arrival_ms: i64) -> bool {
        (self.start_ms..self.end_ms).contains(&arrival_ms)
    }

    /// The fields a windowed event carries beside `Records` (Lambda's guide, "Tumbling
    /// windows"; `aws_lambda_events::time_window::TimeWindowProperties`).
    pub(crate) fn event(&self, records: Vec<Value>, at: &Shard<'_>, last: bool) -> Value {
        json!({
            "Records": records,
            "window": {
                "start": format_iso8601(self.start_ms.div_euclid(1000)),
                "end": format_iso8601(self.end_ms.div_euclid(1000)),
            },
            "state": self.state,
            "shardId": at.shard_id,
            "eventSourceARN": at.stream_arn,
            "isFinalInvokeForWindow": last,
            "isWindowTerminatedEarly": false,
        })
    }
}

/// The `state` a windowed invocation answered with; `None` when it has none, which Lambda
/// counts as a failed invocation.
pub(crate) fn answered_state(payload: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(payload).ok()? {
        Value::Object(mut fields) => fields.remove("state").filter(|s| !s.is_null()),
        _ => None,
    }
}

/// The batch a failure record describes.
pub(crate) struct FailedBatch<'a> {
    pub(crate) kind: StreamKind,
    pub(crate) function_arn: &'a str,
    pub(crate) stream_arn: &'a str,
    pub(crate) shard: &'a str,
    pub(crate) batch: &'a [ShardRecord],
}

/// The record Lambda sends to a stream mapping's `OnFailure` destination (Lambda's guide,
/// "Retain discarded batch records").
pub(crate) fn failure_record(
    failed: FailedBatch<'_>,
    condition: &str,
    attempts: u32,
    ran: Option<&Ran>,
    now_ms: i64,
) -> Value {
    let (first, last) = (failed.batch.first(), failed.batch.last());
    let response = match ran {
        Some(ran) => json!({
            "statusCode": 200,
            "executedVersion": ran.executed_version,
            // `null` when the function answered with batch item failures (recorded against AWS).
            "functionError": ran.function_error,
        }),
        None => json!({ "statusCode": 500, "executedVersion": "$LATEST", "functionError": "Unhandled" }),
    };
    let kind = failed.kind;
    let mut record = json!({
        "requestContext": {
            "requestId": stratus_core::id::uuid(),
            "functionArn": failed.function_arn,
            "condition": condition,
            "approximateInvokeCount": attempts,
        },
        "responseContext": response,
        "version": "1.0",
        "timestamp": iso_millis(now_ms),
        kind.batch_info_key(): {
            "shardId": failed.shard,
            "startSequenceNumber": first.map(|r| r.sequence_number.clone()),
            "endSequenceNumber": last.map(|r| r.sequence_number.clone()),
            "approximateArrivalOfFirstRecord": first.map(|r| kind.arrival(r.arrival_ms)),
            "approximateArrivalOfLastRecord": last.map(|r| kind.arrival(r.arrival_ms)),
            "batchSize": failed.batch.len(),
            "streamArn": failed.stream_arn,
        },
    });
    // A batch given up for its age has no response to report (recorded against AWS).
    if condition == "RecordAgeExceeded" {
        if let Some(fields) = record.as_object_mut() {
            fields.remove("responseContext");
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seq: &str, arrival_ms: i64, data: &[u8]) -> ShardRecord {
        ShardRecord {
            sequence_number: seq.into(),
            next: format!("{seq}+"),
            arrival_ms,
            partition_key: "pk".into(),
            data: data.to_vec(),
        }
    }

    const SHARD: Shard<'static> = Shard {
        stream_arn: "arn:aws:kinesis:us-east-1:000000000000:stream/s",
        shard_id: "shardId-000000000000",
        region: "us-east-1",
        role: "arn:aws:iam::000000000000:role/r",
    };

    #[test]
    fn kinesis_records_have_the_kinesis_event_shape() {
        let r = StreamKind::Kinesis.record(&record("49", 1_545_084_650_987, b"hello"), &SHARD);
        assert_eq!(r["kinesis"]["data"], "aGVsbG8=");
        assert_eq!(r["kinesis"]["approximateArrivalTimestamp"], 1_545_084_650.987);
        assert_eq!(r["eventID"], "shardId-000000000000:49");
        assert_eq!(r["eventName"], "aws:kinesis:record");
        assert_eq!(r["invokeIdentityArn"], "arn:aws:iam::000000000000:role/r");
    }

    #[test]
    fn dynamodb_records_are_the_stream_record_with_the_stream_arn() {
        let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2024-01-01T00:00:00.000";
        let data = br#"{"eventID":"e","eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1700000000,"Keys":{"k":{"S":"v"}}}}"#;
        let at = Shard {
            stream_arn: arn,
            ..SHARD
        };
        let r = StreamKind::DynamoDb.record(&record("1", 0, data), &at);
        assert_eq!(r["eventName"], "INSERT");
        assert_eq!(r["eventSourceARN"], arn);
        assert_eq!(r["dynamodb"]["ApproximateCreationDateTime"].to_string(), "1700000000.0");
        assert_eq!(StreamKind::DynamoDb.filterable(&r)["dynamodb"]["Keys"]["k"]["S"], "v");
    }

    #[test]
    fn kinesis_filters_see_json_data_decoded() {
        let r = StreamKind::Kinesis.record(&record("1", 0, br#"{"a": 1}"#), &SHARD);
        let seen = StreamKind::Kinesis.filterable(&r);
        assert_eq!(seen["data"]["a"], 1);
        assert_eq!(seen["partitionKey"], "pk");
        let plain = StreamKind::Kinesis.record(&record("1", 0, b"text"), &SHARD);
        assert_eq!(StreamKind::Kinesis.filterable(&plain)["data"], "dGV4dA==");
    }

    #[test]
    fn failure_records_describe_the_batch_by_source() {
        let batch = [record("1", 0, b""), record("2", 1_000, b"")];
        let failed = |kind| FailedBatch {
            kind,
            function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f",
            stream_arn: "arn:aws:kinesis:us-east-1:000000000000:stream/s",
            shard: "shardId-000000000000",
            batch: &batch,
        };
        let r = failure_record(failed(StreamKind::Kinesis), "RetryAttemptsExhausted", 3, None, 1_000);
        assert_eq!(r["requestContext"]["approximateInvokeCount"], 3);
        assert_eq!(r["responseContext"]["functionError"], "Unhandled");
        assert_eq!(r["KinesisBatchInfo"]["startSequenceNumber"], "1");
        assert_eq!(r["KinesisBatchInfo"]["endSequenceNumber"], "2");
        assert_eq!(r["KinesisBatchInfo"]["batchSize"], 2);
        assert_eq!(
            r["KinesisBatchInfo"]["approximateArrivalOfLastRecord"],
            "1970-01-01T00:00:01.000Z"
        );
        assert_eq!(r["timestamp"], "1970-01-01T00:00:01.000Z");
        let r = failure_record(failed(StreamKind::DynamoDb), "RecordAgeExceeded", 1, None, 1_000);
        assert_eq!(
            r["DDBStreamBatchInfo"]["approximateArrivalOfLastRecord"],
            "1970-01-01T00:00:01Z"
        );
        assert!(r.get("responseContext").is_none());
    }

    #[test]
    fn windows_are_aligned_and_carry_their_state() {
        let w = Window::of(125_000, 60);
        assert_eq!((w.start_ms, w.end_ms), (120_000, 180_000));
        assert!(w.holds(179_999) && !w.holds(180_000));
        let event = w.event(vec![], &SHARD, true);
        assert_eq!(event["window"]["start"], "1970-01-01T00:02:00Z");
        assert_eq!(event["window"]["end"], "1970-01-01T00:03:00Z");
        assert_eq!(event["state"], json!({}));
        assert_eq!(event["isFinalInvokeForWindow"], true);
        assert_eq!(answered_state(br#"{"state": {"n": 2}}"#), Some(json!({"n": 2})));
        assert_eq!(answered_state(br#"{"batchItemFailures": []}"#), None);
        assert_eq!(answered_state(b"null"), None);
    }
}
