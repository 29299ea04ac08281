//! IAM authorization of requests, when asked for (`--iam audit|enforce`): each request's IAM
//! actions and resources, from the generated authorization table, put to IAM's
//! [`Authorizer`] with the resource's own policy; a refusal is answered as AWS's
//! `AccessDenied` (`enforce`) or logged and served (`audit`).
//!
//! Every decision is logged under the target `stratus::iam`: refusals at `info`, grants at
//! `debug`, with the principal, action and resources; and, with `--iam-log`, as a JSON line
//! in that file ([`DecisionLog`]).

use std::sync::Arc;

use stratus_core::arn::Arn;
use stratus_core::authz::{self, Scope};
use stratus_core::calendar::format_iso8601;
use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::service::{
    Authorization, Authorizer, Decision, ResourcePolicies, ResourcePolicy, ResourceTags, SessionGrants,
};
use stratus_core::{AwsError, RequestContext, Value};

use crate::decision_log::{DecisionLog, Entry};
use crate::identity::in_protocol;

/// Whether requests are authorized by IAM's policies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IamMode {
    /// Every request is served, as without IAM.
    #[default]
    Off,
    /// Every request is served; what IAM would refuse is logged.
    Audit,
    /// What IAM would refuse is refused, with AWS's `AccessDenied`.
    Enforce,
}

/// What authorizes requests: IAM, and the services whose resources have policies.
#[derive(Clone, Default)]
pub struct Authorizers {
    /// IAM's policy evaluation.
    pub iam: Option<Arc<dyn Authorizer>>,
    /// Resource policies, one provider per ARN service.
    pub resource_policies: Vec<Arc<dyn ResourcePolicies>>,
    /// Where every decision is logged as a JSON line (`--iam-log`), if anywhere.
    pub log: Option<Arc<DecisionLog>>,
}

/// The operation a request was routed to and decoded for.
pub(crate) struct Call<'a> {
    pub(crate) service: &'static Service,
    pub(crate) operation: &'static Operation,
    pub(crate) protocol: Protocol,
    pub(crate) input: &'a Value,
}

/// Authorizes `call`, made as `ctx` says (with the grants of its session, if it was signed by
/// one), under `mode`.
pub(crate) fn check(
    authorizers: &Authorizers,
    mode: IamMode,
    call: &Call<'_>,
    ctx: &RequestContext,
    session: Option<&SessionGrants>,
) -> Result<(), AwsError> {
    let Some(iam) = &authorizers.iam else {
        return Ok(());
    };
    if mode == IamMode::Off {
        return Ok(());
    }
    // The operations AWS serves unsigned (web identity and SAML federation) decide for
    // themselves whom they admit.
    if call.operation.unsigned {
        return Ok(());
    }
    let Some(entry) = call.service.authorization.operation(call.service, call.operation) else {
        return Ok(());
    };
    let now = ctx.clock.epoch_secs();
    let scope = Scope::new(&ctx.region, &ctx.account_id);
    let mut request_keys: Vec<(&str, Vec<String>)> = vec![
        (
            "aws:CurrentTime",
            vec![format_iso8601(i64::try_from(now).unwrap_or(i64::MAX))],
        ),
        ("aws:EpochTime", vec![now.to_string()]),
        ("aws:SecureTransport", vec!["false".to_owned()]),
    ];
    if let Some(ip) = ctx.source_ip {
        request_keys.push(("aws:SourceIp", vec![ip.to_string()]));
    }
    let anonymous = ctx.access_key_id.is_none();
    let root;
    let principal = match (&ctx.principal, anonymous) {
        (Some(principal), _) => principal.arn.as_str(),
        (None, true) => "anonymous",
        (None, false) => {
            root = Arn::global("iam", &ctx.region, &ctx.account_id, "root").to_string();
            root.as_str()
        }
    };
    let tags = TagsFromOwners(&authorizers.resource_policies);
    for required in authz::evaluate(entry, call.input, &scope) {
        let owner = resource_policy(authorizers, &required.resources)?;
        let mut context = request_keys.clone();
        context.extend(required.conditions.iter().cloned());
        let request_tag_keys: Vec<String> = required
            .request_tags
            .iter()
            .map(|(key, _)| format!("aws:RequestTag/{key}"))
            .collect();
        context.extend(
            request_tag_keys
                .iter()
                .zip(&required.request_tags)
                .map(|(key, (_, value))| (key.as_str(), vec![value.clone()])),
        );
        let request = Authorization {
            account_id: &ctx.account_id,
            partition: scope.partition,
            principal: ctx.principal.as_ref(),
            anonymous,
            session,
            action: required.action,
            resources: &required.resources,
            resource_policy: owner.as_ref().and_then(|o| o.document.as_deref()),
            resource_account: owner
                .as_ref()
                .map(|o| o.owner_account.as_str())
                .filter(|account| *account != ctx.account_id),
            resource_must_allow: false,
            resource_tags: Some(&tags),
            context: &context,
            now_secs: now,
        };
        let verdict = iam.authorize(&request)?;
        if let Some(log) = &authorizers.log {
            log.record(&Entry {
                now_secs: now,
                principal,
                action: required.action,
                resources: &required.resources,
                decision: verdict.decision,
            });
        }
        if verdict.decision == Decision::Allow {
            tracing::debug!(target: "stratus::iam", principal, action = required.action, resources = ?required.resources, "allowed");
            continue;
        }
        tracing::info!(
            target: "stratus::iam",
            principal,
            action = required.action,
            resources = ?required.resources,
            decision = ?verdict.decision,
            enforced = mode == IamMode::Enforce,
            "denied"
        );
        if mode == IamMode::Enforce {
            let message = verdict.message.unwrap_or_default();
            return Err(in_protocol(call.service, call.protocol, "AccessDenied", message, 403));
        }
    }
    Ok(())
}

/// The policy and owner of the first of `resources`, from the provider of its service.
fn resource_policy(authorizers: &Authorizers, resources: &[String]) -> Result<Option<ResourcePolicy>, AwsError> {
    let Some(arn) = resources.first() else {
        return Ok(None);
    };
    let Some(service) = arn.split(':').nth(2) else {
        return Ok(None);
    };
    match authorizers
        .resource_policies
        .iter()
        .find(|provider| provider.arn_service() == service)
    {
        Some(provider) => provider.policy_of(arn),
        None => Ok(None),
    }
}

/// The tags of resources, from the provider of each one's service: asked by the authorizer
/// only when a policy it evaluates reads them.
struct TagsFromOwners<'a>(&'a [Arc<dyn ResourcePolicies>]);

impl ResourceTags for TagsFromOwners<'_> {
    fn tags_of(&self, arn: &str) -> Result<Vec<(String, String)>, AwsError> {
        let Some(service) = arn.split(':').nth(2) else {
            return Ok(Vec::new());
        };
        match self.0.iter().find(|provider| provider.arn_service() == service) {
            Some(provider) => Ok(provider.tags_of(arn)?.unwrap_or_default()),
            None => Ok(Vec::new()),
        }
    }
}
