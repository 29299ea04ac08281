//! Console passwords (login profiles): whether a user has one and must reset it. Stratus
//! keeps no password: it serves no console.

use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::ops::users::caller_user;
use crate::records::{key, LoginProfileRecord, UserRecord};
use crate::service::{now, IamService};
use crate::store::{load, USERS};

fn no_such_profile(user: &str) -> IamError {
    IamError::NoSuchEntity(format!("Login Profile for User {user} cannot be found."))
}

pub(crate) async fn create_login_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateLoginProfileRequest,
) -> Result<CreateLoginProfileResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    if input.password.as_deref().unwrap_or_default().is_empty() {
        return Err(IamError::PasswordPolicyViolation(
            "Password should have at least 1 characters".into(),
        ));
    }
    let profile = LoginProfileRecord {
        created: now(ctx),
        reset_required: input.password_reset_required,
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
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &input.user_name)?;
        let name = user.name.clone();
        let profile = user.login_profile.as_mut().ok_or_else(|| no_such_profile(&name))?;
        if let Some(reset) = input.password_reset_required {
            profile.reset_required = reset;
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
