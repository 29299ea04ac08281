//! AWS Security Token Service.
//!
//! Issues temporary credentials in AWS's formats (`ASIA…` access keys that carry their
//! account, session tokens, expirations) and remembers them, durably, in the `credentials`
//! table of the global `sts` store of the account the session acts in. STS is the gateway's
//! [`KeyDirectory`] for those keys: a request signed with them is served as the principal
//! they were issued to, in its account — `GetCallerIdentity` reports the assumed-role ARN
//! after `AssumeRole`, the federated user after `GetFederationToken`.
//!
//! Each operation is a function in `ops`, wired to the generated `Sts` trait by the
//! `operations!` table below.
//!
//! A session is issued only for a role IAM has ([`RoleDirectory`]). The trust policy of a
//! signed `AssumeRole` is evaluated by the gateway (IAM's authorizer, under `--iam
//! audit|enforce`) before STS sees the request; STS evaluates it itself, always, when a
//! service assumes a role for itself ([`RoleSessions`], in `for_services`), since no request
//! is signed then.

mod credentials;
mod for_services;
mod ops;
mod session;
mod tokens;
mod trust;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use aws_smithy_types::DateTime;
use stratus_core::arn::{is_account_id, Arn};
use stratus_core::service::{
    Caller, Identity, KeyDirectory, Providers, Registration, RoleDirectory, ServiceEnv, SessionGrants,
};
use stratus_core::{AwsError, Clock, RequestContext};
use stratus_gen_sts::*;
use stratus_storage::{Durability, Namespace, Storage, StorageError, Store, Table};

pub use credentials::{Issued, Principal};
pub use session::{Grants, SessionTag};

/// Issued credentials by access key id.
const CREDENTIALS: Table<Issued, credentials::StoredForm> = Table::new("credentials");

/// The STS service, backed by `storage`.
#[derive(Clone)]
pub struct StsService {
    storage: Arc<Storage>,
    /// IAM's roles: a session is issued only for a role that exists.
    roles: Option<Arc<dyn RoleDirectory>>,
    /// The process's clock, for the sessions issued to services outside any request.
    clock: Clock,
    /// How many credentials have been issued and stored: [`KeyDirectory::issued`].
    issued: Arc<AtomicU64>,
}

/// Builds STS when the binary serves it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sts = StsService::new(
        env.storage.clone(),
        env.providers.roles.clone(),
        env.scheduler.clock().clone(),
    );
    Registration {
        handlers: vec![Arc::new(Handler(sts.clone()))],
        provides: Providers {
            session_keys: Some(Arc::new(sts.clone())),
            role_sessions: Some(Arc::new(sts)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

impl StsService {
    pub fn new(storage: Arc<Storage>, roles: Option<Arc<dyn RoleDirectory>>, clock: Clock) -> StsService {
        StsService {
            storage,
            roles,
            clock,
            issued: Arc::default(),
        }
    }

    /// The account's `sts` store.
    fn store(&self, account: &str) -> Result<Arc<dyn Store>, AwsError> {
        self.storage
            .store(&Namespace::global(account, "sts"), Durability::Strict)
            .map_err(storage_error)
    }

    /// Stores `issued` for `account` (on a blocking thread: a strict write waits for fsync).
    async fn remember(&self, account: &str, issued: Issued) -> Result<Issued, AwsError> {
        self.store(account)?
            .transact_async(move |tx| {
                CREDENTIALS.put(tx, issued.access_key_id.as_bytes(), &issued)?;
                Ok::<_, StorageError>(issued)
            })
            .await
            .map_err(storage_error)
            .inspect(|_| {
                // Committed: the key may be looked up again wherever it was found unknown
                // (its id reaches a client only once this returns).
                self.issued.fetch_add(1, Ordering::Release);
            })
    }

    /// The credentials with access key `key` issued in `account`, if any. Only `ASIA` keys
    /// can be ones Stratus issued; a read needs no fsync, so it runs inline.
    fn lookup(&self, account: &str, key: &str) -> Result<Option<Issued>, AwsError> {
        if !key.starts_with("ASIA") {
            return Ok(None);
        }
        CREDENTIALS.get(&self.store(account)?, key).map_err(storage_error)
    }

    /// The session whose credentials signed the request, if STS issued them.
    fn calling_session(&self, ctx: &RequestContext) -> Result<Option<Issued>, AwsError> {
        match ctx.access_key_id.as_deref() {
            Some(key) if ctx.principal.as_ref().is_some_and(|p| p.temporary) => self.lookup(&ctx.account_id, key),
            _ => Ok(None),
        }
    }

    async fn issue(
        &self,
        ctx: &RequestContext,
        principal: Principal,
        grants: Grants,
        seconds: i32,
    ) -> Result<Credentials, AwsError> {
        self.issue_at(ctx.clock.epoch_secs(), principal, grants, seconds).await
    }

    /// Credentials for `principal` valid for `seconds` from `now_secs`, remembered.
    async fn issue_at(
        &self,
        now_secs: u64,
        principal: Principal,
        grants: Grants,
        seconds: i32,
    ) -> Result<Credentials, AwsError> {
        let duration = Duration::from_secs(u64::try_from(seconds).unwrap_or(0));
        // Kept in the account the session acts in, which its key id names.
        let account = principal.account.clone();
        let issued = self
            .remember(&account, Issued::new(principal, grants, duration, now_secs))
            .await?;
        Ok(Credentials {
            access_key_id: issued.access_key_id,
            secret_access_key: issued.secret_access_key,
            session_token: issued.session_token,
            expiration: DateTime::from_secs(i64::try_from(issued.expires).unwrap_or(i64::MAX)),
        })
    }

    /// A session of role `role_arn` for `request`, issued: its credentials and the assumed-role
    /// user. The role must exist in IAM, and allow a session as long as the one asked for.
    async fn role_session(
        &self,
        ctx: &RequestContext,
        request: SessionRequest<'_>,
    ) -> Result<(Credentials, AssumedRoleUser), AwsError> {
        self.session_of_role(&ctx.account_id, &ctx.region, ctx.clock.epoch_secs(), request)
            .await
    }

    /// [`Self::role_session`] asked for in `account` and `region` at `now_secs`: what a
    /// request and a service's own call share.
    async fn session_of_role(
        &self,
        account: &str,
        region: &str,
        now_secs: u64,
        request: SessionRequest<'_>,
    ) -> Result<(Credentials, AssumedRoleUser), AwsError> {
        let SessionRequest {
            action,
            caller,
            role_arn,
            session_name,
            duration_seconds,
            grants,
            trustee,
        } = request;
        let duration_seconds = duration_seconds.unwrap_or(3600);
        let role = RoleArn::parse(role_arn)?;
        let found = match &self.roles {
            Some(roles) => {
                let principal = caller.map_or("", |c| c.arn.as_str());
                let principal = trustee.as_ref().map_or(principal, |t| t.principal.display_name());
                let on_behalf = Caller {
                    account_id: account,
                    region,
                    principal,
                };
                roles.assumable_role(on_behalf, role_arn).await
            }
            None => None,
        };
        // AWS answers a missing role as it answers a caller the role does not trust.
        let refusal = || {
            denied(&match (caller, &trustee) {
                (Some(caller), _) => format!(
                    "User: {} is not authorized to perform: {action} on resource: {role_arn}",
                    caller.arn
                ),
                (None, Some(trustee)) => format!(
                    "User: {} is not authorized to perform: {action} on resource: {role_arn}",
                    trustee.principal.display_name()
                ),
                (None, None) => format!("Not authorized to perform {action}"),
            })
        };
        let Some(assumable) = found else {
            return Err(refusal());
        };
        if let Some(trustee) = &trustee {
            if !trustee.admitted_by(&assumable.trust_policy, action, role_arn, now_secs) {
                return Err(refusal());
            }
        }
        if duration_seconds > assumable.max_session_duration {
            return Err(AwsError::new(
                "ValidationError",
                "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.",
                400,
            ));
        }
        let assumed_role_id = format!("{}:{session_name}", assumable.role_id);
        // The session lives in the role's partition, whatever region it was asked for in.
        let arn = Arn {
            partition: role.partition,
            service: "sts".into(),
            region: String::new(),
            account: role.account.clone(),
            resource: format!("assumed-role/{}/{session_name}", role.name),
        }
        .to_string();
        let principal = Principal {
            user_id: assumed_role_id.clone(),
            account: role.account,
            arn: arn.clone(),
        };
        let credentials = self.issue_at(now_secs, principal, grants, duration_seconds).await?;
        Ok((credentials, AssumedRoleUser { assumed_role_id, arn }))
    }
}

/// Who signs with the temporary credentials STS issued: the gateway asks for every request
/// signed with an `ASIA…` key, in the account the key names.
impl KeyDirectory for StsService {
    fn identify(&self, account_id: &str, _region: &str, access_key_id: &str) -> Result<Option<Identity>, AwsError> {
        Ok(self.lookup(account_id, access_key_id)?.map(|issued| Identity {
            principal: stratus_core::Principal {
                kind: issued.principal.kind(),
                arn: issued.principal.arn,
                user_id: issued.principal.user_id,
                temporary: true,
            },
            secret_access_key: issued.secret_access_key,
            session_token: Some(issued.session_token),
            expires: Some(issued.expires),
            active: true,
            session: Some(SessionGrants {
                tags: issued.grants.tags.into_iter().map(|tag| (tag.key, tag.value)).collect(),
                policy: issued.grants.policy,
                policy_arns: issued.grants.policy_arns,
            }),
            account_id: issued.principal.account,
        }))
    }

    fn issued(&self) -> u64 {
        self.issued.load(Ordering::Acquire)
    }
}

/// What a role session is asked for with.
struct SessionRequest<'a> {
    /// The IAM action asked for, e.g. `sts:AssumeRole`, as AccessDenied names it.
    action: &'static str,
    /// Who asks: the signer of an AssumeRole; none for the web identity and SAML variants,
    /// which are not signed.
    caller: Option<&'a Principal>,
    role_arn: &'a str,
    session_name: &'a str,
    /// `DurationSeconds`; an hour when not given.
    duration_seconds: Option<i32>,
    /// The new session's tags (the calling session's transitive ones among them) and
    /// session policies.
    grants: Grants,
    /// Whom the role's trust policy must admit, when STS checks it itself (a service's own
    /// session); `None` when the gateway checked it, or nothing can.
    trustee: Option<trust::Trustee>,
}

/// The parts of `arn:PARTITION:iam::ACCOUNT:role/PATH/NAME` a session needs.
struct RoleArn {
    partition: String,
    account: String,
    name: String,
}

impl RoleArn {
    fn parse(text: &str) -> Result<RoleArn, AwsError> {
        let invalid = || AwsError::new("ValidationError", "Request ARN is invalid", 400);
        // Text that is no ARN at all is refused naming it (AWS's recorded answers).
        let arn = Arn::parse(text).map_err(|_| AwsError::new("ValidationError", format!("{text} is invalid"), 400))?;
        if arn.service != "iam" || !arn.region.is_empty() {
            return Err(invalid());
        }
        let path_and_name = arn.resource.strip_prefix("role/").ok_or_else(invalid)?;
        let name = path_and_name
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .ok_or_else(invalid)?
            .to_owned();
        if !is_account_id(&arn.account) {
            return Err(invalid());
        }
        Ok(RoleArn {
            partition: arn.partition,
            account: arn.account,
            name,
        })
    }
}

/// Who signed the request, in STS's terms, and whether with temporary credentials: the
/// principal the gateway found for its key, else the account's root.
fn caller(ctx: &RequestContext) -> (Principal, bool) {
    match &ctx.principal {
        Some(principal) => (
            Principal {
                user_id: principal.user_id.clone(),
                account: ctx.account_id.clone(),
                arn: principal.arn.clone(),
            },
            principal.temporary,
        ),
        None => (
            Principal {
                user_id: ctx.account_id.clone(),
                arn: root_arn(&ctx.region, &ctx.account_id),
                account: ctx.account_id.clone(),
            },
            false,
        ),
    }
}

/// The ARN of an account's root user, in the partition of the request's region.
fn root_arn(region: &str, account: &str) -> String {
    Arn::global("iam", region, account, "root").to_string()
}

/// Session policies must be JSON; their packed size is reported as a percentage of the
/// allowed size (an approximation of AWS's compression).
fn packed_policy_size(policy: Option<&str>, policy_arns: usize, tags: usize) -> Result<Option<i32>, AwsError> {
    if let Some(p) = policy {
        tokens::check_json(p).map_err(|_| {
            AwsError::new(
                "MalformedPolicyDocument",
                "The policy is not in the valid JSON format.",
                400,
            )
        })?;
    }
    if policy.is_none() && policy_arns == 0 && tags == 0 {
        return Ok(None);
    }
    let packed = policy.map_or(0, |p| p.split_whitespace().map(str::len).sum::<usize>()) + 64 * policy_arns + 48 * tags;
    let percent = i32::try_from(packed.div_ceil(20)).unwrap_or(i32::MAX).max(1);
    if percent > 100 {
        return Err(AwsError::new(
            "PackedPolicyTooLarge",
            format!("Packed size of consumed sessions policies and session tags exceeds 2048 bytes ({percent}%)."),
            400,
        ));
    }
    Ok(Some(percent))
}

fn storage_error(e: StorageError) -> AwsError {
    AwsError::internal(format!("credential store: {e}"))
}

fn denied(message: &str) -> AwsError {
    AwsError::new("AccessDenied", message, 403)
}

stratus_gen_sts::operations! {
    StsService;
    get_caller_identity => ops::get_caller_identity,
    assume_role => ops::assume_role,
    assume_role_with_web_identity => ops::assume_role_with_web_identity,
    assume_role_with_saml => ops::assume_role_with_saml,
    assume_root => ops::assume_root,
    get_session_token => ops::get_session_token,
    get_federation_token => ops::get_federation_token,
    get_access_key_info => ops::get_access_key_info,
    decode_authorization_message => ops::decode_authorization_message,
    get_web_identity_token => ops::get_web_identity_token,
    get_delegated_access_token => ops::get_delegated_access_token,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_arns() {
        let r = RoleArn::parse("arn:aws:iam::123456789012:role/path/to/Admin").unwrap();
        assert_eq!(
            (r.partition.as_str(), r.account.as_str(), r.name.as_str()),
            ("aws", "123456789012", "Admin")
        );
        let gov = RoleArn::parse("arn:aws-us-gov:iam::123456789012:role/Admin").unwrap();
        assert_eq!(gov.partition, "aws-us-gov");
        for bad in [
            "arn:aws:iam::123456789012:user/x",
            "arn:aws:iam::12345:role/x",
            "arn:aws:s3:::b",
            "role/x",
            "arn:aws:iam::123456789012:role/",
        ] {
            assert!(RoleArn::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn root_arns_are_in_the_request_regions_partition() {
        assert_eq!(root_arn("us-east-1", "1"), "arn:aws:iam::1:root");
        assert_eq!(root_arn("cn-north-1", "1"), "arn:aws-cn:iam::1:root");
    }

    #[test]
    fn policies_must_be_json() {
        assert!(packed_policy_size(Some("{\"Version\":\"2012-10-17\"}"), 0, 0)
            .unwrap()
            .is_some());
        assert!(packed_policy_size(Some("{not json"), 0, 0).is_err());
        assert_eq!(packed_policy_size(None, 0, 0).unwrap(), None);
        assert!(packed_policy_size(Some(&format!("{{\"a\":\"{}\"}}", "x".repeat(5000))), 0, 0).is_err());
    }
}
