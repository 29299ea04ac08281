//! What the `logs` store holds: its tables, their records and their keys.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::TupleKey;
use stratus_storage::Table;

/// Log groups by name.
pub(crate) const GROUPS: Table<GroupRecord> = Table::new("groups");
/// Log streams by (group, stream).
pub(crate) const STREAMS: Table<StreamRecord> = Table::new("streams");
/// Metric filters by (group, filter name).
pub(crate) const METRIC_FILTERS: Table<MetricFilterRecord> = Table::new("metric_filters");
/// Subscription filters by (group, filter name).
pub(crate) const SUBSCRIPTION_FILTERS: Table<SubscriptionRecord> = Table::new("subscription_filters");
/// Raw event rows, keyed by [`event_key`]; written without a codec, for speed
/// ([`crate::events`] has the layout).
pub(crate) const EVENTS: &str = "events";

/// A log group.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GroupRecord {
    pub name: String,
    pub creation_time: i64,
    #[serde(default)]
    pub retention_days: Option<i32>,
    #[serde(default)]
    pub kms_key_id: Option<String>,
    pub class: String,
    #[serde(default)]
    pub deletion_protection: bool,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

/// A log stream and what its events so far say about it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StreamRecord {
    pub creation_time: i64,
    #[serde(default)]
    pub first_event: Option<i64>,
    #[serde(default)]
    pub last_event: Option<i64>,
    #[serde(default)]
    pub last_ingestion: Option<i64>,
    /// The sequence number the next stored event gets: events of one timestamp keep the
    /// order they were put in.
    #[serde(default)]
    pub next_seq: u64,
    /// Bytes of the stream's events (messages plus 26 bytes each), which its group reports.
    #[serde(default)]
    pub stored_bytes: i64,
}

pub(crate) fn group_key(group: &str) -> Vec<u8> {
    TupleKey::new().str(group).into_bytes()
}

pub(crate) fn pair_key(group: &str, name: &str) -> Vec<u8> {
    TupleKey::new().str(group).str(name).into_bytes()
}

/// The key of an event: group, stream, timestamp, sequence number, so that a stream's events
/// scan in time order.
pub(crate) fn event_key(group: &str, stream: &str, timestamp: i64, seq: u64) -> Vec<u8> {
    TupleKey::new()
        .str(group)
        .str(stream)
        .i64(timestamp)
        .u64(seq)
        .into_bytes()
}

/// A metric filter.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MetricFilterRecord {
    pub group: String,
    pub name: String,
    pub pattern: String,
    pub transformations: Vec<TransformationRecord>,
    pub creation_time: i64,
    #[serde(default)]
    pub apply_on_transformed_logs: bool,
}

/// One metric transformation of a metric filter.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TransformationRecord {
    pub name: String,
    pub namespace: String,
    pub value: String,
    #[serde(default)]
    pub default_value: Option<f64>,
    #[serde(default)]
    pub dimensions: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub unit: Option<String>,
}

/// A subscription filter.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SubscriptionRecord {
    pub group: String,
    pub name: String,
    pub pattern: String,
    pub destination_arn: String,
    #[serde(default)]
    pub role_arn: Option<String>,
    pub distribution: String,
    pub creation_time: i64,
    #[serde(default)]
    pub apply_on_transformed_logs: bool,
}

/// Subscription destinations by name.
pub(crate) const DESTINATIONS: Table<DestinationRecord> = Table::new("destinations");
/// Account resource policies by name.
pub(crate) const RESOURCE_POLICIES: Table<PolicyRecord> = Table::new("resource_policies");
/// Export tasks by id.
pub(crate) const EXPORT_TASKS: Table<ExportRecord> = Table::new("export_tasks");

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DestinationRecord {
    pub name: String,
    pub target_arn: String,
    pub role_arn: String,
    #[serde(default)]
    pub access_policy: Option<String>,
    pub creation_time: i64,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PolicyRecord {
    pub name: String,
    pub document: String,
    pub last_updated: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ExportRecord {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub group: String,
    pub from: i64,
    pub to: i64,
    pub destination: String,
    #[serde(default)]
    pub destination_prefix: Option<String>,
    pub status: String,
    pub creation_time: i64,
}

/// Logs Insights queries by id, with their results (a query runs as it starts).
pub(crate) const QUERIES: Table<QueryRecord> = Table::new("queries");

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct QueryRecord {
    pub id: String,
    pub query_string: String,
    pub group: String,
    pub status: String,
    pub create_time: i64,
    pub rows: Vec<Vec<(String, String)>>,
    pub records_matched: f64,
    pub records_scanned: f64,
    pub bytes_scanned: f64,
    pub groups_scanned: f64,
}

/// Vended-log delivery sources, destinations and deliveries, by name (deliveries by id).
pub(crate) const DELIVERY_SOURCES: Table<DeliverySourceRecord> = Table::new("delivery_sources");
pub(crate) const DELIVERY_DESTINATIONS: Table<DeliveryDestinationRecord> = Table::new("delivery_destinations");
pub(crate) const DELIVERIES: Table<DeliveryRecord> = Table::new("deliveries");

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DeliverySourceRecord {
    pub name: String,
    pub resource_arn: String,
    pub service: String,
    pub log_type: String,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub configuration: Option<BTreeMap<String, String>>,
    /// When it was first put, which listings follow.
    #[serde(default)]
    pub created: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DeliveryDestinationRecord {
    pub name: String,
    pub kind: String,
    pub resource_arn: String,
    #[serde(default)]
    pub output_format: Option<String>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub policy: Option<String>,
    /// When it was first put, which listings follow.
    #[serde(default)]
    pub created: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DeliveryRecord {
    pub id: String,
    pub source: String,
    pub destination_arn: String,
    pub kind: String,
    #[serde(default)]
    pub record_fields: Option<Vec<String>>,
    #[serde(default)]
    pub field_delimiter: Option<String>,
    #[serde(default)]
    pub suffix_path: Option<String>,
    #[serde(default)]
    pub hive_compatible: Option<bool>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// When it was first put, which listings follow.
    #[serde(default)]
    pub created: i64,
}
