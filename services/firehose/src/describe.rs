//! DescribeDeliveryStream's `DeliveryStreamDescription`, written as JSON from the stored
//! stream: states worked out at the moment asked, timestamps in epoch seconds as awsJson
//! carries them, and the destination described by [`crate::destination::describe`].

use serde_json::{json, Map, Value};

use crate::destination;
use crate::records::{StreamRecord, StreamState};

fn seconds(ms: i64) -> Value {
    json!(ms as f64 / 1000.0)
}

/// The `DeliveryStreamDescription` of `stream` in `state` at `now_ms`; `skip_destinations` when the request's
/// `ExclusiveStartDestinationId` is at or past the stream's one destination.
pub(crate) fn stream(stream: &StreamRecord, state: StreamState, now_ms: i64, skip_destinations: bool) -> Value {
    let mut out = Map::new();
    out.insert("DeliveryStreamName".into(), json!(stream.name));
    out.insert("DeliveryStreamARN".into(), json!(stream.arn));
    out.insert("DeliveryStreamStatus".into(), json!(state.as_str()));
    if stream.kinesis.is_none() {
        let encryption = match &stream.encryption {
            Some(e) => {
                let mut described = Map::new();
                if let Some(arn) = &e.key_arn {
                    described.insert("KeyARN".into(), json!(arn));
                }
                described.insert("KeyType".into(), json!(e.key_type));
                described.insert("Status".into(), json!(e.status(now_ms)));
                Value::Object(described)
            }
            None => json!({"Status": "DISABLED"}),
        };
        out.insert("DeliveryStreamEncryptionConfiguration".into(), encryption);
    }
    out.insert("DeliveryStreamType".into(), json!(stream.stream_type));
    out.insert("VersionId".into(), json!(stream.version.to_string()));
    out.insert("CreateTimestamp".into(), seconds(stream.created_ms));
    if let Some(updated) = stream.updated_ms {
        out.insert("LastUpdateTimestamp".into(), seconds(updated));
    }
    if let Some(kinesis) = &stream.kinesis {
        out.insert(
            "Source".into(),
            json!({"KinesisStreamSourceDescription": {
                "KinesisStreamARN": kinesis.stream_arn,
                "RoleARN": kinesis.role_arn,
                "DeliveryStartTimestamp": seconds(kinesis.started_ms),
            }}),
        );
    } else if let Some(hint) = stream.direct_put.as_ref().and_then(|d| d.get("ThroughputHintInMBs")) {
        out.insert(
            "Source".into(),
            json!({"DirectPutSourceDescription": {"ThroughputHintInMBs": hint}}),
        );
    }
    let destinations = if skip_destinations {
        Vec::new()
    } else {
        vec![destination::describe(
            stream.destination.kind,
            &stream.destination.config,
        )]
    };
    out.insert("Destinations".into(), Value::Array(destinations));
    out.insert("HasMoreDestinations".into(), json!(false));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::destination::DestinationKind;
    use crate::records::{Destination, KinesisSource};

    fn record() -> StreamRecord {
        StreamRecord {
            name: "s".into(),
            arn: "arn:aws:firehose:us-east-1:111111111111:deliverystream/s".into(),
            stream_type: "DirectPut".into(),
            created_ms: 1_700_000_000_500,
            version: 1,
            updated_ms: None,
            deleting_since_ms: None,
            destination: Destination {
                kind: DestinationKind::S3,
                config: json!({"BucketARN": "arn:aws:s3:::b", "RoleARN": "r"}),
            },
            kinesis: None,
            direct_put: None,
            encryption: None,
            tags: BTreeMap::new(),
        }
    }

    #[test]
    fn a_direct_put_stream_reports_encryption_disabled_and_its_destination() {
        let d = stream(&record(), StreamState::Active, 0, false);
        assert_eq!(
            d["DeliveryStreamEncryptionConfiguration"],
            json!({"Status": "DISABLED"})
        );
        assert_eq!(
            (d["VersionId"].as_str(), d["CreateTimestamp"].as_f64()),
            (Some("1"), Some(1_700_000_000.5))
        );
        assert_eq!(d["Destinations"][0]["DestinationId"], "destinationId-000000000001");
        assert!(d.get("Source").is_none());
        assert!(stream(&record(), StreamState::Active, 0, true)["Destinations"]
            .as_array()
            .unwrap()
            .is_empty());
    }

    // As AWS described a stream fed by Kinesis (LocalStack's recorded parity snapshot for
    // test_firehose_stack_with_kinesis_as_source): a source, and no encryption member.
    #[test]
    fn a_kinesis_fed_stream_describes_its_source() {
        let mut r = record();
        r.stream_type = "KinesisStreamAsSource".into();
        r.kinesis = Some(KinesisSource {
            stream_arn: "arn:aws:kinesis:us-east-1:111111111111:stream/k".into(),
            role_arn: "arn:aws:iam::111111111111:role/r".into(),
            started_ms: 1_700_000_000_000,
        });
        let d = stream(&r, StreamState::Creating, 0, false);
        assert!(d.get("DeliveryStreamEncryptionConfiguration").is_none());
        assert_eq!(d["DeliveryStreamStatus"], "CREATING");
        assert_eq!(
            d["Source"]["KinesisStreamSourceDescription"]["KinesisStreamARN"],
            "arn:aws:kinesis:us-east-1:111111111111:stream/k"
        );
    }
}
