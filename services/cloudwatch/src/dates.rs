//! The ways CloudWatch writes times and numbers in the text it composes: alarm state
//! reasons, their JSON data and notifications.

use stratus_core::calendar::civil_from_seconds;

/// `2024-03-01T11:36:26.123+0000`, as in `StateReasonData` and alarm notifications.
pub(crate) fn iso(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(ms.div_euclid(1000));
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}+0000",
        ms.rem_euclid(1000)
    )
}

/// `01/03/24 11:36:00` (day, month, two-digit year), as datapoints appear in state reasons.
pub(crate) fn short(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(ms.div_euclid(1000));
    format!("{d:02}/{mo:02}/{:02} {h:02}:{mi:02}:{s:02}", y.rem_euclid(100))
}

const DAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `Friday 01 March, 2024 11:36:00 UTC`, as composite alarms' state reasons name a moment.
pub(crate) fn long(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (y, mo, d, h, mi, s) = civil_from_seconds(secs);
    let day = DAYS[secs.div_euclid(86_400).rem_euclid(7) as usize];
    let month = MONTHS[(mo - 1).clamp(0, 11) as usize];
    format!("{day} {d:02} {month}, {y} {h:02}:{mi:02}:{s:02} UTC")
}

/// A number as Java's `Double.toString` writes it, which AWS's texts use: `21.0`, `21.5`,
/// `1.0E-5`, `1.5E10`.
pub(crate) fn number(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NaN".to_owned()
        } else if v > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        };
    }
    let magnitude = v.abs();
    if v == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let text = format!("{v}");
        return if text.contains('.') { text } else { format!("{text}.0") };
    }
    let text = format!("{v:E}");
    match text.split_once('E') {
        Some((mantissa, exponent)) if !mantissa.contains('.') => format!("{mantissa}.0E{exponent}"),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_709_292_986_123; // 2024-03-01T11:36:26.123Z, a Friday

    #[test]
    fn times_are_written_as_aws_writes_them() {
        assert_eq!(iso(MS), "2024-03-01T11:36:26.123+0000");
        assert_eq!(short(MS), "01/03/24 11:36:26");
        assert_eq!(long(MS), "Friday 01 March, 2024 11:36:26 UTC");
        assert_eq!(iso(0), "1970-01-01T00:00:00.000+0000");
    }

    #[test]
    fn numbers_are_written_as_java_writes_doubles() {
        let table = [
            (21.0, "21.0"),
            (21.5, "21.5"),
            (0.0, "0.0"),
            (-3.0, "-3.0"),
            (1e-5, "1.0E-5"),
            (1.5e10, "1.5E10"),
            (0.25, "0.25"),
        ];
        for (v, want) in table {
            assert_eq!(number(v), want);
        }
    }
}
