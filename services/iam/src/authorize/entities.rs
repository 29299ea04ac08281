//! What only IAM's store knows about the IAM entities a request is on: their paths, which
//! their ARNs carry (`user/division/Bob`) though requests name them by name alone, and their
//! tags (`aws:ResourceTag/…`, `iam:ResourceTag/…`).
//!
//! The authorization table names an existing entity as `user/Bob`; a policy on
//! `arn:aws:iam::ACCOUNT:user/division/*` must still match it, so IAM's own operations have
//! their resources rewritten with the stored path before they are judged — one read per
//! resource, made only for `iam:` actions.

use std::borrow::Cow;

use stratus_core::arn::Arn;

use crate::error::IamError;
use crate::records::{key, Tags};
use crate::service::IamService;
use crate::store::{GROUPS, INSTANCE_PROFILES, POLICIES, ROLES, USERS};

/// The kinds of entity whose ARNs carry a path, as the ARN's resource names them.
const WITH_PATHS: [&str; 5] = ["user", "role", "group", "policy", "instance-profile"];

impl IamService {
    /// `resources` with each IAM entity named without its path given its stored path; as
    /// they are for any other action, and for entities that do not exist (yet).
    pub(super) fn with_entity_paths<'r>(
        &self,
        action: &str,
        resources: &'r [String],
    ) -> Result<Cow<'r, [String]>, IamError> {
        if !action.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("iam:")) {
            return Ok(Cow::Borrowed(resources));
        }
        let mut rewritten: Option<Vec<String>> = None;
        for (i, resource) in resources.iter().enumerate() {
            let Some(with_path) = self.entity_arn_with_path(resource)? else {
                continue;
            };
            rewritten.get_or_insert_with(|| resources.to_vec())[i] = with_path;
        }
        Ok(rewritten.map_or(Cow::Borrowed(resources), Cow::Owned))
    }

    /// The ARN of the entity `arn` names by name alone, with its stored path, when that path
    /// is not `/`; `None` otherwise.
    fn entity_arn_with_path(&self, arn: &str) -> Result<Option<String>, IamError> {
        let Some((parsed, kind, name)) = entity(arn) else {
            return Ok(None);
        };
        if name.contains('/') {
            return Ok(None);
        }
        let store = self.reader(&parsed.account)?;
        let path = match kind {
            "user" => USERS.get(&store, key(name))?.map(|u| u.path),
            "role" => ROLES.get(&store, key(name))?.map(|r| r.path),
            "group" => GROUPS.get(&store, key(name))?.map(|g| g.path),
            "policy" => POLICIES.get(&store, key(name))?.map(|p| p.path),
            _ => INSTANCE_PROFILES.get(&store, key(name))?.map(|p| p.path),
        };
        Ok(path.filter(|p| p != "/").map(|path| {
            Arn {
                resource: format!("{kind}{path}{name}"),
                ..parsed
            }
            .to_string()
        }))
    }

    /// The tags of the IAM entity `arn` names (users, roles, managed policies, instance
    /// profiles), `None` for another ARN or a missing entity.
    pub(super) fn entity_tags(&self, arn: &str) -> Result<Option<Tags>, IamError> {
        let Some((parsed, kind, path_and_name)) = entity(arn) else {
            return Ok(None);
        };
        let (path, name) = match path_and_name.rsplit_once('/') {
            Some((path, name)) => (format!("/{path}/"), name),
            None => ("/".to_owned(), path_and_name),
        };
        let store = self.reader(&parsed.account)?;
        Ok(match kind {
            "user" => USERS.get(&store, key(name))?.filter(|u| u.path == path).map(|u| u.tags),
            "role" => ROLES.get(&store, key(name))?.filter(|r| r.path == path).map(|r| r.tags),
            "policy" => POLICIES
                .get(&store, key(name))?
                .filter(|p| p.path == path)
                .map(|p| p.tags),
            "instance-profile" => INSTANCE_PROFILES
                .get(&store, key(name))?
                .filter(|p| p.path == path)
                .map(|p| p.tags),
            _ => None,
        })
    }
}

/// An IAM ARN of an entity with a path: the ARN, its kind and what follows `kind/`.
fn entity(arn: &str) -> Option<(Arn, &'static str, &str)> {
    if !arn.starts_with("arn:") || !arn.contains(":iam::") {
        return None;
    }
    let parsed = Arn::parse(arn).ok()?;
    let (kind, rest) = parsed.resource.split_once('/')?;
    let kind = WITH_PATHS.into_iter().find(|k| *k == kind)?;
    if parsed.service != "iam" || rest.is_empty() || rest.contains('*') {
        return None;
    }
    // `rest` borrows from `parsed`; find the same text in `arn`, which outlives this call.
    let start = arn.len() - rest.len();
    Some((parsed, kind, &arn[start..]))
}

#[cfg(test)]
mod tests {
    use super::entity;

    #[test]
    fn entities_are_read_from_their_arns() {
        let (arn, kind, rest) = entity("arn:aws:iam::123456789012:user/division/Bob").unwrap();
        assert_eq!(
            (arn.account.as_str(), kind, rest),
            ("123456789012", "user", "division/Bob")
        );
        assert_eq!(
            entity("arn:aws:iam::123456789012:instance-profile/p").unwrap().1,
            "instance-profile"
        );
        for other in [
            "arn:aws:iam::123456789012:root",
            "arn:aws:iam::123456789012:user/*",
            "arn:aws:iam::123456789012:oidc-provider/x",
            "arn:aws:sqs:us-east-1:123456789012:q",
            "*",
        ] {
            assert!(entity(other).is_none(), "{other}");
        }
    }
}
