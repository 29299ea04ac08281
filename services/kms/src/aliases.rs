//! Aliases: names (`alias/…`) for keys, and the AWS managed keys (`alias/aws/<service>`)
//! that KMS creates for a service on first use.

use serde::{Deserialize, Serialize};

use crate::error::{validation, KmsError};

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct AliasRecord {
    /// The key id the alias names.
    pub(crate) target: String,
    pub(crate) created_ms: i64,
    pub(crate) updated_ms: i64,
}

/// The prefix of the aliases of AWS managed keys, which customers may not create.
pub(crate) const MANAGED_PREFIX: &str = "alias/aws/";

/// Checks an alias name a caller creates or moves, in AWS's words.
pub(crate) fn check_name(name: &str) -> Result<(), KmsError> {
    if !name.starts_with("alias/") {
        return Err(validation(
            "Alias must start with the prefix \"alias/\". Please see https://docs.aws.amazon.com/kms/latest/developerguide/kms-alias.html",
        ));
    }
    if name.starts_with(MANAGED_PREFIX) {
        return Err(crate::error::not_authorized(
            "Cannot create alias with prefix 'alias/aws/'",
        ));
    }
    let rest = &name["alias/".len()..];
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_alphanumeric() || b"/_-".contains(&b)) {
        return Err(validation(format!(
            "1 validation error detected: Value '{name}' at 'aliasName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9:/_-]+$"
        )));
    }
    Ok(())
}

/// The service an AWS managed alias is for (`alias/aws/s3` → `s3`).
pub(crate) fn managed_service(name: &str) -> Option<&str> {
    name.strip_prefix(MANAGED_PREFIX).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_aws_rules() {
        assert!(check_name("alias/my-key").is_ok());
        assert_eq!(check_name("my-key").unwrap_err().0.code, "ValidationException");
        assert_eq!(check_name("alias/aws/s3").unwrap_err().0.code, "NotAuthorizedException");
        assert_eq!(managed_service("alias/aws/ssm"), Some("ssm"));
        assert_eq!(managed_service("alias/mine"), None);
    }
}
