//! Evaluating a request against compiled policies allocates nothing, and once per pattern
//! whose policy variables have to be filled in; proved with a counting global allocator (one test, so no other test's
//! thread allocates meanwhile).

use std::time::{Duration, UNIX_EPOCH};

use stratus_policy::{evaluate, Policy, PolicyKind, PolicySet, Principal, Request};
use stratus_test_support::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const FIXED: &str = r#"{"Version":"2012-10-17","Statement":[
    {"Effect":"Deny","Action":"*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}},
    {"Effect":"Allow","Action":["sqs:Send*","sqs:Get*"],"Resource":"arn:aws:sqs:*:123456789012:orders-*",
     "Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"},"DateLessThan":{"aws:CurrentTime":"2030-01-01"},
       "StringEqualsIgnoreCase":{"aws:PrincipalTag/team":"BLUE"},"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:user/*"},
       "ForAllValues:StringLike":{"aws:TagKeys":["t*","e?v"]},"NumericLessThan":{"sqs:delay":"60"}}}]}"#;

fn allocations(request: &Request, set: &PolicySet<'_>) -> usize {
    assert!(evaluate(request, set).is_allowed());
    let before = stratus_test_support::allocations();
    for _ in 0..100 {
        assert!(evaluate(request, set).is_allowed());
    }
    stratus_test_support::allocations() - before
}

#[test]
fn evaluating_allocates_only_for_variables() {
    let alice = Principal::parse("arn:aws:iam::123456789012:user/alice").unwrap();
    let request = Request::new(
        alice,
        "sqs:SendMessage",
        ["arn:aws:sqs:us-east-1:123456789012:orders-eu"],
    )
    .with_principal_tag("team", "blue")
    .with_context("aws:TagKeys", ["team", "env"])
    .with_context("sqs:delay", ["30"])
    .from_ip("10.9.8.7".parse().unwrap())
    .secure_transport(true)
    .at(UNIX_EPOCH + Duration::from_secs(1_700_000_000));

    let fixed = Policy::parse(FIXED, PolicyKind::Identity).unwrap();
    let set = PolicySet {
        identity: vec![&fixed],
        ..Default::default()
    };
    assert_eq!(allocations(&request, &set), 0);

    let variable = FIXED.replace("orders-*", "orders-${aws:PrincipalTag/region, 'eu'}");
    let variable = Policy::parse(&variable, PolicyKind::Identity).unwrap();
    let set = PolicySet {
        identity: vec![&variable],
        ..Default::default()
    };
    let per_request = allocations(&request, &set) / 100;
    assert!(
        (1..=8).contains(&per_request),
        "{per_request} allocations per evaluation"
    );
}
