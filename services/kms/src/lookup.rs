//! Finding the key a request names: by key id, key ARN, alias name or alias ARN, with AWS's
//! refusal for each form that names nothing.

use stratus_core::arn::Arn;
use stratus_core::RequestContext;
use stratus_storage::Read;

use crate::error::{alias_not_found, invalid_key_id, key_not_found, KmsError};
use crate::keys::{is_key_id, KeyRecord};
use crate::store::{ALIASES, KEYS};

/// The account and region a request acts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scope {
    pub(crate) account: String,
    pub(crate) region: String,
}

impl Scope {
    pub(crate) fn of(ctx: &RequestContext) -> Scope {
        Scope {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
        }
    }

    pub(crate) fn in_region(&self, region: &str) -> Scope {
        Scope {
            account: self.account.clone(),
            region: region.to_owned(),
        }
    }

    pub(crate) fn key_arn(&self, id: &str) -> String {
        Arn::new("kms", &self.region, &self.account, &format!("key/{id}")).to_string()
    }

    /// The ARN of the alias `name` (`alias/…`).
    pub(crate) fn alias_arn(&self, name: &str) -> String {
        Arn::new("kms", &self.region, &self.account, name).to_string()
    }

    pub(crate) fn partition(&self) -> String {
        stratus_core::arn::partition_of(&self.region).to_owned()
    }
}

/// What a `KeyId` parameter names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyRef {
    /// A key id (of this account and region).
    Id(String),
    /// An alias name (of this account and region), and the ARN to word refusals with.
    Alias { name: String, arn: String },
}

/// Reads a `KeyId` parameter; a key or alias ARN of another account or region names a key
/// that does not exist here.
pub(crate) fn parse(scope: &Scope, key_id: &str) -> Result<KeyRef, KmsError> {
    if key_id.starts_with("arn:") {
        let arn = Arn::parse(key_id).map_err(|_| invalid_key_id(key_id))?;
        if arn.service == "kms" && arn.region != scope.region {
            return Err(crate::error::not_found(format!("Invalid arn {}", arn.region)));
        }
        let here = arn.service == "kms" && arn.account == scope.account;
        if let Some(id) = arn.resource.strip_prefix("key/") {
            return if here && is_key_id(id) {
                Ok(KeyRef::Id(id.to_owned()))
            } else {
                Err(key_not_found(key_id))
            };
        }
        if arn.resource.starts_with("alias/") {
            return if here {
                Ok(KeyRef::Alias {
                    name: arn.resource.clone(),
                    arn: key_id.to_owned(),
                })
            } else {
                Err(alias_not_found(key_id))
            };
        }
        return Err(invalid_key_id(key_id));
    }
    if key_id.starts_with("alias/") {
        return Ok(KeyRef::Alias {
            name: key_id.to_owned(),
            arn: scope.alias_arn(key_id),
        });
    }
    if is_key_id(key_id) {
        Ok(KeyRef::Id(key_id.to_owned()))
    } else {
        Err(invalid_key_id(key_id))
    }
}

/// The key `key_ref` names.
pub(crate) fn find(r: &(impl Read + ?Sized), scope: &Scope, key_ref: &KeyRef) -> Result<KeyRecord, KmsError> {
    match key_ref {
        KeyRef::Id(id) => KEYS.get(r, id)?.ok_or_else(|| key_not_found(&scope.key_arn(id))),
        KeyRef::Alias { name, arn } => {
            let alias = ALIASES.get(r, name)?.ok_or_else(|| alias_not_found(arn))?;
            KEYS.get(r, &alias.target)?
                .ok_or_else(|| key_not_found(&scope.key_arn(&alias.target)))
        }
    }
}

/// The key a `KeyId` parameter names.
pub(crate) fn find_key(r: &(impl Read + ?Sized), scope: &Scope, key_id: &str) -> Result<KeyRecord, KmsError> {
    find(r, scope, &parse(scope, key_id)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> Scope {
        Scope {
            account: "111111111111".into(),
            region: "us-east-1".into(),
        }
    }

    #[test]
    fn reads_every_form_of_key_id() {
        let id = "0d9e0f7c-8a48-4b2c-9f1e-2f4a7c3b1d00";
        assert_eq!(parse(&scope(), id).unwrap(), KeyRef::Id(id.into()));
        assert_eq!(
            parse(&scope(), &format!("arn:aws:kms:us-east-1:111111111111:key/{id}")).unwrap(),
            KeyRef::Id(id.into())
        );
        assert!(matches!(parse(&scope(), "alias/x").unwrap(), KeyRef::Alias { .. }));
        assert_eq!(
            parse(&scope(), "fake-key-id").unwrap_err().0.message,
            "Invalid keyId 'fake-key-id'"
        );
        let elsewhere = format!("arn:aws:kms:ap-southeast-1:111111111111:key/{id}");
        assert_eq!(
            parse(&scope(), &elsewhere).unwrap_err().0.message,
            "Invalid arn ap-southeast-1"
        );
        let other_account = format!("arn:aws:kms:us-east-1:222222222222:key/{id}");
        assert_eq!(
            parse(&scope(), &other_account).unwrap_err().0.message,
            format!("Key '{other_account}' does not exist")
        );
    }
}
