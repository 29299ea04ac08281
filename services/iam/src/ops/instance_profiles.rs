//! Instance profiles and the one role each may hold.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::{page, Page};
use crate::records::{key, InstanceProfileRecord, RoleRecord, Scope};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, load_instance_profile, INSTANCE_PROFILES, ROLES};
use crate::tagging::{merged, tag_page, without};

/// Roles an instance profile may hold (IAM's quota, which cannot be raised).
const ROLES_PER_PROFILE: usize = 1;

/// The profile as the wire shows it, with its roles.
pub(crate) fn wire(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    profile: &InstanceProfileRecord,
) -> Result<InstanceProfile, IamError> {
    let mut roles = Vec::new();
    for role_key in &profile.roles {
        if let Some(role) = ROLES.get(r, role_key)? {
            roles.push(role.listed(scope));
        }
    }
    Ok(profile.wire(scope, roles))
}

/// A page of `profiles` as the wire shows them.
fn wire_page(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    listing: Token,
    profiles: Vec<(String, InstanceProfileRecord)>,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<Page<InstanceProfile>, IamError> {
    let page = page(listing, profiles, marker, max_items)?;
    Ok(Page {
        items: page.items.iter().map(|p| wire(r, scope, p)).collect::<Result<_, _>>()?,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn create_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateInstanceProfileRequest,
) -> Result<CreateInstanceProfileResponse, IamError> {
    let record = InstanceProfileRecord {
        name: input.instance_profile_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::InstanceProfile),
        created: now(ctx),
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        roles: Vec::new(),
    };
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if INSTANCE_PROFILES.get(tx, key(&record.name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "Instance Profile {} already exists.",
                    record.name
                )));
            }
            INSTANCE_PROFILES.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateInstanceProfileResponse {
        instance_profile: record.wire(&scope(ctx), Vec::new()),
    })
}

pub(crate) async fn get_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetInstanceProfileRequest,
) -> Result<GetInstanceProfileResponse, IamError> {
    let store = iam.reader(&ctx.account_id)?;
    let profile = load_instance_profile(&store, &input.instance_profile_name)?;
    Ok(GetInstanceProfileResponse {
        instance_profile: wire(&store, &scope(ctx), &profile)?,
    })
}

pub(crate) async fn delete_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteInstanceProfileRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let profile = load_instance_profile(tx, &input.instance_profile_name)?;
        if !profile.roles.is_empty() {
            return Err(IamError::must("remove roles from instance profile"));
        }
        INSTANCE_PROFILES.delete(tx, key(&profile.name));
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn add_role_to_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: AddRoleToInstanceProfileRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut profile = load_instance_profile(tx, &input.instance_profile_name)?;
        let role: RoleRecord = load(tx, &input.role_name)?;
        let role_key = key(&role.name);
        if profile.roles.contains(&role_key) {
            return Err(IamError::EntityAlreadyExists(format!(
                "Role {} is already associated with instance profile {}.",
                role.name, profile.name
            )));
        }
        if profile.roles.len() >= ROLES_PER_PROFILE {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for InstanceSessionsPerInstanceProfile: {ROLES_PER_PROFILE}"
            )));
        }
        profile.roles.push(role_key);
        INSTANCE_PROFILES.put(tx, key(&profile.name), &profile)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn remove_role_from_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: RemoveRoleFromInstanceProfileRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut profile = load_instance_profile(tx, &input.instance_profile_name)?;
        let role: RoleRecord = load(tx, &input.role_name)?;
        let role_key = key(&role.name);
        if !profile.roles.contains(&role_key) {
            return Err(IamError::NoSuchEntity(format!(
                "The role with name {} cannot be found.",
                input.role_name
            )));
        }
        profile.roles.retain(|r| *r != role_key);
        INSTANCE_PROFILES.put(tx, key(&profile.name), &profile)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_instance_profiles(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListInstanceProfilesRequest,
) -> Result<ListInstanceProfilesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListInstanceProfiles");
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let profiles = all(&store, INSTANCE_PROFILES)?
        .into_iter()
        .filter(|(_, p)| p.path.starts_with(&prefix))
        .collect();
    let page = wire_page(
        &store,
        &scope,
        LISTING,
        profiles,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListInstanceProfilesResponse {
        instance_profiles: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_instance_profiles_for_role(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListInstanceProfilesForRoleRequest,
) -> Result<ListInstanceProfilesForRoleResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListInstanceProfilesForRole");
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let role: RoleRecord = load(&store, &input.role_name)?;
    let role_key = key(&role.name);
    let profiles = all(&store, INSTANCE_PROFILES)?
        .into_iter()
        .filter(|(_, p)| p.roles.contains(&role_key))
        .collect();
    let page = wire_page(
        &store,
        &scope,
        LISTING,
        profiles,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListInstanceProfilesForRoleResponse {
        instance_profiles: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

/// Applies `change` to profile `name`'s tags in one transaction.
async fn retag<F>(iam: &IamService, ctx: &RequestContext, name: String, change: F) -> Result<Unit, IamError>
where
    F: FnOnce(&mut InstanceProfileRecord) -> Result<(), IamError> + Send + 'static,
{
    iam.write(&ctx.account_id, move |tx| {
        let mut profile = load_instance_profile(tx, &name)?;
        change(&mut profile)?;
        INSTANCE_PROFILES.put(tx, key(&profile.name), &profile)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagInstanceProfileRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.instance_profile_name, move |p| {
        p.tags = merged(&p.tags, input.tags)?;
        Ok(())
    })
    .await
}

pub(crate) async fn untag_instance_profile(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagInstanceProfileRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.instance_profile_name, move |p| {
        p.tags = without(&p.tags, &input.tag_keys);
        Ok(())
    })
    .await
}

pub(crate) async fn list_instance_profile_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListInstanceProfileTagsRequest,
) -> Result<ListInstanceProfileTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListInstanceProfileTags");
    let profile = load_instance_profile(&iam.reader(&ctx.account_id)?, &input.instance_profile_name)?;
    let page = tag_page(LISTING, &profile.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListInstanceProfileTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
