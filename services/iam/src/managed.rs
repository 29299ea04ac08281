//! Managed policies as attachments see them: an ARN resolved to a customer policy of the
//! account or an AWS managed one, and how many users, groups and roles each is attached to.

use std::collections::HashMap;

use stratus_core::arn::Arn;
use stratus_gen_iam::Policy;
use stratus_storage::Read;

use crate::aws_policies::{self, AwsPolicy};
use crate::error::IamError;
use crate::records::{date, key, wire_tags, PolicyRecord, Scope};
use crate::store::{all, Holder, GROUPS, POLICIES, ROLES, USERS};

/// A managed policy an ARN names.
pub(crate) enum Managed {
    Aws(&'static AwsPolicy),
    Customer(PolicyRecord),
}

/// The name of the customer policy `arn` names in `scope`'s account, with its path, if it
/// is one of this account's policy ARNs.
pub(crate) fn customer_name(scope: &Scope, arn: &str) -> Option<(String, String)> {
    let arn = Arn::parse(arn).ok()?;
    if arn.service != "iam" || arn.account != scope.account || !arn.region.is_empty() {
        return None;
    }
    let rest = arn.resource.strip_prefix("policy/")?;
    let (path, name) = match rest.rsplit_once('/') {
        Some((path, name)) => (format!("/{path}/"), name.to_owned()),
        None => ("/".to_owned(), rest.to_owned()),
    };
    Some((path, name))
}

/// The managed policy `arn` names, if it exists.
pub(crate) fn resolve(r: &(impl Read + ?Sized), scope: &Scope, arn: &str) -> Result<Option<Managed>, IamError> {
    if let Some(policy) = aws_policies::find(arn) {
        return Ok(Some(Managed::Aws(policy)));
    }
    let Some((path, name)) = customer_name(scope, arn) else {
        return Ok(None);
    };
    Ok(POLICIES
        .get(r, key(&name))?
        .filter(|p| p.path == path && p.name == name)
        .map(Managed::Customer))
}

/// The customer policy `arn` names, or AWS's refusal for `GetPolicy` and its kin
/// ("Policy ARN was not found.").
pub(crate) fn load_customer(r: &(impl Read + ?Sized), scope: &Scope, arn: &str) -> Result<PolicyRecord, IamError> {
    match resolve(r, scope, arn)? {
        Some(Managed::Customer(record)) => Ok(record),
        _ => Err(not_found(arn)),
    }
}

pub(crate) fn not_found(arn: &str) -> IamError {
    IamError::NoSuchEntity(format!("Policy {arn} was not found."))
}

/// AWS's refusal to attach what does not exist.
pub(crate) fn not_attachable(arn: &str) -> IamError {
    IamError::NoSuchEntity(format!("Policy {arn} does not exist or is not attachable."))
}

impl Managed {
    /// The document of the policy's default version.
    pub(crate) fn default_document(&self) -> &str {
        match self {
            Managed::Aws(policy) => policy.document,
            Managed::Customer(record) => record
                .versions
                .iter()
                .find(|v| v.number == record.default_version)
                .map_or("", |v| v.document.as_str()),
        }
    }
}

/// How many users, groups and roles each managed policy (by ARN) is attached to.
pub(crate) fn attachment_counts(r: &(impl Read + ?Sized)) -> Result<HashMap<String, i32>, IamError> {
    let mut counts = HashMap::new();
    let mut count = |attached: &[String]| {
        for arn in attached {
            *counts.entry(arn.clone()).or_insert(0) += 1;
        }
    };
    for (_, user) in all(r, USERS)? {
        count(&user.permissions().attached);
    }
    for (_, group) in all(r, GROUPS)? {
        count(&group.permissions().attached);
    }
    for (_, role) in all(r, ROLES)? {
        count(&role.permissions().attached);
    }
    Ok(counts)
}

impl PolicyRecord {
    pub(crate) fn arn(&self, scope: &Scope) -> String {
        scope.arn("policy", &self.path, &self.name)
    }

    /// The policy as `GetPolicy` answers (listings leave out description and tags).
    pub(crate) fn wire(&self, scope: &Scope, attachment_count: i32) -> Policy {
        Policy {
            policy_name: Some(self.name.clone()),
            policy_id: Some(self.id.clone()),
            arn: Some(self.arn(scope)),
            path: Some(self.path.clone()),
            default_version_id: Some(format!("v{}", self.default_version)),
            attachment_count: Some(attachment_count),
            permissions_boundary_usage_count: Some(0),
            is_attachable: true,
            description: self.description.clone(),
            create_date: Some(date(self.created)),
            update_date: Some(date(self.updated)),
            tags: wire_tags(&self.tags),
        }
    }
}
