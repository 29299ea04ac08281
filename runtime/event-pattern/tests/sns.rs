//! SNS filter policies: attribute and body scopes, SNS's limits and wording.
//! Pages cited are under https://docs.aws.amazon.com/sns/latest/dg/.

use serde_json::json;
use stratus_event_pattern::{Attribute, Dialect, Pattern};

fn policy(text: &str) -> Pattern {
    Pattern::parse(text, Dialect::SnsMessageAttributes).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn body(text: &str) -> Pattern {
    Pattern::parse(text, Dialect::SnsMessageBody).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn attr<'a>(name: &'a str, kind: &str, value: &'a str) -> Attribute<'a> {
    Attribute::new(name, kind, value)
}

// sns-subscription-filter-policies.html: attribute-based filtering.
#[test]
fn attributes_of_each_type() {
    let p = policy(r#"{"store": ["north"], "price": [{"numeric": [">", 0, "<=", 100]}]}"#);
    assert!(p.matches_attributes(&[attr("store", "String", "north"), attr("price", "Number", "99"),]));
    assert!(!p.matches_attributes(&[attr("store", "String", "north"), attr("price", "Number", "111"),]));
    assert!(
        !p.matches_attributes(&[attr("store", "String", "north"), attr("price", "String", "99"),]),
        "numeric matching compares Number attributes only"
    );
    assert!(p.matches_attributes(&[
        attr("price", "Number.float", "1.5"),
        attr("store", "String.custom", "north"),
    ]));
    assert!(!p.matches_attributes(&[attr("store", "String", "north")]));
}

#[test]
fn string_array_attributes_match_by_any_element() {
    let p = policy(r#"{"store": ["value1"]}"#);
    assert!(p.matches_attributes(&[attr("store", "String.Array", r#"["value1","value2"]"#)]));
    assert!(!p.matches_attributes(&[attr("store", "String.Array", r#"["value2","value3"]"#)]));
    assert!(!p.matches_attributes(&[attr("store", "String.Array", "not json")]));
    let n = policy(r#"{"n": [{"numeric": [">", 5]}], "b": [true]}"#);
    assert!(n.matches_attributes(&[attr("n", "String.Array", "[1, 7]"), attr("b", "String.Array", "[true]")]));
}

#[test]
fn binary_attributes_are_never_compared() {
    let p = policy(r#"{"blob": [{"exists": true}]}"#);
    assert!(!p.matches_attributes(&[attr("blob", "Binary", "")]));
    let p = policy(r#"{"blob": [{"exists": false}]}"#);
    assert!(p.matches_attributes(&[attr("blob", "Binary", "")]));
}

// sns-subscription-filter-policies.html: key matching (exists).
#[test]
fn exists_on_attributes() {
    let yes = policy(r#"{"store": [{"exists": true}]}"#);
    let no = policy(r#"{"store": [{"exists": false}]}"#);
    let with = [attr("store", "Number", "99"), attr("def", "Number", "99")];
    let without = [attr("def", "Number", "99")];
    assert!(yes.matches_attributes(&with));
    assert!(!yes.matches_attributes(&without));
    assert!(!no.matches_attributes(&with));
    assert!(no.matches_attributes(&without));
    assert!(no.matches_attributes(&[]));
}

#[test]
fn attribute_names_with_dots_are_names() {
    let p = policy(r#"{"a.b": ["x"]}"#);
    assert!(p.matches_attributes(&[attr("a.b", "String", "x")]));
}

#[test]
fn operators_on_attributes() {
    let p = policy(
        r#"{"a": [{"anything-but": {"prefix": "test-"}}], "b": [{"suffix": ".png"}], "c": [{"equals-ignore-case": "X"}], "d": [{"cidr": "10.0.0.0/8"}]}"#,
    );
    let ok = [
        attr("a", "String", "prod-1"),
        attr("b", "String", "a.png"),
        attr("c", "String", "x"),
        attr("d", "String", "10.1.2.3"),
    ];
    assert!(p.matches_attributes(&ok));
    let mut bad = ok;
    bad[0] = attr("a", "String", "test-1");
    assert!(!p.matches_attributes(&bad));
    let p = policy(r#"{"$or": [{"a": ["1"]}, {"b": [{"anything-but": ["x", "y"]}]}]}"#);
    assert!(p.matches_attributes(&[attr("b", "String", "z")]));
    assert!(!p.matches_attributes(&[attr("b", "String", "x")]));
}

// sns-message-filtering-scope.html: payload-based filtering.
#[test]
fn body_scope_matches_nested_json() {
    let p = body(r#"{"object": {"key": [{"prefix": "auto-"}]}}"#);
    assert!(p.matches(&json!({"object": {"key": "auto-test"}})));
    assert!(!p.matches(&json!({"object": {"key": "manual"}})));
    assert!(p.matches_json(r#"{"object": {"key": "auto-x"}}"#));
    assert!(!p.matches_json("plain text"));
    let p = body(r#"{"headers": {"route-to": ["queue1"]}}"#);
    assert!(p.matches_json(r#"{"headers": {"route-to": ["queue1", "queue2"]}}"#));
    assert!(!p.matches_json(r#"{"headers": {"route-to": ["queue2"]}}"#));
    let p = body(r#"{"object.nested": ["v"]}"#);
    assert!(p.matches(&json!({"object": {"nested": "v"}})));
    assert!(p.matches(&json!({"object.nested": "v"})));
}

fn refusal(text: &str, dialect: Dialect) -> stratus_event_pattern::PatternError {
    let e = Pattern::parse(text, dialect).expect_err(text);
    assert_eq!(e.code(), "InvalidParameter");
    e
}

// subscription-filter-policy-constraints.html
#[test]
fn nested_policies_need_the_body_scope() {
    let e = refusal(r#"{"a": {"b": ["x"]}}"#, Dialect::SnsMessageAttributes);
    assert_eq!(
        e.message(),
        "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy"
    );
    assert_eq!(e.attributes_message(), e.message());
    body(r#"{"a": {"b": ["x"]}}"#);
}

#[test]
fn at_most_five_keys() {
    let six = r#"{"a": [1], "b": [1], "c": [1], "d": [1], "e": [1], "f": [1]}"#;
    for d in [Dialect::SnsMessageAttributes, Dialect::SnsMessageBody] {
        let e = refusal(six, d);
        assert_eq!(
            e.message(),
            "Invalid parameter: FilterPolicy: Filter policy can not have more than 5 keys"
        );
    }
    policy(r#"{"a": [1], "b": [1], "c": [1], "d": [1], "e": [1]}"#);
    // Body scope counts only the top-level keys.
    body(r#"{"a": {"x": [1], "y": [1], "z": [1]}, "b": {"x": [1], "y": [1], "z": [1]}}"#);
}

#[test]
fn at_most_150_combinations() {
    let values = |n: usize| (0..n).map(|i| format!("\"v{i}\"")).collect::<Vec<_>>().join(",");
    policy(&format!(r#"{{"k": [{}]}}"#, values(150)));
    let e = refusal(&format!(r#"{{"k": [{}]}}"#, values(151)), Dialect::SnsMessageAttributes);
    assert_eq!(e.reason(), "Filter policy is too complex");
    assert_eq!(
        e.attributes_message(),
        "Invalid parameter: Attributes Reason: FilterPolicy: Filter policy is too complex"
    );
    refusal(
        &format!(r#"{{"a": [{}], "b": [{}]}}"#, values(100), values(2)),
        Dialect::SnsMessageAttributes,
    );
    // $or alternatives add up: 3 * (6 + 4 * (4 + 7)) = 150.
    policy(&format!(
        r#"{{"s": [{}], "$or": [{{"m": [{}]}}, {{"t": [{}], "$or": [{{"i": [{}]}}, {{"j": [{}]}}]}}]}}"#,
        values(3),
        values(6),
        values(4),
        values(4),
        values(7)
    ));
    // In the body scope a value counts once per level of its key's depth: 3*4 * 2*3 * 3 = 216.
    let e = refusal(
        &format!(
            r#"{{"a": {{"b": {{"c": [{}]}}}}, "d": {{"e": [{}]}}, "f": [{}]}}"#,
            values(4),
            values(3),
            values(3)
        ),
        Dialect::SnsMessageBody,
    );
    assert_eq!(e.reason(), "Filter policy is too complex");
}

#[test]
fn positions_count_in_the_policy_as_sns_rewrites_it() {
    // SNS re-writes the policy compactly before compiling it.
    let e = refusal(r#"{ "key" : [ ] }"#, Dialect::SnsMessageAttributes);
    assert_eq!(
        e.message(),
        "Invalid parameter: FilterPolicy: Empty arrays are not allowed\n at [Source: (String)\"{\"key\":[]}\"; line: 1, column: 10]"
    );
    let e = refusal(r#"{"key": [{"suffix": 100}]}"#, Dialect::SnsMessageAttributes);
    assert!(e.detail().ends_with("column: 22]"), "{e}");
}

#[test]
fn sns_refusals() {
    let cases = [
        (r#"{"k": [{"wildcard": "a*"}]}"#, "Unrecognized match type wildcard"),
        (
            r#"{"k": [{"anything-but": {"suffix": "x"}}]}"#,
            "Unsupported anything-but pattern: suffix",
        ),
        (
            r#"{"k": [{"anything-but": {"prefix": false}}]}"#,
            "prefix match pattern must be a string",
        ),
        (
            r#"{"k": [{"exists": null}]}"#,
            "exists match pattern must be either true or false.",
        ),
        (r#"{"k": [{"cidr": "bad/64"}]}"#, "Nonstandard IP address: bad"),
        (
            r#"{"k": [{"numeric": [">=", 1, ">", 2]}]}"#,
            "Bad numeric range operator: >",
        ),
        (
            r#"{"k": [{"prefix": {"equals-ignore-case": "x"}}]}"#,
            "prefix match pattern must be a string",
        ),
        (r#"{"k": "v"}"#, "\"k\" must be an object or an array"),
    ];
    for (text, reason) in cases {
        assert_eq!(refusal(text, Dialect::SnsMessageAttributes).reason(), reason, "{text}");
    }
}

#[test]
fn scopes_by_name() {
    assert_eq!(Dialect::sns_scope("MessageBody"), Some(Dialect::SnsMessageBody));
    assert_eq!(
        Dialect::sns_scope("MessageAttributes"),
        Some(Dialect::SnsMessageAttributes)
    );
    assert_eq!(Dialect::sns_scope("Other"), None);
}

// numeric-value-matching.html: a Number.Array attribute matches if any element does.
#[test]
fn number_arrays_match_by_any_element() {
    let p = policy(r#"{"price": [{"anything-but": [100, 500]}]}"#);
    assert!(p.matches_attributes(&[attr("price", "Number.Array", "[100, 50]")]));
    assert!(!p.matches_attributes(&[attr("price", "Number", "100")]));
    assert!(p.matches_attributes(&[attr("price", "Number", "100.1")]));
}
