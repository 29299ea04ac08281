//! `Principal` and `NotPrincipal`: who a resource or trust policy statement is about.
//!
//! `"*"` is everyone, anonymous callers included. An account ID (or its `:root` ARN) names
//! the account, which then decides through its own identity policies; a role's ARN covers its
//! sessions (`arn:aws:sts::ID:assumed-role/NAME/SESSION`, which drops the role's path); other
//! ARNs and service names match exactly, without wildcards.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html>)

use crate::context::{IamKind, Principal};
use crate::error::PolicyError;
use crate::json::Json;

/// One principal named in a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PrincipalEntry {
    /// `"*"`, or `{"AWS": "*"}`.
    Anyone,
    /// A 12-digit account ID or `arn:PARTITION:iam::ID:root`.
    Account(String),
    /// `arn:PARTITION:iam::ID:role/PATH/NAME`.
    Role {
        arn: String,
        account: String,
        name: String,
    },
    /// Any other IAM ARN: a user, a role session, a federated user.
    Arn(String),
    Service(String),
    Federated(String),
    CanonicalUser(String),
}

/// How directly a matching statement names the principal, least direct first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Grant {
    /// Through the principal's account: its identity policies must allow too.
    Account,
    /// Through the role a session belongs to: the session's boundary and session policies
    /// still cap it (<https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html>).
    Role,
    /// The principal itself (or everyone).
    Direct,
}

/// Reads a `Principal` or `NotPrincipal` value.
pub(crate) fn parse(json: &Json) -> Result<Vec<PrincipalEntry>, PolicyError> {
    let members = match json {
        Json::String(s) if s == "*" => return Ok(vec![PrincipalEntry::Anyone]),
        Json::Object(members) if !members.is_empty() => json.members().ok_or(PolicyError::Syntax)?,
        _ => return Err(PolicyError::InvalidPrincipal),
    };
    let mut entries = Vec::new();
    for (kind, values) in members {
        let values: Vec<&str> = match values {
            Json::String(s) => vec![s],
            Json::Array(items) if !items.is_empty() => items
                .iter()
                .map(|v| match v {
                    Json::String(s) => Ok(s.as_str()),
                    _ => Err(PolicyError::Syntax),
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(PolicyError::InvalidPrincipal),
        };
        for value in values {
            entries.push(match kind.as_str() {
                "AWS" => aws(value)?,
                "Service" if !value.is_empty() => PrincipalEntry::Service(value.to_owned()),
                "Federated" if !value.is_empty() => PrincipalEntry::Federated(value.to_owned()),
                "CanonicalUser" if !value.is_empty() => PrincipalEntry::CanonicalUser(value.to_owned()),
                _ => return Err(PolicyError::InvalidPrincipal),
            });
        }
    }
    Ok(entries)
}

fn aws(value: &str) -> Result<PrincipalEntry, PolicyError> {
    if value == "*" {
        return Ok(PrincipalEntry::Anyone);
    }
    if value.len() == 12 && value.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(PrincipalEntry::Account(value.to_owned()));
    }
    // "You cannot use a wildcard to match part of a principal name or ARN."
    if value.contains(['*', '?']) {
        return Err(PolicyError::InvalidPrincipal);
    }
    let arn = stratus_core::arn::Arn::parse(value).map_err(|_| PolicyError::InvalidPrincipal)?;
    Ok(match (arn.service.as_str(), arn.resource.as_str()) {
        ("iam", "root") => PrincipalEntry::Account(arn.account),
        ("iam", r) if r.starts_with("role/") => PrincipalEntry::Role {
            name: r.rsplit('/').next().unwrap_or_default().to_owned(),
            arn: value.to_owned(),
            account: arn.account,
        },
        _ => PrincipalEntry::Arn(value.to_owned()),
    })
}

/// How an entry names `principal`, if it does.
fn grant(entry: &PrincipalEntry, principal: &Principal) -> Option<Grant> {
    match (entry, principal) {
        (PrincipalEntry::Anyone, _) => Some(Grant::Direct),
        (PrincipalEntry::Account(id), Principal::Iam(p)) if p.account() == id => Some(if *p.kind() == IamKind::Root {
            Grant::Direct
        } else {
            Grant::Account
        }),
        (PrincipalEntry::Role { arn, account, name }, Principal::Iam(p)) => {
            if p.arn() == arn {
                Some(Grant::Direct)
            } else {
                let session_of_role =
                    matches!(p.kind(), IamKind::AssumedRole { role, .. } if role == name) && p.account() == account;
                session_of_role.then_some(Grant::Role)
            }
        }
        (PrincipalEntry::Arn(arn), Principal::Iam(p)) => (p.arn() == arn).then_some(Grant::Direct),
        (PrincipalEntry::Service(a), Principal::Service(b))
        | (PrincipalEntry::Federated(a), Principal::Federated(b))
        | (PrincipalEntry::CanonicalUser(a), Principal::CanonicalUser(b)) => (a == b).then_some(Grant::Direct),
        _ => None,
    }
}

/// The most direct way any of `entries` names `principal`.
pub(crate) fn best_grant(entries: &[PrincipalEntry], principal: &Principal) -> Option<Grant> {
    entries.iter().filter_map(|e| grant(e, principal)).max()
}

/// Whether `NotPrincipal` entries exempt `principal`: every identity the request carries (the
/// session, its role and its account; or the user and its account) must be listed, since AWS
/// "might validate the account first, then the role, and then the assumed-role user".
/// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html>)
pub(crate) fn covers(entries: &[PrincipalEntry], principal: &Principal) -> bool {
    if entries.contains(&PrincipalEntry::Anyone) {
        return true;
    }
    let has = |wanted: Grant| entries.iter().any(|e| grant(e, principal) == Some(wanted));
    match principal {
        Principal::Iam(p) => match p.kind() {
            IamKind::Root => has(Grant::Direct),
            IamKind::AssumedRole { .. } => has(Grant::Direct) && has(Grant::Role) && has(Grant::Account),
            _ => has(Grant::Direct) && has(Grant::Account),
        },
        Principal::Anonymous => false,
        _ => has(Grant::Direct),
    }
}
