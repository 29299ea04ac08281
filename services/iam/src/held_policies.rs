//! The policies a user, group or role holds, as documents: its inline policies, the default
//! versions of its attached managed policies (a user's groups' too), and its permissions
//! boundary. `SimulatePrincipalPolicy` simulates them; the authorizer evaluates them.

use stratus_storage::Read;

use crate::error::IamError;
use crate::managed::resolve;
use crate::records::{GroupRecord, Permissions, RoleRecord, Scope, UserRecord};
use crate::store::GROUPS;

/// What a principal holds.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// Its identity policies by name (an inline policy's, an attached policy's), with their
    /// documents: the user's own before its groups', in joining order.
    pub(crate) policies: Vec<(String, String)>,
    /// The document of its permissions boundary.
    pub(crate) boundary: Option<String>,
}

/// The default documents of the managed policies `arns` names, by name; an ARN naming no
/// policy (one deleted since) holds nothing.
pub(crate) fn managed(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    arns: &[String],
) -> Result<Vec<(String, String)>, IamError> {
    let mut out = Vec::with_capacity(arns.len());
    for arn in arns {
        if let Some(policy) = resolve(r, scope, arn)? {
            let name = arn.rsplit('/').next().unwrap_or(arn);
            out.push((name.to_owned(), policy.default_document().to_owned()));
        }
    }
    Ok(out)
}

fn documents(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    permissions: &Permissions,
    out: &mut Vec<(String, String)>,
) -> Result<(), IamError> {
    out.extend(
        permissions
            .inline
            .iter()
            .map(|(name, document)| (name.clone(), document.clone())),
    );
    out.extend(managed(r, scope, &permissions.attached)?);
    Ok(())
}

fn boundary(r: &(impl Read + ?Sized), scope: &Scope, arn: &Option<String>) -> Result<Option<String>, IamError> {
    Ok(match arn {
        Some(arn) => resolve(r, scope, arn)?.map(|p| p.default_document().to_owned()),
        None => None,
    })
}

/// A user's policies and those of its groups, and its boundary.
pub(crate) fn of_user(r: &(impl Read + ?Sized), scope: &Scope, user: &UserRecord) -> Result<Held, IamError> {
    let mut policies = Vec::new();
    documents(r, scope, &user.permissions, &mut policies)?;
    for group_key in &user.groups {
        if let Some(group) = GROUPS.get(r, group_key)? {
            documents(r, scope, &group.permissions, &mut policies)?;
        }
    }
    Ok(Held {
        policies,
        boundary: boundary(r, scope, &user.boundary)?,
    })
}

/// A group's policies (a group has no boundary).
pub(crate) fn of_group(r: &(impl Read + ?Sized), scope: &Scope, group: &GroupRecord) -> Result<Held, IamError> {
    let mut policies = Vec::new();
    documents(r, scope, &group.permissions, &mut policies)?;
    Ok(Held {
        policies,
        boundary: None,
    })
}

/// A role's policies and its boundary.
pub(crate) fn of_role(r: &(impl Read + ?Sized), scope: &Scope, role: &RoleRecord) -> Result<Held, IamError> {
    let mut policies = Vec::new();
    documents(r, scope, &role.permissions, &mut policies)?;
    Ok(Held {
        policies,
        boundary: boundary(r, scope, &role.boundary)?,
    })
}
