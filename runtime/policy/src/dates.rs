//! The dates date condition operators compare: ISO 8601 (`2026-12-01`, `2026-12-01T14:35:29Z`,
//! with fractions or a `+01:00` offset) or whole epoch seconds, read as milliseconds since the
//! epoch; and `aws:CurrentTime` written back in ISO 8601.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_Date>)

use stratus_core::calendar::days_from_civil;

/// Milliseconds since 1970-01-01T00:00:00Z, or `None` when `text` is no date.
pub(crate) fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<i64>().ok()?.checked_mul(1000);
    }
    let b = text.as_bytes();
    let digits = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let year = digits(0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let (month, day) = (digits(5, 2)?, digits(8, 2)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut millis = days_from_civil(year, month, day) * 86_400_000;
    if b.len() == 10 {
        return Some(millis);
    }
    if !matches!(b.get(10), Some(b'T' | b't')) {
        return None;
    }
    let (hour, minute) = (digits(11, 2)?, digits(14, 2)?);
    if b.get(13) != Some(&b':') || hour > 23 || minute > 59 {
        return None;
    }
    let mut at = 16;
    let mut second = 0;
    if b.get(at) == Some(&b':') {
        second = digits(17, 2)?;
        if second > 60 {
            return None;
        }
        at = 19;
    }
    let mut fraction_ms = 0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        let mut end = start;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end == start {
            return None;
        }
        let ms = &text[start..end.min(start + 3)];
        fraction_ms = ms.parse::<i64>().ok()? * 10_i64.pow(3 - ms.len() as u32);
        at = end;
    }
    let offset_minutes = match b.get(at..)? {
        [] | [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] => {
            let (h, m) = (digits(at + 1, 2)?, digits(at + 4, 2)?);
            if b.get(at + 3) != Some(&b':') || b.len() != at + 6 || h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return None,
    };
    millis += ((hour * 60 + minute - offset_minutes) * 60 + second) * 1000 + fraction_ms;
    Some(millis)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_and_epoch_seconds_agree() {
        assert_eq!(parse("1970-01-01"), Some(0));
        assert_eq!(parse("1700000000"), Some(1_700_000_000_000));
        assert_eq!(parse("2023-11-14T22:13:20Z"), Some(1_700_000_000_000));
        assert_eq!(parse("2023-11-14T22:13:20.5Z"), Some(1_700_000_000_500));
        assert_eq!(parse("2023-11-14T23:13:20+01:00"), Some(1_700_000_000_000));
        assert_eq!(parse("2023-11-14T22:13Z"), Some(1_699_999_980_000));
        assert_eq!(parse("2024-02-29"), Some(days_from_civil(2024, 2, 29) * 86_400_000));
    }

    #[test]
    fn malformed_dates_are_none() {
        for text in [
            "",
            "2023-13-01",
            "2023-02-29",
            "2023-1-01",
            "2023-11-14T25:00Z",
            "2023-11-14X",
            "2023-11-14T22:13:20+0100",
            "tomorrow",
            "2023-11-14T22:13:20.",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    #[test]
    fn aws_current_time_as_written_reads_back() {
        use stratus_core::calendar::format_iso8601;
        assert_eq!(format_iso8601(1_700_000_000), "2023-11-14T22:13:20Z");
        for s in [0, 951_782_400, 1_700_000_000, 4_102_444_800] {
            assert_eq!(parse(&format_iso8601(s)), Some(s * 1000));
        }
    }
}
