//! The embedded metric format: a log event that is a JSON object with an `_aws` member naming
//! `CloudWatchMetrics` becomes metric data, as CloudWatch Logs extracts it from Lambda's
//! function logs (CloudWatch's guide, "Specification: Embedded metric format").
//!
//! Each directive names a `Namespace`, `Dimensions` (sets of member names, each set a metric
//! of its own; `[]` publishes without dimensions) and `Metrics` (`Name`, optional `Unit`); the
//! values are the root members of those names, a number or an array of up to 100 numbers, and
//! dimension values the root members of the dimension names, which must be strings. The data
//! points are timestamped by `_aws.Timestamp`, in milliseconds. An event that breaks the
//! specification stays an ordinary log event and publishes nothing, as on AWS.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use stratus_core::service::capabilities::MetricDatum;
use stratus_gen_cloudwatch_logs::StandardUnit;

use crate::metric_filters::Published;

/// The most metrics a directive may name, and values a metric may hold.
const MAX_METRICS: usize = 100;
const MAX_VALUES: usize = 100;
/// The most dimensions a dimension set may name.
const MAX_DIMENSIONS: usize = 30;

/// What the embedded-metric events among `events` publish, by namespace.
pub(crate) fn metrics_of<'a>(events: impl IntoIterator<Item = &'a str>) -> Published {
    let mut published = Published::new();
    for message in events {
        // Most lines are not EMF: look before parsing.
        if !message.trim_start().starts_with('{') || !message.contains("\"_aws\"") {
            continue;
        }
        let Ok(Value::Object(root)) = serde_json::from_str::<Value>(message) else {
            continue;
        };
        if let Some(found) = extract(&root) {
            for (namespace, data) in found {
                published.entry(namespace).or_default().extend(data);
            }
        }
    }
    published
}

/// The data one event publishes, or `None` when it breaks the specification.
fn extract(root: &Map<String, Value>) -> Option<Vec<(String, Vec<MetricDatum>)>> {
    let aws = root.get("_aws")?.as_object()?;
    let timestamp_ms = aws.get("Timestamp")?.as_i64()?;
    let directives = aws.get("CloudWatchMetrics")?.as_array()?;
    directives.iter().map(|d| directive(root, d, timestamp_ms)).collect()
}

fn directive(root: &Map<String, Value>, directive: &Value, timestamp_ms: i64) -> Option<(String, Vec<MetricDatum>)> {
    let namespace = directive
        .get("Namespace")?
        .as_str()
        .filter(|n| (1..=255).contains(&n.len()))?;
    let metrics = directive
        .get("Metrics")?
        .as_array()
        .filter(|m| m.len() <= MAX_METRICS)?;
    let dimension_sets = directive.get("Dimensions")?.as_array()?;
    let mut sets = Vec::with_capacity(dimension_sets.len());
    for set in dimension_sets {
        let names = set.as_array().filter(|s| s.len() <= MAX_DIMENSIONS)?;
        let mut dimensions = BTreeMap::new();
        for name in names {
            let name = name.as_str()?;
            dimensions.insert(name.to_owned(), root.get(name)?.as_str()?.to_owned());
        }
        sets.push(dimensions);
    }
    let mut data = Vec::new();
    for metric in metrics {
        let name = metric.get("Name")?.as_str().filter(|n| !n.is_empty())?;
        let unit = match metric.get("Unit") {
            None => "None",
            Some(unit) => unit
                .as_str()
                .and_then(|u| StandardUnit::VALUES.iter().find(|k| **k == u).copied())?,
        };
        let values = match root.get(name)? {
            Value::Array(values) if values.len() <= MAX_VALUES => {
                values.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>()?
            }
            value => vec![value.as_f64()?],
        };
        for dimensions in &sets {
            data.extend(values.iter().map(|&value| MetricDatum {
                name: name.to_owned(),
                dimensions: dimensions.clone(),
                value,
                unit,
                timestamp_ms,
            }));
        }
    }
    Some((namespace.to_owned(), data))
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

    use super::*;

    const EVENT: &str = r#"{
        "_aws": {"Timestamp": 1574109732004, "CloudWatchMetrics": [{
            "Namespace": "app", "Dimensions": [["functionVersion"], []],
            "Metrics": [{"Name": "time", "Unit": "Milliseconds"}, {"Name": "sizes"}]}]},
        "functionVersion": "$LATEST", "time": 100, "sizes": [1, 2.5], "requestId": "r"}"#;

    #[test]
    fn an_embedded_metric_event_publishes_each_metric_per_dimension_set() {
        let published = metrics_of([EVENT, "plain line", "{\"not\": \"emf\"}"]);
        let data = &published["app"];
        assert_eq!(data.len(), 6);
        let time: Vec<_> = data.iter().filter(|d| d.name == "time").collect();
        assert_eq!(time[0].dimensions["functionVersion"], "$LATEST");
        assert!(time[1].dimensions.is_empty());
        assert_eq!(
            (time[0].value, time[0].unit, time[0].timestamp_ms),
            (100.0, "Milliseconds", 1_574_109_732_004)
        );
        let sizes: Vec<f64> = data.iter().filter(|d| d.name == "sizes").map(|d| d.value).collect();
        assert_eq!(sizes, [1.0, 2.5, 1.0, 2.5]);
        assert!(data.iter().filter(|d| d.name == "sizes").all(|d| d.unit == "None"));
    }

    #[test]
    fn events_that_break_the_specification_publish_nothing() {
        let broken = [
            EVENT.replace("\"time\": 100", "\"time\": \"100\""),
            EVENT.replace("\"functionVersion\": \"$LATEST\"", "\"functionVersion\": 3"),
            EVENT.replace("Milliseconds", "Parsecs"),
            EVENT.replace("\"Timestamp\": 1574109732004", "\"Timestamp\": \"now\""),
            EVENT.replace("\"Namespace\": \"app\", ", ""),
        ];
        for event in &broken {
            assert!(metrics_of([event.as_str()]).is_empty(), "{event}");
        }
    }

    #[test]
    fn mangled_events_never_panic() {
        let mut rng = Rng(0xE3F);
        for i in 0..5_000 {
            let input = fuzz_input(&mut rng, i, &[EVENT.as_bytes()], JSON_TOKENS, 24);
            let _ = metrics_of([String::from_utf8_lossy(&input).as_ref()]);
        }
    }
}
