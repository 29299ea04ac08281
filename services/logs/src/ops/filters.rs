//! Metric filters (PutMetricFilter, DescribeMetricFilters, DeleteMetricFilter,
//! TestMetricFilter) and subscription filters (PutSubscriptionFilter,
//! DescribeSubscriptionFilters, DeleteSubscriptionFilter), stored per group with their filter
//! pattern checked by the same parser FilterLogEvents uses.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::{Direction, KeyRange};

use crate::error::{invalid_parameter, invalid_token, limit_exceeded, not_found, Result};
use crate::filter_pattern::FilterPattern;
use crate::records::{
    group_key, pair_key, MetricFilterRecord, SubscriptionRecord, TransformationRecord, METRIC_FILTERS,
    SUBSCRIPTION_FILTERS,
};
use crate::service::{load_group, LogsService};

const METRIC_LISTING: Token = Token::for_listing("logs:DescribeMetricFilters");
const SUBSCRIPTION_LISTING: Token = Token::for_listing("logs:DescribeSubscriptionFilters");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};
/// CloudWatch Logs quotas: 100 metric filters and 2 subscription filters per log group.
const MAX_METRIC_FILTERS: usize = 100;
const MAX_SUBSCRIPTION_FILTERS: usize = 2;

fn checked_pattern(pattern: &str) -> Result<FilterPattern> {
    FilterPattern::parse(pattern).map_err(|e| invalid_parameter(e.to_string()))
}

fn decode_after(listing: &Token, token: Option<&str>) -> Result<Option<Vec<u8>>> {
    token
        .map(|t| listing.decode(t).map_err(|_| invalid_token()))
        .transpose()
}

pub(crate) async fn put_metric_filter(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutMetricFilterRequest,
) -> Result<Unit, AwsError> {
    let pattern = checked_pattern(&input.filter_pattern)?;
    for transformation in &input.metric_transformations {
        let dimensioned = transformation.dimensions.as_ref().is_some_and(|d| !d.is_empty());
        // AWS's words, as Terraform and CloudFormation users have met them.
        if dimensioned && !matches!(pattern, FilterPattern::Json(_) | FilterPattern::Fields(_)) {
            return Err(invalid_parameter("The specified filter pattern does not support dimensions").into());
        }
        if dimensioned && transformation.default_value.is_some() {
            return Err(invalid_parameter(
                "Invalid metric transformation: dimensions and default value are mutually exclusive properties",
            )
            .into());
        }
    }
    let now = ctx.clock.epoch_millis();
    let record = MetricFilterRecord {
        group: input.log_group_name,
        name: input.filter_name,
        pattern: input.filter_pattern,
        transformations: input
            .metric_transformations
            .into_iter()
            .map(|t| TransformationRecord {
                name: t.metric_name,
                namespace: t.metric_namespace,
                value: t.metric_value,
                default_value: t.default_value,
                dimensions: t.dimensions,
                unit: t.unit.map(|u| u.as_str().to_owned()),
            })
            .collect(),
        creation_time: now,
        apply_on_transformed_logs: input.apply_on_transformed_logs,
    };
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        load_group(&*tx, &record.group)?;
        let key = pair_key(&record.group, &record.name);
        let existing = METRIC_FILTERS.scan_prefix(&*tx, group_key(&record.group))?;
        if existing.len() >= MAX_METRIC_FILTERS && !existing.iter().any(|(k, _)| *k == key) {
            return Err(limit_exceeded("Resource limit exceeded."));
        }
        METRIC_FILTERS.put(tx, key, &record)?;
        Ok(Unit {})
    })
    .await
}

fn metric_filter(r: MetricFilterRecord) -> MetricFilter {
    MetricFilter {
        filter_name: Some(r.name),
        filter_pattern: Some(r.pattern),
        metric_transformations: Some(
            r.transformations
                .into_iter()
                .map(|t| MetricTransformation {
                    metric_name: t.name,
                    metric_namespace: t.namespace,
                    metric_value: t.value,
                    default_value: t.default_value,
                    dimensions: t.dimensions,
                    unit: t.unit.as_deref().map(StandardUnit::from_wire),
                })
                .collect(),
        ),
        creation_time: Some(r.creation_time),
        log_group_name: Some(r.group),
        apply_on_transformed_logs: r.apply_on_transformed_logs,
        ..MetricFilter::default()
    }
}

pub(crate) async fn describe_metric_filters(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeMetricFiltersRequest,
) -> Result<DescribeMetricFiltersResponse, AwsError> {
    if input.metric_name.is_some() != input.metric_namespace.is_some() {
        return Err(invalid_parameter("metricName and metricNamespace must both be specified, or neither.").into());
    }
    let after = decode_after(&METRIC_LISTING, input.next_token.as_deref())?;
    let size = PAGE.clamp(input.limit);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let range = match &input.log_group_name {
            Some(group) => {
                load_group(store, group)?;
                KeyRange::prefix(&group_key(group))
            }
            None => KeyRange::all(),
        };
        let prefix = input.filter_name_prefix.as_deref().unwrap_or("");
        // AWS lists metric filters by name, whatever their group.
        let mut filters: Vec<MetricFilterRecord> = METRIC_FILTERS
            .scan(store, &range, Direction::Forward, None)?
            .into_iter()
            .map(|(_, f)| f)
            .filter(|f| f.name.starts_with(prefix))
            .filter(|f| {
                input.metric_name.as_ref().is_none_or(|name| {
                    f.transformations
                        .iter()
                        .any(|t| &t.name == name && Some(&t.namespace) == input.metric_namespace.as_ref())
                })
            })
            .collect();
        filters.sort_by(|a, b| (&a.name, &a.group).cmp(&(&b.name, &b.group)));
        let position = |f: &MetricFilterRecord| pair_key(&f.name, &f.group);
        let rest = filters
            .into_iter()
            .filter(|f| after.as_ref().is_none_or(|a| position(f) > *a));
        let (page, more) = take_page(rest, size);
        let next_token = more
            .then(|| page.last().map(|f| METRIC_LISTING.encode(&position(f))))
            .flatten();
        Ok(DescribeMetricFiltersResponse {
            metric_filters: Some(page.into_iter().map(metric_filter).collect()),
            next_token,
        })
    })
    .await
}

pub(crate) async fn delete_metric_filter(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteMetricFilterRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        load_group(&*tx, &input.log_group_name)?;
        let key = pair_key(&input.log_group_name, &input.filter_name);
        if METRIC_FILTERS.get(&*tx, &key)?.is_none() {
            return Err(not_found("The specified resource does not exist."));
        }
        METRIC_FILTERS.delete(tx, key);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn test_metric_filter(
    _logs: &LogsService,
    _ctx: &RequestContext,
    input: TestMetricFilterRequest,
) -> Result<TestMetricFilterResponse, AwsError> {
    let pattern = checked_pattern(&input.filter_pattern)?;
    let matches = input
        .log_event_messages
        .into_iter()
        .enumerate()
        .filter_map(|(i, message)| {
            pattern.extract(&message).map(|values| MetricFilterMatchRecord {
                event_number: i as i64 + 1,
                extracted_values: Some(values),
                event_message: Some(message),
            })
        })
        .collect();
    Ok(TestMetricFilterResponse { matches: Some(matches) })
}

pub(crate) async fn put_subscription_filter(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutSubscriptionFilterRequest,
) -> Result<Unit, AwsError> {
    let arn = &input.destination_arn;
    // Checked before anything else, the log group included (AWS's recorded answers).
    if arn.contains(":lambda:") && arn.split(':').nth(4) != Some(ctx.account_id.as_str()) {
        return Err(AwsError::new(
            "AccessDeniedException",
            "Cross-account lambda invocation passing is not allowed. You must use DestinationPolicies to create cross account lambda triggers.",
            400,
        ));
    }
    checked_pattern(&input.filter_pattern)?;
    if (arn.contains(":kinesis:") || arn.contains(":firehose:")) && input.role_arn.is_none() {
        let vendor = if arn.contains(":kinesis:") {
            "kinesis"
        } else {
            "firehose"
        };
        return Err(invalid_parameter(format!(
            "destinationArn for vendor {vendor} cannot be used without roleArn"
        ))
        .into());
    }
    match arn.split(':').nth(2) {
        Some("lambda") => logs.check_function(ctx, &input.log_group_name, arn).await?,
        Some("firehose") => logs.check_delivery_stream(ctx, arn).await?,
        _ => {}
    }
    let record = SubscriptionRecord {
        group: input.log_group_name,
        name: input.filter_name,
        pattern: input.filter_pattern,
        destination_arn: input.destination_arn,
        role_arn: input.role_arn,
        distribution: input
            .distribution
            .map_or_else(|| "ByLogStream".to_owned(), |d| d.as_str().to_owned()),
        creation_time: ctx.clock.epoch_millis(),
        apply_on_transformed_logs: input.apply_on_transformed_logs,
    };
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        load_group(&*tx, &record.group)?;
        let key = pair_key(&record.group, &record.name);
        let existing = SUBSCRIPTION_FILTERS.scan_prefix(&*tx, group_key(&record.group))?;
        if existing.len() >= MAX_SUBSCRIPTION_FILTERS && !existing.iter().any(|(k, _)| *k == key) {
            return Err(limit_exceeded("Resource limit exceeded."));
        }
        SUBSCRIPTION_FILTERS.put(tx, key, &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn describe_subscription_filters(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeSubscriptionFiltersRequest,
) -> Result<DescribeSubscriptionFiltersResponse, AwsError> {
    let after = decode_after(&SUBSCRIPTION_LISTING, input.next_token.as_deref())?;
    let size = PAGE.clamp(input.limit);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        load_group(store, &input.log_group_name)?;
        let prefix = input.filter_name_prefix.as_deref().unwrap_or("");
        let filters = SUBSCRIPTION_FILTERS
            .scan_prefix(store, group_key(&input.log_group_name))?
            .into_iter()
            .filter(|(key, _)| after.as_ref().is_none_or(|a| key > a))
            .filter(|(_, f)| f.name.starts_with(prefix));
        let (page, more) = take_page(filters, size);
        let next_token = more
            .then(|| page.last().map(|(k, _)| SUBSCRIPTION_LISTING.encode(k)))
            .flatten();
        Ok(DescribeSubscriptionFiltersResponse {
            subscription_filters: Some(
                page.into_iter()
                    .map(|(_, f)| SubscriptionFilter {
                        filter_name: Some(f.name),
                        log_group_name: Some(f.group),
                        filter_pattern: Some(f.pattern),
                        destination_arn: Some(f.destination_arn),
                        role_arn: f.role_arn,
                        distribution: Some(Distribution::from_wire(&f.distribution)),
                        apply_on_transformed_logs: f.apply_on_transformed_logs,
                        creation_time: Some(f.creation_time),
                        ..SubscriptionFilter::default()
                    })
                    .collect(),
            ),
            next_token,
        })
    })
    .await
}

pub(crate) async fn delete_subscription_filter(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteSubscriptionFilterRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        load_group(&*tx, &input.log_group_name)?;
        let key = pair_key(&input.log_group_name, &input.filter_name);
        if SUBSCRIPTION_FILTERS.get(&*tx, &key)?.is_none() {
            return Err(not_found("The specified subscription filter does not exist."));
        }
        SUBSCRIPTION_FILTERS.delete(tx, key);
        Ok(Unit {})
    })
    .await
}
