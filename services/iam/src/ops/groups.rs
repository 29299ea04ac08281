//! Groups and their members.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::page;
use crate::records::{key, GroupRecord, Permissions, UserRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, GROUPS, USERS};

const GROUP_LISTING: Token = Token::for_listing("iam:ListGroups");
const MEMBER_LISTING: Token = Token::for_listing("iam:GetGroup");

/// IAM's quota of groups per user.
const GROUPS_PER_USER: usize = 10;

pub(crate) async fn create_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateGroupRequest,
) -> Result<CreateGroupResponse, IamError> {
    let record = GroupRecord {
        name: input.group_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::Group),
        created: now(ctx),
        permissions: Permissions::default(),
    };
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if GROUPS.get(tx, key(&record.name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "Group with name {} already exists.",
                    record.name
                )));
            }
            GROUPS.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateGroupResponse {
        group: record.wire(&scope(ctx)),
    })
}

/// The members of the group with key `group_key`, by user key.
fn members(r: &(impl stratus_storage::Read + ?Sized), group_key: &str) -> Result<Vec<(String, UserRecord)>, IamError> {
    Ok(all(r, USERS)?
        .into_iter()
        .filter(|(_, u)| u.groups.iter().any(|g| g == group_key))
        .collect())
}

pub(crate) async fn get_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetGroupRequest,
) -> Result<GetGroupResponse, IamError> {
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let group: GroupRecord = load(&store, &input.group_name)?;
    let page = page(
        MEMBER_LISTING,
        members(&store, &key(&group.name))?,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(GetGroupResponse {
        group: group.wire(&scope),
        users: page.items.iter().map(|u| u.listed(&scope)).collect(),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_groups(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListGroupsRequest,
) -> Result<ListGroupsResponse, IamError> {
    let scope = scope(ctx);
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let groups = all(&iam.reader(&scope.account)?, GROUPS)?
        .into_iter()
        .filter(|(_, g)| g.path.starts_with(&prefix))
        .collect();
    let page = page(GROUP_LISTING, groups, input.marker.as_deref(), input.max_items)?;
    Ok(ListGroupsResponse {
        groups: page.items.iter().map(|g| g.wire(&scope)).collect(),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn update_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateGroupRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut group: GroupRecord = load(tx, &input.group_name)?;
        let old_key = key(&group.name);
        if let Some(path) = input.new_path {
            group.path = path;
        }
        if let Some(new_name) = input.new_group_name {
            let new_key = key(&new_name);
            if new_key != old_key {
                if GROUPS.get(tx, &new_key)?.is_some() {
                    return Err(IamError::EntityAlreadyExists(format!(
                        "Group with name {new_name} already exists."
                    )));
                }
                for (user_key, mut user) in members(tx, &old_key)? {
                    for g in user.groups.iter_mut().filter(|g| **g == old_key) {
                        g.clone_from(&new_key);
                    }
                    USERS.put(tx, user_key, &user)?;
                }
                GROUPS.delete(tx, old_key);
            }
            group.name = new_name;
        }
        GROUPS.put(tx, key(&group.name), &group)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteGroupRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let group: GroupRecord = load(tx, &input.group_name)?;
        let group_key = key(&group.name);
        if !members(tx, &group_key)?.is_empty() {
            return Err(IamError::must("remove users from group"));
        }
        if !group.permissions.attached.is_empty() {
            return Err(IamError::must("detach all policies"));
        }
        if !group.permissions.inline.is_empty() {
            return Err(IamError::must("delete policies"));
        }
        GROUPS.delete(tx, group_key);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn add_user_to_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: AddUserToGroupRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let group: GroupRecord = load(tx, &input.group_name)?;
        let mut user: UserRecord = load(tx, &input.user_name)?;
        let group_key = key(&group.name);
        if !user.groups.contains(&group_key) {
            if user.groups.len() >= GROUPS_PER_USER {
                return Err(IamError::LimitExceeded(format!(
                    "Cannot exceed quota for GroupsPerUser: {GROUPS_PER_USER}"
                )));
            }
            user.groups.push(group_key);
            USERS.put(tx, key(&user.name), &user)?;
        }
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn remove_user_from_group(
    iam: &IamService,
    ctx: &RequestContext,
    input: RemoveUserFromGroupRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let group: GroupRecord = load(tx, &input.group_name)?;
        let mut user: UserRecord = load(tx, &input.user_name)?;
        let group_key = key(&group.name);
        if !user.groups.contains(&group_key) {
            return Err(IamError::NoSuchEntity(format!(
                "User {} is not in group {}.",
                user.name, group.name
            )));
        }
        user.groups.retain(|g| *g != group_key);
        USERS.put(tx, key(&user.name), &user)?;
        Ok(Unit {})
    })
    .await
}
