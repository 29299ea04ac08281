//! PutMetricData, GetMetricStatistics, GetMetricData and ListMetrics.

use stratus_core::paging::{take_page, Token};
use stratus_core::{AwsError, DateTime, RequestContext, Unit};
use stratus_gen_cloudwatch::{
    Datapoint, Dimension, DimensionFilter, GetMetricDataInput, GetMetricDataOutput, GetMetricStatisticsInput,
    GetMetricStatisticsOutput, ListMetricsInput, ListMetricsOutput, Metric, MetricDataQuery, MetricDataResult,
    MetricDatum, PutMetricDataInput, RecentlyActive, ScanBy, StandardUnit, StatusCode,
};

use crate::error::{invalid_combination, invalid_next_token, invalid_value, missing, Result};
use crate::metric::{self, MetricId};
use crate::query::{self, check_stat, QuerySpec, StatQuery};
use crate::samples::{aggregates, metrics, Datum, Window};
use crate::service::CloudWatchService;
use crate::stats::{Sample, Stat};

/// PutMetricData's limit on data per request (API reference, PutMetricData).
const MAX_DATA: usize = 1000;
/// Values per datum (API reference, MetricDatum `Values`).
const MAX_VALUES: usize = 150;
/// How far ahead and behind a timestamp may be (API reference, MetricDatum `Timestamp`).
const MAX_AHEAD_MS: i64 = 2 * 3600 * 1000;
const MAX_BEHIND_MS: i64 = 14 * 86_400 * 1000;
/// GetMetricStatistics' most datapoints per call (API reference, GetMetricStatistics).
const MAX_DATAPOINTS: i64 = 1440;
/// GetMetricData's default and largest `MaxDatapoints`.
const DEFAULT_MAX_DATAPOINTS: i32 = 100_800;
/// ListMetrics' page (API reference, ListMetrics: "Up to 500 results are returned").
const LIST_PAGE: usize = 500;
const METRIC_LISTING: Token = Token::for_listing("cloudwatch:ListMetrics");
const DATA_LISTING: Token = Token::for_listing("cloudwatch:GetMetricData");

pub(crate) fn millis(t: &DateTime) -> i64 {
    t.to_millis().unwrap_or(if t.secs() < 0 { i64::MIN } else { i64::MAX })
}

pub(crate) fn dimension_pairs(dimensions: Option<Vec<Dimension>>) -> Vec<(String, String)> {
    dimensions
        .unwrap_or_default()
        .into_iter()
        .map(|d| (d.name, d.value))
        .collect()
}

pub(crate) fn dimensions_out(metric: &MetricId) -> Vec<Dimension> {
    metric
        .dimensions
        .iter()
        .map(|(name, value)| Dimension {
            name: name.clone(),
            value: value.clone(),
        })
        .collect()
}

/// A unit as stored: `None` for AWS's `None`.
pub(crate) fn unit_name(unit: Option<StandardUnit>) -> Option<String> {
    unit.map(|u| u.as_str().to_owned()).filter(|u| u != "None")
}

/// Checks one datum of PutMetricData (`MetricData.member.N`) and makes its sample.
pub(crate) fn datum(namespace: &str, n: usize, d: MetricDatum, now_ms: i64) -> Result<Datum> {
    let path = format!("MetricData.member.{n}");
    let exclusive = |other: &str| {
        invalid_combination(format!(
            "The parameters {path}.Value and {path}.{other} are mutually exclusive and you have specified both."
        ))
    };
    if d.value.is_some() && d.values.is_some() {
        return Err(exclusive("Values"));
    }
    if d.value.is_some() && d.statistic_values.is_some() {
        return Err(exclusive("StatisticValues"));
    }
    if let Some(counts) = &d.counts {
        if d.values.as_ref().map_or(0, Vec::len) != counts.len() {
            return Err(invalid_value(format!(
                "The parameters {path}.Values and {path}.Counts must be of the same size."
            )));
        }
    }
    if d.values.as_ref().is_some_and(|v| v.len() > MAX_VALUES) {
        return Err(invalid_value(format!(
            "The collection {path}.Values must not have a size greater than {MAX_VALUES}."
        )));
    }
    if d.value.is_none() && d.values.is_none() && d.statistic_values.is_none() {
        return Err(missing(format!(
            "The parameter {path}.Value, {path}.Values or {path}.StatisticValues is required."
        )));
    }
    let check = |value: f64, what: &str| {
        // AWS refuses values too large or small in magnitude to store (MetricDatum `Value`).
        let magnitude = value.abs();
        if !value.is_finite() || (magnitude != 0.0 && !(8.515920e-109..=1.174271e+108).contains(&magnitude)) {
            return Err(invalid_value(format!(
                "The value {value} for parameter {path}.{what} is invalid."
            )));
        }
        Ok(())
    };
    let values = d.value.map(|v| vec![v]).or(d.values).unwrap_or_default();
    for v in &values {
        check(*v, if d.value.is_some() { "Value" } else { "Values" })?;
    }
    let counts = d.counts.unwrap_or_default();
    for c in &counts {
        check(*c, "Counts")?;
    }
    let set = match d.statistic_values {
        Some(s) => {
            for (v, what) in [
                (s.sample_count, "SampleCount"),
                (s.sum, "Sum"),
                (s.minimum, "Minimum"),
                (s.maximum, "Maximum"),
            ] {
                check(v, &format!("StatisticValues.{what}"))?;
            }
            if s.minimum > s.maximum {
                return Err(invalid_value(format!(
                    "The parameter {path}.StatisticValues.Maximum must be greater than {path}.StatisticValues.Minimum."
                )));
            }
            Some([s.sample_count, s.sum, s.minimum, s.maximum])
        }
        None => None,
    };
    if let Some(resolution) = d.storage_resolution {
        if resolution != 1 && resolution != 60 {
            return Err(invalid_value(format!(
                "The value {resolution} for parameter {path}.StorageResolution is invalid. Valid values are 1 and 60."
            )));
        }
    }
    let dimensions = dimension_pairs(d.dimensions);
    let mut names: Vec<&str> = dimensions.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(invalid_value(format!(
            "No metric may have duplicate dimension names: {path}.Dimensions."
        )));
    }
    let timestamp_ms = d.timestamp.as_ref().map_or(now_ms, millis);
    if timestamp_ms > now_ms + MAX_AHEAD_MS {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time no more than two hours in the future."
        )));
    }
    if timestamp_ms < now_ms - MAX_BEHIND_MS {
        return Err(invalid_value(format!(
            "The parameter {path}.Timestamp must specify a time within the past two weeks."
        )));
    }
    Ok(Datum {
        metric: MetricId::new(namespace, &d.metric_name, dimensions),
        timestamp_ms,
        sample: Sample {
            unit: unit_name(d.unit),
            values,
            counts: if counts.iter().all(|c| *c == 1.0) {
                Vec::new()
            } else {
                counts
            },
            set,
        },
    })
}

pub(crate) async fn put_metric_data(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: PutMetricDataInput,
) -> Result<Unit, AwsError> {
    let mut data = input.metric_data.unwrap_or_default();
    for entity in input.entity_metric_data.unwrap_or_default() {
        data.extend(entity.metric_data.unwrap_or_default());
    }
    if data.is_empty() {
        return Err(missing("The parameter MetricData is required.").into());
    }
    if data.len() > MAX_DATA {
        return Err(invalid_value(format!(
            "The collection MetricData must not have a size greater than {MAX_DATA}."
        ))
        .into());
    }
    let now = cw.now_ms();
    let data = data
        .into_iter()
        .enumerate()
        .map(|(i, d)| datum(&input.namespace, i + 1, d, now))
        .collect::<Result<Vec<_>>>()?;
    cw.record(&ctx.account_id, &ctx.region, data).await?;
    Ok(Unit)
}

/// Refuses a period that is not 1, 5, 10, 30 or a multiple of 60 seconds.
pub(crate) fn check_period(period: i32, path: &str) -> Result<()> {
    if period > 0 && (matches!(period, 1 | 5 | 10 | 30) || period % 60 == 0) {
        return Ok(());
    }
    Err(invalid_value(format!(
        "The parameter {path} must be a valid period, 1, 5, 10, 30, or any multiple of 60."
    )))
}

fn check_window(start: i64, end: i64) -> Result<()> {
    if start >= end {
        return Err(invalid_value(
            "The parameter StartTime must be less than the parameter EndTime.",
        ));
    }
    Ok(())
}

pub(crate) async fn get_metric_statistics(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: GetMetricStatisticsInput,
) -> Result<GetMetricStatisticsOutput, AwsError> {
    let (start, end) = (millis(&input.start_time), millis(&input.end_time));
    check_window(start, end)?;
    check_period(input.period, "Period")?;
    let statistics: Vec<String> = input
        .statistics
        .unwrap_or_default()
        .iter()
        .map(|s| s.as_str().to_owned())
        .collect();
    let extended = input.extended_statistics.unwrap_or_default();
    if statistics.is_empty() && extended.is_empty() {
        return Err(missing("Must specify either Statistics or ExtendedStatistics").into());
    }
    if !statistics.is_empty() && !extended.is_empty() {
        return Err(invalid_combination(
            "The parameters Statistics and ExtendedStatistics are mutually exclusive and you have specified both.",
        )
        .into());
    }
    let mut wanted = Vec::new();
    for (i, name) in statistics.iter().enumerate() {
        let stat = Stat::parse(name).filter(|s| s.is_basic()).ok_or_else(|| {
            invalid_value(format!(
                "The value {name} for parameter Statistics.member.{} is not supported.",
                i + 1
            ))
        })?;
        wanted.push((name.clone(), stat));
    }
    for (i, name) in extended.iter().enumerate() {
        let stat = Stat::parse(name).filter(|s| !s.is_basic()).ok_or_else(|| {
            invalid_value(format!(
                "The value {name} for parameter ExtendedStatistics.member.{} is not supported.",
                i + 1
            ))
        })?;
        wanted.push((name.clone(), stat));
    }
    let period_ms = i64::from(input.period) * 1000;
    let requested = (end - start + period_ms - 1) / period_ms;
    if requested > MAX_DATAPOINTS {
        return Err(invalid_combination(format!(
            "You have requested up to {requested} datapoints, which exceeds the limit of {MAX_DATAPOINTS}. \
             You may reduce the datapoints requested by increasing Period, or decreasing the time range."
        ))
        .into());
    }
    let metric = MetricId::new(&input.namespace, &input.metric_name, dimension_pairs(input.dimensions));
    let unit = unit_name(input.unit.clone());
    let unit_filter = input.unit.as_ref().map(|u| u.as_str().to_owned());
    let store = cw.metrics_store(&ctx.account_id, &ctx.region)?;
    let periods = stratus_storage::run_blocking(move || {
        aggregates(
            &*store,
            &metric,
            Window {
                start_ms: start,
                end_ms: end,
                period_s: i64::from(input.period),
                unit: unit_filter.as_deref(),
            },
        )
    })
    .await?;
    let datapoints = periods
        .into_iter()
        .map(|((period, sample_unit), aggregate)| {
            let mut point = Datapoint {
                timestamp: Some(DateTime::from_millis(period)),
                unit: Some(StandardUnit::from_wire(unit.as_deref().unwrap_or(&sample_unit))),
                ..Datapoint::default()
            };
            let mut extended = std::collections::BTreeMap::new();
            for (name, stat) in &wanted {
                let value = aggregate.statistic(*stat);
                match stat {
                    Stat::SampleCount => point.sample_count = value,
                    Stat::Average => point.average = value,
                    Stat::Sum => point.sum = value,
                    Stat::Minimum => point.minimum = value,
                    Stat::Maximum => point.maximum = value,
                    _ => {
                        if let Some(v) = value {
                            extended.insert(name.clone(), v);
                        }
                    }
                }
            }
            if !extended.is_empty() {
                point.extended_statistics = Some(extended);
            }
            point
        })
        .collect();
    Ok(GetMetricStatisticsOutput {
        label: Some(input.metric_name),
        datapoints: Some(datapoints),
    })
}

/// A GetMetricData (or alarm) query as stored and run, checked (`MetricDataQueries.member.N`).
pub(crate) fn query_spec(q: MetricDataQuery, n: usize, member: &str) -> Result<QuerySpec> {
    let path = format!("{member}.member.{n}");
    let stat = match (q.metric_stat, &q.expression) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(invalid_combination(format!(
                "The parameters {path}.MetricStat and {path}.Expression are mutually exclusive and you must specify one of them."
            )))
        }
        (Some(s), None) => {
            check_period(s.period, &format!("{path}.MetricStat.Period"))?;
            check_stat(&s.stat, &format!("{path}.MetricStat.Stat"))?;
            let namespace = s
                .metric
                .namespace
                .ok_or_else(|| missing(format!("The parameter {path}.MetricStat.Metric.Namespace is required.")))?;
            let name = s
                .metric
                .metric_name
                .ok_or_else(|| missing(format!("The parameter {path}.MetricStat.Metric.MetricName is required.")))?;
            Some(StatQuery {
                metric: MetricId::new(&namespace, &name, dimension_pairs(s.metric.dimensions)),
                period: s.period,
                stat: s.stat,
                unit: s.unit.map(|u| u.as_str().to_owned()),
            })
        }
        (None, Some(_)) => None,
    };
    if let Some(expression) = &q.expression {
        crate::math::parse(expression).map_err(|e| invalid_value(format!("Error in expression '{}': {e}", q.id)))?;
    }
    Ok(QuerySpec {
        id: q.id,
        stat,
        expression: q.expression,
        label: q.label,
        return_data: q.return_data,
        period: q.period,
        account_id: q.account_id,
    })
}

pub(crate) fn query_out(q: &QuerySpec) -> MetricDataQuery {
    MetricDataQuery {
        id: q.id.clone(),
        metric_stat: q.stat.as_ref().map(|s| stratus_gen_cloudwatch::MetricStat {
            metric: Metric {
                namespace: Some(s.metric.namespace.clone()),
                metric_name: Some(s.metric.name.clone()),
                dimensions: Some(dimensions_out(&s.metric)),
            },
            period: s.period,
            stat: s.stat.clone(),
            unit: s.unit.as_deref().map(StandardUnit::from_wire),
        }),
        expression: q.expression.clone(),
        label: q.label.clone(),
        return_data: q.return_data,
        period: q.period,
        account_id: q.account_id.clone(),
    }
}

pub(crate) async fn get_metric_data(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: GetMetricDataInput,
) -> Result<GetMetricDataOutput, AwsError> {
    let (start, end) = (millis(&input.start_time), millis(&input.end_time));
    check_window(start, end)?;
    let mut specs = Vec::new();
    for (i, q) in input.metric_data_queries.into_iter().enumerate() {
        let spec = query_spec(q, i + 1, "MetricDataQueries")?;
        if specs.iter().any(|s: &QuerySpec| s.id == spec.id) {
            return Err(invalid_value(format!(
                "The value {} for parameter MetricDataQueries.member.{}.Id is already used.",
                spec.id,
                i + 1
            ))
            .into());
        }
        specs.push(spec);
    }
    let max = input.max_datapoints.unwrap_or(DEFAULT_MAX_DATAPOINTS).max(1) as usize;
    let skip = match &input.next_token {
        Some(token) => DATA_LISTING
            .decode_str(token)
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or_else(invalid_next_token)?,
        None => 0,
    };
    let store = cw.metrics_store(&ctx.account_id, &ctx.region)?;
    let answers = stratus_storage::run_blocking(move || query::run(&*store, &specs, start, end)).await?;
    let ascending = input.scan_by == Some(ScanBy::TimestampAscending);
    let (mut offset, mut taken) = (0usize, 0usize);
    let mut more = false;
    let mut results = Vec::new();
    for answer in answers {
        let mut points = answer.points;
        if !ascending {
            points.reverse();
        }
        let from = skip.saturating_sub(offset).min(points.len());
        let room = max - taken;
        let page: Vec<(i64, f64)> = points[from..].iter().take(room).copied().collect();
        offset += points.len();
        taken += page.len();
        more |= from + page.len() < points.len();
        results.push(MetricDataResult {
            id: Some(answer.id),
            label: Some(answer.label),
            timestamps: Some(page.iter().map(|(t, _)| DateTime::from_millis(*t)).collect()),
            values: Some(page.iter().map(|(_, v)| *v).collect()),
            status_code: Some(if more {
                StatusCode::PartialData
            } else {
                StatusCode::Complete
            }),
            messages: None,
        });
    }
    Ok(GetMetricDataOutput {
        metric_data_results: Some(results),
        next_token: more.then(|| DATA_LISTING.encode_str(&(skip + taken).to_string())),
        messages: Some(Vec::new()),
    })
}

fn matches_filters(metric: &MetricId, filters: &[DimensionFilter]) -> bool {
    filters.iter().all(|f| match (metric.dimension(&f.name), &f.value) {
        (Some(actual), Some(wanted)) => actual == wanted,
        (Some(_), None) => true,
        (None, _) => false,
    })
}

pub(crate) async fn list_metrics(
    cw: &CloudWatchService,
    ctx: &RequestContext,
    input: ListMetricsInput,
) -> Result<ListMetricsOutput, AwsError> {
    let after = match &input.next_token {
        Some(token) => Some(METRIC_LISTING.decode(token).map_err(|_| invalid_next_token())?),
        None => None,
    };
    let prefix = metric::prefix(input.namespace.as_deref(), input.metric_name.as_deref());
    let recent_since = match input.recently_active {
        Some(RecentlyActive::Pt3H) => Some(cw.now_ms() - 3 * 3600 * 1000),
        _ => None,
    };
    let store = cw.metrics_store(&ctx.account_id, &ctx.region)?;
    let stored = stratus_storage::run_blocking(move || metrics(&*store, &prefix)).await?;
    let filters = input.dimensions.unwrap_or_default();
    let listed = stored.into_iter().filter(|m| {
        input.metric_name.as_ref().is_none_or(|n| *n == m.metric.name)
            && matches_filters(&m.metric, &filters)
            && recent_since.is_none_or(|since| m.last_put_ms >= since)
            && after.as_ref().is_none_or(|a| m.metric.key() > *a)
    });
    let (page, more) = take_page(listed, LIST_PAGE);
    let next_token = if more {
        page.last().map(|m| METRIC_LISTING.encode(&m.metric.key()))
    } else {
        None
    };
    Ok(ListMetricsOutput {
        metrics: Some(
            page.into_iter()
                .map(|m| Metric {
                    dimensions: Some(dimensions_out(&m.metric)),
                    namespace: Some(m.metric.namespace),
                    metric_name: Some(m.metric.name),
                })
                .collect(),
        ),
        next_token,
        owning_accounts: None,
    })
}
