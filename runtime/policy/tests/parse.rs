//! Parsing and validation: the shapes the grammar allows, and IAM's words for the ones it
//! refuses (reference_policies_grammar.html, reference_policies_elements_*.html).

use stratus_policy::{Effect, Policy, PolicyError, PolicyKind, Version};

fn identity(doc: &str) -> Result<Policy, PolicyError> {
    Policy::parse(doc, PolicyKind::Identity)
}

fn message(doc: &str, kind: PolicyKind) -> String {
    Policy::parse(doc, kind).unwrap_err().to_string()
}

#[test]
fn statement_may_be_one_object_or_an_array() {
    let one =
        identity(r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#).unwrap();
    assert_eq!(one.statements().len(), 1);
    let many = identity(
        r#"{"Version":"2012-10-17","Id":"p1","Statement":[
            {"Sid":"A1","Effect":"Allow","Action":["s3:Get*","s3:List*"],"Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]},
            {"Sid":"D1","Effect":"Deny","NotAction":"s3:*","NotResource":"arn:aws:s3:::b"}]}"#,
    )
    .unwrap();
    assert_eq!(many.id(), Some("p1"));
    assert_eq!(many.version(), Version::V2012_10_17);
    let effects: Vec<_> = many
        .statements()
        .iter()
        .map(|s| (s.sid().unwrap(), s.effect()))
        .collect();
    assert_eq!(effects, [("A1", Effect::Allow), ("D1", Effect::Deny)]);
}

#[test]
fn version_defaults_to_2008_and_unknown_versions_fail_legacy_parsing() {
    let doc = r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#;
    assert_eq!(identity(doc).unwrap().version(), Version::V2008_10_17);
    let bad = r#"{"Version":"2012-10-18","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#;
    assert_eq!(message(bad, PolicyKind::Identity), "The policy failed legacy parsing");
}

#[test]
fn syntax_errors() {
    for doc in [
        "",
        "not json",
        "[]",
        r#"{"Statement":[{"Effect":"Allow","Action":"s3:*","Resource":null}]}"#,
        r#"{"Statement":"x"}"#,
        r#"{"Version":1,"Statement":[]}"#,
        r#"{"Statement":{"Effect":"Allow","Action":"s3:*","NotAction":"s3:Get*","Resource":"*"}}"#,
        r#"{"Statement":{"Effect":"Allow","Action":[1],"Resource":"*"}}"#,
        // A key given twice is refused rather than one of its values picked.
        r#"{"Statement":{"Effect":"Allow","Effect":"Deny","Action":"s3:*","Resource":"*"}}"#,
        r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"Bool":{"aws:a":"true"},"Bool":{"aws:b":"true"}}}}"#,
        r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"Bool":{"aws:a":"true","aws:a":"false"}}}}"#,
        r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":null}}}}"#,
    ] {
        assert_eq!(identity(doc).unwrap_err(), PolicyError::Syntax, "{doc}");
    }
    assert_eq!(PolicyError::Syntax.to_string(), "Syntax errors in policy.");
}

#[test]
fn required_and_unknown_fields() {
    assert_eq!(
        message(r#"{"Version":"2012-10-17"}"#, PolicyKind::Identity),
        "Missing required field Statement"
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Action":"s3:*","Resource":"*"}}"#,
            PolicyKind::Identity
        ),
        "Missing required field Effect"
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"allow","Action":"s3:*","Resource":"*"}}"#,
            PolicyKind::Identity
        ),
        "The policy failed legacy parsing"
    );
    assert_eq!(
        message(r#"{"Statement":[],"Foo":1}"#, PolicyKind::Identity),
        "Unknown field Foo"
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Actions":"x"}}"#,
            PolicyKind::Identity
        ),
        "Unknown field Actions"
    );
}

#[test]
fn actions_and_resources_are_required() {
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Resource":"*"}}"#,
            PolicyKind::Identity
        ),
        "Policy statement must contain actions."
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":[],"Resource":"*"}}"#,
            PolicyKind::Identity
        ),
        "Policy statement must contain actions."
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":"s3:*"}}"#,
            PolicyKind::Identity
        ),
        "Policy statement must contain resources."
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":[]}}"#,
            PolicyKind::Resource
        ),
        "Policy statement must contain resources."
    );
}

#[test]
fn actions_and_condition_keys_need_a_vendor() {
    let want = "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.";
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":"GetObject","Resource":"*"}}"#,
            PolicyKind::Identity
        ),
        want
    );
    let condition = r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringEquals":{"username":"a"}}}}"#;
    assert_eq!(message(condition, PolicyKind::Identity), want);
    assert!(identity(r#"{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}"#).is_ok());
}

#[test]
fn principal_rules_differ_by_kind_of_policy() {
    let with = r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}}"#;
    let without = r#"{"Statement":{"Effect":"Allow","Action":"sqs:*","Resource":"*"}}"#;
    let not_principal =
        r#"{"Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"123456789012"},"Action":"sqs:*","Resource":"*"}}"#;
    assert_eq!(
        message(with, PolicyKind::Identity),
        "Policy document should not specify a principal."
    );
    assert_eq!(
        message(not_principal, PolicyKind::Identity),
        "Policy document should not specify a principal."
    );
    assert_eq!(
        message(without, PolicyKind::Resource),
        "Missing required field Principal"
    );
    assert!(Policy::parse(with, PolicyKind::Resource).is_ok());
    assert!(Policy::parse(not_principal, PolicyKind::Resource).is_ok());

    let trust = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},"Action":"sts:AssumeRole"}}"#;
    assert!(Policy::parse(trust, PolicyKind::Trust).is_ok());
    assert_eq!(
        message(trust, PolicyKind::Resource),
        "Policy statement must contain resources."
    );
    assert_eq!(message(with, PolicyKind::Trust), "Has prohibited field Resource");
    assert_eq!(message(without, PolicyKind::Trust), "Missing required field Principal");
}

#[test]
fn principal_values() {
    let doc =
        |p: &str| format!(r#"{{"Statement":{{"Effect":"Allow","Principal":{p},"Action":"s3:*","Resource":"*"}}}}"#);
    for ok in [
        r#""*""#,
        r#"{"AWS":"*"}"#,
        r#"{"AWS":"123456789012"}"#,
        r#"{"AWS":["arn:aws:iam::123456789012:root","arn:aws:iam::123456789012:user/a"]}"#,
        r#"{"Service":["s3.amazonaws.com"],"AWS":"arn:aws:sts::1:assumed-role/r/s"}"#,
        r#"{"Federated":"cognito-identity.amazonaws.com"}"#,
        r#"{"CanonicalUser":"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"}"#,
    ] {
        assert!(Policy::parse(&doc(ok), PolicyKind::Resource).is_ok(), "{ok}");
    }
    for bad in [
        r#""someone""#,
        r#"{}"#,
        r#"{"AWS":"alice"}"#,
        r#"{"AWS":"arn:aws:iam::1:user/*"}"#,
        r#"{"Team":"x"}"#,
        r#"{"AWS":[]}"#,
    ] {
        assert_eq!(
            Policy::parse(&doc(bad), PolicyKind::Resource).unwrap_err().to_string(),
            "Invalid principal in policy",
            "{bad}"
        );
    }
}

#[test]
fn resources_must_be_arns_or_star() {
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"bucket/*"}}"#,
            PolicyKind::Identity
        ),
        "Resource bucket/* must be in ARN format or \"*\"."
    );
    assert_eq!(
        message(
            r#"{"Statement":{"Effect":"Allow","Action":"iam:*","Resource":"arn:aws:iam:us-east-1:1:role/r"}}"#,
            PolicyKind::Identity
        ),
        "IAM resource arn:aws:iam:us-east-1:1:role/r cannot contain region information."
    );
    assert!(
        identity(r#"{"Statement":{"Effect":"Allow","Action":"iam:*","Resource":"arn:aws:iam::1:role/r"}}"#).is_ok()
    );
}

#[test]
fn unknown_condition_operators() {
    let doc = r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"StringEqual":{"aws:username":"a"}}}}"#;
    assert_eq!(
        message(doc, PolicyKind::Identity),
        "Invalid Condition type : StringEqual"
    );
    let null_if_exists = r#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{"NullIfExists":{"aws:username":"true"}}}}"#;
    assert_eq!(
        message(null_if_exists, PolicyKind::Identity),
        "Invalid Condition type : NullIfExists"
    );
    let every = [
        "StringEquals",
        "StringNotEquals",
        "StringEqualsIgnoreCase",
        "StringNotEqualsIgnoreCase",
        "StringLike",
        "StringNotLike",
        "NumericEquals",
        "NumericNotEquals",
        "NumericLessThan",
        "NumericLessThanEquals",
        "NumericGreaterThan",
        "NumericGreaterThanEquals",
        "DateEquals",
        "DateNotEquals",
        "DateLessThan",
        "DateLessThanEquals",
        "DateGreaterThan",
        "DateGreaterThanEquals",
        "Bool",
        "BinaryEquals",
        "IpAddress",
        "NotIpAddress",
        "ArnEquals",
        "ArnLike",
        "ArnNotEquals",
        "ArnNotLike",
    ];
    for op in every {
        for name in [
            op.to_owned(),
            format!("{op}IfExists"),
            format!("ForAnyValue:{op}"),
            format!("ForAllValues:{op}IfExists"),
        ] {
            let doc = format!(
                r#"{{"Statement":{{"Effect":"Allow","Action":"s3:*","Resource":"*","Condition":{{"{name}":{{"aws:x":["1",2,true]}}}}}}}}"#
            );
            assert!(identity(&doc).is_ok(), "{name}");
        }
    }
}

#[test]
fn sids_are_unique_and_alphanumeric_in_iam() {
    let dup = r#"{"Statement":[{"Sid":"A","Effect":"Allow","Action":"s3:*","Resource":"*"},{"Sid":"A","Effect":"Deny","Action":"s3:*","Resource":"*"}]}"#;
    assert_eq!(
        message(dup, PolicyKind::Identity),
        "Statement IDs (SID) in a single policy must be unique."
    );
    let spaced = r#"{"Statement":{"Sid":"Allow all","Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}"#;
    assert!(message(spaced, PolicyKind::Trust).starts_with("Statement IDs (SID) must be alpha-numeric."));
    assert!(
        Policy::parse(spaced, PolicyKind::Resource).is_ok(),
        "S3 and SQS take any Sid"
    );
}

#[test]
fn context_keys_are_listed_once_in_the_order_the_policy_names_them() {
    // The GetContextKeysForCustomPolicy CLI example (IAM User Guide).
    let example = identity(
        r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*",
            "Resource":"arn:aws:dynamodb:us-west-2:123456789012:table/${aws:username}",
            "Condition":{"DateGreaterThan":{"aws:CurrentTime":"2015-08-16T12:00:00Z"}}}}"#,
    )
    .unwrap();
    assert_eq!(example.context_keys(), ["aws:username", "aws:CurrentTime"]);
    let several = identity(
        r#"{"Version":"2012-10-17","Statement":[
            {"Effect":"Allow","Action":"s3:*","Resource":"*",
             "Condition":{"StringEquals":{"s3:prefix":"home/${aws:userid}/","aws:SourceVpc":"vpc-1"},
                          "Bool":{"aws:SecureTransport":"true"}}},
            {"Effect":"Deny","Action":"s3:*","Resource":"*",
             "Condition":{"StringLike":{"AWS:SourceVPC":"x"},"Null":{"aws:MultiFactorAuthAge":"true"}}}]}"#,
    )
    .unwrap();
    assert_eq!(
        several.context_keys(),
        [
            "s3:prefix",
            "aws:userid",
            "aws:SourceVpc",
            "aws:SecureTransport",
            "aws:MultiFactorAuthAge"
        ]
    );
    // Version 2008-10-17 has no variables: `${aws:username}` there is text.
    let legacy =
        identity(r#"{"Version":"2008-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::${aws:username}"}}"#)
            .unwrap();
    assert!(legacy.context_keys().is_empty());
}
