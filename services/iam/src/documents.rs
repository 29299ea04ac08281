//! Policy documents: validated with IAM's grammar and limits, and URL-encoded in answers.
//!
//! IAM counts a document's size in characters, whitespace excluded ("IAM doesn't count white
//! space when calculating the size of a policy", IAM User Guide, "IAM and AWS STS quotas"),
//! and refuses an oversized one with `LimitExceeded`. Every document IAM returns is
//! URL-encoded (RFC 3986: all but unreserved characters), which SDKs decode.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use stratus_policy::{Policy, PolicyKind};

use crate::error::IamError;

/// What a document is for, which decides its grammar and its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocumentUse {
    /// A version of a customer managed policy (or a permissions boundary).
    Managed,
    /// A role's trust policy.
    Trust,
    /// An inline policy of the user, group or role named.
    UserInline,
    GroupInline,
    RoleInline,
}

impl DocumentUse {
    /// The largest document, in characters other than whitespace.
    pub(crate) fn limit(self) -> usize {
        match self {
            DocumentUse::Managed => 6_144,
            DocumentUse::Trust => 2_048,
            DocumentUse::UserInline => 2_048,
            DocumentUse::GroupInline => 5_120,
            DocumentUse::RoleInline => 10_240,
        }
    }

    fn kind(self) -> PolicyKind {
        match self {
            DocumentUse::Trust => PolicyKind::Trust,
            _ => PolicyKind::Identity,
        }
    }

    /// AWS's refusal of an oversized document; `owner` names the user, group or role.
    fn too_large(self, owner: &str) -> IamError {
        let limit = self.limit();
        IamError::LimitExceeded(match self {
            DocumentUse::Managed => format!("Cannot exceed quota for PolicySize: {limit}"),
            DocumentUse::Trust => format!("Cannot exceed quota for ACLSizePerRole: {limit}"),
            DocumentUse::UserInline => format!("Maximum policy size of {limit} bytes exceeded for user {owner}"),
            DocumentUse::GroupInline => format!("Maximum policy size of {limit} bytes exceeded for group {owner}"),
            DocumentUse::RoleInline => format!("Maximum policy size of {limit} bytes exceeded for role {owner}"),
        })
    }
}

/// The size IAM counts: characters other than whitespace.
pub(crate) fn counted_size(document: &str) -> usize {
    document.chars().filter(|c| !c.is_whitespace()).count()
}

/// Checks `document` for `usage` (`owner` names the entity an inline policy belongs to):
/// its size first, then its grammar, as IAM does.
pub(crate) fn check(document: &str, usage: DocumentUse, owner: &str) -> Result<(), IamError> {
    if counted_size(document) > usage.limit() {
        return Err(usage.too_large(owner));
    }
    // A trust policy that is not JSON at all gets its own words (recorded from AWS for a
    // trailing comma in CreateRole).
    if usage == DocumentUse::Trust && serde_json::from_str::<serde::de::IgnoredAny>(document).is_err() {
        return Err(IamError::MalformedPolicyDocument(
            "This policy contains invalid Json".into(),
        ));
    }
    Policy::parse(document, usage.kind())
        .map(drop)
        .map_err(|e| IamError::MalformedPolicyDocument(e.to_string()))
}

/// Everything but RFC 3986's unreserved characters is escaped.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// A document as IAM returns it: URL-encoded.
pub(crate) fn url_encode(document: &str) -> String {
    utf8_percent_encode(document, ESCAPED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOW_ALL: &str =
        r#"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}"#;

    /// A valid identity policy of exactly `size` counted characters, padded with spaces that
    /// do not count.
    fn policy_of(size: usize) -> String {
        let base =
            r#"{"Version":"2012-10-17","Statement":[{"Sid":"","Effect":"Allow","Action":"s3:*","Resource":"*"}]}"#;
        let sid = "A".repeat(size - counted_size(base));
        format!("{}   \n\t", base.replace(r#""Sid":"""#, &format!(r#""Sid":"{sid}""#)))
    }

    #[test]
    fn whitespace_does_not_count() {
        assert_eq!(counted_size(" a b\n\tc "), 3);
        assert_eq!(counted_size(&policy_of(200)), 200);
    }

    #[test]
    fn each_use_has_its_limit_counted_without_whitespace() {
        for (usage, owner, message) in [
            (
                DocumentUse::UserInline,
                "alice",
                "Maximum policy size of 2048 bytes exceeded for user alice",
            ),
            (
                DocumentUse::GroupInline,
                "devs",
                "Maximum policy size of 5120 bytes exceeded for group devs",
            ),
            (
                DocumentUse::RoleInline,
                "app",
                "Maximum policy size of 10240 bytes exceeded for role app",
            ),
            (DocumentUse::Managed, "", "Cannot exceed quota for PolicySize: 6144"),
        ] {
            assert!(check(&policy_of(usage.limit()), usage, owner).is_ok(), "{usage:?}");
            match check(&policy_of(usage.limit() + 1), usage, owner) {
                Err(IamError::LimitExceeded(m)) => assert_eq!(m, message),
                other => panic!("{usage:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn grammar_follows_the_use() {
        assert!(check(ALLOW_ALL, DocumentUse::Managed, "").is_ok());
        match check(ALLOW_ALL, DocumentUse::Trust, "") {
            Err(IamError::MalformedPolicyDocument(m)) => assert_eq!(m, "Missing required field Principal"),
            other => panic!("{other:?}"),
        }
        match check(r#"{"Statement": [{"Effect": "Allow",}]}"#, DocumentUse::Trust, "") {
            Err(IamError::MalformedPolicyDocument(m)) => assert_eq!(m, "This policy contains invalid Json"),
            other => panic!("{other:?}"),
        }
        match check("not json", DocumentUse::UserInline, "u") {
            Err(IamError::MalformedPolicyDocument(m)) => assert_eq!(m, "Syntax errors in policy."),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn documents_are_url_encoded_keeping_unreserved_characters() {
        assert_eq!(
            url_encode(r#"{"a": "b-c_d.e~f"}"#),
            "%7B%22a%22%3A%20%22b-c_d.e~f%22%7D"
        );
        assert_eq!(url_encode("é"), "%C3%A9");
    }
}
