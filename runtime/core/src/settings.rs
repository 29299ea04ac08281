//! Settings services read from the environment.

use std::time::Duration;

/// A positive number of seconds read from a setting's `value` (fractions allowed; at least a
/// millisecond, so a sweeper cannot spin, and at most a day), else `default` when the value is
/// absent or not a positive finite number.
pub fn seconds(value: Option<&str>, default: Duration) -> Duration {
    value
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map_or(default, |secs| Duration::from_secs_f64(secs.clamp(0.001, 86_400.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_positive_finite_and_bounded() {
        let default = Duration::from_secs(30);
        assert_eq!(seconds(None, default), default);
        assert_eq!(seconds(Some("0.25"), default), Duration::from_millis(250));
        assert_eq!(seconds(Some(" 5 "), default), Duration::from_secs(5));
        assert_eq!(seconds(Some("0.0000001"), default), Duration::from_millis(1));
        assert_eq!(seconds(Some("1e9"), default), Duration::from_secs(86_400));
        for bad in ["", "x", "0", "-1", "NaN", "inf"] {
            assert_eq!(seconds(Some(bad), default), default, "{bad:?}");
        }
    }
}
