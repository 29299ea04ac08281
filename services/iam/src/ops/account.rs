//! Account-wide settings: the password policy, the account alias, and the summary of what
//! the account holds.

use std::collections::BTreeMap;

use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::records::PasswordPolicyRecord;
use crate::service::IamService;
use crate::store::{
    all, load_account, ACCOUNT, ACCOUNT_KEY, GROUPS, INSTANCE_PROFILES, POLICIES, ROLES, SERVER_CERTIFICATES, USERS,
};

/// The shortest password AWS lets a policy ask for when it names none.
const DEFAULT_MINIMUM_LENGTH: i32 = 6;

pub(crate) async fn update_account_password_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateAccountPasswordPolicyRequest,
) -> Result<Unit, IamError> {
    let policy = PasswordPolicyRecord {
        minimum_length: input.minimum_password_length.unwrap_or(DEFAULT_MINIMUM_LENGTH),
        require_symbols: input.require_symbols,
        require_numbers: input.require_numbers,
        require_uppercase: input.require_uppercase_characters,
        require_lowercase: input.require_lowercase_characters,
        allow_users_to_change: input.allow_users_to_change_password,
        max_age: input.max_password_age,
        reuse_prevention: input.password_reuse_prevention,
        hard_expiry: input.hard_expiry,
    };
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        account.password_policy = Some(policy);
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

fn no_password_policy(account: &str) -> IamError {
    IamError::NoSuchEntity(format!(
        "The Password Policy with domain name {account} cannot be found."
    ))
}

pub(crate) async fn get_account_password_policy(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GetAccountPasswordPolicyResponse, IamError> {
    let p = load_account(&iam.reader(&ctx.account_id)?)?
        .password_policy
        .ok_or_else(|| no_password_policy(&ctx.account_id))?;
    Ok(GetAccountPasswordPolicyResponse {
        password_policy: PasswordPolicy {
            minimum_password_length: Some(p.minimum_length),
            require_symbols: p.require_symbols,
            require_numbers: p.require_numbers,
            require_uppercase_characters: p.require_uppercase,
            require_lowercase_characters: p.require_lowercase,
            allow_users_to_change_password: p.allow_users_to_change,
            expire_passwords: p.max_age.is_some_and(|days| days > 0),
            max_password_age: p.max_age,
            password_reuse_prevention: p.reuse_prevention,
            hard_expiry: p.hard_expiry,
        },
    })
}

pub(crate) async fn delete_account_password_policy(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<Unit, IamError> {
    let account_id = ctx.account_id.clone();
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        if account.password_policy.take().is_none() {
            return Err(no_password_policy(&account_id));
        }
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn create_account_alias(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateAccountAliasRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        // An account has one alias; creating another replaces it, as AWS does.
        account.alias = Some(input.account_alias);
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_account_alias(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteAccountAliasRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        if account.alias.as_deref() != Some(input.account_alias.as_str()) {
            return Err(IamError::NoSuchEntity(format!(
                "The account alias {} cannot be found.",
                input.account_alias
            )));
        }
        account.alias = None;
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_account_aliases(
    iam: &IamService,
    ctx: &RequestContext,
    _input: ListAccountAliasesRequest,
) -> Result<ListAccountAliasesResponse, IamError> {
    let account = load_account(&iam.reader(&ctx.account_id)?)?;
    Ok(ListAccountAliasesResponse {
        account_aliases: account.alias.into_iter().collect(),
        is_truncated: false,
        marker: None,
    })
}

pub(crate) async fn set_security_token_service_preferences(
    iam: &IamService,
    ctx: &RequestContext,
    input: SetSecurityTokenServicePreferencesRequest,
) -> Result<Unit, IamError> {
    let version = match input.global_endpoint_token_version {
        GlobalEndpointTokenVersion::V1Token => 1,
        _ => 2,
    };
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        account.global_endpoint_token_version = Some(version);
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

/// AWS's default quotas, as `GetAccountSummary` reports them.
const QUOTAS: &[(&str, i32)] = &[
    ("UsersQuota", 5000),
    ("GroupsQuota", 300),
    ("RolesQuota", 1000),
    ("PoliciesQuota", 1500),
    ("InstanceProfilesQuota", 1000),
    ("ServerCertificatesQuota", 20),
    ("UserPolicySizeQuota", 2048),
    ("GroupPolicySizeQuota", 5120),
    ("RolePolicySizeQuota", 10240),
    ("PolicySizeQuota", 6144),
    ("AssumeRolePolicySizeQuota", 2048),
    ("GroupsPerUserQuota", 10),
    ("SigningCertificatesPerUserQuota", 2),
    ("AccessKeysPerUserQuota", 2),
    ("AttachedPoliciesPerUserQuota", 10),
    ("AttachedPoliciesPerGroupQuota", 10),
    ("AttachedPoliciesPerRoleQuota", 10),
    ("VersionsPerPolicyQuota", 5),
    ("PolicyVersionsInUseQuota", 10000),
];

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

pub(crate) async fn get_account_summary(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GetAccountSummaryResponse, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    let users = all(&store, USERS)?;
    let groups = all(&store, GROUPS)?;
    let roles = all(&store, ROLES)?;
    let policies = all(&store, POLICIES)?;
    let token_version = load_account(&store)?.global_endpoint_token_version.unwrap_or(1);
    let mut summary: BTreeMap<String, i32> = QUOTAS.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let versions: usize = policies.iter().map(|(_, p)| p.versions.len()).sum();
    summary.insert("GlobalEndpointTokenVersion".into(), token_version);
    for (name, n) in [
        ("Users", users.len()),
        ("Groups", groups.len()),
        ("Roles", roles.len()),
        ("Policies", policies.len()),
        ("PolicyVersionsInUse", versions),
        ("InstanceProfiles", all(&store, INSTANCE_PROFILES)?.len()),
        ("ServerCertificates", all(&store, SERVER_CERTIFICATES)?.len()),
        ("MFADevices", 0),
        ("MFADevicesInUse", 0),
        ("Providers", 0),
        ("AccountMFAEnabled", 0),
        // Root credentials are not IAM's to hold here.
        ("AccountAccessKeysPresent", 0),
        ("AccountPasswordPresent", 0),
        ("AccountSigningCertificatesPresent", 0),
    ] {
        summary.insert(name.into(), count(n));
    }
    Ok(GetAccountSummaryResponse {
        summary_map: Some(summary),
    })
}
