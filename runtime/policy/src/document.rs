//! Policy documents: the JSON grammar read into a [`Policy`], checked as IAM checks it for
//! the kind of policy it is, and compiled for evaluation (actions lowercased, ARN patterns
//! split into segments, conditions typed).
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html>,
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html>)

use std::collections::HashSet;

use crate::condition::{self, Condition};
use crate::context::Request;
use crate::error::PolicyError;
use crate::json::Json;
use crate::principal::{self, Grant, PrincipalEntry};
use crate::variables::Template;
use crate::wildcard::{self, ArnGlob, Glob};

/// What a policy is attached to, which decides the elements it must and must not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Attached to a user, group or role, or used as a permissions boundary or a session
    /// policy: no `Principal`, and `Resource` required.
    Identity,
    /// Attached to a resource (a bucket, a queue, a key): `Principal` and `Resource` required.
    Resource,
    /// A role's trust policy: `Principal` required, `Resource` prohibited.
    Trust,
}

/// The policy language version. Without `Version`, a policy is `2008-10-17`.
/// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html>)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// `2008-10-17`: policy variables are plain text.
    V2008_10_17,
    /// `2012-10-17`: the current language, with policy variables.
    V2012_10_17,
}

/// Whether a statement grants or refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// `"Effect": "Allow"`.
    Allow,
    /// `"Effect": "Deny"`.
    Deny,
}

/// A parsed, validated policy document.
#[derive(Debug, Clone)]
pub struct Policy {
    kind: PolicyKind,
    version: Version,
    id: Option<String>,
    statements: Vec<Statement>,
    /// Whether a condition or variable reads a resource tag (`aws:ResourceTag/…`,
    /// `iam:ResourceTag/…`): found once, when parsed.
    reads_resource_tags: bool,
}

/// One statement of a policy.
#[derive(Debug, Clone)]
pub struct Statement {
    sid: Option<String>,
    effect: Effect,
    principal: PrincipalRule,
    actions: Rule<Glob>,
    /// `None` in trust policies, which name no resource.
    resources: Option<Rule<ResourcePattern>>,
    conditions: Vec<Condition>,
}

/// Whether `key` names a resource's tag: `aws:ResourceTag/…` or a service's own
/// `<service>:ResourceTag/…`.
fn is_resource_tag_key(key: &str) -> bool {
    key.split_once(':')
        .is_some_and(|(_, rest)| rest.get(..12).is_some_and(|p| p.eq_ignore_ascii_case("resourcetag/")))
}

#[derive(Debug, Clone)]
enum PrincipalRule {
    /// Identity policies: the principal is whoever the policy is attached to.
    Implied,
    Principal(Vec<PrincipalEntry>),
    NotPrincipal(Vec<PrincipalEntry>),
}

/// `Action`/`NotAction` or `Resource`/`NotResource`: the items, and whether they are the
/// exceptions (`Not...`) rather than the matches.
#[derive(Debug, Clone)]
struct Rule<T> {
    negated: bool,
    items: Vec<T>,
}

#[derive(Debug, Clone)]
enum ResourcePattern {
    Fixed(ArnGlob),
    Variables(Template),
}

impl Policy {
    /// Parses and validates `document` as a policy of `kind`.
    pub fn parse(document: &str, kind: PolicyKind) -> Result<Policy, PolicyError> {
        Policy::from_slice(document.as_bytes(), kind)
    }

    /// [`Policy::parse`] for bytes, which need not be UTF-8 (if they are not, the document
    /// is refused).
    pub fn from_slice(document: &[u8], kind: PolicyKind) -> Result<Policy, PolicyError> {
        let json = Json::parse(document).ok_or(PolicyError::Syntax)?;
        let members = object(&json)?;
        let (mut version, mut id, mut statements) = (None, None, None);
        for (key, value) in members {
            match key.as_str() {
                "Version" => version = Some(value),
                "Id" => id = Some(string(value)?.to_owned()),
                "Statement" => statements = Some(value),
                other => return Err(PolicyError::UnknownField(other.to_owned())),
            }
        }
        let version = match version {
            None => Version::V2008_10_17,
            Some(value) => match string(value)? {
                "2012-10-17" => Version::V2012_10_17,
                "2008-10-17" => Version::V2008_10_17,
                _ => return Err(PolicyError::LegacyParsing),
            },
        };
        let statements = match statements.ok_or(PolicyError::MissingField("Statement"))? {
            Json::Array(items) => items.iter().collect(),
            one @ Json::Object(_) => vec![one],
            _ => return Err(PolicyError::Syntax),
        };
        let variables = version == Version::V2012_10_17;
        let statements = statements
            .into_iter()
            .map(|s| Statement::parse(s, kind, variables))
            .collect::<Result<Vec<_>, _>>()?;
        let mut sids = HashSet::new();
        if statements
            .iter()
            .filter_map(|s| s.sid.as_deref())
            .filter(|s| !s.is_empty())
            .any(|s| !sids.insert(s))
        {
            return Err(PolicyError::DuplicateSid);
        }
        let mut policy = Policy {
            kind,
            version,
            id,
            statements,
            reads_resource_tags: false,
        };
        policy.reads_resource_tags = policy.context_keys().iter().any(|key| is_resource_tag_key(key));
        Ok(policy)
    }

    /// Whether the policy reads a resource's tags (`aws:ResourceTag/…`, or a service's own
    /// such as `iam:ResourceTag/…`): only then must the caller look them up and supply them.
    ///
    /// ```
    /// use stratus_policy::{Policy, PolicyKind};
    /// let tagged = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:*","Resource":"*",
    ///     "Condition":{"StringEquals":{"aws:ResourceTag/team":"blue"}}}}"#;
    /// assert!(Policy::parse(tagged, PolicyKind::Identity).unwrap().reads_resource_tags());
    /// let plain = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:*","Resource":"*"}}"#;
    /// assert!(!Policy::parse(plain, PolicyKind::Identity).unwrap().reads_resource_tags());
    /// ```
    pub fn reads_resource_tags(&self) -> bool {
        self.reads_resource_tags
    }

    /// The context keys the policy reads, each once (compared without regard to case), in
    /// the order the statements name them: the variables of `Resource`/`NotResource`, then
    /// the condition keys as written, then the variables of the condition values. Variable
    /// keys are given lowercased. This is what IAM's `GetContextKeysForCustomPolicy` lists
    /// (its CLI example: `${aws:username}` in a resource and `aws:CurrentTime` in a
    /// condition give `["aws:username", "aws:CurrentTime"]`).
    pub fn context_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for statement in &self.statements {
            let resources = statement.resources.iter().flat_map(|rule| &rule.items);
            let resource_keys = resources.flat_map(|p| match p {
                ResourcePattern::Variables(template) => template.variable_keys().collect(),
                ResourcePattern::Fixed(_) => Vec::new(),
            });
            let condition_keys = statement.conditions.iter().flat_map(Condition::context_keys);
            for key in resource_keys.chain(condition_keys) {
                if !keys.iter().any(|k| k.eq_ignore_ascii_case(key)) {
                    keys.push(key.to_owned());
                }
            }
        }
        keys
    }

    /// The kind of policy it was parsed as.
    pub fn kind(&self) -> PolicyKind {
        self.kind
    }

    /// The language version (`2008-10-17` when the document gave none).
    pub fn version(&self) -> Version {
        self.version
    }

    /// The `Id` element, if any.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The statements, in document order.
    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }
}

fn object(json: &Json) -> Result<&[(String, Json)], PolicyError> {
    json.members().ok_or(PolicyError::Syntax)
}

fn string(json: &Json) -> Result<&str, PolicyError> {
    match json {
        Json::String(s) => Ok(s),
        _ => Err(PolicyError::Syntax),
    }
}

/// A string or an array of strings.
fn strings(json: &Json) -> Result<Vec<&str>, PolicyError> {
    match json {
        Json::String(s) => Ok(vec![s.as_str()]),
        Json::Array(items) => items.iter().map(string).collect(),
        _ => Err(PolicyError::Syntax),
    }
}

/// One of two exclusive elements (`Action`/`NotAction` and the like), and whether it was the
/// `Not` form.
fn either<'a>(a: Option<&'a Json>, not_a: Option<&'a Json>) -> Result<Option<(&'a Json, bool)>, PolicyError> {
    match (a, not_a) {
        (Some(_), Some(_)) => Err(PolicyError::Syntax),
        (Some(v), None) => Ok(Some((v, false))),
        (None, Some(v)) => Ok(Some((v, true))),
        (None, None) => Ok(None),
    }
}

impl Statement {
    fn parse(json: &Json, kind: PolicyKind, variables: bool) -> Result<Statement, PolicyError> {
        let mut fields: [Option<&Json>; 9] = [None; 9];
        const NAMES: [&str; 9] = [
            "Sid",
            "Effect",
            "Principal",
            "NotPrincipal",
            "Action",
            "NotAction",
            "Resource",
            "NotResource",
            "Condition",
        ];
        for (key, value) in object(json)? {
            let at = NAMES
                .iter()
                .position(|n| n == key)
                .ok_or_else(|| PolicyError::UnknownField(key.clone()))?;
            fields[at] = Some(value);
        }
        let [sid, effect, principal, not_principal, action, not_action, resource, not_resource, condition] = fields;

        let sid = sid.map(string).transpose()?.map(str::to_owned);
        if kind != PolicyKind::Resource
            && sid
                .as_deref()
                .is_some_and(|s| !s.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return Err(PolicyError::SidNotAlphanumeric);
        }
        let effect = match string(effect.ok_or(PolicyError::MissingField("Effect"))?)? {
            "Allow" => Effect::Allow,
            "Deny" => Effect::Deny,
            _ => return Err(PolicyError::LegacyParsing),
        };

        let principal = match (either(principal, not_principal)?, kind) {
            (Some(_), PolicyKind::Identity) => return Err(PolicyError::PrincipalNotAllowed),
            (None, PolicyKind::Identity) => PrincipalRule::Implied,
            (None, _) => return Err(PolicyError::MissingField("Principal")),
            (Some((value, false)), _) => PrincipalRule::Principal(principal::parse(value)?),
            (Some((value, true)), _) => PrincipalRule::NotPrincipal(principal::parse(value)?),
        };

        let (value, negated) = either(action, not_action)?.ok_or(PolicyError::MissingActions)?;
        let actions = strings(value)?;
        if actions.is_empty() {
            return Err(PolicyError::MissingActions);
        }
        if actions.iter().any(|a| *a != "*" && !a.contains(':')) {
            return Err(PolicyError::MissingVendor);
        }
        let actions = Rule {
            negated,
            items: actions.iter().map(|a| Glob::parse(a, true)).collect(),
        };

        let resources = match (either(resource, not_resource)?, kind) {
            (Some((_, negated)), PolicyKind::Trust) => {
                return Err(PolicyError::ProhibitedField(if negated {
                    "NotResource"
                } else {
                    "Resource"
                }))
            }
            (None, PolicyKind::Trust) => None,
            (None, _) => return Err(PolicyError::MissingResources),
            (Some((value, negated)), _) => {
                let items = strings(value)?;
                if items.is_empty() {
                    return Err(PolicyError::MissingResources);
                }
                let items = items
                    .into_iter()
                    .map(|r| resource_pattern(r, kind, variables))
                    .collect::<Result<Vec<_>, _>>()?;
                Some(Rule { negated, items })
            }
        };

        let conditions = match condition {
            Some(block) => condition::parse(block, variables)?,
            None => Vec::new(),
        };
        Ok(Statement {
            sid,
            effect,
            principal,
            actions,
            resources,
            conditions,
        })
    }

    /// The `Sid`, if any.
    pub fn sid(&self) -> Option<&str> {
        self.sid.as_deref()
    }

    /// `Allow` or `Deny`.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// Whether the statement applies to resource `resource` (an index into the request's
    /// resources), and if so how directly it names the principal. `has_boundary` is whether
    /// the principal has a permissions boundary, which a `NotPrincipal` with `Deny` always
    /// catches (<https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html>).
    pub(crate) fn applies(&self, request: &Request, resource: usize, has_boundary: bool) -> Option<Grant> {
        let grant = match &self.principal {
            PrincipalRule::Implied => Grant::Direct,
            PrincipalRule::Principal(entries) => principal::best_grant(entries, &request.principal)?,
            PrincipalRule::NotPrincipal(entries) => {
                let quirk = has_boundary && self.effect == Effect::Deny;
                if !quirk && principal::covers(entries, &request.principal) {
                    return None;
                }
                Grant::Direct
            }
        };
        let action = self.actions.items.iter().any(|g| g.is_match(&request.action_lower));
        if action == self.actions.negated {
            return None;
        }
        if let Some(rule) = &self.resources {
            let (text, arn) = &request.resources[resource];
            let matched = rule.items.iter().any(|p| match p {
                ResourcePattern::Fixed(glob) => glob.is_match(text, arn.as_ref()),
                // A variable the request has no value for matches nothing.
                ResourcePattern::Variables(t) => t
                    .resolve_tokens(request)
                    .is_some_and(|tokens| wildcard::arn_match(&tokens, text, arn.as_ref())),
            });
            if matched == rule.negated {
                return None;
            }
        }
        self.conditions.iter().all(|c| c.holds(request)).then_some(grant)
    }
}

fn resource_pattern(text: &str, kind: PolicyKind, variables: bool) -> Result<ResourcePattern, PolicyError> {
    if text != "*" && !text.starts_with("arn:") {
        return Err(PolicyError::ResourceNotArn(text.to_owned()));
    }
    let mut parts = text.splitn(5, ':');
    let (service, region) = (parts.nth(2), parts.next());
    let named_region = region.is_some_and(|r| !r.is_empty() && !r.contains(['*', '?', '$']));
    if kind == PolicyKind::Identity && service == Some("iam") && named_region {
        return Err(PolicyError::IamResourceWithRegion(text.to_owned()));
    }
    Ok(match variables.then(|| Template::parse(text)).flatten() {
        Some(template) => ResourcePattern::Variables(template),
        None => ResourcePattern::Fixed(ArnGlob::parse(text)),
    })
}
