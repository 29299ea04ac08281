//! S3 prefixes: `Prefix` and `ErrorOutputPrefix` with their `!{namespace:value}` expressions
//! (`timestamp`, `firehose:random-string`, `firehose:error-output-type`,
//! `partitionKeyFromQuery`, `partitionKeyFromLambda`), checked by the semantic rules of
//! "Custom Prefixes for Amazon S3 Objects" in the Firehose developer guide and evaluated for
//! one object.
//!
//! A prefix without a timestamp (or partition key) expression gets `yyyy/MM/dd/HH/` appended;
//! without an `ErrorOutputPrefix`, failed records go under `<Prefix><error-output-type>/`
//! and the same time folders. Timestamps are the arrival of the oldest record in the object,
//! in UTC.

use std::collections::BTreeMap;

use stratus_core::calendar::civil_from_seconds;

/// The folders a prefix without a timestamp expression gets, in Java's `DateTimeFormatter`
/// letters.
const DEFAULT_TIME: &str = "yyyy/MM/dd/HH/";

/// One piece of a parsed prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `!{timestamp:FORMAT}`.
    Timestamp(String),
    /// `!{firehose:random-string}`.
    RandomString,
    /// `!{firehose:error-output-type}`.
    ErrorOutputType,
    /// `!{partitionKeyFromQuery:KEY}`.
    QueryKey(String),
    /// `!{partitionKeyFromLambda:KEY}`.
    LambdaKey(String),
}

/// A parsed prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Template {
    parts: Vec<Part>,
}

/// Why a prefix pair breaks the rules: the constraint, as AWS states it after "Ths supplied
/// prefix(es) do not satisfy the following constraint: ".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Ths supplied prefix(es) do not satisfy the following constraint: {0}")]
pub(crate) struct PrefixError(pub(crate) String);

fn broken(constraint: &str) -> PrefixError {
    PrefixError(constraint.to_owned())
}

impl Template {
    /// Parses `text`, refusing a `!{` that does not open a known expression.
    pub(crate) fn parse(text: &str) -> Result<Template, PrefixError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("!{") {
            literal.push_str(&rest[..at]);
            let body = &rest[at + 2..];
            let end = body
                .find('}')
                .ok_or_else(|| broken("The sequence !{ can only appear in !{namespace:value} expressions"))?;
            let (namespace, value) = body[..end]
                .split_once(':')
                .ok_or_else(|| broken("The sequence !{ can only appear in !{namespace:value} expressions"))?;
            let part = match (namespace, value) {
                ("timestamp", format) if !format.is_empty() => Part::Timestamp(format.to_owned()),
                ("firehose", "random-string") => Part::RandomString,
                ("firehose", "error-output-type") => Part::ErrorOutputType,
                ("partitionKeyFromQuery", key) if !key.is_empty() => Part::QueryKey(key.to_owned()),
                ("partitionKeyFromLambda", key) if !key.is_empty() => Part::LambdaKey(key.to_owned()),
                _ => {
                    return Err(PrefixError(format!(
                        "Unsupported expression !{{{namespace}:{value}}}: the namespace must be timestamp, firehose, partitionKeyFromQuery or partitionKeyFromLambda"
                    )))
                }
            };
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(part);
            rest = &body[end + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Template { parts })
    }

    fn has_expressions(&self) -> bool {
        self.parts.iter().any(|p| !matches!(p, Part::Literal(_)))
    }

    fn has_timestamp(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Timestamp(_)))
    }

    fn has_partition_keys(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::QueryKey(_) | Part::LambdaKey(_)))
    }

    /// The partition keys the prefix reads from inline parsing (`partitionKeyFromQuery`).
    pub(crate) fn query_keys(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::QueryKey(key) => Some(key.as_str()),
            _ => None,
        })
    }

    /// The prefix for one object; `None` when a partition key it names is missing.
    fn evaluate(&self, values: &Values<'_>, random: &mut dyn FnMut() -> String) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Timestamp(format) => out.push_str(&format_time(format, values.arrival_ms)),
                Part::RandomString => out.push_str(&random()),
                Part::ErrorOutputType => out.push_str(values.error_output_type.unwrap_or_default()),
                Part::QueryKey(key) => out.push_str(values.query_keys?.get(key)?),
                Part::LambdaKey(key) => out.push_str(values.lambda_keys?.get(key)?),
            }
        }
        Some(out)
    }
}

/// What a prefix is evaluated with.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Values<'a> {
    /// The arrival of the oldest record in the object, in epoch milliseconds.
    pub(crate) arrival_ms: i64,
    /// Why the records failed, for an error prefix (`processing-failed`, …).
    pub(crate) error_output_type: Option<&'a str>,
    /// The partition keys of inline parsing (`MetadataExtraction`).
    pub(crate) query_keys: Option<&'a BTreeMap<String, String>>,
    /// The partition keys the Lambda processor returned.
    pub(crate) lambda_keys: Option<&'a BTreeMap<String, String>>,
}

/// A destination's `Prefix` and `ErrorOutputPrefix`, checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Prefixes {
    data: Template,
    /// The literal text of a `Prefix` without expressions (where failed records go when no
    /// `ErrorOutputPrefix` is given).
    plain: String,
    error: Option<Template>,
}

impl Prefixes {
    /// Checks a destination's prefixes; `dynamic` says whether dynamic partitioning is on.
    pub(crate) fn parse(
        prefix: Option<&str>,
        error_prefix: Option<&str>,
        dynamic: bool,
    ) -> Result<Prefixes, PrefixError> {
        let data = Template::parse(prefix.unwrap_or_default())?;
        let error = match error_prefix.filter(|p| !p.is_empty()) {
            Some(text) => Some(Template::parse(text)?),
            None => None,
        };
        if data.parts.contains(&Part::ErrorOutputType) {
            return Err(broken("Prefix cannot contain !{firehose:error-output-type}"));
        }
        if data.has_expressions() && error.is_none() {
            return Err(broken(
                "ErrorOutputPrefix cannot be null or empty when Prefix contains expressions",
            ));
        }
        if let Some(error) = &error {
            if error.has_partition_keys() {
                return Err(broken(
                    "ErrorOutputPrefix cannot contain partitionKeyFromQuery or partitionKeyFromLambda expressions",
                ));
            }
            if error.has_expressions() && !error.parts.contains(&Part::ErrorOutputType) {
                return Err(broken(
                    "ErrorOutputPrefix must contain !{firehose:error-output-type} when it contains expressions",
                ));
            }
        }
        if data.has_partition_keys() && !dynamic {
            return Err(broken(
                "partitionKeyFromQuery and partitionKeyFromLambda expressions can only be used when dynamic partitioning is enabled",
            ));
        }
        if dynamic && !data.has_partition_keys() {
            return Err(broken(
                "Prefix must contain at least one partitionKeyFromQuery or partitionKeyFromLambda expression when dynamic partitioning is enabled",
            ));
        }
        let plain = if data.has_expressions() {
            String::new()
        } else {
            prefix.unwrap_or_default().to_owned()
        };
        Ok(Prefixes { data, plain, error })
    }

    /// The partition keys the data prefix reads from inline parsing.
    pub(crate) fn query_keys(&self) -> impl Iterator<Item = &str> {
        self.data.query_keys()
    }

    /// Whether the data prefix reads partition keys the Lambda processor returns.
    pub(crate) fn uses_lambda_keys(&self) -> bool {
        self.data.parts.iter().any(|p| matches!(p, Part::LambdaKey(_)))
    }

    /// The prefix of an object of delivered records; `None` when a partition key it names
    /// is missing (the records then fail).
    pub(crate) fn data(&self, values: &Values<'_>, random: &mut dyn FnMut() -> String) -> Option<String> {
        let mut prefix = self.data.evaluate(values, random)?;
        if !self.data.has_timestamp() && !self.data.has_partition_keys() {
            prefix.push_str(&format_time(DEFAULT_TIME, values.arrival_ms));
        }
        Some(prefix)
    }

    /// The prefix of an object of records that failed with `error_output_type`.
    pub(crate) fn error(&self, error_output_type: &str, arrival_ms: i64, random: &mut dyn FnMut() -> String) -> String {
        let values = Values {
            arrival_ms,
            error_output_type: Some(error_output_type),
            ..Values::default()
        };
        match &self.error {
            Some(template) => template.evaluate(&values, random).unwrap_or_default(),
            None => format!(
                "{}{error_output_type}/{}",
                self.plain,
                format_time(DEFAULT_TIME, arrival_ms)
            ),
        }
    }
}

/// `at_ms` formatted with a Java `DateTimeFormatter` pattern: the numeric fields `y`, `M`,
/// `d`, `D` (day of year), `H`, `m`, `s` and `S` (fractions), `'quoted'` text literal and
/// `''` a quote; any other character as it is.
pub(crate) fn format_time(pattern: &str, at_ms: i64) -> String {
    let secs = at_ms.div_euclid(1000);
    let millis = at_ms.rem_euclid(1000);
    let (year, month, day, hour, minute, second) = civil_from_seconds(secs);
    let day_of_year = {
        let start = stratus_core::calendar::days_from_civil(year, 1, 1);
        secs.div_euclid(86_400) - start + 1
    };
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '\'' {
                out.push(chars[j]);
                j += 1;
            }
            i = j + 1;
            continue;
        }
        let mut run = 1;
        while chars.get(i + run) == Some(&c) {
            run += 1;
        }
        let field = match c {
            'y' | 'u' | 'Y' if run == 2 => Some(year.rem_euclid(100)),
            'y' | 'u' | 'Y' => Some(year),
            'M' | 'L' => Some(month),
            'd' => Some(day),
            'D' => Some(day_of_year),
            'H' => Some(hour),
            'm' => Some(minute),
            's' => Some(second),
            _ => None,
        };
        match (c, field) {
            ('S', _) => {
                let fraction = format!("{millis:03}");
                out.extend(fraction.chars().chain(std::iter::repeat('0')).take(run));
            }
            (_, Some(value)) => out.push_str(&format!("{value:0run$}")),
            (_, None) => out.extend(std::iter::repeat_n(c, run)),
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng};

    use super::*;

    /// 2018-08-27T10:30:05.042Z, the developer guide's example moment.
    const AT: i64 = 1_535_365_805_042;

    fn fixed() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("r{n}")
        }
    }

    fn data(prefix: Option<&str>, error: Option<&str>) -> String {
        let prefixes = Prefixes::parse(prefix, error, false).unwrap();
        let values = Values {
            arrival_ms: AT,
            ..Values::default()
        };
        prefixes.data(&values, &mut fixed()).unwrap()
    }

    // The developer guide's "Prefix and ErrorOutputPrefix examples".
    #[test]
    fn prefixes_evaluate_as_the_guides_examples() {
        assert_eq!(
            data(None, Some("myFirehoseFailures/!{firehose:error-output-type}/")),
            "2018/08/27/10/"
        );
        let prefixes = Prefixes::parse(None, Some("myFirehoseFailures/!{firehose:error-output-type}/"), false).unwrap();
        assert_eq!(
            prefixes.error("processing-failed", AT, &mut fixed()),
            "myFirehoseFailures/processing-failed/"
        );
        assert_eq!(
            data(
                Some("myFirehose/DeliveredYear=!{timestamp:yyyy}/anyMonth/rand=!{firehose:random-string}"),
                Some("myFirehoseFailures/!{firehose:error-output-type}/!{timestamp:yyyy}/anyMonth/!{timestamp:dd}"),
            ),
            "myFirehose/DeliveredYear=2018/anyMonth/rand=r1"
        );
        assert_eq!(
            data(
                Some("myPrefix/year=!{timestamp:yyyy}/month=!{timestamp:MM}/day=!{timestamp:dd}/hour=!{timestamp:HH}/"),
                Some("e/!{firehose:error-output-type}"),
            ),
            "myPrefix/year=2018/month=08/day=27/hour=10/"
        );
        let quoted = Prefixes::parse(
            None,
            Some("myErrorPrefix/!{timestamp:'year='yyyy'/month='MM'/day='dd'/hour='HH}/!{firehose:error-output-type}"),
            false,
        )
        .unwrap();
        assert_eq!(
            quoted.error("processing-failed", AT, &mut fixed()),
            "myErrorPrefix/year=2018/month=08/day=27/hour=10/processing-failed"
        );
        let plain = Prefixes::parse(Some("myFirehosePrefix/"), None, false).unwrap();
        assert_eq!(
            plain
                .data(
                    &Values {
                        arrival_ms: AT,
                        ..Values::default()
                    },
                    &mut fixed()
                )
                .unwrap(),
            "myFirehosePrefix/2018/08/27/10/"
        );
        assert_eq!(
            plain.error("processing-failed", AT, &mut fixed()),
            "myFirehosePrefix/processing-failed/2018/08/27/10/"
        );
    }

    #[test]
    fn the_semantic_rules_refuse_in_aws_words() {
        let err = Prefixes::parse(Some("!{timestamp:yyyy/MM/dd}"), None, false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"
        );
        assert!(Prefixes::parse(Some("a/!{firehose:error-output-type}"), Some("e/"), false).is_err());
        assert!(Prefixes::parse(None, Some("e/!{timestamp:yyyy}"), false).is_err());
        assert!(Prefixes::parse(Some("a/!{unknown:x}"), Some("e"), false).is_err());
        assert!(Prefixes::parse(Some("a/!{timestamp:yyyy"), Some("e"), false).is_err());
        assert!(Prefixes::parse(
            Some("k=!{partitionKeyFromQuery:k}/"),
            Some("e/!{firehose:error-output-type}"),
            false
        )
        .is_err());
        assert!(Prefixes::parse(Some("plain/"), Some("e/!{firehose:error-output-type}"), true).is_err());
        assert!(Prefixes::parse(None, Some("errors"), false).is_ok());
    }

    #[test]
    fn partition_keys_fill_the_prefix_and_a_missing_one_fails_the_record() {
        let prefixes = Prefixes::parse(
            Some("customer=!{partitionKeyFromQuery:customer}/fn=!{partitionKeyFromLambda:shard}/"),
            Some("errors/!{firehose:error-output-type}/"),
            true,
        )
        .unwrap();
        assert_eq!(prefixes.query_keys().collect::<Vec<_>>(), ["customer"]);
        assert!(prefixes.uses_lambda_keys());
        let query = BTreeMap::from([("customer".to_owned(), "42".to_owned())]);
        let lambda = BTreeMap::from([("shard".to_owned(), "7".to_owned())]);
        let values = Values {
            arrival_ms: AT,
            query_keys: Some(&query),
            lambda_keys: Some(&lambda),
            ..Values::default()
        };
        assert_eq!(prefixes.data(&values, &mut fixed()).unwrap(), "customer=42/fn=7/");
        let without = Values {
            lambda_keys: None,
            ..values
        };
        assert_eq!(prefixes.data(&without, &mut fixed()), None);
    }

    #[test]
    fn timestamps_take_javas_pattern_letters() {
        assert_eq!(format_time("yyyy-MM-dd'T'HH:mm:ss.SSS", AT), "2018-08-27T10:30:05.042");
        assert_eq!(format_time("yy/DDD/''", AT), "18/239/'");
        assert_eq!(format_time("yyyy/MM/dd/HH/", 0), "1970/01/01/00/");
    }

    #[test]
    fn parsing_never_panics() {
        let seeds: &[&[u8]] = &[
            b"a/!{timestamp:yyyy/MM}/!{firehose:random-string}/",
            b"!{partitionKeyFromQuery:k}/!{partitionKeyFromLambda:l}",
            b"e/!{firehose:error-output-type}/!{timestamp:'y='yyyy}",
        ];
        let tokens: &[&[u8]] = &[b"!{", b"}", b":", b"'", b"timestamp", b"firehose", b"\xff", b"y"];
        let mut rng = Rng(0x5eed_f1e5);
        for i in 0..5_000 {
            let input = fuzz_input(&mut rng, i, seeds, tokens, 12);
            let text = String::from_utf8_lossy(&input);
            let half = text.len() / 2;
            let split = (0..=half).rev().find(|&at| text.is_char_boundary(at)).unwrap_or(0);
            if let Ok(prefixes) = Prefixes::parse(Some(&text[..split]), Some(&text[split..]), i % 2 == 0) {
                let _ = prefixes.data(&Values::default(), &mut fixed());
                let _ = prefixes.error("processing-failed", AT, &mut fixed());
            }
            let _ = format_time(&text, AT);
        }
    }
}
