//! Roles: trust policies, session durations, descriptions, boundaries and tags.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::documents::{check, DocumentUse};
use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::page;
use crate::ops::service_linked_roles::{is_service_linked, protected};
use crate::ops::users::check_boundary;
use crate::records::{key, Permissions, RoleRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, INSTANCE_PROFILES, ROLES};
use crate::tagging::{merged, tag_page, without};

const ROLE_LISTING: Token = Token::for_listing("iam:ListRoles");
const ROLE_TAG_LISTING: Token = Token::for_listing("iam:ListRoleTags");

/// A role's session duration when none is given (the API reference's default).
const DEFAULT_SESSION: i32 = 3600;

pub(crate) async fn create_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateRoleRequest,
) -> Result<CreateRoleResponse, IamError> {
    let scope = scope(ctx);
    check(&input.assume_role_policy_document, DocumentUse::Trust, &input.role_name)?;
    let record = RoleRecord {
        name: input.role_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::Role),
        created: now(ctx),
        trust_policy: input.assume_role_policy_document,
        description: input.description,
        max_session_duration: input.max_session_duration.unwrap_or(DEFAULT_SESSION),
        boundary: input.permissions_boundary,
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        permissions: Permissions::default(),
        last_used: None,
    };
    let answer_scope = scope.clone();
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if ROLES.get(tx, key(&record.name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "Role with name {} already exists.",
                    record.name
                )));
            }
            if let Some(arn) = &record.boundary {
                check_boundary(tx, &scope, arn)?;
            }
            ROLES.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateRoleResponse {
        role: record.created(&answer_scope),
    })
}

pub(crate) async fn get_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetRoleRequest,
) -> Result<GetRoleResponse, IamError> {
    let role: RoleRecord = load(&iam.reader(&ctx.account_id)?, &input.role_name)?;
    Ok(GetRoleResponse {
        role: role.wire(&scope(ctx)),
    })
}

pub(crate) async fn list_roles(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListRolesRequest,
) -> Result<ListRolesResponse, IamError> {
    let scope = scope(ctx);
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let roles = all(&iam.reader(&scope.account)?, ROLES)?
        .into_iter()
        .filter(|(_, r)| r.path.starts_with(&prefix))
        .collect();
    let page = page(ROLE_LISTING, roles, input.marker.as_deref(), input.max_items)?;
    Ok(ListRolesResponse {
        roles: page.items.iter().map(|r| r.listed(&scope)).collect(),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

/// Applies `change` to role `name` in one transaction and returns it.
async fn update<F>(iam: &IamService, ctx: &RequestContext, name: String, change: F) -> Result<RoleRecord, IamError>
where
    F: FnOnce(&mut RoleRecord) -> Result<(), IamError> + Send + 'static,
{
    iam.write(&ctx.account_id, move |tx| {
        let mut role: RoleRecord = load(tx, &name)?;
        change(&mut role)?;
        ROLES.put(tx, key(&role.name), &role)?;
        Ok(role)
    })
    .await
}

pub(crate) async fn update_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateRoleRequest,
) -> Result<UpdateRoleResponse, IamError> {
    update(iam, ctx, input.role_name, move |role| {
        if let Some(description) = input.description {
            role.description = Some(description);
        }
        if let Some(seconds) = input.max_session_duration {
            role.max_session_duration = seconds;
        }
        Ok(())
    })
    .await?;
    Ok(UpdateRoleResponse {})
}

pub(crate) async fn update_role_description(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateRoleDescriptionRequest,
) -> Result<UpdateRoleDescriptionResponse, IamError> {
    let role = update(iam, ctx, input.role_name, move |role| {
        role.description = Some(input.description);
        Ok(())
    })
    .await?;
    Ok(UpdateRoleDescriptionResponse {
        role: Some(role.wire(&scope(ctx))),
    })
}

pub(crate) async fn update_assume_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateAssumeRolePolicyRequest,
) -> Result<Unit, IamError> {
    check(&input.policy_document, DocumentUse::Trust, &input.role_name)?;
    update(iam, ctx, input.role_name, move |role| {
        if is_service_linked(role) {
            return Err(protected(role));
        }
        role.trust_policy = input.policy_document;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn delete_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteRoleRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let role: RoleRecord = load(tx, &input.role_name)?;
        if is_service_linked(&role) {
            return Err(protected(&role));
        }
        let role_key = key(&role.name);
        if all(tx, INSTANCE_PROFILES)?
            .iter()
            .any(|(_, p)| p.roles.contains(&role_key))
        {
            return Err(IamError::must("remove roles from instance profile"));
        }
        if !role.permissions.attached.is_empty() {
            return Err(IamError::must("detach all policies"));
        }
        if !role.permissions.inline.is_empty() {
            return Err(IamError::must("delete policies"));
        }
        ROLES.delete(tx, role_key);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_role(iam: &IamService, ctx: &RequestContext, input: TagRoleRequest) -> Result<Unit, IamError> {
    update(iam, ctx, input.role_name, move |role| {
        role.tags = merged(&role.tags, input.tags)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn untag_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagRoleRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.role_name, move |role| {
        role.tags = without(&role.tags, &input.tag_keys);
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_role_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListRoleTagsRequest,
) -> Result<ListRoleTagsResponse, IamError> {
    let role: RoleRecord = load(&iam.reader(&ctx.account_id)?, &input.role_name)?;
    let page = tag_page(ROLE_TAG_LISTING, &role.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListRoleTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn put_role_permissions_boundary(
    iam: &IamService,
    ctx: &RequestContext,
    input: PutRolePermissionsBoundaryRequest,
) -> Result<Unit, IamError> {
    let scope = scope(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut role: RoleRecord = load(tx, &input.role_name)?;
        check_boundary(tx, &scope, &input.permissions_boundary)?;
        role.boundary = Some(input.permissions_boundary);
        ROLES.put(tx, key(&role.name), &role)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_role_permissions_boundary(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteRolePermissionsBoundaryRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.role_name, |role| {
        role.boundary = None;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}
