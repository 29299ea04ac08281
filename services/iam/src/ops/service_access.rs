//! Which services an entity's policies grant, and when they were last used: the access
//! advisor's reports (`GenerateServiceLastAccessedDetails` and its two readers) and
//! `ListPoliciesGrantingServiceAccess`.
//!
//! A service is granted when an `Allow` statement's `Action` names one of its actions (its
//! namespace written out, or matched by a wildcard) or its `NotAction` leaves some of them
//! out; conditions and resources are not weighed. A wildcard namespace (`"*"`, `"s*:Get*"`)
//! is matched against the services Stratus serves, for IAM's own list of every AWS service
//! is not shipped. Stratus records no use of any service, so every service is reported as
//! never accessed (no `LastAuthenticated`, no entities authenticated), as AWS reports a
//! service nobody used in the tracking period. A report is made when asked for and kept in
//! the `access_reports` table: its job is `COMPLETED` at once.

use serde_json::Value;
use stratus_core::arn::Arn;
use stratus_core::id::uuid;
use stratus_core::paging::Token;
use stratus_core::RequestContext;
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::listing::{in_order, page};
use crate::managed::{not_found, resolve};
use crate::records::{date, AccessReportRecord, GroupRecord, Permissions, ReportEntity, RoleRecord, Scope, UserRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load, Holder, ACCESS_REPORTS, GROUPS};

/// The services Stratus serves, by namespace, with their names in the Service Authorization
/// Reference; a wildcard namespace is matched against these.
const SERVICES: &[(&str, &str)] = &[
    ("dynamodb", "Amazon DynamoDB"),
    ("iam", "AWS Identity and Access Management (IAM)"),
    ("s3", "Amazon S3"),
    ("sqs", "Amazon SQS"),
    ("sts", "AWS Security Token Service"),
];

/// A service's name: the reference's for those Stratus serves, else its namespace.
fn service_name(namespace: &str) -> String {
    SERVICES
        .iter()
        .find(|(ns, _)| *ns == namespace)
        .map_or_else(|| namespace.to_owned(), |(_, name)| (*name).to_owned())
}

/// `text` against a pattern with IAM's `*` and `?`, without regard to case.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.split_first(), text.split_first()) {
        (None, _) => text.is_empty(),
        (Some((b'*', rest)), _) => glob(rest, text) || (!text.is_empty() && glob(pattern, &text[1..])),
        (Some((b'?', rest)), Some((_, text))) => glob(rest, text),
        (Some((p, rest)), Some((t, text))) => p.eq_ignore_ascii_case(t) && glob(rest, text),
        (Some(_), None) => false,
    }
}

/// The strings of a policy element that may be one string or a list.
fn strings(value: Option<&Value>) -> Vec<&str> {
    match value {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// An action pattern split into its namespace and action parts (`*` is both).
fn parts(action: &str) -> (&str, &str) {
    action.split_once(':').unwrap_or((action, "*"))
}

/// The `Allow` statements of a policy document (one object or a list).
fn allows(document: &str) -> Vec<Value> {
    let Ok(policy) = serde_json::from_str::<Value>(document) else {
        return Vec::new();
    };
    let statements = match policy.get("Statement") {
        Some(Value::Array(items)) => items.clone(),
        Some(one @ Value::Object(_)) => vec![one.clone()],
        _ => Vec::new(),
    };
    statements
        .into_iter()
        .filter(|s| s.get("Effect").and_then(Value::as_str) == Some("Allow"))
        .collect()
}

/// Whether `document` grants some action of service `namespace`.
pub(crate) fn grants(document: &str, namespace: &str) -> bool {
    allows(document).iter().any(|statement| {
        let named = strings(statement.get("Action"))
            .into_iter()
            .any(|a| glob(parts(a).0.as_bytes(), namespace.as_bytes()));
        // `NotAction` grants the service unless it leaves out all of its actions.
        let left_out = statement.get("NotAction").is_some()
            && !strings(statement.get("NotAction")).into_iter().any(|a| {
                let (ns, action) = parts(a);
                glob(ns.as_bytes(), namespace.as_bytes()) && action == "*"
            });
        named || left_out
    })
}

/// The namespaces `documents` grant, sorted: those they write out, and those Stratus serves
/// that a wildcard matches.
fn granted<'a>(documents: impl IntoIterator<Item = &'a str> + Clone) -> Vec<String> {
    let mut candidates: Vec<String> = SERVICES.iter().map(|(ns, _)| (*ns).to_owned()).collect();
    for document in documents.clone() {
        for statement in allows(document) {
            for action in strings(statement.get("Action")) {
                let ns = parts(action).0;
                if !ns.contains(['*', '?']) {
                    candidates.push(ns.to_ascii_lowercase());
                }
            }
        }
    }
    candidates.sort();
    candidates.dedup();
    candidates
        .into_iter()
        .filter(|ns| documents.clone().into_iter().any(|d| grants(d, ns)))
        .collect()
}

/// A policy of a holder and where it comes from, as `ListPoliciesGrantingServiceAccess`
/// names it.
struct Granting {
    wire: PolicyGrantingServiceAccess,
    document: String,
}

fn policies_of(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    permissions: &Permissions,
    owner: (PolicyOwnerEntityType, &str),
    out: &mut Vec<Granting>,
) -> Result<(), IamError> {
    for (name, document) in &permissions.inline {
        out.push(Granting {
            wire: PolicyGrantingServiceAccess {
                policy_name: name.clone(),
                policy_type: PolicyType::Inline,
                policy_arn: None,
                entity_type: Some(owner.0.clone()),
                entity_name: Some(owner.1.to_owned()),
            },
            document: document.clone(),
        });
    }
    for arn in &permissions.attached {
        if let Some(policy) = resolve(r, scope, arn)? {
            out.push(Granting {
                wire: PolicyGrantingServiceAccess {
                    policy_name: arn.rsplit('/').next().unwrap_or(arn).to_owned(),
                    policy_type: PolicyType::Managed,
                    policy_arn: Some(arn.clone()),
                    entity_type: None,
                    entity_name: None,
                },
                document: policy.default_document().to_owned(),
            });
        }
    }
    Ok(())
}

fn invalid_arn(arn: &str) -> IamError {
    IamError::InvalidInput(format!("ARN {arn} is not valid."))
}

/// The policies `holder` holds itself, named as held by it.
fn own_policies<H: Holder>(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    holder: &H,
    kind: PolicyOwnerEntityType,
    out: &mut Vec<Granting>,
) -> Result<(), IamError> {
    policies_of(r, scope, holder.permissions(), (kind, holder.name()), out)
}

/// The user (with its groups'), group or role `arn` names: itself and its policies.
fn holder_policies(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    arn: &str,
) -> Result<(ReportEntity, Vec<Granting>), IamError> {
    let resource = Arn::parse(arn).map_err(|_| invalid_arn(arn))?.resource;
    let name = resource.rsplit('/').next().unwrap_or_default();
    let mut out = Vec::new();
    let entity = if resource.starts_with("user/") {
        let user: UserRecord = load(r, name)?;
        own_policies(r, scope, &user, PolicyOwnerEntityType::User, &mut out)?;
        for group_key in &user.groups {
            if let Some(group) = GROUPS.get(r, group_key)? {
                own_policies(r, scope, &group, PolicyOwnerEntityType::Group, &mut out)?;
            }
        }
        ReportEntity::of(scope, &user)
    } else if resource.starts_with("group/") {
        let group: GroupRecord = load(r, name)?;
        own_policies(r, scope, &group, PolicyOwnerEntityType::Group, &mut out)?;
        ReportEntity::of(scope, &group)
    } else if resource.starts_with("role/") {
        let role: RoleRecord = load(r, name)?;
        own_policies(r, scope, &role, PolicyOwnerEntityType::Role, &mut out)?;
        ReportEntity::of(scope, &role)
    } else {
        return Err(invalid_arn(arn));
    };
    Ok((entity, out))
}

/// The holders of kind `H` a managed policy is attached to, added to `out`.
fn attached<H: Holder>(
    r: &(impl Read + ?Sized),
    scope: &Scope,
    arn: &str,
    out: &mut Vec<ReportEntity>,
) -> Result<(), IamError> {
    for (_, holder) in all(r, H::TABLE)? {
        if holder.permissions().attached.iter().any(|a| a == arn) {
            out.push(ReportEntity::of(scope, &holder));
        }
    }
    Ok(())
}

/// The users, groups and roles a managed policy is attached to.
fn attached_to(r: &(impl Read + ?Sized), scope: &Scope, arn: &str) -> Result<Vec<ReportEntity>, IamError> {
    let mut out = Vec::new();
    attached::<UserRecord>(r, scope, arn, &mut out)?;
    attached::<GroupRecord>(r, scope, arn, &mut out)?;
    attached::<RoleRecord>(r, scope, arn, &mut out)?;
    Ok(out)
}

pub(crate) async fn generate_service_last_accessed_details(
    iam: &IamService,
    ctx: &RequestContext,
    input: GenerateServiceLastAccessedDetailsRequest,
) -> Result<GenerateServiceLastAccessedDetailsResponse, IamError> {
    let scope = scope(ctx);
    let store = iam.reader(&ctx.account_id)?;
    let is_policy = Arn::parse(&input.arn).is_ok_and(|a| a.resource.starts_with("policy/"));
    let (services, entities) = if is_policy {
        let policy = resolve(&store, &scope, &input.arn)?.ok_or_else(|| not_found(&input.arn))?;
        (
            granted([policy.default_document()]),
            attached_to(&store, &scope, &input.arn)?,
        )
    } else {
        let (entity, policies) = holder_policies(&store, &scope, &input.arn)?;
        (granted(policies.iter().map(|p| p.document.as_str())), vec![entity])
    };
    let report = AccessReportRecord {
        created: now(ctx),
        action_level: input.granularity == Some(AccessAdvisorUsageGranularityType::ActionLevel),
        services,
        entities,
    };
    let job_id = uuid();
    let key = job_id.clone();
    iam.write(&ctx.account_id, move |tx| {
        ACCESS_REPORTS.put(tx, key, &report)?;
        Ok(())
    })
    .await?;
    Ok(GenerateServiceLastAccessedDetailsResponse { job_id: Some(job_id) })
}

fn load_report(iam: &IamService, ctx: &RequestContext, job_id: &str) -> Result<AccessReportRecord, IamError> {
    ACCESS_REPORTS
        .get(&iam.reader(&ctx.account_id)?, job_id)?
        // Wording not verified against AWS.
        .ok_or_else(|| IamError::NoSuchEntity(format!("The job with id {job_id} cannot be found.")))
}

pub(crate) async fn get_service_last_accessed_details(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetServiceLastAccessedDetailsRequest,
) -> Result<GetServiceLastAccessedDetailsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:GetServiceLastAccessedDetails");
    let report = load_report(iam, ctx, &input.job_id)?;
    let services = report.services.iter().map(|ns| {
        (
            ns.clone(),
            ServiceLastAccessed {
                service_name: service_name(ns),
                last_authenticated: None,
                service_namespace: ns.clone(),
                last_authenticated_entity: None,
                last_authenticated_region: None,
                total_authenticated_entities: Some(0),
                tracked_actions_last_accessed: report.action_level.then(Vec::new),
            },
        )
    });
    let page = page(LISTING, services.collect(), input.marker.as_deref(), input.max_items)?;
    Ok(GetServiceLastAccessedDetailsResponse {
        job_status: JobStatusType::Completed,
        job_type: Some(if report.action_level {
            AccessAdvisorUsageGranularityType::ActionLevel
        } else {
            AccessAdvisorUsageGranularityType::ServiceLevel
        }),
        job_creation_date: date(report.created),
        services_last_accessed: page.items,
        job_completion_date: date(report.created),
        is_truncated: page.is_truncated,
        marker: page.marker,
        error: None,
    })
}

pub(crate) async fn get_service_last_accessed_details_with_entities(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetServiceLastAccessedDetailsWithEntitiesRequest,
) -> Result<GetServiceLastAccessedDetailsWithEntitiesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:GetServiceLastAccessedDetailsWithEntities");
    let report = load_report(iam, ctx, &input.job_id)?;
    let namespace = input.service_namespace.to_ascii_lowercase();
    let entities = if report.services.contains(&namespace) {
        report
            .entities
            .iter()
            .map(|e| EntityDetails {
                entity_info: e.wire(),
                last_authenticated: None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let page = page(LISTING, in_order(entities), input.marker.as_deref(), input.max_items)?;
    Ok(GetServiceLastAccessedDetailsWithEntitiesResponse {
        job_status: JobStatusType::Completed,
        job_creation_date: date(report.created),
        job_completion_date: date(report.created),
        entity_details_list: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
        error: None,
    })
}

pub(crate) async fn list_policies_granting_service_access(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListPoliciesGrantingServiceAccessRequest,
) -> Result<ListPoliciesGrantingServiceAccessResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListPoliciesGrantingServiceAccess");
    let (_, policies) = holder_policies(&iam.reader(&ctx.account_id)?, &scope(ctx), &input.arn)?;
    let entries = input
        .service_namespaces
        .iter()
        .map(|namespace| ListPoliciesGrantingServiceAccessEntry {
            service_namespace: Some(namespace.clone()),
            policies: Some(
                policies
                    .iter()
                    .filter(|p| grants(&p.document, namespace))
                    .map(|p| p.wire.clone())
                    .collect(),
            ),
        });
    let page = page(LISTING, in_order(entries), input.marker.as_deref(), None)?;
    Ok(ListPoliciesGrantingServiceAccessResponse {
        policies_granting_service_access: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_are_granted_by_name_wildcard_or_what_not_action_leaves() {
        let s3 = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}"#;
        assert!(grants(s3, "s3") && !grants(s3, "sqs"));
        let wild = r#"{"Statement":[{"Effect":"Allow","Action":["S?S:*"],"Resource":"*"}]}"#;
        assert!(grants(wild, "sqs") && grants(wild, "sns") && !grants(wild, "s3"));
        let denied = r#"{"Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}"#;
        assert!(!grants(denied, "s3"));
        let not_iam = r#"{"Statement":[{"Effect":"Allow","NotAction":["iam:*","s3:Delete*"],"Resource":"*"}]}"#;
        assert!(!grants(not_iam, "iam") && grants(not_iam, "s3") && grants(not_iam, "sqs"));
    }

    #[test]
    fn a_report_lists_written_namespaces_and_served_ones_a_wildcard_matches() {
        let docs = [
            r#"{"Statement":[{"Effect":"Allow","Action":["ec2:Describe*","s3:*"],"Resource":"*"}]}"#,
            r#"{"Statement":[{"Effect":"Allow","Action":"s*:List*","Resource":"*"}]}"#,
        ];
        assert_eq!(granted(docs), ["ec2", "s3", "sqs", "sts"]);
        assert_eq!(service_name("sqs"), "Amazon SQS");
    }
}
