//! GetMetricData's queries — a metric's statistic (`MetricStat`) or a metric math
//! `Expression` over the others — run over a window, as GetMetricData and alarms on
//! expressions ask. Expressions read other queries by `Id` (each evaluated once; a cycle is
//! refused), `METRICS()` and `SEARCH()` over the stored metrics.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use stratus_core::AwsError;
use stratus_storage::Read;

use crate::error::{invalid_value, CwError, Result};
use crate::math::{eval, parse, parse_search, Series, Source, Val};
use crate::metric::{self, MetricId};
use crate::samples::{metrics, series, Window};
use crate::stats::Stat;

/// One query, as GetMetricData and PutMetricAlarm's `Metrics` take it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct QuerySpec {
    pub id: String,
    #[serde(default)]
    pub stat: Option<StatQuery>,
    #[serde(default)]
    pub expression: Option<String>,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub return_data: Option<bool>,
    #[serde(default)]
    pub period: Option<i32>,
    #[serde(default)]
    pub account_id: Option<String>,
}

impl QuerySpec {
    pub(crate) fn returned(&self) -> bool {
        self.return_data != Some(false)
    }
}

/// `MetricStat`: a statistic of one metric in periods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StatQuery {
    pub metric: MetricId,
    pub period: i32,
    pub stat: String,
    #[serde(default)]
    pub unit: Option<String>,
}

/// One series a request answers: a query's `Id` (an expression giving an array answers one
/// per member) with its label and points in time order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Answer {
    pub id: String,
    pub label: String,
    pub points: Vec<(i64, f64)>,
}

/// Runs `queries` from `start_ms` to `end_ms` and answers the returned ones, in order.
pub(crate) fn run(r: &(impl Read + ?Sized), queries: &[QuerySpec], start_ms: i64, end_ms: i64) -> Result<Vec<Answer>> {
    let labels = default_labels(queries);
    let period_s = queries
        .iter()
        .filter_map(|q| q.stat.as_ref().map(|s| s.period))
        .chain(queries.iter().filter_map(|q| q.period))
        .min()
        .unwrap_or(60)
        .max(1) as i64;
    let mut running = Running {
        r,
        queries,
        start_ms,
        end_ms,
        period_s,
        labels: &labels,
        done: HashMap::new(),
        visiting: HashSet::new(),
    };
    let mut answers = Vec::new();
    for query in queries.iter().filter(|q| q.returned()) {
        let value = running
            .query(&query.id)
            .map_err(|message| expression_error(&query.id, &message))?;
        let label = |series_label: &str| {
            query.label.clone().unwrap_or_else(|| {
                if series_label.is_empty() {
                    query.id.clone()
                } else {
                    series_label.to_owned()
                }
            })
        };
        match value {
            Val::Series(s) => answers.push(Answer {
                id: query.id.clone(),
                label: label(&s.label),
                points: s.points.into_iter().collect(),
            }),
            Val::Array(array) => answers.extend(array.into_iter().map(|s| Answer {
                id: query.id.clone(),
                label: query.label.clone().unwrap_or(s.label),
                points: s.points.into_iter().collect(),
            })),
            Val::Scalar(v) => answers.push(Answer {
                id: query.id.clone(),
                label: label(""),
                points: running.grid().into_iter().map(|t| (t, v)).collect(),
            }),
            Val::Str(_) => return Err(expression_error(&query.id, "The expression gives a string")),
        }
    }
    for answer in &mut answers {
        answer.points.retain(|(_, v)| v.is_finite());
    }
    Ok(answers)
}

fn expression_error(id: &str, message: &str) -> CwError {
    CwError(AwsError::new(
        "ValidationError",
        format!("Error in expression '{id}': {message}"),
        400,
    ))
}

/// The labels AWS gives metric queries without one: the metric's name, then the statistic
/// when the request's metric queries differ in it, then the period when they differ in that.
fn default_labels(queries: &[QuerySpec]) -> HashMap<String, String> {
    let stats: Vec<&StatQuery> = queries.iter().filter_map(|q| q.stat.as_ref()).collect();
    let stats_differ = stats.windows(2).any(|w| w[0].stat != w[1].stat);
    let periods_differ = stats.windows(2).any(|w| w[0].period != w[1].period);
    queries
        .iter()
        .filter_map(|q| {
            let s = q.stat.as_ref()?;
            let mut label = s.metric.name.clone();
            if stats_differ {
                label = format!("{label} {}", s.stat);
            }
            if periods_differ {
                label = format!("{label} {}", s.period);
            }
            Some((q.id.clone(), label))
        })
        .collect()
}

struct Running<'a, R: Read + ?Sized> {
    r: &'a R,
    queries: &'a [QuerySpec],
    start_ms: i64,
    end_ms: i64,
    period_s: i64,
    labels: &'a HashMap<String, String>,
    done: HashMap<String, Val>,
    visiting: HashSet<String>,
}

impl<R: Read + ?Sized> Running<'_, R> {
    fn stat_series(&self, s: &StatQuery, label: String) -> std::result::Result<Series, String> {
        let stat = Stat::parse(&s.stat).ok_or_else(|| format!("Unsupported statistic {}", s.stat))?;
        let window = Window {
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            period_s: i64::from(s.period.max(1)),
            unit: s.unit.as_deref(),
        };
        let points = series(self.r, &s.metric, window, stat).map_err(|e| e.0.message)?;
        Ok(Series {
            label,
            points: points.into_iter().collect(),
        })
    }
}

impl<R: Read + ?Sized> Source for Running<'_, R> {
    fn query(&mut self, id: &str) -> std::result::Result<Val, String> {
        if let Some(done) = self.done.get(id) {
            return Ok(done.clone());
        }
        let queries = self.queries;
        let spec = queries
            .iter()
            .find(|q| q.id == id)
            .ok_or_else(|| format!("Unrecognized metric or expression id {id}"))?;
        if !self.visiting.insert(id.to_owned()) {
            return Err(format!("Circular reference to {id}"));
        }
        let value = match (&spec.stat, &spec.expression) {
            (Some(s), _) => {
                let label = self.labels.get(id).cloned().unwrap_or_default();
                Val::Series(self.stat_series(s, label)?)
            }
            (None, Some(text)) => {
                let expr = parse(text)?;
                eval(&expr, self)?
            }
            (None, None) => return Err(format!("{id} has neither a metric nor an expression")),
        };
        self.visiting.remove(id);
        self.done.insert(id.to_owned(), value.clone());
        Ok(value)
    }

    fn metric_queries(&mut self) -> std::result::Result<Vec<(String, Series)>, String> {
        let ids: Vec<String> = self
            .queries
            .iter()
            .filter(|q| q.stat.is_some())
            .map(|q| q.id.clone())
            .collect();
        let mut all = Vec::new();
        for id in ids {
            if let Val::Series(s) = self.query(&id)? {
                all.push((id, s));
            }
        }
        Ok(all)
    }

    fn search(&mut self, expression: &str, stat: &str, period_s: i64) -> std::result::Result<Vec<Series>, String> {
        let search = parse_search(expression)?;
        let stored = metrics(self.r, &metric::prefix(None, None)).map_err(|e| e.0.message)?;
        let mut found = Vec::new();
        for record in stored.into_iter().filter(|m| search.matches(&m.metric)) {
            let label = std::iter::once(record.metric.name.as_str())
                .chain(record.metric.dimensions.iter().map(|(_, v)| v.as_str()))
                .collect::<Vec<_>>()
                .join(" ");
            let query = StatQuery {
                metric: record.metric,
                period: period_s.clamp(1, i64::from(i32::MAX)) as i32,
                stat: stat.to_owned(),
                unit: None,
            };
            found.push(self.stat_series(&query, label)?);
        }
        Ok(found)
    }

    fn grid(&self) -> Vec<i64> {
        Window {
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            period_s: self.period_s,
            unit: None,
        }
        .periods()
        .take(100_800)
        .collect()
    }

    fn period_s(&self) -> i64 {
        self.period_s
    }
}

/// Checks a statistic's name as GetMetricData's `Stat` takes it.
pub(crate) fn check_stat(stat: &str, path: &str) -> Result<()> {
    match Stat::parse(stat) {
        Some(_) => Ok(()),
        None => Err(invalid_value(format!(
            "The value {stat} for parameter {path} is not supported."
        ))),
    }
}
