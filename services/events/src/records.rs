//! What the `events` store keeps, and how its keys are laid out.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::json::{self, KeyNames};
use stratus_core::{AwsError, FromValue, IntoValue};
use stratus_gen_eventbridge::schema::TARGET;
use stratus_gen_eventbridge::Target;
use stratus_storage::tuple::TupleKey;
use stratus_storage::Table;

/// Event buses by name; the `default` bus is kept here only once something changes it.
pub(crate) const BUSES: Table<BusRecord> = Table::new("buses");
/// Rules by (bus, name), each with its targets.
pub(crate) const RULES: Table<RuleRecord> = Table::new("rules");
/// Deliveries not yet made, by (due time in ms, id).
/// Archives by name.
pub(crate) const ARCHIVES: Table<ArchiveRecord> = Table::new("archives");
/// Archived events by (archive, time in ms, event id).
pub(crate) const ARCHIVED: Table<ArchivedEvent> = Table::new("archived");
/// Replays by name.
pub(crate) const REPLAYS: Table<ReplayRecord> = Table::new("replays");

pub(crate) const DEFAULT_BUS: &str = "default";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct BusRecord {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) kms_key_identifier: Option<String>,
    pub(crate) dead_letter_arn: Option<String>,
    /// The resource policy, as JSON text.
    pub(crate) policy: Option<String>,
    pub(crate) created_ms: i64,
    pub(crate) modified_ms: i64,
    pub(crate) tags: BTreeMap<String, String>,
}

impl BusRecord {
    pub(crate) fn new(name: &str, now_ms: i64) -> BusRecord {
        BusRecord {
            name: name.to_owned(),
            description: None,
            kms_key_identifier: None,
            dead_letter_arn: None,
            policy: None,
            created_ms: now_ms,
            modified_ms: now_ms,
            tags: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RuleRecord {
    pub(crate) bus: String,
    pub(crate) name: String,
    pub(crate) event_pattern: Option<String>,
    pub(crate) schedule_expression: Option<String>,
    pub(crate) state: String,
    pub(crate) description: Option<String>,
    pub(crate) role_arn: Option<String>,
    pub(crate) managed_by: Option<String>,
    pub(crate) created_by: String,
    pub(crate) tags: BTreeMap<String, String>,
    /// The targets in the order they were first put, each as the model's JSON.
    pub(crate) targets: Vec<StoredTarget>,
}

impl RuleRecord {
    pub(crate) fn enabled(&self) -> bool {
        self.state != "DISABLED"
    }
}

/// A target as it was put: its id, its ARN (for ListRuleNamesByTarget) and the whole
/// `Target` as JSON of the model's shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredTarget {
    pub(crate) id: String,
    pub(crate) arn: String,
    pub(crate) json: String,
}

impl StoredTarget {
    pub(crate) fn new(target: Target) -> StoredTarget {
        StoredTarget {
            id: target.id.clone(),
            arn: target.arn.clone(),
            json: json::encode(&TARGET, &target.into_value(), KeyNames::Member),
        }
    }

    pub(crate) fn target(&self) -> Result<Target, AwsError> {
        let value = json::decode(&TARGET, self.json.as_bytes(), KeyNames::Member)
            .map_err(|e| AwsError::internal(format!("corrupt target: {e}")))?;
        Target::from_value(value).map_err(|e| AwsError::internal(format!("corrupt target: {e}")))
    }
}

/// One event on its way to one target, written in the transaction that acknowledged it
/// (the outbox keeps its attempts and due time).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Delivery {
    pub(crate) event_id: String,
    pub(crate) rule_arn: String,
    pub(crate) target_id: String,
    pub(crate) target_arn: String,
    /// What the target receives: the event, or its Input / InputPath / InputTransformer.
    pub(crate) body: String,
    pub(crate) message_group_id: Option<String>,
    pub(crate) max_retries: u32,
    pub(crate) max_age_secs: u32,
    pub(crate) dead_letter_arn: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ArchiveRecord {
    pub(crate) name: String,
    pub(crate) source_arn: String,
    pub(crate) description: Option<String>,
    pub(crate) event_pattern: Option<String>,
    pub(crate) retention_days: i32,
    pub(crate) created_ms: i64,
    pub(crate) event_count: i64,
    pub(crate) size_bytes: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ArchivedEvent {
    /// The event as it was delivered, JSON.
    pub(crate) event: String,
    /// When the archive received it, in milliseconds since the epoch.
    pub(crate) time_ms: i64,
}

pub(crate) fn archived_key(archive: &str, time_ms: i64, event_id: &str) -> Vec<u8> {
    TupleKey::new()
        .str(archive)
        .u64(u64::try_from(time_ms).unwrap_or(0))
        .str(event_id)
        .into_bytes()
}

pub(crate) fn archived_prefix(archive: &str) -> Vec<u8> {
    TupleKey::new().str(archive).into_bytes()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ReplayRecord {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) source_arn: String,
    pub(crate) destination_arn: String,
    pub(crate) filter_arns: Vec<String>,
    pub(crate) event_start_ms: i64,
    pub(crate) event_end_ms: i64,
    pub(crate) state: String,
    pub(crate) state_reason: Option<String>,
    pub(crate) start_ms: i64,
    pub(crate) end_ms: Option<i64>,
    pub(crate) last_replayed_ms: Option<i64>,
}

/// Connections by name.
pub(crate) const CONNECTIONS: Table<ConnectionRecord> = Table::new("connections");
/// API destinations by name.
pub(crate) const API_DESTINATIONS: Table<ApiDestinationRecord> = Table::new("api_destinations");

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ConnectionRecord {
    pub(crate) name: String,
    pub(crate) id: String,
    pub(crate) description: Option<String>,
    pub(crate) authorization_type: String,
    pub(crate) auth: ConnectionAuth,
    pub(crate) state: String,
    pub(crate) secret_suffix: String,
    pub(crate) created_ms: i64,
    pub(crate) modified_ms: i64,
    pub(crate) authorized_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ApiDestinationRecord {
    pub(crate) name: String,
    pub(crate) id: String,
    pub(crate) description: Option<String>,
    pub(crate) connection_arn: String,
    pub(crate) endpoint: String,
    pub(crate) http_method: String,
    pub(crate) rate_limit: i32,
    pub(crate) created_ms: i64,
    pub(crate) modified_ms: i64,
}

/// What a connection's auth parameters say, secrets left out (they are never answered).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ConnectionAuth {
    pub(crate) basic_username: Option<String>,
    pub(crate) api_key_name: Option<String>,
    pub(crate) oauth_client_id: Option<String>,
    pub(crate) oauth_endpoint: Option<String>,
    pub(crate) oauth_method: Option<String>,
    /// HTTP parameters as the model's `ConnectionHttpParameters` JSON, secret values left out.
    pub(crate) oauth_http: Option<String>,
    pub(crate) invocation_http: Option<String>,
}
