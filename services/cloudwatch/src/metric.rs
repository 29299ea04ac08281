//! What names a metric — its namespace, name and dimensions — and the keys its record and
//! samples are stored under.
//!
//! Keys are tuples (`stratus_storage::tuple`): namespace, name, the number of dimensions,
//! then each dimension's name and value in name order. The count keeps a metric's samples
//! apart from those of a metric with more dimensions, so one metric is one key prefix, and a
//! namespace (or a namespace and name) is a prefix of all its metrics.

use serde::{Deserialize, Serialize};
use stratus_storage::tuple::{TupleKey, TupleReader};

/// A metric: AWS treats each distinct set of dimensions as its own metric.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct MetricId {
    pub namespace: String,
    pub name: String,
    /// Name and value, sorted by name.
    pub dimensions: Vec<(String, String)>,
}

impl MetricId {
    /// The metric of `namespace` and `name` with `dimensions` in any order.
    pub(crate) fn new(namespace: &str, name: &str, dimensions: impl IntoIterator<Item = (String, String)>) -> MetricId {
        let mut dimensions: Vec<(String, String)> = dimensions.into_iter().collect();
        dimensions.sort();
        MetricId {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            dimensions,
        }
    }

    /// The key of the metric's record, and the prefix of its samples' keys.
    pub(crate) fn key(&self) -> Vec<u8> {
        let mut key = TupleKey::new()
            .str(&self.namespace)
            .str(&self.name)
            .u64(self.dimensions.len() as u64);
        for (name, value) in &self.dimensions {
            key = key.str(name).str(value);
        }
        key.into_bytes()
    }

    /// The dimension called `name`, if the metric has it.
    pub(crate) fn dimension(&self, name: &str) -> Option<&str> {
        self.dimensions.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The prefix of every metric key in `namespace` (and of `name`, when given).
pub(crate) fn prefix(namespace: Option<&str>, name: Option<&str>) -> Vec<u8> {
    match (namespace, name) {
        (Some(namespace), Some(name)) => TupleKey::new().str(namespace).str(name).into_bytes(),
        (Some(namespace), None) => TupleKey::new().str(namespace).into_bytes(),
        _ => Vec::new(),
    }
}

/// The key of one sample of the metric whose key is `metric_key`.
pub(crate) fn sample_key(metric_key: &[u8], timestamp_ms: i64, seq: u64) -> Vec<u8> {
    let mut key = metric_key.to_vec();
    key.extend_from_slice(&TupleKey::new().i64(timestamp_ms).u64(seq).into_bytes());
    key
}

/// The timestamp in a sample's key, after its metric's key of `metric_key_len` bytes.
pub(crate) fn sample_timestamp(key: &[u8], metric_key_len: usize) -> Option<i64> {
    let mut reader = TupleReader::new(key.get(metric_key_len..)?);
    reader.i64().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn dimensions_are_kept_in_name_order() {
        let a = MetricId::new("ns", "m", dims(&[("b", "2"), ("a", "1")]));
        let b = MetricId::new("ns", "m", dims(&[("a", "1"), ("b", "2")]));
        assert_eq!(a, b);
        assert_eq!(a.key(), b.key());
        assert_eq!(a.dimension("b"), Some("2"));
    }

    // A metric with more dimensions is another metric, and its samples are not under the
    // first one's prefix.
    #[test]
    fn a_metric_key_is_not_a_prefix_of_one_with_more_dimensions() {
        let one = MetricId::new("ns", "m", dims(&[("a", "1")]));
        let two = MetricId::new("ns", "m", dims(&[("a", "1"), ("b", "2")]));
        let sample = sample_key(&two.key(), 5, 1);
        assert!(!sample.starts_with(&one.key()));
        assert!(one.key().starts_with(&prefix(Some("ns"), Some("m"))));
        assert!(!one.key().starts_with(&prefix(Some("n"), None)));
    }

    #[test]
    fn a_sample_key_gives_back_its_timestamp() {
        let metric = MetricId::new("ns", "m", []);
        let key = sample_key(&metric.key(), -42, 7);
        assert_eq!(sample_timestamp(&key, metric.key().len()), Some(-42));
    }
}
