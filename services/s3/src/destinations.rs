//! Delivering event notifications: the queues (SQS), topics (SNS) and functions (Lambda) a
//! bucket's notification configuration names, reached through the capabilities the binary
//! wires in once every service has registered.

use std::collections::BTreeMap;

use stratus_core::service::capabilities::{Invocation, InvocationType, Publication};
use stratus_core::service::{Caller, Providers};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::NotificationConfiguration;

use crate::error::S3Error;
use crate::notify::{self, Destination};
use crate::{config, schema, store, S3Service, S3_PRINCIPAL};

/// The subject of the SNS messages S3 publishes.
const SUBJECT: &str = "Amazon S3 Notification";

impl S3Service {
    fn providers(&self) -> Option<&Providers> {
        self.destinations.get()
    }

    /// Refuses a notification configuration one of whose destinations cannot be delivered to:
    /// missing, a FIFO queue or topic (S3 cannot send to those), or its service not running —
    /// AWS's "Unable to validate the following destination configurations".
    pub(crate) async fn check_destinations(
        &self,
        ctx: &RequestContext,
        config: &NotificationConfiguration,
    ) -> Result<(), AwsError> {
        let caller = Caller::service(S3_PRINCIPAL, &ctx.account_id, &ctx.region);
        for configured in notify::configured(config) {
            if !self.deliverable(caller, configured.destination).await {
                return Err(S3Error::invalid_argument(
                    "Unable to validate the following destination configurations",
                ));
            }
        }
        Ok(())
    }

    async fn deliverable(&self, caller: Caller<'_>, destination: Destination<'_>) -> bool {
        let Some(providers) = self.providers() else {
            return false;
        };
        match destination {
            Destination::Queue(arn) => match &providers.messages {
                Some(queues) => !arn.ends_with(".fifo") && queues.exists(caller, arn).await,
                None => false,
            },
            Destination::Topic(arn) => match &providers.topics {
                Some(topics) => !arn.ends_with(".fifo") && topics.exists(caller, arn).await,
                None => false,
            },
            Destination::Function(arn) => match &providers.functions {
                Some(functions) => functions
                    .invoke(caller, invocation(arn, InvocationType::DryRun, Vec::new()))
                    .await
                    .is_ok(),
                None => false,
            },
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

    /// Sends `event` to the destinations the bucket's notification configuration names for
    /// it. Delivery is after the change it reports and never fails it, as on AWS; a failed
    /// delivery is logged.
    pub(crate) async fn notify(&self, event: notify::Event<'_>) {
        if self.providers().is_none() {
            return;
        }
        let config: Option<NotificationConfiguration> = self
            .typed_config(event.bucket, config::NOTIFICATION, &schema::NOTIFICATION_CONFIGURATION)
            .ok()
            .flatten();
        let Some(config) = config else { return };
        let Ok(bucket) = self.store().and_then(|db| store::bucket(&db, event.bucket)) else {
            return;
        };
        let caller = Caller::service(S3_PRINCIPAL, &bucket.owner, &bucket.region);
        for configured in notify::destinations(&config, &event) {
            let body = notify::message(&event, configured.id, &bucket.owner);
            self.deliver(caller, configured.destination, body).await;
        }
    }

    async fn deliver(&self, caller: Caller<'_>, destination: Destination<'_>, body: String) {
        let Some(providers) = self.providers() else { return };
        let missing = || AwsError::new("NotFound", "the destination's service is not running", 404);
        let (arn, delivered) = match destination {
            Destination::Queue(arn) => (
                arn,
                match &providers.messages {
                    Some(queues) => queues.send(caller, arn, body).await,
                    None => Err(missing()),
                },
            ),
            Destination::Topic(arn) => (
                arn,
                match &providers.topics {
                    Some(topics) => topics.publish(caller, publication(arn, body)).await.map(drop),
                    None => Err(missing()),
                },
            ),
            Destination::Function(arn) => (
                arn,
                match &providers.functions {
                    Some(functions) => functions
                        .invoke(caller, invocation(arn, InvocationType::Event, body.into_bytes()))
                        .await
                        .map(drop),
                    None => Err(missing()),
                },
            ),
        };
        if let Err(e) = delivered {
            tracing::warn!(
                destination = arn,
                error = e.message,
                "S3 event notification not delivered"
            );
        }
    }
}

fn invocation(arn: &str, invocation_type: InvocationType, payload: Vec<u8>) -> Invocation {
    Invocation {
        function: arn.to_owned(),
        qualifier: None,
        invocation_type,
        payload,
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
