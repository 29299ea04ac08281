//! The DynamoDB Streams service (API 2012-08-10, awsJson1_0, target prefix
//! `DynamoDBStreams_20120810`): ListStreams, DescribeStream, GetShardIterator and GetRecords
//! over the stream records every DynamoDB write path appends (see [`crate::stream`]), in the
//! same account and region store as the tables.
//!
//! Each stream has one shard, open while the stream is enabled and closed (with an
//! `EndingSequenceNumber`) once the stream is disabled or its table deleted; a closed stream
//! stays readable for 24 hours. Messages follow DynamoDB's (DynamoDB Local's
//! `LocalAmazonDynamoDBStreams` where AWS documents none).

use std::sync::Arc;

use sha2::{Digest, Sha256};
use stratus_core::service::ServiceHandler;
use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_dynamodb_streams::*;
use stratus_storage::{Storage, StorageError};

use crate::db::Scope;
use crate::iterator::{format_sequence, parse_sequence, parse_stream_arn, shard_id, stream_arn, ShardIterator};
use crate::size::item_size;
use crate::stream::{self, EventName, Origin, StreamError, StreamInfo};

/// AWS's largest GetRecords page: 1000 records or 1 MB.
const MAX_RECORDS: i32 = 1000;
const MAX_PAGE_BYTES: usize = 1024 * 1024;
/// ListStreams' default and largest page.
const MAX_STREAMS: usize = 100;

/// The DynamoDB Streams service, backed by the same stores as [`crate::DynamoDbService`].
pub struct DynamoDbStreamsService {
    storage: Arc<Storage>,
}

impl DynamoDbStreamsService {
    pub fn new(storage: Arc<Storage>) -> DynamoDbStreamsService {
        DynamoDbStreamsService { storage }
    }

    /// The service behind the gateway's type-erased handler.
    pub fn handler(storage: Arc<Storage>) -> Arc<dyn ServiceHandler> {
        Arc::new(Handler(DynamoDbStreamsService::new(storage)))
    }

    async fn run<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, StreamsError>
    where
        R: Send + 'static,
        F: FnOnce(&Scope) -> Result<R, StreamsError> + Send + 'static,
    {
        Scope::run(&self.storage, ctx, body).await
    }
}

stratus_gen_dynamodb_streams::operations! {
    DynamoDbStreamsService;
    list_streams in run => list_streams,
    describe_stream in run => describe_stream,
    get_shard_iterator in run => get_shard_iterator,
    get_records in run => get_records,
}

/// Everything a Streams operation can refuse with.
#[derive(Debug)]
pub enum StreamsError {
    Validation(String),
    ResourceNotFound(String),
    ExpiredIterator(String),
    TrimmedDataAccess(String),
    Internal(String),
}

impl StreamsError {
    fn not_found(arn: &str) -> StreamsError {
        StreamsError::ResourceNotFound(format!("Requested resource not found: Stream: {arn} not found"))
    }

    fn trimmed() -> StreamsError {
        StreamsError::TrimmedDataAccess("The data you are trying to access has been trimmed.".into())
    }

    pub(crate) fn into_aws(self) -> AwsError {
        let (code, message) = match self {
            StreamsError::Internal(m) => return AwsError::internal(m),
            StreamsError::Validation(m) => ("ValidationException", m),
            StreamsError::ResourceNotFound(m) => ("ResourceNotFoundException", m),
            StreamsError::ExpiredIterator(m) => ("ExpiredIteratorException", m),
            StreamsError::TrimmedDataAccess(m) => ("TrimmedDataAccessException", m),
        };
        AwsError::new(code, message, 400)
    }
}

impl From<StorageError> for StreamsError {
    fn from(e: StorageError) -> StreamsError {
        StreamsError::Internal(format!("stream store: {e}"))
    }
}

impl From<StreamError> for StreamsError {
    fn from(e: StreamError) -> StreamsError {
        StreamsError::Internal(e.to_string())
    }
}

impl From<StreamsError> for ListStreamsError {
    fn from(e: StreamsError) -> ListStreamsError {
        match e {
            StreamsError::ResourceNotFound(m) => {
                ListStreamsError::ResourceNotFoundException(ResourceNotFoundException { message: Some(m) })
            }
            other => ListStreamsError::Aws(other.into_aws()),
        }
    }
}

impl From<StreamsError> for DescribeStreamError {
    fn from(e: StreamsError) -> DescribeStreamError {
        match e {
            StreamsError::ResourceNotFound(m) => {
                DescribeStreamError::ResourceNotFoundException(ResourceNotFoundException { message: Some(m) })
            }
            other => DescribeStreamError::Aws(other.into_aws()),
        }
    }
}

impl From<StreamsError> for GetShardIteratorError {
    fn from(e: StreamsError) -> GetShardIteratorError {
        match e {
            StreamsError::ResourceNotFound(m) => {
                GetShardIteratorError::ResourceNotFoundException(ResourceNotFoundException { message: Some(m) })
            }
            StreamsError::TrimmedDataAccess(m) => {
                GetShardIteratorError::TrimmedDataAccessException(TrimmedDataAccessException { message: Some(m) })
            }
            other => GetShardIteratorError::Aws(other.into_aws()),
        }
    }
}

impl From<StreamsError> for GetRecordsError {
    fn from(e: StreamsError) -> GetRecordsError {
        match e {
            StreamsError::ResourceNotFound(m) => {
                GetRecordsError::ResourceNotFoundException(ResourceNotFoundException { message: Some(m) })
            }
            StreamsError::TrimmedDataAccess(m) => {
                GetRecordsError::TrimmedDataAccessException(TrimmedDataAccessException { message: Some(m) })
            }
            StreamsError::ExpiredIterator(m) => {
                GetRecordsError::ExpiredIteratorException(ExpiredIteratorException { message: Some(m) })
            }
            other => GetRecordsError::Aws(other.into_aws()),
        }
    }
}

/// The stream an ARN names in this scope, if it exists (enabled, or closed within 24 hours).
pub(crate) fn find_stream(scope: &Scope, arn: &str) -> Result<StreamInfo, StreamsError> {
    let Some((table, label)) = parse_stream_arn(arn, &scope.region, &scope.account) else {
        return Err(StreamsError::not_found(arn));
    };
    stream::find(&*scope.store, &table, &label, scope.now_ms())?.ok_or_else(|| StreamsError::not_found(arn))
}

/// The one shard's sequence numbers: the first ever (1), the first still kept, the last
/// written (0 before any).
struct ShardState {
    first_kept: u64,
    last: u64,
}

fn shard_state(scope: &Scope, info: &StreamInfo) -> Result<ShardState, StreamsError> {
    Ok(match stream::bounds(&*scope.store, &info.table, &info.label)? {
        Some((first, last)) => ShardState {
            first_kept: first,
            last,
        },
        None => ShardState { first_kept: 1, last: 0 },
    })
}

fn view_type(info: &StreamInfo) -> StreamViewType {
    StreamViewType::from_wire(&info.view_type)
}

pub(crate) fn list_streams(scope: &Scope, input: ListStreamsInput) -> Result<ListStreamsOutput, StreamsError> {
    let limit = input
        .limit
        .map_or(MAX_STREAMS, |l| (l.max(1) as usize).min(MAX_STREAMS));
    let mut streams: Vec<Stream> = stream::list(&*scope.store, scope.now_ms())?
        .into_iter()
        .filter(|s| input.table_name.as_ref().is_none_or(|t| *t == s.table))
        .map(|s| Stream {
            stream_arn: Some(stream_arn(&scope.region, &scope.account, &s.table, &s.label)),
            table_name: Some(s.table),
            stream_label: Some(s.label),
        })
        .collect();
    streams.sort_by(|a, b| a.stream_arn.cmp(&b.stream_arn));
    if let Some(start) = &input.exclusive_start_stream_arn {
        streams.retain(|s| s.stream_arn.as_deref() > Some(start.as_str()));
    }
    let more = streams.len() > limit;
    streams.truncate(limit);
    Ok(ListStreamsOutput {
        last_evaluated_stream_arn: more
            .then(|| streams.last().and_then(|s| s.stream_arn.clone()))
            .flatten(),
        streams: Some(streams),
    })
}

pub(crate) fn describe_stream(scope: &Scope, input: DescribeStreamInput) -> Result<DescribeStreamOutput, StreamsError> {
    let info = find_stream(scope, &input.stream_arn)?;
    let state = shard_state(scope, &info)?;
    let shard = Shard {
        shard_id: Some(shard_id(&info.table, &info.label, info.created_ms)),
        sequence_number_range: Some(SequenceNumberRange {
            starting_sequence_number: Some(format_sequence(1)),
            ending_sequence_number: info.closed_ms.map(|_| format_sequence(state.last.max(1))),
        }),
        parent_shard_id: None,
    };
    // One shard, with no parent and no children: a page after it, or its children, is empty.
    let shards = if input.exclusive_start_shard_id.is_some() || input.shard_filter.is_some() {
        vec![]
    } else {
        vec![shard]
    };
    let key_schema = info
        .key
        .attrs()
        .enumerate()
        .map(|(i, attr)| KeySchemaElement {
            attribute_name: attr.name.clone(),
            key_type: if i == 0 { KeyType::Hash } else { KeyType::Range },
        })
        .collect();
    Ok(DescribeStreamOutput {
        stream_description: Some(StreamDescription {
            stream_arn: Some(input.stream_arn),
            stream_label: Some(info.label.clone()),
            stream_status: Some(if info.closed_ms.is_some() {
                StreamStatus::Disabled
            } else {
                StreamStatus::Enabled
            }),
            stream_view_type: Some(view_type(&info)),
            creation_request_date_time: Some(DateTime::from_millis(info.created_ms)),
            table_name: Some(info.table),
            key_schema: Some(key_schema),
            shards: Some(shards),
            last_evaluated_shard_id: None,
        }),
    })
}

pub(crate) fn get_shard_iterator(
    scope: &Scope,
    input: GetShardIteratorInput,
) -> Result<GetShardIteratorOutput, StreamsError> {
    let kind = input.shard_iterator_type;
    let by_sequence = matches!(
        kind,
        ShardIteratorType::AtSequenceNumber | ShardIteratorType::AfterSequenceNumber
    );
    if let ShardIteratorType::Unknown(_) = kind {
        return Err(StreamsError::Validation("Invalid ShardIteratorType.".into()));
    }
    match (&input.sequence_number, by_sequence) {
        (None, true) => {
            return Err(StreamsError::Validation(format!(
                "A SequenceNumber is required with ShardIteratorType {}",
                kind.as_str()
            )))
        }
        (Some(_), false) => {
            return Err(StreamsError::Validation(format!(
                "A SequenceNumber is not allowed with ShardIteratorType {}",
                kind.as_str()
            )))
        }
        _ => {}
    }
    let info = find_stream(scope, &input.stream_arn)?;
    if input.shard_id != shard_id(&info.table, &info.label, info.created_ms) {
        return Err(StreamsError::ResourceNotFound(format!(
            "Requested resource not found: Shard: {} in Stream: {} not found",
            input.shard_id, input.stream_arn
        )));
    }
    let state = shard_state(scope, &info)?;
    let next = match kind {
        ShardIteratorType::TrimHorizon => state.first_kept,
        ShardIteratorType::Latest => state.last + 1,
        _ => {
            let text = input.sequence_number.as_deref().unwrap_or_default();
            let invalid = || StreamsError::Validation("Invalid SequenceNumber for the shard".into());
            let sequence = parse_sequence(text).ok_or_else(invalid)?;
            // A closed shard ends at its last record; an open one accepts what is to come.
            if sequence == 0 || (info.closed_ms.is_some() && sequence > state.last.max(1)) {
                return Err(invalid());
            }
            if sequence < state.first_kept {
                return Err(StreamsError::trimmed());
            }
            if kind == ShardIteratorType::AfterSequenceNumber {
                sequence.saturating_add(1)
            } else {
                sequence
            }
        }
    };
    let iterator = ShardIterator {
        stream_arn: input.stream_arn,
        next,
        issued_ms: scope.now_ms(),
    };
    Ok(GetShardIteratorOutput {
        shard_iterator: Some(iterator.encode()),
    })
}

pub(crate) fn get_records(scope: &Scope, input: GetRecordsInput) -> Result<GetRecordsOutput, StreamsError> {
    let iterator = ShardIterator::decode(&input.shard_iterator)
        .ok_or_else(|| StreamsError::Validation("Invalid ShardIterator".into()))?;
    let now = scope.now_ms();
    if iterator.expired(now) {
        return Err(StreamsError::ExpiredIterator(format!(
            "Iterator expired. The iterator was created at time {} while right now it is {} which is further in the future than the tolerated delay of {} milliseconds.",
            DateTime::from_millis(iterator.issued_ms),
            DateTime::from_millis(now),
            crate::iterator::ITERATOR_LIFETIME_MS
        )));
    }
    let limit = input.limit.unwrap_or(MAX_RECORDS);
    if limit > MAX_RECORDS {
        return Err(StreamsError::Validation(format!(
            "One or more parameter values were invalid: Limit should be less than or equal to {MAX_RECORDS}"
        )));
    }
    let info = find_stream(scope, &iterator.stream_arn)
        .map_err(|_| StreamsError::ResourceNotFound("Invalid ShardId in ShardIterator".into()))?;
    let state = shard_state(scope, &info)?;
    if iterator.next < state.first_kept {
        return Err(StreamsError::trimmed());
    }
    let stored = stream::read(
        &*scope.store,
        &info.table,
        &info.label,
        iterator.next.saturating_sub(1),
        limit.max(1) as usize,
    )?;
    let mut next = iterator.next;
    let mut bytes = 0;
    let mut records = Vec::with_capacity(stored.len());
    for record in stored {
        let size = record_size(&record);
        if !records.is_empty() && bytes + size > MAX_PAGE_BYTES {
            break;
        }
        bytes += size;
        next = record.sequence + 1;
        records.push(wire_record(&scope.region, &info, &iterator.stream_arn, record, size));
    }
    let exhausted = info.closed_ms.is_some() && next > state.last;
    let next_shard_iterator = (!exhausted).then(|| {
        ShardIterator {
            stream_arn: iterator.stream_arn.clone(),
            next,
            issued_ms: now,
        }
        .encode()
    });
    Ok(GetRecordsOutput {
        records: Some(records),
        next_shard_iterator,
    })
}

/// A record's `SizeBytes`: its keys and images, as DynamoDB sizes items.
pub(crate) fn record_size(record: &stream::StreamRecord) -> usize {
    item_size(&record.keys)
        + record.old_image.as_ref().map_or(0, item_size)
        + record.new_image.as_ref().map_or(0, item_size)
}

/// A record as GetRecords answers it (and Lambda hands it to a function), of size `size`.
pub(crate) fn wire_record(
    region: &str,
    info: &StreamInfo,
    arn: &str,
    record: stream::StreamRecord,
    size: usize,
) -> Record {
    let sequence = format_sequence(record.sequence);
    let event_id = stratus_core::hex::encode(&Sha256::digest(format!("{arn}\0{sequence}").as_bytes())[..16]);
    let image = |item: crate::Item| item.into_iter().map(|(k, v)| (k, convert(v))).collect();
    Record {
        event_id: Some(event_id),
        event_name: Some(match record.event {
            EventName::Insert => OperationType::Insert,
            EventName::Modify => OperationType::Modify,
            EventName::Remove => OperationType::Remove,
        }),
        event_version: Some("1.1".into()),
        event_source: Some("aws:dynamodb".into()),
        aws_region: Some(region.to_owned()),
        dynamodb: Some(StreamRecord {
            // AWS rounds the creation time down to the second.
            approximate_creation_date_time: Some(DateTime::from_secs(record.created_ms.div_euclid(1000))),
            keys: Some(image(record.keys)),
            new_image: record.new_image.map(image),
            old_image: record.old_image.map(image),
            sequence_number: Some(sequence),
            size_bytes: Some(size as i64),
            stream_view_type: Some(view_type(info)),
        }),
        // Time-to-live deletions are the service's, as AWS marks them.
        user_identity: (record.origin == Origin::TimeToLive).then(|| Identity {
            principal_id: Some("dynamodb.amazonaws.com".into()),
            r#type: Some("Service".into()),
        }),
    }
}

/// A DynamoDB attribute value as the Streams model spells it (the same union, another crate).
fn convert(value: crate::AttributeValue) -> AttributeValue {
    use crate::AttributeValue as V;
    match value {
        V::S(s) => AttributeValue::S(s),
        V::N(n) => AttributeValue::N(n),
        V::B(b) => AttributeValue::B(b),
        V::Ss(v) => AttributeValue::Ss(v),
        V::Ns(v) => AttributeValue::Ns(v),
        V::Bs(v) => AttributeValue::Bs(v),
        V::M(m) => AttributeValue::M(m.into_iter().map(|(k, v)| (k, convert(v))).collect()),
        V::L(l) => AttributeValue::L(l.into_iter().map(convert).collect()),
        V::Null(b) => AttributeValue::Null(b),
        V::Bool(b) => AttributeValue::Bool(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};
    use stratus_core::Clock;
    use stratus_storage::{Durability, Namespace, StorageConfig};

    /// The time the tests' streams are read at.
    const NOW_MS: i64 = 1_700_000_000_000;

    fn scope() -> Scope {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        Scope {
            store: storage
                .store(
                    &Namespace::regional("000000000000", "us-east-1", "dynamodb"),
                    Durability::Strict,
                )
                .unwrap(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            clock: Clock::manual(UNIX_EPOCH + Duration::from_millis(NOW_MS as u64)),
        }
    }

    fn records(text: &str) -> Result<GetRecordsOutput, StreamsError> {
        get_records(
            &scope(),
            GetRecordsInput {
                shard_iterator: text.into(),
                limit: None,
            },
        )
    }

    #[test]
    fn garbage_iterators_are_validation_errors() {
        for text in ["x", "arn|1|AAAA", "\u{0}|1|\u{0}", &"a".repeat(2048)] {
            match records(text) {
                Err(StreamsError::Validation(m)) => assert_eq!(m, "Invalid ShardIterator"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn reading_before_the_trim_horizon_is_refused() {
        use crate::key::KeyType;
        use crate::table::{KeyAttr, KeySchema, Stream as TableStream, TableRecord};
        let scope = scope();
        let label = "2024-01-02T03:04:05.678";
        let table = TableRecord {
            name: "T".into(),
            id: "id".into(),
            created_ms: 0,
            attributes: vec![],
            key: KeySchema::simple(
                KeyAttr {
                    name: "pk".into(),
                    kind: KeyType::S,
                },
                None,
            ),
            throughput: None,
            on_demand_since_ms: None,
            indexes: vec![],
            stream: Some(TableStream {
                view_type: "KEYS_ONLY".into(),
                label: label.into(),
            }),
            tags: vec![],
            table_class: None,
            deletion_protection: false,
            ttl: None,
            recovery: None,
            insights: Vec::new(),
            policy: None,
            settings_replication: None,
            warm: None,
            kinesis: Vec::new(),
            sse_key: None,
        };
        let item = crate::Item::from([("pk".to_string(), crate::AttributeValue::S("k".into()))]);
        let now = NOW_MS;
        let arn = stream_arn("us-east-1", "000000000000", "T", label);
        let first = ShardIterator {
            stream_arn: arn.clone(),
            next: 1,
            issued_ms: now,
        };
        scope
            .store
            .transact(|tx| {
                crate::db::save_table(tx, &table).expect("saved");
                // 63 records from two days ago, then one now: appending the 64th trims them.
                for i in 0..64 {
                    let (old, new) = if i % 2 == 0 {
                        (None, Some(&item))
                    } else {
                        (Some(&item), None)
                    };
                    let at = if i < 63 { now - 2 * stream::RETENTION_MS } else { now };
                    stream::append(tx, &table, old, new, at, Origin::Request)?;
                }
                Ok::<_, StreamError>(())
            })
            .unwrap();
        assert!(matches!(
            get_records(
                &scope,
                GetRecordsInput {
                    shard_iterator: first.encode(),
                    limit: None
                }
            ),
            Err(StreamsError::TrimmedDataAccess(_))
        ));
        let shard = shard_id(
            "T",
            label,
            stream::find(&*scope.store, "T", label, now)
                .unwrap()
                .unwrap()
                .created_ms,
        );
        let at = |sequence: u64| GetShardIteratorInput {
            stream_arn: arn.clone(),
            shard_id: shard.clone(),
            shard_iterator_type: ShardIteratorType::AtSequenceNumber,
            sequence_number: Some(format_sequence(sequence)),
        };
        assert!(matches!(
            get_shard_iterator(&scope, at(1)),
            Err(StreamsError::TrimmedDataAccess(_))
        ));
        let it = get_shard_iterator(&scope, at(64)).unwrap().shard_iterator.unwrap();
        let page = get_records(
            &scope,
            GetRecordsInput {
                shard_iterator: it,
                limit: None,
            },
        )
        .unwrap();
        assert_eq!(page.records.unwrap().len(), 1);
    }

    #[test]
    fn old_iterators_expire_and_vanished_streams_are_not_found() {
        let arn = stream_arn("us-east-1", "000000000000", "T", "2024-01-02T03:04:05.678");
        let old = ShardIterator {
            stream_arn: arn.clone(),
            next: 1,
            issued_ms: NOW_MS - crate::iterator::ITERATOR_LIFETIME_MS - 1000,
        };
        assert!(matches!(records(&old.encode()), Err(StreamsError::ExpiredIterator(_))));
        let fresh = ShardIterator {
            issued_ms: NOW_MS,
            ..old
        };
        assert!(matches!(
            records(&fresh.encode()),
            Err(StreamsError::ResourceNotFound(_))
        ));
    }
}
