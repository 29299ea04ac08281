//! What other services ask of CloudWatch: recording their own metrics ([`MetricSink`]),
//! through the same write path as PutMetricData.

use stratus_core::service::capabilities::MetricDatum;
use stratus_core::service::{BoxFuture, Caller, MetricSink};
use stratus_core::AwsError;

use crate::metric::MetricId;
use crate::samples::Datum;
use crate::service::CloudWatchService;
use crate::stats::Sample;

impl MetricSink for CloudWatchService {
    fn put_metric_data<'a>(
        &'a self,
        caller: Caller<'a>,
        namespace: &'a str,
        data: Vec<MetricDatum>,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let data = data
                .into_iter()
                .map(|d| Datum {
                    metric: MetricId::new(namespace, &d.name, d.dimensions),
                    timestamp_ms: d.timestamp_ms,
                    sample: Sample {
                        unit: Some(d.unit.to_owned()).filter(|u| u != "None"),
                        values: vec![d.value],
                        ..Sample::default()
                    },
                })
                .collect();
            self.record(caller.account_id, caller.region, data).await?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::time::{Duration, UNIX_EPOCH};

    use stratus_core::clock::Clock;
    use stratus_core::scheduler::Scheduler;
    use stratus_core::service::{LateProviders, Providers, ServiceEnv, Settings, Spawner};
    use stratus_storage::{Storage, StorageConfig};

    use super::*;
    use crate::metric;
    use crate::samples::{metrics, series, Window};
    use crate::stats::Stat;

    const NOW_MS: i64 = 1_709_292_960_000;

    // Another service's metrics land as PutMetricData's do, in the caller's account and region.
    #[test]
    fn other_services_metrics_are_stored_like_put_metric_data() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        let storage = Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap());
        let scheduler = Scheduler::new(Clock::manual(UNIX_EPOCH + Duration::from_millis(NOW_MS as u64)));
        let spawner = Spawner::new(move |work| drop(handle.spawn(work)));
        let (settings, providers, late) = (Settings::default(), Providers::default(), LateProviders::default());
        let env = ServiceEnv {
            storage: &storage,
            scheduler: &scheduler,
            spawner: &spawner,
            settings: &settings,
            providers: &providers,
            late: &late,
            serves: &|_| true,
        };
        let cw = CloudWatchService::new(&env);
        let datum = |value: f64| MetricDatum {
            name: "NumberOfMessagesSent".to_owned(),
            dimensions: BTreeMap::from([("QueueName".to_owned(), "orders".to_owned())]),
            value,
            unit: "Count",
            timestamp_ms: NOW_MS,
        };
        let caller = Caller::service("sqs.amazonaws.com", "111111111111", "eu-west-1");
        runtime
            .block_on(cw.put_metric_data(caller, "AWS/SQS", vec![datum(2.0), datum(3.0)]))
            .unwrap();
        let store = cw.metrics_store("111111111111", "eu-west-1").unwrap();
        let [record] = metrics(&*store, &metric::prefix(Some("AWS/SQS"), None))
            .unwrap()
            .try_into()
            .unwrap();
        assert_eq!(record.metric.dimension("QueueName"), Some("orders"));
        let window = Window {
            start_ms: NOW_MS,
            end_ms: NOW_MS + 60_000,
            period_s: 60,
            unit: Some("Count"),
        };
        assert_eq!(
            series(&*store, &record.metric, window, Stat::Sum).unwrap(),
            [(NOW_MS, 5.0)]
        );
    }
}
