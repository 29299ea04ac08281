//! Inline policies of users, groups and roles: put, get, list, delete, one generic body per
//! operation and a thin function per kind of holder.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::documents::{check, url_encode, DocumentUse};
use crate::error::IamError;
use crate::listing::{page, Page};
use crate::records::{key, GroupRecord, RoleRecord, UserRecord};
use crate::service::IamService;
use crate::store::{load, Holder};

/// IAM's refusal of an inline policy name the holder does not have.
fn no_such_policy(kind: &str, name: &str) -> IamError {
    IamError::NoSuchEntity(format!("The {kind} policy with name {name} cannot be found."))
}

async fn put<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    usage: DocumentUse,
    holder: String,
    name: String,
    document: String,
) -> Result<Unit, IamError> {
    check(&document, usage, &holder)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut record: H = load(tx, &holder)?;
        record.permissions_mut().inline.insert(name, document);
        H::TABLE.put(tx, key(record.name()), &record)?;
        Ok(Unit {})
    })
    .await
}

/// The holder's name (as stored) and the policy's document, URL-encoded.
fn get<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    holder: &str,
    name: &str,
) -> Result<(String, String), IamError> {
    let record: H = load(&iam.reader(&ctx.account_id)?, holder)?;
    let document = record
        .permissions()
        .inline
        .get(name)
        .ok_or_else(|| no_such_policy(H::KIND, name))?;
    Ok((record.name().to_owned(), url_encode(document)))
}

fn list<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    listing: Token,
    holder: &str,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<Page<String>, IamError> {
    let record: H = load(&iam.reader(&ctx.account_id)?, holder)?;
    let names = record
        .permissions()
        .inline
        .keys()
        .map(|n| (n.clone(), n.clone()))
        .collect();
    page(listing, names, marker, max_items)
}

async fn delete<H: Holder>(
    iam: &IamService,
    ctx: &RequestContext,
    holder: String,
    name: String,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut record: H = load(tx, &holder)?;
        if record.permissions_mut().inline.remove(&name).is_none() {
            return Err(no_such_policy(H::KIND, &name));
        }
        H::TABLE.put(tx, key(record.name()), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn put_user_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: PutUserPolicyRequest,
) -> Result<Unit, IamError> {
    put::<UserRecord>(
        iam,
        ctx,
        DocumentUse::UserInline,
        input.user_name,
        input.policy_name,
        input.policy_document,
    )
    .await
}

pub(crate) async fn put_group_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: PutGroupPolicyRequest,
) -> Result<Unit, IamError> {
    put::<GroupRecord>(
        iam,
        ctx,
        DocumentUse::GroupInline,
        input.group_name,
        input.policy_name,
        input.policy_document,
    )
    .await
}

pub(crate) async fn put_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: PutRolePolicyRequest,
) -> Result<Unit, IamError> {
    put::<RoleRecord>(
        iam,
        ctx,
        DocumentUse::RoleInline,
        input.role_name,
        input.policy_name,
        input.policy_document,
    )
    .await
}

pub(crate) async fn get_user_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetUserPolicyRequest,
) -> Result<GetUserPolicyResponse, IamError> {
    let (user_name, policy_document) = get::<UserRecord>(iam, ctx, &input.user_name, &input.policy_name)?;
    Ok(GetUserPolicyResponse {
        user_name,
        policy_name: input.policy_name,
        policy_document,
    })
}

pub(crate) async fn get_group_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetGroupPolicyRequest,
) -> Result<GetGroupPolicyResponse, IamError> {
    let (group_name, policy_document) = get::<GroupRecord>(iam, ctx, &input.group_name, &input.policy_name)?;
    Ok(GetGroupPolicyResponse {
        group_name,
        policy_name: input.policy_name,
        policy_document,
    })
}

pub(crate) async fn get_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetRolePolicyRequest,
) -> Result<GetRolePolicyResponse, IamError> {
    let (role_name, policy_document) = get::<RoleRecord>(iam, ctx, &input.role_name, &input.policy_name)?;
    Ok(GetRolePolicyResponse {
        role_name,
        policy_name: input.policy_name,
        policy_document,
    })
}

pub(crate) async fn list_user_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListUserPoliciesRequest,
) -> Result<ListUserPoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListUserPolicies");
    let page = list::<UserRecord>(
        iam,
        ctx,
        LISTING,
        &input.user_name,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListUserPoliciesResponse {
        policy_names: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_group_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListGroupPoliciesRequest,
) -> Result<ListGroupPoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListGroupPolicies");
    let page = list::<GroupRecord>(
        iam,
        ctx,
        LISTING,
        &input.group_name,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListGroupPoliciesResponse {
        policy_names: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn list_role_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListRolePoliciesRequest,
) -> Result<ListRolePoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListRolePolicies");
    let page = list::<RoleRecord>(
        iam,
        ctx,
        LISTING,
        &input.role_name,
        input.marker.as_deref(),
        input.max_items,
    )?;
    Ok(ListRolePoliciesResponse {
        policy_names: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn delete_user_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteUserPolicyRequest,
) -> Result<Unit, IamError> {
    delete::<UserRecord>(iam, ctx, input.user_name, input.policy_name).await
}

pub(crate) async fn delete_group_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteGroupPolicyRequest,
) -> Result<Unit, IamError> {
    delete::<GroupRecord>(iam, ctx, input.group_name, input.policy_name).await
}

pub(crate) async fn delete_role_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteRolePolicyRequest,
) -> Result<Unit, IamError> {
    delete::<RoleRecord>(iam, ctx, input.role_name, input.policy_name).await
}
