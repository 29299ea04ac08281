//! IAM's [`Authorizer`]: whether a principal may perform an action, decided by
//! `stratus-policy` with AWS's evaluation logic over what the principal holds
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html>).
//! The gateway asks it for every request under `--iam audit|enforce`.
//!
//! - The account's root (no principal, or a root session) is not limited by identity
//!   policies: it may do anything in its own account that the resource's policy does not
//!   deny, and in another account what the resource's policy allows it.
//! - An IAM user is granted its own inline and attached policies and its groups', capped by
//!   its permissions boundary; its id and tags give `aws:userid` and `aws:PrincipalTag/…`.
//! - A role session is granted its role's policies, capped by the role's boundary and by the
//!   session policies it was issued with (when it was issued with any). Its principal tags
//!   are the role's, overridden by the session's; `aws:PrincipalArn` is the role's ARN and
//!   `aws:userid` is `ROLEID:SESSION`, as AWS sets them.
//! - A session of a role deleted since, or credentials of a user deleted since, are denied,
//!   even when a role or user of the same name was made again (its id differs).
//! - A federated user is granted only its session policies. AWS also caps them by the
//!   policies of the IAM user who called `GetFederationToken`, which Stratus does not record.
//! - Within an account, the identity's policies or the resource's policy may allow; across
//!   accounts both must.
//!
//! A refusal carries AWS's AccessDenied message, naming the caller's ARN (a session's
//! assumed-role ARN). Nothing is read from the store or parsed on a request once its
//! principal's policies are cached ([`crate::policy_cache`]).
//!
//! IAM validated every document it stored, so one that no longer parses (the parser changed
//! since) is logged and left out rather than failing every request: an identity or resource
//! policy is left out, its allows and its denies with it; a boundary or session policy is
//! taken as allowing nothing, so that losing a cap never lifts it.

use std::convert::Infallible;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, UNIX_EPOCH};

use stratus_core::service::{Authorization, Authorizer, Decision, SessionGrants, Verdict};
use stratus_core::{AwsError, PrincipalKind};
use stratus_policy::{
    self as policy, evaluate, IamKind, IamPrincipal, Policy, PolicyKind, PolicySet, PolicyType, Request,
};

use crate::error::IamError;
use crate::held_policies::{self, Held};
use crate::policy_cache::{AccountCache, Grants};
use crate::records::{key, RoleRecord, Scope, UserRecord};
use crate::service::IamService;
use crate::store::{ROLES, USERS};

/// Who asks, with what they hold.
enum Subject {
    Root,
    User(Arc<Grants>),
    Session {
        role: Arc<Grants>,
        name: String,
        policies: Option<Arc<[Policy]>>,
    },
    Federated {
        policies: Option<Arc<[Policy]>>,
    },
    /// A user or role deleted since its credentials were issued.
    Gone,
}

impl Authorizer for IamService {
    fn authorize(&self, request: &Authorization<'_>) -> Result<Verdict, AwsError> {
        self.verdict(request).map_err(IamError::into_aws)
    }
}

impl IamService {
    fn verdict(&self, a: &Authorization<'_>) -> Result<Verdict, IamError> {
        if a.anonymous {
            return Ok(self.anonymous_verdict(a));
        }
        let cache = self.policies.account(a.account_id);
        let root;
        let arn = match a.principal {
            Some(principal) => principal.arn.as_str(),
            None => {
                root = root_arn(a);
                root.as_str()
            }
        };
        let Ok(policy::Principal::Iam(iam)) = policy::Principal::parse(arn) else {
            return Ok(gone(arn, a));
        };
        let subject = self.subject(&cache, a, &iam)?;
        let resources = self.with_entity_paths(a.action, a.resources)?;
        let mut request = Request::new(
            policy::Principal::Iam(iam),
            a.action,
            resources.iter().map(String::as_str),
        );
        for (key, values) in a.context {
            request = request.with_context(key, values.iter().map(String::as_str));
        }
        request = request.at(UNIX_EPOCH + Duration::from_secs(a.now_secs));
        let session_tags = a.session.map_or(&[][..], |s| s.tags.as_slice());
        let (identity, boundary, session) = match &subject {
            Subject::Root => (Vec::new(), None, Vec::new()),
            Subject::User(user) => {
                request = with_tags(request.with_user_id(&user.id), &user.tags);
                (user.identity.iter().collect(), user.boundary.as_ref(), Vec::new())
            }
            Subject::Session { role, name, policies } => {
                request = request
                    .with_context("aws:PrincipalArn", [role.arn.as_str()])
                    .with_user_id(&format!("{}:{name}", role.id));
                request = with_tags(with_tags(request, &role.tags), session_tags);
                (role.identity.iter().collect(), role.boundary.as_ref(), all(policies))
            }
            Subject::Federated { policies } => {
                request = with_tags(request, session_tags);
                let identity = match policies {
                    Some(_) => vec![unrecorded_caller()],
                    None => Vec::new(),
                };
                (identity, None, all(policies))
            }
            Subject::Gone => return Ok(gone(arn, a)),
        };
        // Assuming a role is allowed by its trust policy, which must admit the caller even
        // within the role's account; the role lives where its ARN says.
        let trust = self.trust_policy(a)?;
        let governed_by_trust = trust.is_some();
        let (resource, resource_account) = match trust {
            Some((trust, role_account)) => (Some(trust), Some(role_account).filter(|r| *r != a.account_id)),
            None => (
                a.resource_policy.and_then(|document| self.resource_policy(document)),
                a.resource_account.map(str::to_owned),
            ),
        };
        let set = PolicySet {
            identity,
            resource: resource.as_deref(),
            resource_account: resource_account.as_deref(),
            permissions_boundary: boundary,
            session,
            resource_must_allow: a.resource_must_allow && !governed_by_trust,
        };
        let (decided, request) = self.decide(a, request, &set)?;
        Ok(Verdict {
            decision: decision(&decided),
            message: message(&decided, &request, governed_by_trust),
        })
    }

    /// `request` decided under `set`; when a policy of the set reads resource tags, resource
    /// by resource, each with its own tags (`aws:ResourceTag/…`, and `iam:ResourceTag/…` for
    /// IAM's entities), the first refused deciding. Answers the request the decision is
    /// about, for its message.
    fn decide(
        &self,
        a: &Authorization<'_>,
        request: Request,
        set: &PolicySet<'_>,
    ) -> Result<(policy::Decision, Request), IamError> {
        let reads_tags = set
            .identity
            .iter()
            .copied()
            .chain(set.resource)
            .chain(set.permissions_boundary)
            .chain(set.session.iter().copied())
            .any(Policy::reads_resource_tags);
        if !reads_tags {
            let decided = evaluate(&request, set);
            return Ok((decided, request));
        }
        let resources: Vec<String> = request.resources().map(str::to_owned).collect();
        for (index, arn) in resources.iter().enumerate() {
            let mut one = request.only_resource(index);
            let (tags, own_key) = match self.entity_tags(arn)? {
                Some(tags) => (tags, Some("iam:ResourceTag/")),
                None => match a.resource_tags {
                    Some(source) if arn != "*" => (source.tags_of(arn).map_err(IamError::Other)?, None),
                    _ => (Vec::new(), None),
                },
            };
            for (key, value) in &tags {
                one = one.with_context(&format!("aws:ResourceTag/{key}"), [value.as_str()]);
                if let Some(prefix) = own_key {
                    one = one.with_context(&format!("{prefix}{key}"), [value.as_str()]);
                }
            }
            let decided = evaluate(&one, set);
            if !decided.is_allowed() {
                return Ok((decided, one));
            }
        }
        Ok((policy::Decision::Allow, request))
    }

    /// An unsigned request: no identity policy applies, so only the resource's policy can
    /// allow it, by granting everyone. S3 refuses it with its plain "Access Denied".
    fn anonymous_verdict(&self, a: &Authorization<'_>) -> Verdict {
        let mut request = Request::new(
            policy::Principal::Anonymous,
            a.action,
            a.resources.iter().map(String::as_str),
        );
        for (key, values) in a.context {
            request = request.with_context(key, values.iter().map(String::as_str));
        }
        request = request.at(UNIX_EPOCH + Duration::from_secs(a.now_secs));
        let resource = a.resource_policy.and_then(|document| self.resource_policy(document));
        let set = PolicySet {
            resource: resource.as_deref(),
            resource_must_allow: true,
            ..PolicySet::default()
        };
        let (decided, request) = match self.decide(a, request, &set) {
            Ok(decided) => decided,
            Err(error) => {
                tracing::warn!(%error, "resource tags not readable; refused");
                let denied = policy::Decision::ImplicitDeny {
                    missing: PolicyType::ResourceBased,
                    resource: 0,
                };
                let request = Request::new(
                    policy::Principal::Anonymous,
                    a.action,
                    a.resources.iter().map(String::as_str),
                );
                (denied, request)
            }
        };
        let message = match decided {
            policy::Decision::Allow => None,
            _ if a.action.starts_with("s3:") => Some("Access Denied".to_owned()),
            _ => message(&decided, &request, false),
        };
        Verdict {
            decision: decision(&decided),
            message,
        }
    }

    /// For the actions a role's trust policy governs (assuming it, tagging or naming the
    /// session), on a role: the role's trust policy and the role's account. A missing role
    /// has none, and nothing allows assuming it.
    fn trust_policy(&self, a: &Authorization<'_>) -> Result<Option<(Arc<Policy>, String)>, IamError> {
        if !TRUST_ACTIONS.iter().any(|action| action.eq_ignore_ascii_case(a.action)) {
            return Ok(None);
        }
        let [role_arn] = a.resources else {
            return Ok(None);
        };
        let Some(role_account) = role_arn.split(':').nth(4).filter(|_| role_arn.contains(":role/")) else {
            return Ok(None);
        };
        let trust = match self.assumable_role(role_arn)? {
            Some(role) => parsed(&role.trust_policy, PolicyKind::Trust, role_arn, "trust policy"),
            None => None,
        };
        let trust = trust.unwrap_or_else(|| allows_nothing().clone());
        Ok(Some((Arc::new(trust), role_account.to_owned())))
    }

    fn subject(&self, cache: &AccountCache, a: &Authorization<'_>, iam: &IamPrincipal) -> Result<Subject, IamError> {
        let account = a.account_id;
        let (kind, user_id) = a
            .principal
            .map_or((PrincipalKind::Root, ""), |p| (p.kind, p.user_id.as_str()));
        // A user or role deleted and made again under its name is another identity (its id
        // differs): the credentials of the first grant nothing of the second's.
        let is_user = |user: &Arc<Grants>| user.id == user_id;
        let is_role_of_session = |role: &Arc<Grants>| {
            user_id
                .strip_prefix(role.id.as_str())
                .is_some_and(|session| session.starts_with(':'))
        };
        Ok(match (kind, iam.kind()) {
            (PrincipalKind::Root, _) | (_, IamKind::Root) => Subject::Root,
            (PrincipalKind::User, IamKind::User { .. }) => {
                let arn = iam.arn();
                let user = cache
                    .users
                    .get_or_load(arn, || arn.to_owned(), || self.load_user(account, arn))?;
                user.filter(is_user).map_or(Subject::Gone, Subject::User)
            }
            (PrincipalKind::AssumedRole, IamKind::AssumedRole { role, session }) => {
                let grants = cache.roles.get_or_load(
                    role.as_str(),
                    || role.clone(),
                    || self.load_role(account, iam.partition(), role),
                )?;
                match grants.filter(is_role_of_session) {
                    Some(grants) => Subject::Session {
                        role: grants,
                        name: session.clone(),
                        policies: self.session_policies(cache, account, a.session)?,
                    },
                    None => Subject::Gone,
                }
            }
            (PrincipalKind::FederatedUser, IamKind::FederatedUser { .. }) => Subject::Federated {
                policies: self.session_policies(cache, account, a.session)?,
            },
            _ => Subject::Gone,
        })
    }

    /// The user `arn` names, if it exists with that path.
    fn load_user(&self, account: &str, arn: &str) -> Result<Option<Arc<Grants>>, IamError> {
        let Some((path, name)) = path_and_name(arn, "user") else {
            return Ok(None);
        };
        let store = self.reader(account)?;
        let user: Option<UserRecord> = USERS.get(&store, key(&name))?;
        let Some(user) = user.filter(|u| u.name == name && u.path == path) else {
            return Ok(None);
        };
        let held = held_policies::of_user(&store, &resolving(account), &user)?;
        Ok(Some(Arc::new(grants(user.id, arn.to_owned(), user.tags, held))))
    }

    /// The role named `name`, with its ARN in `partition`.
    fn load_role(&self, account: &str, partition: &str, name: &str) -> Result<Option<Arc<Grants>>, IamError> {
        let store = self.reader(account)?;
        let role: Option<RoleRecord> = ROLES.get(&store, key(name))?;
        let Some(role) = role.filter(|r| r.name == name) else {
            return Ok(None);
        };
        let held = held_policies::of_role(&store, &resolving(account), &role)?;
        let arn = format!("arn:{partition}:iam::{account}:role{}{}", role.path, role.name);
        Ok(Some(Arc::new(grants(role.id, arn, role.tags, held))))
    }

    /// The session policies `session` was issued with, `None` when it was issued with none.
    fn session_policies(
        &self,
        cache: &AccountCache,
        account: &str,
        session: Option<&SessionGrants>,
    ) -> Result<Option<Arc<[Policy]>>, IamError> {
        let Some(session) = session.filter(|s| s.policy.is_some() || !s.policy_arns.is_empty()) else {
            return Ok(None);
        };
        let key = (session.policy.clone(), session.policy_arns.clone());
        let load = || -> Result<Arc<[Policy]>, IamError> {
            let store = self.reader(account)?;
            let mut documents = held_policies::managed(&store, &resolving(account), &session.policy_arns)?;
            if let Some(document) = &session.policy {
                documents.push(("inline session policy".to_owned(), document.clone()));
            }
            if documents.is_empty() {
                // Its managed policies were deleted since: what they allowed is gone, and
                // no session policy left must not mean none was asked for.
                return Ok(Arc::new([allows_nothing().clone()]));
            }
            Ok(documents
                .iter()
                .map(|(name, document)| parsed_cap(document, "session", name))
                .collect())
        };
        cache.sessions.get_or_load(&key, || key.clone(), load).map(Some)
    }

    /// A resource's policy, parsed once per document; `None` when it does not parse.
    fn resource_policy(&self, document: &str) -> Option<Arc<Policy>> {
        let load =
            || Ok::<_, Infallible>(parsed(document, PolicyKind::Resource, "resource", "resource policy").map(Arc::new));
        let Ok(policy) = self
            .policies
            .resources
            .get_or_load(document, || document.to_owned(), load);
        policy
    }
}

/// The actions a role's trust policy decides.
const TRUST_ACTIONS: [&str; 3] = ["sts:AssumeRole", "sts:TagSession", "sts:SetSourceIdentity"];

/// AWS's AccessDenied message for `decided`, naming the refused resource as the service
/// does: S3 in double quotes; STS, refusing to assume a role (`trust`), without saying why.
fn message(decided: &policy::Decision, request: &Request, trust: bool) -> Option<String> {
    let refused = match *decided {
        policy::Decision::Allow => return None,
        policy::Decision::ExplicitDeny { resource, .. } | policy::Decision::ImplicitDeny { resource, .. } => resource,
    };
    let principal = request.principal().display_name();
    let action = request.action();
    if trust {
        let role = request.resources().nth(refused).unwrap_or_default();
        return Some(format!(
            "User: {principal} is not authorized to perform: {action} on resource: {role}"
        ));
    }
    if !action.starts_with("s3:") {
        return decided.message(request);
    }
    let resource = request
        .resources()
        .nth(refused)
        .map(|r| if r == "*" { r.to_owned() } else { format!("\"{r}\"") });
    Some(policy::access_denied_message(
        principal,
        action,
        resource.as_deref(),
        decided,
    ))
}

/// The account's root, in the request's partition.
fn root_arn(a: &Authorization<'_>) -> String {
    format!("arn:{}:iam::{}:root", a.partition, a.account_id)
}

/// The refusal of a principal whose user or role no longer exists.
fn gone(arn: &str, a: &Authorization<'_>) -> Verdict {
    let decided = policy::Decision::ImplicitDeny {
        missing: PolicyType::IdentityBased,
        resource: 0,
    };
    Verdict {
        decision: Decision::ImplicitDeny,
        message: Some(policy::access_denied_message(
            arn,
            a.action,
            a.resources.first().map(String::as_str),
            &decided,
        )),
    }
}

fn decision(decided: &policy::Decision) -> Decision {
    match decided {
        policy::Decision::Allow => Decision::Allow,
        policy::Decision::ExplicitDeny { .. } => Decision::ExplicitDeny,
        policy::Decision::ImplicitDeny { .. } => Decision::ImplicitDeny,
    }
}

fn all(policies: &Option<Arc<[Policy]>>) -> Vec<&Policy> {
    policies.as_deref().unwrap_or_default().iter().collect()
}

fn with_tags(request: Request, tags: &[(String, String)]) -> Request {
    tags.iter()
        .fold(request, |request, (key, value)| request.with_principal_tag(key, value))
}

/// A scope for resolving managed policy ARNs, which reads only the account (resolving writes
/// no ARN, so needs no region).
fn resolving(account: &str) -> Scope {
    Scope {
        account: account.to_owned(),
        region: String::new(),
    }
}

/// The `/PATH/` and name of the `kind` entity (`user`, `role`) an IAM ARN names.
fn path_and_name(arn: &str, kind: &str) -> Option<(String, String)> {
    let resource = stratus_core::arn::Arn::parse(arn).ok()?.resource;
    let (path, name) = resource.strip_prefix(kind)?.rsplit_once('/')?;
    Some((format!("{path}/"), name.to_owned()))
}

fn grants(id: String, arn: String, tags: Vec<(String, String)>, held: Held) -> Grants {
    let identity = held
        .policies
        .iter()
        .filter_map(|(name, document)| parsed(document, PolicyKind::Identity, &arn, name))
        .collect();
    let boundary = held
        .boundary
        .as_deref()
        .map(|document| parsed_cap(document, &arn, "permissions boundary"));
    Grants {
        id,
        arn,
        tags,
        identity,
        boundary,
    }
}

/// `document` parsed, or `None`, logged.
fn parsed(document: &str, kind: PolicyKind, holder: &str, name: &str) -> Option<Policy> {
    Policy::parse(document, kind)
        .map_err(|error| tracing::warn!(holder, policy = name, %error, "stored policy does not parse; left out"))
        .ok()
}

/// A boundary or session policy parsed, or one that allows nothing.
fn parsed_cap(document: &str, holder: &str, name: &str) -> Policy {
    parsed(document, PolicyKind::Identity, holder, name).unwrap_or_else(|| allows_nothing().clone())
}

fn allows_nothing() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    constant(
        &POLICY,
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotAction":"*","Resource":"*"}}"#,
    )
}

/// What stands for the policies of the IAM user who made a federated session, which Stratus
/// does not record: everything, so that the session's own policies decide.
fn unrecorded_caller() -> &'static Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    constant(
        &POLICY,
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}"#,
    )
}

fn constant(cell: &'static OnceLock<Policy>, document: &str) -> &'static Policy {
    // The documents are this module's own, and a test parses them.
    cell.get_or_init(|| {
        Policy::parse(document, PolicyKind::Identity).unwrap_or_else(|e| unreachable!("{document}: {e}"))
    })
}

mod entities;
#[cfg(test)]
mod tests;
