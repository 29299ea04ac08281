//! The one write path for metric data — PutMetricData and other services' metrics
//! ([`MetricSink`](stratus_core::service::MetricSink)) both store through
//! [`CloudWatchService::record`] — and the reads every statistic starts from.
//!
//! Samples are rows of the relaxed `samples` table, keyed by metric, timestamp and a sequence
//! number (so samples of one instant are all kept); each metric has a `metrics` record with
//! the last time data was put (ListMetrics' `RecentlyActive`) and how many samples it holds.
//! An account holds at most [`MAX_STORED_SAMPLES`] in each region: counted from the metric
//! records on first use, then in memory.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use stratus_storage::{Direction, KeyRange, Read, Store, Table, Tx};

use crate::error::{limit_exceeded, Result};
use crate::metric::{sample_key, sample_timestamp, MetricId};
use crate::service::{lock, CloudWatchService};
use crate::stats::{Aggregate, Sample, Stat};

/// Metrics by [`MetricId::key`].
pub(crate) const METRICS: Table<MetricRecord> = Table::new("metrics");
/// Samples by [`sample_key`].
pub(crate) const SAMPLES: Table<Sample> = Table::new("samples");

/// The most samples (a `Values` array counts each value) kept per account and region: a put
/// that would pass it is refused, CloudWatch having no call that deletes data.
pub(crate) const MAX_STORED_SAMPLES: u64 = 10_000_000;

/// A metric as ListMetrics lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct MetricRecord {
    pub metric: MetricId,
    /// When data was last put, in milliseconds since the epoch.
    pub last_put_ms: i64,
    /// Samples stored, against the bound.
    pub samples: u64,
}

/// One datum to store.
#[derive(Clone, Debug)]
pub(crate) struct Datum {
    pub metric: MetricId,
    pub timestamp_ms: i64,
    pub sample: Sample,
}

impl CloudWatchService {
    /// Stores `data` in `account`'s metrics of `region`, refused as a whole past the bound.
    pub(crate) async fn record(&self, account: &str, region: &str, data: Vec<Datum>) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let store = self.metrics_store(account, region)?;
        let used = self.used(account, region, &*store)?;
        let weight: u64 = data.iter().map(|d| d.sample.weight()).sum();
        if used + weight > MAX_STORED_SAMPLES {
            return Err(limit_exceeded(format!(
                "Stratus keeps at most {MAX_STORED_SAMPLES} metric samples per account and region; \
                 start with a new data directory (or --ephemeral) to make room."
            )));
        }
        let now = self.now_ms();
        let seq = self.shared.sequence.fetch_add(data.len() as u64, Ordering::Relaxed);
        store.transact_async(move |tx| write(tx, &data, now, seq)).await?;
        *lock(&self.shared.usage)
            .entry((account.to_owned(), region.to_owned()))
            .or_default() += weight;
        Ok(())
    }

    /// The samples `account` holds in `region`, summed from the metric records once.
    fn used(&self, account: &str, region: &str, store: &dyn Store) -> Result<u64> {
        let key = (account.to_owned(), region.to_owned());
        if let Some(used) = lock(&self.shared.usage).get(&key) {
            return Ok(*used);
        }
        let used = METRICS
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .iter()
            .map(|(_, r)| r.samples)
            .sum();
        Ok(*lock(&self.shared.usage).entry(key).or_insert(used))
    }
}

fn write(tx: &mut Tx<'_>, data: &[Datum], now_ms: i64, seq: u64) -> Result<()> {
    let mut touched: BTreeMap<Vec<u8>, MetricRecord> = BTreeMap::new();
    for (i, datum) in data.iter().enumerate() {
        let key = datum.metric.key();
        SAMPLES.put(tx, sample_key(&key, datum.timestamp_ms, seq + i as u64), &datum.sample)?;
        let record = match touched.get_mut(&key) {
            Some(record) => record,
            None => {
                let record = METRICS.get(&*tx, &key)?.unwrap_or_else(|| MetricRecord {
                    metric: datum.metric.clone(),
                    last_put_ms: now_ms,
                    samples: 0,
                });
                touched.entry(key).or_insert(record)
            }
        };
        record.last_put_ms = now_ms;
        record.samples += datum.sample.weight();
    }
    for (key, record) in touched {
        METRICS.put(tx, key, &record)?;
    }
    Ok(())
}

/// What a statistic is asked of: a metric's samples in periods of `period_s` seconds from
/// `start_ms` (rounded down to a period) to `end_ms` (exclusive), of `unit` alone when given.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window<'a> {
    pub start_ms: i64,
    pub end_ms: i64,
    pub period_s: i64,
    pub unit: Option<&'a str>,
}

impl Window<'_> {
    fn period_ms(&self) -> i64 {
        self.period_s.max(1) * 1000
    }

    /// The start of the period `timestamp_ms` falls in; periods are aligned to the epoch.
    pub(crate) fn period_of(&self, timestamp_ms: i64) -> i64 {
        timestamp_ms - timestamp_ms.rem_euclid(self.period_ms())
    }

    /// The starts of every period of the window, in time order.
    pub(crate) fn periods(&self) -> impl Iterator<Item = i64> {
        let (step, end) = (self.period_ms(), self.end_ms);
        let first = self.period_of(self.start_ms);
        (0..).map(move |i| first + i * step).take_while(move |t| *t < end)
    }
}

/// The samples of `metric` in `window`, by period start and unit.
pub(crate) fn aggregates(
    r: &(impl Read + ?Sized),
    metric: &MetricId,
    window: Window<'_>,
) -> Result<BTreeMap<(i64, String), Aggregate>> {
    let key = metric.key();
    let from = sample_key(&key, window.period_of(window.start_ms), 0);
    let to = sample_key(&key, window.end_ms, 0);
    let mut periods: BTreeMap<(i64, String), Aggregate> = BTreeMap::new();
    for (sample_key, sample) in SAMPLES.scan(r, &KeyRange::new(from..to), Direction::Forward, None)? {
        if window.unit.is_some_and(|unit| unit != sample.unit()) {
            continue;
        }
        let Some(timestamp) = sample_timestamp(&sample_key, key.len()) else {
            continue;
        };
        periods
            .entry((window.period_of(timestamp), sample.unit().to_owned()))
            .or_default()
            .add(&sample);
    }
    Ok(periods)
}

/// `stat` of `metric` in each period of `window` that has data, all units together, in time
/// order.
pub(crate) fn series(
    r: &(impl Read + ?Sized),
    metric: &MetricId,
    window: Window<'_>,
    stat: Stat,
) -> Result<Vec<(i64, f64)>> {
    let mut merged: BTreeMap<i64, Aggregate> = BTreeMap::new();
    for ((period, _), aggregate) in aggregates(r, metric, window)? {
        merged.entry(period).or_default().merge(aggregate);
    }
    Ok(merged
        .into_iter()
        .filter_map(|(period, a)| a.statistic(stat).map(|v| (period, v)))
        .collect())
}

/// Every metric `r` holds, in key order, from `prefix` on.
pub(crate) fn metrics(r: &(impl Read + ?Sized), prefix: &[u8]) -> Result<Vec<MetricRecord>> {
    Ok(METRICS.scan_prefix(r, prefix)?.into_iter().map(|(_, m)| m).collect())
}

#[cfg(test)]
mod tests {
    use stratus_storage::{Durability, Namespace, Storage, StorageConfig};

    use super::*;

    const T: i64 = 1_709_292_960_000; // a minute's start

    fn datum(metric: &MetricId, offset_ms: i64, values: &[f64], unit: Option<&str>) -> Datum {
        Datum {
            metric: metric.clone(),
            timestamp_ms: T + offset_ms,
            sample: Sample {
                unit: unit.map(str::to_owned),
                values: values.to_vec(),
                ..Sample::default()
            },
        }
    }

    fn window(period_s: i64, unit: Option<&str>) -> Window<'_> {
        Window {
            start_ms: T - 30_000,
            end_ms: T + 120_000,
            period_s,
            unit,
        }
    }

    #[test]
    fn samples_land_in_epoch_aligned_periods_by_unit() {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        let store = storage
            .store(
                &Namespace::regional("111111111111", "us-east-1", "cloudwatch"),
                Durability::Relaxed,
            )
            .unwrap();
        let metric = MetricId::new("ns", "m", [("Host".to_owned(), "a".to_owned())]);
        let other = MetricId::new(
            "ns",
            "m",
            [("Host".to_owned(), "a".to_owned()), ("Az".to_owned(), "x".to_owned())],
        );
        let data = vec![
            datum(&metric, 0, &[1.0, 3.0], Some("Seconds")),
            datum(&metric, 59_999, &[5.0], Some("Seconds")),
            datum(&metric, 60_000, &[7.0], None),
            datum(&other, 0, &[100.0], None),
        ];
        store.transact(|tx| write(tx, &data, T, 1)).unwrap();
        let by_period = aggregates(&*store, &metric, window(60, None)).unwrap();
        let keys: Vec<&(i64, String)> = by_period.keys().collect();
        assert_eq!(keys, [&(T, "Seconds".to_owned()), &(T + 60_000, "None".to_owned())]);
        assert_eq!(by_period[&(T, "Seconds".to_owned())].sum, 9.0);
        assert_eq!(
            series(&*store, &metric, window(120, None), Stat::Sum).unwrap(),
            [(T, 16.0)]
        );
        assert_eq!(
            series(&*store, &metric, window(60, Some("None")), Stat::Maximum).unwrap(),
            [(T + 60_000, 7.0)]
        );
        let listed = metrics(&*store, &crate::metric::prefix(Some("ns"), Some("m"))).unwrap();
        assert_eq!(listed.len(), 2);
        let record = listed.iter().find(|r| r.metric == metric).unwrap();
        assert_eq!((record.samples, record.last_put_ms), (4, T));
    }
}
