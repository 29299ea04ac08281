//! The stored delivery stream: what CreateDeliveryStream was given (the destination's
//! configuration as the client wrote it, its source, tags) and what happened to it since
//! (version, encryption, deletion). Its states are worked out when read from the moments
//! stored, so no timer moves a stream from `CREATING` to `ACTIVE`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use stratus_storage::Table;

use crate::destination::DestinationKind;

/// Delivery streams by name.
pub(crate) const STREAMS: Table<StreamRecord> = Table::new("delivery_streams");

/// How long a new stream is `CREATING`, a deleted one `DELETING`, and encryption `ENABLING`
/// or `DISABLING`, in milliseconds of the clock (AWS takes seconds to minutes; clients wait
/// for the state to change, so a moment is enough here).
pub(crate) const TRANSITION_MS: i64 = 1_000;

/// The id of a stream's one destination.
pub(crate) const DESTINATION_ID: &str = "destinationId-000000000001";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StreamRecord {
    pub(crate) name: String,
    pub(crate) arn: String,
    /// `DirectPut` or `KinesisStreamAsSource`.
    pub(crate) stream_type: String,
    pub(crate) created_ms: i64,
    /// `VersionId`, from 1, raised by each UpdateDestination.
    pub(crate) version: u64,
    pub(crate) updated_ms: Option<i64>,
    pub(crate) deleting_since_ms: Option<i64>,
    pub(crate) destination: Destination,
    pub(crate) kinesis: Option<KinesisSource>,
    /// `DirectPutSourceConfiguration`, as given.
    pub(crate) direct_put: Option<Value>,
    pub(crate) encryption: Option<Encryption>,
    pub(crate) tags: BTreeMap<String, Option<String>>,
}

/// The stream's destination: which kind, and its configuration as the client wrote it
/// (the `…DestinationConfiguration` member's JSON, updates merged in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Destination {
    pub(crate) kind: DestinationKind,
    pub(crate) config: Value,
}

/// `KinesisStreamSourceConfiguration`, and when reading began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KinesisSource {
    pub(crate) stream_arn: String,
    pub(crate) role_arn: String,
    pub(crate) started_ms: i64,
}

/// Server-side encryption, as Start/StopDeliveryStreamEncryption last set it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Encryption {
    pub(crate) enabled: bool,
    /// `AWS_OWNED_CMK` or `CUSTOMER_MANAGED_CMK`.
    pub(crate) key_type: String,
    pub(crate) key_arn: Option<String>,
    /// When it was last started or stopped.
    pub(crate) changed_ms: i64,
}

/// Where a stream is in its life, at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamState {
    Creating,
    Active,
    Deleting,
    /// Deleted and no longer shown.
    Gone,
}

impl StreamState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StreamState::Creating => "CREATING",
            StreamState::Active => "ACTIVE",
            StreamState::Deleting | StreamState::Gone => "DELETING",
        }
    }
}

impl StreamRecord {
    pub(crate) fn state(&self, now_ms: i64) -> StreamState {
        match self.deleting_since_ms {
            Some(since) if now_ms >= since + TRANSITION_MS => StreamState::Gone,
            Some(_) => StreamState::Deleting,
            None if now_ms < self.created_ms + TRANSITION_MS => StreamState::Creating,
            None => StreamState::Active,
        }
    }

    /// Whether records are encrypted at rest now (`Encrypted` in PutRecord's answer).
    pub(crate) fn encrypted(&self, now_ms: i64) -> bool {
        self.encryption.as_ref().is_some_and(|e| e.status(now_ms) == "ENABLED")
    }
}

impl Encryption {
    /// `ENABLING`, `ENABLED`, `DISABLING` or `DISABLED`.
    pub(crate) fn status(&self, now_ms: i64) -> &'static str {
        let settled = now_ms >= self.changed_ms + TRANSITION_MS;
        match (self.enabled, settled) {
            (true, true) => "ENABLED",
            (true, false) => "ENABLING",
            (false, false) => "DISABLING",
            (false, true) => "DISABLED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> StreamRecord {
        StreamRecord {
            name: "s".into(),
            arn: "arn:aws:firehose:us-east-1:000000000000:deliverystream/s".into(),
            stream_type: "DirectPut".into(),
            created_ms: 10_000,
            version: 1,
            updated_ms: None,
            deleting_since_ms: None,
            destination: Destination {
                kind: DestinationKind::ExtendedS3,
                config: Value::Null,
            },
            kinesis: None,
            direct_put: None,
            encryption: None,
            tags: BTreeMap::new(),
        }
    }

    #[test]
    fn states_follow_the_moments_stored() {
        let mut s = stream();
        assert_eq!(s.state(10_500), StreamState::Creating);
        assert_eq!(s.state(11_000), StreamState::Active);
        s.deleting_since_ms = Some(20_000);
        assert_eq!(s.state(20_999).as_str(), "DELETING");
        assert_eq!(s.state(21_000), StreamState::Gone);
    }

    #[test]
    fn encryption_passes_through_its_transitions() {
        let mut s = stream();
        s.encryption = Some(Encryption {
            enabled: true,
            key_type: "AWS_OWNED_CMK".into(),
            key_arn: None,
            changed_ms: 50_000,
        });
        assert_eq!(s.encryption.as_ref().unwrap().status(50_100), "ENABLING");
        assert!(!s.encrypted(50_100));
        assert!(s.encrypted(51_000));
        let e = s.encryption.as_mut().unwrap();
        e.enabled = false;
        e.changed_ms = 60_000;
        assert_eq!(e.status(60_000), "DISABLING");
        assert_eq!(e.status(61_000), "DISABLED");
    }
}
