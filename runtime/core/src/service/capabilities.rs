//! What one service asks of another, as small traits the binary wires: no service crate
//! depends on another's.
//!
//! A provider is the service that implements a trait; a caller holds it as an
//! `Option<Arc<dyn …>>` from its [`Providers`](super::Providers). A provider that is not built,
//! or not served (`--services`), is absent, and the caller answers as AWS does when the target
//! does not exist — each trait's doc says how. Calls are in-process function calls made for
//! a [`Caller`], never HTTP requests to ourselves.
//!
//! Today SQS provides [`MessageSink`] and S3 calls it, and [`QueueSource`], which Lambda's
//! event source mappings read, as they read Kinesis's [`StreamSource`]; the other traits have no provider yet
//! and are wired so that the services coming next plug in without touching their callers.

use std::collections::BTreeMap;

use super::BoxFuture;
use crate::clock::Moment;
use crate::context::{Principal, RequestContext};
use crate::error::AwsError;
use crate::value::DateTime;

/// Who a cross-service call is made for: the account and region it acts in and the principal
/// acting (an IAM ARN, or a service principal such as `s3.amazonaws.com` for a service's own
/// deliveries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller<'a> {
    /// The 12-digit account the call acts in: the target's resources are looked up there.
    pub account_id: &'a str,
    /// The region the call acts in, e.g. `us-east-1`.
    pub region: &'a str,
    /// The principal acting, which the target's resource policies are checked against.
    pub principal: &'a str,
}

impl<'a> Caller<'a> {
    /// A service acting for itself in `account_id` and `region` (its own deliveries), as the
    /// service principal `principal`, e.g. `s3.amazonaws.com`.
    pub fn service(principal: &'a str, account_id: &'a str, region: &'a str) -> Caller<'a> {
        Caller {
            account_id,
            region,
            principal,
        }
    }
}

/// Where one service delivers messages into another's queues. Provided by SQS; called by S3
/// for event notifications (and by SNS subscriptions, EventBridge targets and Lambda
/// destinations to come). Absent: S3 refuses a notification configuration naming a queue
/// with "Unable to validate the following destination configurations", as AWS does for a
/// queue that does not exist.
pub trait MessageSink: Send + Sync {
    /// Whether the queue `queue_arn` exists.
    fn exists<'a>(&'a self, caller: Caller<'a>, queue_arn: &'a str) -> BoxFuture<'a, bool>;

    /// Sends `body` to the queue `queue_arn` for `caller`, whose principal is the message's
    /// `SenderId`. A missing queue is SQS's `QueueDoesNotExist`.
    fn send<'a>(&'a self, caller: Caller<'a>, queue_arn: &'a str, body: String) -> BoxFuture<'a, Result<(), AwsError>>;

    /// Sends a message with its attributes and FIFO ids to the queue `queue_arn` for
    /// `caller` (SNS's deliveries): the queue's own rules apply — a FIFO queue refuses a
    /// message without a group id, and deduplicates by `dedup_id` or, with content-based
    /// deduplication, by the body. A missing queue is SQS's `QueueDoesNotExist`. The default,
    /// for a sink that takes bodies alone, sends the body and drops the rest.
    fn send_message<'a>(
        &'a self,
        caller: Caller<'a>,
        queue_arn: &'a str,
        message: QueueMessage,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        self.send(caller, queue_arn, message.body)
    }
}

/// A message for a queue, as another service delivers it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueMessage {
    /// The message body.
    pub body: String,
    /// Message attributes by name, which the queue's receivers read beside the body.
    pub attributes: BTreeMap<String, MessageAttribute>,
    /// `MessageGroupId`, which a FIFO queue requires.
    pub group_id: Option<String>,
    /// `MessageDeduplicationId`, for a FIFO queue.
    pub dedup_id: Option<String>,
    /// The X-Ray trace the message carries (`AWSTraceHeader`), from the request that caused it.
    pub trace_header: Option<String>,
}

impl QueueMessage {
    /// A message of `body` alone.
    pub fn plain(body: String) -> QueueMessage {
        QueueMessage {
            body,
            ..QueueMessage::default()
        }
    }
}

/// A queue as a consumer sees it before reading from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFacts {
    /// Whether it is a FIFO queue (its messages come in group order).
    pub fifo: bool,
    /// Its `VisibilityTimeout`, in seconds: how long a received message stays hidden.
    pub visibility_timeout_secs: u64,
}

/// One message received from a queue, with what a consumer reads beside its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    /// `MessageId`.
    pub message_id: String,
    /// This receive's handle, to delete the message with.
    pub receipt_handle: String,
    /// The body.
    pub body: String,
    /// `MD5OfBody`, hex.
    pub md5_of_body: String,
    /// The system attributes (`SenderId`, `SentTimestamp`, `ApproximateReceiveCount`,
    /// `ApproximateFirstReceiveTimestamp`, and for FIFO queues `MessageGroupId`,
    /// `MessageDeduplicationId`, `SequenceNumber`; `AWSTraceHeader` when sent).
    pub attributes: BTreeMap<String, String>,
    /// The message attributes, all of them.
    pub message_attributes: BTreeMap<String, MessageAttribute>,
    /// `MD5OfMessageAttributes`, hex; `None` without attributes.
    pub md5_of_message_attributes: Option<String>,
}

/// Where a consumer reads a queue from inside Stratus, as Lambda's event source mappings
/// poll SQS. Provided by SQS. Absent: every queue is missing, and Lambda refuses a mapping
/// naming one as AWS does for a queue that does not exist.
pub trait QueueSource: Send + Sync {
    /// The queue `queue_arn`, or SQS's `QueueDoesNotExist`.
    fn facts<'a>(&'a self, caller: Caller<'a>, queue_arn: &'a str) -> BoxFuture<'a, Result<QueueFacts, AwsError>>;

    /// Receives up to `max` messages with the queue's visibility timeout, as `ReceiveMessage`
    /// does (receive counts rise, the redrive policy moves messages received too often).
    /// With `until`, waits like a long poll until a message is there or that moment; without
    /// it, waits as long as it takes — woken by a send or a visibility change on the queue,
    /// or by the moment its next delayed or in-flight message becomes visible, never by a
    /// periodic timer. A deleted queue answers `QueueDoesNotExist`.
    fn receive<'a>(
        &'a self,
        caller: Caller<'a>,
        queue_arn: &'a str,
        max: usize,
        until: Option<Moment>,
    ) -> BoxFuture<'a, Result<Vec<ReceivedMessage>, AwsError>>;

    /// Deletes the messages these receipt handles name (a stale handle is ignored, as
    /// `DeleteMessageBatch` does).
    fn delete<'a>(
        &'a self,
        caller: Caller<'a>,
        queue_arn: &'a str,
        receipt_handles: Vec<String>,
    ) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// Where a consumer starts reading a shard it has no checkpoint in, as Lambda's
/// `StartingPosition` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamStart {
    /// The oldest record the shard still holds.
    TrimHorizon,
    /// Just after the newest record: only records put from now on.
    Latest,
    /// The first record that arrived at or after this time, in milliseconds since the epoch.
    AtTimestamp(i64),
}

/// One record read from a shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardRecord {
    /// Its sequence number.
    pub sequence_number: String,
    /// The position just after it: where a consumer that is done with it reads on from.
    pub next: String,
    /// When it arrived, in milliseconds since the epoch.
    pub arrival_ms: i64,
    /// Its partition key.
    pub partition_key: String,
    /// Its data.
    pub data: Vec<u8>,
}

/// What a read of a shard found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardRead {
    /// The records from the position read, oldest first.
    pub records: Vec<ShardRecord>,
    /// Whether the shard is closed and read to its end: nothing more will come.
    pub ended: bool,
}

/// Streams a consumer inside Stratus reads shard by shard, as Lambda's event source mappings
/// read Kinesis. Provided by Kinesis. A position is the provider's own text, from
/// [`start`](StreamSource::start) or a record's `next`, which a consumer stores as its
/// checkpoint. Absent: every stream is missing, and Lambda refuses a mapping naming one.
pub trait StreamSource: Send + Sync {
    /// The service part of the ARNs of the streams it serves, e.g. `kinesis`.
    fn arn_service(&self) -> &'static str;

    /// The ids of the stream's shards, open and closed, parents before their children; a
    /// missing stream is the provider's `ResourceNotFoundException`.
    fn shards<'a>(&'a self, caller: Caller<'a>, stream_arn: &'a str) -> BoxFuture<'a, Result<Vec<String>, AwsError>>;

    /// The position `start` names in shard `shard_id`.
    fn start<'a>(
        &'a self,
        caller: Caller<'a>,
        stream_arn: &'a str,
        shard_id: &'a str,
        start: StreamStart,
    ) -> BoxFuture<'a, Result<String, AwsError>>;

    /// Up to `max` records of shard `shard_id` from `position`, skipping those past the
    /// stream's retention.
    fn read<'a>(
        &'a self,
        caller: Caller<'a>,
        stream_arn: &'a str,
        shard_id: &'a str,
        position: &'a str,
        max: usize,
    ) -> BoxFuture<'a, Result<ShardRead, AwsError>>;

    /// How many puts to the stream have committed since the process began: a count to wait
    /// for a change from with [`appended`](StreamSource::appended).
    fn appends(&self, caller: Caller<'_>, stream_arn: &str) -> u64;

    /// Waits until a put to the stream commits after the count was `seen` (at once when one
    /// has), woken by the put: never a periodic timer.
    fn appended<'a>(&'a self, caller: Caller<'a>, stream_arn: &'a str, seen: u64) -> BoxFuture<'a, ()>;
}

/// Writes records into streams for other services. Provided by Kinesis; called by DynamoDB's
/// Kinesis streaming destinations (Logs' subscription filters and EventBridge's targets to
/// come). Absent: every stream is missing.
pub trait StreamWriter: Send + Sync {
    /// Whether the stream `stream_arn` exists.
    fn exists<'a>(&'a self, caller: Caller<'a>, stream_arn: &'a str) -> BoxFuture<'a, bool>;

    /// Puts one record into the stream `stream_arn`, as PutRecord does; a missing stream is
    /// the provider's `ResourceNotFoundException`.
    fn put_record<'a>(
        &'a self,
        caller: Caller<'a>,
        stream_arn: &'a str,
        partition_key: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// How a function is invoked, as Lambda's `InvocationType` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvocationType {
    /// Run the function and answer with its result.
    RequestResponse,
    /// Queue the payload for an asynchronous run (with Lambda's retries) and answer `202`.
    Event,
    /// Only check that the function exists and that its policy lets the calling service
    /// invoke it (for `source_arn`, in the caller's account); answer `204`.
    DryRun,
}

/// One invocation of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The function's name, ARN or partial ARN, as Lambda's `FunctionName` takes them.
    pub function: String,
    /// A version or alias; `$LATEST` when absent.
    pub qualifier: Option<String>,
    /// Whether to run the function, queue the payload, or only check it may run.
    pub invocation_type: InvocationType,
    /// The event handed to the function (Lambda's `Payload`), usually JSON.
    pub payload: Vec<u8>,
    /// The resource the caller invokes for (a bucket, a log group, a secret), which a
    /// function policy's `AWS:SourceArn` conditions are checked against on a dry run.
    pub source_arn: Option<String>,
}

/// What an invocation answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvocationResult {
    /// `200` for a run, `202` for a queued event, `204` for a dry run.
    pub status: u16,
    /// The function's answer, or its error document when `function_error` is set; empty for
    /// an event or a dry run.
    pub payload: Vec<u8>,
    /// `Handled` or `Unhandled` when the function failed (its payload then says how).
    pub function_error: Option<String>,
    /// The version that ran (`$LATEST` or a number), as Lambda's `X-Amz-Executed-Version`
    /// header says; `None` when nothing ran.
    pub executed_version: Option<String>,
}

/// Invokes functions. Provided by Lambda; called by S3 notifications, SNS subscriptions,
/// EventBridge targets, SQS and DynamoDB Streams event source mappings, API Gateway
/// integrations. Absent: every function is missing — S3 refuses a notification configuration
/// naming one ("Unable to validate the following destination configurations"), and a target's
/// delivery fails as it does on AWS for a deleted function.
pub trait FunctionInvoker: Send + Sync {
    /// Invokes a function; a missing function is Lambda's `ResourceNotFoundException`.
    fn invoke<'a>(
        &'a self,
        caller: Caller<'a>,
        invocation: Invocation,
    ) -> BoxFuture<'a, Result<InvocationResult, AwsError>>;
}

/// A message attribute's value, as SNS and SQS carry it beside its `DataType`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageAttributeValue {
    /// `String` and `Number` (and their custom subtypes), as text.
    String(String),
    /// `Binary` values, as raw bytes.
    Binary(Vec<u8>),
}

/// A message attribute: its `DataType` (`String`, `Number`, `Binary`, with an optional
/// `.custom` suffix) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageAttribute {
    /// The `DataType`, which says how subscribers read `value`.
    pub data_type: String,
    /// The value: text for `String` and `Number`, bytes for `Binary`.
    pub value: MessageAttributeValue,
}

/// One message published to a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    /// The ARN of the topic to publish to.
    pub topic_arn: String,
    /// `Subject`: the title of email deliveries and a field of JSON ones; `None` leaves it out.
    pub subject: Option<String>,
    /// `Message`: the body subscribers receive.
    pub message: String,
    /// `MessageAttributes` by name, handed on to the subscriptions that carry them.
    pub attributes: BTreeMap<String, MessageAttribute>,
    /// `MessageGroupId`, required by FIFO topics.
    pub group_id: Option<String>,
    /// `MessageDeduplicationId`, for FIFO topics without content-based deduplication.
    pub dedup_id: Option<String>,
}

/// Publishes to topics. Provided by SNS; called by S3 notifications, CloudWatch alarm actions,
/// EventBridge targets and Lambda destinations. Absent: every topic is missing — S3 refuses a
/// notification configuration naming one ("Unable to validate the following destination
/// configurations"), and an alarm's action fails as it does on AWS for a deleted topic.
pub trait TopicPublisher: Send + Sync {
    /// Whether the topic `topic_arn` exists.
    fn exists<'a>(&'a self, caller: Caller<'a>, topic_arn: &'a str) -> BoxFuture<'a, bool>;

    /// Publishes `publication` and answers its message id; a missing topic is SNS's `NotFound`.
    fn publish<'a>(&'a self, caller: Caller<'a>, publication: Publication) -> BoxFuture<'a, Result<String, AwsError>>;
}

/// One event put on a bus, as an entry of EventBridge's `PutEvents`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The bus's name or ARN; `default` is the account's default bus.
    pub bus: String,
    /// `Source`: who reports the event, e.g. `aws.s3` for S3's own; rules match on it.
    pub source: String,
    /// `DetailType`: what kind of event it is, e.g. `Object Created`; rules match on it.
    pub detail_type: String,
    /// The event's `detail`, a JSON object as text.
    pub detail: String,
    /// ARNs of the resources the event concerns.
    pub resources: Vec<String>,
    /// When the event happened; the put's time when absent.
    pub time: Option<DateTime>,
}

/// Puts events on buses. Provided by EventBridge; called by S3 (EventBridge notifications),
/// Scheduler, CloudFormation and the services whose state changes AWS reports as events.
/// Absent: events are dropped, as AWS drops an event that no rule matches.
pub trait EventBus: Send + Sync {
    /// Puts `events`, answering per entry, in order, its event id or why it was refused (a
    /// missing bus is EventBridge's `ResourceNotFoundException`).
    fn put_events<'a>(&'a self, caller: Caller<'a>, events: Vec<Event>)
        -> BoxFuture<'a, Vec<Result<String, AwsError>>>;
}

/// One log event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEvent {
    /// When the event happened, in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
    /// The log line, as the stream shows it.
    pub message: String,
}

/// Writes log events. Provided by CloudWatch Logs; called by Lambda (function output), API
/// Gateway (access logs), Step Functions and EventBridge targets. Absent: the events are not
/// written and the caller carries on, as Lambda does on AWS when a function may not write its
/// logs.
pub trait LogWriter: Send + Sync {
    /// Appends `events` to `stream` in `group`, creating both when missing, as AWS's services
    /// do with their own logs.
    fn put_log_events<'a>(
        &'a self,
        caller: Caller<'a>,
        group: &'a str,
        stream: &'a str,
        events: Vec<LogEvent>,
    ) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// One metric data point.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricDatum {
    /// `MetricName`, e.g. `NumberOfMessagesSent`.
    pub name: String,
    /// The dimensions by name (`QueueName` → `orders`); each distinct set is its own metric.
    pub dimensions: BTreeMap<String, String>,
    /// The value observed, in `unit`.
    pub value: f64,
    /// A CloudWatch `StandardUnit` (`Count`, `Bytes`, `Milliseconds`, …).
    pub unit: &'static str,
    /// When the value was observed, in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
}

/// Records metric data. Provided by CloudWatch; called by the services whose metrics AWS
/// publishes on their behalf (SQS queue depth, Lambda invocations, DynamoDB capacity). Absent:
/// the data is dropped and nothing the caller answers changes, as on AWS, where publishing a
/// service's metrics never fails its requests.
pub trait MetricSink: Send + Sync {
    /// Records `data` under `namespace` (`AWS/SQS`, …).
    fn put_metric_data<'a>(
        &'a self,
        caller: Caller<'a>,
        namespace: &'a str,
        data: Vec<MetricDatum>,
    ) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// KMS's encryption context: pairs bound to a ciphertext, which decryption must repeat.
pub type EncryptionContext = BTreeMap<String, String>;

/// Bytes encrypted under a key, or decrypted from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyed {
    /// The ARN of the key used.
    pub key_arn: String,
    /// The ciphertext after encryption (it names its key), the plaintext after decryption.
    pub bytes: Vec<u8>,
}

/// A data key: its plaintext to encrypt with, and the same encrypted under the key to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataKey {
    /// The ARN of the key the data key is encrypted under.
    pub key_arn: String,
    /// The data key itself, to encrypt data with and then forget.
    pub plaintext: Vec<u8>,
    /// The data key encrypted under `key_arn`, to store beside the data; [`KeyService::decrypt`]
    /// turns it back into `plaintext`.
    pub ciphertext: Vec<u8>,
}

/// Encrypts and decrypts with keys. Provided by KMS; called by S3 (SSE-KMS), SQS and SNS
/// (server-side encryption), DynamoDB, Secrets Manager and SSM SecureString parameters.
/// Absent: every key is missing — the caller answers as AWS does for a key that does not
/// exist (S3: `KMS.NotFoundException`; SQS: `KmsNotFound`).
pub trait KeyService: Send + Sync {
    /// Encrypts `plaintext` under `key_id` (id, ARN, alias name or alias ARN).
    fn encrypt<'a>(
        &'a self,
        caller: Caller<'a>,
        key_id: &'a str,
        plaintext: Vec<u8>,
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<Keyed, AwsError>>;

    /// Decrypts `ciphertext`, which names its key, with the context it was encrypted with.
    fn decrypt<'a>(
        &'a self,
        caller: Caller<'a>,
        ciphertext: &'a [u8],
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<Keyed, AwsError>>;

    /// A fresh data key of `bytes` bytes, encrypted under `key_id`.
    fn generate_data_key<'a>(
        &'a self,
        caller: Caller<'a>,
        key_id: &'a str,
        bytes: usize,
        context: &'a EncryptionContext,
    ) -> BoxFuture<'a, Result<DataKey, AwsError>>;
}

/// A secret's value, as Secrets Manager's GetSecretValue answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretValue {
    /// The secret's ARN.
    pub arn: String,
    /// The secret's name.
    pub name: String,
    /// The id of the version read.
    pub version_id: String,
    /// `SecretString`, when the value is text.
    pub string: Option<String>,
    /// `SecretBinary`, when the value is bytes.
    pub binary: Option<Vec<u8>>,
    /// The version's staging labels.
    pub stages: Vec<String>,
    /// When the version was made, in milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// Secrets Manager's secrets, read on a caller's behalf. Provided by Secrets Manager; called
/// by SSM for the parameters under `/aws/reference/secretsmanager/`. Absent: every secret is
/// missing, and SSM answers its `ParameterNotFound`.
pub trait SecretSource: Send + Sync {
    /// The value of `secret_id` (name or ARN) at `version` (a version id or a staging label;
    /// `None` for `AWSCURRENT`), read for the request `ctx` with Secrets Manager's checks and
    /// refusals (`ResourceNotFoundException` for a secret that does not exist).
    fn secret_value<'a>(
        &'a self,
        ctx: &'a RequestContext,
        secret_id: &'a str,
        version: Option<&'a str>,
    ) -> BoxFuture<'a, Result<SecretValue, AwsError>>;
}

/// The outcome of evaluating policies, as IAM's policy evaluation logic names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A statement allows the action and none denies it.
    Allow,
    /// A statement denies the action: nothing overrides it.
    ExplicitDeny,
    /// No statement allows the action.
    ImplicitDeny,
}

/// An IAM role, as STS needs it to issue a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumableRole {
    /// The role's unique id (`AROA…`), the first half of a session's `AssumedRoleId`.
    pub role_id: String,
    /// The role's trust policy (`AssumeRolePolicyDocument`), as the role was given it.
    pub trust_policy: String,
    /// The longest session the role allows, in seconds (3,600 to 43,200).
    pub max_session_duration: i32,
}

/// IAM's roles. Provided by IAM; called by STS's AssumeRole, AssumeRoleWithWebIdentity and
/// AssumeRoleWithSAML, which issue sessions only for a role that exists. Absent (IAM not
/// served): no role exists, and AssumeRole answers `AccessDenied`, as AWS answers for a role
/// that does not.
pub trait RoleDirectory: Send + Sync {
    /// The role `role_arn` names (`arn:PARTITION:iam::ACCOUNT:role/PATH/NAME`), if it exists in
    /// that account with that path.
    fn assumable_role<'a>(&'a self, caller: Caller<'a>, role_arn: &'a str) -> BoxFuture<'a, Option<AssumableRole>>;
}

/// Temporary credentials issued for a role on a service's behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleCredentials {
    /// The session's `ASIA…` access key id.
    pub access_key_id: String,
    /// Its 40-character secret.
    pub secret_access_key: String,
    /// The session token that goes with them.
    pub session_token: String,
    /// When they expire.
    pub expiration: DateTime,
}

/// Sessions for roles that services assume for themselves (Lambda's execution roles,
/// EventBridge's target roles). Provided by STS; called by Lambda to hand a function its
/// role's credentials. The caller is the service principal (`lambda.amazonaws.com`) in the
/// role's account; the role's trust policy must let that principal assume it, else the
/// answer is STS's `AccessDenied`, which Lambda words as AWS does. Absent (STS not served):
/// no credentials can be issued, and functions run without them.
pub trait RoleSessions: Send + Sync {
    /// A session of `duration_seconds` for `role_arn`, named `session_name` (the function's
    /// name for Lambda).
    fn assume_for_service<'a>(
        &'a self,
        caller: Caller<'a>,
        role_arn: &'a str,
        session_name: &'a str,
        duration_seconds: i32,
    ) -> BoxFuture<'a, Result<RoleCredentials, AwsError>>;
}

/// An object read from a bucket for another service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    /// The object's bytes.
    pub body: Vec<u8>,
    /// The version read, when the bucket is versioned.
    pub version_id: Option<String>,
}

/// Objects other services read from S3 (Lambda's code and layers from `S3Bucket`/`S3Key`,
/// CloudFormation's templates). Provided by S3; the error is S3's own (`NoSuchBucket`,
/// `NoSuchKey`, `NoSuchVersion`, `AccessDenied`), which the caller words in its own terms, as
/// Lambda does ("Error occurred while GetObject. S3 Error Code: NoSuchKey. …"). Absent: every
/// bucket is missing.
pub trait ObjectSource: Send + Sync {
    /// The object `key` of `bucket`, at `version_id` when given, else its current version.
    fn get_object<'a>(
        &'a self,
        caller: Caller<'a>,
        bucket: &'a str,
        key: &'a str,
        version_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<StoredObject, AwsError>>;
}

/// An object another service writes to a bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectToPut {
    /// The bucket's name.
    pub bucket: String,
    /// The object's key.
    pub key: String,
    /// Its bytes.
    pub body: Vec<u8>,
    /// `Content-Type`; S3's default (`binary/octet-stream`) when `None`.
    pub content_type: Option<String>,
    /// `Content-Encoding`, stored as the object's metadata.
    pub content_encoding: Option<String>,
}

/// Objects other services write to S3 (Firehose's deliveries, Lambda's failure records).
/// Provided by S3; the write is PutObject's, notifications included, and so are its errors
/// (`NoSuchBucket`, `AccessDenied`, …), which the caller treats as a failed delivery. Absent:
/// every bucket is missing.
pub trait ObjectSink: Send + Sync {
    /// Writes `object`, replacing the current one at its key (or adding a version).
    fn put_object<'a>(&'a self, caller: Caller<'a>, object: ObjectToPut) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// Firehose's delivery streams, as other services put records into them (CloudWatch Logs'
/// subscription filters). Provided by Firehose. Absent: every delivery stream is missing.
pub trait DeliveryStreamSink: Send + Sync {
    /// Puts `records` into the delivery stream `stream_arn` names (its account and region),
    /// stored before the answer as PutRecordBatch stores them; a stream that is missing or
    /// not `ACTIVE` is Firehose's `ResourceNotFoundException`, one fed by a Kinesis stream
    /// its `InvalidArgumentException`.
    fn put_records<'a>(
        &'a self,
        caller: Caller<'a>,
        stream_arn: &'a str,
        records: Vec<Vec<u8>>,
    ) -> BoxFuture<'a, Result<(), AwsError>>;
}

/// What an access key IAM or STS issued stands for, and the secret that proves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The account the key belongs to (the one its id names).
    pub account_id: String,
    /// Who signs with the key.
    pub principal: Principal,
    /// The secret access key a signature by the key is made with.
    pub secret_access_key: String,
    /// The session token temporary credentials must be sent with (`X-Amz-Security-Token`).
    pub session_token: Option<String>,
    /// When temporary credentials expire, in seconds since the Unix epoch.
    pub expires: Option<u64>,
    /// Whether the key may sign: a user's key made `Inactive` may not.
    pub active: bool,
    /// What a session STS issued was issued with; `None` for a user's own key.
    pub session: Option<SessionGrants>,
}

/// The access keys one service issues. Provided by IAM (its users' `AKIA…` keys) and by STS
/// (the `ASIA…` keys of the sessions it issues); called by the gateway for every request
/// signed with a key of AWS's form, in the account the key id names. Absent: every key signs
/// as its account's root, as every key did before IAM.
pub trait KeyDirectory: Send + Sync {
    /// What `access_key_id` stands for, if this service issued it in `account_id`; ARNs are
    /// in the partition of `region`, the request's. A read of the service's store, made
    /// inline: no fsync to wait for.
    fn identify(&self, account_id: &str, region: &str, access_key_id: &str) -> Result<Option<Identity>, AwsError>;

    /// A count that changes each time the directory issues a key, once the key is stored:
    /// the gateway remembers the keys no directory knows, and forgets them when the count of
    /// any directory changes, so that a key issued after a miss is found on the next
    /// request. The default, a directory that never issues keys, never changes.
    fn issued(&self) -> u64 {
        0
    }
}

/// A session's own grants, kept by STS when it issued the session: its tags and the session
/// policies it was asked for with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionGrants {
    /// Session tags (`aws:PrincipalTag/…`), which override the role's or user's own tags.
    pub tags: Vec<(String, String)>,
    /// The inline session policy (`Policy`), a JSON document.
    pub policy: Option<String>,
    /// The managed session policies (`PolicyArns`).
    pub policy_arns: Vec<String>,
}

/// One request to authorize: who asks, for which action on which resources, in which
/// context.
#[derive(Debug, Clone)]
pub struct Authorization<'a> {
    /// The principal's account: the request's.
    pub account_id: &'a str,
    /// The partition of the request's region (`aws`, `aws-cn`, …; `stratus_core::arn::partition_of`),
    /// which the root's ARN is written in.
    pub partition: &'a str,
    /// Who asks; `None` for the account's root, whom identity policies do not limit.
    pub principal: Option<&'a Principal>,
    /// Whether the request is unsigned (S3's anonymous caller): then `principal` is `None`
    /// and only a resource policy that grants everyone can allow it.
    pub anonymous: bool,
    /// What the session was issued with, when the principal is a session STS issued.
    pub session: Option<&'a SessionGrants>,
    /// The IAM action, e.g. `sqs:SendMessage`.
    pub action: &'a str,
    /// The ARNs the action is on; `*` for an action on no particular resource.
    pub resources: &'a [String],
    /// The policy of the resource itself (a bucket or queue policy), if it has one.
    pub resource_policy: Option<&'a str>,
    /// The account owning the resources, when it is not the principal's.
    pub resource_account: Option<&'a str>,
    /// Whether the resource's policy must itself allow, even within its account, as a KMS
    /// key policy must: without a grant there, identity policies allow nothing. (A role's
    /// trust policy always must; this is for the services whose resource policies do.)
    pub resource_must_allow: bool,
    /// Where the resources' tags come from (`aws:ResourceTag/…`), asked only when a policy
    /// being evaluated reads them; `None` when the resources' service reports none.
    pub resource_tags: Option<&'a dyn ResourceTags>,
    /// The request's condition keys and their values (`aws:SourceIp`, `aws:SecureTransport`,
    /// `s3:prefix`, …); the principal's own keys (`aws:username`, `aws:PrincipalTag/…`) are
    /// the authorizer's to add.
    pub context: &'a [(&'a str, Vec<String>)],
    /// The time of the request, in seconds since the Unix epoch (`aws:CurrentTime`).
    pub now_secs: u64,
}

/// What an authorization decided, with AWS's AccessDenied message when it refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// AWS's message ("User: … is not authorized to perform: … because no identity-based
    /// policy allows …"), for a refusal.
    pub message: Option<String>,
}

/// A resource's own policy, and the account that owns the resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePolicy {
    /// The account the resource belongs to (an S3 bucket's ARN does not say).
    pub owner_account: String,
    /// The policy document (a bucket or queue policy), if the resource has one.
    pub document: Option<String>,
}

/// The policies of one service's resources. Provided by S3 (bucket policies) and SQS (queue
/// policies), and by SNS, KMS, Lambda and Secrets Manager as they land; called by the
/// gateway when it authorizes a request on their resources. Absent: resources have no
/// policy, and only identity policies can allow.
pub trait ResourcePolicies: Send + Sync {
    /// The service part of the ARNs it answers for, e.g. `sqs`.
    fn arn_service(&self) -> &'static str;

    /// The policy of the resource `arn` names (for S3, also an object's ARN, whose bucket's
    /// policy applies), or `None` when there is no such resource. A read, made inline.
    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError>;

    /// The tags of the resource `arn` names (`aws:ResourceTag/…`), `None` when there is no
    /// such resource or it takes no tags. Asked only when a policy being evaluated reads a
    /// resource tag, so a request under policies without such conditions pays nothing. A
    /// read, made inline; the default reports no tags.
    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        let _ = arn;
        Ok(None)
    }
}

/// The tags of the resources one request is on, as the authorizer asks for them: only when
/// a policy it evaluates has a condition on `aws:ResourceTag/…` (or a service's own
/// resource-tag key), once per resource.
pub trait ResourceTags: Sync {
    /// The tags of the resource `arn` names; none when it has none or does not exist.
    fn tags_of(&self, arn: &str) -> Result<Vec<(String, String)>, AwsError>;
}

impl std::fmt::Debug for dyn ResourceTags + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResourceTags")
    }
}

/// Decides whether a principal may perform an action, with IAM's policy evaluation logic:
/// its identity policies (a user's own and its groups', a role's), permissions boundary,
/// session policies, and the resource's policy. Provided by IAM; called by the gateway when
/// it authorizes requests (`--iam audit|enforce`). Absent: nothing is authorized, and the
/// gateway serves every request, as with `--iam off`.
pub trait Authorizer: Send + Sync {
    /// The verdict on `request`. A read of IAM's store, made inline.
    fn authorize(&self, request: &Authorization<'_>) -> Result<Verdict, AwsError>;
}
