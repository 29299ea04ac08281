//! The dates signatures carry: SigV4's `yyyyMMdd'T'HHmmss'Z'`, and the HTTP dates of `Date`
//! (and SigV2's `x-amz-date`), as seconds since the epoch; and the forms AWS prints back.

use std::time::{SystemTime, UNIX_EPOCH};

/// `now` as whole seconds since the epoch (negative before it).
pub(crate) fn epoch_secs(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// `yyyyMMdd'T'HHmmss'Z'` as seconds since the epoch.
pub(crate) fn parse_amz_date(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let (year, month, day) = (digits(b, 0, 4)?, digits(b, 4, 2)?, digits(b, 6, 2)?);
    let (hour, minute, second) = (digits(b, 9, 2)?, digits(b, 11, 2)?, digits(b, 13, 2)?);
    civil_seconds(year, month, day, hour, minute, second)
}

/// An HTTP date (`Tue, 27 Mar 2007 19:36:42 +0000`, or `GMT` for the zone, as RFC 7231's
/// IMF-fixdate) as seconds since the epoch.
pub(crate) fn parse_http_date(text: &str) -> Option<i64> {
    let rest = text.trim();
    let rest = match rest.split_once(',') {
        Some((_weekday, rest)) => rest.trim_start(),
        None => rest,
    };
    let mut parts = rest.split_ascii_whitespace();
    let day: i64 = parse_number(parts.next()?)?;
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month_name))? as i64 + 1;
    let year: i64 = parse_number(parts.next()?)?;
    let clock = parts.next()?.as_bytes();
    if clock.len() != 8 || clock[2] != b':' || clock[5] != b':' {
        return None;
    }
    let (hour, minute, second) = (digits(clock, 0, 2)?, digits(clock, 3, 2)?, digits(clock, 6, 2)?);
    let offset = match parts.next()? {
        "GMT" | "UTC" | "Z" | "UT" => 0,
        zone => {
            let z = zone.as_bytes();
            if z.len() != 5 || !(z[0] == b'+' || z[0] == b'-') {
                return None;
            }
            let minutes = digits(z, 1, 2)? * 60 + digits(z, 3, 2)?;
            if z[0] == b'+' {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
    };
    if parts.next().is_some() {
        return None;
    }
    Some(civil_seconds(year, month, day, hour, minute, second)? - offset)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Seconds since the epoch as `yyyyMMdd'T'HHmmss'Z'`.
pub(crate) fn format_amz_date(secs: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// Seconds since the epoch as `yyyy-MM-dd'T'HH:mm:ss'Z'`, the form of S3's `ServerTime`.
pub(crate) fn format_iso8601(secs: i64) -> String {
    let (y, mo, d, h, mi, s) = civil_from_seconds(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

fn parse_number(text: &str) -> Option<i64> {
    (!text.is_empty() && text.len() <= 4 && text.bytes().all(|d| d.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0i64, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
    })
}

fn civil_seconds(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<i64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`], with the time of day.
fn civil_from_seconds(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amz_dates_round_trip() {
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
        // date -u -d 2013-05-24T00:00:00Z +%s
        assert_eq!(parse_amz_date("20130524T000000Z"), Some(1_369_353_600));
        assert_eq!(format_amz_date(1_369_353_600), "20130524T000000Z");
        assert_eq!(format_iso8601(951_868_800), "2000-03-01T00:00:00Z");
        for bad in [
            "",
            "2013-05-24T00:00:00Z",
            "20131324T000000Z",
            "2013052xT000000Z",
            "20130524T000000",
        ] {
            assert_eq!(parse_amz_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn http_dates() {
        // date -u -d '2007-03-27T19:36:42Z' +%s
        assert_eq!(parse_http_date("Tue, 27 Mar 2007 19:36:42 +0000"), Some(1_175_024_202));
        assert_eq!(parse_http_date("Tue, 27 Mar 2007 19:36:42 GMT"), Some(1_175_024_202));
        assert_eq!(parse_http_date("Tue, 27 Mar 2007 21:36:42 +0200"), Some(1_175_024_202));
        for bad in [
            "",
            "Tue, 27 Foo 2007 19:36:42 GMT",
            "Tue, 27 Mar 2007 19:36 GMT",
            "27 Mar 2007 19:36:42 EST x",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }
}
