//! Sessions services assume for themselves ([`RoleSessions`]): Lambda's execution roles. The
//! same path as `AssumeRole` — the role must exist in IAM and allow the duration; the session
//! is remembered and signs as `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION` — except that
//! STS checks the role's trust policy itself, for the service principal, since no signed
//! request carries the call past the gateway.

use stratus_core::service::{BoxFuture, Caller, RoleCredentials, RoleSessions};
use stratus_core::AwsError;

use crate::session::Grants;
use crate::trust::Trustee;
use crate::{SessionRequest, StsService};

impl RoleSessions for StsService {
    fn assume_for_service<'a>(
        &'a self,
        caller: Caller<'a>,
        role_arn: &'a str,
        session_name: &'a str,
        duration_seconds: i32,
    ) -> BoxFuture<'a, Result<RoleCredentials, AwsError>> {
        Box::pin(async move {
            // AssumeRole's model bounds, which no validator checks on this path.
            if duration_seconds < 900 {
                return Err(AwsError::new(
                    "ValidationError",
                    format!(
                        "1 validation error detected: Value '{duration_seconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"
                    ),
                    400,
                ));
            }
            let request = SessionRequest {
                action: "sts:AssumeRole",
                caller: None,
                role_arn,
                session_name,
                duration_seconds: Some(duration_seconds),
                grants: Grants::default(),
                trustee: Some(Trustee::service(caller.principal)),
            };
            let now = self.clock.epoch_secs();
            let (credentials, _) = self
                .session_of_role(caller.account_id, caller.region, now, request)
                .await?;
            Ok(RoleCredentials {
                access_key_id: credentials.access_key_id,
                secret_access_key: credentials.secret_access_key,
                session_token: credentials.session_token,
                expiration: credentials.expiration,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, UNIX_EPOCH};

    use stratus_core::service::{AssumableRole, KeyDirectory, RoleDirectory};
    use stratus_core::{Clock, PrincipalKind};
    use stratus_storage::{Storage, StorageConfig};

    use super::*;

    const ACCOUNT: &str = "123456789012";
    const EXEC: &str = "arn:aws:iam::123456789012:role/service/exec";
    const OTHERS: &str = "arn:aws:iam::123456789012:role/others";

    /// Two roles: `service/exec`, which Lambda may assume, and `others`, which only EC2 may.
    struct Roles;

    impl RoleDirectory for Roles {
        fn assumable_role<'a>(&'a self, _: Caller<'a>, role_arn: &'a str) -> BoxFuture<'a, Option<AssumableRole>> {
            let service = match role_arn {
                EXEC => "lambda.amazonaws.com",
                OTHERS => "ec2.amazonaws.com",
                _ => return Box::pin(async { None }),
            };
            let trust_policy = format!(
                r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Principal":{{"Service":"{service}"}},"Action":"sts:AssumeRole"}}}}"#
            );
            Box::pin(async move {
                Some(AssumableRole {
                    role_id: "AROAEXAMPLEEXAMPLE234".into(),
                    trust_policy,
                    max_session_duration: 3600,
                })
            })
        }
    }

    fn sts() -> StsService {
        StsService::new(
            Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap()),
            Some(Arc::new(Roles)),
            Clock::manual(UNIX_EPOCH + Duration::from_secs(1_800_000_000)),
        )
    }

    fn assume(sts: &StsService, role: &str, seconds: i32) -> Result<RoleCredentials, AwsError> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let caller = Caller::service("lambda.amazonaws.com", ACCOUNT, "us-east-1");
        runtime.block_on(sts.assume_for_service(caller, role, "my-function", seconds))
    }

    #[test]
    fn a_trusted_service_gets_a_session_that_signs_as_the_role() {
        let sts = sts();
        let credentials = assume(&sts, EXEC, 900).unwrap();
        assert!(credentials.access_key_id.starts_with("ASIA"));
        assert_eq!(credentials.expiration.secs(), 1_800_000_900);
        let identity = sts
            .identify(ACCOUNT, "us-east-1", &credentials.access_key_id)
            .unwrap()
            .expect("remembered");
        assert_eq!(identity.account_id, ACCOUNT);
        assert_eq!(identity.principal.kind, PrincipalKind::AssumedRole);
        assert_eq!(
            identity.principal.arn,
            "arn:aws:sts::123456789012:assumed-role/exec/my-function"
        );
        assert_eq!(identity.principal.user_id, "AROAEXAMPLEEXAMPLE234:my-function");
        assert_eq!(identity.secret_access_key, credentials.secret_access_key);
        assert_eq!(
            identity.session_token.as_deref(),
            Some(credentials.session_token.as_str())
        );
    }

    #[test]
    fn refusals_are_stss() {
        let sts = sts();
        let refused = assume(&sts, OTHERS, 900).unwrap_err();
        assert_eq!((refused.code.as_str(), refused.http_status), ("AccessDenied", 403));
        assert_eq!(
            refused.message,
            "User: lambda.amazonaws.com is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/others"
        );
        let missing = assume(&sts, "arn:aws:iam::123456789012:role/missing", 900).unwrap_err();
        assert_eq!(missing.code, "AccessDenied");
        let long = assume(&sts, EXEC, 7200).unwrap_err();
        assert_eq!(long.code, "ValidationError");
        let short = assume(&sts, EXEC, 60).unwrap_err();
        assert_eq!(short.code, "ValidationError");
    }

    #[test]
    fn without_iam_no_role_exists() {
        let sts = StsService::new(
            Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap()),
            None,
            Clock::manual(UNIX_EPOCH),
        );
        assert_eq!(assume(&sts, EXEC, 900).unwrap_err().code, "AccessDenied");
    }
}
