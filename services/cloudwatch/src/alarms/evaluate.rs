//! Metric alarms evaluated on the scheduler: one periodic job, every ten seconds (the
//! cadence of high-resolution alarms), registered when the first alarm is put (or found at
//! startup) and gone once no alarm is left, so nothing runs while there are none.
//!
//! Each evaluation looks at the alarm's last `EvaluationPeriods` complete periods: a period
//! whose statistic crosses the threshold is breaching, and the alarm is in `ALARM` when at
//! least `DatapointsToAlarm` of them breach, else `OK`. Periods without data follow
//! `TreatMissingData` (user guide, "Configuring how CloudWatch alarms treat missing data"):
//! `missing` (the default) and `ignore` judge the periods that have data — with none at all,
//! `missing` moves to `INSUFFICIENT_DATA` and `ignore` keeps the state — while `breaching`
//! and `notBreaching` count them as such. The state reason and its JSON data are worded as
//! AWS words them.

use std::time::Duration;

use serde_json::json;
use stratus_core::scheduler::Repeat;
use stratus_storage::{Direction, KeyRange, Read};

use super::{transition, AlarmKind, AlarmRecord, At, MetricSpec, NewState, ALARM, ALARMS, INSUFFICIENT_DATA, OK};
use crate::dates;
use crate::error::Result;
use crate::query;
use crate::samples::{aggregates, Window};
use crate::service::{lock, CloudWatchService};
use crate::stats::{Aggregate, Stat};

/// How often alarms are evaluated.
pub(crate) const INTERVAL: Duration = Duration::from_secs(10);

/// One period's statistic, or none without data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    pub period_ms: i64,
    pub value: Option<f64>,
    pub sample_count: Option<f64>,
}

impl CloudWatchService {
    /// Registers the evaluation job unless it runs already.
    pub(crate) fn ensure_evaluation(&self) {
        let mut job = lock(&self.shared.evaluation);
        if job.is_some() {
            return;
        }
        let cw = self.clone();
        *job = Some(self.shared.scheduler.every(INTERVAL, move || cw.evaluate_all()));
    }

    /// Registers the evaluation job when stored alarms need it (at startup).
    pub(crate) fn resume_evaluation(&self) {
        let any = self.stores().iter().any(|(_, _, store)| {
            ALARMS
                .scan(&**store, &KeyRange::all(), Direction::Forward, Some(1))
                .is_ok_and(|a| !a.is_empty())
        });
        if any {
            self.ensure_evaluation();
        }
    }

    /// One round: every metric alarm of every account and region. Stops once none is left.
    fn evaluate_all(&self) -> Repeat {
        let mut alarms_left = false;
        for (account, region, store) in self.stores() {
            match self.evaluate_store(&account, &region, &*store) {
                Ok(left) => alarms_left |= left,
                Err(e) => {
                    alarms_left = true;
                    tracing::warn!(%account, %region, error = %e.0.message, "alarm evaluation failed");
                }
            }
        }
        if alarms_left {
            return Repeat::Again;
        }
        *lock(&self.shared.evaluation) = None;
        // An alarm put while this round looked gets a job of its own.
        self.resume_evaluation();
        Repeat::Stop
    }

    /// Evaluates the metric alarms of one store; answers whether it has any alarm.
    fn evaluate_store(&self, account: &str, region: &str, store: &dyn stratus_storage::Store) -> Result<bool> {
        let alarms = ALARMS.scan(store, &KeyRange::all(), Direction::Forward, None)?;
        if alarms.is_empty() {
            return Ok(false);
        }
        let now = self.now_ms();
        let metrics = self.metrics_store(account, region)?;
        let mut moves = Vec::new();
        for (_, alarm) in alarms {
            let AlarmKind::Metric(spec) = &alarm.kind else { continue };
            if let Some(new) = judge(&*metrics, &alarm, spec, now)? {
                if new.value != alarm.state {
                    moves.push((alarm.name.clone(), alarm.configuration_updated_ms, new));
                }
            }
        }
        if moves.is_empty() {
            return Ok(true);
        }
        let cw = self.clone();
        let (account_owned, region_owned) = (account.to_owned(), region.to_owned());
        store.transact(move |tx| {
            for (name, configured, new) in moves {
                // An alarm put again meanwhile is judged by its new configuration next round.
                let Some(mut alarm) = ALARMS.get(&*tx, name.as_bytes())? else {
                    continue;
                };
                if alarm.configuration_updated_ms != configured {
                    continue;
                }
                transition(
                    &cw,
                    tx,
                    &mut alarm,
                    new,
                    At::new(&account_owned, &region_owned, now),
                    None,
                )?;
            }
            Ok::<(), crate::error::CwError>(())
        })?;
        self.shared.notifications.wake(account, region);
        Ok(true)
    }
}

/// The comparison's words in state reasons.
fn comparison_words(operator: &str) -> &'static str {
    match operator {
        "GreaterThanOrEqualToThreshold" => "greater than or equal to",
        "GreaterThanThreshold" => "greater than",
        "LessThanThreshold" => "less than",
        "LessThanOrEqualToThreshold" => "less than or equal to",
        "LessThanLowerOrGreaterThanUpperThreshold" => "outside the band",
        "LessThanLowerThreshold" => "less than the lower band",
        _ => "greater than the upper band",
    }
}

fn breaches(operator: &str, value: f64, threshold: f64) -> bool {
    match operator {
        "GreaterThanOrEqualToThreshold" => value >= threshold,
        "GreaterThanThreshold" | "GreaterThanUpperThreshold" => value > threshold,
        "LessThanThreshold" | "LessThanLowerThreshold" => value < threshold,
        "LessThanOrEqualToThreshold" => value <= threshold,
        _ => false,
    }
}

/// The last `count` complete periods of `period_s` seconds before `now_ms`, oldest first.
fn window_periods(now_ms: i64, period_s: i64, count: i64) -> (i64, i64) {
    let period_ms = period_s.max(1) * 1000;
    let end = now_ms - now_ms.rem_euclid(period_ms);
    (end - count * period_ms, end)
}

/// The alarm's evaluated periods now, oldest first.
pub(crate) fn points(r: &(impl Read + ?Sized), spec: &MetricSpec, now_ms: i64) -> Result<Vec<Point>> {
    let count = i64::from(spec.evaluation_periods.max(1));
    if let Some(queries) = &spec.metrics {
        let period = queries
            .iter()
            .filter_map(|q| q.stat.as_ref().map(|s| s.period).or(q.period))
            .min()
            .unwrap_or(60);
        let (start, end) = window_periods(now_ms, i64::from(period), count);
        let answers = query::run(r, queries, start, end)?;
        let answer = answers.into_iter().next();
        let step = i64::from(period.max(1)) * 1000;
        return Ok((0..count)
            .map(|i| {
                let period_ms = start + i * step;
                let value = answer
                    .as_ref()
                    .and_then(|a| a.points.iter().find(|(t, _)| *t == period_ms).map(|(_, v)| *v));
                Point {
                    period_ms,
                    value,
                    sample_count: None,
                }
            })
            .collect());
    }
    let (Some(metric), Some(period)) = (&spec.metric, spec.period) else {
        return Ok(Vec::new());
    };
    let stat = spec
        .statistic
        .as_deref()
        .or(spec.extended_statistic.as_deref())
        .and_then(Stat::parse)
        .unwrap_or(Stat::Average);
    let (start, end) = window_periods(now_ms, i64::from(period), count);
    let window = Window {
        start_ms: start,
        end_ms: end,
        period_s: i64::from(period),
        unit: spec.unit.as_deref(),
    };
    let mut merged: std::collections::BTreeMap<i64, Aggregate> = std::collections::BTreeMap::new();
    for ((p, _), a) in aggregates(r, metric, window)? {
        merged.entry(p).or_default().merge(a);
    }
    Ok(window
        .periods()
        .map(|period_ms| {
            let aggregate = merged.get(&period_ms);
            Point {
                period_ms,
                value: aggregate.and_then(|a| a.statistic(stat)),
                sample_count: aggregate.map(|a| a.count),
            }
        })
        .collect())
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The state `alarm` should be in now, with AWS's reason; `None` to keep it as it is.
pub(crate) fn judge(
    r: &(impl Read + ?Sized),
    alarm: &AlarmRecord,
    spec: &MetricSpec,
    now_ms: i64,
) -> Result<Option<NewState>> {
    let points = points(r, spec, now_ms)?;
    Ok(decide(alarm, spec, &points, now_ms))
}

/// The decision over `points` (oldest first), kept apart from storage for its tests.
pub(crate) fn decide(alarm: &AlarmRecord, spec: &MetricSpec, points: &[Point], now_ms: i64) -> Option<NewState> {
    let n = points.len();
    if n == 0 {
        return None;
    }
    let m = spec.datapoints_to_alarm.map_or(n, |m| (m.max(1) as usize).min(n));
    let threshold = spec.threshold.unwrap_or(0.0);
    let operator = spec.comparison_operator.as_str();
    let treat = spec.treat_missing_data.as_deref().unwrap_or("missing");
    let present: Vec<&Point> = points.iter().filter(|p| p.value.is_some()).collect();
    let missing = n - present.len();
    let mut data = serde_json::Map::new();
    data.insert("version".into(), json!("1.0"));
    data.insert("queryDate".into(), json!(dates::iso(now_ms)));
    if let Some(first) = present.first() {
        data.insert("startDate".into(), json!(dates::iso(first.period_ms)));
    }
    if let Some(unit) = &spec.unit {
        data.insert("unit".into(), json!(unit));
    }
    if spec.metrics.is_none() {
        let statistic = spec
            .statistic
            .clone()
            .or(spec.extended_statistic.clone())
            .unwrap_or_default();
        data.insert("statistic".into(), json!(statistic));
        data.insert("period".into(), json!(spec.period));
    }
    data.insert(
        "recentDatapoints".into(),
        json!(present.iter().filter_map(|p| p.value).collect::<Vec<f64>>()),
    );
    data.insert("threshold".into(), json!(threshold));
    let evaluated: Vec<serde_json::Value> = points
        .iter()
        .rev()
        .map(|p| {
            let mut point = json!({"timestamp": dates::iso(p.period_ms)});
            if let Some(count) = p.sample_count {
                point["sampleCount"] = json!(count);
            }
            if let Some(value) = p.value {
                point["value"] = json!(value);
            }
            point
        })
        .collect();
    data.insert("evaluatedDatapoints".into(), json!(evaluated));
    let reason_data = Some(serde_json::Value::Object(data).to_string());
    let words = comparison_words(operator);
    let listed = |points: &[&Point]| {
        points
            .iter()
            .rev()
            .filter_map(|p| {
                p.value
                    .map(|v| format!("{} ({})", dates::number(v), dates::short(p.period_ms)))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if present.is_empty() {
        let (value, treated) = match treat {
            "breaching" => (ALARM, "Breaching"),
            "notBreaching" => (OK, "NonBreaching"),
            "ignore" => return None,
            _ => (INSUFFICIENT_DATA, "Missing"),
        };
        if value == INSUFFICIENT_DATA {
            return Some(NewState {
                value: value.to_owned(),
                reason: format!(
                    "Insufficient Data: {} {} unknown.",
                    plural(n, "datapoint", "datapoints"),
                    if n == 1 { "was" } else { "were" }
                ),
                reason_data,
            });
        }
        return Some(NewState {
            value: value.to_owned(),
            reason: format!(
                "Threshold Crossed: no datapoints were received for {} and {} {} treated as [{treated}].",
                plural(n, "period", "periods"),
                plural(n, "missing datapoint", "missing datapoints"),
                if n == 1 { "was" } else { "were" },
            ),
            reason_data,
        });
    }
    let breaching: Vec<&Point> = present
        .iter()
        .copied()
        .filter(|p| p.value.is_some_and(|v| breaches(operator, v, threshold)))
        .collect();
    let counted = breaching.len() + if treat == "breaching" { missing } else { 0 };
    let threshold_text = dates::number(threshold);
    if counted >= m {
        let reason = if n == 1 {
            format!(
                "Threshold Crossed: 1 datapoint [{}] was {words} the threshold ({threshold_text}).",
                listed(&breaching)
            )
        } else {
            format!(
                "Threshold Crossed: {counted} out of the last {n} datapoints [{}] {} {words} the threshold ({threshold_text}) \
                 (minimum {} for {} -> ALARM transition).",
                listed(&breaching),
                if counted == 1 { "was" } else { "were" },
                plural(m, "datapoint", "datapoints"),
                alarm.state,
            )
        };
        return Some(NewState {
            value: ALARM.to_owned(),
            reason,
            reason_data,
        });
    }
    let reason = format!(
        "Threshold Crossed: {} [{}] {} not {words} the threshold ({threshold_text}).",
        plural(present.len(), "datapoint", "datapoints"),
        listed(&present),
        if present.len() == 1 { "was" } else { "were" },
    );
    Some(NewState {
        value: OK.to_owned(),
        reason,
        reason_data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::MetricId;

    const NOW: i64 = 1_709_292_986_123;

    fn alarm(periods: i32, to_alarm: Option<i32>, treat: Option<&str>) -> (AlarmRecord, MetricSpec) {
        let spec = MetricSpec {
            metric: Some(MetricId::new("ns", "m", [])),
            statistic: Some("Average".to_owned()),
            extended_statistic: None,
            period: Some(60),
            unit: Some("Seconds".to_owned()),
            evaluation_periods: periods,
            datapoints_to_alarm: to_alarm,
            threshold: Some(21.0),
            comparison_operator: "GreaterThanThreshold".to_owned(),
            treat_missing_data: treat.map(str::to_owned),
            evaluate_low_sample_count_percentile: None,
            metrics: None,
            threshold_metric_id: None,
        };
        let record = AlarmRecord::new(
            "us-east-1",
            "111111111111",
            "a".to_owned(),
            AlarmKind::Metric(Box::new(spec.clone())),
            NOW,
        );
        (record, spec)
    }

    fn at(i: i64, value: Option<f64>) -> Point {
        Point {
            period_ms: 1_709_292_900_000 + i * 60_000,
            value,
            sample_count: value.map(|_| 2.0),
        }
    }

    fn decided(
        periods: i32,
        to_alarm: Option<i32>,
        treat: Option<&str>,
        values: &[Option<f64>],
    ) -> Option<(String, String)> {
        let (record, spec) = alarm(periods, to_alarm, treat);
        let points: Vec<Point> = values.iter().enumerate().map(|(i, v)| at(i as i64, *v)).collect();
        decide(&record, &spec, &points, NOW).map(|s| (s.value, s.reason))
    }

    // AWS's recorded reasons: one breaching datapoint; no data with `breaching`.
    #[test]
    fn reasons_are_worded_as_aws_words_them() {
        assert_eq!(
            decided(1, None, None, &[Some(21.5)]),
            Some((
                ALARM.into(),
                "Threshold Crossed: 1 datapoint [21.5 (01/03/24 11:35:00)] was greater than the threshold (21.0)."
                    .into()
            ))
        );
        assert_eq!(
            decided(2, None, Some("breaching"), &[None, None]),
            Some((ALARM.into(), "Threshold Crossed: no datapoints were received for 2 periods and 2 missing datapoints were treated as [Breaching].".into()))
        );
        assert_eq!(
            decided(1, None, None, &[Some(3.0)]),
            Some((
                OK.into(),
                "Threshold Crossed: 1 datapoint [3.0 (01/03/24 11:35:00)] was not greater than the threshold (21.0)."
                    .into()
            ))
        );
    }

    // User guide, missing data: `missing` with no data is INSUFFICIENT_DATA, `ignore` keeps
    // the state, `notBreaching` is OK; DatapointsToAlarm is the M of "M out of N".
    #[test]
    fn missing_data_and_m_out_of_n() {
        assert_eq!(decided(1, None, None, &[None]).unwrap().0, INSUFFICIENT_DATA);
        assert_eq!(decided(1, None, Some("ignore"), &[None]), None);
        assert_eq!(decided(2, None, Some("notBreaching"), &[None, None]).unwrap().0, OK);
        assert_eq!(
            decided(3, Some(2), None, &[Some(30.0), Some(1.0), Some(30.0)])
                .unwrap()
                .0,
            ALARM
        );
        assert_eq!(
            decided(3, Some(3), None, &[Some(30.0), Some(1.0), Some(30.0)])
                .unwrap()
                .0,
            OK
        );
        assert_eq!(
            decided(3, Some(2), Some("breaching"), &[Some(30.0), None, Some(1.0)])
                .unwrap()
                .0,
            ALARM
        );
        assert_eq!(
            decided(3, Some(2), Some("notBreaching"), &[Some(30.0), None, Some(1.0)])
                .unwrap()
                .0,
            OK
        );
        let (_, reason) = decided(3, Some(2), None, &[Some(30.0), Some(1.0), Some(25.0)]).unwrap();
        assert_eq!(
            reason,
            "Threshold Crossed: 2 out of the last 3 datapoints [25.0 (01/03/24 11:37:00), 30.0 (01/03/24 11:35:00)] were \
             greater than the threshold (21.0) (minimum 2 datapoints for INSUFFICIENT_DATA -> ALARM transition)."
        );
    }

    #[test]
    fn the_reason_data_is_the_json_aws_writes() {
        let (record, spec) = alarm(1, None, None);
        let state = decide(&record, &spec, &[at(0, Some(21.5))], NOW).unwrap();
        let data: serde_json::Value = serde_json::from_str(&state.reason_data.unwrap()).unwrap();
        assert_eq!(
            data,
            json!({
                "version": "1.0",
                "queryDate": "2024-03-01T11:36:26.123+0000",
                "startDate": "2024-03-01T11:35:00.000+0000",
                "unit": "Seconds",
                "statistic": "Average",
                "period": 60,
                "recentDatapoints": [21.5],
                "threshold": 21.0,
                "evaluatedDatapoints": [{"timestamp": "2024-03-01T11:35:00.000+0000", "sampleCount": 2.0, "value": 21.5}],
            })
        );
    }
}
