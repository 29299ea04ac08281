//! Metric filters at work: the events a log group ingests become CloudWatch metric data, one
//! datum per matching event and transformation, valued by a literal or by a field the
//! pattern extracts (`$status`, `$.latency`), with dimensions from extracted fields. A
//! transformation with a `defaultValue` reports it for each minute in which events arrived
//! and none matched ("the value reported during a period when logs are ingested but no
//! matching logs are found", AWS's PutMetricFilter reference). The data goes to CloudWatch's
//! [`MetricSink`] after the events are stored; publishing never fails the write, as on AWS.

use std::collections::{BTreeMap, BTreeSet};

use stratus_core::service::capabilities::MetricDatum;
use stratus_core::service::Caller;
use stratus_gen_cloudwatch_logs::StandardUnit;

use crate::filter_pattern::FilterPattern;
use crate::records::{MetricFilterRecord, TransformationRecord};
use crate::service::LogsService;

const MINUTE_MS: i64 = 60_000;

/// Metric data by namespace.
pub(crate) type Published = BTreeMap<String, Vec<MetricDatum>>;

/// What `filters` make of `events` (timestamp in milliseconds, message), in order.
pub(crate) fn metrics_of(filters: &[MetricFilterRecord], events: &[(i64, &str)]) -> Published {
    let mut published = Published::new();
    for filter in filters {
        // Stored patterns were checked when put; one that no longer parses takes nothing.
        let Ok(pattern) = FilterPattern::parse(&filter.pattern) else {
            continue;
        };
        let mut matched_minutes = BTreeSet::new();
        let mut unmatched: BTreeMap<i64, i64> = BTreeMap::new();
        for &(timestamp_ms, message) in events {
            let minute = timestamp_ms.div_euclid(MINUTE_MS);
            let Some(values) = pattern.extract(message) else {
                unmatched.entry(minute).or_insert(timestamp_ms);
                continue;
            };
            matched_minutes.insert(minute);
            for transformation in &filter.transformations {
                if let Some(datum) = datum_of(transformation, &values, timestamp_ms) {
                    published
                        .entry(transformation.namespace.clone())
                        .or_default()
                        .push(datum);
                }
            }
        }
        for (minute, first_ms) in unmatched {
            if matched_minutes.contains(&minute) {
                continue;
            }
            for transformation in &filter.transformations {
                let Some(value) = transformation.default_value else {
                    continue;
                };
                published
                    .entry(transformation.namespace.clone())
                    .or_default()
                    .push(MetricDatum {
                        name: transformation.name.clone(),
                        dimensions: BTreeMap::new(),
                        value,
                        unit: unit_of(transformation),
                        timestamp_ms: first_ms,
                    });
            }
        }
    }
    published
}

/// The datum `transformation` makes of an event whose pattern extracted `values`; `None` when
/// its value or a dimension names a field the event does not have, or a value that is not a
/// number.
fn datum_of(
    transformation: &TransformationRecord,
    values: &BTreeMap<String, String>,
    timestamp_ms: i64,
) -> Option<MetricDatum> {
    let field = |name: &str| values.get(name).map(String::as_str);
    let value = if transformation.value.starts_with('$') {
        field(&transformation.value)?.trim().parse::<f64>().ok()?
    } else {
        transformation.value.trim().parse::<f64>().ok()?
    };
    if !value.is_finite() {
        return None;
    }
    let mut dimensions = BTreeMap::new();
    for (name, source) in transformation.dimensions.iter().flatten() {
        dimensions.insert(name.clone(), field(source)?.to_owned());
    }
    Some(MetricDatum {
        name: transformation.name.clone(),
        dimensions,
        value,
        unit: unit_of(transformation),
        timestamp_ms,
    })
}

fn unit_of(transformation: &TransformationRecord) -> &'static str {
    transformation
        .unit
        .as_deref()
        .and_then(|unit| StandardUnit::VALUES.iter().find(|known| **known == unit))
        .copied()
        .unwrap_or("None")
}

impl LogsService {
    /// Hands `published` to CloudWatch as CloudWatch Logs, in the writer's account and
    /// region; a failure is logged, never answered.
    pub(crate) async fn publish(&self, account: &str, region: &str, published: Published) {
        let Some(sink) = self.shared.metrics.as_deref() else {
            return;
        };
        for (namespace, data) in published {
            let caller = Caller::service("logs.amazonaws.com", account, region);
            if let Err(e) = sink.put_metric_data(caller, &namespace, data).await {
                tracing::warn!("logs: publishing metric filter data to {namespace}: {}", e.message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_040_000;

    fn filter(pattern: &str, transformation: TransformationRecord) -> MetricFilterRecord {
        MetricFilterRecord {
            group: "app".into(),
            name: "f".into(),
            pattern: pattern.into(),
            transformations: vec![transformation],
            creation_time: 0,
            apply_on_transformed_logs: false,
        }
    }

    fn transformation(value: &str) -> TransformationRecord {
        TransformationRecord {
            name: "Latency".into(),
            namespace: "App".into(),
            value: value.into(),
            default_value: None,
            dimensions: None,
            unit: None,
        }
    }

    fn values(published: &Published) -> Vec<(f64, i64)> {
        published["App"].iter().map(|d| (d.value, d.timestamp_ms)).collect()
    }

    #[test]
    fn a_literal_value_counts_each_matching_event() {
        let filters = [filter("ERROR", transformation("1"))];
        let published = metrics_of(&filters, &[(T0, "ERROR one"), (T0 + 1, "INFO"), (T0 + 2, "ERROR two")]);
        assert_eq!(values(&published), [(1.0, T0), (1.0, T0 + 2)]);
        assert_eq!(published["App"][0].unit, "None");
    }

    #[test]
    fn values_and_dimensions_come_from_extracted_fields() {
        let mut t = transformation("$latency");
        t.dimensions = Some(BTreeMap::from([("Status".to_owned(), "$status".to_owned())]));
        t.unit = Some("Milliseconds".into());
        let filters = [filter("[ip, status, latency]", t)];
        let published = metrics_of(
            &filters,
            &[(T0, "10.0.0.1 200 31.5"), (T0 + 5, "10.0.0.2 500 not-a-number")],
        );
        let data = &published["App"];
        assert_eq!(data.len(), 1, "a value that is not a number makes no datum");
        assert_eq!((data[0].value, data[0].unit), (31.5, "Milliseconds"));
        assert_eq!(
            data[0].dimensions,
            BTreeMap::from([("Status".to_owned(), "200".to_owned())])
        );
    }

    #[test]
    fn json_selectors_value_the_datum() {
        let filters = [filter("{ $.latency > 0 }", transformation("$.latency"))];
        let published = metrics_of(&filters, &[(T0, r#"{"latency": 12}"#), (T0, r#"{"latency": -1}"#)]);
        assert_eq!(values(&published), [(12.0, T0)]);
    }

    #[test]
    fn the_default_value_is_reported_once_per_minute_with_events_and_no_match() {
        let mut t = transformation("1");
        t.default_value = Some(0.0);
        let filters = [filter("ERROR", t)];
        let minute = 60_000;
        let events = [
            (T0, "INFO a"),
            (T0 + 1_000, "INFO b"),
            (T0 + minute, "ERROR c"),
            (T0 + minute + 1, "INFO d"),
            (T0 + 2 * minute, "INFO e"),
        ];
        let published = metrics_of(&filters, &events);
        assert_eq!(
            values(&published),
            [(1.0, T0 + minute), (0.0, T0), (0.0, T0 + 2 * minute)]
        );
    }

    #[test]
    fn nothing_is_published_for_no_events_or_no_filters() {
        assert!(metrics_of(&[filter("ERROR", transformation("1"))], &[]).is_empty());
        assert!(metrics_of(&[], &[(T0, "ERROR")]).is_empty());
    }
}
