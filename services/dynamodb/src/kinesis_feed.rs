//! Kinesis streaming destinations: a table's item changes sent to Kinesis data streams, as
//! AWS's "Kinesis Data Streams for DynamoDB" sends them.
//!
//! While a table has an active destination, every item change appends a record (both images)
//! to the table's Kinesis feed in the write's own transaction ([`crate::stream::KINESIS_FEED`]),
//! so an acknowledged write is never lost to a crash. A forwarder task per table — started
//! when a destination is enabled, and at startup for every table that has one — reads the
//! feed from its checkpoint (`kinesis_feed_checkpoints`, stored strictly after each batch),
//! puts each record into every active destination through Kinesis's
//! [`StreamWriter`](stratus_core::service::StreamWriter), and waits on the account and
//! region's write signal when it has caught up (no timer). A failed put is retried with a
//! growing pause on the scheduler's clock, so records may arrive twice but not be skipped;
//! AWS too says records may be duplicated or out of order. The task ends when the table has no
//! active destination left.
//!
//! Each record is AWS's JSON (DynamoDB's guide, "Kinesis Data Streams record format"):
//! `awsRegion`, `eventID`, `eventName`, `userIdentity`, `recordFormat` `application/json`,
//! `tableName`, `eventSource` `aws:dynamodb` and `dynamodb` with
//! `ApproximateCreationDateTime` (milliseconds, or microseconds when the destination's
//! precision says so), `Keys`, `NewImage`, `OldImage`, `SizeBytes` and
//! `ApproximateCreationDateTimePrecision`. Its partition key is a digest of the item's key, so
//! one item's changes go to one shard.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use stratus_core::json::{self, KeyNames};
use stratus_core::scheduler::Scheduler;
use stratus_core::service::{Arrivals, Caller, LateProviders, Spawner, StreamWriter};
use stratus_core::IntoValue;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Storage, Store, Table, Tx};

use crate::db::{self, TABLES};
use crate::error::DdbError;
use crate::stream::{self, Origin, StreamRecord, KINESIS_FEED};
use crate::stream_source::WriteScope;
use crate::table::{KinesisDestination, TableRecord};

/// The last feed sequence number forwarded, by table name.
const CHECKPOINTS: Table<u64> = Table::new("kinesis_feed_checkpoints");
/// Feed records forwarded per read.
const BATCH: usize = 100;
const PRINCIPAL: &str = "dynamodb.amazonaws.com";
const MAX_BACKOFF_SECS: u64 = 30;

/// The forwarders of one process.
pub(crate) struct KinesisFeeds {
    storage: Arc<Storage>,
    scheduler: Scheduler,
    spawner: Spawner,
    late: LateProviders,
    writes: Arc<Arrivals<WriteScope>>,
    /// The tables (account, region, name) with a forwarder running.
    running: Mutex<HashSet<(String, String, String)>>,
}

impl KinesisFeeds {
    pub(crate) fn new(
        storage: Arc<Storage>,
        scheduler: Scheduler,
        spawner: Spawner,
        late: LateProviders,
        writes: Arc<Arrivals<WriteScope>>,
    ) -> Arc<KinesisFeeds> {
        Arc::new(KinesisFeeds {
            storage,
            scheduler,
            spawner,
            late,
            writes,
            running: Mutex::default(),
        })
    }

    /// Kinesis's stream writer, once registration has ended and when Kinesis is served.
    pub(crate) fn writer(&self) -> Option<Arc<dyn StreamWriter>> {
        self.late.get().and_then(|p| p.stream_writer.clone())
    }

    /// Starts the forwarder of `table` unless one runs.
    pub(crate) fn start(self: &Arc<Self>, account: &str, region: &str, table: &str) {
        let key = (account.to_owned(), region.to_owned(), table.to_owned());
        if !self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone())
        {
            return;
        }
        let feeds = self.clone();
        self.spawner.spawn(async move { feeds.forward(key).await });
    }

    /// Starts the forwarders of every stored table with an active destination (after a
    /// restart), looked for on a thread of its own, and only when some DynamoDB store exists.
    pub(crate) fn discover(self: &Arc<Self>) {
        let namespaces = match self.storage.regional_namespaces("dynamodb") {
            Ok(found) if !found.is_empty() => found,
            _ => return,
        };
        let feeds = self.clone();
        let _ = std::thread::Builder::new()
            .name("dynamodb-kinesis-discover".into())
            .spawn(move || {
                for namespace in namespaces {
                    let (Some(region), Ok(store)) = (
                        namespace.region.as_deref(),
                        feeds.storage.store(&namespace, Durability::Strict),
                    ) else {
                        continue;
                    };
                    let Ok(tables) = TABLES.scan(&*store, &KeyRange::all(), Direction::Forward, None) else {
                        continue;
                    };
                    for (_, table) in tables.iter().filter(|(_, t)| t.streams_to_kinesis()) {
                        feeds.start(&namespace.account, region, &table.name);
                    }
                }
            });
    }

    fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>, DdbError> {
        Ok(self
            .storage
            .store(&Namespace::regional(account, region, "dynamodb"), Durability::Strict)?)
    }

    /// The table's record and the feed records after its checkpoint.
    async fn pending(
        &self,
        key: &(String, String, String),
    ) -> Result<Option<(TableRecord, Vec<StreamRecord>)>, DdbError> {
        let store = self.store(&key.0, &key.1)?;
        let name = key.2.clone();
        stratus_storage::run_blocking(move || {
            let Some(table) = TABLES.get(&*store, name.as_bytes())? else {
                return Ok(None);
            };
            let after = CHECKPOINTS.get(&*store, name.as_bytes())?.unwrap_or(0);
            let records = stream::read(&*store, &name, KINESIS_FEED, after, BATCH)
                .map_err(|e| DdbError::Internal(e.to_string()))?;
            Ok(Some((table, records)))
        })
        .await
    }

    async fn forward(self: Arc<Self>, key: (String, String, String)) {
        let writer = self.writer();
        let scope = (key.0.clone(), key.1.clone());
        let mut attempts = 0u32;
        loop {
            let seen = self.writes.current(&scope);
            let (table, records) = match self.pending(&key).await {
                Ok(Some((table, records))) if table.streams_to_kinesis() => (table, records),
                Ok(_) => {
                    if self.stop(&key).await {
                        return;
                    }
                    continue;
                }
                Err(e) => {
                    tracing::warn!(table = %key.2, error = ?e, "Kinesis streaming destination: cannot read the feed");
                    self.pause(&mut attempts).await;
                    continue;
                }
            };
            let Some(last) = records.last().map(|r| r.sequence) else {
                self.writes.changed(scope.clone(), seen).await;
                continue;
            };
            let Some(writer) = &writer else {
                // Kinesis is not served: every destination stream is missing.
                tracing::warn!(table = %key.2, "Kinesis streaming destination: Kinesis is not served");
                self.pause(&mut attempts).await;
                continue;
            };
            let caller = Caller::service(PRINCIPAL, &key.0, &key.1);
            let mut sent = true;
            'records: for record in &records {
                for destination in table.kinesis.iter().filter(|d| d.active) {
                    let (partition_key, data) = kinesis_record(&key.1, &table.name, destination, record);
                    if let Err(e) = writer
                        .put_record(caller, &destination.stream_arn, &partition_key, data)
                        .await
                    {
                        tracing::warn!(table = %key.2, stream = %destination.stream_arn, error = %e, "Kinesis streaming destination: put failed");
                        sent = false;
                        break 'records;
                    }
                }
            }
            if !sent {
                self.pause(&mut attempts).await;
                continue;
            }
            attempts = 0;
            if let Err(e) = self.checkpoint(&key, last).await {
                tracing::warn!(table = %key.2, error = ?e, "Kinesis streaming destination: cannot store the checkpoint");
            }
        }
    }

    /// Ends the forwarder of a table with no active destination; `false` when one was enabled
    /// again meanwhile (the forwarder goes on).
    async fn stop(&self, key: &(String, String, String)) -> bool {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
        let again = matches!(self.pending(key).await, Ok(Some((table, _))) if table.streams_to_kinesis());
        if again {
            return !self
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.clone());
        }
        true
    }

    async fn checkpoint(&self, key: &(String, String, String), last: u64) -> Result<(), DdbError> {
        let store = self.store(&key.0, &key.1)?;
        let name = key.2.clone();
        stratus_storage::run_blocking(move || {
            store.transact(|tx| CHECKPOINTS.put(tx, name.as_bytes(), &last).map_err(DdbError::from))
        })
        .await
    }

    async fn pause(&self, attempts: &mut u32) {
        *attempts += 1;
        let pause = Duration::from_secs((1u64 << (*attempts).min(5)).min(MAX_BACKOFF_SECS) / 2);
        self.scheduler
            .sleep_until(self.scheduler.clock().moment_after(pause))
            .await;
    }
}

/// Forgets the feed of `table` (its records and checkpoint): when its last destination is
/// disabled, or the table is deleted.
pub(crate) fn forget(tx: &mut Tx<'_>, table: &str) -> Result<(), DdbError> {
    db::delete_prefix(tx, stream::STREAMS, &stream::stream_prefix(table, KINESIS_FEED))?;
    CHECKPOINTS.delete(tx, table.as_bytes());
    Ok(())
}

/// One feed record as the Kinesis record AWS puts: its partition key and JSON data.
fn kinesis_record(
    region: &str,
    table: &str,
    destination: &KinesisDestination,
    record: &StreamRecord,
) -> (String, Vec<u8>) {
    let attributes = |item: &crate::Item| -> Value {
        let encoded = json::encode(
            &stratus_gen_dynamodb::schema::ATTRIBUTE_MAP,
            &item.clone().into_value(),
            KeyNames::Member,
        );
        serde_json::from_str(&encoded).unwrap_or(Value::Null)
    };
    let micros = destination.precision.as_deref() == Some("MICROSECOND");
    let mut dynamodb = json!({
        "ApproximateCreationDateTime": if micros { record.created_ms * 1000 } else { record.created_ms },
        "Keys": attributes(&record.keys),
    });
    if let Some(new) = &record.new_image {
        dynamodb["NewImage"] = attributes(new);
    }
    if let Some(old) = &record.old_image {
        dynamodb["OldImage"] = attributes(old);
    }
    dynamodb["SizeBytes"] = json!(crate::streams_service::record_size(record));
    dynamodb["ApproximateCreationDateTimePrecision"] = json!(if micros { "MICROSECOND" } else { "MILLISECOND" });
    let user_identity = match record.origin {
        Origin::TimeToLive => json!({"principalId": "dynamodb.amazonaws.com", "type": "Service"}),
        Origin::Request => Value::Null,
    };
    let data = json!({
        "awsRegion": region,
        "eventID": stratus_core::id::uuid(),
        "eventName": record.event.as_str(),
        "userIdentity": user_identity,
        "recordFormat": "application/json",
        "tableName": table,
        "dynamodb": dynamodb,
        "eventSource": "aws:dynamodb",
    });
    let key_digest = Sha256::digest(crate::codec::encode(&record.keys));
    (stratus_core::hex::encode(&key_digest), data.to_string().into_bytes())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::stream::EventName;
    use crate::AttributeValue;

    #[test]
    fn records_are_aws_kinesis_records_keyed_by_the_item() {
        let keys = BTreeMap::from([("pk".to_owned(), AttributeValue::S("a".into()))]);
        let mut new = keys.clone();
        new.insert("n".into(), AttributeValue::N("1".into()));
        let record = StreamRecord {
            sequence: 1,
            event: EventName::Insert,
            created_ms: 1_646_075_617_285,
            keys: keys.clone(),
            old_image: None,
            new_image: Some(new),
            origin: Origin::Request,
        };
        let destination = KinesisDestination {
            stream_arn: "arn:aws:kinesis:us-east-1:000000000000:stream/s".into(),
            active: true,
            precision: None,
        };
        let table = "T";
        let (partition_key, data) = kinesis_record("us-east-1", table, &destination, &record);
        let data: Value = serde_json::from_slice(&data).unwrap();
        assert_eq!(data["eventName"], "INSERT");
        assert_eq!(data["tableName"], "T");
        assert_eq!(data["recordFormat"], "application/json");
        assert_eq!(data["userIdentity"], Value::Null);
        assert_eq!(data["dynamodb"]["ApproximateCreationDateTime"], 1_646_075_617_285i64);
        assert_eq!(data["dynamodb"]["Keys"]["pk"]["S"], "a");
        assert_eq!(data["dynamodb"]["NewImage"]["n"]["N"], "1");
        assert!(data["dynamodb"].get("OldImage").is_none());
        assert_eq!(data["dynamodb"]["ApproximateCreationDateTimePrecision"], "MILLISECOND");
        let micro = KinesisDestination {
            precision: Some("MICROSECOND".into()),
            ..destination
        };
        let (same_key, data) = kinesis_record("us-east-1", table, &micro, &record);
        assert_eq!(same_key, partition_key);
        let data: Value = serde_json::from_slice(&data).unwrap();
        assert_eq!(
            data["dynamodb"]["ApproximateCreationDateTime"],
            1_646_075_617_285_000i64
        );
    }
}
