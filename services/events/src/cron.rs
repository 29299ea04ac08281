//! EventBridge's cron expressions: six fields — minutes, hours, day of month, month, day of
//! week, year — in UTC, with `?` in exactly one of the two day fields ("Cron expressions" in
//! the EventBridge user guide, "Schedule expressions for rules").
//!
//! Each field is `*` or a comma list of values, ranges `a-b` and steps `a/n` or `*/n`; months
//! and days of the week may be named (`JAN`, `SUN`; Sunday is 1). The day of month also takes
//! `L` (the last day), `LW` (the last weekday) and `nW` (the weekday nearest day `n`, within
//! the month); the day of week takes `nL` (the last day `n` of the month) and `n#k` (its
//! `k`-th in the month).

use stratus_core::calendar::{civil_from_days, days_from_civil};

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const FIRST_YEAR: i64 = 1970;
const LAST_YEAR: i64 = 2199;

/// A parsed cron expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cron {
    minutes: Vec<bool>,
    hours: Vec<bool>,
    months: Vec<bool>,
    years: Vec<bool>,
    days: Days,
}

/// Which days of a month the day fields choose.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Days {
    /// By day of month: plain days (index 1–31) and the special forms.
    OfMonth { plain: Vec<bool>, special: Vec<MonthDay> },
    /// By day of week: plain days (index 1–7, Sunday first) and the special forms.
    OfWeek { plain: Vec<bool>, special: Vec<WeekDay> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MonthDay {
    Last,
    LastWeekday,
    NearestWeekday(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WeekDay {
    /// The last such day of the week in the month.
    Last(u32),
    /// The `k`-th such day in the month.
    Nth(u32, u32),
}

impl Cron {
    /// The expression inside `cron(…)`, or `None` when EventBridge refuses it.
    pub(crate) fn parse(body: &str) -> Option<Cron> {
        let fields: Vec<&str> = body.split(' ').collect();
        let [minutes, hours, dom, month, dow, year] = fields.as_slice() else {
            return None;
        };
        // Exactly one of the day fields is `?`.
        if (*dom == "?") == (*dow == "?") {
            return None;
        }
        let days = if *dow == "?" {
            let (plain, special) = field(dom, 1, 31, &[], Extras::MonthDay)?;
            Days::OfMonth {
                plain,
                special: special.into_iter().map(|s| s.month_day()).collect::<Option<_>>()?,
            }
        } else {
            let (plain, special) = field(dow, 1, 7, &DAYS, Extras::WeekDay)?;
            Days::OfWeek {
                plain,
                special: special.into_iter().map(|s| s.week_day()).collect::<Option<_>>()?,
            }
        };
        Some(Cron {
            minutes: field(minutes, 0, 59, &[], Extras::None)?.0,
            hours: field(hours, 0, 23, &[], Extras::None)?.0,
            months: field(month, 1, 12, &MONTHS, Extras::None)?.0,
            years: field(year, FIRST_YEAR as u32, LAST_YEAR as u32, &[], Extras::None)?.0,
            days,
        })
    }

    /// The first whole minute after `secs` (seconds since the epoch, UTC) that the expression
    /// names, or `None` when none is left before 2200.
    pub(crate) fn next_after(&self, secs: i64) -> Option<i64> {
        let next_minute = secs.div_euclid(60) * 60 + 60;
        let mut day = next_minute.div_euclid(86_400);
        let mut from = next_minute.rem_euclid(86_400);
        loop {
            let (year, month, dom) = civil_from_days(day);
            if year > LAST_YEAR {
                return None;
            }
            if !self.years[usize::try_from(year).ok()?] {
                // Skip to the next January 1st.
                day = days_from_civil(year + 1, 1, 1);
                from = 0;
                continue;
            }
            if !self.months[usize::try_from(month).ok()?] {
                let (y, m) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
                day = days_from_civil(y, m, 1);
                from = 0;
                continue;
            }
            if self.day_matches(year, month, dom, day) {
                if let Some(at) = self.time_of_day_from(from) {
                    return Some(day * 86_400 + at);
                }
            }
            day += 1;
            from = 0;
        }
    }

    /// Whether `secs` falls on a minute the expression names.
    #[cfg(test)]
    fn matches(&self, secs: i64) -> bool {
        let day = secs.div_euclid(86_400);
        let (year, month, dom) = civil_from_days(day);
        let of_day = secs.rem_euclid(86_400);
        let index = |v: i64| usize::try_from(v).unwrap_or(usize::MAX);
        secs % 60 == 0
            && self.years.get(index(year)).copied().unwrap_or(false)
            && self.months[index(month)]
            && self.day_matches(year, month, dom, day)
            && self.hours[index(of_day / 3600)]
            && self.minutes[index(of_day % 3600 / 60)]
    }

    /// The first chosen second of a day at or after `from` (seconds into the day).
    fn time_of_day_from(&self, from: i64) -> Option<i64> {
        let (from_hour, from_minute) = (from / 3600, from % 3600 / 60);
        for hour in from_hour..24 {
            if !self.hours[usize::try_from(hour).ok()?] {
                continue;
            }
            let first = if hour == from_hour { from_minute } else { 0 };
            for minute in first..60 {
                if self.minutes[usize::try_from(minute).ok()?] {
                    return Some(hour * 3600 + minute * 60);
                }
            }
        }
        None
    }

    fn day_matches(&self, year: i64, month: i64, dom: i64, day: i64) -> bool {
        let length = month_length(year, month);
        let weekday = weekday(day);
        match &self.days {
            Days::OfMonth { plain, special } => {
                plain[usize::try_from(dom).unwrap_or(0)]
                    || special.iter().any(|s| match *s {
                        MonthDay::Last => dom == length,
                        MonthDay::LastWeekday => dom == last_weekday(year, month, length),
                        MonthDay::NearestWeekday(n) => dom == nearest_weekday(year, month, length, i64::from(n)),
                    })
            }
            Days::OfWeek { plain, special } => {
                plain[usize::try_from(weekday).unwrap_or(0)]
                    || special.iter().any(|s| match *s {
                        WeekDay::Last(d) => i64::from(d) == weekday && dom + 7 > length,
                        WeekDay::Nth(d, k) => i64::from(d) == weekday && (dom - 1) / 7 + 1 == i64::from(k),
                    })
            }
        }
    }
}

/// 1 for Sunday … 7 for Saturday (1970-01-01 was a Thursday).
fn weekday(day: i64) -> i64 {
    (day + 4).rem_euclid(7) + 1
}

fn month_length(year: i64, month: i64) -> i64 {
    let (y, m) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
    days_from_civil(y, m, 1) - days_from_civil(year, month, 1)
}

fn is_weekend(year: i64, month: i64, dom: i64) -> bool {
    matches!(weekday(days_from_civil(year, month, dom)), 1 | 7)
}

fn last_weekday(year: i64, month: i64, length: i64) -> i64 {
    (1..=length)
        .rev()
        .find(|&d| !is_weekend(year, month, d))
        .unwrap_or(length)
}

/// The weekday nearest day `n` without leaving the month (a day past the month's end is its
/// last day).
fn nearest_weekday(year: i64, month: i64, length: i64, n: i64) -> i64 {
    let n = n.min(length);
    match weekday(days_from_civil(year, month, n)) {
        7 if n == 1 => 3,
        7 => n - 1,
        1 if n == length => n - 2,
        1 => n + 1,
        _ => n,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Extras {
    None,
    MonthDay,
    WeekDay,
}

/// A special form a day field named, before it is checked for its field.
enum Special {
    Last,
    LastWeekday,
    NearestWeekday(u32),
    LastOf(u32),
    Nth(u32, u32),
}

impl Special {
    fn month_day(self) -> Option<MonthDay> {
        match self {
            Special::Last => Some(MonthDay::Last),
            Special::LastWeekday => Some(MonthDay::LastWeekday),
            Special::NearestWeekday(n) => Some(MonthDay::NearestWeekday(n)),
            _ => None,
        }
    }

    fn week_day(self) -> Option<WeekDay> {
        match self {
            Special::LastOf(d) => Some(WeekDay::Last(d)),
            Special::Nth(d, k) => Some(WeekDay::Nth(d, k)),
            _ => None,
        }
    }
}

/// One field: the plain values it chooses (indexed by value, `max + 1` long) and the special
/// forms among them.
fn field(text: &str, min: u32, max: u32, names: &[&str], extras: Extras) -> Option<(Vec<bool>, Vec<Special>)> {
    let mut chosen = vec![false; usize::try_from(max).ok()? + 1];
    let mut special = Vec::new();
    let mut choose = |from: u32, to: u32, step: u32| {
        let mut v = from;
        while v <= to {
            chosen[v as usize] = true;
            v += step;
        }
    };
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                if step.is_empty() || !step.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: u32 = step.parse().ok()?;
                if n == 0 {
                    return None;
                }
                (range, Some(n))
            }
            None => (part, None),
        };
        if range == "*" {
            choose(min, max, step.unwrap_or(1));
            continue;
        }
        if step.is_none() {
            match (extras, range) {
                (Extras::MonthDay, "L") => {
                    special.push(Special::Last);
                    continue;
                }
                (Extras::MonthDay, "LW") => {
                    special.push(Special::LastWeekday);
                    continue;
                }
                _ => {}
            }
            if extras == Extras::MonthDay {
                if let Some(day) = range.strip_suffix('W') {
                    special.push(Special::NearestWeekday(value(day, min, max, names)?));
                    continue;
                }
            }
            if extras == Extras::WeekDay {
                if let Some((day, nth)) = range.split_once('#') {
                    let day = value(day, min, max, names)?;
                    let nth: u32 = value(nth, 1, 5, &[])?;
                    special.push(Special::Nth(day, nth));
                    continue;
                }
                if let Some(day) = range.strip_suffix('L') {
                    special.push(Special::LastOf(value(day, min, max, names)?));
                    continue;
                }
            }
        }
        let (from, to) = match range.split_once('-') {
            Some((from, to)) => (value(from, min, max, names)?, value(to, min, max, names)?),
            None => {
                let v = value(range, min, max, names)?;
                // `a/n` runs from `a` to the field's end.
                (v, if step.is_some() { max } else { v })
            }
        };
        if from > to {
            return None;
        }
        choose(from, to, step.unwrap_or(1));
    }
    Some((chosen, special))
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
    use stratus_core::calendar::seconds_from_civil;
    use stratus_test_support::{mutate, Rng};

    use super::*;

    fn at(y: i64, mo: i64, d: i64, h: i64, mi: i64) -> i64 {
        seconds_from_civil(y, mo, d, h, mi, 0).unwrap()
    }

    fn next(expression: &str, after: i64) -> Option<i64> {
        Cron::parse(expression).expect(expression).next_after(after)
    }

    // The examples of the EventBridge user guide's "Cron expressions" table.
    #[test]
    fn the_user_guides_examples_fire_when_it_says() {
        // 10:15 AM UTC every day.
        assert_eq!(
            next("15 10 * * ? *", at(2026, 12, 2, 10, 15)),
            Some(at(2026, 12, 3, 10, 15))
        );
        // 6:00 PM Monday through Friday: 2026-12-04 is a Friday.
        assert_eq!(
            next("0 18 ? * MON-FRI *", at(2026, 12, 4, 18, 0)),
            Some(at(2026, 12, 7, 18, 0))
        );
        // 8:00 AM on the first day of the month.
        assert_eq!(next("0 8 1 * ? *", at(2026, 12, 2, 0, 0)), Some(at(2027, 1, 1, 8, 0)));
        // Every 10 minutes on weekdays.
        assert_eq!(
            next("0/10 * ? * MON-FRI *", at(2026, 12, 4, 23, 55)),
            Some(at(2026, 12, 7, 0, 0))
        );
        // Every 5 minutes between 8:00 AM and 5:55 PM weekdays.
        assert_eq!(
            next("0/5 8-17 ? * MON-FRI *", at(2026, 12, 2, 17, 55)),
            Some(at(2026, 12, 3, 8, 0))
        );
        // 9:00 AM on the first Monday of each month: 2027-01-04.
        assert_eq!(next("0 9 ? * 2#1 *", at(2026, 12, 8, 0, 0)), Some(at(2027, 1, 4, 9, 0)));
    }

    #[test]
    fn special_days_land_where_aws_says() {
        // The last day of February in a leap year.
        assert_eq!(next("0 0 L * ? *", at(2028, 2, 1, 0, 0)), Some(at(2028, 2, 29, 0, 0)));
        // The last weekday of January 2027: Sunday the 31st, so Friday the 29th.
        assert_eq!(next("0 0 LW * ? *", at(2027, 1, 1, 0, 0)), Some(at(2027, 1, 29, 0, 0)));
        // Nearest weekday to the 1st, a Saturday (May 2027): Monday the 3rd, not April 30th.
        assert_eq!(next("0 0 1W * ? *", at(2027, 4, 30, 0, 0)), Some(at(2027, 5, 3, 0, 0)));
        // Nearest weekday to the 15th, a Sunday (August 2027): Monday the 16th.
        assert_eq!(next("0 0 15W * ? *", at(2027, 8, 1, 0, 0)), Some(at(2027, 8, 16, 0, 0)));
        // The last Friday of December 2026: the 25th.
        assert_eq!(
            next("0 12 ? * 6L *", at(2026, 12, 1, 0, 0)),
            Some(at(2026, 12, 25, 12, 0))
        );
        // The third Saturday.
        assert_eq!(
            next("0 2 ? * SAT#3 *", at(2026, 12, 1, 0, 0)),
            Some(at(2026, 12, 19, 2, 0))
        );
    }

    #[test]
    fn years_bound_the_schedule() {
        assert_eq!(
            next("0 0 1 1 ? 2030", at(2026, 12, 2, 0, 0)),
            Some(at(2030, 1, 1, 0, 0))
        );
        assert_eq!(next("0 0 1 1 ? 2020-2025", at(2026, 12, 2, 0, 0)), None);
        assert_eq!(next("0 0 29 2 ? *", at(2026, 12, 2, 0, 0)), Some(at(2028, 2, 29, 0, 0)));
        assert_eq!(next("0 0 31 2 ? *", at(2026, 12, 2, 0, 0)), None);
    }

    #[test]
    fn steps_and_lists_choose_what_they_say() {
        let cron = Cron::parse("5,35 14 * * ? *").unwrap();
        assert_eq!(cron.next_after(at(2026, 12, 2, 14, 5)), Some(at(2026, 12, 2, 14, 35)));
        let cron = Cron::parse("*/20 * * * ? *").unwrap();
        assert_eq!(cron.next_after(at(2026, 12, 2, 0, 41)), Some(at(2026, 12, 2, 1, 0)));
        assert!(Cron::parse("30-10 * * * ? *").is_none());
    }

    /// The next firing is one the expression names, and no named minute lies between.
    #[test]
    fn next_after_agrees_with_matching_minute_by_minute() {
        let expressions = [
            "0/7 */5 ? * MON,WED,FRI *",
            "3 1 L * ? *",
            "0 0 LW,15W * ? *",
            "59 23 ? * 1L,3#2 *",
            "* 4 ? FEB 7 2027-2029",
            "10 10 10W 3-4 ? *",
        ];
        let mut rng = Rng(0xc405_0f1e_5eed);
        for expression in expressions {
            let cron = Cron::parse(expression).unwrap();
            for _ in 0..20 {
                let start = at(2026, 12, 1, 0, 0) + i64::try_from(rng.below(86_400 * 400)).unwrap();
                let Some(found) = cron.next_after(start) else { continue };
                assert!(
                    found > start && cron.matches(found),
                    "{expression} after {start}: {found}"
                );
                let mut minute = start.div_euclid(60) * 60 + 60;
                while minute < found {
                    assert!(!cron.matches(minute), "{expression}: skipped {minute}");
                    minute += 60;
                }
            }
        }
    }

    #[test]
    fn odd_text_is_refused_without_panicking() {
        let seeds: [&[u8]; 3] = [
            b"0/5 8-17 ? * MON-FRI *",
            b"0 0 LW * ? 2027",
            b"0 2 ? * SAT#3,6L 2030-2031",
        ];
        let tokens: [&[u8]; 12] = [
            b"*", b"?", b"/", b"-", b",", b"#", b"L", b"W", b"99", b"0", b" ", b"SAT",
        ];
        let mut rng = Rng(0xc4f0_0dd5);
        for i in 0..20_000 {
            let bytes = mutate(&mut rng, seeds[i % seeds.len()], &tokens);
            if let Some(cron) = Cron::parse(&String::from_utf8_lossy(&bytes)) {
                let _ = cron.next_after(at(2026, 12, 2, 0, 0));
            }
        }
    }
}
