//! Property tests with a seeded generator (failures reproduce from the seed): the parser never
//! panics, whatever the bytes, nor does evaluating whatever it accepts; and the wildcard
//! matchers keep their laws.

use stratus_policy::{evaluate, Policy, PolicyKind, PolicySet, Principal, Request};
use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

const SEEDS: &[&[u8]] = &[
    br#"{"Version":"2012-10-17","Id":"x","Statement":[{"Sid":"A","Effect":"Allow","Action":["s3:Get*","sqs:Send?essage"],"Resource":"arn:aws:s3:::b/${aws:username}/*","Condition":{"StringLike":{"s3:prefix":["home/${aws:username, 'x'}/*"]},"ForAllValues:StringEquals":{"aws:TagKeys":["a","b"]},"IpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]},"DateLessThan":{"aws:CurrentTime":"2030-01-01T00:00:00Z"},"NumericLessThanEquals":{"s3:max-keys":10},"Bool":{"aws:SecureTransport":true},"Null":{"aws:TokenIssueTime":"true"}}},{"Effect":"Deny","NotAction":"iam:*","NotResource":["arn:aws:iam::*:user/${*}"]}]}"#,
    br#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":["123456789012","arn:aws:iam::1:role/p/r","arn:aws:sts::1:assumed-role/r/s"],"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:*:q","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:*:${aws:PrincipalTag/t}"}}}}"#,
    br#"{"Statement":{"Effect":"Deny","NotPrincipal":"*","Action":"*","Resource":"*","Condition":{"ForAnyValue:StringNotEqualsIgnoreCaseIfExists":{"aws:x":"${$}${?}"}}}}"#,
];

/// What breaks this parser in particular, beside JSON's own troubles.
const OWN_TOKENS: &[&[u8]] = &[
    b"*",
    b"?",
    b"${",
    b"'",
    b"arn:",
    b"\"Effect\":\"Deny\"",
    b"\"Principal\":\"*\"",
    b"\"Resource\":\"*\"",
    b"ForAllValues:",
    b"IfExists",
    b"\"2012-10-17\"",
    b"/",
    b"::",
    b"\"Condition\":{}",
    b"${aws:username}",
];

fn requests() -> Vec<Request> {
    let user = Principal::parse("arn:aws:iam::123456789012:user/alice").unwrap();
    let session = Principal::parse("arn:aws:sts::1:assumed-role/r/s").unwrap();
    vec![
        Request::new(user.clone(), "s3:GetObject", ["arn:aws:s3:::b/alice/x"])
            .with_context("aws:TagKeys", ["a", "c"])
            .with_context("s3:prefix", ["home/alice/"])
            .from_ip("10.1.1.1".parse().unwrap()),
        Request::new(
            session,
            "sqs:SendMessage",
            ["arn:aws:sqs:us-east-1:1:q", "not an arn", "*"],
        )
        .with_principal_tag("t", "é?*"),
        Request::new(Principal::Anonymous, "iam:CreateUser", Vec::<String>::new()),
        Request::new(
            user,
            "SQS:SENDMESSAGE",
            ["arn:aws:sqs:us-east-1:123456789012:q:extra:colons"],
        ),
    ]
}

#[test]
fn parser_and_evaluator_never_panic() {
    let requests = requests();
    let mut rng = Rng(0x1a3_9011_c4f0_5eed);
    let tokens = [JSON_TOKENS, OWN_TOKENS].concat();
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..20_000 {
        let bytes = fuzz_input(&mut rng, i, SEEDS, &tokens, 48);
        for kind in [PolicyKind::Identity, PolicyKind::Resource, PolicyKind::Trust] {
            match Policy::from_slice(&bytes, kind) {
                Ok(policy) => {
                    parsed += 1;
                    let set = PolicySet {
                        identity: vec![&policy],
                        resource: Some(&policy),
                        session: vec![&policy],
                        ..Default::default()
                    };
                    for request in &requests {
                        let decision = evaluate(request, &set);
                        let _ = decision.message(request);
                    }
                }
                Err(err) => {
                    refused += 1;
                    assert!(!err.to_string().is_empty());
                }
            }
        }
    }
    assert!(
        parsed > 500 && refused > 500,
        "parsed {parsed}, refused {refused}: mutations are not varied enough"
    );
}

/// A random string over an alphabet that makes wildcard collisions likely.
fn word(rng: &mut Rng, alphabet: &[char], max: usize) -> String {
    (0..rng.below(max + 1))
        .map(|_| alphabet[rng.below(alphabet.len())])
        .collect()
}

/// Whether one identity statement with `action` and `resource` lets the request through.
fn allowed(action: &str, resource: &str, request_action: &str, request_resource: &str) -> bool {
    let doc = format!(r#"{{"Statement":{{"Effect":"Allow","Action":"{action}","Resource":"{resource}"}}}}"#);
    let policy = Policy::parse(&doc, PolicyKind::Identity).unwrap();
    let principal = Principal::parse("arn:aws:iam::1:user/u").unwrap();
    let request = Request::new(principal, request_action, [request_resource]);
    evaluate(
        &request,
        &PolicySet {
            identity: vec![&policy],
            ..Default::default()
        },
    )
    .is_allowed()
}

fn allows(action_pattern: &str, action: &str) -> bool {
    allowed(&format!("s:{action_pattern}"), "*", &format!("s:{action}"), "*")
}

fn resource_allowed(pattern: &str, arn: &str) -> bool {
    allowed(
        "*",
        &format!("arn:aws:s3:::{pattern}"),
        "s3:GetObject",
        &format!("arn:aws:s3:::{arn}"),
    )
}

#[test]
fn wildcard_laws() {
    let mut rng = Rng(0x0007_71dc_a4d5);
    let letters = ['a', 'b', 'A', 'é', '/', ':'];
    for _ in 0..3_000 {
        let text = word(&mut rng, &letters, 8);
        let other = word(&mut rng, &letters, 8);
        // A pattern without wildcards matches only itself (actions: up to ASCII case).
        assert!(resource_allowed(&text, &text), "{text}");
        assert_eq!(resource_allowed(&text, &other), text == other, "{text} vs {other}");
        assert_eq!(
            allows(&text, &other),
            text.eq_ignore_ascii_case(&other),
            "{text} vs {other}"
        );
        // `*` matches everything, `?` exactly one character.
        assert!(allows("*", &other));
        let ones = "?".repeat(other.chars().count());
        assert!(allows(&ones, &other), "{ones} vs {other}");
        assert!(!allows(&format!("{ones}?"), &other));
        // Prefix*, *suffix and a pattern made by replacing part of a text with `*`.
        let cut = rng.below(text.chars().count() + 1);
        let (head, tail): (String, String) = (text.chars().take(cut).collect(), text.chars().skip(cut).collect());
        assert!(resource_allowed(&format!("{head}*"), &text));
        assert!(resource_allowed(&format!("*{tail}"), &text));
        assert!(resource_allowed(
            &format!("{head}*{tail}"),
            &format!("{head}{other}{tail}")
        ));
        // A pattern with wildcards never matches a text it could not produce in length.
        if !text.contains(['*', '?']) && !other.starts_with(&head) {
            assert!(!resource_allowed(&format!("{head}*"), &other));
        }
    }
}
