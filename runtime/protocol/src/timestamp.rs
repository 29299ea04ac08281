//! Timestamp text in the three Smithy formats, and which format applies where.
//!
//! Each protocol has a default per location — epoch seconds in JSON and CBOR bodies,
//! date-time in XML and Query bodies, query strings and labels, http-date in headers — that
//! `@timestampFormat` on the member (or its target) overrides.

use aws_smithy_types::date_time::Format;
use stratus_core::schema::{Member, TimestampFormat};
use stratus_core::DateTime;

/// The format of `member`'s timestamps: its own `@timestampFormat`, else `default`.
pub(crate) fn format_of(member: Option<&Member>, default: TimestampFormat) -> TimestampFormat {
    member.and_then(Member::timestamp_format).unwrap_or(default)
}

/// Parses timestamp text. Date-times must be in UTC (`Z`), as servers require; epoch seconds
/// may be fractional.
pub(crate) fn parse(text: &str, format: TimestampFormat) -> Option<DateTime> {
    let text = text.trim();
    match format {
        TimestampFormat::DateTime => DateTime::from_str(text, Format::DateTime).ok(),
        TimestampFormat::HttpDate => DateTime::from_str(text, Format::HttpDate).ok(),
        TimestampFormat::EpochSeconds => DateTime::from_str(text, Format::EpochSeconds).ok(),
    }
}

/// Writes timestamp text; instants a text format cannot write (years outside 1–9999) fall
/// back to epoch seconds.
pub(crate) fn format(t: &DateTime, format: TimestampFormat) -> String {
    let f = match format {
        TimestampFormat::DateTime => Format::DateTime,
        TimestampFormat::HttpDate => Format::HttpDate,
        TimestampFormat::EpochSeconds => Format::EpochSeconds,
    };
    t.fmt(f).or_else(|_| t.fmt(Format::EpochSeconds)).unwrap_or_default()
}

/// A date-time to the second with a millisecond field of zeros (`2019-12-16T23:48:18.000Z`),
/// as S3 writes every date in its documents.
pub(crate) fn format_millis(t: &DateTime) -> String {
    let text = format(&DateTime::from_secs(t.secs()), TimestampFormat::DateTime);
    match text.strip_suffix('Z') {
        Some(stem) => format!("{stem}.000Z"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millisecond_date_times() {
        assert_eq!(
            format_millis(&DateTime::from_secs(1_576_540_098)),
            "2019-12-16T23:48:18.000Z"
        );
        // S3's dates are to the second: a finer instant is written with zero milliseconds.
        assert_eq!(
            format_millis(&DateTime::from_millis(1_576_540_098_942)),
            "2019-12-16T23:48:18.000Z"
        );
    }

    #[test]
    fn parses_and_writes_each_format() {
        let t = DateTime::from_secs(1_576_540_098);
        for (f, text) in [
            (TimestampFormat::DateTime, "2019-12-16T23:48:18Z"),
            (TimestampFormat::HttpDate, "Mon, 16 Dec 2019 23:48:18 GMT"),
            (TimestampFormat::EpochSeconds, "1576540098"),
        ] {
            assert_eq!(format(&t, f), text);
            assert_eq!(parse(text, f), Some(t));
        }
        assert_eq!(parse("2019-12-16T23:48:18+00:00", TimestampFormat::DateTime), None);
        assert_eq!(
            parse("1576540098.5", TimestampFormat::EpochSeconds),
            Some(DateTime::from_secs_f64(1_576_540_098.5))
        );
        assert_eq!(parse("yesterday", TimestampFormat::DateTime), None);
        assert_eq!(
            format(&DateTime::from_secs(i64::MAX / 2), TimestampFormat::DateTime),
            "4611686018427387903"
        );
    }
}
