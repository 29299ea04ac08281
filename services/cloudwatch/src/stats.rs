//! Statistics over the samples of one period: the five basic ones and the extended ones
//! (percentiles `pNN.NN`, trimmed mean, count and sum `tm`/`tc`/`ts`, winsorized mean `wm`,
//! `IQM`), computed exactly from the raw values kept, as CloudWatch's documentation of
//! statistics defines them ("CloudWatch statistics definitions", user guide).
//!
//! Values come with counts (PutMetricData's `Values` and `Counts`), so every rank below is a
//! weight: a value put with count 3 is three samples. Statistic sets (`StatisticValues`) add
//! to the basic statistics only; AWS cannot give percentiles of them either.

use serde::{Deserialize, Serialize};

/// One stored sample: raw values with their counts, or a statistic set, or (as AWS allows)
/// both, in a unit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sample {
    /// The unit, `None` for AWS's `None`.
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(rename = "v", default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<f64>,
    /// Each value's count; empty when every count is 1.
    #[serde(rename = "c", default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<f64>,
    /// `SampleCount`, `Sum`, `Minimum`, `Maximum` of a statistic set.
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub set: Option<[f64; 4]>,
}

impl Sample {
    /// The unit as AWS names it.
    pub(crate) fn unit(&self) -> &str {
        self.unit.as_deref().unwrap_or("None")
    }

    /// How many samples this counts for, against the bound on stored samples.
    pub(crate) fn weight(&self) -> u64 {
        (self.values.len() as u64).max(1)
    }
}

/// The samples of one period.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Aggregate {
    pub count: f64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
    /// Raw values and their counts, for the extended statistics.
    values: Vec<(f64, f64)>,
    /// Whether a statistic set contributed, which leaves the extended statistics unknown.
    from_sets: bool,
}

impl Aggregate {
    pub(crate) fn add(&mut self, sample: &Sample) {
        for (i, &value) in sample.values.iter().enumerate() {
            let count = sample.counts.get(i).copied().unwrap_or(1.0);
            self.take(count, value * count, value, value);
            self.values.push((value, count));
        }
        if let Some([count, sum, min, max]) = sample.set {
            self.take(count, sum, min, max);
            self.from_sets = true;
        }
    }

    /// Adds the samples of `other`, another unit's or another sample row's.
    pub(crate) fn merge(&mut self, other: Aggregate) {
        if other.is_empty() {
            return;
        }
        self.take(other.count, other.sum, other.min, other.max);
        self.values.extend(other.values);
        self.from_sets |= other.from_sets;
    }

    fn take(&mut self, count: f64, sum: f64, min: f64, max: f64) {
        if self.count == 0.0 && self.values.is_empty() && !self.from_sets {
            (self.min, self.max) = (min, max);
        } else {
            self.min = self.min.min(min);
            self.max = self.max.max(max);
        }
        self.count += count;
        self.sum += sum;
    }

    /// Whether any sample was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty() && !self.from_sets
    }

    /// `stat` over the period's samples; `None` where AWS has no value (no samples, or an
    /// extended statistic of statistic sets).
    pub(crate) fn statistic(&self, stat: Stat) -> Option<f64> {
        if self.is_empty() {
            return None;
        }
        match stat {
            Stat::SampleCount => Some(self.count),
            Stat::Sum => Some(self.sum),
            Stat::Average => (self.count > 0.0).then(|| self.sum / self.count),
            Stat::Minimum => Some(self.min),
            Stat::Maximum => Some(self.max),
            _ if self.from_sets => None,
            Stat::Percentile(p) => self.percentile(p),
            Stat::Trimmed(kind, low, high) => self.trimmed(kind, low, high),
        }
    }

    fn sorted(&self) -> (Vec<(f64, f64)>, f64) {
        let mut values = self.values.clone();
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total = values.iter().map(|(_, c)| c).sum();
        (values, total)
    }

    /// The smallest value with at least `p` percent of the samples at or below it.
    fn percentile(&self, p: f64) -> Option<f64> {
        let (values, total) = self.sorted();
        let rank = (p / 100.0 * total).max(f64::MIN_POSITIVE);
        let mut seen = 0.0;
        for (value, count) in &values {
            seen += count;
            if seen >= rank - 1e-9 {
                return Some(*value);
            }
        }
        values.last().map(|(v, _)| *v)
    }

    /// The samples ranked above `low` and up to `high` percent.
    fn trimmed(&self, kind: Trim, low: f64, high: f64) -> Option<f64> {
        let (values, total) = self.sorted();
        let (from, to) = (low / 100.0 * total, high / 100.0 * total);
        if kind == Trim::WinsorizedMean {
            let low_value = self.percentile(low.max(f64::MIN_POSITIVE))?;
            let high_value = self.percentile(high)?;
            let sum: f64 = values.iter().map(|(v, c)| v.clamp(low_value, high_value) * c).sum();
            return (total > 0.0).then(|| sum / total);
        }
        let (mut seen, mut count, mut sum) = (0.0, 0.0, 0.0);
        for (value, weight) in &values {
            let (start, end) = (seen, seen + weight);
            let inside = (end.min(to) - start.max(from)).max(0.0);
            count += inside;
            sum += inside * value;
            seen = end;
        }
        match kind {
            Trim::Count => Some(count),
            Trim::Sum => Some(sum),
            _ => (count > 0.0).then(|| sum / count),
        }
    }
}

/// How a trimmed statistic reads the samples it keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Trim {
    Mean,
    Count,
    Sum,
    WinsorizedMean,
}

/// A statistic CloudWatch computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stat {
    SampleCount,
    Average,
    Sum,
    Minimum,
    Maximum,
    /// `pNN.NN`.
    Percentile(f64),
    /// `tm`, `tc`, `ts`, `wm` (`IQM` is `tm(25%:75%)`), between two percentages.
    Trimmed(Trim, f64, f64),
}

impl Stat {
    /// The statistic named `name`, as GetMetricData's `Stat`, an alarm's `Statistic` or
    /// `ExtendedStatistic` write it: `Sum`, `p99`, `p99.9`, `tm90`, `tm(10%:90%)`, `IQM`.
    pub(crate) fn parse(name: &str) -> Option<Stat> {
        Some(match name {
            "SampleCount" => Stat::SampleCount,
            "Average" => Stat::Average,
            "Sum" => Stat::Sum,
            "Minimum" => Stat::Minimum,
            "Maximum" => Stat::Maximum,
            "IQM" => Stat::Trimmed(Trim::Mean, 25.0, 75.0),
            _ => return Stat::parse_extended(name),
        })
    }

    fn parse_extended(name: &str) -> Option<Stat> {
        let (kind, rest) = if let Some(rest) = name.strip_prefix('p') {
            return percentage(rest).map(Stat::Percentile);
        } else if let Some(rest) = name.strip_prefix("tm").or_else(|| name.strip_prefix("TM")) {
            (Trim::Mean, rest)
        } else if let Some(rest) = name.strip_prefix("tc").or_else(|| name.strip_prefix("TC")) {
            (Trim::Count, rest)
        } else if let Some(rest) = name.strip_prefix("ts").or_else(|| name.strip_prefix("TS")) {
            (Trim::Sum, rest)
        } else if let Some(rest) = name.strip_prefix("wm").or_else(|| name.strip_prefix("WM")) {
            (Trim::WinsorizedMean, rest)
        } else {
            return None;
        };
        if let Some(range) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            let (low, high) = range.split_once(':')?;
            let low = if low.is_empty() {
                0.0
            } else {
                percentage(low.strip_suffix('%')?)?
            };
            let high = if high.is_empty() {
                100.0
            } else {
                percentage(high.strip_suffix('%')?)?
            };
            return (low < high).then_some(Stat::Trimmed(kind, low, high));
        }
        percentage(rest).map(|high| Stat::Trimmed(kind, 0.0, high))
    }

    /// Whether this is one of the five basic statistics (`Statistics`, not
    /// `ExtendedStatistics`).
    pub(crate) fn is_basic(self) -> bool {
        !matches!(self, Stat::Percentile(_) | Stat::Trimmed(..))
    }
}

/// `NN` or `NN.NN`, from 0 to 100 with at most two decimals, as AWS's extended statistics
/// take them.
fn percentage(text: &str) -> Option<f64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str, max: usize| s.len() <= max && s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole, 3) || !digits(fraction, 2) || (text.contains('.') && fraction.is_empty()) {
        return None;
    }
    let value: f64 = text.parse().ok()?;
    (0.0..=100.0).contains(&value).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aggregate(values: &[f64]) -> Aggregate {
        let mut a = Aggregate::default();
        a.add(&Sample {
            values: values.to_vec(),
            ..Sample::default()
        });
        a
    }

    fn stat(a: &Aggregate, name: &str) -> Option<f64> {
        a.statistic(Stat::parse(name).unwrap_or_else(|| panic!("{name} parses")))
    }

    // User guide, "Statistics definitions": pNN is the value with NN percent of the data at
    // or below it, computed here from every raw value.
    #[test]
    fn percentiles_are_exact_over_raw_values() {
        let a = aggregate(&(1..=100).map(f64::from).collect::<Vec<_>>());
        let table = [
            ("p50", 50.0),
            ("p90", 90.0),
            ("p99", 99.0),
            ("p99.5", 100.0),
            ("p100", 100.0),
            ("p0", 1.0),
            ("p0.5", 1.0),
            ("p1", 1.0),
            ("p25.5", 26.0),
        ];
        for (name, want) in table {
            assert_eq!(stat(&a, name), Some(want), "{name}");
        }
    }

    #[test]
    fn counts_weigh_values() {
        let mut a = Aggregate::default();
        a.add(&Sample {
            values: vec![1.0, 10.0],
            counts: vec![2.0, 4.0],
            ..Sample::default()
        });
        assert_eq!((a.count, a.sum, a.min, a.max), (6.0, 42.0, 1.0, 10.0));
        assert_eq!(stat(&a, "Average"), Some(7.0));
        assert_eq!(stat(&a, "p33"), Some(1.0));
        assert_eq!(stat(&a, "p34"), Some(10.0));
    }

    // User guide: tm90 is the mean of the lowest 90% of values; tm(10%:90%) drops both ends;
    // IQM is tm(25%:75%); tc and ts count and sum what tm averages; wm clamps to the bounds.
    #[test]
    fn trimmed_statistics_keep_the_ranks_between_their_bounds() {
        let a = aggregate(&(1..=10).map(f64::from).collect::<Vec<_>>());
        let table = [
            ("tm90", 5.0),
            ("tm(10%:90%)", 5.5),
            ("TM(10%:90%)", 5.5),
            ("IQM", 5.5),
            ("tc90", 9.0),
            ("ts90", 45.0),
            ("tc(:50%)", 5.0),
            ("ts(50%:)", 40.0),
            ("wm(10%:90%)", 5.4),
            ("wm90", 5.4),
        ];
        for (name, want) in table {
            let got = stat(&a, name).unwrap();
            assert!((got - want).abs() < 1e-9, "{name}: {got} != {want}");
        }
    }

    #[test]
    fn statistic_sets_give_the_basic_statistics_only() {
        let mut a = Aggregate::default();
        a.add(&Sample {
            set: Some([10.0, 55.0, 1.0, 10.0]),
            ..Sample::default()
        });
        assert_eq!(stat(&a, "Average"), Some(5.5));
        assert_eq!(stat(&a, "Minimum"), Some(1.0));
        assert_eq!(stat(&a, "p50"), None);
        assert_eq!(Aggregate::default().statistic(Stat::Sum), None);
    }

    #[test]
    fn statistic_names_are_aws_forms_only() {
        for bad in [
            "p",
            "p101",
            "p1.234",
            "p-1",
            "p 5",
            "sum",
            "tm(90%:10%)",
            "tm(a%:b%)",
            "p50.",
            "x50",
            "tm",
        ] {
            assert_eq!(Stat::parse(bad), None, "{bad}");
        }
        assert_eq!(Stat::parse("p99.99"), Some(Stat::Percentile(99.99)));
        assert!(Stat::parse("Sum").unwrap().is_basic());
        assert!(!Stat::parse("p10").unwrap().is_basic());
    }
}
