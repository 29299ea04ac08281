//! Temporary credentials: how they look (AWS's formats) and how they are remembered.

use std::time::Duration;

use stratus_core::access_key;
use stratus_core::id::random_string;
use stratus_core::PrincipalKind;
use stratus_storage::Codec;

const SECRET_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Who a set of temporary credentials belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// `AROA…:session` for a role session, `account:name` for a federated user, the user id
    /// otherwise.
    pub user_id: String,
    pub account: String,
    pub arn: String,
}

impl Principal {
    /// The kind of identity the ARN names.
    pub fn kind(&self) -> PrincipalKind {
        let resource = self.arn.splitn(6, ':').nth(5).unwrap_or_default();
        if resource.starts_with("assumed-role/") {
            PrincipalKind::AssumedRole
        } else if resource.starts_with("federated-user/") {
            PrincipalKind::FederatedUser
        } else if resource == "root" {
            PrincipalKind::Root
        } else {
            PrincipalKind::User
        }
    }
}

/// One issued set of temporary credentials, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issued {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: String,
    /// Seconds since the epoch.
    pub expires: u64,
    pub principal: Principal,
}

impl Issued {
    /// New random credentials for `principal`, valid for `duration` from `now_secs`.
    pub fn new(principal: Principal, duration: Duration, now_secs: u64) -> Issued {
        Issued {
            access_key_id: access_key::new_key_id("ASIA", &principal.account),
            secret_access_key: random_string(SECRET_ALPHABET, 40),
            // Real session tokens are long opaque base64; SDKs only pass them back.
            session_token: format!("IQoJb3JpZ2luX2VjE{}", random_string(SECRET_ALPHABET, 339)),
            expires: now_secs.saturating_add(duration.as_secs()),
            principal,
        }
    }

    /// Whether the credentials have expired at `now_secs`.
    pub fn expired(&self, now_secs: u64) -> bool {
        now_secs >= self.expires
    }

    /// The stored form: one field per line (no field contains a newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.principal;
        let expires = self.expires.to_string();
        let fields = [
            "v1",
            &self.access_key_id,
            &self.secret_access_key,
            &self.session_token,
            &expires,
            &p.user_id,
            &p.account,
            &p.arn,
        ];
        fields.join("\n").into_bytes()
    }

    /// Reads the stored form; `None` if it is not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Issued> {
        let text = std::str::from_utf8(bytes).ok()?;
        let f: Vec<&str> = text.split('\n').collect();
        let [version, key, secret, token, expires, user_id, account, arn] = f.as_slice() else {
            return None;
        };
        (*version == "v1").then_some(())?;
        Some(Issued {
            access_key_id: key.to_string(),
            secret_access_key: secret.to_string(),
            session_token: token.to_string(),
            expires: expires.parse().ok()?,
            principal: Principal {
                user_id: user_id.to_string(),
                account: account.to_string(),
                arn: arn.to_string(),
            },
        })
    }
}

/// The stored form of [`Issued`] as a record codec: [`Issued::to_bytes`] and
/// [`Issued::from_bytes`].
pub(crate) struct StoredForm;

impl Codec<Issued> for StoredForm {
    fn encode(issued: &Issued) -> Result<Vec<u8>, String> {
        Ok(issued.to_bytes())
    }

    fn decode(bytes: &[u8]) -> Result<Issued, String> {
        Issued::from_bytes(bytes).ok_or_else(|| "not a v1 credentials record".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_700_000_000;

    #[test]
    fn formats_follow_aws() {
        let issued = Issued::new(
            Principal {
                user_id: "u".into(),
                account: "000000000000".into(),
                arn: "arn".into(),
            },
            Duration::from_secs(900),
            NOW,
        );
        assert!(issued.access_key_id.starts_with("ASIA"));
        assert_eq!(issued.access_key_id.len(), 20);
        assert_eq!(issued.secret_access_key.len(), 40);
        assert!(!issued.expired(NOW + 899));
        assert!(issued.expired(NOW + 900));
        assert_eq!(Issued::from_bytes(&issued.to_bytes()), Some(issued));
        assert_eq!(Issued::from_bytes(b"v0\nx"), None);
    }
}
