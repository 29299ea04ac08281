//! The tables of an `sns` store and their keys.

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::{TupleKey, TupleReader};
use stratus_storage::{Direction, KeyRange, Read, Table};

use crate::error::{topic_not_found, SnsError};
use crate::platform::{AppRecord, EndpointRecord};
use crate::subscriptions::SubscriptionRecord;
use crate::topics::{Counts, TopicRecord};

pub(crate) const TOPICS: Table<TopicRecord> = Table::new("topics");
pub(crate) const SUBSCRIPTIONS: Table<SubscriptionRecord> = Table::new("subscriptions");
pub(crate) const TOKENS: Table<TokenEntry> = Table::new("tokens");
pub(crate) const DEDUP: Table<DedupEntry> = Table::new("dedup");
pub(crate) const APPLICATIONS: Table<AppRecord> = Table::new("applications");
pub(crate) const ENDPOINTS: Table<EndpointRecord> = Table::new("endpoints");
/// Account-wide SMS settings, under the key `sms`.
pub(crate) const SETTINGS: Table<std::collections::BTreeMap<String, String>> = Table::new("settings");

/// A pending subscription's confirmation token.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct TokenEntry {
    pub(crate) topic: String,
    pub(crate) id: String,
}

/// A FIFO topic's deduplication entry.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct DedupEntry {
    pub(crate) message_id: String,
    pub(crate) sequence_number: String,
    pub(crate) expires_ms: i64,
}

pub(crate) fn load_topic(r: &(impl Read + ?Sized), name: &str) -> Result<TopicRecord, SnsError> {
    TOPICS.get(r, name)?.ok_or_else(topic_not_found)
}

pub(crate) fn subscription_key(topic: &str, id: &str) -> Vec<u8> {
    TupleKey::new().str(topic).str(id).into_bytes()
}

pub(crate) fn topic_prefix(topic: &str) -> Vec<u8> {
    TupleKey::new().str(topic).into_bytes()
}

pub(crate) fn dedup_key(topic: &str, id: &str) -> Vec<u8> {
    TupleKey::new().str(topic).str(id).into_bytes()
}

/// The topic name and subscription id of a `subscriptions` key.
pub(crate) fn read_subscription_key(key: &[u8]) -> Option<(String, String)> {
    let mut r = TupleReader::new(key);
    let topic = r.string().ok()?;
    let id = r.string().ok()?;
    Some((topic, id))
}

/// The subscriptions of `topic`, in id order.
pub(crate) fn topic_subscriptions(
    r: &(impl Read + ?Sized),
    topic: &str,
) -> Result<Vec<(Vec<u8>, SubscriptionRecord)>, SnsError> {
    Ok(SUBSCRIPTIONS.scan(r, &KeyRange::prefix(&topic_prefix(topic)), Direction::Forward, None)?)
}

pub(crate) fn counts(subs: &[(Vec<u8>, SubscriptionRecord)]) -> Counts {
    let pending = subs.iter().filter(|(_, s)| s.pending).count();
    Counts {
        confirmed: subs.len() - pending,
        pending,
    }
}
