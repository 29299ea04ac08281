//! Parameter policies (`PutParameter`'s `Policies`): a JSON array of `Expiration`,
//! `ExpirationNotification` and `NoChangeNotification` policies, checked as AWS checks them.
//! Expiration deletes the parameter at its timestamp (`expiry`); the notifications are kept
//! and reported, not sent (Stratus has no EventBridge hand-off for them yet).

use aws_smithy_types::date_time::Format;
use aws_smithy_types::DateTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{refuse, SsmError};

/// The most policies one parameter may have.
const MAX_POLICIES: usize = 10;

/// One policy as stored: its text (as AWS reports it in `PolicyText`), its type, and for an
/// Expiration policy the moment it deletes the parameter.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    pub(crate) kind: String,
    pub(crate) text: String,
    pub(crate) expires_ms: Option<i64>,
}

fn attribute_error(what: impl std::fmt::Display) -> SsmError {
    refuse(
        "InvalidPolicyAttributeException",
        format!("A policy attribute or its value is invalid: {what}"),
    )
}

fn type_error() -> SsmError {
    refuse(
        "InvalidPolicyTypeException",
        "The policy type isn't supported. Parameter Store supports the following policy types: Expiration, \
         ExpirationNotification, and NoChangeNotification.",
    )
}

/// Parses and checks `Policies`; an empty array clears a parameter's policies.
pub(crate) fn parse(text: &str) -> Result<Vec<Policy>, SsmError> {
    let parsed: Value = serde_json::from_str(text).map_err(|_| attribute_error("the policies are not valid JSON"))?;
    let items = match parsed {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        _ => return Err(attribute_error("the policies must be a JSON array")),
    };
    if items.len() > MAX_POLICIES {
        return Err(refuse(
            "PoliciesLimitExceededException",
            "You specified more than the maximum number of allowed policies for the parameter. The maximum is 10.",
        ));
    }
    let mut policies: Vec<Policy> = Vec::with_capacity(items.len());
    for item in items {
        let policy = parse_one(&item)?;
        if policies.iter().any(|p| p.kind == policy.kind) {
            return Err(refuse(
                "IncompatiblePolicyException",
                "There is a conflict in the policies specified for this parameter. You can't, for example, specify \
                 two Expiration policies for a parameter. Review your policies, and try again.",
            ));
        }
        policies.push(policy);
    }
    Ok(policies)
}

fn parse_one(item: &Value) -> Result<Policy, SsmError> {
    let Value::Object(fields) = item else {
        return Err(type_error());
    };
    let kind = fields.get("Type").and_then(Value::as_str).ok_or_else(type_error)?;
    if fields.get("Version").and_then(Value::as_str) != Some("1.0") {
        return Err(attribute_error("Version must be 1.0"));
    }
    let attributes = fields
        .get("Attributes")
        .and_then(Value::as_object)
        .ok_or_else(|| attribute_error("Attributes are missing"))?;
    let text_of = |name: &str| attributes.get(name).and_then(Value::as_str);
    let expires_ms = match kind {
        "Expiration" => {
            let stamp = text_of("Timestamp").ok_or_else(|| attribute_error("Timestamp is missing"))?;
            let at = DateTime::from_str(stamp, Format::DateTime)
                .map_err(|_| attribute_error(format!("Timestamp {stamp} is not an ISO 8601 date and time")))?;
            Some(
                at.to_millis()
                    .map_err(|_| attribute_error("Timestamp is out of range"))?,
            )
        }
        "ExpirationNotification" | "NoChangeNotification" => {
            let amount = if kind == "ExpirationNotification" {
                "Before"
            } else {
                "After"
            };
            let count = text_of(amount).ok_or_else(|| attribute_error(format!("{amount} is missing")))?;
            if count.parse::<u32>().map_or(true, |n| n == 0) {
                return Err(attribute_error(format!("{amount} must be a positive whole number")));
            }
            if !matches!(text_of("Unit"), Some("Days" | "Hours")) {
                return Err(attribute_error("Unit must be Days or Hours"));
            }
            None
        }
        _ => return Err(type_error()),
    };
    Ok(Policy {
        kind: kind.to_owned(),
        text: item.to_string(),
        expires_ms,
    })
}

/// When the policies delete their parameter, if one is an Expiration policy.
pub(crate) fn expiry(policies: &[Policy]) -> Option<i64> {
    policies.iter().find_map(|p| p.expires_ms)
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

    use super::*;

    const EXPIRES: &str =
        r#"{"Type":"Expiration","Version":"1.0","Attributes":{"Timestamp":"2030-01-01T00:00:00.000Z"}}"#;
    const NOTIFY: &str =
        r#"{"Type":"ExpirationNotification","Version":"1.0","Attributes":{"Before":"15","Unit":"Days"}}"#;
    const NO_CHANGE: &str =
        r#"{"Type":"NoChangeNotification","Version":"1.0","Attributes":{"After":"2","Unit":"Hours"}}"#;

    #[test]
    fn reads_the_three_policy_types() {
        let policies = parse(&format!("[{EXPIRES},{NOTIFY},{NO_CHANGE}]")).unwrap();
        assert_eq!(policies.len(), 3);
        assert_eq!(expiry(&policies), Some(1_893_456_000_000));
        assert_eq!(policies[1].kind, "ExpirationNotification");
        assert!(parse("[]").unwrap().is_empty());
    }

    #[test]
    fn refuses_as_aws_does() {
        let code = |text: &str| parse(text).unwrap_err().0.code;
        assert_eq!(code(&format!("[{EXPIRES},{EXPIRES}]")), "IncompatiblePolicyException");
        assert_eq!(
            code(r#"[{"Type":"Rotate","Version":"1.0","Attributes":{}}]"#),
            "InvalidPolicyTypeException"
        );
        assert_eq!(
            code(&EXPIRES.replace("2030-01-01T00:00:00.000Z", "soon")),
            "InvalidPolicyAttributeException"
        );
        assert_eq!(
            code(&NOTIFY.replace("Days", "Weeks")),
            "InvalidPolicyAttributeException"
        );
        assert_eq!(
            code(&NO_CHANGE.replace("\"2\"", "\"0\"")),
            "InvalidPolicyAttributeException"
        );
        let eleven = [NOTIFY; 11].join(",");
        assert_eq!(code(&format!("[{eleven}]")), "PoliciesLimitExceededException");
    }

    #[test]
    fn never_panics() {
        let seeds: &[&[u8]] = &[EXPIRES.as_bytes(), NOTIFY.as_bytes(), NO_CHANGE.as_bytes(), b"[]"];
        let mut rng = Rng(9);
        for i in 0..10_000 {
            let input = fuzz_input(&mut rng, i, seeds, JSON_TOKENS, 16);
            let _ = parse(&String::from_utf8_lossy(&input));
        }
    }
}
