//! AWS Security Token Service.
//!
//! Issues temporary credentials in AWS's formats (`ASIA…` access keys, session tokens,
//! expirations) and remembers them, durably, so that a request signed with them is answered as
//! the principal they were issued to: `GetCallerIdentity` reports the assumed-role ARN after
//! `AssumeRole`, the federated user after `GetFederationToken`. Credentials are kept per
//! account in the `credentials` table of the account's global `sts` store.
//!
//! Signatures are not verified and no IAM policy is evaluated: any role can be assumed by
//! anyone, as in every local emulator, and trust policies are not consulted.

mod credentials;
mod tokens;

use std::sync::Arc;
use std::time::Duration;

use aws_smithy_types::DateTime;
use stratus_core::arn::Arn;
use stratus_core::service::{Registration, ServiceEnv};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_sts::*;
use stratus_storage::{Durability, Namespace, Storage, StorageError, Store, Table};

pub use credentials::{role_id, Issued, Principal};

/// Issued credentials by access key id.
const CREDENTIALS: Table<Issued, credentials::StoredForm> = Table::new("credentials");

/// The STS service, backed by `storage`.
pub struct StsService {
    storage: Arc<Storage>,
}

/// Builds STS when the binary serves it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    Registration {
        handlers: vec![Arc::new(Handler(StsService::new(env.storage.clone())))],
        ..Registration::default()
    }
}

impl StsService {
    pub fn new(storage: Arc<Storage>) -> StsService {
        StsService { storage }
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
    }

    /// The credentials with access key `key` issued in `account`, if any. Only `ASIA` keys
    /// can be ones Stratus issued; a read needs no fsync, so it runs inline.
    fn lookup(&self, account: &str, key: &str) -> Result<Option<Issued>, AwsError> {
        if !key.starts_with("ASIA") {
            return Ok(None);
        }
        CREDENTIALS.get(&self.store(account)?, key).map_err(storage_error)
    }

    /// Who signed the request: the principal of credentials Stratus issued, else the
    /// account's root.
    async fn caller(&self, ctx: &RequestContext) -> Result<(Principal, bool), AwsError> {
        if let Some(key) = ctx.access_key_id.as_deref() {
            if let Some(issued) = self.lookup(&ctx.account_id, key)? {
                if issued.expired(ctx.clock.epoch_secs()) {
                    return Err(AwsError::new(
                        "ExpiredToken",
                        "The security token included in the request is expired",
                        403,
                    ));
                }
                return Ok((issued.principal, true));
            }
        }
        let account = ctx.account_id.clone();
        Ok((
            Principal {
                user_id: account.clone(),
                arn: root_arn(&ctx.region, &account),
                account,
            },
            false,
        ))
    }

    async fn issue(&self, ctx: &RequestContext, principal: Principal, seconds: i32) -> Result<Credentials, AwsError> {
        let duration = Duration::from_secs(u64::try_from(seconds).unwrap_or(0));
        let issued = self
            .remember(
                &ctx.account_id,
                Issued::new(principal, duration, ctx.clock.epoch_secs()),
            )
            .await?;
        Ok(Credentials {
            access_key_id: issued.access_key_id,
            secret_access_key: issued.secret_access_key,
            session_token: issued.session_token,
            expiration: DateTime::from_secs(i64::try_from(issued.expires).unwrap_or(i64::MAX)),
        })
    }

    /// A role session: the assumed-role user and its principal.
    fn role_session(role_arn: &str, session_name: &str) -> Result<(AssumedRoleUser, Principal), AwsError> {
        let role = RoleArn::parse(role_arn)?;
        let assumed_role_id = format!("{}:{session_name}", role_id(role_arn));
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
        Ok((AssumedRoleUser { assumed_role_id, arn }, principal))
    }
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
        let arn = Arn::parse(text)
            .ok()
            .filter(|a| a.service == "iam" && a.region.is_empty())
            .ok_or_else(invalid)?;
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

fn is_account_id(text: &str) -> bool {
    text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit())
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

impl Sts for StsService {
    async fn get_caller_identity(
        &self,
        ctx: &RequestContext,
        _input: GetCallerIdentityRequest,
    ) -> Result<GetCallerIdentityResponse, GetCallerIdentityError> {
        let (p, _) = self.caller(ctx).await?;
        Ok(GetCallerIdentityResponse {
            user_id: Some(p.user_id),
            account: Some(p.account),
            arn: Some(p.arn),
        })
    }

    async fn assume_role(
        &self,
        ctx: &RequestContext,
        input: AssumeRoleRequest,
    ) -> Result<AssumeRoleResponse, AssumeRoleError> {
        self.caller(ctx).await?;
        let packed = packed_policy_size(
            input.policy.as_deref(),
            input.policy_arns.as_ref().map_or(0, Vec::len),
            input.tags.as_ref().map_or(0, Vec::len),
        )?;
        let (user, principal) = Self::role_session(&input.role_arn, &input.role_session_name)?;
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(3600))
            .await?;
        Ok(AssumeRoleResponse {
            credentials: Some(credentials),
            assumed_role_user: Some(user),
            packed_policy_size: packed,
            source_identity: input.source_identity,
        })
    }

    async fn assume_role_with_web_identity(
        &self,
        ctx: &RequestContext,
        input: AssumeRoleWithWebIdentityRequest,
    ) -> Result<AssumeRoleWithWebIdentityResponse, AssumeRoleWithWebIdentityError> {
        let claims = tokens::jwt_claims(&input.web_identity_token).map_err(|message| {
            AssumeRoleWithWebIdentityError::InvalidIdentityTokenException(InvalidIdentityTokenException {
                message: Some(message.into()),
            })
        })?;
        let packed = packed_policy_size(
            input.policy.as_deref(),
            input.policy_arns.as_ref().map_or(0, Vec::len),
            0,
        )?;
        let (user, principal) = Self::role_session(&input.role_arn, &input.role_session_name)?;
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(3600))
            .await?;
        Ok(AssumeRoleWithWebIdentityResponse {
            credentials: Some(credentials),
            subject_from_web_identity_token: claims.subject,
            assumed_role_user: Some(user),
            packed_policy_size: packed,
            provider: input.provider_id.or(claims.issuer),
            audience: claims.audience,
            source_identity: None,
        })
    }

    async fn assume_role_with_saml(
        &self,
        ctx: &RequestContext,
        input: AssumeRoleWithSAMLRequest,
    ) -> Result<AssumeRoleWithSAMLResponse, AssumeRoleWithSAMLError> {
        let assertion = tokens::saml_assertion(&input.saml_assertion).map_err(|message| {
            AssumeRoleWithSAMLError::InvalidIdentityTokenException(InvalidIdentityTokenException {
                message: Some(message.into()),
            })
        })?;
        let packed = packed_policy_size(
            input.policy.as_deref(),
            input.policy_arns.as_ref().map_or(0, Vec::len),
            0,
        )?;
        let session = assertion
            .session_name
            .clone()
            .or_else(|| assertion.subject.clone())
            .unwrap_or_else(|| "saml".into());
        let (user, principal) = Self::role_session(&input.role_arn, &session)?;
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(3600))
            .await?;
        Ok(AssumeRoleWithSAMLResponse {
            credentials: Some(credentials),
            assumed_role_user: Some(user),
            packed_policy_size: packed,
            subject: assertion.subject,
            subject_type: assertion.subject_type,
            issuer: assertion.issuer,
            audience: assertion.audience,
            name_qualifier: None,
            source_identity: None,
        })
    }

    async fn assume_root(
        &self,
        ctx: &RequestContext,
        input: AssumeRootRequest,
    ) -> Result<AssumeRootResponse, AssumeRootError> {
        self.caller(ctx).await?;
        let target = input.target_principal;
        if !is_account_id(&target) {
            return Err(AwsError::new(
                "ValidationError",
                "TargetPrincipal must be a 12-digit AWS account ID",
                400,
            )
            .into());
        }
        let principal = Principal {
            user_id: target.clone(),
            arn: root_arn(&ctx.region, &target),
            account: target,
        };
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(900))
            .await?;
        Ok(AssumeRootResponse {
            credentials: Some(credentials),
            source_identity: None,
        })
    }

    async fn get_session_token(
        &self,
        ctx: &RequestContext,
        input: GetSessionTokenRequest,
    ) -> Result<GetSessionTokenResponse, GetSessionTokenError> {
        let (principal, temporary) = self.caller(ctx).await?;
        if temporary {
            return Err(denied("Cannot call GetSessionToken with session credentials").into());
        }
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(43_200))
            .await?;
        Ok(GetSessionTokenResponse {
            credentials: Some(credentials),
        })
    }

    async fn get_federation_token(
        &self,
        ctx: &RequestContext,
        input: GetFederationTokenRequest,
    ) -> Result<GetFederationTokenResponse, GetFederationTokenError> {
        let (caller, temporary) = self.caller(ctx).await?;
        if temporary {
            return Err(denied("Cannot call GetFederationToken with session credentials").into());
        }
        let packed = packed_policy_size(
            input.policy.as_deref(),
            input.policy_arns.as_ref().map_or(0, Vec::len),
            input.tags.as_ref().map_or(0, Vec::len),
        )?;
        let account = caller.account;
        let user = FederatedUser {
            federated_user_id: format!("{account}:{}", input.name),
            arn: Arn::global("sts", &ctx.region, &account, &format!("federated-user/{}", input.name)).to_string(),
        };
        let principal = Principal {
            user_id: user.federated_user_id.clone(),
            account,
            arn: user.arn.clone(),
        };
        let credentials = self
            .issue(ctx, principal, input.duration_seconds.unwrap_or(43_200))
            .await?;
        Ok(GetFederationTokenResponse {
            credentials: Some(credentials),
            federated_user: Some(user),
            packed_policy_size: packed,
        })
    }

    async fn get_access_key_info(
        &self,
        ctx: &RequestContext,
        input: GetAccessKeyInfoRequest,
    ) -> Result<GetAccessKeyInfoResponse, GetAccessKeyInfoError> {
        let account = match self.lookup(&ctx.account_id, &input.access_key_id)? {
            Some(issued) => issued.principal.account,
            None => ctx.account_id.clone(),
        };
        Ok(GetAccessKeyInfoResponse { account: Some(account) })
    }

    async fn decode_authorization_message(
        &self,
        ctx: &RequestContext,
        input: DecodeAuthorizationMessageRequest,
    ) -> Result<DecodeAuthorizationMessageResponse, DecodeAuthorizationMessageError> {
        self.caller(ctx).await?;
        match tokens::decode_authorization_message(&input.encoded_message) {
            Some(decoded) => Ok(DecodeAuthorizationMessageResponse {
                decoded_message: Some(decoded),
            }),
            None => Err(DecodeAuthorizationMessageError::InvalidAuthorizationMessageException(
                InvalidAuthorizationMessageException {
                    message: Some("Invalid authorization message".into()),
                },
            )),
        }
    }

    /// Every Stratus account is as a new AWS account: outbound web identity federation is
    /// off until IAM's EnableOutboundWebIdentityFederation turns it on, which Stratus does
    /// not serve yet, so tokens are refused as AWS refuses them then.
    async fn get_web_identity_token(
        &self,
        ctx: &RequestContext,
        _input: GetWebIdentityTokenRequest,
    ) -> Result<GetWebIdentityTokenResponse, GetWebIdentityTokenError> {
        self.caller(ctx).await?;
        Err(GetWebIdentityTokenError::OutboundWebIdentityFederationDisabledException(
            OutboundWebIdentityFederationDisabledException {
                // The model's documentation of the error.
                message: Some(
                    "The outbound web identity federation feature is not enabled for this account. To use this feature, you must first enable it through the Amazon Web Services Management Console or API."
                        .into(),
                ),
            },
        ))
    }

    /// Trade-in tokens come from IAM's delegation requests, which Stratus does not serve yet.
    async fn get_delegated_access_token(
        &self,
        ctx: &RequestContext,
        _input: GetDelegatedAccessTokenRequest,
    ) -> Result<GetDelegatedAccessTokenResponse, GetDelegatedAccessTokenError> {
        self.caller(ctx).await?;
        Err(AwsError::new(
            "NotImplemented",
            "GetDelegatedAccessToken exchanges tokens that IAM delegation requests issue, which Stratus does not serve yet",
            501,
        )
        .into())
    }
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
