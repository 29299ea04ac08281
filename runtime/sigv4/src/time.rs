//! The dates signatures carry: SigV4's `yyyyMMdd'T'HHmmss'Z'`, and the HTTP dates of `Date`
//! (and SigV2's `x-amz-date`), as seconds since the epoch; and the forms AWS prints back.

use std::time::{SystemTime, UNIX_EPOCH};

use stratus_core::calendar::{digits, seconds_from_civil};

/// `now` as whole seconds since the epoch (negative before it).
pub(crate) fn epoch_secs(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
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
    Some(seconds_from_civil(year, month, day, hour, minute, second)? - offset)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn parse_number(text: &str) -> Option<i64> {
    (!text.is_empty() && text.len() <= 4 && text.bytes().all(|d| d.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

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
