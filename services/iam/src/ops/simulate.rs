//! Policy simulation: `SimulatePrincipalPolicy` (the policies a user, group or role holds,
//! and any given) and `SimulateCustomPolicy` (only the policies given), evaluated by
//! `stratus-policy` with IAM's logic, one result per action and resource.
//!
//! `MatchedStatements` names the identity-policy statements that decided an `allowed` (each
//! statement that allows on its own) or an `explicitDeny` (each that denies), with where each
//! lies in its document ([`crate::statement_spans`]); an implicit deny matches none. The
//! statements of boundaries and resource policies are not listed, and `ContextEntries` are
//! not fed to conditions.

use stratus_core::paging::Token;
use stratus_core::RequestContext;
use stratus_gen_iam::*;
use stratus_policy::{evaluate, Decision, Effect, Policy, PolicyKind, PolicySet, Principal};
use stratus_storage::Read;

use crate::error::IamError;
use crate::held_policies::{self, Held};
use crate::listing::{in_order, page};
use crate::records::{GroupRecord, RoleRecord, Scope, UserRecord};
use crate::service::{scope, IamService};
use crate::statement_spans::statement_spans;
use crate::store::load;

const LISTING: Token = Token::for_listing("iam:SimulatePolicy");

/// What a simulation weighs.
struct Inputs {
    identity: Vec<Source>,
    boundary: Option<Policy>,
    resource: Option<Policy>,
}

/// An identity policy and what `MatchedStatements` calls it.
struct Source {
    /// `SourcePolicyId`: the policy's name, or `PolicyInputList.N` for a given one.
    id: String,
    document: String,
    policy: Policy,
}

impl Source {
    fn new(id: String, document: String) -> Result<Source, IamError> {
        let policy = parse(&document, PolicyKind::Identity)?;
        Ok(Source { id, document, policy })
    }
}

/// The type AWS answers for an identity policy's statement (recorded from AWS for an attached
/// customer managed policy), which the model's `PolicySourceType` does not list.
const IDENTITY_SOURCE: &str = "IAM Policy";

fn parse(document: &str, kind: PolicyKind) -> Result<Policy, IamError> {
    Policy::parse(document, kind).map_err(|e| IamError::InvalidInput(e.to_string()))
}

/// What the user, group or role `arn` names holds.
fn held(r: &(impl Read + ?Sized), scope: &Scope, arn: &str) -> Result<Held, IamError> {
    let not_found = || IamError::NoSuchEntity(format!("The entity {arn} cannot be found."));
    let resource = stratus_core::arn::Arn::parse(arn)
        .map_err(|_| IamError::InvalidInput(format!("Invalid ARN: {arn}")))?
        .resource;
    let name = resource.rsplit('/').next().unwrap_or_default();
    if resource.starts_with("user/") {
        let user: UserRecord = load(r, name).map_err(|_| not_found())?;
        held_policies::of_user(r, scope, &user)
    } else if resource.starts_with("group/") {
        let group: GroupRecord = load(r, name).map_err(|_| not_found())?;
        held_policies::of_group(r, scope, &group)
    } else if resource.starts_with("role/") {
        let role: RoleRecord = load(r, name).map_err(|_| not_found())?;
        held_policies::of_role(r, scope, &role)
    } else {
        Err(not_found())
    }
}

fn decision(d: &Decision) -> PolicyEvaluationDecisionType {
    match d {
        Decision::Allow => PolicyEvaluationDecisionType::Allowed,
        Decision::ExplicitDeny { .. } => PolicyEvaluationDecisionType::ExplicitDeny,
        Decision::ImplicitDeny { .. } => PolicyEvaluationDecisionType::ImplicitDeny,
    }
}

/// The identity-policy statements that decided `decided`: for an allow, each statement that
/// allows the request on its own; for an explicit deny, each that denies it; none for an
/// implicit deny. A statement is weighed alone by evaluating a policy of just that statement.
fn matched_statements(sources: &[Source], request: &stratus_policy::Request, decided: &Decision) -> Vec<Statement> {
    let wanted = match decided {
        Decision::Allow => Effect::Allow,
        Decision::ExplicitDeny { .. } => Effect::Deny,
        Decision::ImplicitDeny { .. } => return Vec::new(),
    };
    let mut matched = Vec::new();
    for source in sources {
        let Some(spans) = statement_spans(&source.document) else {
            continue;
        };
        let statements = source.policy.statements();
        for (span, statement) in spans.statements.iter().zip(statements) {
            if statement.effect() != wanted {
                continue;
            }
            let alone = match spans.version {
                Some(version) => format!(r#"{{"Version":"{version}","Statement":[{}]}}"#, span.text),
                None => format!(r#"{{"Statement":[{}]}}"#, span.text),
            };
            let Ok(alone) = Policy::parse(&alone, PolicyKind::Identity) else {
                continue;
            };
            let set = PolicySet {
                identity: vec![&alone],
                ..PolicySet::default()
            };
            if decision(&evaluate(request, &set)) == decision(decided) {
                matched.push(Statement {
                    source_policy_id: Some(source.id.clone()),
                    source_policy_type: Some(PolicySourceType::Unknown(IDENTITY_SOURCE.into())),
                    start_position: Some(wire_position(span.start)),
                    end_position: Some(wire_position(span.end)),
                });
            }
        }
    }
    matched
}

fn wire_position(at: crate::statement_spans::Position) -> Position {
    Position {
        line: at.line,
        column: at.column,
    }
}

/// One result per action and resource, paged.
fn run(
    inputs: &Inputs,
    principal: &Principal,
    actions: &[String],
    resources: Option<Vec<String>>,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<SimulatePolicyResponse, IamError> {
    let resources = resources.filter(|r| !r.is_empty()).unwrap_or_else(|| vec!["*".into()]);
    let set = PolicySet {
        identity: inputs.identity.iter().map(|s| &s.policy).collect(),
        resource: inputs.resource.as_ref(),
        permissions_boundary: inputs.boundary.as_ref(),
        ..PolicySet::default()
    };
    let mut results = Vec::new();
    for action in actions {
        for resource in &resources {
            let request = stratus_policy::Request::new(principal.clone(), action, [resource.as_str()]);
            let decided = evaluate(&request, &set);
            let verdict = decision(&decided);
            let matched = matched_statements(&inputs.identity, &request, &decided);
            results.push(EvaluationResult {
                eval_action_name: action.clone(),
                eval_resource_name: Some(resource.clone()),
                eval_decision: verdict.clone(),
                matched_statements: Some(matched.clone()),
                missing_context_values: Some(Vec::new()),
                organizations_decision_detail: Some(OrganizationsDecisionDetail {
                    allowed_by_organizations: true,
                }),
                permissions_boundary_decision_detail: None,
                eval_decision_details: Some(Default::default()),
                resource_specific_results: Some(vec![ResourceSpecificResult {
                    eval_resource_name: resource.clone(),
                    eval_resource_decision: verdict,
                    matched_statements: Some(matched),
                    missing_context_values: Some(Vec::new()),
                    eval_decision_details: None,
                    permissions_boundary_decision_detail: None,
                }]),
            });
        }
    }
    let page = page(LISTING, in_order(results), marker, max_items)?;
    Ok(SimulatePolicyResponse {
        evaluation_results: Some(page.items),
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

/// The principal requests are evaluated for: the caller ARN given, else the source entity.
/// A simulation weighs the policies alone, so without either (a custom simulation, a group)
/// it is an IAM user of the account: the root would be allowed whatever they say.
fn principal(scope: &Scope, arns: &[Option<&str>]) -> Principal {
    arns.iter()
        .flatten()
        .filter(|arn| !arn.contains(":group/"))
        .find_map(|arn| Principal::parse(arn).ok())
        .or_else(|| Principal::parse(&scope.arn("user", "/", "simulated")).ok())
        .unwrap_or(Principal::Anonymous)
}

fn resource_policy(document: Option<&str>) -> Result<Option<Policy>, IamError> {
    document.map(|d| parse(d, PolicyKind::Resource)).transpose()
}

fn given(documents: Option<Vec<String>>, kind: PolicyKind) -> Result<Vec<Policy>, IamError> {
    documents.unwrap_or_default().iter().map(|d| parse(d, kind)).collect()
}

/// The identity policies given in `PolicyInputList`, named as AWS names them in
/// `MatchedStatements` (`PolicyInputList.1`, …).
fn given_sources(documents: Option<Vec<String>>) -> Result<Vec<Source>, IamError> {
    documents
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, document)| Source::new(format!("PolicyInputList.{}", i + 1), document))
        .collect()
}

pub(crate) async fn simulate_principal_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: SimulatePrincipalPolicyRequest,
) -> Result<SimulatePolicyResponse, IamError> {
    let scope = scope(ctx);
    let Held { policies, boundary } = held(&iam.reader(&scope.account)?, &scope, &input.policy_source_arn)?;
    let mut identity = given_sources(input.policy_input_list)?;
    for (name, document) in policies {
        identity.push(Source::new(name, document)?);
    }
    let mut boundaries = given(input.permissions_boundary_policy_input_list, PolicyKind::Identity)?;
    if let Some(document) = boundary {
        boundaries.push(parse(&document, PolicyKind::Identity)?);
    }
    let inputs = Inputs {
        identity,
        boundary: boundaries.into_iter().next(),
        resource: resource_policy(input.resource_policy.as_deref())?,
    };
    let principal = principal(&scope, &[input.caller_arn.as_deref(), Some(&input.policy_source_arn)]);
    run(
        &inputs,
        &principal,
        &input.action_names,
        input.resource_arns,
        input.marker.as_deref(),
        input.max_items,
    )
}

pub(crate) async fn simulate_custom_policy(
    _iam: &IamService,
    ctx: &RequestContext,
    input: SimulateCustomPolicyRequest,
) -> Result<SimulatePolicyResponse, IamError> {
    let scope = scope(ctx);
    let inputs = Inputs {
        identity: given_sources(Some(input.policy_input_list))?,
        boundary: given(input.permissions_boundary_policy_input_list, PolicyKind::Identity)?
            .into_iter()
            .next(),
        resource: resource_policy(input.resource_policy.as_deref())?,
    };
    let principal = principal(&scope, &[input.caller_arn.as_deref()]);
    run(
        &inputs,
        &principal,
        &input.action_names,
        input.resource_arns,
        input.marker.as_deref(),
        input.max_items,
    )
}

/// The context keys `documents` read, each once, in order (`Policy::context_keys`).
fn context_keys<'a>(documents: impl IntoIterator<Item = &'a str>) -> Result<GetContextKeysForPolicyResponse, IamError> {
    let mut keys: Vec<String> = Vec::new();
    for document in documents {
        for key in parse(document, PolicyKind::Identity)?.context_keys() {
            if !keys.iter().any(|k| k.eq_ignore_ascii_case(&key)) {
                keys.push(key);
            }
        }
    }
    Ok(GetContextKeysForPolicyResponse {
        context_key_names: Some(keys),
    })
}

pub(crate) async fn get_context_keys_for_custom_policy(
    _iam: &IamService,
    _ctx: &RequestContext,
    input: GetContextKeysForCustomPolicyRequest,
) -> Result<GetContextKeysForPolicyResponse, IamError> {
    context_keys(input.policy_input_list.iter().map(String::as_str))
}

/// The keys of the user's (with its groups'), group's or role's identity policies, then of
/// those given; the permissions boundary is not among them, as simulation's identity
/// policies do not include it.
pub(crate) async fn get_context_keys_for_principal_policy(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetContextKeysForPrincipalPolicyRequest,
) -> Result<GetContextKeysForPolicyResponse, IamError> {
    let held = held(&iam.reader(&ctx.account_id)?, &scope(ctx), &input.policy_source_arn)?;
    let given = input.policy_input_list.unwrap_or_default();
    context_keys(
        held.policies
            .iter()
            .map(|(_, document)| document.as_str())
            .chain(given.iter().map(String::as_str)),
    )
}
