//! Users: create, read, list, rename, delete, tags and permissions boundaries.

use stratus_core::paging::Token;
use stratus_core::{Principal, PrincipalKind, RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::page;
use crate::managed::resolve;
use crate::records::{key, Permissions, Scope, UserRecord};
use crate::service::{now, scope, IamService};
use crate::store::{
    all, load, ACCESS_KEYS, GROUPS, MFA_DEVICES, SERVICE_CREDENTIALS, SIGNING_CERTIFICATES, SSH_KEYS, USERS,
};
use crate::tagging::{merged, tag_page, without};

const USER_LISTING: Token = Token::for_listing("iam:ListUsers");
const USER_TAG_LISTING: Token = Token::for_listing("iam:ListUserTags");

/// Checks that a permissions boundary names a managed policy that exists.
pub(crate) fn check_boundary(
    r: &(impl stratus_storage::Read + ?Sized),
    scope: &Scope,
    arn: &str,
) -> Result<(), IamError> {
    match resolve(r, scope, arn)? {
        Some(_) => Ok(()),
        None => Err(IamError::NoSuchEntity(format!(
            "Scope ARN: {arn} does not exist or is not attachable."
        ))),
    }
}

pub(crate) async fn create_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateUserRequest,
) -> Result<CreateUserResponse, IamError> {
    let scope = scope(ctx);
    let record = UserRecord {
        name: input.user_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::User),
        created: now(ctx),
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        boundary: input.permissions_boundary,
        permissions: Permissions::default(),
        groups: Vec::new(),
        login_profile: None,
    };
    let answer_scope = scope.clone();
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if USERS.get(tx, key(&record.name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "User with name {} already exists.",
                    record.name
                )));
            }
            if let Some(arn) = &record.boundary {
                check_boundary(tx, &scope, arn)?;
            }
            USERS.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateUserResponse {
        user: Some(record.wire(&answer_scope)),
    })
}

/// The user a request names, or the IAM user whose access key signed it.
pub(crate) fn caller_user(
    iam: &IamService,
    ctx: &RequestContext,
    name: Option<String>,
) -> Result<UserRecord, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    if let Some(name) = name {
        return load(&store, &name);
    }
    match &ctx.principal {
        Some(Principal {
            kind: PrincipalKind::User,
            arn,
            ..
        }) => load(&store, arn.rsplit('/').next().unwrap_or_default()),
        // AWS's answer to a caller that is not an IAM user (a role session, the root here).
        _ => Err(IamError::Validation(
            "Must specify userName when calling with non-User credentials".into(),
        )),
    }
}

pub(crate) async fn get_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetUserRequest,
) -> Result<GetUserResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    Ok(GetUserResponse {
        user: user.wire(&scope(ctx)),
    })
}

pub(crate) async fn list_users(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListUsersRequest,
) -> Result<ListUsersResponse, IamError> {
    let scope = scope(ctx);
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let users = all(&iam.reader(&scope.account)?, USERS)?
        .into_iter()
        .filter(|(_, u)| u.path.starts_with(&prefix))
        .collect();
    let page = page(USER_LISTING, users, input.marker.as_deref(), input.max_items)?;
    Ok(ListUsersResponse {
        users: page.items.iter().map(|u| u.listed(&scope)).collect(),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn update_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateUserRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &input.user_name)?;
        let old_key = key(&user.name);
        if let Some(path) = input.new_path {
            user.path = path;
        }
        if let Some(new_name) = input.new_user_name {
            let new_key = key(&new_name);
            if new_key != old_key && USERS.get(tx, &new_key)?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "User with name {new_name} already exists."
                )));
            }
            for (id, mut access_key) in all(tx, ACCESS_KEYS)? {
                if access_key.user == old_key {
                    access_key.user = new_key.clone();
                    ACCESS_KEYS.put(tx, id, &access_key)?;
                }
            }
            for (id, mut ssh_key) in all(tx, SSH_KEYS)? {
                if ssh_key.user == old_key {
                    ssh_key.user = new_key.clone();
                    SSH_KEYS.put(tx, id, &ssh_key)?;
                }
            }
            for (id, mut certificate) in all(tx, SIGNING_CERTIFICATES)? {
                if certificate.user == old_key {
                    certificate.user = new_key.clone();
                    SIGNING_CERTIFICATES.put(tx, id, &certificate)?;
                }
            }
            for (id, mut credential) in all(tx, SERVICE_CREDENTIALS)? {
                if credential.user == old_key {
                    credential.user = new_key.clone();
                    SERVICE_CREDENTIALS.put(tx, id, &credential)?;
                }
            }
            user.name = new_name;
            USERS.delete(tx, old_key);
        }
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteUserRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &input.user_name)?;
        let user_key = key(&user.name);
        // The DeleteUser reference lists what must go first; the messages are AWS's.
        if user.login_profile.is_some() {
            return Err(IamError::must("delete login profile"));
        }
        if all(tx, ACCESS_KEYS)?.iter().any(|(_, k)| k.user == user_key) {
            return Err(IamError::must("delete access keys"));
        }
        // https://github.com/rebuy-de/aws-nuke/issues/281 — AWS's words.
        // The DeleteUser reference lists signing certificates; the wording is not verified.
        if all(tx, SIGNING_CERTIFICATES)?.iter().any(|(_, c)| c.user == user_key) {
            return Err(IamError::must("delete signing certificates"));
        }
        if all(tx, MFA_DEVICES)?
            .iter()
            .any(|(_, d)| d.assigned.as_ref().is_some_and(|(u, _)| *u == user_key))
        {
            return Err(IamError::must("delete MFA device"));
        }
        if !user.permissions.attached.is_empty() {
            return Err(IamError::must("detach all policies"));
        }
        if !user.permissions.inline.is_empty() {
            return Err(IamError::must("delete policies"));
        }
        if !user.groups.is_empty() {
            return Err(IamError::must("remove users from group"));
        }
        // Recorded from AWS for a user with a service-specific credential; the same for SSH
        // keys (https://github.com/rebuy-de/aws-nuke/issues/470).
        if all(tx, SERVICE_CREDENTIALS)?.iter().any(|(_, c)| c.user == user_key)
            || all(tx, SSH_KEYS)?.iter().any(|(_, k)| k.user == user_key)
        {
            return Err(IamError::must("remove referenced objects"));
        }
        USERS.delete(tx, user_key);
        Ok(Unit {})
    })
    .await
}

/// Applies `change` to user `name` in one transaction.
async fn update<F>(iam: &IamService, ctx: &RequestContext, name: String, change: F) -> Result<Unit, IamError>
where
    F: FnOnce(&mut UserRecord) -> Result<(), IamError> + Send + 'static,
{
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &name)?;
        change(&mut user)?;
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_user(iam: &IamService, ctx: &RequestContext, input: TagUserRequest) -> Result<Unit, IamError> {
    update(iam, ctx, input.user_name, move |user| {
        user.tags = merged(&user.tags, input.tags)?;
        Ok(())
    })
    .await
}

pub(crate) async fn untag_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagUserRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.user_name, move |user| {
        user.tags = without(&user.tags, &input.tag_keys);
        Ok(())
    })
    .await
}

pub(crate) async fn list_user_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListUserTagsRequest,
) -> Result<ListUserTagsResponse, IamError> {
    let user: UserRecord = load(&iam.reader(&ctx.account_id)?, &input.user_name)?;
    let page = tag_page(USER_TAG_LISTING, &user.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListUserTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn put_user_permissions_boundary(
    iam: &IamService,
    ctx: &RequestContext,
    input: PutUserPermissionsBoundaryRequest,
) -> Result<Unit, IamError> {
    let scope = scope(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut user: UserRecord = load(tx, &input.user_name)?;
        check_boundary(tx, &scope, &input.permissions_boundary)?;
        user.boundary = Some(input.permissions_boundary);
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_user_permissions_boundary(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteUserPermissionsBoundaryRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.user_name, |user| {
        user.boundary = None;
        Ok(())
    })
    .await
}

/// The groups user `name` belongs to.
pub(crate) async fn list_groups_for_user(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListGroupsForUserRequest,
) -> Result<ListGroupsForUserResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListGroupsForUser");
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let user: UserRecord = load(&store, &input.user_name)?;
    let mut groups = Vec::new();
    for group_key in &user.groups {
        if let Some(group) = GROUPS.get(&store, group_key)? {
            groups.push((group_key.clone(), group));
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let page = page(LISTING, groups, input.marker.as_deref(), input.max_items)?;
    Ok(ListGroupsForUserResponse {
        groups: page.items.iter().map(|g| g.wire(&scope)).collect(),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
