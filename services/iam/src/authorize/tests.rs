//! The authorizer against a real (ephemeral) store, set up through IAM's own operations.

use std::future::Future;
use std::sync::Arc;

use stratus_core::service::{Authorization, Authorizer, Decision, SessionGrants, Verdict};
use stratus_core::{Principal, PrincipalKind, RequestContext};
use stratus_gen_iam::*;
use stratus_storage::{Storage, StorageConfig};

use super::{allows_nothing, unrecorded_caller};
use crate::service::IamService;

const ACCOUNT: &str = "123456789012";
const OTHER: &str = "210987654321";
const QUEUE: &str = "arn:aws:sqs:us-east-1:123456789012:orders";
const TRUST: &str = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"sts:AssumeRole"}}"#;

fn allow(action: &str, resource: &str) -> String {
    format!(
        r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Action":"{action}","Resource":"{resource}"}}}}"#
    )
}

fn deny(action: &str, resource: &str) -> String {
    allow(action, resource).replace("Allow", "Deny")
}

fn tags(pairs: &[(&str, &str)]) -> Option<Vec<Tag>> {
    Some(
        pairs
            .iter()
            .map(|(key, value)| Tag {
                key: (*key).into(),
                value: (*value).into(),
            })
            .collect(),
    )
}

/// IAM over an ephemeral store, and the context its operations are called in.
struct Fixture {
    runtime: tokio::runtime::Runtime,
    iam: IamService,
    ctx: RequestContext,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            runtime: tokio::runtime::Builder::new_current_thread().build().unwrap(),
            iam: IamService::new(Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap())),
            ctx: RequestContext::unsigned(ACCOUNT, "us-east-1", Default::default()),
        }
    }

    fn run<T>(&self, operation: impl Future<Output = T>) -> T {
        self.runtime.block_on(operation)
    }

    /// A new user, as the gateway names it once it has checked the user's signature.
    fn user(&self, name: &str, user_tags: &[(&str, &str)]) -> Principal {
        let input = CreateUserRequest {
            user_name: name.into(),
            tags: tags(user_tags).filter(|t| !t.is_empty()),
            ..Default::default()
        };
        let user = self.run(self.iam.create_user(&self.ctx, input)).unwrap().user.unwrap();
        Principal {
            kind: PrincipalKind::User,
            arn: user.arn,
            user_id: user.user_id,
            temporary: false,
        }
    }

    fn put_user_policy(&self, user: &str, name: &str, document: &str) {
        let input = PutUserPolicyRequest {
            user_name: user.into(),
            policy_name: name.into(),
            policy_document: document.into(),
        };
        self.run(self.iam.put_user_policy(&self.ctx, input)).unwrap();
    }

    /// A new customer managed policy's ARN.
    fn policy(&self, name: &str, document: &str) -> String {
        let input = CreatePolicyRequest {
            policy_name: name.into(),
            policy_document: document.into(),
            ..Default::default()
        };
        let policy = self.run(self.iam.create_policy(&self.ctx, input)).unwrap().policy;
        policy.unwrap().arn.unwrap()
    }

    fn group(&self, name: &str, member: &str) {
        let input = CreateGroupRequest {
            group_name: name.into(),
            ..Default::default()
        };
        self.run(self.iam.create_group(&self.ctx, input)).unwrap();
        let input = AddUserToGroupRequest {
            group_name: name.into(),
            user_name: member.into(),
        };
        self.run(self.iam.add_user_to_group(&self.ctx, input)).unwrap();
    }

    fn attach_group_policy(&self, group: &str, arn: &str) {
        let input = AttachGroupPolicyRequest {
            group_name: group.into(),
            policy_arn: arn.into(),
        };
        self.run(self.iam.attach_group_policy(&self.ctx, input)).unwrap();
    }

    /// A new role with one inline policy, and its id.
    fn role(&self, name: &str, document: &str, role_tags: &[(&str, &str)]) -> String {
        let input = CreateRoleRequest {
            role_name: name.into(),
            path: Some("/app/".into()),
            assume_role_policy_document: TRUST.into(),
            tags: tags(role_tags).filter(|t| !t.is_empty()),
            ..Default::default()
        };
        let role = self.run(self.iam.create_role(&self.ctx, input)).unwrap().role;
        let input = PutRolePolicyRequest {
            role_name: name.into(),
            policy_name: "main".into(),
            policy_document: document.into(),
        };
        self.run(self.iam.put_role_policy(&self.ctx, input)).unwrap();
        role.role_id
    }

    fn verdict(&self, request: &Authorization<'_>) -> Verdict {
        self.iam.authorize(request).unwrap()
    }
}

/// A session of role `role` (with id `role_id`) named `session`.
fn session(role: &str, role_id: &str, session: &str) -> Principal {
    Principal {
        kind: PrincipalKind::AssumedRole,
        arn: format!("arn:aws:sts::{ACCOUNT}:assumed-role/{role}/{session}"),
        user_id: format!("{role_id}:{session}"),
        temporary: true,
    }
}

/// A request in `ACCOUNT` with no resource policy.
fn request<'a>(principal: Option<&'a Principal>, action: &'a str, resources: &'a [String]) -> Authorization<'a> {
    Authorization {
        account_id: ACCOUNT,
        partition: "aws",
        principal,
        anonymous: false,
        session: None,
        action,
        resources,
        resource_policy: None,
        resource_account: None,
        resource_must_allow: false,
        resource_tags: None,
        context: &[],
        now_secs: 1_700_000_000,
    }
}

fn allowed() -> Verdict {
    Verdict {
        decision: Decision::Allow,
        message: None,
    }
}

fn refused(decision: Decision, message: &str) -> Verdict {
    Verdict {
        decision,
        message: Some(message.to_owned()),
    }
}

#[test]
fn a_user_policy_allows_and_nothing_else_does() {
    let f = Fixture::new();
    let alice = f.user("alice", &[]);
    f.put_user_policy("alice", "send", &allow("sqs:SendMessage", QUEUE));
    let queue = [QUEUE.to_owned()];
    assert_eq!(f.verdict(&request(Some(&alice), "sqs:SendMessage", &queue)), allowed());
    assert_eq!(
        f.verdict(&request(Some(&alice), "sqs:DeleteQueue", &queue)),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:iam::123456789012:user/alice is not authorized to perform: sqs:DeleteQueue on \
             resource: arn:aws:sqs:us-east-1:123456789012:orders because no identity-based policy allows the \
             sqs:DeleteQueue action"
        )
    );
}

#[test]
fn group_policies_and_aws_managed_policies_allow() {
    let f = Fixture::new();
    let bob = f.user("bob", &[]);
    f.group("senders", "bob");
    f.attach_group_policy("senders", &f.policy("send", &allow("sqs:SendMessage", "*")));
    f.attach_group_policy("senders", "arn:aws:iam::aws:policy/AmazonS3FullAccess");
    let queue = [QUEUE.to_owned()];
    let object = ["arn:aws:s3:::bucket/key".to_owned()];
    assert_eq!(f.verdict(&request(Some(&bob), "sqs:SendMessage", &queue)), allowed());
    assert_eq!(f.verdict(&request(Some(&bob), "s3:GetObject", &object)), allowed());
    assert_eq!(
        f.verdict(&request(Some(&bob), "sqs:DeleteQueue", &queue)).decision,
        Decision::ImplicitDeny
    );
}

#[test]
fn an_explicit_deny_wins() {
    let f = Fixture::new();
    let carol = f.user("carol", &[]);
    f.put_user_policy("carol", "all", &allow("*", "*"));
    f.group("careful", "carol");
    f.attach_group_policy("careful", &f.policy("no-delete", &deny("sqs:DeleteQueue", "*")));
    let queue = [QUEUE.to_owned()];
    assert_eq!(
        f.verdict(&request(Some(&carol), "sqs:DeleteQueue", &queue)),
        refused(
            Decision::ExplicitDeny,
            "User: arn:aws:iam::123456789012:user/carol is not authorized to perform: sqs:DeleteQueue on \
             resource: arn:aws:sqs:us-east-1:123456789012:orders with an explicit deny in an identity-based policy"
        )
    );
    assert_eq!(f.verdict(&request(Some(&carol), "sqs:SendMessage", &queue)), allowed());
}

#[test]
fn a_permissions_boundary_caps_what_policies_allow() {
    let f = Fixture::new();
    let dave = f.user("dave", &[]);
    f.put_user_policy("dave", "all", &allow("*", "*"));
    let boundary = f.policy("s3-only", &allow("s3:*", "*"));
    let input = PutUserPermissionsBoundaryRequest {
        user_name: "dave".into(),
        permissions_boundary: boundary,
    };
    f.run(f.iam.put_user_permissions_boundary(&f.ctx, input)).unwrap();
    let queue = [QUEUE.to_owned()];
    let object = ["arn:aws:s3:::bucket/key".to_owned()];
    assert_eq!(f.verdict(&request(Some(&dave), "s3:PutObject", &object)), allowed());
    assert_eq!(
        f.verdict(&request(Some(&dave), "sqs:SendMessage", &queue)),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:iam::123456789012:user/dave is not authorized to perform: sqs:SendMessage on \
             resource: arn:aws:sqs:us-east-1:123456789012:orders because no permissions boundary allows the \
             sqs:SendMessage action"
        )
    );
}

#[test]
fn session_policies_cap_a_role_session() {
    let f = Fixture::new();
    let id = f.role("deploy", &allow("s3:*", "*"), &[]);
    let managed = f.policy("list", &allow("s3:ListBucket", "*"));
    let ci = session("deploy", &id, "ci");
    let object = ["arn:aws:s3:::bucket/key".to_owned()];
    let bucket = ["arn:aws:s3:::bucket".to_owned()];
    assert_eq!(f.verdict(&request(Some(&ci), "s3:PutObject", &object)), allowed());

    let grants = SessionGrants {
        policy: Some(allow("s3:GetObject", "*")),
        policy_arns: vec![managed],
        ..SessionGrants::default()
    };
    let with = |action, resources| Authorization {
        session: Some(&grants),
        ..request(Some(&ci), action, resources)
    };
    assert_eq!(f.verdict(&with("s3:GetObject", &object)), allowed());
    assert_eq!(f.verdict(&with("s3:ListBucket", &bucket)), allowed());
    assert_eq!(
        f.verdict(&with("s3:PutObject", &object)),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:sts::123456789012:assumed-role/deploy/ci is not authorized to perform: s3:PutObject \
             on resource: \"arn:aws:s3:::bucket/key\" because no session policy allows the s3:PutObject action"
        )
    );
}

#[test]
fn a_session_whose_managed_policies_are_gone_is_allowed_nothing() {
    let f = Fixture::new();
    let id = f.role("ops", &allow("*", "*"), &[]);
    let arn = f.policy("short-lived", &allow("sqs:*", "*"));
    let grants = SessionGrants {
        policy_arns: vec![arn.clone()],
        ..SessionGrants::default()
    };
    let principal = session("ops", &id, "s");
    let queue = [QUEUE.to_owned()];
    let send = Authorization {
        session: Some(&grants),
        ..request(Some(&principal), "sqs:SendMessage", &queue)
    };
    assert_eq!(f.verdict(&send), allowed());
    let input = DeletePolicyRequest { policy_arn: arn };
    f.run(f.iam.delete_policy(&f.ctx, input)).unwrap();
    assert_eq!(f.verdict(&send).decision, Decision::ImplicitDeny);
}

#[test]
fn session_tags_override_the_roles_and_the_session_names_its_role() {
    let f = Fixture::new();
    let id = f.role(
        "team",
        &allow("s3:GetObject", "arn:aws:s3:::shared/${aws:PrincipalTag/team}/*"),
        &[("team", "red")],
    );
    let principal = session("team", &id, "alice");
    let red = ["arn:aws:s3:::shared/red/k".to_owned()];
    let blue = ["arn:aws:s3:::shared/blue/k".to_owned()];
    assert_eq!(f.verdict(&request(Some(&principal), "s3:GetObject", &red)), allowed());
    assert_eq!(
        f.verdict(&request(Some(&principal), "s3:GetObject", &blue)).decision,
        Decision::ImplicitDeny
    );

    let tagged = SessionGrants {
        tags: vec![("team".into(), "blue".into())],
        ..SessionGrants::default()
    };
    let with = |resources| Authorization {
        session: Some(&tagged),
        ..request(Some(&principal), "s3:GetObject", resources)
    };
    assert_eq!(f.verdict(&with(&blue)), allowed());
    assert_eq!(f.verdict(&with(&red)).decision, Decision::ImplicitDeny);

    // aws:PrincipalArn is the role's ARN, with its path; aws:userid is ROLEID:SESSION.
    let keyed = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*",
        "Condition":{"ArnEquals":{"aws:PrincipalArn":"arn:aws:iam::123456789012:role/app/keyed"},
        "StringEquals":{"aws:PrincipalType":"AssumedRole"},"StringLike":{"aws:userid":"AROA*:bob"}}}}"#;
    let id = f.role("keyed", keyed, &[]);
    let queue = [QUEUE.to_owned()];
    let bob = session("keyed", &id, "bob");
    assert_eq!(f.verdict(&request(Some(&bob), "sqs:SendMessage", &queue)), allowed());
    let eve = session("keyed", &id, "eve");
    assert_eq!(
        f.verdict(&request(Some(&eve), "sqs:SendMessage", &queue)).decision,
        Decision::ImplicitDeny
    );
}

#[test]
fn a_user_gets_its_own_condition_keys() {
    let f = Fixture::new();
    let erin = f.user("erin", &[("team", "blue")]);
    let document = format!(
        r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Action":"s3:GetObject",
            "Resource":"arn:aws:s3:::home/${{aws:username}}/${{aws:PrincipalTag/team}}/*",
            "Condition":{{"StringEquals":{{"aws:userid":"{}","aws:PrincipalType":"User",
            "aws:PrincipalAccount":"123456789012","aws:PrincipalArn":"arn:aws:iam::123456789012:user/erin"}}}}}}}}"#,
        erin.user_id
    );
    f.put_user_policy("erin", "home", &document);
    let own = ["arn:aws:s3:::home/erin/blue/k".to_owned()];
    let other = ["arn:aws:s3:::home/erin/red/k".to_owned()];
    assert_eq!(f.verdict(&request(Some(&erin), "s3:GetObject", &own)), allowed());
    assert_eq!(
        f.verdict(&request(Some(&erin), "s3:GetObject", &other)).decision,
        Decision::ImplicitDeny
    );
}

#[test]
fn the_request_context_reaches_conditions() {
    let f = Fixture::new();
    let frank = f.user("frank", &[]);
    let document = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*",
        "Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"DateLessThan":{"aws:CurrentTime":"2024-01-01T00:00:00Z"}}}}"#;
    f.put_user_policy("frank", "office", document);
    let queue = [QUEUE.to_owned()];
    let inside = [("aws:SourceIp", vec!["10.1.2.3".to_owned()])];
    let outside = [("aws:SourceIp", vec!["192.0.2.1".to_owned()])];
    let at = |context, now_secs| Authorization {
        context,
        now_secs,
        ..request(Some(&frank), "sqs:SendMessage", &queue)
    };
    assert_eq!(f.verdict(&at(&inside, 1_700_000_000)), allowed());
    assert_eq!(f.verdict(&at(&outside, 1_700_000_000)).decision, Decision::ImplicitDeny);
    assert_eq!(f.verdict(&at(&inside, 1_800_000_000)).decision, Decision::ImplicitDeny);
}

#[test]
fn the_root_is_limited_only_by_resource_policies() {
    let f = Fixture::new();
    let queue = [QUEUE.to_owned()];
    assert_eq!(f.verdict(&request(None, "sqs:DeleteQueue", &queue)), allowed());

    let denying = r#"{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*","Action":"sqs:DeleteQueue","Resource":"*"}}"#;
    assert_eq!(
        f.verdict(&Authorization {
            resource_policy: Some(denying),
            ..request(None, "sqs:DeleteQueue", &queue)
        }),
        refused(
            Decision::ExplicitDeny,
            "User: arn:aws:iam::123456789012:root is not authorized to perform: sqs:DeleteQueue on resource: \
             arn:aws:sqs:us-east-1:123456789012:orders with an explicit deny in a resource-based policy"
        )
    );

    let theirs = ["arn:aws:sqs:us-east-1:210987654321:theirs".to_owned()];
    let across = Authorization {
        resource_account: Some(OTHER),
        ..request(None, "sqs:SendMessage", &theirs)
    };
    assert_eq!(
        f.verdict(&across),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:iam::123456789012:root is not authorized to perform: sqs:SendMessage on resource: \
             arn:aws:sqs:us-east-1:210987654321:theirs because no resource-based policy allows the \
             sqs:SendMessage action"
        )
    );
    let granting = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"123456789012"},"Action":"sqs:SendMessage","Resource":"*"}}"#;
    assert_eq!(
        f.verdict(&Authorization {
            resource_policy: Some(granting),
            ..across
        }),
        allowed()
    );
}

#[test]
fn across_accounts_both_sides_must_allow() {
    let f = Fixture::new();
    let gina = f.user("gina", &[]);
    let theirs = ["arn:aws:sqs:us-east-1:210987654321:theirs".to_owned()];
    let granting = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/gina"},"Action":"sqs:SendMessage","Resource":"*"}}"#;
    let across = |resource_policy| Authorization {
        resource_policy,
        resource_account: Some(OTHER),
        ..request(Some(&gina), "sqs:SendMessage", &theirs)
    };
    assert_eq!(
        f.verdict(&across(Some(granting))),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:iam::123456789012:user/gina is not authorized to perform: sqs:SendMessage on resource: \
             arn:aws:sqs:us-east-1:210987654321:theirs because no identity-based policy allows the \
             sqs:SendMessage action"
        )
    );
    f.put_user_policy("gina", "send", &allow("sqs:SendMessage", "*"));
    assert_eq!(f.verdict(&across(None)).decision, Decision::ImplicitDeny);
    assert_eq!(f.verdict(&across(Some(granting))), allowed());

    // Within the account, the resource's policy alone suffices.
    let hank = f.user("hank", &[]);
    let ours = [QUEUE.to_owned()];
    let naming_hank = granting.replace("user/gina", "user/hank");
    let within = Authorization {
        resource_policy: Some(&naming_hank),
        ..request(Some(&hank), "sqs:SendMessage", &ours)
    };
    assert_eq!(f.verdict(&within), allowed());
}

#[test]
fn the_cache_sees_every_write() {
    let f = Fixture::new();
    let ivan = f.user("ivan", &[]);
    let queue = [QUEUE.to_owned()];
    let send = request(Some(&ivan), "sqs:SendMessage", &queue);
    assert_eq!(f.verdict(&send).decision, Decision::ImplicitDeny);
    f.put_user_policy("ivan", "send", &allow("sqs:SendMessage", "*"));
    assert_eq!(f.verdict(&send), allowed());

    let input = DeleteUserPolicyRequest {
        user_name: "ivan".into(),
        policy_name: "send".into(),
    };
    f.run(f.iam.delete_user_policy(&f.ctx, input)).unwrap();
    assert_eq!(f.verdict(&send).decision, Decision::ImplicitDeny);

    // A new version of a group's policy, made the default.
    let arn = f.policy("group-send", &allow("sqs:ReceiveMessage", "*"));
    f.group("workers", "ivan");
    f.attach_group_policy("workers", &arn);
    assert_eq!(f.verdict(&send).decision, Decision::ImplicitDeny);
    let input = CreatePolicyVersionRequest {
        policy_arn: arn,
        policy_document: allow("sqs:SendMessage", "*"),
        set_as_default: true,
    };
    f.run(f.iam.create_policy_version(&f.ctx, input)).unwrap();
    assert_eq!(f.verdict(&send), allowed());
}

#[test]
fn principals_that_no_longer_exist_are_refused() {
    let f = Fixture::new();
    let id = f.role("gone", &allow("*", "*"), &[]);
    let principal = session("gone", &id, "s");
    let queue = [QUEUE.to_owned()];
    assert_eq!(
        f.verdict(&request(Some(&principal), "sqs:SendMessage", &queue)),
        allowed()
    );
    let input = DeleteRolePolicyRequest {
        role_name: "gone".into(),
        policy_name: "main".into(),
    };
    f.run(f.iam.delete_role_policy(&f.ctx, input)).unwrap();
    let input = DeleteRoleRequest {
        role_name: "gone".into(),
    };
    f.run(f.iam.delete_role(&f.ctx, input)).unwrap();
    assert_eq!(
        f.verdict(&request(Some(&principal), "sqs:SendMessage", &queue)),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:sts::123456789012:assumed-role/gone/s is not authorized to perform: sqs:SendMessage on \
             resource: arn:aws:sqs:us-east-1:123456789012:orders because no identity-based policy allows the \
             sqs:SendMessage action"
        )
    );

    // A role made again under the name is another role: the old session stays refused.
    let id = f.role("gone", &allow("*", "*"), &[]);
    assert_eq!(
        f.verdict(&request(Some(&principal), "sqs:SendMessage", &queue))
            .decision,
        Decision::ImplicitDeny
    );
    let again = session("gone", &id, "s");
    assert_eq!(f.verdict(&request(Some(&again), "sqs:SendMessage", &queue)), allowed());

    let stranger = Principal {
        kind: PrincipalKind::User,
        arn: format!("arn:aws:iam::{ACCOUNT}:user/nobody"),
        user_id: "AIDAEXAMPLE".into(),
        temporary: false,
    };
    assert_eq!(
        f.verdict(&request(Some(&stranger), "sqs:SendMessage", &queue)).decision,
        Decision::ImplicitDeny
    );
}

#[test]
fn a_federated_user_has_only_its_session_policies() {
    let f = Fixture::new();
    let federated = Principal {
        kind: PrincipalKind::FederatedUser,
        arn: format!("arn:aws:sts::{ACCOUNT}:federated-user/jill"),
        user_id: format!("{ACCOUNT}:jill"),
        temporary: true,
    };
    let queue = [QUEUE.to_owned()];
    assert_eq!(
        f.verdict(&request(Some(&federated), "sqs:SendMessage", &queue))
            .decision,
        Decision::ImplicitDeny
    );
    let grants = SessionGrants {
        policy: Some(allow("sqs:SendMessage", "*")),
        ..SessionGrants::default()
    };
    let with = |action| Authorization {
        session: Some(&grants),
        ..request(Some(&federated), action, &queue)
    };
    assert_eq!(f.verdict(&with("sqs:SendMessage")), allowed());
    assert_eq!(
        f.verdict(&with("sqs:DeleteQueue")),
        refused(
            Decision::ImplicitDeny,
            "User: arn:aws:sts::123456789012:federated-user/jill is not authorized to perform: sqs:DeleteQueue on \
             resource: arn:aws:sqs:us-east-1:123456789012:orders because no session policy allows the \
             sqs:DeleteQueue action"
        )
    );
}

#[test]
fn the_stand_in_policies_allow_nothing_and_everything() {
    let request = stratus_policy::Request::new(
        stratus_policy::Principal::parse("arn:aws:iam::123456789012:user/u").unwrap(),
        "sqs:SendMessage",
        [QUEUE],
    );
    let only = |policy| stratus_policy::PolicySet {
        identity: vec![policy],
        ..Default::default()
    };
    assert!(!stratus_policy::evaluate(&request, &only(allows_nothing())).is_allowed());
    assert!(stratus_policy::evaluate(&request, &only(unrecorded_caller())).is_allowed());
}

#[test]
fn an_anonymous_caller_is_allowed_only_by_a_resource_policy_granting_everyone() {
    let f = Fixture::new();
    let object = ["arn:aws:s3:::site/index.html".to_owned()];
    let anonymous = Authorization {
        anonymous: true,
        ..request(None, "s3:GetObject", &object)
    };
    let refused = f.verdict(&anonymous);
    assert_eq!(refused.decision, Decision::ImplicitDeny);
    assert_eq!(refused.message.as_deref(), Some("Access Denied"));
    let public = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::site/*"}]}"#;
    let with_policy = Authorization {
        resource_policy: Some(public),
        ..anonymous.clone()
    };
    assert_eq!(f.verdict(&with_policy), allowed());
    let put = ["arn:aws:s3:::site/new".to_owned()];
    let writing = Authorization {
        action: "s3:PutObject",
        resources: &put,
        ..with_policy
    };
    assert_eq!(f.verdict(&writing).decision, Decision::ImplicitDeny);
}

#[test]
fn a_resource_policy_that_must_allow_makes_identity_policies_irrelevant() {
    // A KMS key policy: without a grant to the account or the caller, the caller's own
    // policies allow nothing.
    let f = Fixture::new();
    let ivy = f.user("ivy", &[]);
    f.put_user_policy("ivy", "kms", &allow("kms:Decrypt", "*"));
    let key = ["arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab".to_owned()];
    let none = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/other"},"Action":"kms:*","Resource":"*"}}"#;
    let account = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"kms:*","Resource":"*"}}"#;
    let with = |resource_policy, resource_must_allow| Authorization {
        resource_policy,
        resource_must_allow,
        ..request(Some(&ivy), "kms:Decrypt", &key)
    };
    assert_eq!(f.verdict(&with(Some(none), false)), allowed());
    assert_eq!(f.verdict(&with(Some(none), true)).decision, Decision::ImplicitDeny);
    assert_eq!(f.verdict(&with(None, true)).decision, Decision::ImplicitDeny);
    // Granting the account delegates to IAM policies, which then must allow.
    assert_eq!(f.verdict(&with(Some(account), true)), allowed());
    let jay = f.user("jay", &[]);
    let as_jay = Authorization {
        resource_policy: Some(account),
        resource_must_allow: true,
        ..request(Some(&jay), "kms:Decrypt", &key)
    };
    assert_eq!(f.verdict(&as_jay).decision, Decision::ImplicitDeny);
}

#[test]
fn the_root_is_named_in_the_requests_partition() {
    let f = Fixture::new();
    let queue = ["arn:aws-cn:sqs:cn-north-1:210987654321:theirs".to_owned()];
    let across = Authorization {
        partition: "aws-cn",
        resource_account: Some(OTHER),
        ..request(None, "sqs:SendMessage", &queue)
    };
    let message = f.verdict(&across).message.unwrap();
    assert!(
        message.starts_with("User: arn:aws-cn:iam::123456789012:root "),
        "{message}"
    );
}

#[test]
fn iam_entities_are_judged_with_their_paths() {
    let f = Fixture::new();
    let input = CreateUserRequest {
        user_name: "Bob".into(),
        path: Some("/division/".into()),
        ..Default::default()
    };
    f.run(f.iam.create_user(&f.ctx, input)).unwrap();
    let admin = f.user("admin", &[]);
    f.put_user_policy(
        "admin",
        "division",
        &allow("iam:GetUser", "arn:aws:iam::123456789012:user/division/*"),
    );
    // The table names an existing user without its path.
    let bob = ["arn:aws:iam::123456789012:user/Bob".to_owned()];
    assert_eq!(f.verdict(&request(Some(&admin), "iam:GetUser", &bob)), allowed());
    let other = ["arn:aws:iam::123456789012:user/admin".to_owned()];
    let refused = f.verdict(&request(Some(&admin), "iam:GetUser", &other));
    assert_eq!(refused.decision, Decision::ImplicitDeny);
    // Only IAM's own actions are rewritten.
    f.put_user_policy(
        "admin",
        "other",
        &allow("sqs:SendMessage", "arn:aws:iam::123456789012:user/division/*"),
    );
    assert_eq!(
        f.verdict(&request(Some(&admin), "sqs:SendMessage", &bob)).decision,
        Decision::ImplicitDeny
    );
}

/// Resource tags as a service would report them: `team=blue` for the queue `blue`.
struct QueueTags;

impl stratus_core::service::ResourceTags for QueueTags {
    fn tags_of(&self, arn: &str) -> Result<Vec<(String, String)>, stratus_core::AwsError> {
        Ok(match arn.ends_with(":blue") {
            true => vec![("team".to_owned(), "blue".to_owned())],
            false => Vec::new(),
        })
    }
}

#[test]
fn resource_tags_are_read_only_for_policies_that_name_them() {
    let f = Fixture::new();
    let kim = f.user("kim", &[]);
    let by_tag = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"*",
        "Condition":{"StringEquals":{"aws:ResourceTag/team":"blue"}}}}"#;
    f.put_user_policy("kim", "tagged", by_tag);
    let blue = ["arn:aws:sqs:us-east-1:123456789012:blue".to_owned()];
    let red = ["arn:aws:sqs:us-east-1:123456789012:red".to_owned()];
    let both = [blue[0].clone(), red[0].clone()];
    let with = |resources| Authorization {
        resource_tags: Some(&QueueTags),
        ..request(Some(&kim), "sqs:SendMessage", resources)
    };
    assert_eq!(f.verdict(&with(&blue)), allowed());
    let refused = f.verdict(&with(&both));
    assert_eq!(refused.decision, Decision::ImplicitDeny);
    assert!(refused.message.unwrap().contains(":red "));
    // Without a source of tags, none match.
    assert_eq!(
        f.verdict(&request(Some(&kim), "sqs:SendMessage", &blue)).decision,
        Decision::ImplicitDeny
    );

    // IAM's own entities carry theirs, as aws:ResourceTag and iam:ResourceTag.
    f.role("tagged", &allow("s3:GetObject", "*"), &[("team", "blue")]);
    f.put_user_policy(
        "kim",
        "roles",
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:GetRole","Resource":"*",
            "Condition":{"StringEquals":{"iam:ResourceTag/team":"blue","aws:ResourceTag/team":"blue"}}}}"#,
    );
    let role = ["arn:aws:iam::123456789012:role/tagged".to_owned()];
    assert_eq!(f.verdict(&request(Some(&kim), "iam:GetRole", &role)), allowed());
    f.role("plain", &allow("s3:GetObject", "*"), &[]);
    let plain = ["arn:aws:iam::123456789012:role/plain".to_owned()];
    assert_eq!(
        f.verdict(&request(Some(&kim), "iam:GetRole", &plain)).decision,
        Decision::ImplicitDeny
    );
}
