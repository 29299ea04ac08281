//! What STS needs to know about a role before issuing a session for it: whether it exists,
//! its trust policy and its longest session — IAM's [`RoleDirectory`].

use stratus_core::arn::Arn;
use stratus_core::service::{AssumableRole, BoxFuture, Caller, RoleDirectory};

use crate::error::IamError;
use crate::records::{key, RoleRecord};
use crate::service::IamService;
use crate::store::ROLES;

impl IamService {
    /// The role `arn` names (`arn:PARTITION:iam::ACCOUNT:role/PATH/NAME`), if it exists with
    /// that path in that account.
    pub fn assumable_role(&self, arn: &str) -> Result<Option<AssumableRole>, IamError> {
        let Ok(parsed) = Arn::parse(arn) else {
            return Ok(None);
        };
        let Some(resource) = parsed.resource.strip_prefix("role") else {
            return Ok(None);
        };
        if parsed.service != "iam" || !parsed.region.is_empty() {
            return Ok(None);
        }
        let Some((path, name)) = resource.rsplit_once('/') else {
            return Ok(None);
        };
        let role: Option<RoleRecord> = ROLES.get(&self.reader(&parsed.account)?, key(name))?;
        Ok(role
            .filter(|r| r.name == name && r.path == format!("{path}/"))
            .map(|r| AssumableRole {
                role_id: r.id,
                trust_policy: r.trust_policy,
                max_session_duration: r.max_session_duration,
            }))
    }
}

/// STS's view of IAM's roles. A role that cannot be read (a storage failure) is logged and
/// treated as missing: STS then refuses the session, as it would for no role.
impl RoleDirectory for IamService {
    fn assumable_role<'a>(&'a self, _caller: Caller<'a>, role_arn: &'a str) -> BoxFuture<'a, Option<AssumableRole>> {
        Box::pin(async move {
            IamService::assumable_role(self, role_arn).unwrap_or_else(|e| {
                tracing::warn!(role = role_arn, error = %e, "IAM role not readable for STS");
                None
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError};

    use super::*;
    use crate::records::Permissions;

    #[test]
    fn roles_are_found_by_arn_with_their_path() {
        let storage = Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap());
        let role = RoleRecord {
            name: "Deploy".into(),
            path: "/ci/".into(),
            id: "AROAEXAMPLEEXAMPLE234".into(),
            created: 0,
            trust_policy: "{}".into(),
            description: None,
            max_session_duration: 7200,
            boundary: None,
            tags: Vec::new(),
            permissions: Permissions::default(),
            last_used: None,
        };
        storage
            .store(&Namespace::global("123456789012", "iam"), Durability::Strict)
            .unwrap()
            .transact(|tx| {
                ROLES.put(tx, key(&role.name), &role)?;
                Ok::<_, StorageError>(())
            })
            .unwrap();
        let iam = IamService::new(storage);
        let found = iam.assumable_role("arn:aws:iam::123456789012:role/ci/Deploy").unwrap();
        assert_eq!(
            found,
            Some(AssumableRole {
                role_id: "AROAEXAMPLEEXAMPLE234".into(),
                trust_policy: "{}".into(),
                max_session_duration: 7200,
            })
        );
        for other in [
            "arn:aws:iam::123456789012:role/Deploy",
            "arn:aws:iam::210987654321:role/ci/Deploy",
            "arn:aws:iam::123456789012:user/ci/Deploy",
            "arn:aws:iam:us-east-1:123456789012:role/ci/Deploy",
            "Deploy",
        ] {
            assert_eq!(iam.assumable_role(other).unwrap(), None, "{other}");
        }
    }
}
