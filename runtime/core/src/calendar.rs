//! Civil dates (proleptic Gregorian, UTC) and seconds since the epoch, both ways, and the
//! compact ISO 8601 form SigV4 dates are written in (`20150830T123600Z`). Signatures, policy
//! conditions and presigned URLs read dates the model does not type, so they meet them here
//! rather than through [`DateTime`](crate::DateTime)'s protocol formats.
//!
//! ```
//! use stratus_core::calendar;
//! let secs = calendar::parse_amz_date("20150830T123600Z").unwrap();
//! assert_eq!(secs, 1_440_938_160);
//! assert_eq!(calendar::format_amz_date(secs), "20150830T123600Z");
//! assert_eq!(calendar::format_iso8601(secs), "2015-08-30T12:36:00Z");
//! ```

/// Days since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01: (year, month, day).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

/// Seconds since the epoch of a date and time of day, `None` when a field is out of its range
/// (a leap second, `:60`, is accepted).
pub fn seconds_from_civil(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<i64> {
    let in_range = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..=23).contains(&hour)
        && (0..=59).contains(&minute)
        && (0..=60).contains(&second);
    in_range.then(|| days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// The date and time of day `secs` after the epoch: (year, month, day, hour, minute, second).
pub fn civil_from_seconds(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    (year, month, day, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `yyyyMMdd'T'HHmmss'Z'` (SigV4's `X-Amz-Date`) as seconds since the epoch.
pub fn parse_amz_date(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let (year, month, day) = (digits(b, 0, 4)?, digits(b, 4, 2)?, digits(b, 6, 2)?);
    let (hour, minute, second) = (digits(b, 9, 2)?, digits(b, 11, 2)?, digits(b, 13, 2)?);
    seconds_from_civil(year, month, day, hour, minute, second)
}

/// Seconds since the epoch as `yyyyMMdd'T'HHmmss'Z'`.
pub fn format_amz_date(secs: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// Seconds since the epoch as `yyyy-MM-dd'T'HH:mm:ss'Z'`.
pub fn format_iso8601(secs: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// The number written in decimal digits at `b[at..at + len]`.
pub fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0i64, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_across_eras_and_leap_years() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28), 2);
        assert_eq!(days_from_civil(1900, 3, 1) - days_from_civil(1900, 2, 28), 1);
    }

    #[test]
    fn amz_dates_are_exactly_sixteen_characters() {
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
        // date -u -d 2013-05-24T00:00:00Z +%s
        assert_eq!(parse_amz_date("20130524T000000Z"), Some(1_369_353_600));
        assert_eq!(format_amz_date(1_369_353_600), "20130524T000000Z");
        assert_eq!(format_iso8601(951_868_800), "2000-03-01T00:00:00Z");
        for bad in [
            "20150830T123600",
            "20150830 123600Z",
            "2015083OT123600Z",
            "20151330T123600Z",
            "20150830T246000Z",
            "",
        ] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn times_before_the_epoch_format_as_dates() {
        assert_eq!(format_iso8601(-1), "1969-12-31T23:59:59Z");
        assert_eq!(civil_from_seconds(-86_400), (1969, 12, 31, 0, 0, 0));
    }
}
