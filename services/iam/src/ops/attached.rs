//! Managed policies attached to users, groups and roles: attach, detach, list.

use stratus_core::arn::Arn;
use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::listing::{in_order, page, Page};
use crate::managed::{not_attachable, not_found, resolve};
use crate::records::{key, GroupRecord, RoleRecord, UserRecord};
use crate::service::{scope, IamService};
use crate::store::{load, Holder};

/// IAM's default quota of managed policies per user, group or role.
const ATTACHED_MAX: usize = 10;

/// AWS's refusal of a policy ARN it cannot read (recorded: the message names nothing).
pub(crate) fn check_arn(arn: &str) -> Result<(), IamError> {
    Arn::parse(arn)
        .map(drop)
        .map_err(|_| IamError::Validation("Invalid ARN:  Could not be parsed!".into()))
}

/// The quota's name in AWS's message: `PoliciesPerUser`, `PoliciesPerGroup`, `PoliciesPerRole`.
fn quota<H: Holder>() -> String {
    let kind = H::KIND;
    format!("PoliciesPer{}{}", kind[..1].to_uppercase(), &kind[1..])
}

async fn attach<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    holder: String,
    arn: String,
) -> Result<Unit, IamError> {
    check_arn(&arn)?;
    let scope = scope(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut record: H = load(tx, &holder)?;
        if resolve(tx, &scope, &arn)?.is_none() {
            return Err(not_attachable(&arn));
        }
        let attached = &mut record.permissions_mut().attached;
        if attached.contains(&arn) {
            return Ok(Unit {});
        }
        if attached.len() >= ATTACHED_MAX {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for {}: {ATTACHED_MAX}",
                quota::<H>()
            )));
        }
        attached.push(arn);
        H::TABLE.put(tx, key(record.name()), &record)?;
        Ok(Unit {})
    })
    .await
}

async fn detach<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    holder: String,
    arn: String,
) -> Result<Unit, IamError> {
    check_arn(&arn)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut record: H = load(tx, &holder)?;
        let attached = &mut record.permissions_mut().attached;
        let Some(at) = attached.iter().position(|a| *a == arn) else {
            return Err(not_found(&arn));
        };
        attached.remove(at);
        H::TABLE.put(tx, key(record.name()), &record)?;
        Ok(Unit {})
    })
    .await
}

/// The name and path an attached policy's ARN carries (`policy/PATH/NAME`).
fn name_and_path(arn: &str) -> (String, String) {
    let resource = arn.split_once(":policy").map_or("", |(_, r)| r);
    match resource.rsplit_once('/') {
        Some((path, name)) => (name.to_owned(), format!("{path}/")),
        None => (resource.to_owned(), "/".to_owned()),
    }
}

/// `attached` (policy ARNs) as the wire lists them.
pub(crate) fn wire_attached(attached: &[String]) -> impl Iterator<Item = AttachedPolicy> + '_ {
    attached.iter().map(|arn| AttachedPolicy {
        policy_name: Some(name_and_path(arn).0),
        policy_arn: Some(arn.clone()),
    })
}

fn list<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    listing: Token,
    holder: &str,
    path_prefix: Option<&str>,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<Page<AttachedPolicy>, IamError> {
    let record: H = load(&iam.reader(&ctx.account_id)?, holder)?;
    let prefix = path_prefix.unwrap_or("/");
    let policies = wire_attached(&record.permissions().attached).filter(|p| {
        let arn = p.policy_arn.as_deref().unwrap_or_default();
        name_and_path(arn).1.starts_with(prefix)
    });
    page(listing, in_order(policies), marker, max_items)
}

pub(crate) async fn attach_user_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: AttachUserPolicyRequest,
) -> Result<Unit, IamError> {
    attach::<UserRecord>(iam, ctx, input.user_name, input.policy_arn).await
}

pub(crate) async fn attach_group_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: AttachGroupPolicyRequest,
) -> Result<Unit, IamError> {
    attach::<GroupRecord>(iam, ctx, input.group_name, input.policy_arn).await
}

pub(crate) async fn attach_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: AttachRolePolicyRequest,
) -> Result<Unit, IamError> {
    attach::<RoleRecord>(iam, ctx, input.role_name, input.policy_arn).await
}

pub(crate) async fn detach_user_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DetachUserPolicyRequest,
) -> Result<Unit, IamError> {
    detach::<UserRecord>(iam, ctx, input.user_name, input.policy_arn).await
}

pub(crate) async fn detach_group_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DetachGroupPolicyRequest,
) -> Result<Unit, IamError> {
    detach::<GroupRecord>(iam, ctx, input.group_name, input.policy_arn).await
}

pub(crate) async fn detach_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DetachRolePolicyRequest,
) -> Result<Unit, IamError> {
    detach::<RoleRecord>(iam, ctx, input.role_name, input.policy_arn).await
}

pub(crate) async fn list_attached_user_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListAttachedUserPoliciesRequest,
) -> Result<ListAttachedUserPoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListAttachedUserPolicies");
    let page = list::<UserRecord>(
        iam,
        ctx,
        LISTING,
        &input.user_name,
        input.path_prefix.as_deref(),
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListAttachedUserPoliciesResponse {
        attached_policies: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_attached_group_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListAttachedGroupPoliciesRequest,
) -> Result<ListAttachedGroupPoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListAttachedGroupPolicies");
    let page = list::<GroupRecord>(
        iam,
        ctx,
        LISTING,
        &input.group_name,
        input.path_prefix.as_deref(),
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListAttachedGroupPoliciesResponse {
        attached_policies: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_attached_role_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListAttachedRolePoliciesRequest,
) -> Result<ListAttachedRolePoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListAttachedRolePolicies");
    let page = list::<RoleRecord>(
        iam,
        ctx,
        LISTING,
        &input.role_name,
        input.path_prefix.as_deref(),
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListAttachedRolePoliciesResponse {
        attached_policies: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attached_names_and_paths_come_from_the_arn() {
        assert_eq!(
            name_and_path("arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"),
            ("AWSLambdaBasicExecutionRole".into(), "/service-role/".into())
        );
        assert_eq!(
            name_and_path("arn:aws:iam::123456789012:policy/mine"),
            ("mine".into(), "/".into())
        );
        assert_eq!(quota::<RoleRecord>(), "PoliciesPerRole");
    }
}
