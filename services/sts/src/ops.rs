//! The STS operations, one function each, wired to the generated `Sts` trait in `lib.rs`.

use stratus_core::access_key;
use stratus_core::arn::{is_account_id, Arn};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_sts::*;

use crate::session::{session_tags, Grants};
use crate::{caller, denied, packed_policy_size, root_arn, tokens, Principal, SessionRequest, StsService};

pub(crate) async fn get_caller_identity(
    _sts: &StsService,
    ctx: &RequestContext,
    _input: GetCallerIdentityRequest,
) -> Result<GetCallerIdentityResponse, GetCallerIdentityError> {
    let (p, _) = caller(ctx);
    Ok(GetCallerIdentityResponse {
        user_id: Some(p.user_id),
        account: Some(p.account),
        arn: Some(p.arn),
    })
}

pub(crate) async fn assume_role(
    sts: &StsService,
    ctx: &RequestContext,
    input: AssumeRoleRequest,
) -> Result<AssumeRoleResponse, AssumeRoleError> {
    let (caller, temporary) = caller(ctx);
    let packed = packed_policy_size(
        input.policy.as_deref(),
        input.policy_arns.as_ref().map_or(0, Vec::len),
        input.tags.as_ref().map_or(0, Vec::len),
    )?;
    let calling = sts.calling_session(ctx)?;
    let tags = session_tags(
        calling
            .as_ref()
            .map_or(&[][..], |session| session.grants.tags.as_slice()),
        input.tags.as_deref().unwrap_or_default(),
        input.transitive_tag_keys.as_deref().unwrap_or_default(),
    )?;
    // Role chaining: a role assumed with temporary credentials gets at most an hour.
    if temporary && input.duration_seconds.is_some_and(|seconds| seconds > 3600) {
        return Err(AwsError::new(
            "ValidationError",
            "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.",
            400,
        )
        .into());
    }
    let session = SessionRequest {
        action: "sts:AssumeRole",
        caller: Some(&caller),
        role_arn: &input.role_arn,
        session_name: &input.role_session_name,
        duration_seconds: input.duration_seconds,
        grants: Grants {
            tags,
            policy: input.policy,
            policy_arns: policy_arns(input.policy_arns),
        },
        trustee: None,
    };
    let (credentials, user) = sts.role_session(ctx, session).await?;
    Ok(AssumeRoleResponse {
        credentials: Some(credentials),
        assumed_role_user: Some(user),
        packed_policy_size: packed,
        source_identity: input.source_identity,
    })
}

pub(crate) async fn assume_role_with_web_identity(
    sts: &StsService,
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
    let session = SessionRequest {
        action: "sts:AssumeRoleWithWebIdentity",
        caller: None,
        role_arn: &input.role_arn,
        session_name: &input.role_session_name,
        duration_seconds: input.duration_seconds,
        grants: Grants {
            policy: input.policy,
            policy_arns: policy_arns(input.policy_arns),
            ..Grants::default()
        },
        trustee: None,
    };
    let (credentials, user) = sts.role_session(ctx, session).await?;
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

pub(crate) async fn assume_role_with_saml(
    sts: &StsService,
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
    let request = SessionRequest {
        action: "sts:AssumeRoleWithSAML",
        caller: None,
        role_arn: &input.role_arn,
        session_name: &session,
        duration_seconds: input.duration_seconds,
        grants: Grants {
            policy: input.policy,
            policy_arns: policy_arns(input.policy_arns),
            ..Grants::default()
        },
        trustee: None,
    };
    let (credentials, user) = sts.role_session(ctx, request).await?;
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

pub(crate) async fn assume_root(
    sts: &StsService,
    ctx: &RequestContext,
    input: AssumeRootRequest,
) -> Result<AssumeRootResponse, AssumeRootError> {
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
    let credentials = sts
        .issue(ctx, principal, Grants::default(), input.duration_seconds.unwrap_or(900))
        .await?;
    Ok(AssumeRootResponse {
        credentials: Some(credentials),
        source_identity: None,
    })
}

pub(crate) async fn get_session_token(
    sts: &StsService,
    ctx: &RequestContext,
    input: GetSessionTokenRequest,
) -> Result<GetSessionTokenResponse, GetSessionTokenError> {
    let (principal, temporary) = caller(ctx);
    if temporary {
        return Err(denied("Cannot call GetSessionToken with session credentials").into());
    }
    let credentials = sts
        .issue(
            ctx,
            principal,
            Grants::default(),
            input.duration_seconds.unwrap_or(43_200),
        )
        .await?;
    Ok(GetSessionTokenResponse {
        credentials: Some(credentials),
    })
}

pub(crate) async fn get_federation_token(
    sts: &StsService,
    ctx: &RequestContext,
    input: GetFederationTokenRequest,
) -> Result<GetFederationTokenResponse, GetFederationTokenError> {
    let (caller, temporary) = caller(ctx);
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
    let grants = Grants {
        tags: session_tags(&[], input.tags.as_deref().unwrap_or_default(), &[])?,
        policy: input.policy,
        policy_arns: policy_arns(input.policy_arns),
    };
    let credentials = sts
        .issue(ctx, principal, grants, input.duration_seconds.unwrap_or(43_200))
        .await?;
    Ok(GetFederationTokenResponse {
        credentials: Some(credentials),
        federated_user: Some(user),
        // Unlike AssumeRole, GetFederationToken reports a size even with no policy (AWS's
        // recorded answers).
        packed_policy_size: packed.or(Some(0)),
    })
}

pub(crate) async fn get_access_key_info(
    _sts: &StsService,
    ctx: &RequestContext,
    input: GetAccessKeyInfoRequest,
) -> Result<GetAccessKeyInfoResponse, GetAccessKeyInfoError> {
    // A key of AWS's form names its account, whoever issued it (as AWS reads its own keys).
    let account = access_key::account_of(&input.access_key_id).unwrap_or_else(|| ctx.account_id.clone());
    Ok(GetAccessKeyInfoResponse { account: Some(account) })
}

pub(crate) async fn decode_authorization_message(
    _sts: &StsService,
    _ctx: &RequestContext,
    input: DecodeAuthorizationMessageRequest,
) -> Result<DecodeAuthorizationMessageResponse, DecodeAuthorizationMessageError> {
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
pub(crate) async fn get_web_identity_token(
    _sts: &StsService,
    _ctx: &RequestContext,
    _input: GetWebIdentityTokenRequest,
) -> Result<GetWebIdentityTokenResponse, GetWebIdentityTokenError> {
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
pub(crate) async fn get_delegated_access_token(
    _sts: &StsService,
    _ctx: &RequestContext,
    _input: GetDelegatedAccessTokenRequest,
) -> Result<GetDelegatedAccessTokenResponse, GetDelegatedAccessTokenError> {
    Err(AwsError::new(
        "NotImplemented",
        "GetDelegatedAccessToken exchanges tokens that IAM delegation requests issue, which Stratus does not serve yet",
        501,
    )
    .into())
}

/// The ARNs of managed session policies, as `PolicyArns` names them.
fn policy_arns(descriptors: Option<Vec<PolicyDescriptorType>>) -> Vec<String> {
    descriptors.into_iter().flatten().filter_map(|d| d.arn).collect()
}
