//! The evaluation logic: explicit deny, identity and resource policies in one account and
//! across accounts, permissions boundaries, session policies, NotAction/NotResource/
//! NotPrincipal, and AccessDenied's wording (reference_policies_evaluation-logic*.html,
//! access_policies_boundaries.html, troubleshoot_access-denied.html).

use stratus_policy::{evaluate, Decision, Policy, PolicyKind, PolicySet, PolicyType, Principal, Request};

const ALICE: &str = "arn:aws:iam::123456789012:user/alice";
const SESSION: &str = "arn:aws:sts::123456789012:assumed-role/worker/job-1";
const QUEUE: &str = "arn:aws:sqs:us-east-1:123456789012:q";

fn identity(statements: &str) -> Policy {
    Policy::parse(
        &format!(r#"{{"Version":"2012-10-17","Statement":{statements}}}"#),
        PolicyKind::Identity,
    )
    .unwrap()
}

fn resource(statements: &str) -> Policy {
    Policy::parse(
        &format!(r#"{{"Version":"2012-10-17","Statement":{statements}}}"#),
        PolicyKind::Resource,
    )
    .unwrap()
}

fn request(principal: &str, action: &str, resource: &str) -> Request {
    Request::new(Principal::parse(principal).unwrap(), action, [resource])
}

fn allow(action: &str, resource: &str) -> Policy {
    identity(&format!(
        r#"{{"Effect":"Allow","Action":"{action}","Resource":"{resource}"}}"#
    ))
}

fn implicit(missing: PolicyType) -> Decision {
    Decision::ImplicitDeny { missing, resource: 0 }
}

fn explicit(by: PolicyType) -> Decision {
    Decision::ExplicitDeny { by, resource: 0 }
}

#[test]
fn nothing_allows_by_default() {
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    assert_eq!(
        evaluate(&req, &PolicySet::default()),
        implicit(PolicyType::IdentityBased)
    );
}

#[test]
fn an_identity_policy_allows_and_an_explicit_deny_wins() {
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let allow_all = allow("sqs:*", "*");
    let deny = identity(&format!(
        r#"{{"Effect":"Deny","Action":"sqs:SendMessage","Resource":"{QUEUE}"}}"#
    ));
    assert_eq!(
        evaluate(
            &req,
            &PolicySet {
                identity: vec![&allow_all],
                ..Default::default()
            }
        ),
        Decision::Allow
    );
    let both = PolicySet {
        identity: vec![&allow_all, &deny],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &both), explicit(PolicyType::IdentityBased));
}

#[test]
fn actions_ignore_case_and_resources_do_not() {
    let policy = allow("SQS:send*", QUEUE);
    let set = PolicySet {
        identity: vec![&policy],
        ..Default::default()
    };
    assert!(evaluate(&request(ALICE, "sqs:SendMessage", QUEUE), &set).is_allowed());
    assert!(!evaluate(
        &request(ALICE, "sqs:SendMessage", "arn:aws:sqs:us-east-1:123456789012:Q"),
        &set
    )
    .is_allowed());
}

#[test]
fn not_action_and_not_resource_match_everything_else() {
    let policy = identity(
        r#"[{"Effect":"Allow","NotAction":"iam:*","Resource":"*"},
                              {"Effect":"Deny","Action":"s3:*","NotResource":["arn:aws:s3:::public","arn:aws:s3:::public/*"]}]"#,
    );
    let set = PolicySet {
        identity: vec![&policy],
        ..Default::default()
    };
    assert!(evaluate(&request(ALICE, "sqs:SendMessage", QUEUE), &set).is_allowed());
    assert_eq!(
        evaluate(&request(ALICE, "iam:CreateUser", "*"), &set),
        implicit(PolicyType::IdentityBased)
    );
    assert!(evaluate(&request(ALICE, "s3:GetObject", "arn:aws:s3:::public/a"), &set).is_allowed());
    assert_eq!(
        evaluate(&request(ALICE, "s3:GetObject", "arn:aws:s3:::private/a"), &set),
        explicit(PolicyType::IdentityBased)
    );
}

#[test]
fn same_account_either_policy_may_allow() {
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let queue_policy = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{ALICE}"}},"Action":"sqs:SendMessage","Resource":"{QUEUE}"}}"#
    ));
    let set = PolicySet {
        resource: Some(&queue_policy),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), Decision::Allow);
    let set = PolicySet {
        resource: Some(&queue_policy),
        resource_account: Some("123456789012"),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), Decision::Allow);
}

#[test]
fn a_resource_policy_naming_the_account_defers_to_identity_policies() {
    // "arn:aws:iam::ID:root" or "ID" delegates to the account (reference_policies_elements_principal.html).
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let to_account = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"123456789012"}},"Action":"sqs:*","Resource":"{QUEUE}"}}"#
    ));
    let set = PolicySet {
        resource: Some(&to_account),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::IdentityBased));
    let allow_all = allow("sqs:*", "*");
    let set = PolicySet {
        identity: vec![&allow_all],
        resource: Some(&to_account),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), Decision::Allow);
}

#[test]
fn cross_account_needs_both_sides() {
    let other_queue = "arn:aws:sqs:us-east-1:999999999999:q";
    let req = request(ALICE, "sqs:SendMessage", other_queue);
    let allow_all = allow("sqs:*", "*");
    let to_alice = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{ALICE}"}},"Action":"sqs:*","Resource":"{other_queue}"}}"#
    ));
    let to_account = resource(
        r#"{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"sqs:*","Resource":"*"}"#,
    );
    let base = PolicySet {
        resource_account: Some("999999999999"),
        ..Default::default()
    };

    let only_identity = PolicySet {
        identity: vec![&allow_all],
        ..base.clone()
    };
    assert_eq!(evaluate(&req, &only_identity), implicit(PolicyType::ResourceBased));
    let only_resource = PolicySet {
        resource: Some(&to_alice),
        ..base.clone()
    };
    assert_eq!(evaluate(&req, &only_resource), implicit(PolicyType::IdentityBased));
    for grant in [&to_alice, &to_account] {
        let both = PolicySet {
            identity: vec![&allow_all],
            resource: Some(grant),
            ..base.clone()
        };
        assert_eq!(evaluate(&req, &both), Decision::Allow);
    }
}

#[test]
fn boundaries_cap_identity_policies_but_not_a_resource_policy_naming_the_user() {
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let allow_all = allow("*", "*");
    let boundary = allow("s3:*", "*");
    let capped = PolicySet {
        identity: vec![&allow_all],
        permissions_boundary: Some(&boundary),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &capped), implicit(PolicyType::PermissionsBoundary));
    assert!(evaluate(&request(ALICE, "s3:GetObject", "arn:aws:s3:::b/k"), &capped).is_allowed());

    let to_alice = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{ALICE}"}},"Action":"sqs:*","Resource":"*"}}"#
    ));
    let with_grant = PolicySet {
        resource: Some(&to_alice),
        ..capped.clone()
    };
    assert_eq!(evaluate(&req, &with_grant), Decision::Allow);

    let deny_in_boundary = identity(
        r#"[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sqs:*","Resource":"*"}]"#,
    );
    let denied = PolicySet {
        permissions_boundary: Some(&deny_in_boundary),
        ..with_grant
    };
    assert_eq!(evaluate(&req, &denied), explicit(PolicyType::PermissionsBoundary));
}

#[test]
fn role_sessions_named_by_role_arn_stay_capped_by_session_arn_do_not() {
    let req = request(SESSION, "sqs:SendMessage", QUEUE);
    let boundary = allow("s3:*", "*");
    let session_policy = allow("s3:*", "*");
    let by_role = resource(
        r#"{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:role/team/worker"},"Action":"sqs:*","Resource":"*"}"#,
    );
    let by_session = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{SESSION}"}},"Action":"sqs:*","Resource":"*"}}"#
    ));

    // Named through its role (the role's path does not appear in the session ARN), no identity policy needed.
    assert!(evaluate(
        &req,
        &PolicySet {
            resource: Some(&by_role),
            ..Default::default()
        }
    )
    .is_allowed());
    let set = PolicySet {
        resource: Some(&by_role),
        permissions_boundary: Some(&boundary),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::PermissionsBoundary));
    let set = PolicySet {
        resource: Some(&by_role),
        session: vec![&session_policy],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::SessionPolicy));

    let set = PolicySet {
        resource: Some(&by_session),
        permissions_boundary: Some(&boundary),
        session: vec![&session_policy],
        ..Default::default()
    };
    assert!(evaluate(&req, &set).is_allowed());
}

#[test]
fn session_policies_cap_identity_policies() {
    let req = request(SESSION, "sqs:SendMessage", QUEUE);
    let allow_all = allow("*", "*");
    let narrow = allow("s3:*", "*");
    let wide = allow("sqs:*", "*");
    let set = PolicySet {
        identity: vec![&allow_all],
        session: vec![&narrow],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::SessionPolicy));
    // Several session policies (inline and managed) together: any may allow.
    let set = PolicySet {
        identity: vec![&allow_all],
        session: vec![&narrow, &wide],
        ..Default::default()
    };
    assert!(evaluate(&req, &set).is_allowed());
    // A session policy cannot grant what the role's policies do not.
    let set = PolicySet {
        session: vec![&wide],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::IdentityBased));
}

#[test]
fn not_principal_exempts_only_principals_listed_with_their_account() {
    let deny_others = |listed: &str| {
        resource(&format!(
            r#"[{{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}},
                {{"Effect":"Deny","NotPrincipal":{{"AWS":{listed}}},"Action":"sqs:*","Resource":"*"}}]"#
        ))
    };
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let with_account = deny_others(&format!(r#"["{ALICE}","arn:aws:iam::123456789012:root"]"#));
    let without_account = deny_others(&format!(r#"["{ALICE}"]"#));
    assert!(evaluate(
        &req,
        &PolicySet {
            resource: Some(&with_account),
            ..Default::default()
        }
    )
    .is_allowed());
    assert_eq!(
        evaluate(
            &req,
            &PolicySet {
                resource: Some(&without_account),
                ..Default::default()
            }
        ),
        explicit(PolicyType::ResourceBased)
    );
    let bob = request("arn:aws:iam::123456789012:user/bob", "sqs:SendMessage", QUEUE);
    assert_eq!(
        evaluate(
            &bob,
            &PolicySet {
                resource: Some(&with_account),
                ..Default::default()
            }
        ),
        explicit(PolicyType::ResourceBased)
    );

    // A role session is exempt only with its session, role and account all listed.
    let session = request(SESSION, "sqs:SendMessage", QUEUE);
    let all_three = deny_others(&format!(
        r#"["{SESSION}","arn:aws:iam::123456789012:role/worker","123456789012"]"#
    ));
    let two = deny_others(&format!(r#"["{SESSION}","123456789012"]"#));
    assert!(evaluate(
        &session,
        &PolicySet {
            resource: Some(&all_three),
            ..Default::default()
        }
    )
    .is_allowed());
    assert!(!evaluate(
        &session,
        &PolicySet {
            resource: Some(&two),
            ..Default::default()
        }
    )
    .is_allowed());

    // NotPrincipal with Deny catches every principal that has a permissions boundary.
    let boundary = allow("*", "*");
    let set = PolicySet {
        resource: Some(&with_account),
        permissions_boundary: Some(&boundary),
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), explicit(PolicyType::ResourceBased));
}

#[test]
fn services_and_anonymous_callers_need_the_resource_policy() {
    let from_sns = resource(
        r#"{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}"#,
    );
    let public = resource(r#"{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}"#);
    let sns = Request::new(
        Principal::Service("sns.amazonaws.com".into()),
        "sqs:SendMessage",
        [QUEUE],
    );
    let anonymous = Request::new(Principal::Anonymous, "sqs:SendMessage", [QUEUE]);
    assert!(evaluate(
        &sns,
        &PolicySet {
            resource: Some(&from_sns),
            ..Default::default()
        }
    )
    .is_allowed());
    assert_eq!(
        evaluate(
            &anonymous,
            &PolicySet {
                resource: Some(&from_sns),
                ..Default::default()
            }
        ),
        implicit(PolicyType::ResourceBased)
    );
    assert!(evaluate(
        &anonymous,
        &PolicySet {
            resource: Some(&public),
            ..Default::default()
        }
    )
    .is_allowed());
    assert_eq!(
        evaluate(&sns, &PolicySet::default()),
        implicit(PolicyType::ResourceBased)
    );
}

#[test]
fn the_root_user_needs_no_policy_in_its_own_account_but_can_be_denied() {
    let root = request("arn:aws:iam::123456789012:root", "sqs:DeleteQueue", QUEUE);
    assert!(evaluate(&root, &PolicySet::default()).is_allowed());
    let deny = resource(r#"{"Effect":"Deny","Principal":"*","Action":"sqs:DeleteQueue","Resource":"*"}"#);
    assert_eq!(
        evaluate(
            &root,
            &PolicySet {
                resource: Some(&deny),
                ..Default::default()
            }
        ),
        explicit(PolicyType::ResourceBased)
    );
    let elsewhere = PolicySet {
        resource_account: Some("999999999999"),
        ..Default::default()
    };
    assert_eq!(evaluate(&root, &elsewhere), implicit(PolicyType::ResourceBased));
}

#[test]
fn every_resource_must_be_allowed() {
    let policy = allow(
        "dynamodb:BatchGetItem",
        "arn:aws:dynamodb:us-east-1:123456789012:table/A",
    );
    let set = PolicySet {
        identity: vec![&policy],
        ..Default::default()
    };
    let req = Request::new(
        Principal::parse(ALICE).unwrap(),
        "dynamodb:BatchGetItem",
        [
            "arn:aws:dynamodb:us-east-1:123456789012:table/A",
            "arn:aws:dynamodb:us-east-1:123456789012:table/B",
        ],
    );
    let decision = evaluate(&req, &set);
    assert_eq!(
        decision,
        Decision::ImplicitDeny {
            missing: PolicyType::IdentityBased,
            resource: 1
        }
    );
    assert!(decision
        .message(&req)
        .unwrap()
        .contains("on resource: arn:aws:dynamodb:us-east-1:123456789012:table/B because"));
}

#[test]
fn access_denied_messages_word_each_reason() {
    let req = request(ALICE, "sqs:SendMessage", QUEUE);
    let head = format!("User: {ALICE} is not authorized to perform: sqs:SendMessage on resource: {QUEUE} ");
    let cases = [
        (
            implicit(PolicyType::IdentityBased),
            "because no identity-based policy allows the sqs:SendMessage action",
        ),
        (
            implicit(PolicyType::ResourceBased),
            "because no resource-based policy allows the sqs:SendMessage action",
        ),
        (
            implicit(PolicyType::PermissionsBoundary),
            "because no permissions boundary allows the sqs:SendMessage action",
        ),
        (
            implicit(PolicyType::SessionPolicy),
            "because no session policy allows the sqs:SendMessage action",
        ),
        (
            explicit(PolicyType::IdentityBased),
            "with an explicit deny in an identity-based policy",
        ),
        (
            explicit(PolicyType::ResourceBased),
            "with an explicit deny in a resource-based policy",
        ),
        (
            explicit(PolicyType::PermissionsBoundary),
            "with an explicit deny in a permissions boundary",
        ),
        (
            explicit(PolicyType::SessionPolicy),
            "with an explicit deny in a session policy",
        ),
    ];
    for (decision, why) in cases {
        assert_eq!(decision.message(&req).unwrap(), format!("{head}{why}"));
    }
    assert_eq!(Decision::Allow.message(&req), None);
    let list = Request::new(Principal::parse(ALICE).unwrap(), "sqs:ListQueues", Vec::<String>::new());
    assert_eq!(
        implicit(PolicyType::IdentityBased).message(&list).unwrap(),
        format!("User: {ALICE} is not authorized to perform: sqs:ListQueues because no identity-based policy allows the sqs:ListQueues action")
    );
}

#[test]
fn a_deny_anywhere_wins_over_a_direct_grant() {
    let req = request(SESSION, "sqs:SendMessage", QUEUE);
    let by_session = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{SESSION}"}},"Action":"sqs:*","Resource":"*"}}"#
    ));
    let deny = identity(r#"{"Effect":"Deny","Action":"sqs:Send*","Resource":"*"}"#);
    let set = PolicySet {
        resource: Some(&by_session),
        session: vec![&deny],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), explicit(PolicyType::SessionPolicy));
    let set = PolicySet {
        resource: Some(&by_session),
        identity: vec![&deny],
        ..Default::default()
    };
    assert_eq!(evaluate(&req, &set), explicit(PolicyType::IdentityBased));
}

#[test]
fn across_accounts_boundaries_and_session_policies_still_cap() {
    let other_queue = "arn:aws:sqs:us-east-1:999999999999:q";
    let req = request(SESSION, "sqs:SendMessage", other_queue);
    let by_session = resource(&format!(
        r#"{{"Effect":"Allow","Principal":{{"AWS":"{SESSION}"}},"Action":"sqs:*","Resource":"*"}}"#
    ));
    let allow_all = allow("*", "*");
    let narrow = allow("s3:*", "*");
    let base = PolicySet {
        identity: vec![&allow_all],
        resource: Some(&by_session),
        resource_account: Some("999999999999"),
        ..Default::default()
    };
    assert!(evaluate(&req, &base).is_allowed());
    let set = PolicySet {
        permissions_boundary: Some(&narrow),
        ..base.clone()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::PermissionsBoundary));
    let set = PolicySet {
        session: vec![&narrow],
        ..base.clone()
    };
    assert_eq!(evaluate(&req, &set), implicit(PolicyType::SessionPolicy));
}

#[test]
fn actions_without_a_resource_need_resource_star() {
    let queue_only = allow("sqs:*", QUEUE);
    let star = allow("sqs:*", "*");
    let list = Request::new(Principal::parse(ALICE).unwrap(), "sqs:ListQueues", Vec::<String>::new());
    assert!(!evaluate(
        &list,
        &PolicySet {
            identity: vec![&queue_only],
            ..Default::default()
        }
    )
    .is_allowed());
    assert!(evaluate(
        &list,
        &PolicySet {
            identity: vec![&star],
            ..Default::default()
        }
    )
    .is_allowed());
}
