//! Records: PutRecord, PutRecords, GetShardIterator and GetRecords.

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_kinesis::*;
use stratus_storage::{Direction, KeyRange, Read};

use crate::error::{invalid_argument, not_found, Result};
use crate::hash_key;
use crate::iterator::{invalid_iterator, ShardIterator};
use crate::sequence::{is_decimal, Sequence};
use crate::service::{KinesisService, StreamAt};
use crate::store::{
    counter_of, record_key, shard_id, shard_index, shard_prefix, DataRecord, ShardRecord, StreamRecord, RECORDS,
    STREAMS,
};

/// A record's data and partition key together (API reference, PutRecords: "Each record in the
/// request can be as large as 1 MiB ... including partition keys").
const MAX_RECORD_BYTES: usize = 1 << 20;
/// A PutRecords request's records together.
const MAX_REQUEST_BYTES: usize = 5 << 20;
/// What one GetRecords answers at most (API reference, GetRecords).
const MAX_GET_BYTES: usize = 10 << 20;
const MAX_GET_RECORDS: i32 = 10_000;
const MS_PER_HOUR: i64 = 3_600_000;

/// A record to put: its data, partition key and explicit hash key.
struct Entry {
    data: Vec<u8>,
    partition_key: String,
    explicit_hash_key: Option<String>,
}

/// Where a put record went.
struct Placed {
    shard: u32,
    sequence: String,
}

impl Entry {
    fn hash_key(&self) -> Result<u128> {
        match &self.explicit_hash_key {
            Some(text) => hash_key::parse(text).ok_or_else(|| {
                invalid_argument(format!(
                    "Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. Specified value was {text}"
                ))
            }),
            None => Ok(hash_key::of_partition_key(&self.partition_key)),
        }
    }

    fn size(&self) -> usize {
        self.data.len() + self.partition_key.len()
    }
}

/// Puts `entries` in one transaction, each in the open shard its hash key falls in, numbered
/// in order; answers where each went and whether the stream is encrypted.
async fn put(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    at: StreamAt,
    entries: Vec<Entry>,
) -> Result<(Vec<Placed>, EncryptionType), AwsError> {
    for entry in &entries {
        if entry.size() > MAX_RECORD_BYTES {
            return Err(invalid_argument(format!(
                "Record size (data and partition key) exceeds the limit of {MAX_RECORD_BYTES} bytes: {} bytes.",
                entry.size()
            ))
            .into());
        }
    }
    let total: usize = entries.iter().map(Entry::size).sum();
    if total > MAX_REQUEST_BYTES {
        return Err(invalid_argument(format!(
            "Records size exceeds the limit of {MAX_REQUEST_BYTES} bytes for a PutRecords request: {total} bytes."
        ))
        .into());
    }
    let hash_keys = entries.iter().map(Entry::hash_key).collect::<Result<Vec<_>>>()?;
    let now = ctx.clock.epoch_millis();
    let key = (at.account.clone(), at.region.clone(), at.name.clone());
    let answer = kinesis
        .transact(&at.account.clone(), &at.region.clone(), move |tx| {
            let mut stream = at.load(&*tx)?;
            let mut placed = Vec::with_capacity(entries.len());
            for (entry, hash) in entries.into_iter().zip(hash_keys) {
                let shard = stream
                    .shard_for(hash)
                    .map(|s| s.index)
                    .ok_or_else(|| invalid_argument("No open shard holds the record's hash key."))?;
                let at_seq = Sequence {
                    shard,
                    counter: stream.next_counter,
                };
                stream.next_counter += 1;
                let record = DataRecord {
                    arrival_ms: now,
                    partition_key: entry.partition_key,
                    data: entry.data,
                };
                RECORDS.put(tx, record_key(&at.name, at_seq), &record)?;
                placed.push(Placed {
                    shard,
                    sequence: at_seq.render(),
                });
            }
            STREAMS.put(tx, at.name.as_bytes(), &stream)?;
            Ok((placed, stream.encryption()))
        })
        .await?;
    kinesis.shared.arrivals.notify(key);
    Ok(answer)
}

pub(crate) async fn put_record(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: PutRecordInput,
) -> Result<PutRecordOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    if let Some(ordering) = &input.sequence_number_for_ordering {
        if !is_decimal(ordering) {
            return Err(invalid_argument(format!(
                "ExclusiveMinimumSequenceNumber {ordering} used in PutRecord on stream {} under account {} is invalid.",
                at.name, at.account
            ))
            .into());
        }
    }
    let entry = Entry {
        data: input.data,
        partition_key: input.partition_key,
        explicit_hash_key: input.explicit_hash_key,
    };
    let (mut placed, encryption) = put(kinesis, ctx, at, vec![entry]).await?;
    let placed = placed
        .pop()
        .ok_or_else(|| AwsError::new("InternalFailureException", "no record was put", 500))?;
    Ok(PutRecordOutput {
        shard_id: shard_id(placed.shard),
        sequence_number: placed.sequence,
        encryption_type: Some(encryption),
    })
}

/// Puts one record for another service (the [`StreamWriter`](stratus_core::service::StreamWriter)
/// Kinesis provides), into the stream `at`, on `clock`.
pub(crate) async fn put_for_service(
    kinesis: &KinesisService,
    at: StreamAt,
    clock: &stratus_core::Clock,
    partition_key: &str,
    data: Vec<u8>,
) -> Result<(), AwsError> {
    let ctx = RequestContext::unsigned(&at.account, &at.region, clock.clone());
    let entry = Entry {
        data,
        partition_key: partition_key.to_owned(),
        explicit_hash_key: None,
    };
    put(kinesis, &ctx, at, vec![entry]).await.map(drop)
}

pub(crate) async fn put_records(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: PutRecordsInput,
) -> Result<PutRecordsOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let entries = input
        .records
        .into_iter()
        .map(|r| Entry {
            data: r.data,
            partition_key: r.partition_key,
            explicit_hash_key: r.explicit_hash_key,
        })
        .collect();
    let (placed, encryption) = put(kinesis, ctx, at, entries).await?;
    Ok(PutRecordsOutput {
        failed_record_count: Some(0),
        records: placed
            .into_iter()
            .map(|p| PutRecordsResultEntry {
                sequence_number: Some(p.sequence),
                shard_id: Some(shard_id(p.shard)),
                error_code: None,
                error_message: None,
            })
            .collect(),
        encryption_type: Some(encryption),
    })
}

/// The shard `id` names in `stream`, or AWS's refusal.
pub(crate) fn find_shard<'s>(stream: &'s StreamRecord, at: &StreamAt, id: &str) -> Result<&'s ShardRecord> {
    shard_index(id).and_then(|i| stream.shard(i)).ok_or_else(|| {
        not_found(format!(
            "Shard {id} in stream {} under account {} does not exist",
            at.name, at.account
        ))
    })
}

/// Where reading a shard from `position` starts: the counter of the first record to read.
pub(crate) fn start_counter(
    r: &(impl Read + ?Sized),
    (at, stream, shard): (&StreamAt, &StreamRecord, &ShardRecord),
    position: &StartingPosition,
    now_ms: i64,
) -> Result<u64> {
    let tip = shard.last_counter.map_or(stream.next_counter, |last| last + 1);
    let sequence = |kind: &str| -> Result<Sequence> {
        let text = position.sequence_number.as_deref().ok_or_else(|| {
            invalid_argument(format!(
                "StartingSequenceNumber must be provided for ShardIteratorType {kind}."
            ))
        })?;
        let parsed = Sequence::parse(text).ok_or_else(|| {
            invalid_argument(format!(
                "StartingSequenceNumber {text} used in GetShardIterator on shard {} in stream {} under account {} is invalid.",
                shard.id(), at.name, at.account
            ))
        })?;
        if parsed.shard != shard.index {
            return Err(invalid_argument(format!(
                "Invalid StartingSequenceNumber. It encodes {}, while it was used in a call to a shard with {}",
                shard_id(parsed.shard),
                shard.id()
            )));
        }
        Ok(parsed)
    };
    match &position.r#type {
        ShardIteratorType::TrimHorizon => Ok(shard.first_counter),
        ShardIteratorType::Latest => Ok(tip),
        ShardIteratorType::AtSequenceNumber => Ok(sequence("AT_SEQUENCE_NUMBER")?.counter),
        ShardIteratorType::AfterSequenceNumber => Ok(sequence("AFTER_SEQUENCE_NUMBER")?.counter + 1),
        ShardIteratorType::AtTimestamp => {
            let ts = position
                .timestamp
                .and_then(|t| t.to_millis().ok())
                .ok_or_else(|| {
                    invalid_argument(
                        "Must specify timestampInMillis parameter for iterator of type AT_TIMESTAMP. Current request has no timestamp parameter.",
                    )
                })?;
            if ts > now_ms {
                return Err(invalid_argument(format!(
                    "The timestampInMillis parameter cannot be greater than the currentTimestampInMillis. timestampInMillis: {ts}, currentTimestampInMillis: {now_ms}"
                )));
            }
            first_at_or_after(r, &at.name, shard, ts).map(|found| found.unwrap_or(tip))
        }
        ShardIteratorType::Unknown(other) => Err(invalid_argument(format!("Invalid ShardIteratorType {other}."))),
    }
}

/// The counter of the shard's first record that arrived at or after `ts`.
fn first_at_or_after(r: &(impl Read + ?Sized), stream: &str, shard: &ShardRecord, ts: i64) -> Result<Option<u64>> {
    let range = KeyRange::prefix(&shard_prefix(stream, shard.index));
    for (key, record) in RECORDS.scan(r, &range, Direction::Forward, None)? {
        if record.arrival_ms >= ts {
            return Ok(counter_of(&key));
        }
    }
    Ok(None)
}

pub(crate) async fn get_shard_iterator(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: GetShardIteratorInput,
) -> Result<GetShardIteratorOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let now = ctx.clock.epoch_millis();
    let position = StartingPosition {
        r#type: input.shard_iterator_type,
        sequence_number: input.starting_sequence_number,
        timestamp: input.timestamp,
    };
    let shard = input.shard_id;
    let read_at = at.clone();
    let iterator = kinesis
        .read(&at.account, &at.region, move |store| {
            let stream = read_at.load(store)?;
            let found = find_shard(&stream, &read_at, &shard)?;
            let from = start_counter(store, (&read_at, &stream, found), &position, now)?;
            Ok(ShardIterator {
                stream: stream.name.clone(),
                stream_created_ms: stream.created_ms,
                shard: found.index,
                from_counter: from,
                issued_ms: now,
                nonce: stratus_core::id::random_u64(),
            })
        })
        .await?;
    Ok(GetShardIteratorOutput {
        shard_iterator: Some(iterator.encode()),
    })
}

/// What a read of a shard found: its records, where the next read continues, and, at the end
/// of a closed shard, its children.
pub(crate) struct Batch {
    pub records: Vec<Record>,
    /// The counter the next read starts at; `None` once a closed shard is read to its end.
    pub next: Option<u64>,
    pub millis_behind: i64,
    pub children: Option<Vec<ChildShard>>,
}

/// Reads up to `limit` records of shard `index` of `stream` from counter `from`, skipping those
/// past the retention period.
pub(crate) fn read_shard(
    r: &(impl Read + ?Sized),
    stream: &StreamRecord,
    shard: &ShardRecord,
    from: u64,
    limit: usize,
    now_ms: i64,
) -> Result<Batch> {
    let start = record_key(
        &stream.name,
        Sequence {
            shard: shard.index,
            counter: from,
        },
    );
    let end = shard_prefix(&stream.name, shard.index + 1);
    let range = KeyRange::between(
        std::ops::Bound::Included(start.as_slice()),
        std::ops::Bound::Excluded(end.as_slice()),
    );
    let horizon = now_ms - i64::from(stream.retention_hours) * MS_PER_HOUR;
    let mut records = Vec::new();
    let (mut bytes, mut next, mut last_arrival) = (0, from, None);
    let rows = RECORDS.scan(r, &range, Direction::Forward, Some(limit + 1))?;
    // A full scan may have more beyond it, even when expired rows kept the page short.
    let mut more = rows.len() > limit;
    for (key, record) in rows {
        let counter = counter_of(&key).unwrap_or(next);
        if records.len() == limit || (bytes + record.data.len() > MAX_GET_BYTES && !records.is_empty()) {
            more = true;
            break;
        }
        next = counter + 1;
        if record.arrival_ms < horizon {
            continue;
        }
        bytes += record.data.len();
        last_arrival = Some(record.arrival_ms);
        records.push(Record {
            sequence_number: Sequence {
                shard: shard.index,
                counter,
            }
            .render(),
            approximate_arrival_timestamp: Some(DateTime::from_millis(record.arrival_ms)),
            data: record.data,
            partition_key: record.partition_key,
            encryption_type: stream.record_encryption(),
        });
    }
    let ended = !more && shard.last_counter.is_some();
    let children = ended.then(|| {
        stream
            .children_of(shard.index)
            .map(|c| ChildShard {
                shard_id: c.id(),
                parent_shards: [c.parent, c.adjacent_parent]
                    .into_iter()
                    .flatten()
                    .map(shard_id)
                    .collect(),
                hash_key_range: HashKeyRange {
                    starting_hash_key: c.start.to_string(),
                    ending_hash_key: c.end.to_string(),
                },
            })
            .collect()
    });
    Ok(Batch {
        records,
        next: (!ended).then_some(next),
        millis_behind: match (more, last_arrival) {
            (true, Some(arrival)) => (now_ms - arrival).max(0),
            _ => 0,
        },
        children,
    })
}

pub(crate) async fn get_records(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: GetRecordsInput,
) -> Result<GetRecordsOutput, AwsError> {
    // The model bounds Limit to 1..=10000.
    let limit = input.limit.unwrap_or(MAX_GET_RECORDS);
    let iterator = ShardIterator::decode(&input.shard_iterator).ok_or_else(invalid_iterator)?;
    let now = ctx.clock.epoch_millis();
    iterator.check_fresh(now)?;
    let at = match input.stream_arn.as_deref() {
        Some(arn) => StreamAt::of_arn(arn)?,
        None => StreamAt::named(ctx, Some(&iterator.stream), None)?,
    };
    if at.name != iterator.stream {
        return Err(invalid_iterator().into());
    }
    let limit = usize::try_from(limit).unwrap_or(1);
    let shard_of_iterator = iterator.shard;
    let read_at = at.clone();
    let batch = kinesis
        .read(&at.account, &at.region, move |store| {
            let stream = read_at.load(store)?;
            if stream.created_ms != iterator.stream_created_ms {
                return Err(crate::error::stream_not_found(&read_at.name, &read_at.account));
            }
            let shard = stream.shard(iterator.shard).ok_or_else(invalid_iterator)?;
            read_shard(store, &stream, shard, iterator.from_counter, limit, now).map(|batch| (batch, stream))
        })
        .await?;
    let (batch, stream) = batch;
    let next_shard_iterator = batch.next.map(|from| {
        ShardIterator {
            stream: stream.name.clone(),
            stream_created_ms: stream.created_ms,
            shard: shard_of_iterator,
            from_counter: from,
            issued_ms: now,
            nonce: stratus_core::id::random_u64(),
        }
        .encode()
    });
    Ok(GetRecordsOutput {
        records: batch.records,
        next_shard_iterator,
        millis_behind_latest: Some(batch.millis_behind),
        child_shards: batch.children,
    })
}
