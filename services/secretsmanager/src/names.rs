//! Naming secrets: the characters a name may hold, and what a `SecretId` names — a name in
//! the caller's account and region, or an ARN, complete (with the six-character suffix) or
//! partial (without it), which may point at another account or region.

use stratus_core::arn::Arn;
use stratus_core::RequestContext;
use stratus_storage::Read;

use crate::error::{invalid_name, SmError};
use crate::secret::SecretRecord;
use crate::store::SECRETS;

/// Where a `SecretId` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretRef {
    pub(crate) account: String,
    pub(crate) region: String,
    /// The name, or an ARN's resource after `secret:` (which may end in the suffix).
    pub(crate) id: String,
    /// Whether `id` came from an ARN, and so may carry the suffix.
    pub(crate) from_arn: bool,
}

/// Whether `name` holds only what a secret name may: ASCII letters, digits and `/_+=.@-!`.
pub(crate) fn check_name(name: &str) -> Result<(), SmError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "/_+=.@-!".contains(c);
    if name.is_empty() || !name.chars().all(allowed) {
        return Err(invalid_name());
    }
    Ok(())
}

impl SecretRef {
    /// Reads a `SecretId`: an ARN of a secret, or a name.
    pub(crate) fn parse(ctx: &RequestContext, secret_id: &str) -> Result<SecretRef, SmError> {
        if secret_id.starts_with("arn:") {
            let arn = Arn::parse(secret_id).map_err(|_| invalid_name())?;
            let id = arn
                .resource
                .strip_prefix("secret:")
                .filter(|_| arn.service == "secretsmanager")
                .ok_or_else(invalid_name)?;
            check_name(id)?;
            return Ok(SecretRef {
                account: arn.account,
                region: arn.region,
                id: id.to_owned(),
                from_arn: true,
            });
        }
        check_name(secret_id)?;
        Ok(SecretRef {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
            id: secret_id.to_owned(),
            from_arn: false,
        })
    }

    /// The secret this names in `r`, the store of its account and region. A complete ARN
    /// must carry the secret's own suffix, so an ARN of a deleted secret does not name a
    /// new one of the same name.
    pub(crate) fn find(&self, r: &(impl Read + ?Sized)) -> Result<Option<SecretRecord>, SmError> {
        if self.from_arn {
            if let Some((name, suffix)) = split_suffix(&self.id) {
                if let Some(found) = SECRETS.get(r, name)?.filter(|s| s.suffix == suffix) {
                    return Ok(Some(found));
                }
            }
        }
        Ok(SECRETS.get(r, &self.id)?)
    }

    /// The name this gives a secret that does not exist (DeleteSecret's answer for one).
    pub(crate) fn name(&self) -> &str {
        match self.from_arn.then(|| split_suffix(&self.id)).flatten() {
            Some((name, _)) => name,
            None => &self.id,
        }
    }
}

/// `name-XXXXXX` → (`name`, `XXXXXX`), when the id ends like an ARN's suffix.
fn split_suffix(id: &str) -> Option<(&str, &str)> {
    let at = id.len().checked_sub(7)?;
    let (name, rest) = id.split_at_checked(at)?;
    let suffix = rest.strip_prefix('-')?;
    (!name.is_empty() && suffix.bytes().all(|b| b.is_ascii_alphanumeric())).then_some((name, suffix))
}

/// Six random letters and digits, the suffix of a new secret's ARN.
pub(crate) fn new_suffix() -> String {
    stratus_core::id::random_string(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 6)
}

#[cfg(test)]
mod tests {
    use stratus_core::Clock;
    use stratus_test_support::{mutate, Rng};

    use super::*;

    fn ctx() -> RequestContext {
        RequestContext::unsigned("111111111111", "us-east-1", Clock::system())
    }

    #[test]
    fn names_follow_aws_rules() {
        for ok in ["s-c64bdc03", "Valid/_+=.@-Name", "Valid/_+=.@-Name-a1b2c3-", "a!b"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["Inv Name", " Inv*Name? ", "", "é", "a:b"] {
            assert_eq!(check_name(bad).unwrap_err().0.code, "ValidationException", "{bad:?}");
        }
    }

    #[test]
    fn arns_name_their_account_and_region() {
        let r = SecretRef::parse(&ctx(), "arn:aws:secretsmanager:eu-west-1:222222222222:secret:db-AbC123").unwrap();
        assert_eq!((r.account.as_str(), r.region.as_str()), ("222222222222", "eu-west-1"));
        assert_eq!((r.id.as_str(), r.name()), ("db-AbC123", "db"));
        let partial = SecretRef::parse(&ctx(), "arn:aws:secretsmanager:eu-west-1:222222222222:secret:db").unwrap();
        assert_eq!(partial.name(), "db");
        let plain = SecretRef::parse(&ctx(), "db-AbC123").unwrap();
        assert_eq!((plain.account.as_str(), plain.name()), ("111111111111", "db-AbC123"));
        assert!(SecretRef::parse(&ctx(), "arn:aws:sqs:us-east-1:111111111111:q").is_err());
    }

    /// Property: no id, however mangled, panics the parser; whatever it accepts has a name
    /// of the allowed characters.
    #[test]
    fn never_panics_on_mangled_ids() {
        let seeds: &[&[u8]] = &[
            b"arn:aws:secretsmanager:us-east-1:111111111111:secret:db-AbC123",
            b"my/secret-name",
            b"arn:aws:secretsmanager:::secret:-",
        ];
        let tokens: &[&[u8]] = &[b":", b"-", b"secret:", b"arn:", b"\xc3\xa9", b" ", b"!"];
        let mut rng = Rng(0x7365_6372_6574_6964);
        for i in 0..20_000 {
            let bytes = mutate(&mut rng, seeds[i % seeds.len()], tokens);
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(r) = SecretRef::parse(&ctx(), &text) {
                assert!(check_name(r.name()).is_ok(), "{text:?}");
            }
        }
    }
}
