//! Amazon Simple Notification Service: standard and FIFO topics, subscriptions, and durable
//! deliveries to SQS queues and Lambda functions.
//!
//! State lives in the `sns` store of each account and region, written with strict
//! durability before an operation answers. Tables:
//!
//! - `topics`: [`topics::TopicRecord`] by topic name (attributes, tags, data protection
//!   policy, the FIFO sequence counter);
//! - `subscriptions`: [`subscriptions::SubscriptionRecord`] by (topic name, subscription id),
//!   the id being the subscription ARN's last part, so a topic's subscriptions scan together;
//! - `tokens`: pending subscriptions' confirmation tokens;
//! - `dedup`: FIFO deduplication ids by (topic name, id), for five minutes;
//! - `pending_deliveries`: the outbox (`stratus-outbox`) of [`delivery::Delivery`] records,
//!   one per subscription of each accepted message, written in the transaction that
//!   acknowledges the Publish and drained on the binary's runtime (after a restart too);
//! - `applications`, `endpoints`: mobile push applications by `PLATFORM/NAME`, and their
//!   endpoints by (application, id); nothing is pushed;
//! - `settings`: the account's SMS attributes;
//! - `signing_keys`: the region's message-signing key and its certificate ([`signing`]).
//!
//! A subscription's `FilterPolicy` (attribute or body scope) is checked and matched by
//! `stratus-event-pattern`, the matcher EventBridge shares.
//!
//! Deliveries go through the capabilities other services provide: SQS's
//! [`MessageSink`](stratus_core::service::MessageSink) and Lambda's
//! [`FunctionInvoker`](stratus_core::service::FunctionInvoker). SNS provides
//! [`TopicPublisher`](stratus_core::service::TopicPublisher) and its topics'
//! [`ResourcePolicies`](stratus_core::service::ResourcePolicies).

mod capability;
mod delivery;
mod envelope;
mod error;
mod filter;
mod http;
mod messages;
mod names;
mod ops;
mod platform;
mod publish;
mod service;
mod signing;
mod store;
mod subscriptions;
mod topics;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_sns::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::SnsService;

/// Builds SNS when the binary serves it, delivering through the queues and functions
/// registered before it, and resumes the deliveries a previous run left queued.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sns = SnsService::new(env);
    sns.shared.deliveries.start(Arc::new(sns.clone()));
    Registration {
        handlers: vec![Arc::new(Handler(sns.clone()))],
        provides: Providers {
            topics: Some(Arc::new(sns.clone())),
            resource_policies: vec![Arc::new(sns.clone())],
            ..Providers::default()
        },
        endpoints: vec![Arc::new(sns)],
        ..Registration::default()
    }
}

stratus_gen_sns::operations! {
    SnsService;
    create_topic => ops::topics::create_topic,
    delete_topic => ops::topics::delete_topic,
    get_topic_attributes => ops::topics::get_topic_attributes,
    set_topic_attributes => ops::topics::set_topic_attributes,
    list_topics => ops::topics::list_topics,
    add_permission => ops::topics::add_permission,
    remove_permission => ops::topics::remove_permission,
    get_data_protection_policy => ops::topics::get_data_protection_policy,
    put_data_protection_policy => ops::topics::put_data_protection_policy,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    subscribe => ops::subscriptions::subscribe,
    confirm_subscription => ops::subscriptions::confirm_subscription,
    unsubscribe => ops::subscriptions::unsubscribe,
    get_subscription_attributes => ops::subscriptions::get_subscription_attributes,
    set_subscription_attributes => ops::subscriptions::set_subscription_attributes,
    list_subscriptions => ops::subscriptions::list_subscriptions,
    list_subscriptions_by_topic => ops::subscriptions::list_subscriptions_by_topic,
    publish => ops::publishing::publish,
    publish_batch => ops::publishing::publish_batch,
    set_sms_attributes => ops::sms::set_sms_attributes,
    get_sms_attributes => ops::sms::get_sms_attributes,
    check_if_phone_number_is_opted_out => ops::sms::check_if_phone_number_is_opted_out,
    opt_in_phone_number => ops::sms::opt_in_phone_number,
    list_phone_numbers_opted_out => ops::sms::list_phone_numbers_opted_out,
    get_sms_sandbox_account_status => ops::sms::get_sms_sandbox_account_status,
    create_platform_application => ops::platform::create_platform_application,
    get_platform_application_attributes => ops::platform::get_platform_application_attributes,
    set_platform_application_attributes => ops::platform::set_platform_application_attributes,
    delete_platform_application => ops::platform::delete_platform_application,
    list_platform_applications => ops::platform::list_platform_applications,
    create_platform_endpoint => ops::platform::create_platform_endpoint,
    get_endpoint_attributes => ops::platform::get_endpoint_attributes,
    set_endpoint_attributes => ops::platform::set_endpoint_attributes,
    delete_endpoint => ops::platform::delete_endpoint,
    list_endpoints_by_platform_application => ops::platform::list_endpoints_by_platform_application,
}
