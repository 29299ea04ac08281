//! DynamoDB Streams as a [`StreamSource`]: the one shard of a table's stream, read from a
//! position, for Lambda's event source mappings. A position is the sequence number of the
//! next record to read, in decimal; a record's data is the record as GetRecords answers it,
//! in JSON, which Lambda hands on as the event's record; its partition key is its `Keys`, so
//! concurrent batches of one shard keep each item's changes in order.
//!
//! Writes wake readers through [`Arrivals`] counted per account and region: every committed
//! write operation there bumps it, so a reader may wake for another table's write and find
//! nothing new, but never sleeps through its own.

use std::sync::Arc;

use stratus_core::arn::Arn;
use stratus_core::json::{self, KeyNames};
use stratus_core::service::{Arrivals, BoxFuture, Caller, ShardRead, ShardRecord, StreamSource, StreamStart};
use stratus_core::{AwsError, Clock, IntoValue};
use stratus_storage::{Durability, Namespace, Storage};

use crate::db::Scope;
use crate::iterator::{format_sequence, shard_id};
use crate::stream;
use crate::streams_service::{find_stream, record_size, wire_record, StreamsError};

/// What DynamoDB writes are counted under: (account, region).
pub(crate) type WriteScope = (String, String);

/// The streams of every table, read on the process's clock.
pub(crate) struct TableStreams {
    pub(crate) storage: Arc<Storage>,
    pub(crate) clock: Clock,
    pub(crate) writes: Arc<Arrivals<WriteScope>>,
}

fn scope_of(arn: &str) -> WriteScope {
    match Arn::parse(arn) {
        Ok(arn) => (arn.account, arn.region),
        Err(_) => (String::new(), String::new()),
    }
}

impl TableStreams {
    /// Runs `body` on a blocking thread against the store of the account and region `arn`
    /// names.
    async fn read<R: Send + 'static>(
        &self,
        arn: &str,
        body: impl FnOnce(&Scope) -> Result<R, StreamsError> + Send + 'static,
    ) -> Result<R, AwsError> {
        let (account, region) = scope_of(arn);
        let (storage, clock) = (self.storage.clone(), self.clock.clone());
        stratus_storage::run_blocking(move || {
            let namespace = Namespace::regional(&account, &region, "dynamodb");
            let store = storage.store(&namespace, Durability::Strict)?;
            body(&Scope {
                store,
                account,
                region,
                clock,
            })
        })
        .await
        .map_err(StreamsError::into_aws)
    }
}

/// The first record still kept and the last written (0 before any).
fn bounds(scope: &Scope, info: &stream::StreamInfo) -> Result<(u64, u64), StreamsError> {
    Ok(stream::bounds(&*scope.store, &info.table, &info.label)?.unwrap_or((1, 0)))
}

fn position_of(text: &str) -> Result<u64, StreamsError> {
    text.parse()
        .map_err(|_| StreamsError::Validation(format!("Invalid position {text} in the stream.")))
}

impl StreamSource for TableStreams {
    fn arn_service(&self) -> &'static str {
        "dynamodb"
    }

    fn shards<'a>(&'a self, _: Caller<'a>, stream_arn: &'a str) -> BoxFuture<'a, Result<Vec<String>, AwsError>> {
        let arn = stream_arn.to_owned();
        Box::pin(self.read(stream_arn, move |scope| {
            let info = find_stream(scope, &arn)?;
            Ok(vec![shard_id(&info.table, &info.label, info.created_ms)])
        }))
    }

    fn start<'a>(
        &'a self,
        _: Caller<'a>,
        stream_arn: &'a str,
        _shard_id: &'a str,
        start: StreamStart,
    ) -> BoxFuture<'a, Result<String, AwsError>> {
        let arn = stream_arn.to_owned();
        Box::pin(self.read(stream_arn, move |scope| {
            let info = find_stream(scope, &arn)?;
            let (first_kept, last) = bounds(scope, &info)?;
            let next = match start {
                StreamStart::TrimHorizon => first_kept,
                StreamStart::Latest => last + 1,
                // DynamoDB Streams has no timestamp iterators; Lambda refuses the position.
                StreamStart::AtTimestamp(_) => {
                    return Err(StreamsError::Validation("Invalid ShardIteratorType.".into()))
                }
            };
            Ok(next.to_string())
        }))
    }

    fn read<'a>(
        &'a self,
        _: Caller<'a>,
        stream_arn: &'a str,
        _shard_id: &'a str,
        position: &'a str,
        max: usize,
    ) -> BoxFuture<'a, Result<ShardRead, AwsError>> {
        let (arn, position) = (stream_arn.to_owned(), position.to_owned());
        Box::pin(self.read(stream_arn, move |scope| {
            let info = find_stream(scope, &arn)?;
            let (first_kept, last) = bounds(scope, &info)?;
            // Records trimmed past their 24 hours are skipped.
            let next = position_of(&position)?.max(first_kept);
            let stored = stream::read(&*scope.store, &info.table, &info.label, next - 1, max.max(1))?;
            let mut read_to = next;
            let records = stored
                .into_iter()
                .map(|record| {
                    read_to = record.sequence + 1;
                    shard_record(&scope.region, &info, &arn, record)
                })
                .collect();
            Ok(ShardRead {
                records,
                ended: info.closed_ms.is_some() && read_to > last,
            })
        }))
    }

    fn appends(&self, _: Caller<'_>, stream_arn: &str) -> u64 {
        self.writes.current(&scope_of(stream_arn))
    }

    fn appended<'a>(&'a self, _: Caller<'a>, stream_arn: &'a str, seen: u64) -> BoxFuture<'a, ()> {
        Box::pin(self.writes.changed(scope_of(stream_arn), seen))
    }
}

fn shard_record(region: &str, info: &stream::StreamInfo, arn: &str, record: stream::StreamRecord) -> ShardRecord {
    let (sequence, arrival_ms) = (record.sequence, record.created_ms);
    let size = record_size(&record);
    let wire = wire_record(region, info, arn, record, size);
    let keys = wire.dynamodb.as_ref().and_then(|d| d.keys.clone()).unwrap_or_default();
    let keys = json::encode(
        &stratus_gen_dynamodb_streams::schema::ATTRIBUTE_MAP,
        &keys.into_value(),
        KeyNames::Member,
    );
    let data = json::encode(
        &stratus_gen_dynamodb_streams::schema::RECORD,
        &wire.into_value(),
        KeyNames::Member,
    );
    ShardRecord {
        sequence_number: format_sequence(sequence),
        next: (sequence + 1).to_string(),
        arrival_ms,
        partition_key: keys,
        data: data.into_bytes(),
    }
}
