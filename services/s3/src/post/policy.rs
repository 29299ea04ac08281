//! POST policies: the base64 JSON document a browser upload's form carries, its `expiration`
//! and `conditions` ("Creating a POST policy", `sigv4-HTTPPOSTConstructPolicy` in the S3 API
//! reference), checked against the form's fields as S3 checks them. Where AWS's pages and its
//! answers differ, the answers win: a failed condition is `403 AccessDenied` "Invalid according
//! to Policy: Policy Condition failed: [...]" with the condition written as a JSON array
//! (simple conditions as `eq`), a field no condition names is "Extra input fields: <name>",
//! and the document's own faults are `InvalidPolicyDocument` "Invalid Policy: ..." — as
//! LocalStack's AWS-validated `TestS3PresignedPost` snapshots and the S3 errors quoted in
//! public issue threads record them (carrierwave_direct issues 2 and 230, boto3 issue 4514,
//! stackoverflow.com/q/31169349). Messages no capture shows are marked where they are made.

use std::fmt;

use base64::Engine;
use serde_json::Value as Json;

/// A parsed policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Policy {
    pub expiration_ms: i64,
    conditions: Vec<Condition>,
}

/// One condition, and how a failure writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Condition {
    test: Test,
    /// The condition as S3 quotes it when it fails: `["eq", "$key", "a"]`.
    shown: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Test {
    /// The field (lowercased; `None` when the name lacks its `$`, which no field matches) is
    /// exactly the value.
    Eq(Option<String>, String),
    StartsWith(Option<String>, String),
    /// The file's size lies within the bounds, inclusive.
    Size(u64, u64),
    /// A `content-length-range` whose bounds are not numbers: fails whatever is sent (S3
    /// answers `["content-length-range", "test", "10"]` with a failed condition).
    Never,
}

/// Why a policy document is refused (`InvalidPolicyDocument`); displays as S3's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidPolicy(String);

impl fmt::Display for InvalidPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invalid Policy: {}", self.0)
    }
}

fn invalid(message: impl Into<String>) -> InvalidPolicy {
    InvalidPolicy(message.into())
}

/// Why a form does not satisfy its policy (`403 AccessDenied`); displays as S3's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    Expired,
    ConditionFailed(String),
    ExtraField(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Invalid according to Policy: ")?;
        match self {
            Refusal::Expired => f.write_str("Policy expired."),
            Refusal::ConditionFailed(shown) => write!(f, "Policy Condition failed: {shown}"),
            Refusal::ExtraField(name) => write!(f, "Extra input fields: {name}"),
        }
    }
}

/// The form as a policy sees it.
pub(crate) trait Form {
    /// The value of field `name` (lowercase; `bucket` is the bucket addressed), if sent.
    fn value(&self, name: &str) -> Option<&str>;
    /// The names of the fields a condition must cover, as sent.
    fn covered_names(&self) -> Vec<&str>;
}

impl Policy {
    /// Decodes and parses the `policy` field's value.
    pub(crate) fn parse(encoded: &str) -> Result<Policy, InvalidPolicy> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            // Not shown by any capture; versitygw, modelled on S3, words it so.
            .map_err(|_| invalid("invalid Base64 encoding."))?;
        let document: Json = serde_json::from_slice(&bytes).map_err(|_| invalid_json())?;
        let Json::Object(members) = document else {
            return Err(invalid_json());
        };
        // Member names are case-sensitive (s3-tests: "EXPIRATION" and "CONDITIONS" are 400).
        if let Some(unexpected) = members
            .keys()
            .find(|k| !matches!(k.as_str(), "expiration" | "conditions"))
        {
            return Err(invalid(format!("Unexpected: '{}'", unexpected.to_lowercase())));
        }
        // The two "missing" messages are versitygw's; S3's are not recorded.
        let expiration = members
            .get("expiration")
            .ok_or_else(|| invalid("Policy missing expiration."))?;
        let expiration_ms = match expiration {
            Json::String(text) => parse_expiration(text),
            _ => None,
        }
        .ok_or_else(|| {
            let text = match expiration {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            invalid(format!("Invalid 'expiration' value: '{text}'"))
        })?;
        let conditions = match members.get("conditions") {
            None => return Err(invalid("Policy missing conditions.")),
            Some(Json::Array(items)) => items.iter().map(condition).collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid("Invalid 'conditions' value: must be a List.")),
        };
        Ok(Policy {
            expiration_ms,
            conditions,
        })
    }

    /// Checks `form` at `now_ms`: expiry, then each condition in order, then that every field
    /// is covered. The file's size is checked as it is read ([`Policy::size_range`]).
    pub(crate) fn check(&self, form: &dyn Form, now_ms: i64) -> Result<(), Refusal> {
        if now_ms >= self.expiration_ms {
            return Err(Refusal::Expired);
        }
        for condition in &self.conditions {
            let holds = match &condition.test {
                Test::Eq(field, expected) => value(form, field) == Some(expected.as_str()),
                Test::StartsWith(field, prefix) => value(form, field).is_some_and(|v| starts_with(field, v, prefix)),
                Test::Size(..) => true,
                Test::Never => false,
            };
            if !holds {
                return Err(Refusal::ConditionFailed(condition.shown.clone()));
            }
        }
        let named: Vec<&str> = self
            .conditions
            .iter()
            .filter_map(|c| match &c.test {
                Test::Eq(Some(field), _) | Test::StartsWith(Some(field), _) => Some(field.as_str()),
                _ => None,
            })
            .collect();
        match form
            .covered_names()
            .into_iter()
            .find(|name| !named.contains(&name.to_ascii_lowercase().as_str()))
        {
            Some(extra) => Err(Refusal::ExtraField(extra.to_owned())),
            None => Ok(()),
        }
    }

    /// The sizes the file may have, inclusive, when `content-length-range` conditions limit
    /// it (several: all of them).
    pub(crate) fn size_range(&self) -> Option<(u64, u64)> {
        self.conditions
            .iter()
            .filter_map(|c| match c.test {
                Test::Size(min, max) => Some((min, max)),
                _ => None,
            })
            .reduce(|(a, b), (c, d)| (a.max(c), b.min(d)))
    }
}

fn value<'f>(form: &'f dyn Form, field: &Option<String>) -> Option<&'f str> {
    field.as_deref().and_then(|name| form.value(name))
}

/// `starts-with`; a Content-Type is a comma-separated list whose every item must match ("Each
/// value in the list must meet the condition for the whole condition to pass").
fn starts_with(field: &Option<String>, value: &str, prefix: &str) -> bool {
    if field.as_deref() == Some("content-type") {
        value.split(',').all(|item| item.trim().starts_with(prefix))
    } else {
        value.starts_with(prefix)
    }
}

fn invalid_json() -> InvalidPolicy {
    invalid("Invalid JSON.")
}

/// One entry of `conditions`: `{"field": "value"}` or `[operation, ...]`.
fn condition(item: &Json) -> Result<Condition, InvalidPolicy> {
    match item {
        Json::Object(members) => {
            let mut entries = members.iter();
            let (Some((name, value)), None) = (entries.next(), entries.next()) else {
                return Err(invalid(
                    "Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.",
                ));
            };
            let value = match value {
                Json::String(s) => s,
                Json::Null => return Err(invalid_json()),
                _ => return Err(invalid("Invalid Simple-Condition: value must be a string.")),
            };
            let reference = Json::String(format!("${name}"));
            Ok(Condition {
                test: Test::Eq(Some(name.to_ascii_lowercase()), value.clone()),
                shown: show(&[&Json::String("eq".into()), &reference, &Json::String(value.clone())]),
            })
        }
        Json::Array(items) => array_condition(items),
        _ => Err(invalid("Invalid condition test: must be a List or Object.")),
    }
}

fn array_condition(items: &[Json]) -> Result<Condition, InvalidPolicy> {
    let shown = show(&items.iter().collect::<Vec<_>>());
    let operation = match items.first() {
        None => return Err(invalid("Invalid Condition: missing operation identifier.")),
        Some(Json::String(op)) => op.to_ascii_lowercase(),
        Some(_) => return Err(invalid_json()),
    };
    // versitygw's wording (S3's is not recorded).
    let wrong_count = || invalid(format!("Invalid {operation}: wrong number of arguments."));
    let test = match operation.as_str() {
        "eq" | "starts-with" => {
            let [_, Json::String(name), Json::String(operand)] = items else {
                return Err(if items.len() == 3 {
                    invalid_json()
                } else {
                    wrong_count()
                });
            };
            let field = name.strip_prefix('$').map(str::to_ascii_lowercase);
            match operation.as_str() {
                "eq" => Test::Eq(field, operand.clone()),
                _ => Test::StartsWith(field, operand.clone()),
            }
        }
        "content-length-range" => {
            let [_, min, max] = items else {
                return Err(wrong_count());
            };
            match (bound(min)?, bound(max)?) {
                (Some(min), Some(max)) => Test::Size(min, max),
                _ => Test::Never,
            }
        }
        other => return Err(invalid(format!("Invalid Condition: unknown operation '{other}'."))),
    };
    Ok(Condition { test, shown })
}

/// A `content-length-range` bound: a whole number, or a string of one (S3 accepted `"5"`);
/// `None` for a string that is not one. A fraction is not JSON to S3 (re:Post, "Invalid
/// Policy: Invalid JSON." for `512.0`); a negative bound is refused too (s3-tests expect 400
/// for `-1`; S3's message is not recorded).
fn bound(value: &Json) -> Result<Option<u64>, InvalidPolicy> {
    match value {
        Json::Number(n) if n.is_u64() => Ok(n.as_u64()),
        Json::Number(n) if n.is_i64() => Err(invalid("Invalid content-length-range: bounds must not be negative.")),
        Json::String(s) => Ok(s.trim().parse().ok()),
        _ => Err(invalid_json()),
    }
}

/// A condition as S3 quotes it: its items as JSON, separated by a comma and a space.
fn show(items: &[&Json]) -> String {
    let items: Vec<String> = items.iter().map(|item| item.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// An ISO 8601 UTC time (`2013-08-01T12:00:00.000Z`, the fraction optional) in milliseconds;
/// S3 refuses offsets and a space for the `T` (carrierwave_direct issue 2, pull request 189).
fn parse_expiration(text: &str) -> Option<i64> {
    if !text.ends_with('Z') || text.as_bytes().get(10) != Some(&b'T') {
        return None;
    }
    aws_smithy_types::DateTime::from_str(text, aws_smithy_types::date_time::Format::DateTime)
        .ok()?
        .to_millis()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use stratus_test_support::{mutate, Rng};

    struct Fields(BTreeMap<String, String>);

    impl Form for Fields {
        fn value(&self, name: &str) -> Option<&str> {
            self.0.get(name).map(String::as_str)
        }
        fn covered_names(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).filter(|n| *n != "bucket").collect()
        }
    }

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        Fields(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    fn encode(json: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(json)
    }

    fn policy(conditions: &str) -> Policy {
        Policy::parse(&encode(&format!(
            r#"{{"expiration": "2030-01-01T00:00:00Z", "conditions": {conditions}}}"#
        )))
        .unwrap()
    }

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn aws_signed_example_parses() {
        // The policy of "Example: Browser-Based Upload using HTTP POST (Using AWS Signature
        // Version 4)", with its CRLF line ends.
        let document = "{ \"expiration\": \"2015-12-30T12:00:00.000Z\",\r\n  \"conditions\": [\r\n    {\"bucket\": \"sigv4examplebucket\"},\r\n    [\"starts-with\", \"$key\", \"user/user1/\"],\r\n    {\"acl\": \"public-read\"},\r\n    [\"starts-with\", \"$Content-Type\", \"image/\"],\r\n    {\"x-amz-meta-uuid\": \"14365123651274\"},\r\n    [\"starts-with\", \"$x-amz-meta-tag\", \"\"]\r\n  ]\r\n}";
        let policy = Policy::parse(&encode(document)).unwrap();
        assert_eq!(policy.expiration_ms, 1_451_476_800_000);
        let form = fields(&[
            ("bucket", "sigv4examplebucket"),
            ("key", "user/user1/a.jpg"),
            ("acl", "public-read"),
            ("content-type", "image/jpg,image/png"),
            ("x-amz-meta-uuid", "14365123651274"),
            ("x-amz-meta-tag", ""),
        ]);
        assert_eq!(policy.check(&form, 1_451_476_799_999), Ok(()));
        assert_eq!(policy.check(&form, 1_451_476_800_000), Err(Refusal::Expired));
        assert_eq!(
            Refusal::Expired.to_string(),
            "Invalid according to Policy: Policy expired."
        );
    }

    #[test]
    fn failed_conditions_are_quoted_as_s3_quotes_them() {
        // LocalStack's AWS-validated recordings of failed `eq` conditions; boto3 issue 4514.
        let p = policy(r#"[{"Key": "a\"b"}, ["eq", "$success_action_redirect", "http://x/"]]"#);
        let refused = p.check(&fields(&[("key", "other")]), NOW).unwrap_err();
        assert_eq!(
            refused.to_string(),
            r#"Invalid according to Policy: Policy Condition failed: ["eq", "$Key", "a\"b"]"#
        );
        let refused = p
            .check(
                &fields(&[("key", "a\"b"), ("success_action_redirect", "HTTP://x/")]),
                NOW,
            )
            .unwrap_err();
        assert_eq!(
            refused,
            Refusal::ConditionFailed(r#"["eq", "$success_action_redirect", "http://x/"]"#.into())
        );
        // A name without its `$` matches nothing; an absent field fails even `starts-with ""`.
        let p = policy(r#"[["eq", "key", "k"]]"#);
        assert!(p.check(&fields(&[("key", "k")]), NOW).is_err());
        let p = policy(r#"[["starts-with", "$Content-Type", ""]]"#);
        assert_eq!(
            p.check(&fields(&[]), NOW).unwrap_err().to_string(),
            r#"Invalid according to Policy: Policy Condition failed: ["starts-with", "$Content-Type", ""]"#
        );
    }

    #[test]
    fn starts_with_and_content_type_lists() {
        let p = policy(r#"[["StArTs-WiTh", "$Content-Type", "image/"], ["starts-with", "$key", "user/"]]"#);
        assert!(p
            .check(
                &fields(&[("content-type", "image/jpg, image/png"), ("key", "user/a")]),
                NOW
            )
            .is_ok());
        assert!(p
            .check(
                &fields(&[("content-type", "image/jpg,text/plain"), ("key", "user/a")]),
                NOW
            )
            .is_err());
        assert!(p
            .check(&fields(&[("content-type", "image/jpg"), ("key", "User/a")]), NOW)
            .is_err());
        // Other fields are plain strings, commas and all.
        let p = policy(r#"[["starts-with", "$key", "a"]]"#);
        assert!(p.check(&fields(&[("key", "a,b")]), NOW).is_ok());
    }

    #[test]
    fn every_field_must_be_covered() {
        let p = policy(r#"[{"bucket": "b"}, ["starts-with", "$key", ""]]"#);
        assert!(p.check(&fields(&[("bucket", "b"), ("key", "k")]), NOW).is_ok());
        let refused = p.check(&fields(&[("bucket", "b"), ("key", "k"), ("StorageClass", "X")]), NOW);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "Invalid according to Policy: Extra input fields: StorageClass"
        );
    }

    #[test]
    fn size_ranges() {
        assert_eq!(
            policy(r#"[["content-length-range", 5, 10]]"#).size_range(),
            Some((5, 10))
        );
        assert_eq!(
            policy(r#"[["content-length-range", "5", "10"]]"#).size_range(),
            Some((5, 10))
        );
        let both = policy(r#"[["content-length-range", 1, 10], ["content-length-range", 5, 20]]"#);
        assert_eq!(both.size_range(), Some((5, 10)));
        assert_eq!(policy("[]").size_range(), None);
        let never = policy(r#"[["content-length-range", "test", "10"]]"#);
        assert_eq!(
            never.check(&fields(&[]), NOW).unwrap_err().to_string(),
            r#"Invalid according to Policy: Policy Condition failed: ["content-length-range", "test", "10"]"#
        );
    }

    #[test]
    fn refuses_malformed_documents() {
        let refused = |document: &str| Policy::parse(&encode(document)).unwrap_err().to_string();
        let with = |conditions: &str| {
            refused(&format!(
                r#"{{"expiration": "2030-01-01T00:00:00Z", "conditions": {conditions}}}"#
            ))
        };
        assert_eq!(
            Policy::parse("!!").unwrap_err().to_string(),
            "Invalid Policy: invalid Base64 encoding."
        );
        assert_eq!(refused("{"), "Invalid Policy: Invalid JSON.");
        assert_eq!(
            refused(r#"{"Statement": [], "expiration": "x"}"#),
            "Invalid Policy: Unexpected: 'statement'"
        );
        assert_eq!(
            refused(r#"{"conditions": []}"#),
            "Invalid Policy: Policy missing expiration."
        );
        assert_eq!(
            refused(r#"{"expiration": "2011-09-13T07:52:58+02:00", "conditions": []}"#),
            "Invalid Policy: Invalid 'expiration' value: '2011-09-13T07:52:58+02:00'"
        );
        assert_eq!(
            refused(r#"{"expiration": "2015-10-17 03:15:59 UTC", "conditions": []}"#),
            "Invalid Policy: Invalid 'expiration' value: '2015-10-17 03:15:59 UTC'"
        );
        assert_eq!(
            refused(r#"{"expiration": "2030-01-01T00:00:00Z"}"#),
            "Invalid Policy: Policy missing conditions."
        );
        assert_eq!(
            with("{}"),
            "Invalid Policy: Invalid 'conditions' value: must be a List."
        );
        let simple =
            "Invalid Policy: Invalid Simple-Condition: Simple-Conditions must have exactly one property specified.";
        assert_eq!(with("[{}]"), simple);
        assert_eq!(with(r#"[{"bucket": "b", "key": "k"}]"#), simple);
        assert_eq!(
            with(r#"[{"Content-Length": 6199034}]"#),
            "Invalid Policy: Invalid Simple-Condition: value must be a string."
        );
        assert_eq!(
            with(r#"[{"success_action_redirect": null}]"#),
            "Invalid Policy: Invalid JSON."
        );
        assert_eq!(
            with("[[]]"),
            "Invalid Policy: Invalid Condition: missing operation identifier."
        );
        assert_eq!(
            with(r#"[["in", "$key", "a"]]"#),
            "Invalid Policy: Invalid Condition: unknown operation 'in'."
        );
        assert_eq!(
            with(r#"[["content-length-range", 0]]"#),
            "Invalid Policy: Invalid content-length-range: wrong number of arguments."
        );
        assert_eq!(
            with(r#"[["content-length-range", 0, 512.0]]"#),
            "Invalid Policy: Invalid JSON."
        );
        assert!(with(r#"[["content-length-range", -1, 0]]"#).starts_with("Invalid Policy: "));
        assert_eq!(
            with("[7]"),
            "Invalid Policy: Invalid condition test: must be a List or Object."
        );
    }

    #[test]
    fn never_panics_on_mutated_policies() {
        let seed = br#"{"expiration": "2030-01-01T00:00:00.000Z", "conditions": [{"bucket": "b"}, ["starts-with", "$key", "u/"], ["content-length-range", 1, 10], ["eq", "$acl", "private"]]}"#;
        let tokens: &[&[u8]] = &[
            b"[", b"]", b"{", b"}", b"\"", b",", b":", b"$", b"-1", b"null", b"1.5", b"\"eq\"",
        ];
        let mut rng = Rng(0x00c0_ffee);
        let form = fields(&[("key", "u/a"), ("acl", "private")]);
        for _ in 0..20_000 {
            let bytes = mutate(&mut rng, seed, tokens);
            if let Ok(p) = Policy::parse(&base64::engine::general_purpose::STANDARD.encode(&bytes)) {
                let _ = (p.check(&form, NOW), p.size_range());
            }
        }
    }
}
