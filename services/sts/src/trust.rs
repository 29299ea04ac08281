//! A role's trust policy, evaluated by STS itself for the callers no signed request stands
//! for: a service assuming a role for itself (Lambda's execution roles). A signed
//! `AssumeRole` is judged by the gateway, through IAM's authorizer, with the same engine
//! (`stratus-policy`) and the same rule: a trust policy must admit the caller even within
//! the role's account.

use std::time::{Duration, UNIX_EPOCH};

use stratus_policy::{evaluate, Policy, PolicyKind, PolicySet, Principal, Request};

/// Whom a trust policy must admit.
#[derive(Debug, Clone)]
pub(crate) struct Trustee {
    pub(crate) principal: Principal,
}

impl Trustee {
    /// A service principal such as `lambda.amazonaws.com`.
    pub(crate) fn service(name: &str) -> Trustee {
        Trustee {
            principal: Principal::Service(name.to_owned()),
        }
    }

    /// Whether `trust_policy` lets this trustee perform `action` (`sts:AssumeRole`) on
    /// `role_arn` at `now_secs`. A policy that does not parse (IAM validated it when it was
    /// stored, so only a parser changed since) admits no one.
    pub(crate) fn admitted_by(&self, trust_policy: &str, action: &str, role_arn: &str, now_secs: u64) -> bool {
        let policy = match Policy::parse(trust_policy, PolicyKind::Trust) {
            Ok(policy) => policy,
            Err(error) => {
                tracing::warn!(role = role_arn, %error, "stored trust policy does not parse; admits no one");
                return false;
            }
        };
        let request =
            Request::new(self.principal.clone(), action, [role_arn]).at(UNIX_EPOCH + Duration::from_secs(now_secs));
        let set = PolicySet {
            resource: Some(&policy),
            resource_account: role_arn.split(':').nth(4),
            resource_must_allow: true,
            ..PolicySet::default()
        };
        evaluate(&request, &set).is_allowed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLE: &str = "arn:aws:iam::123456789012:role/exec";

    fn trust(principal: &str) -> String {
        format!(
            r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":{principal},"Action":"sts:AssumeRole"}}]}}"#
        )
    }

    #[test]
    fn a_service_is_admitted_only_when_named() {
        let lambda = Trustee::service("lambda.amazonaws.com");
        assert!(lambda.admitted_by(
            &trust(r#"{"Service":"lambda.amazonaws.com"}"#),
            "sts:AssumeRole",
            ROLE,
            0
        ));
        assert!(lambda.admitted_by(
            &trust(r#"{"Service":["ec2.amazonaws.com","lambda.amazonaws.com"]}"#),
            "sts:AssumeRole",
            ROLE,
            0
        ));
        assert!(!lambda.admitted_by(&trust(r#"{"Service":"ec2.amazonaws.com"}"#), "sts:AssumeRole", ROLE, 0));
        assert!(!lambda.admitted_by(
            &trust(r#"{"AWS":"arn:aws:iam::123456789012:root"}"#),
            "sts:AssumeRole",
            ROLE,
            0
        ));
        assert!(!lambda.admitted_by("not json", "sts:AssumeRole", ROLE, 0));
    }

    #[test]
    fn an_explicit_deny_wins() {
        let document = r#"{"Version":"2012-10-17","Statement":[
            {"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"},
            {"Effect":"Deny","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}]}"#;
        assert!(!Trustee::service("lambda.amazonaws.com").admitted_by(document, "sts:AssumeRole", ROLE, 0));
    }
}
