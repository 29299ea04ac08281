//! Condition operators, set qualifiers, `...IfExists`, missing keys, and policy variables
//! (reference_policies_elements_condition_operators.html,
//! reference_policies_condition-logic-multiple-context-keys-or-values.html,
//! reference_policies_variables.html).

use std::time::{Duration, UNIX_EPOCH};

use stratus_policy::{evaluate, Policy, PolicyKind, PolicySet, Principal, Request};

const ALICE: &str = "arn:aws:iam::123456789012:user/alice";

/// Whether an allow statement with `condition` lets `request` through.
fn holds(condition: &str, request: &Request) -> bool {
    let doc = format!(
        r#"{{"Version":"2012-10-17","Statement":{{"Effect":"Allow","Action":"*","Resource":"*","Condition":{condition}}}}}"#
    );
    let policy = Policy::parse(&doc, PolicyKind::Identity).unwrap();
    evaluate(
        request,
        &PolicySet {
            identity: vec![&policy],
            ..Default::default()
        },
    )
    .is_allowed()
}

fn alice() -> Request {
    Request::new(Principal::parse(ALICE).unwrap(), "s3:GetObject", ["arn:aws:s3:::b/k"])
}

fn with(key: &str, values: &[&str]) -> Request {
    alice().with_context(key, values.iter().copied())
}

#[test]
fn string_operators() {
    let r = with("s3:prefix", &["home/alice/x"]);
    assert!(holds(r#"{"StringEquals":{"s3:prefix":["other","home/alice/x"]}}"#, &r));
    assert!(!holds(r#"{"StringEquals":{"s3:prefix":"HOME/alice/x"}}"#, &r));
    assert!(holds(r#"{"StringEqualsIgnoreCase":{"s3:prefix":"HOME/Alice/X"}}"#, &r));
    assert!(!holds(
        r#"{"StringNotEqualsIgnoreCase":{"s3:prefix":"HOME/Alice/X"}}"#,
        &r
    ));
    assert!(holds(r#"{"StringLike":{"s3:prefix":"home/*/?"}}"#, &r));
    assert!(!holds(r#"{"StringLike":{"s3:prefix":"home/*/??"}}"#, &r));
    assert!(
        !holds(r#"{"StringEquals":{"s3:prefix":"home/*"}}"#, &r),
        "StringEquals has no wildcards"
    );
    // Negated operators with several values: none may match (NOR).
    assert!(holds(r#"{"StringNotEquals":{"s3:prefix":["a","b"]}}"#, &r));
    assert!(!holds(r#"{"StringNotEquals":{"s3:prefix":["a","home/alice/x"]}}"#, &r));
    assert!(!holds(r#"{"StringNotLike":{"s3:prefix":["x*","home/*"]}}"#, &r));
}

#[test]
fn context_keys_ignore_case() {
    let r = with("AWS:SourceVpc", &["vpc-1"]);
    assert!(holds(r#"{"StringEquals":{"aws:sourcevpc":"vpc-1"}}"#, &r));
    assert_eq!(r.context_values("Aws:SourceVPC"), Some(&["vpc-1".to_owned()][..]));
}

#[test]
fn numeric_operators() {
    let r = with("s3:max-keys", &["10"]);
    assert!(holds(r#"{"NumericEquals":{"s3:max-keys":10}}"#, &r));
    assert!(holds(r#"{"NumericEquals":{"s3:max-keys":"10.0"}}"#, &r));
    assert!(holds(r#"{"NumericNotEquals":{"s3:max-keys":["11","12"]}}"#, &r));
    assert!(holds(r#"{"NumericLessThan":{"s3:max-keys":"11"}}"#, &r));
    assert!(!holds(r#"{"NumericLessThan":{"s3:max-keys":"10"}}"#, &r));
    assert!(holds(r#"{"NumericLessThanEquals":{"s3:max-keys":"10"}}"#, &r));
    assert!(holds(r#"{"NumericGreaterThan":{"s3:max-keys":"9.5"}}"#, &r));
    assert!(holds(r#"{"NumericGreaterThanEquals":{"s3:max-keys":"10"}}"#, &r));
    assert!(!holds(r#"{"NumericEquals":{"s3:max-keys":"ten"}}"#, &r));
    assert!(!holds(
        r#"{"NumericEquals":{"s3:max-keys":"10"}}"#,
        &with("s3:max-keys", &["x"])
    ));
}

#[test]
fn date_operators_take_iso_8601_and_epoch_seconds() {
    let r = alice().at(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    assert_eq!(
        r.context_values("aws:CurrentTime"),
        Some(&["2023-11-14T22:13:20Z".to_owned()][..])
    );
    assert!(holds(
        r#"{"DateEquals":{"aws:CurrentTime":"2023-11-14T22:13:20Z"}}"#,
        &r
    ));
    assert!(holds(
        r#"{"DateEquals":{"aws:EpochTime":"2023-11-14T23:13:20+01:00"}}"#,
        &r
    ));
    assert!(holds(r#"{"DateNotEquals":{"aws:CurrentTime":"2023-11-14"}}"#, &r));
    assert!(holds(
        r#"{"DateLessThan":{"aws:CurrentTime":"2024-01-01T00:00:00Z"}}"#,
        &r
    ));
    assert!(holds(r#"{"DateLessThanEquals":{"aws:CurrentTime":1700000000}}"#, &r));
    assert!(holds(r#"{"DateGreaterThan":{"aws:CurrentTime":"2023-11-14"}}"#, &r));
    assert!(!holds(r#"{"DateGreaterThan":{"aws:CurrentTime":"2023-11-15"}}"#, &r));
    assert!(holds(r#"{"DateGreaterThanEquals":{"aws:EpochTime":"1700000000"}}"#, &r));
    assert!(!holds(r#"{"DateLessThan":{"aws:CurrentTime":"not a date"}}"#, &r));
}

#[test]
fn bool_and_binary() {
    let secure = alice().secure_transport(true);
    let plain = alice().secure_transport(false);
    assert!(holds(r#"{"Bool":{"aws:SecureTransport":"true"}}"#, &secure));
    assert!(holds(r#"{"Bool":{"aws:SecureTransport":true}}"#, &secure));
    assert!(holds(r#"{"Bool":{"aws:SecureTransport":"False"}}"#, &plain));
    assert!(!holds(r#"{"Bool":{"aws:SecureTransport":"true"}}"#, &plain));
    let r = with("kms:EncryptionContext:blob", &["QmluYXJ5"]);
    assert!(holds(
        r#"{"BinaryEquals":{"kms:EncryptionContext:blob":"QmluYXJ5"}}"#,
        &r
    ));
    assert!(!holds(
        r#"{"BinaryEquals":{"kms:EncryptionContext:blob":"QmluYXJ6"}}"#,
        &r
    ));
}

#[test]
fn ip_address_v4_and_v6() {
    let v4 = alice().from_ip("203.0.113.9".parse().unwrap());
    let v6 = alice().from_ip("2001:db8::1".parse().unwrap());
    assert!(holds(
        r#"{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","203.0.113.0/24"]}}"#,
        &v4
    ));
    assert!(
        holds(r#"{"IpAddress":{"aws:SourceIp":"203.0.113.9"}}"#, &v4),
        "a bare address is /32"
    );
    assert!(!holds(r#"{"IpAddress":{"aws:SourceIp":"203.0.113.10"}}"#, &v4));
    assert!(holds(r#"{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}"#, &v4));
    assert!(holds(r#"{"IpAddress":{"aws:SourceIp":"2001:db8::/32"}}"#, &v6));
    assert!(!holds(r#"{"IpAddress":{"aws:SourceIp":"203.0.113.0/24"}}"#, &v6));
}

#[test]
fn arn_operators_match_segment_by_segment() {
    let r = with("aws:SourceArn", &["arn:aws:sns:us-east-1:123456789012:topic"]);
    assert!(holds(
        r#"{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:topic"}}"#,
        &r
    ));
    assert!(holds(
        r#"{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:*"}}"#,
        &r
    ));
    assert!(
        holds(r#"{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:*:*:top?c"}}"#, &r),
        "ArnEquals takes wildcards too"
    );
    assert!(!holds(
        r#"{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:999999999999:*"}}"#,
        &r
    ));
    assert!(holds(
        r#"{"ArnNotEquals":{"aws:SourceArn":"arn:aws:sns:*:999999999999:*"}}"#,
        &r
    ));
    assert!(!holds(r#"{"ArnNotLike":{"aws:SourceArn":"arn:aws:sns:*:*:*"}}"#, &r));
    assert!(
        !holds(r#"{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*"}}"#, &r),
        "* does not cross segments"
    );
}

#[test]
fn a_missing_key_fails_operators_and_passes_negated_ones() {
    let r = alice();
    assert!(!holds(r#"{"StringEquals":{"aws:SourceVpc":"vpc-1"}}"#, &r));
    assert!(holds(r#"{"StringNotEquals":{"aws:SourceVpc":"vpc-1"}}"#, &r));
    assert!(holds(r#"{"ArnNotLike":{"aws:SourceArn":"arn:*:*:*:*:*"}}"#, &r));
    assert!(holds(r#"{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}"#, &r));
    assert!(!holds(r#"{"NumericLessThan":{"s3:max-keys":"10"}}"#, &r));
    assert!(!holds(r#"{"Bool":{"aws:MultiFactorAuthPresent":"false"}}"#, &r));
}

#[test]
fn if_exists_passes_when_the_key_is_missing() {
    assert!(holds(r#"{"StringEqualsIfExists":{"aws:SourceVpc":"vpc-1"}}"#, &alice()));
    assert!(holds(
        r#"{"BoolIfExists":{"aws:MultiFactorAuthPresent":"true"}}"#,
        &alice()
    ));
    assert!(!holds(
        r#"{"StringEqualsIfExists":{"aws:SourceVpc":"vpc-1"}}"#,
        &with("aws:SourceVpc", &["vpc-2"])
    ));
    assert!(holds(
        r#"{"StringEqualsIfExists":{"aws:SourceVpc":"vpc-1"}}"#,
        &with("aws:SourceVpc", &["vpc-1"])
    ));
}

#[test]
fn null_tests_presence() {
    assert!(holds(r#"{"Null":{"aws:TokenIssueTime":"true"}}"#, &alice()));
    assert!(!holds(r#"{"Null":{"aws:TokenIssueTime":"false"}}"#, &alice()));
    let r = with("aws:TokenIssueTime", &["2023-11-14T22:13:20Z"]);
    assert!(holds(r#"{"Null":{"aws:TokenIssueTime":false}}"#, &r));
    assert!(!holds(r#"{"Null":{"aws:TokenIssueTime":true}}"#, &r));
}

#[test]
fn set_qualifiers_over_multivalued_keys() {
    let tags = with("aws:TagKeys", &["Team", "CostCenter"]);
    let all = r#"{"ForAllValues:StringEquals":{"aws:TagKeys":["Team","CostCenter","Env"]}}"#;
    let any = r#"{"ForAnyValue:StringEquals":{"aws:TagKeys":["Env","Team"]}}"#;
    assert!(holds(all, &tags));
    assert!(!holds(all, &with("aws:TagKeys", &["Team", "Owner"])));
    assert!(holds(any, &tags));
    assert!(!holds(any, &with("aws:TagKeys", &["Owner"])));
    // Missing or empty: ForAllValues is true, ForAnyValue false.
    assert!(holds(all, &alice()));
    assert!(holds(all, &with("aws:TagKeys", &[])));
    assert!(!holds(any, &alice()));
    assert!(!holds(any, &with("aws:TagKeys", &[])));
    // Negated with qualifiers: each request value tested against the whole list.
    assert!(holds(
        r#"{"ForAllValues:StringNotLike":{"aws:TagKeys":"aws:*"}}"#,
        &tags
    ));
    assert!(!holds(
        r#"{"ForAllValues:StringNotLike":{"aws:TagKeys":"Team"}}"#,
        &tags
    ));
    assert!(holds(
        r#"{"ForAnyValue:StringNotEquals":{"aws:TagKeys":"Team"}}"#,
        &tags
    ));
    assert!(!holds(
        r#"{"ForAnyValue:StringNotEquals":{"aws:TagKeys":["Team","CostCenter"]}}"#,
        &tags
    ));
    assert!(!holds(
        r#"{"ForAnyValue:StringEqualsIfExists":{"aws:TagKeys":"x"}}"#,
        &tags
    ));
    assert!(holds(
        r#"{"ForAnyValue:StringEqualsIfExists":{"aws:TagKeys":"x"}}"#,
        &alice()
    ));
}

#[test]
fn keys_and_operators_combine_with_and() {
    let r = with("s3:prefix", &["a"]).from_ip("10.0.0.1".parse().unwrap());
    assert!(holds(
        r#"{"StringEquals":{"s3:prefix":"a","aws:SourceIp":"10.0.0.1"}}"#,
        &r
    ));
    assert!(!holds(r#"{"StringEquals":{"s3:prefix":"a","aws:username":"bob"}}"#, &r));
    assert!(holds(
        r#"{"StringEquals":{"s3:prefix":"a"},"IpAddress":{"aws:SourceIp":"10.0.0.0/24"}}"#,
        &r
    ));
    assert!(!holds(
        r#"{"StringEquals":{"s3:prefix":"a"},"IpAddress":{"aws:SourceIp":"11.0.0.0/24"}}"#,
        &r
    ));
}

#[test]
fn variables_in_condition_values() {
    let r = with("s3:prefix", &["home/alice/"])
        .with_principal_tag("team", "blue")
        .with_user_id("AIDAX");
    assert!(holds(r#"{"StringEquals":{"s3:prefix":"home/${aws:username}/"}}"#, &r));
    assert!(holds(r#"{"StringLike":{"s3:prefix":"home/${aws:username}/*"}}"#, &r));
    assert!(holds(
        r#"{"StringEquals":{"aws:PrincipalTag/team":"${aws:PrincipalTag/team}"}}"#,
        &r
    ));
    assert!(holds(r#"{"StringEquals":{"aws:userid":"${aws:userid}"}}"#, &r));
    // A variable with no value matches nothing; its default stands in when given.
    assert!(!holds(
        r#"{"StringEquals":{"s3:prefix":"home/${aws:PrincipalTag/dept}/"}}"#,
        &r
    ));
    assert!(holds(
        r#"{"StringNotEquals":{"s3:prefix":"home/${aws:PrincipalTag/dept}/"}}"#,
        &r
    ));
    assert!(holds(
        r#"{"StringEquals":{"s3:prefix":"home/${aws:PrincipalTag/dept, 'alice'}/"}}"#,
        &r
    ));
    // Version 2008-10-17 has no variables: the text is literal.
    let legacy = r#"{"Version":"2008-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEquals":{"s3:prefix":"home/${aws:username}/"}}}}"#;
    let legacy = Policy::parse(legacy, PolicyKind::Identity).unwrap();
    let set = PolicySet {
        identity: vec![&legacy],
        ..Default::default()
    };
    assert!(!evaluate(&r, &set).is_allowed());
    assert!(evaluate(&with("s3:prefix", &["home/${aws:username}/"]), &set).is_allowed());
}

#[test]
fn variables_in_resources() {
    let doc = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::b/${aws:username}/*"}}"#;
    let policy = Policy::parse(doc, PolicyKind::Identity).unwrap();
    let set = PolicySet {
        identity: vec![&policy],
        ..Default::default()
    };
    let get = |principal: Principal, key: &str| Request::new(principal, "s3:GetObject", [key]);
    let alice = || Principal::parse(ALICE).unwrap();
    assert!(evaluate(&get(alice(), "arn:aws:s3:::b/alice/x"), &set).is_allowed());
    assert!(!evaluate(&get(alice(), "arn:aws:s3:::b/bob/x"), &set).is_allowed());
    // A role session has no aws:username: the resource matches nothing.
    let session = Principal::parse("arn:aws:sts::123456789012:assumed-role/r/alice").unwrap();
    assert!(!evaluate(&get(session, "arn:aws:s3:::b/alice/x"), &set).is_allowed());
    // A value put in for a variable is literal: a user named `*` gets no wildcard.
    let star = Request::new(alice(), "s3:GetObject", ["arn:aws:s3:::b/other/x"]).with_username("*");
    assert!(!evaluate(&star, &set).is_allowed());
    let doc = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::b/${*}/${?}"}}"#;
    let escaped = Policy::parse(doc, PolicyKind::Identity).unwrap();
    let set = PolicySet {
        identity: vec![&escaped],
        ..Default::default()
    };
    assert!(evaluate(&get(alice(), "arn:aws:s3:::b/*/?"), &set).is_allowed());
    assert!(!evaluate(&get(alice(), "arn:aws:s3:::b/x/y"), &set).is_allowed());
}
