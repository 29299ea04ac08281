//! The checks of a bucket policy before it is stored, and whether it makes the bucket public.

use stratus_core::arn::Arn;
use stratus_core::AwsError;

fn malformed_policy(message: &str) -> AwsError {
    AwsError::new("MalformedPolicy", message, 400)
}

/// Checks a bucket policy as S3 does before storing it; returns whether it is public (an
/// unconditional `Allow` to every principal).
pub(crate) fn check_policy(bucket: &str, region: &str, text: &str) -> Result<bool, AwsError> {
    // Bucket policies are limited to 20 KB.
    if text.len() > 20 * 1024 {
        return Err(malformed_policy("Policy exceeds the maximum allowed document size."));
    }
    let doc: serde_json::Value = serde_json::from_str(text)
        .ok()
        .filter(serde_json::Value::is_object)
        .ok_or_else(|| malformed_policy("Policies must be valid JSON and the first byte must be '{'"))?;
    let statements = match doc.get("Statement") {
        Some(serde_json::Value::Array(s)) if !s.is_empty() => s.clone(),
        Some(s @ serde_json::Value::Object(_)) => vec![s.clone()],
        _ => return Err(malformed_policy("Missing required field Statement")),
    };
    let mut public = false;
    for statement in &statements {
        let effect = statement.get("Effect").and_then(|e| e.as_str());
        match effect {
            Some("Allow" | "Deny") => {}
            Some(other) => return Err(malformed_policy(&format!("Invalid effect: {other}"))),
            None => return Err(malformed_policy("Missing required field Effect")),
        }
        let principal = statement.get("Principal").or_else(|| statement.get("NotPrincipal"));
        let Some(principal) = principal else {
            return Err(malformed_policy("Missing required field Principal"));
        };
        let Some(actions) = statement.get("Action").or_else(|| statement.get("NotAction")) else {
            return Err(malformed_policy("Missing required field Action"));
        };
        for action in strings(actions) {
            let lower = action.to_ascii_lowercase();
            if lower != "*" && !lower.starts_with("s3:") {
                return Err(malformed_policy("Policy has invalid action"));
            }
        }
        let Some(resources) = statement.get("Resource").or_else(|| statement.get("NotResource")) else {
            return Err(malformed_policy("Missing required field Resource"));
        };
        let arn = Arn::global("s3", region, "", bucket).to_string();
        for resource in strings(resources) {
            let ok = resource == arn
                || resource
                    .strip_prefix(&arn)
                    .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('*'));
            if !ok {
                return Err(malformed_policy("Policy has invalid resource"));
            }
        }
        let everyone = match principal {
            serde_json::Value::String(s) => s == "*",
            serde_json::Value::Object(m) => m.get("AWS").is_some_and(|aws| strings(aws).contains(&"*")),
            _ => false,
        };
        if effect == Some("Allow")
            && statement.get("Principal").is_some()
            && everyone
            && statement.get("Condition").is_none()
        {
            public = true;
        }
    }
    Ok(public)
}

fn strings(value: &serde_json::Value) -> Vec<&str> {
    match value {
        serde_json::Value::String(s) => vec![s.as_str()],
        serde_json::Value::Array(items) => items.iter().filter_map(|i| i.as_str()).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies() {
        let allow_all = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}"#;
        assert!(check_policy("b", "us-east-1", allow_all).unwrap());
        let account = r#"{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::1:root"},"Action":["s3:*"],"Resource":"arn:aws:s3:::b"}}"#;
        assert!(!check_policy("b", "us-east-1", account).unwrap());
        let msg = |text: &str| check_policy("b", "us-east-1", text).unwrap_err().message;
        assert_eq!(
            msg("nope"),
            "Policies must be valid JSON and the first byte must be '{'"
        );
        assert_eq!(msg("{}"), "Missing required field Statement");
        assert_eq!(
            msg(&allow_all.replace("arn:aws:s3:::b/*", "arn:aws:s3:::other/*")),
            "Policy has invalid resource"
        );
        assert_eq!(
            msg(&allow_all.replace("s3:GetObject", "sqs:SendMessage")),
            "Policy has invalid action"
        );
        assert_eq!(
            msg(&allow_all.replace("\"Principal\":\"*\",", "")),
            "Missing required field Principal"
        );
    }
}
