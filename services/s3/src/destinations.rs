//! Delivering event notifications: the queues (SQS), topics (SNS) and functions (Lambda) a
//! bucket's notification configuration names, reached through the capabilities the binary
//! wires in once every service has registered.
//!
//! An event's notifications are written to an outbox (`stratus-outbox`, table
//! `notifications` of the bucket owner's regional `s3` store) after the change they report
//! commits and before the request is answered, so a notification S3 acknowledged is made,
//! after a restart too. A crash between the two commits loses the notifications of a change
//! the client was never told had succeeded.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::service::capabilities::{Invocation, InvocationType, Publication, QueueMessage};
use stratus_core::service::{BoxFuture, Caller, Providers};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::NotificationConfiguration;
use stratus_outbox::{Courier, Entry, Next, Place};
use stratus_storage::{Durability, Namespace};

use crate::error::S3Error;
use crate::notify::{self, Destination};
use crate::{config, schema, store, S3Service, S3_PRINCIPAL};

/// The subject of the SNS messages S3 publishes.
const SUBJECT: &str = "Amazon S3 Notification";
/// The outbox's table.
pub(crate) const NOTIFICATIONS: &str = "notifications";
/// Attempts at a notification whose destination fails with a server-side error.
const ATTEMPTS: u32 = 10;
/// The numbered fields a refused configuration names its destinations in; AWS numbers them
/// without limit, Stratus names the first ten.
const NUMBERED_ARGUMENTS: [(&str, &str); 10] = [
    ("ArgumentName1", "ArgumentValue1"),
    ("ArgumentName2", "ArgumentValue2"),
    ("ArgumentName3", "ArgumentValue3"),
    ("ArgumentName4", "ArgumentValue4"),
    ("ArgumentName5", "ArgumentValue5"),
    ("ArgumentName6", "ArgumentValue6"),
    ("ArgumentName7", "ArgumentValue7"),
    ("ArgumentName8", "ArgumentValue8"),
    ("ArgumentName9", "ArgumentValue9"),
    ("ArgumentName10", "ArgumentValue10"),
];

/// One notification on its way.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Notification {
    pub(crate) destination: Target,
    pub(crate) body: String,
    /// The X-Ray trace of the request the event reports.
    #[serde(default)]
    pub(crate) trace_header: Option<String>,
}

/// A destination, by ARN.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) enum Target {
    Queue(String),
    Topic(String),
    Function(String),
}

impl Target {
    fn of(destination: Destination<'_>) -> Target {
        match destination {
            Destination::Queue(arn) => Target::Queue(arn.to_owned()),
            Destination::Topic(arn) => Target::Topic(arn.to_owned()),
            Destination::Function(arn) => Target::Function(arn.to_owned()),
        }
    }

    fn as_destination(&self) -> Destination<'_> {
        match self {
            Target::Queue(arn) => Destination::Queue(arn),
            Target::Topic(arn) => Destination::Topic(arn),
            Target::Function(arn) => Destination::Function(arn),
        }
    }
}

impl S3Service {
    pub(crate) fn providers(&self) -> Option<&Providers> {
        self.destinations.get()
    }

    /// Refuses a notification configuration one of whose destinations cannot be delivered to,
    /// AWS's "Unable to validate the following destination configurations" with each refused
    /// destination as a numbered `ArgumentName`/`ArgumentValue` pair: a queue or topic that
    /// is missing or FIFO (S3 cannot send to those) or whose service is not running, and a
    /// function that is missing or whose policy does not let S3 invoke it for `bucket`.
    pub(crate) async fn check_destinations(
        &self,
        ctx: &RequestContext,
        bucket: &str,
        config: &NotificationConfiguration,
    ) -> Result<(), AwsError> {
        let caller = Caller::service(S3_PRINCIPAL, &ctx.account_id, &ctx.region);
        let bucket_arn = Arn::global("s3", &ctx.region, "", bucket).to_string();
        let mut refused = Vec::new();
        for configured in notify::configured(config) {
            if let Some(reason) = self.undeliverable(caller, &bucket_arn, configured.destination).await {
                refused.push(reason);
            }
        }
        if refused.is_empty() {
            return Ok(());
        }
        let mut error = S3Error::invalid_argument("Unable to validate the following destination configurations");
        for ((name, reason), (name_field, value_field)) in refused.into_iter().zip(NUMBERED_ARGUMENTS) {
            error = error.with_detail(name_field, name).with_detail(value_field, reason);
        }
        Err(error)
    }

    /// Why `destination` cannot be delivered to, as AWS words it: the argument it names and
    /// the reason; `None` when it can.
    async fn undeliverable(
        &self,
        caller: Caller<'_>,
        bucket_arn: &str,
        destination: Destination<'_>,
    ) -> Option<(String, String)> {
        let providers = self.providers();
        match destination {
            Destination::Queue(arn) => {
                let queues = providers.and_then(|p| p.messages.as_ref());
                let exists = match queues {
                    Some(queues) => !arn.ends_with(".fifo") && queues.exists(caller, arn).await,
                    None => false,
                };
                (!exists).then(|| (arn.to_owned(), "The destination queue does not exist".to_owned()))
            }
            Destination::Topic(arn) => {
                let topics = providers.and_then(|p| p.topics.as_ref());
                let exists = match topics {
                    Some(topics) => !arn.ends_with(".fifo") && topics.exists(caller, arn).await,
                    None => false,
                };
                (!exists).then(|| (arn.to_owned(), "The destination topic does not exist".to_owned()))
            }
            Destination::Function(arn) => {
                let functions = providers.and_then(|p| p.functions.as_ref());
                let invocable = match functions {
                    Some(functions) => functions
                        .invoke(
                            caller,
                            invocation(arn, Some(bucket_arn), InvocationType::DryRun, Vec::new()),
                        )
                        .await
                        .is_ok(),
                    None => false,
                };
                // The `, null` is the configuration's invocation role, which S3 no longer takes.
                (!invocable).then(|| {
                    (
                        format!("{arn}, null"),
                        format!("Not authorized to invoke function [{arn}]"),
                    )
                })
            }
        }
    }

    /// The `s3:TestEvent` S3 sends each queue and topic of a configuration it stores.
    pub(crate) async fn send_test_events(
        &self,
        bucket: &str,
        config: &NotificationConfiguration,
        ctx: &RequestContext,
    ) {
        let caller = Caller::service(S3_PRINCIPAL, &ctx.account_id, &ctx.region);
        let body = notify::test_message(bucket, &ctx.request_id, self.now_ms());
        for configured in notify::configured(config) {
            if !matches!(configured.destination, Destination::Function(_)) {
                self.deliver(caller, configured.destination, body.clone()).await;
            }
        }
    }

    /// Queues `event` for the destinations the bucket's notification configuration names for
    /// it. Delivery is after the change it reports and never fails it, as on AWS; a failed
    /// delivery is logged.
    pub(crate) async fn notify(&self, event: notify::Event<'_>) {
        let Some(outbox) = &self.notifications else { return };
        let config: Option<NotificationConfiguration> = self
            .typed_config(event.bucket, config::NOTIFICATION, &schema::NOTIFICATION_CONFIGURATION)
            .ok()
            .flatten();
        let Some(config) = config else { return };
        let Ok(bucket) = self.store().and_then(|db| store::bucket(&db, event.bucket)) else {
            return;
        };
        let notifications: Vec<Notification> = notify::destinations(&config, &event)
            .into_iter()
            .map(|configured| Notification {
                destination: Target::of(configured.destination),
                body: notify::message(&event, configured.id, &bucket.owner),
                trace_header: event.trace_header.map(str::to_owned),
            })
            .collect();
        if notifications.is_empty() {
            return;
        }
        let namespace = Namespace::regional(&bucket.owner, &bucket.region, "s3");
        let queued = outbox.clone();
        let written = match self.storage.store(&namespace, Durability::Strict) {
            Ok(store) => {
                store
                    .transact_async(move |tx| {
                        notifications
                            .into_iter()
                            .try_for_each(|notification| queued.put(tx, notification))
                    })
                    .await
            }
            Err(e) => Err(e),
        };
        match written {
            Ok(()) => outbox.wake(&bucket.owner, &bucket.region),
            Err(e) => tracing::error!(bucket = event.bucket, error = %e, "S3 event notifications not queued"),
        }
    }

    async fn deliver(&self, caller: Caller<'_>, destination: Destination<'_>, body: String) {
        if let Err(e) = self.send(caller, destination, body, None).await {
            tracing::warn!(destination = ?destination, error = e.message, "S3 event notification not delivered");
        }
    }

    async fn send(
        &self,
        caller: Caller<'_>,
        destination: Destination<'_>,
        body: String,
        trace_header: Option<String>,
    ) -> Result<(), AwsError> {
        let missing = || AwsError::new("NotFound", "the destination's service is not running", 404);
        let Some(providers) = self.providers() else {
            return Err(missing());
        };
        match destination {
            Destination::Queue(arn) => match &providers.messages {
                Some(queues) => {
                    let message = QueueMessage {
                        trace_header,
                        ..QueueMessage::plain(body)
                    };
                    queues.send_message(caller, arn, message).await
                }
                None => Err(missing()),
            },
            Destination::Topic(arn) => match &providers.topics {
                Some(topics) => topics.publish(caller, publication(arn, body)).await.map(drop),
                None => Err(missing()),
            },
            Destination::Function(arn) => match &providers.functions {
                Some(functions) => functions
                    .invoke(caller, invocation(arn, None, InvocationType::Event, body.into_bytes()))
                    .await
                    .map(drop),
                None => Err(missing()),
            },
        }
    }
}

/// One attempt at a notification: a destination that is gone or refuses it (a client-side
/// error) drops it; a server-side error or throttling is retried, backing off from a second, up to
/// [`ATTEMPTS`] attempts.
impl Courier<Notification> for S3Service {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<Notification>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let notification = &entry.item;
            let caller = Caller::service(S3_PRINCIPAL, &to.account, &to.region);
            let destination = notification.destination.as_destination();
            let sent = self.send(
                caller,
                destination,
                notification.body.clone(),
                notification.trace_header.clone(),
            );
            let Err(e) = sent.await else {
                return Next::Done;
            };
            let attempts = entry.attempts + 1;
            let server_side = e.http_status >= 500 || e.http_status == 429;
            if server_side && attempts < ATTEMPTS {
                return Next::Retry(Duration::from_secs(1 << attempts.min(8)));
            }
            tracing::warn!(destination = ?destination, error = e.message, attempts, "S3 event notification not delivered");
            Next::Done
        })
    }
}

/// An invocation of `arn`; `bucket_arn`, when given, is the bucket S3 invokes for (checked
/// on a dry run only: the check is made when the configuration is put).
fn invocation(arn: &str, bucket_arn: Option<&str>, invocation_type: InvocationType, payload: Vec<u8>) -> Invocation {
    Invocation {
        function: arn.to_owned(),
        qualifier: None,
        invocation_type,
        payload,
        source_arn: bucket_arn.map(str::to_owned),
    }
}

fn publication(arn: &str, message: String) -> Publication {
    Publication {
        topic_arn: arn.to_owned(),
        subject: Some(SUBJECT.to_owned()),
        message,
        attributes: BTreeMap::new(),
        group_id: None,
        dedup_id: None,
    }
}
