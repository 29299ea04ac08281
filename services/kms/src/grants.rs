//! Grants: permissions on one key for a grantee, with optional encryption context
//! constraints, and the grant tokens that name them.

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use stratus_core::value::DateTime;
use stratus_gen_kms::{GrantConstraints, GrantListEntry, GrantOperation};

use crate::error::KmsError;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct GrantRecord {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    pub(crate) key_id: String,
    pub(crate) key_arn: String,
    pub(crate) grantee: Option<String>,
    pub(crate) grantee_service: Option<String>,
    pub(crate) retiring: Option<String>,
    pub(crate) retiring_service: Option<String>,
    /// Operations as AWS names them (`Encrypt`, `Decrypt`, …).
    pub(crate) operations: Vec<String>,
    pub(crate) context_subset: Option<BTreeMap<String, String>>,
    pub(crate) context_equals: Option<BTreeMap<String, String>>,
    pub(crate) source_arn: Option<String>,
    pub(crate) created_ms: i64,
    pub(crate) issuing_account: String,
}

impl GrantRecord {
    pub(crate) fn entry(&self) -> GrantListEntry {
        let constraints = (self.context_subset.is_some() || self.context_equals.is_some() || self.source_arn.is_some())
            .then(|| GrantConstraints {
                encryption_context_subset: self.context_subset.clone(),
                encryption_context_equals: self.context_equals.clone(),
                source_arn: self.source_arn.clone(),
            });
        GrantListEntry {
            key_id: Some(self.key_arn.clone()),
            grant_id: Some(self.id.clone()),
            name: self.name.clone(),
            creation_date: Some(DateTime::from_millis(self.created_ms)),
            grantee_principal: self.grantee.clone(),
            retiring_principal: self.retiring.clone(),
            issuing_account: Some(self.issuing_account.clone()),
            operations: Some(self.operations.iter().map(|o| GrantOperation::from_wire(o)).collect()),
            constraints,
            grantee_service_principal: self.grantee_service.clone(),
            retiring_service_principal: self.retiring_service.clone(),
        }
    }
}

const TOKEN_PREFIX: &str = "stratus-grant:";

/// The grant token of a grant: it names the key and the grant.
pub(crate) fn token(key_id: &str, grant_id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{TOKEN_PREFIX}{key_id}:{grant_id}"))
}

/// The key id and grant id a grant token names, or `None` for a token KMS did not issue.
pub(crate) fn read_token(token: &str) -> Option<(String, String)> {
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(token).ok()?).ok()?;
    let (key, grant) = text.strip_prefix(TOKEN_PREFIX)?.rsplit_once(':')?;
    Some((key.to_owned(), grant.to_owned()))
}

/// Grant tokens in a request must be tokens KMS issued (`InvalidGrantTokenException`).
pub(crate) fn check_grant_tokens(tokens: Option<&[String]>) -> Result<(), KmsError> {
    for token in tokens.unwrap_or_default() {
        if read_token(token).is_none() {
            return Err(KmsError(stratus_core::AwsError::new(
                "InvalidGrantTokenException",
                "Invalid grant token",
                400,
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_their_grant_and_nothing_else_reads_as_one() {
        let t = token("mrk-0123", "ab12");
        assert_eq!(read_token(&t), Some(("mrk-0123".into(), "ab12".into())));
        assert_eq!(read_token("not a token"), None);
        assert!(check_grant_tokens(Some(&[t])).is_ok());
        assert!(check_grant_tokens(Some(&["x".into()])).is_err());
    }
}
