//! Managed policies: customer policies and their versions, AWS managed ones, listings of
//! policies and of what each is attached to, and policy tags.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::aws_policies::AWS_POLICIES;
use crate::documents::{check, url_encode, DocumentUse};
use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::{in_order, page};
use crate::managed::{attachment_counts, load_customer, not_found, resolve, Managed};
use crate::ops::attached::check_arn;
use crate::records::{date, key, PolicyRecord, Scope, VersionRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, Holder, GROUPS, POLICIES, ROLES, USERS};
use crate::tagging::{merged, tag_page, without};

/// Versions a managed policy may have (IAM's quota).
const MAX_VERSIONS: usize = 5;

fn version_id(number: u32) -> String {
    format!("v{number}")
}

fn no_such_version(arn: &str, version: &str) -> IamError {
    IamError::NoSuchEntity(format!(
        "Policy {arn} version {version} does not exist or is not attachable."
    ))
}

impl VersionRecord {
    fn wire(&self, default: u32, with_document: bool) -> PolicyVersion {
        PolicyVersion {
            document: with_document.then(|| url_encode(&self.document)),
            version_id: Some(version_id(self.number)),
            is_default_version: self.number == default,
            create_date: Some(date(self.created)),
        }
    }
}

pub(crate) async fn create_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreatePolicyRequest,
) -> Result<CreatePolicyResponse, IamError> {
    check(&input.policy_document, DocumentUse::Managed, &input.policy_name)?;
    let created = now(ctx);
    let record = PolicyRecord {
        name: input.policy_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::Policy),
        created,
        updated: created,
        description: input.description,
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        versions: vec![VersionRecord {
            number: 1,
            document: input.policy_document,
            created,
        }],
        default_version: 1,
        next_version: 2,
    };
    let record = iam
        .write(&ctx.account_id, move |tx| {
            if POLICIES.get(tx, key(&record.name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "A policy called {} already exists. Duplicate names are not allowed.",
                    record.name
                )));
            }
            POLICIES.put(tx, key(&record.name), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreatePolicyResponse {
        policy: Some(record.wire(&scope(ctx), 0)),
    })
}

pub(crate) async fn get_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetPolicyRequest,
) -> Result<GetPolicyResponse, IamError> {
    check_arn(&input.policy_arn)?;
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let counts = attachment_counts(&store)?;
    let count = counts.get(&input.policy_arn).copied().unwrap_or(0);
    let policy = match resolve(&store, &scope, &input.policy_arn)? {
        Some(Managed::Aws(policy)) => policy.wire(&scope.region, count),
        Some(Managed::Customer(record)) => record.wire(&scope, count),
        None => return Err(not_found(&input.policy_arn)),
    };
    Ok(GetPolicyResponse { policy: Some(policy) })
}

pub(crate) async fn delete_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeletePolicyRequest,
) -> Result<Unit, IamError> {
    check_arn(&input.policy_arn)?;
    let scope = scope(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let record = load_customer(tx, &scope, &input.policy_arn)?;
        if attachment_counts(tx)?.get(&input.policy_arn).is_some_and(|n| *n > 0) {
            return Err(IamError::DeleteConflict("Cannot delete a policy attached to entities.".into()));
        }
        if record.versions.len() > 1 {
            return Err(IamError::DeleteConflict(
                "This policy has more than one version. Before you delete a policy, you must delete the policy's versions. The default version is deleted with the policy.".into(),
            ));
        }
        POLICIES.delete(tx, key(&record.name));
        Ok(Unit {})
    })
    .await
}

/// Applies `change` to the customer policy `arn` names, in one transaction.
async fn update<R, F>(iam: &IamService, ctx: &RequestContext, arn: String, change: F) -> Result<R, IamError>
where
    R: Send + 'static,
    F: FnOnce(&mut PolicyRecord, u64) -> Result<R, IamError> + Send + 'static,
{
    check_arn(&arn)?;
    let scope = scope(ctx);
    let at = now(ctx);
    iam.write(&ctx.account_id, move |tx| {
        let mut record = load_customer(tx, &scope, &arn)?;
        let out = change(&mut record, at)?;
        POLICIES.put(tx, key(&record.name), &record)?;
        Ok(out)
    })
    .await
}

pub(crate) async fn create_policy_version(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreatePolicyVersionRequest,
) -> Result<CreatePolicyVersionResponse, IamError> {
    check(&input.policy_document, DocumentUse::Managed, "")?;
    let version = update(iam, ctx, input.policy_arn, move |record, at| {
        if record.versions.len() >= MAX_VERSIONS {
            return Err(IamError::LimitExceeded(
                "A managed policy can have up to 5 versions. Before you create a new version, you must delete an existing version.".into(),
            ));
        }
        let version = VersionRecord {
            number: record.next_version,
            document: input.policy_document,
            created: at,
        };
        record.next_version += 1;
        if input.set_as_default {
            record.default_version = version.number;
            record.updated = at;
        }
        record.versions.push(version.clone());
        Ok(version.wire(record.default_version, false))
    })
    .await?;
    Ok(CreatePolicyVersionResponse {
        policy_version: Some(version),
    })
}

pub(crate) async fn get_policy_version(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetPolicyVersionRequest,
) -> Result<GetPolicyVersionResponse, IamError> {
    check_arn(&input.policy_arn)?;
    let scope = scope(ctx);
    let version = match resolve(&iam.reader(&scope.account)?, &scope, &input.policy_arn)? {
        Some(Managed::Aws(policy)) => policy.version(&input.version_id),
        Some(Managed::Customer(record)) => record
            .versions
            .iter()
            .find(|v| version_id(v.number) == input.version_id)
            .map(|v| v.wire(record.default_version, true)),
        None => return Err(not_found(&input.policy_arn)),
    };
    Ok(GetPolicyVersionResponse {
        policy_version: Some(version.ok_or_else(|| no_such_version(&input.policy_arn, &input.version_id))?),
    })
}

pub(crate) async fn list_policy_versions(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListPolicyVersionsRequest,
) -> Result<ListPolicyVersionsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListPolicyVersions");
    check_arn(&input.policy_arn)?;
    let scope = scope(ctx);
    let versions = match resolve(&iam.reader(&scope.account)?, &scope, &input.policy_arn)? {
        Some(Managed::Aws(policy)) => policy.version(policy.default_version).into_iter().collect::<Vec<_>>(),
        Some(Managed::Customer(record)) => record
            .versions
            .iter()
            .rev()
            .map(|v| v.wire(record.default_version, false))
            .collect::<Vec<_>>(),
        None => return Err(not_found(&input.policy_arn)),
    }
    .into_iter()
    .map(|v: PolicyVersion| PolicyVersion { document: None, ..v });
    let page = page(LISTING, in_order(versions), input.marker.as_deref(), input.max_items)?;
    Ok(ListPolicyVersionsResponse {
        versions: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn set_default_policy_version(
    iam: &IamService,
    ctx: &RequestContext,
    input: SetDefaultPolicyVersionRequest,
) -> Result<Unit, IamError> {
    let arn = input.policy_arn.clone();
    update(iam, ctx, input.policy_arn, move |record, at| {
        let number = record
            .versions
            .iter()
            .find(|v| version_id(v.number) == input.version_id)
            .ok_or_else(|| no_such_version(&arn, &input.version_id))?
            .number;
        record.default_version = number;
        record.updated = at;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_policy_version(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeletePolicyVersionRequest,
) -> Result<Unit, IamError> {
    let arn = input.policy_arn.clone();
    update(iam, ctx, input.policy_arn, move |record, _| {
        let at = record
            .versions
            .iter()
            .position(|v| version_id(v.number) == input.version_id)
            .ok_or_else(|| no_such_version(&arn, &input.version_id))?;
        if record.versions[at].number == record.default_version {
            return Err(IamError::DeleteConflict(
                "Cannot delete the default version of a policy.".into(),
            ));
        }
        record.versions.remove(at);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_policies(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListPoliciesRequest,
) -> Result<ListPoliciesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListPolicies");
    let scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    let counts = attachment_counts(&store)?;
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let (aws, local) = match input.scope {
        Some(PolicyScopeType::Aws) => (true, false),
        Some(PolicyScopeType::Local) => (false, true),
        _ => (true, true),
    };
    // Listings leave out description and tags (GetPolicy has them).
    let mut policies = Vec::new();
    if aws {
        for policy in AWS_POLICIES {
            let count = counts.get(&policy.arn(&scope.region)).copied().unwrap_or(0);
            let mut listed = policy.wire(&scope.region, count);
            listed.description = None;
            policies.push((format!("aws/{}", key(policy.name)), listed));
        }
    }
    if local {
        for (k, record) in all(&store, POLICIES)? {
            let count = counts.get(&record.arn(&scope)).copied().unwrap_or(0);
            let mut policy = record.wire(&scope, count);
            policy.description = None;
            policy.tags = None;
            policies.push((format!("local/{k}"), policy));
        }
    }
    let listed = policies
        .into_iter()
        .filter(|(_, p)| p.path.as_deref().is_some_and(|path| path.starts_with(&prefix)))
        .filter(|(_, p)| !input.only_attached || p.attachment_count.unwrap_or(0) > 0)
        .collect();
    let page = page(LISTING, listed, input.marker.as_deref(), input.max_items)?;
    Ok(ListPoliciesResponse {
        policies: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

/// One entity a policy is attached to.
enum Entity {
    Group(PolicyGroup),
    User(PolicyUser),
    Role(PolicyRole),
}

/// The holders of `table` that `arn` is attached to, whose path starts with `prefix`.
fn holders<H: Holder>(
    r: &(impl Read + ?Sized),
    table: stratus_storage::Table<H>,
    arn: &str,
    prefix: &str,
) -> Result<Vec<(String, String, String)>, IamError> {
    Ok(all(r, table)?
        .into_iter()
        .filter(|(_, h)| h.permissions().attached.iter().any(|a| a == arn) && h.path().starts_with(prefix))
        .map(|(k, h)| (k, h.name().to_owned(), h.id().to_owned()))
        .collect())
}

pub(crate) async fn list_entities_for_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListEntitiesForPolicyRequest,
) -> Result<ListEntitiesForPolicyResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListEntitiesForPolicy");
    check_arn(&input.policy_arn)?;
    let scope: Scope = scope(ctx);
    let store = iam.reader(&scope.account)?;
    if resolve(&store, &scope, &input.policy_arn)?.is_none() {
        return Err(not_found(&input.policy_arn));
    }
    let prefix = input.path_prefix.as_deref().unwrap_or("/");
    let wanted = |kind: EntityType| input.entity_filter.as_ref().is_none_or(|f| *f == kind);
    let mut entities = Vec::new();
    if wanted(EntityType::Group) {
        for (k, name, id) in holders(&store, GROUPS, &input.policy_arn, prefix)? {
            entities.push((
                format!("g/{k}"),
                Entity::Group(PolicyGroup {
                    group_name: Some(name),
                    group_id: Some(id),
                }),
            ));
        }
    }
    if wanted(EntityType::Role) {
        for (k, name, id) in holders(&store, ROLES, &input.policy_arn, prefix)? {
            entities.push((
                format!("r/{k}"),
                Entity::Role(PolicyRole {
                    role_name: Some(name),
                    role_id: Some(id),
                }),
            ));
        }
    }
    if wanted(EntityType::User) {
        for (k, name, id) in holders(&store, USERS, &input.policy_arn, prefix)? {
            entities.push((
                format!("u/{k}"),
                Entity::User(PolicyUser {
                    user_name: Some(name),
                    user_id: Some(id),
                }),
            ));
        }
    }
    let page = page(LISTING, entities, input.marker.as_deref(), input.max_items)?;
    let (mut groups, mut users, mut roles) = (Vec::new(), Vec::new(), Vec::new());
    for entity in page.items {
        match entity {
            Entity::Group(g) => groups.push(g),
            Entity::User(u) => users.push(u),
            Entity::Role(r) => roles.push(r),
        }
    }
    Ok(ListEntitiesForPolicyResponse {
        policy_groups: Some(groups),
        policy_users: Some(users),
        policy_roles: Some(roles),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn tag_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagPolicyRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.policy_arn, move |record, _| {
        record.tags = merged(&record.tags, input.tags)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn untag_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagPolicyRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.policy_arn, move |record, _| {
        record.tags = without(&record.tags, &input.tag_keys);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_policy_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListPolicyTagsRequest,
) -> Result<ListPolicyTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListPolicyTags");
    check_arn(&input.policy_arn)?;
    let scope = scope(ctx);
    let record = load_customer(&iam.reader(&scope.account)?, &scope, &input.policy_arn)?;
    let page = tag_page(LISTING, &record.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListPolicyTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
