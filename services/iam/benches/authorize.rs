//! Authorizing a realistic request, as the gateway asks IAM for each one: a user with an
//! inline policy and two attached policies, in two groups with two attached policies each,
//! every policy with conditions; the request is `sqs:SendMessage`, allowed by the last
//! group's policy after the deny checks of all the others. The cache is warm: IAM was not
//! written since the first authorization, as between most requests.
//!
//! ```text
//! cargo bench -p stratus-service-iam --bench authorize
//! ```

use std::sync::Arc;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use stratus_core::service::{Authorization, Authorizer, Decision};
use stratus_core::{Principal, PrincipalKind, RequestContext};
use stratus_gen_iam::*;
use stratus_service_iam::IamService;
use stratus_storage::{Storage, StorageConfig};

const INLINE: &str = r#"{"Version":"2012-10-17","Statement":[{"Sid":"Home","Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],
    "Resource":"arn:aws:s3:::home/${aws:username}/*"},
    {"Sid":"List","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::home",
    "Condition":{"StringLike":{"s3:prefix":["${aws:username}/*"]}}}]}"#;

/// The user's attached policies, then each group's.
const ATTACHED: [(&str, &str); 6] = [
    (
        "office-queues",
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["sqs:Get*","sqs:List*","sqs:ReceiveMessage"],
        "Resource":"arn:aws:sqs:us-east-1:123456789012:*","Condition":{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","192.168.0.0/16"]}}}}"#,
    ),
    (
        "tls-only",
        r#"{"Version":"2012-10-17","Statement":{"Sid":"TLS","Effect":"Deny","Action":"*","Resource":"*",
        "Condition":{"Bool":{"aws:SecureTransport":"false"}}}}"#,
    ),
    (
        "team-tables",
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*",
        "Resource":["arn:aws:dynamodb:us-east-1:123456789012:table/app-*","arn:aws:dynamodb:us-east-1:123456789012:table/app-*/index/*"],
        "Condition":{"StringEquals":{"aws:PrincipalTag/team":"blue"}}}}"#,
    ),
    (
        "guard-rails",
        r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"iam:*","NotResource":"arn:aws:iam::123456789012:user/${aws:username}"},
        {"Effect":"Deny","NotAction":["iam:*","sts:*","s3:*"],"Resource":"*",
        "Condition":{"StringNotEquals":{"aws:RequestedRegion":["us-east-1","eu-west-1"]}}}]}"#,
    ),
    (
        "describe-tagged",
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["ec2:Describe*","cloudwatch:Get*"],"Resource":"*",
        "Condition":{"ForAllValues:StringEquals":{"aws:TagKeys":["team","env"]}}}}"#,
    ),
    (
        "orders",
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage",
        "Resource":"arn:aws:sqs:*:123456789012:orders-*",
        "Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"},"StringEquals":{"aws:PrincipalTag/team":"${aws:PrincipalTag/team}"}}}}"#,
    ),
];

fn ctx() -> RequestContext {
    RequestContext::unsigned("123456789012", "us-east-1", Default::default())
}

/// IAM holding alice, her policies and her two groups; alice as the gateway names her.
fn alice() -> (IamService, Principal) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let iam = IamService::new(Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap()));
    let ctx = ctx();
    runtime.block_on(async {
        let user = CreateUserRequest {
            user_name: "alice".into(),
            tags: Some(vec![Tag {
                key: "team".into(),
                value: "blue".into(),
            }]),
            ..Default::default()
        };
        let user = iam.create_user(&ctx, user).await.unwrap().user.unwrap();
        let inline = PutUserPolicyRequest {
            user_name: "alice".into(),
            policy_name: "home".into(),
            policy_document: INLINE.into(),
        };
        iam.put_user_policy(&ctx, inline).await.unwrap();
        for group in ["engineers", "orders-team"] {
            let create = CreateGroupRequest {
                group_name: group.into(),
                ..Default::default()
            };
            iam.create_group(&ctx, create).await.unwrap();
            let join = AddUserToGroupRequest {
                group_name: group.into(),
                user_name: "alice".into(),
            };
            iam.add_user_to_group(&ctx, join).await.unwrap();
        }
        for (i, (name, document)) in ATTACHED.iter().enumerate() {
            let create = CreatePolicyRequest {
                policy_name: (*name).into(),
                policy_document: (*document).into(),
                ..Default::default()
            };
            let arn = iam
                .create_policy(&ctx, create)
                .await
                .unwrap()
                .policy
                .unwrap()
                .arn
                .unwrap();
            match i / 2 {
                0 => {
                    let attach = AttachUserPolicyRequest {
                        user_name: "alice".into(),
                        policy_arn: arn,
                    };
                    iam.attach_user_policy(&ctx, attach).await.unwrap();
                }
                n => {
                    let attach = AttachGroupPolicyRequest {
                        group_name: ["engineers", "orders-team"][n - 1].into(),
                        policy_arn: arn,
                    };
                    iam.attach_group_policy(&ctx, attach).await.unwrap();
                }
            }
        }
        let principal = Principal {
            kind: PrincipalKind::User,
            arn: user.arn,
            user_id: user.user_id,
            temporary: false,
        };
        (iam, principal)
    })
}

fn bench(c: &mut Criterion) {
    let (iam, alice) = alice();
    let resources = ["arn:aws:sqs:us-east-1:123456789012:orders-eu".to_owned()];
    let context = [
        ("aws:RequestedRegion", vec!["us-east-1".to_owned()]),
        ("aws:SourceIp", vec!["10.1.2.3".to_owned()]),
        ("aws:SecureTransport", vec!["true".to_owned()]),
    ];
    let request = Authorization {
        account_id: "123456789012",
        partition: "aws",
        principal: Some(&alice),
        anonymous: false,
        session: None,
        action: "sqs:SendMessage",
        resources: &resources,
        resource_policy: None,
        resource_account: None,
        resource_must_allow: false,
        resource_tags: None,
        context: &context,
        now_secs: 1_700_000_000,
    };
    assert_eq!(iam.authorize(&request).unwrap().decision, Decision::Allow);

    let mut group = c.benchmark_group("iam");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("authorize: user, 2 groups, 6 attached policies, warm", |b| {
        b.iter(|| iam.authorize(black_box(&request)))
    });
    // The same request to a queue with a policy of about 1 KB, as SQS would pass it.
    let statements: Vec<String> = (0..8)
        .map(|i| {
            format!(
                r#"{{"Sid":"Partner{i}","Effect":"Allow","Principal":{{"AWS":"arn:aws:iam::21098765432{i}:root"}},
                "Action":["sqs:SendMessage","sqs:GetQueueAttributes"],"Resource":"arn:aws:sqs:us-east-1:123456789012:orders-eu",
                "Condition":{{"ArnLike":{{"aws:SourceArn":"arn:aws:sns:us-east-1:21098765432{i}:*"}}}}}}"#
            )
        })
        .collect();
    let queue_policy = format!(r#"{{"Version":"2012-10-17","Statement":[{}]}}"#, statements.join(","));
    let with_policy = Authorization {
        resource_policy: Some(&queue_policy),
        ..request.clone()
    };
    assert_eq!(iam.authorize(&with_policy).unwrap().decision, Decision::Allow);
    group.bench_function(
        format!(
            "authorize: the same, with a {} B queue policy, warm",
            queue_policy.len()
        ),
        |b| b.iter(|| iam.authorize(black_box(&with_policy))),
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
