//! Evaluating a realistic request: a user with an inline policy and two attached policies,
//! in two groups with two policies each, every policy with conditions; the request is
//! `sqs:SendMessage`, allowed by the sixth policy after the deny checks of all the others.
//!
//! ```text
//! cargo bench -p stratus-policy --bench evaluate
//! ```
// A benchmark measures the machine's time.
#![allow(clippy::disallowed_methods)]

use std::hint::black_box;
use std::time::{Duration, UNIX_EPOCH};

use criterion::{criterion_group, criterion_main, Criterion};
use stratus_policy::{evaluate, Decision, Policy, PolicyKind, PolicySet, Principal, Request};

const POLICIES: [&str; 7] = [
    // The user's inline policy.
    r#"{"Version":"2012-10-17","Statement":[{"Sid":"Home","Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],
        "Resource":"arn:aws:s3:::home/${aws:username}/*"},
        {"Sid":"List","Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::home",
        "Condition":{"StringLike":{"s3:prefix":["${aws:username}/*"]}}}]}"#,
    // Attached: read queues from the office network.
    r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["sqs:Get*","sqs:List*","sqs:ReceiveMessage"],
        "Resource":"arn:aws:sqs:us-east-1:123456789012:*","Condition":{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","192.168.0.0/16"]}}}}"#,
    // Attached: nothing without TLS.
    r#"{"Version":"2012-10-17","Statement":{"Sid":"TLS","Effect":"Deny","Action":"*","Resource":"*",
        "Condition":{"Bool":{"aws:SecureTransport":"false"}}}}"#,
    // Group one: the team's tables.
    r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*",
        "Resource":["arn:aws:dynamodb:us-east-1:123456789012:table/app-*","arn:aws:dynamodb:us-east-1:123456789012:table/app-*/index/*"],
        "Condition":{"StringEquals":{"aws:PrincipalTag/team":"blue"}}}}"#,
    // Group one: no IAM changes, except to oneself, outside business regions.
    r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"iam:*","NotResource":"arn:aws:iam::123456789012:user/${aws:username}"},
        {"Effect":"Deny","NotAction":["iam:*","sts:*","s3:*"],"Resource":"*",
        "Condition":{"StringNotEquals":{"aws:RequestedRegion":["us-east-1","eu-west-1"]}}}]}"#,
    // Group two: describe anything, tagged requests only.
    r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["ec2:Describe*","cloudwatch:Get*"],"Resource":"*",
        "Condition":{"ForAllValues:StringEquals":{"aws:TagKeys":["team","env"]}}}}"#,
    // Group two: send to the orders queues until the end of the project.
    r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"sqs:SendMessage",
        "Resource":"arn:aws:sqs:*:123456789012:orders-*",
        "Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"},"StringEquals":{"aws:PrincipalTag/team":"${aws:PrincipalTag/team}"}}}}"#,
];

fn request() -> Request {
    let alice = Principal::parse("arn:aws:iam::123456789012:user/alice").unwrap();
    Request::new(
        alice,
        "sqs:SendMessage",
        ["arn:aws:sqs:us-east-1:123456789012:orders-eu"],
    )
    .with_user_id("AIDAEXAMPLE")
    .with_principal_tag("team", "blue")
    .with_context("aws:RequestedRegion", ["us-east-1"])
    .from_ip("10.1.2.3".parse().unwrap())
    .secure_transport(true)
    .at(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn bench(c: &mut Criterion) {
    let policies: Vec<Policy> = POLICIES
        .iter()
        .map(|p| Policy::parse(p, PolicyKind::Identity).unwrap())
        .collect();
    let set = PolicySet {
        identity: policies.iter().collect(),
        ..PolicySet::default()
    };
    let req = request();
    assert_eq!(evaluate(&req, &set), Decision::Allow);

    let mut group = c.benchmark_group("policy");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("evaluate: user, 2 groups, 7 policies", |b| {
        b.iter(|| evaluate(black_box(&req), black_box(&set)))
    });
    group.bench_function("request built + evaluated", |b| {
        b.iter(|| evaluate(&black_box(request()), black_box(&set)))
    });
    group.bench_function("parse the 7 policies", |b| {
        b.iter(|| {
            POLICIES
                .iter()
                .map(|p| Policy::parse(black_box(p), PolicyKind::Identity).unwrap())
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
