//! Amazon EventBridge: event buses, rules and their targets, PutEvents with durable
//! deliveries (retries, dead-letter queues), archives and replays.
//!
//! State lives in the `events` store of each account and region, written with strict
//! durability before an operation answers. Tables:
//!
//! - `buses`: [`records::BusRecord`] by name; the account's `default` bus exists without a
//!   record until something changes it;
//! - `rules`: [`records::RuleRecord`] by (bus, name), with the rule's targets, each kept as the
//!   model's `Target` JSON;
//! - `pending_deliveries`: the outbox (`stratus-outbox`) of [`records::Delivery`]s, one per
//!   (event, matching target), written in the transaction that acknowledges `PutEvents` and
//!   removed once made, retried or given to the dead-letter queue ([`delivery`]);
//! - `archives`, `archived`: archives by name and the events they kept, by (archive, time, id);
//! - `replays`: replays by name;
//! - `connections`, `api_destinations`: by name, answered as AWS does (no HTTP calls).
//!
//! Deliveries go to SQS (`MessageSink`), Lambda (`FunctionInvoker`, as `Event` invocations),
//! SNS (`TopicPublisher`) and other buses; nothing runs while no delivery is pending. Enabled
//! `rate(…)` rules fire on the scheduler ([`scheduled`]).

mod cron;
mod delivery;
mod error;
mod event;
mod listing;
mod ops;
mod records;
mod schedule;
mod scheduled;
mod service;
mod transform;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_eventbridge::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::EventsService;

/// Builds EventBridge when the binary serves it: its buses are the
/// [`EventBus`](stratus_core::service::EventBus) other services put events on.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let events = EventsService::new(env);
    events.shared.deliveries.start(Arc::new(events.clone()));
    events.resume_schedules();
    Registration {
        handlers: vec![Arc::new(Handler(events.clone()))],
        provides: Providers {
            events: Some(Arc::new(events)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_eventbridge::operations! {
    EventsService;
    create_event_bus => ops::buses::create_event_bus,
    delete_event_bus => ops::buses::delete_event_bus,
    describe_event_bus => ops::buses::describe_event_bus,
    update_event_bus => ops::buses::update_event_bus,
    list_event_buses => ops::buses::list_event_buses,
    put_permission => ops::buses::put_permission,
    remove_permission => ops::buses::remove_permission,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    put_rule => ops::rules::put_rule,
    describe_rule => ops::rules::describe_rule,
    delete_rule => ops::rules::delete_rule,
    enable_rule => ops::rules::enable_rule,
    disable_rule => ops::rules::disable_rule,
    list_rules => ops::rules::list_rules,
    list_rule_names_by_target => ops::rules::list_rule_names_by_target,
    test_event_pattern => ops::rules::test_event_pattern,
    put_targets => ops::targets::put_targets,
    remove_targets => ops::targets::remove_targets,
    list_targets_by_rule => ops::targets::list_targets_by_rule,
    put_events => ops::events::put_events,
    create_archive => ops::archives::create_archive,
    describe_archive => ops::archives::describe_archive,
    list_archives => ops::archives::list_archives,
    update_archive => ops::archives::update_archive,
    delete_archive => ops::archives::delete_archive,
    start_replay => ops::archives::start_replay,
    describe_replay => ops::archives::describe_replay,
    list_replays => ops::archives::list_replays,
    cancel_replay => ops::archives::cancel_replay,
    create_connection => ops::connections::create_connection,
    describe_connection => ops::connections::describe_connection,
    update_connection => ops::connections::update_connection,
    deauthorize_connection => ops::connections::deauthorize_connection,
    delete_connection => ops::connections::delete_connection,
    list_connections => ops::connections::list_connections,
    create_api_destination => ops::connections::create_api_destination,
    describe_api_destination => ops::connections::describe_api_destination,
    update_api_destination => ops::connections::update_api_destination,
    delete_api_destination => ops::connections::delete_api_destination,
    list_api_destinations => ops::connections::list_api_destinations,
    describe_event_source => ops::refused::describe_event_source,
    describe_partner_event_source => ops::refused::describe_partner_event_source,
    activate_event_source => ops::refused::activate_event_source,
    deactivate_event_source => ops::refused::deactivate_event_source,
    list_event_sources => ops::refused::list_event_sources,
    put_partner_events => ops::refused::put_partner_events,
}
