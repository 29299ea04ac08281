//! Schedule expressions, `rate(…)` and `cron(…)`, checked as EventBridge checks them.
//!
//! A rate is `rate(VALUE UNIT)`: a positive whole number and `minute`, `hour` or `day`,
//! singular for 1 and plural otherwise, with exactly one space and nothing around it. A cron is
//! six fields ([`Cron`]).

use crate::cron::Cron;

/// A schedule EventBridge accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Every this many seconds.
    Rate(u64),
    /// At the minutes a cron expression names.
    Cron(Cron),
}

/// The schedule `text` describes, or `None` when EventBridge refuses it ("Parameter
/// ScheduleExpression is not valid.").
pub(crate) fn parse(text: &str) -> Option<Schedule> {
    if let Some(body) = text.strip_prefix("rate(").and_then(|t| t.strip_suffix(')')) {
        return rate(body).map(Schedule::Rate);
    }
    if let Some(body) = text.strip_prefix("cron(").and_then(|t| t.strip_suffix(')')) {
        return Cron::parse(body).map(Schedule::Cron);
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
            assert!(matches!(parse(accepted), Some(Schedule::Cron(_))), "{accepted}");
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
