//! AWS's evaluation logic: an explicit deny in any policy wins; otherwise something must
//! allow. Within one account either the identity's policies or the resource's policy may
//! allow; across accounts both must. Permissions boundaries and session policies cap what
//! identity policies grant, and what a resource policy grants a role (by its ARN), but not
//! what a resource policy grants a user or a role session by its own ARN. Role trust policies
//! and KMS key policies must allow the principal even within their account.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policy-eval-denyallow.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policy-eval-basics.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies.html#policies_session>)

use std::fmt;

use crate::context::{IamKind, Principal, Request};
use crate::document::{Effect, Policy, PolicyKind};
use crate::principal::Grant;

/// The policies that apply to one request.
#[derive(Debug, Clone, Default)]
pub struct PolicySet<'a> {
    /// The principal's identity-based policies: a user's inline and attached policies and
    /// those of its groups, or a role's.
    pub identity: Vec<&'a Policy>,
    /// The resource's own policy (bucket policy, queue policy, key policy), if it has one.
    pub resource: Option<&'a Policy>,
    /// The account that owns the resource, when it may differ from the principal's; `None`
    /// means the principal's own account.
    pub resource_account: Option<&'a str>,
    /// The principal's permissions boundary, if it has one.
    pub permissions_boundary: Option<&'a Policy>,
    /// The session policies passed when the session was made; empty when none were.
    pub session: Vec<&'a Policy>,
    /// Whether the resource's policy must allow the principal even within its account, as a
    /// KMS key policy must. A role's trust policy ([`PolicyKind::Trust`]) always must.
    /// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policy-eval-denyallow.html>)
    pub resource_must_allow: bool,
}

/// A kind of policy, as AccessDenied messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyType {
    /// The principal's own policies.
    IdentityBased,
    /// The resource's policy.
    ResourceBased,
    /// The principal's permissions boundary.
    PermissionsBoundary,
    /// The session's session policies.
    SessionPolicy,
}

impl fmt::Display for PolicyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PolicyType::IdentityBased => "identity-based policy",
            PolicyType::ResourceBased => "resource-based policy",
            PolicyType::PermissionsBoundary => "permissions boundary",
            PolicyType::SessionPolicy => "session policy",
        })
    }
}

/// The outcome of an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Every resource of the request is allowed.
    Allow,
    /// A statement with `"Effect": "Deny"` applies.
    ExplicitDeny {
        /// The kind of policy that holds the statement.
        by: PolicyType,
        /// The index of the refused resource in the request.
        resource: usize,
    },
    /// Nothing denies, but the policies whose allow was needed do not allow.
    ImplicitDeny {
        /// The kind of policy that would have had to allow.
        missing: PolicyType,
        /// The index of the refused resource in the request.
        resource: usize,
    },
}

impl Decision {
    /// Whether the request may proceed.
    pub fn is_allowed(&self) -> bool {
        *self == Decision::Allow
    }

    /// AWS's AccessDenied message for this decision, or `None` for [`Decision::Allow`].
    pub fn message(&self, request: &Request) -> Option<String> {
        let resource = match *self {
            Decision::Allow => return None,
            Decision::ExplicitDeny { resource, .. } | Decision::ImplicitDeny { resource, .. } => resource,
        };
        let resource = request.resources().nth(resource);
        Some(access_denied_message(
            request.principal().display_name(),
            request.action(),
            resource,
            self,
        ))
    }
}

/// AWS's AccessDenied message text: `User: PRINCIPAL is not authorized to perform: ACTION on
/// resource: RESOURCE because no identity-based policy allows the ACTION action`, or `... with
/// an explicit deny in a resource-based policy`, and so on. The `on resource` part is left out
/// when there is no resource (or it is `*`). An empty string for [`Decision::Allow`]. Services
/// word the resource their own way: S3 writes it in double quotes (`on resource:
/// "arn:aws:s3:::b/k"`), so S3 passes the ARN quoted.
/// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html>)
pub fn access_denied_message(principal: &str, action: &str, resource: Option<&str>, decision: &Decision) -> String {
    let on = match resource {
        Some(r) if r != "*" => format!(" on resource: {r}"),
        _ => String::new(),
    };
    let why = match decision {
        Decision::Allow => return String::new(),
        Decision::ExplicitDeny { by, .. } => {
            let article = if *by == PolicyType::IdentityBased { "an" } else { "a" };
            format!("with an explicit deny in {article} {by}")
        }
        Decision::ImplicitDeny { missing, .. } => format!("because no {missing} allows the {action} action"),
    };
    format!("User: {principal} is not authorized to perform: {action}{on} {why}")
}

/// What a set of policies says about one resource.
#[derive(Default)]
struct Verdict {
    denied: bool,
    /// The most direct grant among the allow statements that apply.
    allowed: Option<Grant>,
}

fn judge<'a>(
    policies: impl IntoIterator<Item = &'a Policy>,
    request: &Request,
    resource: usize,
    has_boundary: bool,
) -> Verdict {
    let mut verdict = Verdict::default();
    for policy in policies {
        for statement in policy.statements() {
            let Some(grant) = statement.applies(request, resource, has_boundary) else {
                continue;
            };
            match statement.effect() {
                Effect::Deny => {
                    verdict.denied = true;
                    return verdict;
                }
                Effect::Allow => verdict.allowed = verdict.allowed.max(Some(grant)),
            }
        }
    }
    verdict
}

/// Decides `request` under `policies`, resource by resource; the first resource refused
/// decides the outcome.
pub fn evaluate(request: &Request, policies: &PolicySet<'_>) -> Decision {
    for resource in 0..request.resources.len() {
        let decision = evaluate_one(request, policies, resource);
        if decision != Decision::Allow {
            return decision;
        }
    }
    Decision::Allow
}

fn evaluate_one(request: &Request, policies: &PolicySet<'_>, resource: usize) -> Decision {
    let has_boundary = policies.permissions_boundary.is_some();
    let judge_all = |set: &[&Policy]| judge(set.iter().copied(), request, resource, has_boundary);
    let identity = judge_all(&policies.identity);
    let resource_policy = policies.resource.map(|p| judge([p], request, resource, has_boundary));
    let boundary = policies
        .permissions_boundary
        .map(|p| judge([p], request, resource, has_boundary));
    let session = (!policies.session.is_empty()).then(|| judge_all(&policies.session));

    let explicit = |by| Decision::ExplicitDeny { by, resource };
    let implicit = |missing| Decision::ImplicitDeny { missing, resource };
    if identity.denied {
        return explicit(PolicyType::IdentityBased);
    }
    if resource_policy.as_ref().is_some_and(|v| v.denied) {
        return explicit(PolicyType::ResourceBased);
    }
    if boundary.as_ref().is_some_and(|v| v.denied) {
        return explicit(PolicyType::PermissionsBoundary);
    }
    if session.as_ref().is_some_and(|v| v.denied) {
        return explicit(PolicyType::SessionPolicy);
    }

    let resource_grant = resource_policy.and_then(|v| v.allowed);
    let Principal::Iam(principal) = request.principal() else {
        // Services and anonymous callers have no identity policies: only the resource's
        // policy can let them in.
        return match resource_grant {
            Some(_) => Decision::Allow,
            None => implicit(PolicyType::ResourceBased),
        };
    };
    // The root user may do anything in its own account that no policy denies.
    let identity_allows = *principal.kind() == IamKind::Root || identity.allowed.is_some();
    let boundary_allows = boundary.is_none_or(|v| v.allowed.is_some());
    let session_allows = session.is_none_or(|v| v.allowed.is_some());
    let capped = |allowed: bool| {
        if !boundary_allows {
            implicit(PolicyType::PermissionsBoundary)
        } else if !session_allows {
            implicit(PolicyType::SessionPolicy)
        } else if allowed {
            Decision::Allow
        } else {
            implicit(PolicyType::ResourceBased)
        }
    };
    let identity_path = |then: Decision| {
        if !identity_allows {
            implicit(PolicyType::IdentityBased)
        } else {
            match capped(true) {
                Decision::Allow => then,
                denied => denied,
            }
        }
    };
    let same_account = policies.resource_account.is_none_or(|a| a == principal.account());
    let resource_must_allow =
        policies.resource_must_allow || policies.resource.is_some_and(|p| p.kind() == PolicyKind::Trust);
    if same_account {
        match resource_grant {
            None if resource_must_allow => implicit(PolicyType::ResourceBased),
            // Named by its own ARN (or `*`): neither boundary nor session policies cap it.
            Some(Grant::Direct) => Decision::Allow,
            // Named through its role: boundary and session policies still apply.
            Some(Grant::Role) => capped(true),
            Some(Grant::Account) | None => identity_path(Decision::Allow),
        }
    } else {
        // Across accounts both sides must allow.
        identity_path(if resource_grant.is_some() {
            Decision::Allow
        } else {
            implicit(PolicyType::ResourceBased)
        })
    }
}
