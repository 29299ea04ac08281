//! The request an evaluation judges: who asks (the principal), what for (the action and the
//! resources), and the condition context, the key-value pairs conditions and variables read.
//! The global keys the request itself implies (`aws:PrincipalArn`, `aws:username`,
//! `aws:CurrentTime`, ...) are filled in as the request is built.
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html>)

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use stratus_core::arn::{Arn, ArnError};
use stratus_core::calendar::format_iso8601;

/// Who makes a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// An IAM identity or an account's root user, named by its ARN.
    Iam(IamPrincipal),
    /// An AWS service acting on its own behalf, such as `sqs.amazonaws.com`.
    Service(String),
    /// A web identity or SAML provider, as trust policies' `Federated` names it.
    Federated(String),
    /// An S3 canonical user ID.
    CanonicalUser(String),
    /// A request with no credentials.
    Anonymous,
}

/// An IAM principal: its ARN and what kind of identity the ARN names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IamPrincipal {
    text: String,
    arn: Arn,
    kind: IamKind,
}

/// The kinds of IAM principal, read from the ARN's resource part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IamKind {
    /// `arn:aws:iam::ACCOUNT:root`.
    Root,
    /// `arn:aws:iam::ACCOUNT:user/PATH/NAME`.
    User {
        /// The user's name, the last part of the ARN.
        name: String,
    },
    /// `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    AssumedRole {
        /// The role's name (an assumed-role ARN drops the role's path).
        role: String,
        /// The session name.
        session: String,
    },
    /// `arn:aws:sts::ACCOUNT:federated-user/NAME`.
    FederatedUser {
        /// The name given to `GetFederationToken`.
        name: String,
    },
    /// Any other IAM ARN (a role itself, for instance).
    Other,
}

impl Principal {
    /// The IAM principal an ARN names.
    ///
    /// ```
    /// use stratus_policy::{IamKind, Principal};
    /// let p = Principal::parse("arn:aws:sts::123456789012:assumed-role/admin/alice").unwrap();
    /// let Principal::Iam(iam) = &p else { panic!() };
    /// assert_eq!(iam.account(), "123456789012");
    /// assert!(matches!(iam.kind(), IamKind::AssumedRole { role, .. } if role == "admin"));
    /// ```
    pub fn parse(arn: &str) -> Result<Principal, ArnError> {
        let parsed = Arn::parse(arn)?;
        let resource = parsed.resource.as_str();
        let last = |s: &str| s.rsplit('/').next().unwrap_or_default().to_owned();
        let kind = match (parsed.service.as_str(), resource) {
            ("iam", "root") => IamKind::Root,
            ("iam", r) if r.starts_with("user/") => IamKind::User { name: last(r) },
            ("sts", r) if r.starts_with("assumed-role/") => {
                let mut parts = r["assumed-role/".len()..].splitn(2, '/');
                let role = parts.next().unwrap_or_default().to_owned();
                let session = parts.next().unwrap_or_default().to_owned();
                IamKind::AssumedRole { role, session }
            }
            ("sts", r) if r.starts_with("federated-user/") => IamKind::FederatedUser { name: last(r) },
            _ => IamKind::Other,
        };
        Ok(Principal::Iam(IamPrincipal {
            text: arn.to_owned(),
            arn: parsed,
            kind,
        }))
    }

    /// The account the principal belongs to; none for services and anonymous callers.
    pub fn account(&self) -> Option<&str> {
        match self {
            Principal::Iam(iam) => Some(iam.account()),
            _ => None,
        }
    }

    /// What AccessDenied messages name the caller by: the ARN, the service, or `anonymous`.
    pub fn display_name(&self) -> &str {
        match self {
            Principal::Iam(iam) => iam.arn(),
            Principal::Service(name) | Principal::Federated(name) | Principal::CanonicalUser(name) => name,
            Principal::Anonymous => "anonymous",
        }
    }
}

impl IamPrincipal {
    /// The ARN as given.
    pub fn arn(&self) -> &str {
        &self.text
    }

    /// The account in the ARN.
    pub fn account(&self) -> &str {
        &self.arn.account
    }

    /// The ARN's partition (`aws`, `aws-cn`, ...).
    pub fn partition(&self) -> &str {
        &self.arn.partition
    }

    /// What kind of identity this is.
    pub fn kind(&self) -> &IamKind {
        &self.kind
    }
}

/// One request to authorize.
///
/// Context keys are not case-sensitive; values are strings, as AWS's request context holds
/// them, and each operator reads them as its type (numbers, dates, booleans, addresses).
#[derive(Debug, Clone)]
pub struct Request {
    pub(crate) principal: Principal,
    pub(crate) action: String,
    pub(crate) action_lower: String,
    pub(crate) resources: Vec<(String, Option<Arn>)>,
    context: HashMap<String, Vec<String>>,
}

impl Request {
    /// A request by `principal` to perform `action` (`service:Operation`) on `resources`.
    /// Give `"*"` (or nothing) for actions that name no resource.
    pub fn new<I, S>(principal: Principal, action: &str, resources: I) -> Request
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut resources: Vec<(String, Option<Arn>)> = resources
            .into_iter()
            .map(|r| {
                let text = r.into();
                let arn = Arn::parse(&text).ok();
                (text, arn)
            })
            .collect();
        if resources.is_empty() {
            resources.push(("*".to_owned(), None));
        }
        let mut request = Request {
            action: action.to_owned(),
            action_lower: action.to_ascii_lowercase(),
            resources,
            context: HashMap::new(),
            principal: Principal::Anonymous,
        };
        request.set_principal_keys(&principal);
        request.principal = principal;
        request
    }

    fn set_principal_keys(&mut self, principal: &Principal) {
        match principal {
            Principal::Iam(iam) => {
                self.set("aws:PrincipalArn", [iam.arn()]);
                self.set("aws:PrincipalAccount", [iam.account()]);
                // aws:userid where the ARN gives it; a user's or role's unique ID comes from
                // IAM through `with_user_id` (reference_policies_variables.html#principaltable).
                let kind = match iam.kind() {
                    IamKind::Root => {
                        self.set("aws:userid", [iam.account()]);
                        "Account"
                    }
                    IamKind::User { name } => {
                        self.set("aws:username", [name.as_str()]);
                        "User"
                    }
                    IamKind::AssumedRole { .. } => "AssumedRole",
                    IamKind::FederatedUser { name } => {
                        self.set("aws:userid", [format!("{}:{name}", iam.account())]);
                        "FederatedUser"
                    }
                    IamKind::Other => "User",
                };
                self.set("aws:PrincipalType", [kind]);
            }
            Principal::Service(name) => self.set("aws:PrincipalServiceName", [name.as_str()]),
            Principal::Anonymous => {
                self.set("aws:PrincipalType", ["Anonymous"]);
                self.set("aws:userid", ["anonymous"]);
            }
            Principal::Federated(_) | Principal::CanonicalUser(_) => {}
        }
    }

    /// The same request on its `index`th resource alone (asking of each resource what only
    /// it supplies, such as its tags); on no resource when there is no such one.
    pub fn only_resource(&self, index: usize) -> Request {
        Request {
            resources: self.resources.get(index).cloned().into_iter().collect(),
            ..self.clone()
        }
    }

    fn set<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, key: &str, values: I) {
        let values = values.into_iter().map(Into::into).collect();
        self.context.insert(key.to_ascii_lowercase(), values);
    }

    /// Sets context key `key` to `values` (several for a multivalued key such as
    /// `aws:TagKeys`), replacing what it held.
    pub fn with_context<I, S>(mut self, key: &str, values: I) -> Request
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.set(key, values);
        self
    }

    /// `aws:userid`: the user's unique ID, or `ROLEID:session` for a role session.
    pub fn with_user_id(self, user_id: &str) -> Request {
        self.with_context("aws:userid", [user_id])
    }

    /// `aws:username`, which an IAM user's ARN already gives.
    pub fn with_username(self, name: &str) -> Request {
        self.with_context("aws:username", [name])
    }

    /// `aws:PrincipalTag/KEY` for one tag of the principal.
    pub fn with_principal_tag(self, key: &str, value: &str) -> Request {
        self.with_context(&format!("aws:PrincipalTag/{key}"), [value])
    }

    /// `aws:CurrentTime` and `aws:EpochTime`: when the request is judged.
    pub fn at(self, time: SystemTime) -> Request {
        let seconds = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => after.as_secs() as i64,
            Err(before) => -(before.duration().as_secs() as i64),
        };
        self.with_context("aws:CurrentTime", [format_iso8601(seconds)])
            .with_context("aws:EpochTime", [seconds.to_string()])
    }

    /// `aws:SourceIp`: the address the request came from.
    pub fn from_ip(self, ip: IpAddr) -> Request {
        self.with_context("aws:SourceIp", [ip.to_string()])
    }

    /// `aws:SecureTransport`: whether the request came over TLS.
    pub fn secure_transport(self, secure: bool) -> Request {
        self.with_context("aws:SecureTransport", [if secure { "true" } else { "false" }])
    }

    /// The principal making the request.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The action as given.
    pub fn action(&self) -> &str {
        &self.action
    }

    /// The resources, in the order given.
    pub fn resources(&self) -> impl Iterator<Item = &str> {
        self.resources.iter().map(|(text, _)| text.as_str())
    }

    /// The values of context key `key` (any case), if the request has it.
    pub fn context_values(&self, key: &str) -> Option<&[String]> {
        match self.context.get(key) {
            Some(values) => Some(values),
            None => self.values(&key.to_ascii_lowercase()),
        }
    }

    /// The values of `key`, already lowercased.
    pub(crate) fn values(&self, key: &str) -> Option<&[String]> {
        self.context.get(key).map(Vec::as_slice)
    }
}
