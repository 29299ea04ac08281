//! `GetAccountAuthorizationDetails`: every user, group, role and managed policy of the
//! account with their policies, in one paged listing (users, then groups, roles, policies).

use stratus_core::paging::Token;
use stratus_core::RequestContext;
use stratus_gen_iam::*;

use crate::aws_policies::AWS_POLICIES;
use crate::documents::url_encode;
use crate::error::IamError;
use crate::listing::page;
use crate::managed::attachment_counts;
use crate::ops::attached::wire_attached;
use crate::ops::instance_profiles::wire as wire_profile;
use crate::records::{date, Permissions};
use crate::service::{scope, IamService};
use crate::store::{all, GROUPS, INSTANCE_PROFILES, POLICIES, ROLES, USERS};

/// One entry of the listing.
enum Detail {
    User(Box<UserDetail>),
    Group(GroupDetail),
    Role(Box<RoleDetail>),
    Policy(ManagedPolicyDetail),
}

/// Inline policies as the listing shows them: URL-encoded documents.
fn inline(permissions: &Permissions) -> Vec<PolicyDetail> {
    permissions
        .inline
        .iter()
        .map(|(name, document)| PolicyDetail {
            policy_name: Some(name.clone()),
            policy_document: Some(url_encode(document)),
        })
        .collect()
}

pub(crate) async fn get_account_authorization_details(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetAccountAuthorizationDetailsRequest,
) -> Result<GetAccountAuthorizationDetailsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:GetAccountAuthorizationDetails");
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let filter = input.filter.unwrap_or_default();
    let wanted = |kind: EntityType| filter.is_empty() || filter.contains(&kind);
    let groups = all(&store, GROUPS)?;
    let mut details = Vec::new();
    if wanted(EntityType::User) {
        for (key, user) in all(&store, USERS)? {
            let wire = user.wire(&scope);
            let group_list = user
                .groups
                .iter()
                .filter_map(|g| groups.iter().find(|(k, _)| k == g).map(|(_, group)| group.name.clone()))
                .collect();
            details.push((
                format!("1/{key}"),
                Detail::User(Box::new(UserDetail {
                    path: Some(wire.path),
                    user_name: Some(wire.user_name),
                    user_id: Some(wire.user_id),
                    arn: Some(wire.arn),
                    create_date: Some(wire.create_date),
                    user_policy_list: Some(inline(&user.permissions)),
                    group_list: Some(group_list),
                    attached_managed_policies: Some(wire_attached(&user.permissions.attached).collect()),
                    permissions_boundary: wire.permissions_boundary,
                    tags: wire.tags,
                })),
            ));
        }
    }
    if wanted(EntityType::Group) {
        for (key, group) in &groups {
            let wire = group.wire(&scope);
            details.push((
                format!("2/{key}"),
                Detail::Group(GroupDetail {
                    path: Some(wire.path),
                    group_name: Some(wire.group_name),
                    group_id: Some(wire.group_id),
                    arn: Some(wire.arn),
                    create_date: Some(wire.create_date),
                    group_policy_list: Some(inline(&group.permissions)),
                    attached_managed_policies: Some(wire_attached(&group.permissions.attached).collect()),
                }),
            ));
        }
    }
    if wanted(EntityType::Role) {
        let profiles = all(&store, INSTANCE_PROFILES)?;
        for (key, role) in all(&store, ROLES)? {
            let wire = role.wire(&scope);
            let instance_profiles = profiles
                .iter()
                .filter(|(_, p)| p.roles.contains(&key))
                .map(|(_, p)| wire_profile(&store, &scope, p))
                .collect::<Result<_, _>>()?;
            details.push((
                format!("3/{key}"),
                Detail::Role(Box::new(RoleDetail {
                    path: Some(wire.path),
                    role_name: Some(wire.role_name),
                    role_id: Some(wire.role_id),
                    arn: Some(wire.arn),
                    create_date: Some(wire.create_date),
                    assume_role_policy_document: wire.assume_role_policy_document,
                    instance_profile_list: Some(instance_profiles),
                    role_policy_list: Some(inline(&role.permissions)),
                    attached_managed_policies: Some(wire_attached(&role.permissions.attached).collect()),
                    permissions_boundary: wire.permissions_boundary,
                    tags: wire.tags,
                    role_last_used: wire.role_last_used,
                })),
            ));
        }
    }
    let counts = attachment_counts(&store)?;
    if wanted(EntityType::LocalManagedPolicy) {
        for (key, record) in all(&store, POLICIES)? {
            let count = counts.get(&record.arn(&scope)).copied().unwrap_or(0);
            let policy = record.wire(&scope, count);
            let versions = record
                .versions
                .iter()
                .map(|v| PolicyVersion {
                    document: Some(url_encode(&v.document)),
                    version_id: Some(format!("v{}", v.number)),
                    is_default_version: v.number == record.default_version,
                    create_date: Some(date(v.created)),
                })
                .collect();
            details.push((format!("4/{key}"), Detail::Policy(managed_detail(policy, versions))));
        }
    }
    if wanted(EntityType::AwsManagedPolicy) {
        // AWS lists the AWS managed policies the account uses, not all it publishes.
        for policy in AWS_POLICIES {
            let Some(count) = counts.get(&policy.arn(&scope.region)).copied() else {
                continue;
            };
            let version = policy.version(policy.default_version).into_iter().collect();
            details.push((
                format!("5/{}", policy.name),
                Detail::Policy(managed_detail(policy.wire(&scope.region, count), version)),
            ));
        }
    }
    let page = page(LISTING, details, input.marker.as_deref(), input.max_items)?;
    let (mut users, mut groups, mut roles, mut policies) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for detail in page.items {
        match detail {
            Detail::User(u) => users.push(*u),
            Detail::Group(g) => groups.push(g),
            Detail::Role(r) => roles.push(*r),
            Detail::Policy(p) => policies.push(p),
        }
    }
    Ok(GetAccountAuthorizationDetailsResponse {
        user_detail_list: Some(users),
        group_detail_list: Some(groups),
        role_detail_list: Some(roles),
        policies: Some(policies),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

fn managed_detail(policy: Policy, versions: Vec<PolicyVersion>) -> ManagedPolicyDetail {
    ManagedPolicyDetail {
        policy_name: policy.policy_name,
        policy_id: policy.policy_id,
        arn: policy.arn,
        path: policy.path,
        default_version_id: policy.default_version_id,
        attachment_count: policy.attachment_count,
        permissions_boundary_usage_count: policy.permissions_boundary_usage_count,
        is_attachable: policy.is_attachable,
        description: policy.description,
        create_date: policy.create_date,
        update_date: policy.update_date,
        policy_version_list: Some(versions),
    }
}
