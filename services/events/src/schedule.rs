//! Schedule expressions, `rate(…)` and `cron(…)`, checked as EventBridge checks them.
//!
//! A rate is `rate(VALUE UNIT)`: a positive whole number and `minute`, `hour` or `day`,
//! singular for 1 and plural otherwise, with exactly one space and nothing around it. A cron is
//! six fields — minutes, hours, day of month, month, day of week, year — with `?` in exactly one
//! of the two day fields.

/// A schedule EventBridge accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Every this many seconds.
    Rate(u64),
    /// A cron expression (kept as text; firing on it is not served yet).
    Cron,
}

/// The schedule `text` describes, or `None` when EventBridge refuses it ("Parameter
/// ScheduleExpression is not valid.").
pub(crate) fn parse(text: &str) -> Option<Schedule> {
    if let Some(body) = text.strip_prefix("rate(").and_then(|t| t.strip_suffix(')')) {
        return rate(body).map(Schedule::Rate);
    }
    if let Some(body) = text.strip_prefix("cron(").and_then(|t| t.strip_suffix(')')) {
        return cron(body).map(|()| Schedule::Cron);
    }
    None
}

fn rate(body: &str) -> Option<u64> {
    let (value, unit) = body.split_once(' ')?;
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u64 = value.parse().ok()?;
    let seconds = match (value, unit) {
        (0, _) => return None,
        (1, "minute") | (2.., "minutes") => 60,
        (1, "hour") | (2.., "hours") => 3600,
        (1, "day") | (2.., "days") => 86_400,
        _ => return None,
    };
    value.checked_mul(seconds)
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

fn cron(body: &str) -> Option<()> {
    let fields: Vec<&str> = body.split(' ').collect();
    let [minutes, hours, dom, month, dow, year] = fields.as_slice() else {
        return None;
    };
    // Exactly one of the day fields is `?`.
    if (*dom == "?") == (*dow == "?") {
        return None;
    }
    field(minutes, 0, 59, &[], "")?;
    field(hours, 0, 23, &[], "")?;
    if *dom != "?" {
        field(dom, 1, 31, &[], "LW")?;
    }
    field(month, 1, 12, &MONTHS, "")?;
    if *dow != "?" {
        field(dow, 1, 7, &DAYS, "L#")?;
    }
    field(year, 1970, 2199, &[], "")?;
    Some(())
}

/// One cron field: `*`, or a comma list of values, ranges `a-b` and steps `a/n` or `*/n`, each
/// value a number in `min..=max` or one of `names` (1-based), with the `extras` this field
/// allows (`L`, `W`, `#`).
fn field(text: &str, min: u32, max: u32, names: &[&str], extras: &str) -> Option<()> {
    if text == "*" {
        return Some(());
    }
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => (range, Some(step)),
            None => (part, None),
        };
        if let Some(step) = step {
            let n: u32 = step.parse().ok()?;
            if n == 0 || !step.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
        }
        if range == "*" {
            continue;
        }
        if extras.contains('L') && (range == "L" || range == "LW") {
            continue;
        }
        if extras.contains('#') {
            if let Some((day, nth)) = range.split_once('#') {
                value(day, min, max, names)?;
                let nth: u32 = nth.parse().ok()?;
                if !(1..=5).contains(&nth) {
                    return None;
                }
                continue;
            }
            if let Some(day) = range.strip_suffix('L') {
                value(day, min, max, names)?;
                continue;
            }
        }
        if extras.contains('W') {
            if let Some(day) = range.strip_suffix('W') {
                value(day, min, max, names)?;
                continue;
            }
        }
        match range.split_once('-') {
            Some((from, to)) => {
                value(from, min, max, names)?;
                value(to, min, max, names)?;
            }
            None => {
                value(range, min, max, names)?;
            }
        }
    }
    Some(())
}

fn value(text: &str, min: u32, max: u32, names: &[&str]) -> Option<u32> {
    if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(text)) {
        return u32::try_from(i + 1).ok();
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = text.parse().ok()?;
    (min..=max).contains(&n).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_as_aws_takes_them() {
        assert_eq!(parse("rate(1 minute)"), Some(Schedule::Rate(60)));
        assert_eq!(parse("rate(5 minutes)"), Some(Schedule::Rate(300)));
        assert_eq!(parse("rate(2 days)"), Some(Schedule::Rate(172_800)));
        for refused in [
            "rate(10 seconds)",
            "rate(10 years)",
            "rate(1 minutes)",
            "rate(1 hours)",
            "rate(1 days)",
            "rate(10 minute)",
            "rate(10 hour)",
            "rate(10 day)",
            "rate()",
            "rate(10)",
            "rate(10 minutess)",
            "rate(foo minutes)",
            "rate(0 minutes)",
            "rate(-10 minutes)",
            "rate(10 MINUTES)",
            "rate( 10 minutes )",
            " rate(10 minutes)",
        ] {
            assert_eq!(parse(refused), None, "{refused}");
        }
    }

    #[test]
    fn crons_as_aws_takes_them() {
        for accepted in [
            "cron(0 2 ? * SAT *)",
            "cron(0 12 * * ? *)",
            "cron(5,35 14 * * ? *)",
            "cron(15 10 ? * 6L 2002-2005)",
            "cron(0 2 ? * SAT#3 *)",
            "cron(* * ? * SAT#3 *)",
            "cron(0/5 5 ? JAN 1-5 2022)",
            "cron(0/5 8-17 ? * MON-FRI *)",
            "cron(0 8 1 * ? *)",
            "cron(0 8 L * ? *)",
            "cron(0 8 15W * ? *)",
        ] {
            assert_eq!(parse(accepted), Some(Schedule::Cron), "{accepted}");
        }
        for refused in [
            "cron(0 1 * * * *)",
            "cron(7 20 * * NOT *)",
            "cron(INVALID)",
            "cron(0 dummy ? * MON-FRI *)",
            "cron(71 8 1 * ? *)",
            "cron(0 8 1 * ? * *)",
        ] {
            assert_eq!(parse(refused), None, "{refused}");
        }
    }

    #[test]
    fn never_panics_on_odd_text() {
        for text in [
            "",
            "(",
            "rate(",
            "cron()",
            "cron(/ / / / / /)",
            "rate(99999999999999999999 days)",
            "cron(0 0 ? * #)",
        ] {
            let _ = parse(text);
        }
    }
}
