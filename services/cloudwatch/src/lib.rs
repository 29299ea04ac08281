//! Amazon CloudWatch: metrics (PutMetricData with AWS's checks, exact statistics and
//! percentiles, GetMetricData with metric math, ListMetrics), dashboards, metric and
//! composite alarms evaluated on the scheduler with SNS actions, tags — and the
//! [`MetricSink`](stratus_core::service::MetricSink) other services record their metrics
//! through.
//!
//! State lives in the `cloudwatch` store of each account and region. Metric tables are
//! written with **relaxed** durability (a crash may lose the last moments of data,
//! docs/services/cloudwatch.md); the rest strictly. Tables:
//!
//! - `metrics`: [`samples::MetricRecord`] by metric key ([`metric`]: namespace, name,
//!   dimensions), with the last put time and the samples held (bounded by
//!   [`samples::MAX_STORED_SAMPLES`] per account and region);
//! - `samples`: [`stats::Sample`] rows by (metric key, timestamp, sequence);
//! - `alarms`: [`alarms::AlarmRecord`] by name, metric and composite alike;
//! - `alarm_history`: [`alarms::HistoryRecord`] by (time, sequence), read back 30 days;
//! - `pending_notifications`: the outbox of alarm notifications on their way to SNS.
//!
//! Dashboards live in the account's global `cloudwatch` store (`dashboards`, by name).
//! Nothing runs while no alarm exists ([`alarms::evaluate`]).

mod alarms;
mod capability;
mod dates;
mod error;
mod math;
mod metric;
mod ops;
mod query;
mod regions;
mod samples;
mod service;
mod stats;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_cloudwatch::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::CloudWatchService;

/// Builds CloudWatch when the binary serves it, with SNS's topics for alarm actions, resumes
/// the alarm evaluation and notifications a previous run left, and offers its metrics as the
/// [`MetricSink`](stratus_core::service::MetricSink) of the services registered after it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let cloudwatch = CloudWatchService::new(env);
    cloudwatch.shared.notifications.start(Arc::new(cloudwatch.clone()));
    cloudwatch.resume_evaluation();
    Registration {
        handlers: vec![Arc::new(Handler(cloudwatch.clone()))],
        provides: Providers {
            metrics: Some(Arc::new(cloudwatch)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_cloudwatch::operations! {
    CloudWatchService;
    put_metric_data => ops::metrics::put_metric_data,
    get_metric_statistics => ops::metrics::get_metric_statistics,
    get_metric_data => ops::metrics::get_metric_data,
    list_metrics => ops::metrics::list_metrics,
    put_metric_alarm => ops::alarms::put_metric_alarm,
    put_composite_alarm => ops::alarms::put_composite_alarm,
    describe_alarms => ops::alarms::describe_alarms,
    describe_alarms_for_metric => ops::alarms::describe_alarms_for_metric,
    delete_alarms => ops::alarms::delete_alarms,
    set_alarm_state => ops::alarms::set_alarm_state,
    enable_alarm_actions => ops::alarms::enable_alarm_actions,
    disable_alarm_actions => ops::alarms::disable_alarm_actions,
    describe_alarm_history => ops::alarms::describe_alarm_history,
    put_dashboard => ops::dashboards::put_dashboard,
    get_dashboard => ops::dashboards::get_dashboard,
    list_dashboards => ops::dashboards::list_dashboards,
    delete_dashboards => ops::dashboards::delete_dashboards,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    put_insight_rule => ops::refused::put_insight_rule,
    put_managed_insight_rules => ops::refused::put_managed_insight_rules,
    delete_insight_rules => ops::refused::delete_insight_rules,
    enable_insight_rules => ops::refused::enable_insight_rules,
    disable_insight_rules => ops::refused::disable_insight_rules,
    describe_insight_rules => ops::refused::describe_insight_rules,
    get_insight_rule_report => ops::refused::get_insight_rule_report,
    list_managed_insight_rules => ops::refused::list_managed_insight_rules,
    describe_alarm_contributors => ops::refused::describe_alarm_contributors,
    put_metric_stream => ops::refused::put_metric_stream,
    get_metric_stream => ops::refused::get_metric_stream,
    delete_metric_stream => ops::refused::delete_metric_stream,
    list_metric_streams => ops::refused::list_metric_streams,
    start_metric_streams => ops::refused::start_metric_streams,
    stop_metric_streams => ops::refused::stop_metric_streams,
    put_anomaly_detector => ops::refused::put_anomaly_detector,
    delete_anomaly_detector => ops::refused::delete_anomaly_detector,
    describe_anomaly_detectors => ops::refused::describe_anomaly_detectors,
    get_metric_widget_image => ops::refused::get_metric_widget_image,
}
