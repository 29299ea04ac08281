//! Principal matching in resource and trust policies: `*`, account IDs and `:root`, role ARNs
//! covering their sessions, exact ARNs, services, web identity providers, canonical users
//! (reference_policies_elements_principal.html, id_roles_terms-and-concepts.html).

use stratus_policy::{evaluate, Decision, IamKind, Policy, PolicyKind, PolicySet, PolicyType, Principal, Request};

const ROLE: &str = "arn:aws:iam::123456789012:role/deploy";

fn trust(principal: &str) -> Policy {
    let doc = format!(
        r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Principal":{principal},"Action":["sts:AssumeRole","sts:AssumeRoleWithWebIdentity"]}}}}"#
    );
    Policy::parse(&doc, PolicyKind::Trust).unwrap()
}

/// Whether `principal` may assume the role under `policy`, with no identity policy of its own.
fn may_assume(policy: &Policy, principal: Principal) -> bool {
    let request = Request::new(principal, "sts:AssumeRole", [ROLE]);
    evaluate(
        &request,
        &PolicySet {
            resource: Some(policy),
            ..Default::default()
        },
    )
    .is_allowed()
}

fn iam(arn: &str) -> Principal {
    Principal::parse(arn).unwrap()
}

#[test]
fn principal_arns_are_read_into_their_kind() {
    let kind = |arn: &str| match iam(arn) {
        Principal::Iam(p) => p.kind().clone(),
        _ => unreachable!(),
    };
    assert_eq!(kind("arn:aws:iam::1:root"), IamKind::Root);
    assert_eq!(
        kind("arn:aws:iam::1:user/dev/alice"),
        IamKind::User { name: "alice".into() }
    );
    assert_eq!(
        kind("arn:aws:sts::1:assumed-role/deploy/ci-42"),
        IamKind::AssumedRole {
            role: "deploy".into(),
            session: "ci-42".into()
        }
    );
    assert_eq!(
        kind("arn:aws:sts::1:federated-user/bob"),
        IamKind::FederatedUser { name: "bob".into() }
    );
    assert_eq!(kind(ROLE), IamKind::Other);
    assert!(Principal::parse("alice").is_err());
}

#[test]
fn the_request_carries_the_principal_keys() {
    let r = Request::new(
        iam("arn:aws:sts::123456789012:assumed-role/deploy/ci"),
        "s3:GetObject",
        ["*"],
    );
    assert_eq!(
        r.context_values("aws:PrincipalArn").unwrap(),
        ["arn:aws:sts::123456789012:assumed-role/deploy/ci"]
    );
    assert_eq!(r.context_values("aws:PrincipalAccount").unwrap(), ["123456789012"]);
    assert_eq!(r.context_values("aws:PrincipalType").unwrap(), ["AssumedRole"]);
    assert_eq!(
        r.context_values("aws:username"),
        None,
        "role sessions have no user name"
    );
    let u = Request::new(iam("arn:aws:iam::123456789012:user/ops/alice"), "s3:GetObject", ["*"]);
    assert_eq!(u.context_values("aws:username").unwrap(), ["alice"]);
    let root = Request::new(iam("arn:aws:iam::123456789012:root"), "s3:GetObject", ["*"]);
    assert_eq!(root.context_values("aws:userid").unwrap(), ["123456789012"]);
    assert_eq!(root.context_values("aws:PrincipalType").unwrap(), ["Account"]);
    let federated = Request::new(
        iam("arn:aws:sts::123456789012:federated-user/carol"),
        "s3:GetObject",
        ["*"],
    );
    assert_eq!(federated.context_values("aws:userid").unwrap(), ["123456789012:carol"]);
    let anonymous = Request::new(Principal::Anonymous, "s3:GetObject", ["*"]);
    assert_eq!(anonymous.context_values("aws:userid").unwrap(), ["anonymous"]);
    let s = Request::new(Principal::Service("sns.amazonaws.com".into()), "sqs:SendMessage", ["*"]);
    assert_eq!(
        s.context_values("aws:PrincipalServiceName").unwrap(),
        ["sns.amazonaws.com"]
    );
}

#[test]
fn exact_arns_and_everyone() {
    let alice = "arn:aws:iam::123456789012:user/alice";
    let policy = trust(&format!(r#"{{"AWS":"{alice}"}}"#));
    assert!(may_assume(&policy, iam(alice)));
    assert!(!may_assume(&policy, iam("arn:aws:iam::123456789012:user/bob")));
    assert!(!may_assume(&policy, iam("arn:aws-cn:iam::123456789012:user/alice")));
    let anyone = trust(r#""*""#);
    assert!(may_assume(&anyone, iam(alice)));
    assert!(may_assume(&anyone, Principal::Anonymous));
    assert!(may_assume(
        &trust(r#"{"AWS":"*"}"#),
        Principal::Service("ec2.amazonaws.com".into())
    ));
}

#[test]
fn an_account_needs_its_own_policies_to_agree() {
    let policy = trust(r#"{"AWS":"arn:aws:iam::123456789012:root"}"#);
    let alice = iam("arn:aws:iam::123456789012:user/alice");
    assert!(!may_assume(&policy, alice.clone()));
    assert!(
        may_assume(&policy, iam("arn:aws:iam::123456789012:root")),
        "the root user is the account"
    );
    let allow = Policy::parse(
        r#"{"Statement":{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}}"#,
        PolicyKind::Identity,
    )
    .unwrap();
    let request = Request::new(alice, "sts:AssumeRole", [ROLE]);
    let set = PolicySet {
        identity: vec![&allow],
        resource: Some(&policy),
        ..Default::default()
    };
    assert_eq!(evaluate(&request, &set), Decision::Allow);
    let other = Request::new(iam("arn:aws:iam::999999999999:user/alice"), "sts:AssumeRole", [ROLE]);
    let set = PolicySet {
        identity: vec![&allow],
        resource: Some(&policy),
        resource_account: Some("123456789012"),
        ..Default::default()
    };
    assert_eq!(
        evaluate(&other, &set),
        Decision::ImplicitDeny {
            missing: PolicyType::ResourceBased,
            resource: 0
        }
    );
}

#[test]
fn a_role_arn_covers_its_sessions_and_only_its_own() {
    let policy = trust(r#"{"AWS":"arn:aws:iam::123456789012:role/ci/builder"}"#);
    assert!(may_assume(
        &policy,
        iam("arn:aws:sts::123456789012:assumed-role/builder/run-1")
    ));
    assert!(!may_assume(
        &policy,
        iam("arn:aws:sts::123456789012:assumed-role/builder2/run-1")
    ));
    assert!(!may_assume(
        &policy,
        iam("arn:aws:sts::999999999999:assumed-role/builder/run-1")
    ));
    let session = trust(r#"{"AWS":"arn:aws:sts::123456789012:assumed-role/builder/run-1"}"#);
    assert!(may_assume(
        &session,
        iam("arn:aws:sts::123456789012:assumed-role/builder/run-1")
    ));
    assert!(!may_assume(
        &session,
        iam("arn:aws:sts::123456789012:assumed-role/builder/run-2")
    ));
}

#[test]
fn services_providers_and_canonical_users_match_by_name() {
    let lambda = trust(r#"{"Service":["lambda.amazonaws.com","edgelambda.amazonaws.com"]}"#);
    assert!(may_assume(&lambda, Principal::Service("lambda.amazonaws.com".into())));
    assert!(!may_assume(&lambda, Principal::Service("ec2.amazonaws.com".into())));
    assert!(!may_assume(&lambda, iam("arn:aws:iam::123456789012:user/lambda")));
    let web = trust(r#"{"Federated":"cognito-identity.amazonaws.com"}"#);
    assert!(may_assume(
        &web,
        Principal::Federated("cognito-identity.amazonaws.com".into())
    ));
    assert!(!may_assume(&web, Principal::Federated("accounts.google.com".into())));
    let canonical = trust(r#"{"CanonicalUser":"79a59df900b949e55d96a1e698fbace"}"#);
    assert!(may_assume(
        &canonical,
        Principal::CanonicalUser("79a59df900b949e55d96a1e698fbace".into())
    ));
}

#[test]
fn trust_and_key_policies_must_allow_even_in_their_own_account() {
    // reference_policies_evaluation-logic_policy-eval-denyallow.html: "IAM role trust policies
    // and KMS key policies are exceptions to this logic".
    let alice = iam("arn:aws:iam::123456789012:user/alice");
    let allow = Policy::parse(
        r#"{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}"#,
        PolicyKind::Identity,
    )
    .unwrap();
    let someone_else = trust(r#"{"Service":"lambda.amazonaws.com"}"#);
    let request = Request::new(alice.clone(), "sts:AssumeRole", [ROLE]);
    let set = PolicySet {
        identity: vec![&allow],
        resource: Some(&someone_else),
        ..Default::default()
    };
    assert_eq!(
        evaluate(&request, &set),
        Decision::ImplicitDeny {
            missing: PolicyType::ResourceBased,
            resource: 0
        }
    );

    let key = "arn:aws:kms:us-east-1:123456789012:key/1";
    let key_policy = Policy::parse(
        r#"{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"kms:*","Resource":"*"}}"#,
        PolicyKind::Resource,
    )
    .unwrap();
    let no_key_policy_grant = Policy::parse(
        r#"{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/bob"},"Action":"kms:*","Resource":"*"}}"#,
        PolicyKind::Resource,
    )
    .unwrap();
    let decrypt = Request::new(alice, "kms:Decrypt", [key]);
    let kms = |policy| PolicySet {
        identity: vec![&allow],
        resource: Some(policy),
        resource_must_allow: true,
        ..Default::default()
    };
    assert!(
        evaluate(&decrypt, &kms(&key_policy)).is_allowed(),
        "the key policy enables IAM policies"
    );
    assert!(!evaluate(&decrypt, &kms(&no_key_policy_grant)).is_allowed());
    let plain = PolicySet {
        resource_must_allow: false,
        ..kms(&no_key_policy_grant)
    };
    assert!(
        evaluate(&decrypt, &plain).is_allowed(),
        "other resources: the identity policy is enough"
    );
}

#[test]
fn a_federated_user_named_directly_is_not_capped() {
    let federated = "arn:aws:sts::123456789012:federated-user/carol";
    let to_session = Policy::parse(
        &format!(
            r#"{{"Statement":{{"Effect":"Allow","Principal":{{"AWS":"{federated}"}},"Action":"s3:*","Resource":"*"}}}}"#
        ),
        PolicyKind::Resource,
    )
    .unwrap();
    let narrow = Policy::parse(
        r#"{"Statement":{"Effect":"Allow","Action":"sqs:*","Resource":"*"}}"#,
        PolicyKind::Identity,
    )
    .unwrap();
    let request = Request::new(iam(federated), "s3:GetObject", ["arn:aws:s3:::b/k"]);
    let set = PolicySet {
        resource: Some(&to_session),
        session: vec![&narrow],
        ..Default::default()
    };
    assert!(evaluate(&request, &set).is_allowed());
}
