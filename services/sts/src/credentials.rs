//! Temporary credentials: how they look (AWS's formats) and how they are remembered.

use std::time::Duration;

use stratus_core::access_key;
use stratus_core::id::random_string;
use stratus_core::PrincipalKind;
use stratus_storage::Codec;

use crate::session::{Grants, SessionTag};

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
    /// The session's tags and session policies.
    pub grants: Grants,
}

impl Issued {
    /// New random credentials for `principal`, with `grants`, valid for `duration` from
    /// `now_secs`.
    pub fn new(principal: Principal, grants: Grants, duration: Duration, now_secs: u64) -> Issued {
        Issued {
            access_key_id: access_key::new_key_id("ASIA", &principal.account),
            secret_access_key: random_string(SECRET_ALPHABET, 40),
            // Real session tokens are long opaque base64; SDKs only pass them back.
            session_token: format!("IQoJb3JpZ2luX2VjE{}", random_string(SECRET_ALPHABET, 339)),
            expires: now_secs.saturating_add(duration.as_secs()),
            principal,
            grants,
        }
    }

    /// Whether the credentials have expired at `now_secs`.
    pub fn expired(&self, now_secs: u64) -> bool {
        now_secs >= self.expires
    }

    /// The stored form: one field per line, then a line per grant, tab-separated: `t KEY
    /// VALUE 0|1` for a tag (no field contains a newline, no tag a tab: STS's patterns allow
    /// neither), `p POLICY` for the session policy (escaped), `a ARN` for a managed one.
    /// Records of the first form, without grants, still read.
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.principal;
        let expires = self.expires.to_string();
        let fields = [
            "v2",
            &self.access_key_id,
            &self.secret_access_key,
            &self.session_token,
            &expires,
            &p.user_id,
            &p.account,
            &p.arn,
        ];
        let mut text = fields.join("\n");
        let Grants {
            tags,
            policy,
            policy_arns,
        } = &self.grants;
        for tag in tags {
            let transitive = if tag.transitive { "1" } else { "0" };
            text.push_str(&format!("\nt\t{}\t{}\t{transitive}", tag.key, tag.value));
        }
        if let Some(policy) = policy {
            text.push_str("\np\t");
            escape_into(policy, &mut text);
        }
        for arn in policy_arns {
            text.push_str(&format!("\na\t{arn}"));
        }
        text.into_bytes()
    }

    /// Reads the stored form; `None` if it is not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Issued> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.split('\n');
        let version = lines.next()?;
        let mut field = || lines.next().map(str::to_owned);
        let (key, secret, token, expires) = (field()?, field()?, field()?, field()?);
        let (user_id, account, arn) = (field()?, field()?, field()?);
        let mut grants = Grants::default();
        match version {
            "v1" if lines.next().is_none() => {}
            "v2" => {
                for line in lines {
                    read_grant(line, &mut grants)?;
                }
            }
            _ => return None,
        }
        Some(Issued {
            access_key_id: key,
            secret_access_key: secret,
            session_token: token,
            expires: expires.parse().ok()?,
            principal: Principal { user_id, account, arn },
            grants,
        })
    }
}

/// Adds the grant a stored line holds to `grants`; `None` for a line of no known form.
fn read_grant(line: &str, grants: &mut Grants) -> Option<()> {
    let (kind, rest) = line.split_once('\t')?;
    match kind {
        "t" => {
            let mut parts = rest.split('\t');
            let (key, value, transitive) = (parts.next()?, parts.next()?, parts.next()?);
            parts.next().is_none().then_some(())?;
            grants.tags.push(SessionTag {
                key: key.to_owned(),
                value: value.to_owned(),
                transitive: match transitive {
                    "1" => true,
                    "0" => false,
                    _ => return None,
                },
            });
        }
        "p" => grants.policy = Some(unescape(rest)?),
        "a" => grants.policy_arns.push(rest.to_owned()),
        _ => return None,
    }
    Some(())
}

/// Appends `text` with backslashes, newlines and tabs escaped, so it fits on one line.
fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
}

/// The text [`escape_into`] escaped; `None` for an escape it does not write.
fn unescape(line: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            _ => return None,
        });
    }
    Some(out)
}

/// The stored form of [`Issued`] as a record codec: [`Issued::to_bytes`] and
/// [`Issued::from_bytes`].
pub(crate) struct StoredForm;

impl Codec<Issued> for StoredForm {
    fn encode(issued: &Issued) -> Result<Vec<u8>, String> {
        Ok(issued.to_bytes())
    }

    fn decode(bytes: &[u8]) -> Result<Issued, String> {
        Issued::from_bytes(bytes).ok_or_else(|| "not a credentials record".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_700_000_000;

    fn principal() -> Principal {
        Principal {
            user_id: "AROAEXAMPLE:s".into(),
            account: "000000000000".into(),
            arn: "arn:aws:sts::000000000000:assumed-role/r/s".into(),
        }
    }

    #[test]
    fn formats_follow_aws() {
        let issued = Issued::new(principal(), Grants::default(), Duration::from_secs(900), NOW);
        assert!(issued.access_key_id.starts_with("ASIA"));
        assert_eq!(issued.access_key_id.len(), 20);
        assert_eq!(issued.secret_access_key.len(), 40);
        assert!(!issued.expired(NOW + 899));
        assert!(issued.expired(NOW + 900));
        assert_eq!(Issued::from_bytes(&issued.to_bytes()), Some(issued));
        assert_eq!(Issued::from_bytes(b"v0\nx"), None);
    }

    #[test]
    fn grants_survive_the_stored_form_and_first_form_records_still_read() {
        let grants = Grants {
            tags: vec![
                SessionTag {
                    key: "Team=a:b".into(),
                    value: "x y/z".into(),
                    transitive: true,
                },
                SessionTag {
                    key: "Env".into(),
                    value: String::new(),
                    transitive: false,
                },
            ],
            policy: Some("{\n\t\"Statement\": \"a\\\\b\\n\"\r\n}".into()),
            policy_arns: vec!["arn:aws:iam::aws:policy/ReadOnlyAccess".into()],
        };
        let issued = Issued::new(principal(), grants, Duration::from_secs(900), NOW);
        assert_eq!(Issued::from_bytes(&issued.to_bytes()), Some(issued.clone()));
        let first_form = format!(
            "v1\n{}\n{}\n{}\n{}\nAROAEXAMPLE:s\n000000000000\narn:aws:sts::000000000000:assumed-role/r/s",
            issued.access_key_id, issued.secret_access_key, issued.session_token, issued.expires
        );
        let read = Issued::from_bytes(first_form.as_bytes()).unwrap();
        assert_eq!(read.grants, Grants::default());
        assert_eq!(read.principal, principal());
        assert_eq!(Issued::from_bytes(format!("{first_form}\nextra").as_bytes()), None);
        let stored = String::from_utf8(issued.to_bytes()).unwrap();
        for bad in ["bad-line", "t\tk\tv\t2", "p\t\\x", "x\ty"] {
            assert_eq!(Issued::from_bytes(format!("{stored}\n{bad}").as_bytes()), None, "{bad}");
        }
    }
}
