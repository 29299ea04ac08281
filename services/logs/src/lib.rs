//! Amazon CloudWatch Logs: log groups and streams, PutLogEvents with AWS's rules,
//! GetLogEvents and FilterLogEvents with AWS's filter pattern syntax, retention applied on the
//! scheduler, metric and subscription filters, tags, Logs Insights queries — and the
//! [`LogWriter`](stratus_core::service::LogWriter) other services write their logs through.
//!
//! State lives in the `logs` store of each account and region, with **relaxed** durability:
//! log data may lose its last moments to a crash (docs/services/logs.md). Tables:
//!
//! - `groups`: [`records::GroupRecord`] by name (tags, retention, class);
//! - `streams`: [`records::StreamRecord`] by (group, stream): first and last event times, last
//!   ingestion, the next sequence number, the bytes its events hold (summed against the
//!   bound of [`ingest::MAX_STORED_BYTES`] per account and region);
//! - `events`: raw rows by (group, stream, timestamp, sequence number) — the ingestion time and
//!   the message ([`events`]);
//! - `metric_filters`, `subscription_filters`: by (group, filter name);
//! - `destinations`, `resource_policies`, `export_tasks`: by name or id;
//! - `queries`: Logs Insights queries by id, with their results ([`insights`]);
//! - `delivery_sources`, `delivery_destinations`, `deliveries`: vended-log deliveries;
//!
//! Nothing runs while no group has a retention policy ([`retention`]).

mod capability;
mod emf;
mod error;
mod events;
mod filter_pattern;
mod ingest;
mod insights;
mod metric_filters;
mod ops;
mod records;
mod retention;
mod service;
mod subscriptions;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_cloudwatch_logs::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::LogsService;

/// Builds CloudWatch Logs when the binary serves it: its groups are the
/// [`LogWriter`](stratus_core::service::LogWriter) other services write to.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let logs = LogsService::new(
        env.storage.clone(),
        env.scheduler.clone(),
        env.spawner,
        env.providers,
        env.late.clone(),
    );
    logs.resume_retention();
    logs.shared.deliveries.start(Arc::new(logs.clone()));
    Registration {
        handlers: vec![Arc::new(Handler(logs.clone()))],
        provides: Providers {
            logs: Some(Arc::new(logs)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_cloudwatch_logs::operations! {
    LogsService;
    create_log_group => ops::groups::create_log_group,
    delete_log_group => ops::groups::delete_log_group,
    describe_log_groups => ops::groups::describe_log_groups,
    list_log_groups => ops::groups::list_log_groups,
    put_retention_policy => ops::groups::put_retention_policy,
    delete_retention_policy => ops::groups::delete_retention_policy,
    put_log_group_deletion_protection => ops::groups::put_log_group_deletion_protection,
    associate_kms_key => ops::groups::associate_kms_key,
    disassociate_kms_key => ops::groups::disassociate_kms_key,
    create_log_stream => ops::streams::create_log_stream,
    delete_log_stream => ops::streams::delete_log_stream,
    describe_log_streams => ops::streams::describe_log_streams,
    put_log_events => ops::events::put_log_events,
    get_log_events => ops::events::get_log_events,
    filter_log_events => ops::events::filter_log_events,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    tag_log_group => ops::tags::tag_log_group,
    untag_log_group => ops::tags::untag_log_group,
    list_tags_log_group => ops::tags::list_tags_log_group,
    put_metric_filter => ops::filters::put_metric_filter,
    describe_metric_filters => ops::filters::describe_metric_filters,
    delete_metric_filter => ops::filters::delete_metric_filter,
    test_metric_filter => ops::filters::test_metric_filter,
    put_subscription_filter => ops::filters::put_subscription_filter,
    describe_subscription_filters => ops::filters::describe_subscription_filters,
    delete_subscription_filter => ops::filters::delete_subscription_filter,
    put_destination => ops::others::put_destination,
    put_destination_policy => ops::others::put_destination_policy,
    describe_destinations => ops::others::describe_destinations,
    delete_destination => ops::others::delete_destination,
    put_resource_policy => ops::others::put_resource_policy,
    describe_resource_policies => ops::others::describe_resource_policies,
    delete_resource_policy => ops::others::delete_resource_policy,
    create_export_task => ops::others::create_export_task,
    describe_export_tasks => ops::others::describe_export_tasks,
    cancel_export_task => ops::others::cancel_export_task,
    start_query => ops::queries::start_query,
    get_query_results => ops::queries::get_query_results,
    stop_query => ops::queries::stop_query,
    describe_queries => ops::queries::describe_queries,
    put_delivery_source => ops::deliveries::put_delivery_source,
    get_delivery_source => ops::deliveries::get_delivery_source,
    describe_delivery_sources => ops::deliveries::describe_delivery_sources,
    delete_delivery_source => ops::deliveries::delete_delivery_source,
    put_delivery_destination => ops::deliveries::put_delivery_destination,
    get_delivery_destination => ops::deliveries::get_delivery_destination,
    describe_delivery_destinations => ops::deliveries::describe_delivery_destinations,
    delete_delivery_destination => ops::deliveries::delete_delivery_destination,
    put_delivery_destination_policy => ops::deliveries::put_delivery_destination_policy,
    get_delivery_destination_policy => ops::deliveries::get_delivery_destination_policy,
    delete_delivery_destination_policy => ops::deliveries::delete_delivery_destination_policy,
    create_delivery => ops::deliveries::create_delivery,
    get_delivery => ops::deliveries::get_delivery,
    describe_deliveries => ops::deliveries::describe_deliveries,
    update_delivery_configuration => ops::deliveries::update_delivery_configuration,
    delete_delivery => ops::deliveries::delete_delivery,
    put_data_protection_policy => ops::refused::put_data_protection_policy,
    get_data_protection_policy => ops::refused::get_data_protection_policy,
    delete_data_protection_policy => ops::refused::delete_data_protection_policy,
}
