//! Who signs with an IAM user's access key: IAM's [`KeyDirectory`], which the gateway asks for
//! every request signed with an `AKIA…` key.

use stratus_core::service::{Identity, KeyDirectory};
use stratus_core::{AwsError, Principal, PrincipalKind};

use crate::error::IamError;
use crate::records::{AccessKeyRecord, Scope, UserRecord};
use crate::service::IamService;
use crate::store::{ACCESS_KEYS, USERS};

impl IamService {
    /// The user `access_key_id` belongs to in `account`, with the key's secret and status.
    fn key_owner(&self, account: &str, region: &str, access_key_id: &str) -> Result<Option<Identity>, IamError> {
        let store = self.reader(account)?;
        let Some(key) = ACCESS_KEYS.get(&store, access_key_id)? else {
            return Ok(None);
        };
        let AccessKeyRecord {
            user, secret, active, ..
        } = key;
        let Some(user) = USERS.get(&store, &user)? else {
            return Ok(None);
        };
        let UserRecord { name, path, id, .. } = user;
        let scope = Scope {
            account: account.to_owned(),
            region: region.to_owned(),
        };
        Ok(Some(Identity {
            account_id: account.to_owned(),
            principal: Principal {
                kind: PrincipalKind::User,
                arn: scope.arn("user", &path, &name),
                user_id: id,
                temporary: false,
            },
            secret_access_key: secret,
            session_token: None,
            expires: None,
            active,
            session: None,
        }))
    }
}

impl KeyDirectory for IamService {
    fn identify(&self, account_id: &str, region: &str, access_key_id: &str) -> Result<Option<Identity>, AwsError> {
        if !access_key_id.starts_with("AKIA") {
            return Ok(None);
        }
        self.key_owner(account_id, region, access_key_id)
            .map_err(IamError::into_aws)
    }

    /// IAM's committed writes: CreateAccessKey is one, and few others happen while a
    /// workload runs, so the gateway's memory of unknown keys is seldom dropped for nothing.
    fn issued(&self) -> u64 {
        self.writes.load(std::sync::atomic::Ordering::Acquire)
    }
}
