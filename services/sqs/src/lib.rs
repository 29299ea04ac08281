//! Amazon Simple Queue Service: durable standard and FIFO queues.
//!
//! State lives in the `sqs` store of each account and region, written with strict
//! durability: a message is on disk before `SendMessage` answers. Tables:
//!
//! - `queues`: [`queue::QueueRecord`] by queue name;
//! - `messages`: [`message::StoredMessage`] by queue name, a zero byte and the message's
//!   sequence number (big-endian), so a queue's messages scan in sending order;
//! - `dedup`: FIFO deduplication ids by queue name, a zero byte, (group id, zero byte,) id.
//!
//! Nothing runs in the background. Visibility timeouts and delays are deadlines compared
//! with the service's clock when a receive looks at a message; retention is enforced the same
//! way. Long polling waits on the queue's arrival signal and a deadline on the scheduler
//! ([`wait`]), as does a rate-limited message move task between batches.
//!
//! Queue URLs are minted from the request's Host (`http://HOST/ACCOUNT/NAME`), so a returned
//! URL works as given; requests are accepted with any URL whose last two path segments are
//! the account and the queue name.

mod error;
mod message;
mod moves;
mod permissions;
mod queue;
mod wait;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::time::Duration;

use sha2::Sha256;
use stratus_core::arn::Arn;
use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::scheduler::Scheduler;
use stratus_core::service::{BoxFuture, MessageSink, Providers, Registration, ServiceEnv};
use stratus_core::{hex, id, AwsError, RequestContext, Unit};
use stratus_gen_sqs::*;
use stratus_storage::{Direction, Durability, KeyRange, Namespace, Read, Storage, Store, Table, Tx};

use crate::error::SqsError;
use crate::message::{Attribute, State, StoredMessage};
use crate::queue::QueueRecord;
use crate::wait::Arrivals;

const QUEUES: Table<QueueRecord> = Table::new("queues");
const MESSAGES: Table<StoredMessage> = Table::new("messages");
const DEDUP: Table<Dedup> = Table::new("dedup");
/// When each recently deleted queue name was deleted (milliseconds since the epoch).
const DELETED: &str = "deleted";
/// How long a purge blocks the next, and a deletion the name's reuse.
const COOL_DOWN_MS: u64 = 60_000;
/// AWS's deduplication interval for FIFO queues.
const DEDUP_WINDOW_MS: u64 = 5 * 60 * 1000;
/// The most a batch request may carry in total, whatever the queues' own limits.
const MAX_BATCH_BYTES: usize = 262_144;
/// Messages read per storage scan while looking for deliverable ones.
const SCAN_CHUNK: usize = 256;

/// The SQS service, backed by `storage`. Clones share everything (other services deliver
/// through a clone: see [`MessageSink`]).
#[derive(Clone)]
pub struct SqsService {
    shared: Arc<Shared>,
}

/// What operations and background message moves share.
struct Shared {
    storage: Arc<Storage>,
    arrivals: Arrivals,
    /// Message move tasks with a runner in this process, by task id.
    running_moves: std::sync::Mutex<HashSet<String>>,
    /// Deadlines: long polls' waits and move tasks' pacing; its clock is the service's time.
    scheduler: Scheduler,
}

impl Shared {
    /// Now, in milliseconds since the epoch (what message deadlines are kept in).
    fn now_ms(&self) -> u64 {
        u64::try_from(self.scheduler.clock().epoch_millis()).unwrap_or(0)
    }
}

impl Shared {
    /// Runs `body` as a strict write transaction in `namespace`, on a blocking thread (a
    /// strict commit waits for fsync).
    async fn write<R, F>(&self, namespace: Namespace, body: F) -> Result<R, SqsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SqsError> + Send + 'static,
    {
        self.storage
            .store(&namespace, Durability::Strict)?
            .transact_async(body)
            .await
    }
}

/// A queue named by a request: its namespace and name.
#[derive(Clone)]
struct QueueRef {
    account: String,
    region: String,
    name: String,
}

impl QueueRef {
    fn from_url(ctx: &RequestContext, url: &str) -> Result<QueueRef, SqsError> {
        let (account, name) = queue::parse_url(url)?;
        Ok(QueueRef {
            account: account.to_owned(),
            region: ctx.region.clone(),
            name: name.to_owned(),
        })
    }

    /// The queue named `name` in this one's account and region.
    fn sibling(&self, name: &str) -> QueueRef {
        QueueRef {
            account: self.account.clone(),
            region: self.region.clone(),
            name: name.to_owned(),
        }
    }

    /// The queue an ARN names, if it is an SQS queue ARN.
    fn from_arn(arn: &str) -> Option<QueueRef> {
        let arn = queue::parse_arn(arn)?;
        Some(QueueRef {
            account: arn.account,
            region: arn.region,
            name: arn.resource,
        })
    }

    fn arn(&self) -> String {
        Arn::new("sqs", &self.region, &self.account, &self.name).to_string()
    }

    /// The key of the queue's arrival signal.
    fn signal_key(&self) -> String {
        format!("{}/{}/{}", self.account, self.region, self.name)
    }

    fn namespace(&self) -> Namespace {
        Namespace::regional(&self.account, &self.region, "sqs")
    }
}

/// A message to send, from SendMessage or a SendMessageBatch entry.
struct Outgoing {
    body: String,
    delay_seconds: Option<i32>,
    attributes: Option<BTreeMap<String, MessageAttributeValue>>,
    system_attributes: Option<BTreeMap<String, MessageSystemAttributeValue>>,
    dedup_id: Option<String>,
    group_id: Option<String>,
    sender_id: String,
}

/// What a send reports.
struct Sent {
    message_id: String,
    md5_of_body: String,
    md5_of_attributes: Option<String>,
    md5_of_system_attributes: Option<String>,
    sequence_number: Option<String>,
}

/// What one receive attempt found.
struct Taken {
    delivered: Vec<StoredMessage>,
    /// When the queue's next delayed or in-flight message becomes visible, if any.
    next_visible: Option<u64>,
    /// The queue's default wait (`ReceiveMessageWaitTimeSeconds`).
    queue_wait: u64,
    /// Dead-letter queues that received messages received too often.
    dead_lettered: Vec<String>,
}

/// A FIFO deduplication entry.
#[derive(serde::Serialize, serde::Deserialize)]
struct Dedup {
    message_id: String,
    sequence: u64,
    expires_ms: u64,
}

/// Builds SQS when the binary serves it; its queues are the [`MessageSink`] other services
/// deliver into.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sqs = SqsService::new(env.storage.clone(), env.scheduler.clone());
    Registration {
        handlers: vec![Arc::new(Handler(sqs.clone()))],
        provides: Providers {
            messages: Some(Arc::new(sqs)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

impl SqsService {
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler) -> SqsService {
        SqsService {
            shared: Arc::new(Shared {
                storage,
                arrivals: Arrivals::default(),
                running_moves: Default::default(),
                scheduler,
            }),
        }
    }

    fn now_ms(&self) -> u64 {
        self.shared.now_ms()
    }

    /// Whether `queue` exists.
    fn queue_exists(&self, queue: &QueueRef) -> bool {
        // A point read needs no transaction (and no blocking thread).
        self.shared
            .storage
            .store(&queue.namespace(), Durability::Strict)
            .and_then(|store| store.get(QUEUES.name(), queue.name.as_bytes()))
            .is_ok_and(|found| found.is_some())
    }

    /// Runs `body` as a strict write transaction in `queue`'s namespace.
    async fn write<R, F>(&self, queue: &QueueRef, body: F) -> Result<R, SqsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SqsError> + Send + 'static,
    {
        self.shared.write(queue.namespace(), body).await
    }

    /// Applies `change` to `queue`'s record in one transaction.
    async fn update_queue<F>(&self, queue: &QueueRef, change: F) -> Result<(), SqsError>
    where
        F: FnOnce(&mut QueueRecord) -> Result<(), SqsError> + Send + 'static,
    {
        let name = queue.name.clone();
        self.write(queue, move |tx| {
            let mut record = load_queue(tx, &name)?;
            change(&mut record)?;
            QUEUES.put(tx, name.as_bytes(), &record)?;
            Ok(())
        })
        .await
    }

    /// The store of `queue`'s namespace, for reads (which need no fsync and run inline).
    fn reader(&self, queue: &QueueRef) -> Result<Arc<dyn Store>, SqsError> {
        Ok(self.shared.storage.store(&queue.namespace(), Durability::Strict)?)
    }

    fn queue(&self, queue: &QueueRef) -> Result<QueueRecord, SqsError> {
        load_queue(&self.reader(queue)?, &queue.name)
    }

    async fn send(&self, queue: &QueueRef, outgoing: Vec<Outgoing>) -> Result<Vec<Result<Sent, SqsError>>, SqsError> {
        let name = queue.name.clone();
        let now = self.now_ms();
        let sent = self
            .write(queue, move |tx| {
                let mut record = load_queue(tx, &name)?;
                let sent: Vec<_> = outgoing.into_iter().map(|o| enqueue(tx, &mut record, o, now)).collect();
                QUEUES.put(tx, name.as_bytes(), &record)?;
                Ok(sent)
            })
            .await?;
        self.shared.arrivals.signal(&queue.signal_key());
        Ok(sent)
    }

    /// Applies `change` to the message each receipt handle names, in one transaction.
    async fn with_received<R, F>(
        &self,
        queue: &QueueRef,
        handles: Vec<String>,
        change: F,
    ) -> Result<Vec<Result<R, SqsError>>, SqsError>
    where
        R: Send + 'static,
        F: Fn(&mut Tx<'_>, usize, Vec<u8>, Option<StoredMessage>, &str) -> Result<R, SqsError> + Send + 'static,
    {
        let name = queue.name.clone();
        self.write(queue, move |tx| {
            load_queue(tx, &name)?;
            let results = handles
                .iter()
                .enumerate()
                .map(|(i, handle)| {
                    let (sequence, token) = message::parse_receipt_handle(handle)?;
                    let key = message_key(&name, sequence);
                    let found = MESSAGES.get(tx, &key)?;
                    let current = found.filter(|m| m.receipt_token == token);
                    change(tx, i, key, current, handle)
                })
                .collect();
            Ok(results)
        })
        .await
    }

    async fn delete_messages(
        &self,
        queue: &QueueRef,
        handles: Vec<String>,
    ) -> Result<Vec<Result<(), SqsError>>, SqsError> {
        // A stale handle (the message was received again, or is gone) succeeds without effect.
        self.with_received(queue, handles, |tx, _, key, current, _| {
            if current.is_some() {
                MESSAGES.delete(tx, key);
            }
            Ok(())
        })
        .await
    }

    async fn change_visibility(
        &self,
        queue: &QueueRef,
        changes: Vec<(String, i32)>,
    ) -> Result<Vec<Result<(), SqsError>>, SqsError> {
        let (handles, timeouts): (Vec<String>, Vec<i32>) = changes.into_iter().unzip();
        let now = self.now_ms();
        let results = self
            .with_received(queue, handles, move |tx, i, key, current, handle| {
                let seconds = visibility_timeout(timeouts[i])?;
                let mut m = current.ok_or_else(|| {
                    SqsError::invalid_value(
                        "ReceiptHandle",
                        handle,
                        "Message does not exist or is not available for visibility timeout change.",
                    )
                })?;
                if m.state(now) != State::InFlight {
                    return Err(SqsError::MessageNotInflight);
                }
                m.visible_at_ms = now + seconds * 1000;
                MESSAGES.put(tx, key, &m)?;
                Ok(())
            })
            .await?;
        // A message made visible again may be what a long poll waits for.
        self.shared.arrivals.signal(&queue.signal_key());
        Ok(results)
    }

    /// One attempt at a receive: the messages delivered and, when none is deliverable, when
    /// the next one becomes visible; also the queue's default wait.
    async fn take(&self, queue: &QueueRef, max: usize, visibility: Option<u64>) -> Result<Taken, SqsError> {
        let name = queue.name.clone();
        let arn = queue.arn();
        let now = self.now_ms();
        let taken = self
            .write(queue, move |tx| {
                let record = load_queue(tx, &name)?;
                let retention_ms = record.number("MessageRetentionPeriod") * 1000;
                let visibility = visibility.unwrap_or_else(|| record.number("VisibilityTimeout"));
                let prefix = queue_prefix(&name);
                let redrive = record.redrive_policy();
                let mut dead_lettered = Vec::new();
                let mut seen: Vec<(Vec<u8>, StoredMessage)> = Vec::new();
                let mut after: Option<Vec<u8>> = None;
                let chosen = loop {
                    let range = match &after {
                        Some(last) => {
                            KeyRange::between(std::ops::Bound::Excluded(last), KeyRange::prefix(&prefix).end())
                        }
                        None => KeyRange::prefix(&prefix),
                    };
                    let chunk = MESSAGES.scan(tx, &range, Direction::Forward, Some(SCAN_CHUNK))?;
                    let exhausted = chunk.len() < SCAN_CHUNK;
                    after = chunk.last().map(|(k, _)| k.clone());
                    for (key, m) in chunk {
                        if m.sent_ms + retention_ms <= now {
                            MESSAGES.delete(tx, key);
                            continue;
                        }
                        // A visible message already received as often as the redrive policy
                        // allows goes to the dead-letter queue instead of being received again.
                        let over_limit = redrive
                            .as_ref()
                            .filter(|p| m.state(now) == State::Visible && m.receive_count >= p.max_receive_count);
                        if let Some(policy) = over_limit {
                            if let Some(dlq) = moves::dead_letter(tx, &record, &arn, policy, &key, &m, now)? {
                                dead_lettered.push(dlq);
                                continue;
                            }
                        }
                        seen.push((key, m));
                    }
                    let chosen = message::deliverable(seen.iter().map(|(_, m)| m), now, max, record.is_fifo());
                    if exhausted || chosen.len() == max {
                        break chosen;
                    }
                };
                let next_visible = seen.iter().map(|(_, m)| m.visible_at_ms).filter(|&t| t > now).min();
                let mut delivered = Vec::with_capacity(chosen.len());
                for i in chosen {
                    let (key, m) = &mut seen[i];
                    m.receive(now, visibility, id::random_u64() | 1);
                    MESSAGES.put(tx, key.clone(), m)?;
                    delivered.push(m.clone());
                }
                Ok(Taken {
                    delivered,
                    next_visible,
                    queue_wait: record.number("ReceiveMessageWaitTimeSeconds"),
                    dead_lettered,
                })
            })
            .await?;
        for dlq in &taken.dead_lettered {
            self.shared.arrivals.signal(&queue.sibling(dlq).signal_key());
        }
        Ok(taken)
    }
}

/// Reads queue `name` from a store or inside a transaction.
fn load_queue(r: &(impl Read + ?Sized), name: &str) -> Result<QueueRecord, SqsError> {
    QUEUES.get(r, name)?.ok_or(SqsError::QueueDoesNotExist)
}

fn queue_prefix(name: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(name.len() + 9);
    key.extend_from_slice(name.as_bytes());
    key.push(0);
    key
}

fn message_key(name: &str, sequence: u64) -> Vec<u8> {
    let mut key = queue_prefix(name);
    key.extend_from_slice(&sequence.to_be_bytes());
    key
}

/// AWS's checks of a `RedrivePolicy` being given to `record` (in the `given` attributes)
/// against the dead-letter queue it names.
fn check_redrive(
    tx: &Tx<'_>,
    record: &QueueRecord,
    queue: &QueueRef,
    given: &BTreeMap<String, String>,
) -> Result<(), SqsError> {
    let Some(text) = given.get("RedrivePolicy").filter(|t| !t.is_empty()) else {
        return Ok(());
    };
    let policy = queue::RedrivePolicy::parse(text)?;
    let invalid = |reason: &str| SqsError::invalid_value("RedrivePolicy", text, reason);
    let target = QueueRef::from_arn(&policy.dead_letter_target_arn)
        .ok_or_else(|| invalid("Only SQS queues are valid resources for deadLetterTargetArn."))?;
    if target.account != queue.account || target.region != queue.region {
        return Err(invalid("Dead-letter target owner should be same as the source."));
    }
    let dlq = load_queue(tx, &target.name).map_err(|_| invalid("Dead letter target does not exist."))?;
    if dlq.is_fifo() != record.is_fifo() {
        return Err(invalid("Dead-letter queue must be same type of queue as the source."));
    }
    if !dlq.allows_redrive_from(&queue.arn()) {
        return Err(invalid(
            "The dead-letter queue's RedriveAllowPolicy does not allow this queue as a source.",
        ));
    }
    Ok(())
}

/// Deletes every entry of `table` under queue `name`.
fn delete_all(tx: &mut Tx<'_>, table: &str, name: &str) -> Result<(), SqsError> {
    let keys = tx.scan(table, &KeyRange::prefix(&queue_prefix(name)), Direction::Forward, None)?;
    for (key, _) in keys {
        tx.delete(table, key);
    }
    Ok(())
}

fn visibility_timeout(seconds: i32) -> Result<u64, SqsError> {
    match u64::try_from(seconds) {
        Ok(s) if s <= 43_200 => Ok(s),
        _ => Err(SqsError::invalid_value(
            "VisibilityTimeout",
            seconds,
            "Must be between 0 and 43200, if provided.",
        )),
    }
}

/// Checks and stores one message in `queue` (whose sequence counter it advances).
fn enqueue(tx: &mut Tx<'_>, queue: &mut QueueRecord, o: Outgoing, now: u64) -> Result<Sent, SqsError> {
    if o.body.is_empty() {
        return Err(SqsError::missing("MessageBody"));
    }
    if !message::valid_characters(&o.body) {
        return Err(SqsError::InvalidMessageContents);
    }
    let attributes = message::attributes(o.attributes)?;
    let trace_header = message::trace_header(o.system_attributes)?;
    let max = queue.number("MaximumMessageSize");
    if message::size(&o.body, &attributes) as u64 > max {
        return Err(SqsError::invalid_parameter(format!(
            "One or more parameters are invalid. Reason: Message must be shorter than {max} bytes."
        )));
    }
    let fifo = queue.is_fifo();
    let delay = match o.delay_seconds {
        Some(d) if fifo => {
            return Err(SqsError::invalid_value(
                "DelaySeconds",
                d,
                "The request include parameter that is not valid for this queue type.",
            ))
        }
        Some(d) => match u64::try_from(d) {
            Ok(d) if d <= 900 => d,
            _ => {
                return Err(SqsError::invalid_value(
                    "DelaySeconds",
                    d,
                    "DelaySeconds must be >= 0 and <= 900.",
                ))
            }
        },
        None => queue.number("DelaySeconds"),
    };
    let md5_of_body = message::md5_hex(o.body.as_bytes());
    let md5_of_attributes = message::attributes_md5(&attributes);
    let md5_of_system_attributes = trace_header.as_ref().and_then(|t| {
        message::attributes_md5(&BTreeMap::from([(
            "AWSTraceHeader".to_owned(),
            Attribute {
                data_type: "String".into(),
                string: Some(t.clone()),
                binary: None,
            },
        )]))
    });
    let sequence = queue.next_sequence;
    let mut dedup = None;
    if fifo {
        let group = o
            .group_id
            .as_deref()
            .ok_or_else(|| SqsError::missing("MessageGroupId"))?;
        let id = match o.dedup_id {
            Some(id) => id,
            None if queue.attributes.get("ContentBasedDeduplication").is_some_and(|v| v == "true") => {
                use sha2::Digest;
                hex::encode(&Sha256::digest(o.body.as_bytes()))
            }
            None => {
                return Err(SqsError::invalid_parameter(
                    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
                ))
            }
        };
        let mut key = queue_prefix(&queue.name);
        if queue
            .attributes
            .get("DeduplicationScope")
            .is_some_and(|s| s == "messageGroup")
        {
            key.extend_from_slice(group.as_bytes());
            key.push(0);
        }
        key.extend_from_slice(id.as_bytes());
        if let Some(earlier) = DEDUP.get(tx, &key)? {
            if earlier.expires_ms > now {
                // A duplicate within the window: accepted, not delivered again.
                return Ok(Sent {
                    message_id: earlier.message_id,
                    md5_of_body,
                    md5_of_attributes,
                    md5_of_system_attributes,
                    sequence_number: Some(message::sequence_number(earlier.sequence)),
                });
            }
        }
        dedup = Some((key, id));
    }
    let stored = StoredMessage {
        id: id::uuid(),
        sequence,
        body: o.body,
        attributes,
        trace_header,
        sent_ms: now,
        sender_id: o.sender_id,
        visible_at_ms: now + delay * 1000,
        receive_count: 0,
        first_receive_ms: None,
        receipt_token: 0,
        group_id: o.group_id,
        dedup_id: dedup.as_ref().map(|(_, id)| id.clone()),
        dead_letter_source: None,
    };
    if let Some((key, _)) = dedup {
        let entry = Dedup {
            message_id: stored.id.clone(),
            sequence,
            expires_ms: now + DEDUP_WINDOW_MS,
        };
        DEDUP.put(tx, key, &entry)?;
    }
    queue.next_sequence += 1;
    MESSAGES.put(tx, message_key(&queue.name, sequence), &stored)?;
    Ok(Sent {
        message_id: stored.id,
        md5_of_body,
        md5_of_attributes,
        md5_of_system_attributes,
        sequence_number: fifo.then(|| message::sequence_number(sequence)),
    })
}

/// AWS's checks of a batch's entry ids: at least one, at most ten, well-formed, distinct.
fn check_batch<'a>(ids: impl ExactSizeIterator<Item = &'a str>, entry: &'static str) -> Result<(), SqsError> {
    match ids.len() {
        0 => return Err(SqsError::EmptyBatchRequest(entry)),
        n if n > 10 => return Err(SqsError::TooManyEntriesInBatchRequest(n)),
        _ => {}
    }
    let mut seen = HashSet::new();
    for id in ids {
        let well_formed =
            (1..=80).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !well_formed {
            return Err(SqsError::InvalidBatchEntryId);
        }
        if !seen.insert(id) {
            return Err(SqsError::BatchEntryIdsNotDistinct(id.to_owned()));
        }
    }
    Ok(())
}

/// A batch entry's failure as AWS reports it.
fn failed(id: String, e: SqsError) -> BatchResultErrorEntry {
    let e = e.into_aws();
    BatchResultErrorEntry {
        id,
        sender_fault: e.http_status < 500,
        code: e.code,
        message: Some(e.message),
    }
}

impl Sqs for SqsService {
    async fn create_queue(
        &self,
        ctx: &RequestContext,
        input: CreateQueueRequest,
    ) -> Result<CreateQueueResult, CreateQueueError> {
        let given = input.attributes.unwrap_or_default();
        let now = self.now_ms();
        let mut record = QueueRecord::new(&input.queue_name, &given, now / 1000)?;
        record.tags = input.tags.unwrap_or_default();
        queue::check_tags(&record.tags)?;
        let queue = QueueRef {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
            name: input.queue_name,
        };
        let target = queue.clone();
        self.write(&queue, move |tx| {
            if let Some(existing) = QUEUES.get(tx, &record.name)? {
                return match existing.first_difference(&given) {
                    Some(attribute) => Err(SqsError::QueueNameExists(attribute.to_owned())),
                    None => Ok(()),
                };
            }
            if let Some(bytes) = tx.get(DELETED, record.name.as_bytes())? {
                let deleted = bytes.try_into().map(u64::from_be_bytes).unwrap_or(0);
                if now < deleted + COOL_DOWN_MS {
                    return Err(SqsError::QueueDeletedRecently);
                }
            }
            check_redrive(tx, &record, &target, &given)?;
            QUEUES.put(tx, record.name.as_bytes(), &record)?;
            Ok(())
        })
        .await?;
        Ok(CreateQueueResult {
            queue_url: Some(queue::url(
                ctx.host.as_deref(),
                &queue.region,
                &queue.account,
                &queue.name,
            )),
        })
    }

    async fn get_queue_url(
        &self,
        ctx: &RequestContext,
        input: GetQueueUrlRequest,
    ) -> Result<GetQueueUrlResult, GetQueueUrlError> {
        let queue = QueueRef {
            account: input
                .queue_owner_aws_account_id
                .unwrap_or_else(|| ctx.account_id.clone()),
            region: ctx.region.clone(),
            name: input.queue_name,
        };
        self.queue(&queue)?;
        Ok(GetQueueUrlResult {
            queue_url: Some(queue::url(
                ctx.host.as_deref(),
                &queue.region,
                &queue.account,
                &queue.name,
            )),
        })
    }

    async fn list_queues(
        &self,
        ctx: &RequestContext,
        input: ListQueuesRequest,
    ) -> Result<ListQueuesResult, ListQueuesError> {
        let limit = page_size(input.max_results)?;
        let after = continuation(QUEUE_LISTING, input.next_token.as_deref())?;
        let queue = QueueRef {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
            name: String::new(),
        };
        let prefix = input.queue_name_prefix.unwrap_or_default();
        let names: Vec<String> = self
            .reader(&queue)?
            .scan(
                QUEUES.name(),
                &KeyRange::prefix(prefix.as_bytes()),
                Direction::Forward,
                None,
            )
            .map_err(SqsError::from)?
            .into_iter()
            .map(|(k, _)| String::from_utf8_lossy(&k).into_owned())
            .filter(|n| after.as_ref().is_none_or(|a| n > a))
            .take(limit + 1)
            .collect();
        let (page, next_token) = paginate(QUEUE_LISTING, names, limit, input.max_results.is_some());
        Ok(ListQueuesResult {
            queue_urls: (!page.is_empty()).then(|| {
                page.iter()
                    .map(|n| queue::url(ctx.host.as_deref(), &queue.region, &queue.account, n))
                    .collect()
            }),
            next_token,
        })
    }

    async fn delete_queue(&self, ctx: &RequestContext, input: DeleteQueueRequest) -> Result<Unit, DeleteQueueError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let name = queue.name.clone();
        let now = self.now_ms();
        self.write(&queue, move |tx| {
            load_queue(tx, &name)?;
            QUEUES.delete(tx, name.as_bytes());
            tx.put(DELETED, name.as_bytes(), now.to_be_bytes().to_vec());
            for table in [MESSAGES.name(), DEDUP.name(), moves::MOVE_TASKS.name()] {
                delete_all(tx, table, &name)?;
            }
            Ok(())
        })
        .await?;
        self.shared.arrivals.remove(&queue.signal_key());
        Ok(Unit {})
    }

    async fn get_queue_attributes(
        &self,
        ctx: &RequestContext,
        input: GetQueueAttributesRequest,
    ) -> Result<GetQueueAttributesResult, GetQueueAttributesError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let record = self.queue(&queue)?;
        let names: Vec<String> = input
            .attribute_names
            .unwrap_or_default()
            .iter()
            .map(|n| n.as_str().to_owned())
            .collect();
        if let Some(bad) = names.iter().find(|n| !QueueAttributeName::VALUES.contains(&n.as_str())) {
            return Err(SqsError::invalid_attribute_name(bad).into());
        }
        let all = names.iter().any(|n| n == "All");
        let wanted = |n: &str| all || names.iter().any(|w| w == n);
        let mut attributes: BTreeMap<String, String> = record
            .attributes
            .iter()
            .filter(|(n, _)| wanted(n))
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect();
        if queue::COMPUTED.iter().any(|n| wanted(n)) {
            let now = self.now_ms();
            let mut counts = [0u64; 3];
            let messages = MESSAGES
                .scan_prefix(&self.reader(&queue)?, queue_prefix(&queue.name))
                .map_err(SqsError::from)?;
            for (_, m) in messages {
                counts[m.state(now) as usize] += 1;
            }
            let computed = [
                (
                    "ApproximateNumberOfMessages",
                    counts[State::Visible as usize].to_string(),
                ),
                (
                    "ApproximateNumberOfMessagesNotVisible",
                    counts[State::InFlight as usize].to_string(),
                ),
                (
                    "ApproximateNumberOfMessagesDelayed",
                    counts[State::Delayed as usize].to_string(),
                ),
                ("CreatedTimestamp", record.created.to_string()),
                ("LastModifiedTimestamp", record.modified.to_string()),
                ("QueueArn", queue.arn()),
            ];
            for (name, value) in computed {
                if wanted(name) {
                    attributes.insert(name.to_owned(), value);
                }
            }
        }
        Ok(GetQueueAttributesResult {
            attributes: (!attributes.is_empty()).then_some(attributes),
        })
    }

    async fn set_queue_attributes(
        &self,
        ctx: &RequestContext,
        input: SetQueueAttributesRequest,
    ) -> Result<Unit, SetQueueAttributesError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let name = queue.name.clone();
        let target = queue.clone();
        let now = self.now_ms();
        self.write(&queue, move |tx| {
            let mut record = load_queue(tx, &name)?;
            record.set(&input.attributes, now / 1000)?;
            check_redrive(tx, &record, &target, &input.attributes)?;
            QUEUES.put(tx, name.as_bytes(), &record)?;
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn purge_queue(&self, ctx: &RequestContext, input: PurgeQueueRequest) -> Result<Unit, PurgeQueueError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let name = queue.name.clone();
        let now = self.now_ms();
        self.write(&queue, move |tx| {
            let mut record = load_queue(tx, &name)?;
            // AWS allows one purge a minute: the time a purge may take to finish.
            if record.purged_ms.is_some_and(|t| now < t + COOL_DOWN_MS) {
                return Err(SqsError::PurgeQueueInProgress(name));
            }
            record.purged_ms = Some(now);
            QUEUES.put(tx, name.as_bytes(), &record)?;
            delete_all(tx, MESSAGES.name(), &name)
        })
        .await?;
        Ok(Unit {})
    }

    async fn send_message(
        &self,
        ctx: &RequestContext,
        input: SendMessageRequest,
    ) -> Result<SendMessageResult, SendMessageError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let outgoing = Outgoing {
            body: input.message_body,
            delay_seconds: input.delay_seconds,
            attributes: input.message_attributes,
            system_attributes: input.message_system_attributes,
            dedup_id: input.message_deduplication_id,
            group_id: input.message_group_id,
            sender_id: ctx.account_id.clone(),
        };
        let sent = self
            .send(&queue, vec![outgoing])
            .await?
            .pop()
            .ok_or_else(|| AwsError::internal("a send of one message reported none"))??;
        Ok(SendMessageResult {
            md5_of_message_body: Some(sent.md5_of_body),
            md5_of_message_attributes: sent.md5_of_attributes,
            md5_of_message_system_attributes: sent.md5_of_system_attributes,
            message_id: Some(sent.message_id),
            sequence_number: sent.sequence_number,
        })
    }

    async fn send_message_batch(
        &self,
        ctx: &RequestContext,
        input: SendMessageBatchRequest,
    ) -> Result<SendMessageBatchResult, SendMessageBatchError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        check_batch(
            input.entries.iter().map(|e| e.id.as_str()),
            "SendMessageBatchRequestEntry",
        )?;
        let total: usize = input
            .entries
            .iter()
            .map(|e| {
                let attributes = message::attributes(e.message_attributes.clone()).unwrap_or_default();
                message::size(&e.message_body, &attributes)
            })
            .sum();
        if total > MAX_BATCH_BYTES {
            return Err(SqsError::BatchRequestTooLong(total).into());
        }
        let (ids, outgoing): (Vec<String>, Vec<Outgoing>) = input
            .entries
            .into_iter()
            .map(|e| {
                let o = Outgoing {
                    body: e.message_body,
                    delay_seconds: e.delay_seconds,
                    attributes: e.message_attributes,
                    system_attributes: e.message_system_attributes,
                    dedup_id: e.message_deduplication_id,
                    group_id: e.message_group_id,
                    sender_id: ctx.account_id.clone(),
                };
                (e.id, o)
            })
            .unzip();
        let mut result = SendMessageBatchResult::default();
        for (id, sent) in ids.into_iter().zip(self.send(&queue, outgoing).await?) {
            match sent {
                Ok(s) => result.successful.push(SendMessageBatchResultEntry {
                    id,
                    message_id: s.message_id,
                    md5_of_message_body: s.md5_of_body,
                    md5_of_message_attributes: s.md5_of_attributes,
                    md5_of_message_system_attributes: s.md5_of_system_attributes,
                    sequence_number: s.sequence_number,
                }),
                Err(e) => result.failed.push(failed(id, e)),
            }
        }
        Ok(result)
    }

    async fn receive_message(
        &self,
        ctx: &RequestContext,
        input: ReceiveMessageRequest,
    ) -> Result<ReceiveMessageResult, ReceiveMessageError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let max = match input.max_number_of_messages.unwrap_or(1) {
            n @ 1..=10 => n as usize,
            n => {
                return Err(
                    SqsError::invalid_value("MaxNumberOfMessages", n, "Must be between 1 and 10, if provided.").into(),
                )
            }
        };
        let visibility = input.visibility_timeout.map(visibility_timeout).transpose()?;
        let requested_wait = match input.wait_time_seconds {
            None => None,
            Some(n @ 0..=20) => Some(n as u64),
            Some(n) => {
                return Err(
                    SqsError::invalid_value("WaitTimeSeconds", n, "Must be >= 0 and <= 20, if provided.").into(),
                )
            }
        };
        let system: BTreeSet<String> = input
            .attribute_names
            .iter()
            .flatten()
            .map(|n| n.as_str().to_owned())
            .chain(
                input
                    .message_system_attribute_names
                    .iter()
                    .flatten()
                    .map(|n| n.as_str().to_owned()),
            )
            .collect();
        let wanted = input.message_attribute_names.unwrap_or_default();
        let clock = self.shared.scheduler.clock();
        let start = clock.moment();
        let arrivals = self.shared.arrivals.of(&queue.signal_key());
        loop {
            let notified = arrivals.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let Taken {
                delivered,
                next_visible,
                queue_wait,
                ..
            } = self.take(&queue, max, visibility).await?;
            let deadline = start.after(Duration::from_secs(requested_wait.unwrap_or(queue_wait)));
            if !delivered.is_empty() || clock.moment() >= deadline {
                let messages: Vec<Message> = delivered.iter().map(|m| m.to_message(&system, &wanted)).collect();
                return Ok(ReceiveMessageResult {
                    messages: (!messages.is_empty()).then_some(messages),
                });
            }
            let wake = next_visible
                .map(|at| clock.moment_after(Duration::from_millis(at.saturating_sub(self.now_ms()))))
                .map_or(deadline, |t| t.min(deadline));
            let alarm = self.shared.scheduler.sleep_until(wake);
            tokio::select! {
                _ = &mut notified => {}
                _ = alarm => {}
            }
        }
    }

    async fn delete_message(
        &self,
        ctx: &RequestContext,
        input: DeleteMessageRequest,
    ) -> Result<Unit, DeleteMessageError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        self.delete_messages(&queue, vec![input.receipt_handle])
            .await?
            .into_iter()
            .collect::<Result<Vec<()>, SqsError>>()?;
        Ok(Unit {})
    }

    async fn delete_message_batch(
        &self,
        ctx: &RequestContext,
        input: DeleteMessageBatchRequest,
    ) -> Result<DeleteMessageBatchResult, DeleteMessageBatchError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        check_batch(
            input.entries.iter().map(|e| e.id.as_str()),
            "DeleteMessageBatchRequestEntry",
        )?;
        let (ids, handles): (Vec<String>, Vec<String>) =
            input.entries.into_iter().map(|e| (e.id, e.receipt_handle)).unzip();
        let mut result = DeleteMessageBatchResult::default();
        for (id, outcome) in ids.into_iter().zip(self.delete_messages(&queue, handles).await?) {
            match outcome {
                Ok(()) => result.successful.push(DeleteMessageBatchResultEntry { id }),
                Err(e) => result.failed.push(failed(id, e)),
            }
        }
        Ok(result)
    }

    async fn change_message_visibility(
        &self,
        ctx: &RequestContext,
        input: ChangeMessageVisibilityRequest,
    ) -> Result<Unit, ChangeMessageVisibilityError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        visibility_timeout(input.visibility_timeout)?;
        self.change_visibility(&queue, vec![(input.receipt_handle, input.visibility_timeout)])
            .await?
            .into_iter()
            .collect::<Result<Vec<()>, SqsError>>()?;
        Ok(Unit {})
    }

    async fn change_message_visibility_batch(
        &self,
        ctx: &RequestContext,
        input: ChangeMessageVisibilityBatchRequest,
    ) -> Result<ChangeMessageVisibilityBatchResult, ChangeMessageVisibilityBatchError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        check_batch(
            input.entries.iter().map(|e| e.id.as_str()),
            "ChangeMessageVisibilityBatchRequestEntry",
        )?;
        let (ids, changes): (Vec<String>, Vec<(String, i32)>) = input
            .entries
            .into_iter()
            .map(|e| (e.id, (e.receipt_handle, e.visibility_timeout.unwrap_or(0))))
            .unzip();
        let mut result = ChangeMessageVisibilityBatchResult::default();
        for (id, outcome) in ids.into_iter().zip(self.change_visibility(&queue, changes).await?) {
            match outcome {
                Ok(()) => result.successful.push(ChangeMessageVisibilityBatchResultEntry { id }),
                Err(e) => result.failed.push(failed(id, e)),
            }
        }
        Ok(result)
    }
    async fn tag_queue(&self, ctx: &RequestContext, input: TagQueueRequest) -> Result<Unit, TagQueueError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        self.update_queue(&queue, move |record| {
            let mut tags = record.tags.clone();
            tags.extend(input.tags);
            queue::check_tags(&tags)?;
            record.tags = tags;
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn untag_queue(&self, ctx: &RequestContext, input: UntagQueueRequest) -> Result<Unit, UntagQueueError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        self.update_queue(&queue, move |record| {
            for key in &input.tag_keys {
                record.tags.remove(key);
            }
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn list_queue_tags(
        &self,
        ctx: &RequestContext,
        input: ListQueueTagsRequest,
    ) -> Result<ListQueueTagsResult, ListQueueTagsError> {
        let record = self.queue(&QueueRef::from_url(ctx, &input.queue_url)?)?;
        Ok(ListQueueTagsResult {
            tags: (!record.tags.is_empty()).then_some(record.tags),
        })
    }

    async fn add_permission(
        &self,
        ctx: &RequestContext,
        input: AddPermissionRequest,
    ) -> Result<Unit, AddPermissionError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let arn = queue.arn();
        self.update_queue(&queue, move |record| {
            let policy = permissions::add(
                record.attributes.get("Policy").map(String::as_str),
                &arn,
                &input.label,
                &input.aws_account_ids,
                &input.actions,
            )?;
            record.attributes.insert("Policy".into(), policy);
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn remove_permission(
        &self,
        ctx: &RequestContext,
        input: RemovePermissionRequest,
    ) -> Result<Unit, RemovePermissionError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        let arn = queue.arn();
        self.update_queue(&queue, move |record| {
            match permissions::remove(record.attributes.get("Policy").map(String::as_str), &arn, &input.label)? {
                Some(policy) => record.attributes.insert("Policy".into(), policy),
                None => record.attributes.remove("Policy"),
            };
            Ok(())
        })
        .await?;
        Ok(Unit {})
    }

    async fn list_dead_letter_source_queues(
        &self,
        ctx: &RequestContext,
        input: ListDeadLetterSourceQueuesRequest,
    ) -> Result<ListDeadLetterSourceQueuesResult, ListDeadLetterSourceQueuesError> {
        let queue = QueueRef::from_url(ctx, &input.queue_url)?;
        self.queue(&queue)?;
        let limit = page_size(input.max_results)?;
        let after = continuation(DEAD_LETTER_SOURCES, input.next_token.as_deref())?;
        let names: Vec<String> = dead_letter_sources(&self.reader(&queue)?, &queue.arn())?
            .into_iter()
            .filter(|n| after.as_ref().is_none_or(|a| n > a))
            .collect();
        let (page, next_token) = paginate(DEAD_LETTER_SOURCES, names, limit, input.max_results.is_some());
        Ok(ListDeadLetterSourceQueuesResult {
            queue_urls: page
                .iter()
                .map(|n| queue::url(ctx.host.as_deref(), &queue.region, &queue.account, n))
                .collect(),
            next_token,
        })
    }

    async fn start_message_move_task(
        &self,
        _ctx: &RequestContext,
        input: StartMessageMoveTaskRequest,
    ) -> Result<StartMessageMoveTaskResult, StartMessageMoveTaskError> {
        let source = QueueRef::from_arn(&input.source_arn).ok_or_else(|| not_found("SourceArn"))?;
        if let Some(rate) = input.max_number_of_messages_per_second {
            if !moves::RATE_RANGE.contains(&rate) {
                return Err(SqsError::invalid_parameter(
                    "Value for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: You must enter a number that's between 1 and 500.",
                )
                .into());
            }
        }
        let destination = match &input.destination_arn {
            Some(arn) => Some(
                QueueRef::from_arn(arn)
                    .filter(|d| d.account == source.account && d.region == source.region)
                    .ok_or_else(|| not_found("DestinationArn"))?,
            ),
            None => None,
        };
        let src = source.clone();
        let now = self.now_ms();
        let task = self
            .write(&source, move |tx| {
                load_queue(tx, &src.name).map_err(|_| not_found("SourceArn"))?;
                if dead_letter_sources(tx, &src.arn())?.is_empty() {
                    return Err(SqsError::invalid_parameter(
                        "Source queue must be configured as a Dead Letter Queue.",
                    ));
                }
                if let Some(d) = &destination {
                    load_queue(tx, &d.name).map_err(|_| not_found("DestinationArn"))?;
                }
                let existing = moves::tasks(tx, &src.name, Direction::Forward, None)?;
                if existing.iter().any(|t| t.status == moves::Status::Running) {
                    return Err(SqsError::invalid_parameter(
                        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
                    ));
                }
                let task = moves::MoveTask {
                    id: id::uuid(),
                    source_arn: input.source_arn,
                    destination_arn: input.destination_arn,
                    rate: input.max_number_of_messages_per_second,
                    status: moves::Status::Running,
                    moved: 0,
                    to_move: moves::visible_count(tx, &src.name, now)?,
                    failure_reason: None,
                    started_ms: now,
                };
                moves::MOVE_TASKS.put(tx, task.key(&src.name), &task)?;
                Ok(task)
            })
            .await?;
        run_move(&self.shared, &source, &task);
        Ok(StartMessageMoveTaskResult {
            task_handle: Some(task.handle()),
        })
    }

    async fn cancel_message_move_task(
        &self,
        _ctx: &RequestContext,
        input: CancelMessageMoveTaskRequest,
    ) -> Result<CancelMessageMoveTaskResult, CancelMessageMoveTaskError> {
        let (task_id, source_arn) = moves::parse_handle(&input.task_handle)
            .ok_or_else(|| SqsError::invalid_parameter("Value for parameter TaskHandle is invalid."))?;
        let source = QueueRef::from_arn(&source_arn).ok_or_else(|| not_found("SourceArn"))?;
        let name = source.name.clone();
        let moved = self
            .write(&source, move |tx| {
                load_queue(tx, &name).map_err(|_| not_found("SourceArn"))?;
                let tasks = moves::tasks(tx, &name, Direction::Forward, None)?;
                let mut task = tasks
                    .into_iter()
                    .find(|t| t.id == task_id)
                    .ok_or_else(|| SqsError::ResourceNotFoundException("Task does not exist.".into()))?;
                if task.status != moves::Status::Running {
                    return Err(SqsError::invalid_parameter("Only a running task can be cancelled."));
                }
                task.status = moves::Status::Cancelled;
                moves::MOVE_TASKS.put(tx, task.key(&name), &task)?;
                Ok(task.moved)
            })
            .await?;
        Ok(CancelMessageMoveTaskResult {
            approximate_number_of_messages_moved: moved,
        })
    }

    async fn list_message_move_tasks(
        &self,
        _ctx: &RequestContext,
        input: ListMessageMoveTasksRequest,
    ) -> Result<ListMessageMoveTasksResult, ListMessageMoveTasksError> {
        let source = QueueRef::from_arn(&input.source_arn).ok_or_else(|| not_found("SourceArn"))?;
        let limit = MAX_MOVE_TASKS.check(input.max_results).map_err(|e| {
            SqsError::invalid_value(
                "MaxResults",
                e.asked,
                "You must enter a number that's between 1 and 10.",
            )
        })?;
        let store = self.reader(&source)?;
        if store
            .get(QUEUES.name(), source.name.as_bytes())
            .map_err(SqsError::from)?
            .is_none()
        {
            return Err(not_found("SourceArn").into());
        }
        let tasks = moves::tasks(&store, &source.name, Direction::Backward, Some(limit))?;
        for task in tasks.iter().filter(|t| t.status == moves::Status::Running) {
            run_move(&self.shared, &source, task);
        }
        Ok(ListMessageMoveTasksResult {
            results: Some(tasks.iter().map(moves::MoveTask::to_entry).collect()),
        })
    }
}

/// Runs message move `task` of queue `source` to its end, unless a runner already does.
fn run_move(shared: &Arc<Shared>, source: &QueueRef, task: &moves::MoveTask) {
    {
        let mut running = shared.running_moves.lock().unwrap_or_else(|e| e.into_inner());
        if !running.insert(task.id.clone()) {
            return;
        }
    }
    let shared = shared.clone();
    let source = source.clone();
    let key = task.key(&source.name);
    let id = task.id.clone();
    tokio::spawn(async move {
        loop {
            let (name, k, now) = (source.name.clone(), key.clone(), shared.now_ms());
            let stepped = shared
                .write(source.namespace(), move |tx| moves::step(tx, &name, &k, now))
                .await;
            // On a failed step the task stays running, and is resumed when next listed.
            let Ok((task, destinations)) = stepped else { break };
            for d in destinations {
                shared.arrivals.signal(&source.sibling(&d).signal_key());
            }
            if task.status != moves::Status::Running {
                break;
            }
            if task.rate.is_some() {
                let scheduler = &shared.scheduler;
                scheduler
                    .sleep_until(scheduler.clock().moment_after(Duration::from_secs(1)))
                    .await;
            }
        }
        shared
            .running_moves
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    });
}

fn not_found(parameter: &str) -> SqsError {
    SqsError::ResourceNotFoundException(format!(
        "The resource that you specified for the {parameter} parameter doesn't exist."
    ))
}

/// The names of the queues whose RedrivePolicy targets `dlq_arn`, in name order.
fn dead_letter_sources(r: &(impl Read + ?Sized), dlq_arn: &str) -> Result<Vec<String>, SqsError> {
    let mut names = Vec::new();
    for (_, record) in QUEUES.scan(r, &KeyRange::all(), Direction::Forward, None)? {
        if record
            .redrive_policy()
            .is_some_and(|p| p.dead_letter_target_arn == dlq_arn)
        {
            names.push(record.name);
        }
    }
    Ok(names)
}

/// ListQueues' and ListDeadLetterSourceQueues' `MaxResults`.
const MAX_RESULTS: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 1000,
};

/// ListMessageMoveTasks' `MaxResults`.
const MAX_MOVE_TASKS: PageSize = PageSize {
    min: 1,
    max: 10,
    default: 1,
};

const QUEUE_LISTING: Token = Token::for_listing("sqs:ListQueues");
const DEAD_LETTER_SOURCES: Token = Token::for_listing("sqs:ListDeadLetterSourceQueues");

/// A listing's page size: AWS's MaxResults, 1 to 1000 (1000 when not given).
fn page_size(max_results: Option<i32>) -> Result<usize, SqsError> {
    MAX_RESULTS.check(max_results).map_err(|e| {
        SqsError::invalid_value(
            "MaxResults",
            e.asked,
            "MaxResults must be an integer between 1 and 1000.",
        )
    })
}

/// The name a listing continues after, from its NextToken.
fn continuation(listing: Token, token: Option<&str>) -> Result<Option<String>, SqsError> {
    match token {
        None | Some("") => Ok(None),
        Some(token) => listing
            .decode_str(token)
            .map(Some)
            .map_err(|_| SqsError::invalid_parameter("Invalid NextToken value.")),
    }
}

/// The first `limit` of `names` and, when paging was asked for and more remain, the token
/// that continues after them.
fn paginate(listing: Token, names: Vec<String>, limit: usize, paging: bool) -> (Vec<String>, Option<String>) {
    let (names, more) = take_page(names, limit);
    let token = (paging && more)
        .then(|| names.last().map(|n| listing.encode_str(n)))
        .flatten();
    (names, token)
}

/// Other services' deliveries into queues (S3 event notifications): a plain send, as its
/// sender, with the queue's own delay and deduplication rules.
impl MessageSink for SqsService {
    fn exists<'a>(&'a self, queue_arn: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            match QueueRef::from_arn(queue_arn) {
                Some(queue) => self.queue_exists(&queue),
                None => false,
            }
        })
    }

    fn send<'a>(&'a self, queue_arn: &'a str, sender: &'a str, body: String) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let queue = QueueRef::from_arn(queue_arn)
                .ok_or(SqsError::QueueDoesNotExist)
                .map_err(SqsError::into_aws)?;
            let outgoing = Outgoing {
                body,
                delay_seconds: None,
                attributes: None,
                system_attributes: None,
                dedup_id: None,
                group_id: None,
                sender_id: sender.to_owned(),
            };
            for sent in self.send(&queue, vec![outgoing]).await.map_err(SqsError::into_aws)? {
                sent.map_err(SqsError::into_aws)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_continue_after_their_own_tokens_only() {
        let token = QUEUE_LISTING.encode_str("jobs-1.fifo");
        assert_eq!(
            continuation(QUEUE_LISTING, Some(&token)).unwrap().as_deref(),
            Some("jobs-1.fifo")
        );
        assert!(continuation(DEAD_LETTER_SOURCES, Some(&token)).is_err());
        assert!(continuation(QUEUE_LISTING, Some("zz")).is_err());
        assert_eq!(continuation(QUEUE_LISTING, Some("")).unwrap(), None);
    }

    #[test]
    fn batch_checks() {
        assert!(matches!(
            check_batch([].into_iter(), "E"),
            Err(SqsError::EmptyBatchRequest("E"))
        ));
        assert!(matches!(
            check_batch(["a"; 11].into_iter(), "E"),
            Err(SqsError::TooManyEntriesInBatchRequest(11))
        ));
        assert!(matches!(
            check_batch(["a", "a"].into_iter(), "E"),
            Err(SqsError::BatchEntryIdsNotDistinct(_))
        ));
        assert!(matches!(
            check_batch(["a b"].into_iter(), "E"),
            Err(SqsError::InvalidBatchEntryId)
        ));
        assert!(check_batch(["a", "b-1_"].into_iter(), "E").is_ok());
    }
}
