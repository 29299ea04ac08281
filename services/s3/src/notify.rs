//! Event notifications: which of a bucket's queue, topic and function configurations an object
//! event matches, and the message S3 sends (S3 user guide, "Event message structure",
//! eventVersion 2.1). `crate::destinations` delivers them.

use std::net::IpAddr;

use serde_json::json;
use sha2::{Digest, Sha256};
use stratus_core::arn::Arn;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::{
    Event as ConfiguredEvent, FilterRuleName, NotificationConfiguration, NotificationConfigurationFilter,
};

use crate::error::S3Error;
use crate::listing::plus_encode;
use crate::object::ObjectRecord;
use crate::S3_PRINCIPAL;

/// An object event, as S3 names it without the `s3:` prefix (`ObjectCreated:Put`).
pub(crate) struct Event<'a> {
    pub name: &'static str,
    pub bucket: &'a str,
    pub key: &'a str,
    /// What the event reports of the object.
    pub object: Facts<'a>,
    pub version_id: Option<&'a str>,
    pub region: &'a str,
    pub request_id: &'a str,
    pub cause: Cause<'a>,
    /// The X-Ray trace of the request (`X-Amzn-Trace-Id`), which queues get as `AWSTraceHeader`.
    pub trace_header: Option<&'a str>,
    /// Milliseconds since the epoch.
    pub time_ms: i64,
}

impl<'a> Event<'a> {
    /// Object `record` of `bucket` was created by the request `ctx` serves.
    pub(crate) fn created(
        name: &'static str,
        bucket: &'a str,
        record: &'a ObjectRecord,
        ctx: &'a RequestContext,
    ) -> Event<'a> {
        Event {
            name,
            bucket,
            key: &record.key,
            object: Facts::Created {
                size: record.size,
                etag: record.etag.trim_matches('"'),
            },
            // The null version of a suspended bucket is not named, as recorded.
            version_id: record.version_id.as_deref().filter(|v| *v != "null"),
            region: &ctx.region,
            request_id: &ctx.request_id,
            cause: Cause::of(ctx),
            trace_header: ctx.trace_header.as_deref(),
            time_ms: record.last_modified_ms,
        }
    }

    /// The tags or ACL of version `record` of `bucket` were changed by the request `ctx`
    /// serves, at `time_ms`.
    pub(crate) fn annotated(
        name: &'static str,
        bucket: &'a str,
        record: &'a ObjectRecord,
        ctx: &'a RequestContext,
        time_ms: i64,
    ) -> Event<'a> {
        Event {
            name,
            bucket,
            key: &record.key,
            object: Facts::Annotated {
                etag: record.etag.trim_matches('"'),
            },
            version_id: record.version_id.as_deref(),
            region: &ctx.region,
            request_id: &ctx.request_id,
            cause: Cause::of(ctx),
            trace_header: ctx.trace_header.as_deref(),
            time_ms,
        }
    }

    /// A restore of archived version `record` of `bucket` was asked for (`ObjectRestore:Post`,
    /// caused by the request `ctx` serves) or completed (`ObjectRestore:Completed`, by
    /// [`Cause::Archive`]), at `time_ms`.
    pub(crate) fn restore(
        name: &'static str,
        bucket: &'a str,
        record: &'a ObjectRecord,
        ctx: &'a RequestContext,
        cause: Cause<'a>,
        time_ms: i64,
    ) -> Event<'a> {
        let size = record.size;
        let etag = record.etag.trim_matches('"');
        let object = match (cause, record.restore_expiry_ms) {
            (Cause::Archive, Some(expiry_ms)) => Facts::Restored {
                size,
                etag,
                expiry_ms,
                storage_class: record.storage_class.as_deref().unwrap_or("GLACIER"),
            },
            _ => Facts::Created { size, etag },
        };
        Event {
            name,
            bucket,
            key: &record.key,
            object,
            version_id: record.version_id.as_deref().filter(|v| *v != "null"),
            region: &ctx.region,
            request_id: &ctx.request_id,
            cause,
            trace_header: ctx.trace_header.as_deref(),
            time_ms,
        }
    }

    /// `key` of `bucket` was deleted (`version_id`: the version removed or the delete marker
    /// added) by the request `ctx` serves, at `time_ms`.
    pub(crate) fn removed(
        name: &'static str,
        object: Facts<'a>,
        bucket: &'a str,
        key: &'a str,
        version_id: Option<&'a str>,
        ctx: &'a RequestContext,
        time_ms: i64,
    ) -> Event<'a> {
        Event {
            name,
            bucket,
            key,
            object,
            version_id,
            region: &ctx.region,
            request_id: &ctx.request_id,
            cause: Cause::of(ctx),
            trace_header: ctx.trace_header.as_deref(),
            time_ms,
        }
    }
}

/// Who caused an event. Borrowed, and formatted only when a message is sent: most objects
/// are written to buckets that notify no one.
#[derive(Clone, Copy)]
pub(crate) enum Cause<'a> {
    /// A request, by the requester's unique id (`aws:userid`: `AIDA…`, `AROA…:SESSION`, the
    /// account id for the root) from its address.
    Request {
        user_id: &'a str,
        source_ip: Option<IpAddr>,
    },
    /// S3 itself (lifecycle expiry).
    S3,
    /// The archive, finishing a restore on the bucket owner's behalf.
    Archive,
}

impl<'a> Cause<'a> {
    pub(crate) fn of(ctx: &'a RequestContext) -> Cause<'a> {
        Cause::Request {
            user_id: ctx.principal.as_ref().map_or(&ctx.account_id, |p| &p.user_id),
            source_ip: ctx.source_ip,
        }
    }

    /// The event's `userIdentity`, for a bucket of `owner` (an account id).
    fn principal_id(self, owner: &str) -> String {
        match self {
            Cause::Request { user_id, .. } => format!("AWS:{user_id}"),
            Cause::S3 => S3_PRINCIPAL.to_owned(),
            // As AWS recorded a completed restore.
            Cause::Archive => format!("AmazonCustomer:{}", customer_id(owner)),
        }
    }

    fn source_ip(self) -> String {
        match self {
            Cause::Request { source_ip, .. } => source_ip.map_or_else(|| "127.0.0.1".to_owned(), |ip| ip.to_string()),
            Cause::S3 | Cause::Archive => S3_PRINCIPAL.to_owned(),
        }
    }
}

/// The id S3 names an account by in events (`ownerIdentity`): its Amazon customer id, which
/// is not the account id. AWS's are an `A` and 13 upper-case letters and digits; this one is
/// derived from the account, so it is the same after a restart.
fn customer_id(account: &str) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let digest = Sha256::digest(format!("customer:{account}"));
    std::iter::once('A')
        .chain(
            digest
                .iter()
                .take(13)
                .map(|b| char::from(ALPHABET[usize::from(b % 32)])),
        )
        .collect()
}

/// What an event reports of its object, by the kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Facts<'a> {
    /// A new object: its size and ETag (unquoted), and the change's sequencer.
    Created { size: u64, etag: &'a str },
    /// A deletion: only the sequencer.
    Removed,
    /// A delete marker added: the sequencer, and the ETag of the marker's empty body.
    MarkerCreated,
    /// Its tags or ACL changed: its ETag, and no sequencer (S3 sends one only for writes and
    /// deletes of the object itself).
    Annotated { etag: &'a str },
    /// Its restored copy is ready: as [`Facts::Created`], and the copy's expiry (milliseconds
    /// since the epoch) and the class it was restored from, in `glacierEventData`.
    Restored {
        size: u64,
        etag: &'a str,
        expiry_ms: i64,
        storage_class: &'a str,
    },
}

/// The MD5 of no bytes, which AWS reports as a delete marker's ETag.
const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";

/// The event structure's version for an event named `name`: 2.3 for the events S3's guide
/// lists (Lifecycle, Intelligent-Tiering, ACL, tagging, restoration deletes), 2.1 otherwise.
fn event_version(name: &str) -> &'static str {
    const NEWER: [&str; 5] = [
        "Lifecycle",
        "IntelligentTiering",
        "ObjectAcl:",
        "ObjectTagging:",
        "ObjectRestore:Delete",
    ];
    if NEWER.iter().any(|prefix| name.starts_with(prefix)) {
        "2.3"
    } else {
        "2.1"
    }
}

/// Where a notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Destination<'c> {
    /// An SQS queue's ARN.
    Queue(&'c str),
    /// An SNS topic's ARN.
    Topic(&'c str),
    /// A Lambda function's ARN.
    Function(&'c str),
}

impl Destination<'_> {
    /// The ARN, and the element AWS names it by when it does not parse.
    fn arn(&self) -> (&str, &'static str) {
        match *self {
            Destination::Queue(arn) => (arn, "Queue"),
            Destination::Topic(arn) => (arn, "Topic"),
            Destination::Function(arn) => (arn, "CloudFunction"),
        }
    }
}

/// Refuses a configuration naming a destination by something that is not an ARN, as AWS
/// does even when asked to skip validating destinations.
pub(crate) fn check_arns(config: &NotificationConfiguration) -> Result<(), AwsError> {
    for configured in configured(config) {
        let (arn, element) = configured.destination.arn();
        if Arn::parse(arn).is_err() {
            return Err(S3Error::invalid_argument("The ARN could not be parsed")
                .with_detail("ArgumentName", element)
                .with_detail("ArgumentValue", arn));
        }
    }
    Ok(())
}

/// Spells a filter's rule names as AWS stores and answers them whatever case they came in
/// (`suffix`, `PREFIX`): `Prefix` and `Suffix`. The model's enum spells them in lower case,
/// so they are kept as the enum's unlisted values.
pub(crate) fn normalize_rule_names(filter: &mut Option<NotificationConfigurationFilter>) {
    let rules = filter
        .iter_mut()
        .filter_map(|f| f.key.as_mut())
        .flat_map(|k| k.filter_rules.iter_mut().flatten());
    for rule in rules {
        let spelled = match rule.name.as_ref().and_then(RuleKind::of) {
            Some(RuleKind::Prefix) => "Prefix",
            Some(RuleKind::Suffix) => "Suffix",
            None => continue,
        };
        rule.name = Some(FilterRuleName::Unknown(spelled.to_owned()));
    }
}

/// What a filter rule tests, its name read without regard to case.
enum RuleKind {
    Prefix,
    Suffix,
}

impl RuleKind {
    fn of(name: &FilterRuleName) -> Option<RuleKind> {
        match name {
            FilterRuleName::Prefix => Some(RuleKind::Prefix),
            FilterRuleName::Suffix => Some(RuleKind::Suffix),
            FilterRuleName::Unknown(name) if name.eq_ignore_ascii_case("prefix") => Some(RuleKind::Prefix),
            FilterRuleName::Unknown(name) if name.eq_ignore_ascii_case("suffix") => Some(RuleKind::Suffix),
            FilterRuleName::Unknown(_) => None,
        }
    }
}

/// One configuration of a bucket's notifications: where, for which events, with which filter.
pub(crate) struct Configured<'c> {
    pub(crate) id: &'c str,
    pub(crate) destination: Destination<'c>,
    events: &'c [ConfiguredEvent],
    filter: Option<&'c NotificationConfigurationFilter>,
}

/// Every queue, topic and function configuration of `config`, in that order.
pub(crate) fn configured(config: &NotificationConfiguration) -> Vec<Configured<'_>> {
    fn id(id: &Option<String>) -> &str {
        id.as_deref().unwrap_or_default()
    }
    let queues = config.queue_configurations.iter().flatten().map(|c| Configured {
        id: id(&c.id),
        destination: Destination::Queue(&c.queue_arn),
        events: &c.events,
        filter: c.filter.as_ref(),
    });
    let topics = config.topic_configurations.iter().flatten().map(|c| Configured {
        id: id(&c.id),
        destination: Destination::Topic(&c.topic_arn),
        events: &c.events,
        filter: c.filter.as_ref(),
    });
    let functions = config
        .lambda_function_configurations
        .iter()
        .flatten()
        .map(|c| Configured {
            id: id(&c.id),
            destination: Destination::Function(&c.lambda_function_arn),
            events: &c.events,
            filter: c.filter.as_ref(),
        });
    queues.chain(topics).chain(functions).collect()
}

/// The configurations of `config` that `event` goes to.
pub(crate) fn destinations<'c>(config: &'c NotificationConfiguration, event: &Event<'_>) -> Vec<Configured<'c>> {
    configured(config)
        .into_iter()
        .filter(|c| c.events.iter().any(|e| event_matches(e.as_str(), event.name)))
        .filter(|c| key_matches(c.filter, event.key))
        .collect()
}

/// Whether a configured event (`s3:ObjectCreated:*`, `s3:ObjectRemoved:Delete`) covers `name`.
fn event_matches(configured: &str, name: &str) -> bool {
    let Some(configured) = configured.strip_prefix("s3:") else {
        return false;
    };
    match configured.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => configured == name,
    }
}

/// Whether `key` passes a configuration's prefix and suffix rules.
fn key_matches(filter: Option<&NotificationConfigurationFilter>, key: &str) -> bool {
    let rules = filter
        .and_then(|f| f.key.as_ref())
        .and_then(|k| k.filter_rules.as_ref());
    rules.into_iter().flatten().all(|rule| {
        let value = rule.value.as_deref().unwrap_or("");
        match rule.name.as_ref().and_then(RuleKind::of) {
            Some(RuleKind::Prefix) => key.starts_with(value),
            Some(RuleKind::Suffix) => key.ends_with(value),
            None => true,
        }
    })
}

/// The message for `event`, sent for configuration `configuration_id`.
pub(crate) fn message(event: &Event<'_>, configuration_id: &str, owner: &str) -> String {
    let mut object = json!({ "key": form_encode(event.key) });
    let sequencer = || json!(format!("{:016X}", event.time_ms.max(0) as u64 * 1000));
    match event.object {
        Facts::Created { size, etag } | Facts::Restored { size, etag, .. } => {
            object["size"] = json!(size);
            object["eTag"] = json!(etag);
            object["sequencer"] = sequencer();
        }
        Facts::Removed => object["sequencer"] = sequencer(),
        Facts::MarkerCreated => {
            object["eTag"] = json!(EMPTY_MD5);
            object["sequencer"] = sequencer();
        }
        Facts::Annotated { etag } => object["eTag"] = json!(etag),
    }
    if let Some(version_id) = event.version_id {
        object["versionId"] = json!(version_id);
    }
    let mut record = json!({
            "eventVersion": event_version(event.name),
            "eventSource": "aws:s3",
            "awsRegion": event.region,
            "eventTime": timestamp(event.time_ms),
            "eventName": event.name,
            "userIdentity": {"principalId": event.cause.principal_id(owner)},
            "requestParameters": {"sourceIPAddress": event.cause.source_ip()},
            "responseElements": {"x-amz-request-id": event.request_id, "x-amz-id-2": "stratus"},
            "s3": {
                "s3SchemaVersion": "1.0",
                "configurationId": configuration_id,
                "bucket": {
                    "name": event.bucket,
                    "ownerIdentity": {"principalId": customer_id(owner)},
                    "arn": Arn::global("s3", event.region, "", event.bucket).to_string(),
                },
                "object": object,
            },
    });
    if let Facts::Restored {
        expiry_ms,
        storage_class,
        ..
    } = event.object
    {
        record["glacierEventData"] = json!({
            "restoreEventData": {
                "lifecycleRestorationExpiryTime": timestamp(expiry_ms),
                "lifecycleRestoreStorageClass": storage_class,
            }
        });
    }
    json!({ "Records": [record] }).to_string()
}

/// The message S3 sends each destination when a notification configuration is stored.
pub(crate) fn test_message(bucket: &str, request_id: &str, time_ms: i64) -> String {
    json!({
        "Service": "Amazon S3",
        "Event": "s3:TestEvent",
        "Time": timestamp(time_ms),
        "Bucket": bucket,
        "RequestId": request_id,
        "HostId": "stratus",
    })
    .to_string()
}

fn timestamp(ms: i64) -> String {
    // Always with milliseconds, as S3 writes them (`1970-01-01T00:00:00.000Z` in its guide).
    let seconds = stratus_core::DateTime::from_secs(ms.div_euclid(1000))
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    format!("{}.{:03}Z", seconds.trim_end_matches('Z'), ms.rem_euclid(1000))
}

/// A key as event messages carry it: URL-encoded with spaces as `+`, slashes and `*` kept
/// (S3 user guide, "Event message structure": "The object key name value is URL encoded"; the
/// documented examples keep the `/` of prefixes).
fn form_encode(key: &str) -> String {
    plus_encode(key, b'*')
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_have_milliseconds() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(timestamp(1_796_515_200_007), "2026-12-06T00:00:00.007Z");
    }

    use super::*;
    use stratus_gen_s3::{FilterRule, LambdaFunctionConfiguration, QueueConfiguration, S3KeyFilter};

    fn queue(events: &[&str], rules: &[(FilterRuleName, &str)]) -> QueueConfiguration {
        QueueConfiguration {
            id: Some("c".into()),
            queue_arn: "arn:aws:sqs:us-east-1:000000000000:q".into(),
            events: events.iter().map(|e| ConfiguredEvent::from_wire(e)).collect(),
            filter: (!rules.is_empty()).then(|| NotificationConfigurationFilter {
                key: Some(S3KeyFilter {
                    filter_rules: Some(
                        rules
                            .iter()
                            .map(|(name, value)| FilterRule {
                                name: Some(name.clone()),
                                value: Some(value.to_string()),
                            })
                            .collect(),
                    ),
                }),
            }),
        }
    }

    fn event(name: &'static str, key: &'static str) -> Event<'static> {
        Event {
            name,
            bucket: "b",
            key,
            object: Facts::Created { size: 5, etag: "etag" },
            version_id: None,
            region: "us-east-1",
            request_id: "r",
            cause: Cause::Request {
                user_id: "AIDAEXAMPLE",
                source_ip: Some([192, 0, 2, 1].into()),
            },
            trace_header: None,
            time_ms: 1_700_000_000_123,
        }
    }

    #[test]
    fn events_and_filters_select_destinations() {
        let config = NotificationConfiguration {
            queue_configurations: Some(vec![
                queue(
                    &["s3:ObjectCreated:*"],
                    &[(FilterRuleName::Prefix, "images/"), (FilterRuleName::Suffix, ".jpg")],
                ),
                queue(&["s3:ObjectRemoved:Delete"], &[]),
            ]),
            lambda_function_configurations: Some(vec![LambdaFunctionConfiguration {
                id: Some("f".into()),
                lambda_function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f".into(),
                events: vec![ConfiguredEvent::from_wire("s3:ObjectCreated:Put")],
                filter: None,
            }]),
            ..NotificationConfiguration::default()
        };
        let to = |name, key| destinations(&config, &event(name, key)).len();
        assert_eq!(to("ObjectCreated:Put", "images/cat.jpg"), 2);
        assert_eq!(to("ObjectCreated:Copy", "images/cat.png"), 0);
        assert_eq!(to("ObjectCreated:Put", "docs/cat.jpg"), 1);
        assert_eq!(to("ObjectRemoved:Delete", "x"), 1);
        assert_eq!(to("ObjectRemoved:DeleteMarkerCreated", "x"), 0);
        let function = &destinations(&config, &event("ObjectCreated:Put", "docs/a"))[0];
        assert_eq!(function.id, "f");
        assert!(matches!(function.destination, Destination::Function(arn) if arn.ends_with(":function:f")));
    }

    #[test]
    fn messages_have_aws_shape() {
        let text = message(&event("ObjectCreated:Put", "a b/ü.txt"), "c", "owner");
        let m: serde_json::Value = serde_json::from_str(&text).unwrap();
        let record = &m["Records"][0];
        assert_eq!(record["eventName"], "ObjectCreated:Put");
        assert_eq!(record["eventTime"], "2023-11-14T22:13:20.123Z");
        assert_eq!(record["s3"]["object"]["key"], "a+b/%C3%BC.txt");
        assert_eq!(record["s3"]["object"]["size"], 5);
        assert_eq!(record["s3"]["bucket"]["arn"], "arn:aws:s3:::b");
        assert_eq!(record["s3"]["configurationId"], "c");
        assert_eq!(record["userIdentity"]["principalId"], "AWS:AIDAEXAMPLE");
    }

    #[test]
    fn tagging_and_acl_events_are_version_2_3_with_an_etag_and_no_sequencer() {
        let mut tagged = event("ObjectTagging:Put", "k");
        tagged.object = Facts::Annotated { etag: "e" };
        let m: serde_json::Value = serde_json::from_str(&message(&tagged, "c", "owner")).unwrap();
        let record = &m["Records"][0];
        assert_eq!(record["eventVersion"], "2.3");
        assert_eq!(record["s3"]["object"], json!({"key": "k", "eTag": "e"}));
        let put: serde_json::Value =
            serde_json::from_str(&message(&event("ObjectCreated:Put", "k"), "c", "o")).unwrap();
        assert_eq!(put["Records"][0]["eventVersion"], "2.1");
        assert!(put["Records"][0]["s3"]["object"]["sequencer"].is_string());
    }

    #[test]
    fn owners_are_named_by_a_customer_id_not_the_account() {
        let id = customer_id("123456789012");
        assert_eq!(id.len(), 14);
        assert!(id.starts_with('A') && id.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
        assert_eq!(id, customer_id("123456789012"));
        assert_ne!(id, customer_id("123456789013"));
    }
}
