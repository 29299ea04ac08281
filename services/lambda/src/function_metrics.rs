//! The metrics Lambda publishes for every invocation, in the `AWS/Lambda` namespace, through
//! CloudWatch's [`MetricSink`](stratus_core::service::MetricSink) when CloudWatch is served
//! (Lambda's guide, "Types of metrics for Lambda functions"): `Invocations` (every run,
//! failed or not), `Errors` (runs that ended in a function error), `Duration` (how long the
//! handler ran, in milliseconds) and `Throttles` (invocations refused for concurrency).
//! Each is published without dimensions (the account's aggregate), by `FunctionName`, and for
//! a qualified invocation by `FunctionName` and `Resource` (`name:qualifier`), and for an alias
//! by `FunctionName` and `ExecutedVersion` as well. `ConcurrentExecutions` and the
//! asynchronous and stream metrics are not published.

use std::collections::BTreeMap;
use std::time::Duration;

use stratus_core::service::capabilities::MetricDatum;
use stratus_core::service::Caller;

use crate::names::{FunctionRef, Qualifier};
use crate::service::LambdaService;

const NAMESPACE: &str = "AWS/Lambda";

/// How one invocation went, as its metrics count it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Measured<'a> {
    /// The function ran, as `version`, for `duration`, failing or not.
    Ran {
        version: &'a str,
        duration: Duration,
        failed: bool,
    },
    /// Refused for concurrency.
    Throttled,
}

/// The dimension sets an invocation of `f` is published under.
fn dimension_sets(f: &FunctionRef, executed: Option<&str>) -> Vec<BTreeMap<String, String>> {
    let by_name = BTreeMap::from([("FunctionName".to_owned(), f.name.clone())]);
    let mut sets = vec![BTreeMap::new(), by_name.clone()];
    if let Some(q) = &f.qualifier {
        let mut by_resource = by_name.clone();
        by_resource.insert("Resource".into(), format!("{}:{q}", f.name));
        sets.push(by_resource);
        if let (Qualifier::Alias(_), Some(version)) = (Qualifier::of(Some(q)), executed) {
            let mut by_version = by_name;
            by_version.insert("ExecutedVersion".into(), version.to_owned());
            sets.push(by_version);
        }
    }
    sets
}

/// The data points of one invocation, at `now_ms`.
fn data(f: &FunctionRef, measured: Measured<'_>, now_ms: i64) -> Vec<MetricDatum> {
    let observed: Vec<(&str, f64, &'static str)> = match measured {
        Measured::Ran { duration, failed, .. } => vec![
            ("Invocations", 1.0, "Count"),
            ("Errors", if failed { 1.0 } else { 0.0 }, "Count"),
            ("Duration", duration.as_secs_f64() * 1000.0, "Milliseconds"),
        ],
        Measured::Throttled => vec![("Throttles", 1.0, "Count")],
    };
    let executed = match measured {
        Measured::Ran { version, .. } => Some(version),
        Measured::Throttled => None,
    };
    dimension_sets(f, executed)
        .into_iter()
        .flat_map(|dimensions| {
            observed.iter().map(move |&(name, value, unit)| MetricDatum {
                name: name.to_owned(),
                dimensions: dimensions.clone(),
                value,
                unit,
                timestamp_ms: now_ms,
            })
        })
        .collect()
}

impl LambdaService {
    /// Publishes the metrics of one invocation of `f`, off the invocation's path: publishing
    /// never delays or fails an invocation, as on AWS.
    pub(crate) fn publish_metrics(&self, f: &FunctionRef, measured: Measured<'_>) {
        let Some(sink) = self.shared.late.get().and_then(|p| p.metrics.clone()) else {
            return;
        };
        let data = data(f, measured, self.now_ms());
        let (account, region) = (f.account.clone(), f.region.clone());
        self.shared.spawner.spawn(async move {
            let caller = Caller::service("lambda.amazonaws.com", &account, &region);
            if let Err(e) = sink.put_metric_data(caller, NAMESPACE, data).await {
                tracing::warn!(error = %e, "could not publish the function's metrics");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(qualifier: Option<&str>) -> FunctionRef {
        FunctionRef::parse("f", qualifier, "000000000000", "us-east-1").unwrap()
    }

    #[test]
    fn a_run_counts_an_invocation_its_error_and_its_duration_per_dimension_set() {
        let ran = Measured::Ran {
            version: "$LATEST",
            duration: Duration::from_millis(12),
            failed: true,
        };
        let points = data(&function(None), ran, 1_000);
        assert_eq!(points.len(), 6);
        let by_name: Vec<_> = points.iter().filter(|p| p.dimensions.len() == 1).collect();
        assert_eq!(by_name[0].dimensions["FunctionName"], "f");
        assert_eq!(
            by_name.iter().map(|p| (p.name.as_str(), p.value)).collect::<Vec<_>>(),
            [("Invocations", 1.0), ("Errors", 1.0), ("Duration", 12.0)]
        );
        assert!(points.iter().all(|p| p.timestamp_ms == 1_000));
    }

    #[test]
    fn an_alias_invocation_names_its_resource_and_executed_version() {
        let ran = Measured::Ran {
            version: "3",
            duration: Duration::ZERO,
            failed: false,
        };
        let sets: Vec<_> = data(&function(Some("live")), ran, 0)
            .into_iter()
            .filter(|p| p.name == "Invocations")
            .map(|p| p.dimensions)
            .collect();
        assert_eq!(sets.len(), 4);
        assert_eq!(sets[2]["Resource"], "f:live");
        assert_eq!(sets[3]["ExecutedVersion"], "3");
        let throttled = data(&function(Some("2")), Measured::Throttled, 0);
        assert_eq!(throttled.len(), 3);
        assert!(throttled
            .iter()
            .all(|p| p.name == "Throttles" && !p.dimensions.contains_key("ExecutedVersion")));
    }
}
