//! Console passwords (login profiles): whether a user has one and must reset it. Passwords
//! are checked against the account's password policy, if it has one, and kept only as a
//! salted SHA-256, for `ChangePassword` to check the old one against: Stratus serves no
//! console.

use sha2::{Digest, Sha256};
use stratus_core::{Principal, PrincipalKind, RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::ids::secret;
use crate::ops::users::caller_user;
use crate::records::{key, LoginProfileRecord, PasswordPolicyRecord, UserRecord};
use crate::service::{now, IamService};
use crate::store::{load, load_account, USERS};

fn no_such_profile(user: &str) -> IamError {
    IamError::NoSuchEntity(format!("Login Profile for User {user} cannot be found."))
}

/// A rule of a password policy: whether it applies, what a password needs a character of, and
/// how AWS's message names that.
type Rule = (bool, fn(char) -> bool, &'static str);

/// The first rule of the account's password policy `password` breaks, in AWS's words.
fn policy_violation(policy: &PasswordPolicyRecord, password: &str) -> Option<String> {
    let length = i32::try_from(password.chars().count()).unwrap_or(i32::MAX);
    if length < policy.minimum_length {
        return Some(format!(
            "Password should have a minimum length of {}",
            policy.minimum_length
        ));
    }
    let rules: [Rule; 4] = [
        (
            policy.require_uppercase,
            |c| c.is_ascii_uppercase(),
            "one uppercase letter",
        ),
        (
            policy.require_lowercase,
            |c| c.is_ascii_lowercase(),
            "one lowercase letter",
        ),
        (policy.require_numbers, |c| c.is_ascii_digit(), "one number"),
        (policy.require_symbols, |c| c.is_ascii_punctuation(), "one symbol"),
    ];
    rules
        .iter()
        .find(|(required, has, _)| *required && !password.chars().any(has))
        .map(|(_, _, what)| format!("Password should have at least {what}"))
}

fn digest(salt: &str, password: &str) -> String {
    let hash = Sha256::new().chain_update(salt).chain_update(password).finalize();
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// What is kept of `password`: a fresh salt and the salted hash.
fn hashed(password: &str) -> (String, String) {
    let salt = secret(16);
    let hash = digest(&salt, password);
    (salt, hash)
}

fn is_password(kept: &Option<(String, String)>, password: &str) -> bool {
    kept.as_ref()
        .is_some_and(|(salt, hash)| digest(salt, password) == *hash)
}

/// Refuses a password the account's policy does not allow.
fn check_password(iam: &IamService, ctx: &RequestContext, password: &str) -> Result<(), IamError> {
    if password.is_empty() {
        return Err(IamError::PasswordPolicyViolation(
            "Password should have at least 1 characters".into(),
        ));
    }
    match load_account(&iam.reader(&ctx.account_id)?)?.password_policy {
        Some(policy) => match policy_violation(&policy, password) {
            Some(message) => Err(IamError::PasswordPolicyViolation(message)),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

pub(crate) async fn create_login_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateLoginProfileRequest,
) -> Result<CreateLoginProfileResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    let password = input.password.as_deref().unwrap_or_default();
    check_password(iam, ctx, password)?;
    let profile = LoginProfileRecord {
        created: now(ctx),
        reset_required: input.password_reset_required,
        password: Some(hashed(password)),
        password_changed: None,
    };
    let user = iam
        .write(&ctx.account_id, move |tx| {
            let mut user: UserRecord = load(tx, &user.name)?;
            if user.login_profile.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "Login Profile for user {} already exists.",
                    user.name
                )));
            }
            user.login_profile = Some(profile);
            USERS.put(tx, key(&user.name), &user)?;
            Ok(user)
        })
        .await?;
    Ok(CreateLoginProfileResponse {
        login_profile: user.wire_login_profile().expect("just set"),
    })
}

pub(crate) async fn get_login_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetLoginProfileRequest,
) -> Result<GetLoginProfileResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    Ok(GetLoginProfileResponse {
        login_profile: user.wire_login_profile().ok_or_else(|| no_such_profile(&user.name))?,
    })
}

pub(crate) async fn update_login_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateLoginProfileRequest,
) -> Result<Unit, IamError> {
    if let Some(password) = &input.password {
        check_password(iam, ctx, password)?;
    }
    let new_password = input.password.as_deref().map(hashed);
    let at = now(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &input.user_name)?;
        let name = user.name.clone();
        let profile = user.login_profile.as_mut().ok_or_else(|| no_such_profile(&name))?;
        if let Some(reset) = input.password_reset_required {
            profile.reset_required = reset;
        }
        if new_password.is_some() {
            profile.password = new_password;
            profile.password_changed = Some(at);
        }
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_login_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteLoginProfileRequest,
) -> Result<Unit, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &user.name)?;
        if user.login_profile.take().is_none() {
            return Err(no_such_profile(&user.name));
        }
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

/// The calling IAM user changes its own password: the old one must be its login profile's,
/// the new one must keep the account's password policy, and a reset it was asked for is then
/// done.
pub(crate) async fn change_password(
    iam: &IamService,
    ctx: &RequestContext,
    input: ChangePasswordRequest,
) -> Result<Unit, IamError> {
    let name = match &ctx.principal {
        Some(Principal {
            kind: PrincipalKind::User,
            arn,
            ..
        }) => arn.rsplit('/').next().unwrap_or_default().to_owned(),
        // "This command can be called by IAM users only" (the CLI's change-password example);
        // the wording is not verified against AWS.
        _ => {
            return Err(IamError::InvalidUserType(
                "Only IAM users can change their own password.".into(),
            ))
        }
    };
    check_password(iam, ctx, &input.new_password)?;
    let new_password = hashed(&input.new_password);
    let at = now(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &name)?;
        let user_name = user.name.clone();
        let profile = user.login_profile.as_mut().ok_or_else(|| no_such_profile(&user_name))?;
        if !is_password(&profile.password, &input.old_password) {
            // Wording not verified against AWS.
            return Err(IamError::AccessDenied("The old password is incorrect.".into()));
        }
        profile.password = Some(new_password);
        profile.password_changed = Some(at);
        profile.reset_required = false;
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_password_matches_itself_only() {
        let kept = Some(hashed("Secret-1"));
        assert!(is_password(&kept, "Secret-1"));
        assert!(!is_password(&kept, "secret-1"));
        assert!(!is_password(&None, "Secret-1"));
        assert_ne!(hashed("Secret-1"), hashed("Secret-1"), "salted");
    }

    #[test]
    fn passwords_break_the_first_rule_they_miss() {
        let policy = PasswordPolicyRecord {
            minimum_length: 8,
            require_symbols: true,
            require_numbers: true,
            require_uppercase: true,
            require_lowercase: true,
            allow_users_to_change: true,
            max_age: None,
            reuse_prevention: None,
            hard_expiry: None,
        };
        for (password, refusal) in [
            ("Ab1!", Some("Password should have a minimum length of 8")),
            ("abcdefg1!", Some("Password should have at least one uppercase letter")),
            ("ABCDEFG1!", Some("Password should have at least one lowercase letter")),
            ("Abcdefgh!", Some("Password should have at least one number")),
            ("Abcdefgh1", Some("Password should have at least one symbol")),
            ("Abcdefg1!", None),
        ] {
            assert_eq!(policy_violation(&policy, password).as_deref(), refusal, "{password}");
        }
    }
}
