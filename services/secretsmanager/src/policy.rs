//! A secret's resource policy: checked with `stratus-policy`'s parser as IAM reads resource
//! policies, and tested for public access (an `Allow` to every principal with no condition),
//! which `BlockPublicPolicy` refuses.

use serde_json::Value as Json;
use stratus_core::AwsError;
use stratus_gen_secrets_manager::ValidationErrorsEntry;
use stratus_policy::{Policy, PolicyError, PolicyKind};

use crate::error::{malformed_policy, SmError};

/// The longest resource policy, in characters (the model's `NonEmptyResourcePolicyType`).
const MAX_POLICY_CHARS: usize = 20_480;

/// Why `document` is not a resource policy AWS would store, in its words where known.
fn problem(document: &str) -> Option<String> {
    if document.chars().count() > MAX_POLICY_CHARS {
        return Some("This resource policy exceeds the maximum size.".to_owned());
    }
    match Policy::parse(document, PolicyKind::Resource) {
        Ok(_) => None,
        Err(PolicyError::Syntax) => Some("This resource policy contains a syntax error.".to_owned()),
        Err(PolicyError::InvalidPrincipal) => {
            Some("This resource policy contains an unsupported principal.".to_owned())
        }
        Err(other) => Some(other.to_string()),
    }
}

/// Refuses a document that is not a valid resource policy.
pub(crate) fn check(document: &str) -> Result<(), SmError> {
    match problem(document) {
        Some(message) => Err(malformed_policy(message)),
        None => Ok(()),
    }
}

/// Refuses public access when `BlockPublicPolicy` asks to.
pub(crate) fn check_not_public(document: &str) -> Result<(), SmError> {
    if is_public(document) {
        return Err(SmError(AwsError::new(
            "PublicPolicyException",
            "This resource policy grants public access to the secret, and BlockPublicPolicy is set.",
            400,
        )));
    }
    Ok(())
}

/// ValidateResourcePolicy's findings: a syntax check and the broad-access check.
pub(crate) fn validate(document: &str) -> Vec<ValidationErrorsEntry> {
    let mut found = Vec::new();
    if let Some(message) = problem(document) {
        found.push(ValidationErrorsEntry {
            check_name: Some("syntax".into()),
            error_message: Some(message),
        });
    } else if is_public(document) {
        found.push(ValidationErrorsEntry {
            check_name: Some("public-access".into()),
            error_message: Some("This resource policy grants public access to the secret.".into()),
        });
    }
    found
}

/// Whether a statement allows every principal without a condition.
pub(crate) fn is_public(document: &str) -> bool {
    let Ok(json) = serde_json::from_str::<Json>(document) else {
        return false;
    };
    let statements = match json.get("Statement") {
        Some(Json::Array(items)) => items.iter().collect(),
        Some(one @ Json::Object(_)) => vec![one],
        _ => Vec::new(),
    };
    statements.into_iter().any(|s| {
        let allows = s.get("Effect").and_then(Json::as_str) == Some("Allow");
        let everyone = match s.get("Principal") {
            Some(Json::String(p)) => p == "*",
            Some(Json::Object(by_type)) => by_type.get("AWS").is_some_and(|aws| match aws {
                Json::String(p) => p == "*",
                Json::Array(ps) => ps.iter().any(|p| p.as_str() == Some("*")),
                _ => false,
            }),
            _ => false,
        };
        allows && everyone && s.get("Condition").is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"secretsmanager:GetSecretValue","Resource":"*"}]}"#;
    const ACCOUNT: &str = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"secretsmanager:GetSecretValue","Resource":"*"}}"#;

    #[test]
    fn open_policies_are_public_and_scoped_ones_are_not() {
        assert!(is_public(OPEN));
        assert!(!is_public(ACCOUNT));
        let scoped = OPEN.replace(
            r#""Resource":"*""#,
            r#""Resource":"*","Condition":{"StringEquals":{"aws:PrincipalAccount":"123456789012"}}"#,
        );
        assert!(!is_public(&scoped));
        assert!(check_not_public(OPEN).is_err());
    }

    #[test]
    fn malformed_documents_are_refused_in_aws_words() {
        assert_eq!(
            check("{").unwrap_err().0.message,
            "This resource policy contains a syntax error."
        );
        assert_eq!(check("{").unwrap_err().0.code, "MalformedPolicyDocumentException");
        // A resource policy must name its principal.
        assert!(check(&ACCOUNT.replace(r#""Principal":{"AWS":"arn:aws:iam::123456789012:root"},"#, "")).is_err());
        assert!(check(ACCOUNT).is_ok());
        assert!(validate(ACCOUNT).is_empty());
        assert_eq!(validate(OPEN).len(), 1);
    }
}
