//! EventBridge event patterns: each operator's matching and each refusal's wording.
//! Pages cited are under https://docs.aws.amazon.com/eventbridge/latest/userguide/.

use serde_json::{json, Value};
use stratus_event_pattern::{Dialect, Pattern};

fn pattern(text: &str) -> Pattern {
    Pattern::parse(text, Dialect::EventBridge).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn hits(text: &str, event: Value) -> bool {
    pattern(text).matches(&event)
}

/// The reason AWS gives for refusing a pattern.
fn refusal(text: &str) -> String {
    let e = Pattern::parse(text, Dialect::EventBridge).expect_err(text);
    assert_eq!(e.code(), "InvalidEventPatternException");
    assert!(e.message().starts_with("Event pattern is not valid. Reason: "));
    e.reason().to_owned()
}

// eb-event-patterns.html: values are matched exactly, fields are ANDed, list entries ORed.
#[test]
fn exact_values_of_each_json_type() {
    let p = r#"{"s": ["a", "b"], "n": [5], "t": [true], "z": [null]}"#;
    assert!(hits(p, json!({"s": "b", "n": 5, "t": true, "z": null})));
    assert!(hits(p, json!({"s": "a", "n": 5.0, "t": true, "z": null, "other": 1})));
    assert!(!hits(p, json!({"s": "c", "n": 5, "t": true, "z": null})));
    assert!(!hits(p, json!({"s": "a", "n": "5", "t": true, "z": null})));
    assert!(!hits(p, json!({"s": "a", "n": 5, "t": "true", "z": null})));
    assert!(!hits(p, json!({"s": "a", "n": 5, "t": true})));
    assert!(!hits(p, json!({"s": "A", "n": 5, "t": true, "z": null})));
}

#[test]
fn numbers_beyond_comparison_range_still_match_exactly() {
    // An account number is larger than the numeric range but matches as written.
    assert!(hits(
        r#"{"account": [123456789012]}"#,
        json!({"account": 123456789012u64})
    ));
    assert!(!hits(
        r#"{"account": [123456789012]}"#,
        json!({"account": 123456789013u64})
    ));
    assert!(hits(r#"{"x": [300]}"#, json!({"x": 3.0e2})));
}

#[test]
fn empty_string_matches_only_empty_string() {
    assert!(hits(r#"{"a": [""]}"#, json!({"a": ""})));
    assert!(!hits(r#"{"a": [""]}"#, json!({"a": "x"})));
}

// eb-event-patterns-arrays.html: an array in the event matches if any element does.
#[test]
fn event_arrays_match_by_any_element() {
    let p = r#"{"resources": ["arn:x"]}"#;
    assert!(hits(p, json!({"resources": ["arn:y", "arn:x"]})));
    assert!(!hits(p, json!({"resources": ["arn:y"]})));
    assert!(!hits(p, json!({"resources": []})));
    assert!(!hits(r#"{"resources": [null]}"#, json!({"resources": []})));
    assert!(hits(p, json!({"resources": [["arn:x"]]})));
}

#[test]
fn fields_in_one_array_element_must_match_together() {
    let p = r#"{"items": {"k": ["a"], "v": [2]}}"#;
    assert!(hits(p, json!({"items": [{"k": "b", "v": 2}, {"k": "a", "v": 2}]})));
    assert!(!hits(p, json!({"items": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]})));
}

#[test]
fn nested_objects_and_dotted_keys_are_one_path() {
    let nested = r#"{"detail": {"state": {"status": ["up"]}}}"#;
    let dotted = r#"{"detail": {"state.status": ["up"]}}"#;
    for p in [nested, dotted] {
        assert!(hits(p, json!({"detail": {"state": {"status": "up"}}})));
        assert!(hits(p, json!({"detail": {"state.status": "up"}})));
        assert!(!hits(p, json!({"detail": {"state": {"status": "down"}}})));
        assert!(!hits(p, json!({"detail": {"state": "up"}})));
    }
    assert!(!hits(
        r#"{"detail": {"state.status": {"status": ["up"]}}}"#,
        json!({"detail": {"state": {"status": "up"}}})
    ));
}

#[test]
fn keys_are_case_sensitive() {
    assert!(!hits(r#"{"Source": ["a"]}"#, json!({"source": "a"})));
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-prefix-matching
#[test]
fn prefix_and_its_ignore_case_form() {
    assert!(hits(r#"{"t": [{"prefix": "2024-"}]}"#, json!({"t": "2024-01-02"})));
    assert!(!hits(r#"{"t": [{"prefix": "2024-"}]}"#, json!({"t": "2023-01-02"})));
    assert!(!hits(r#"{"t": [{"prefix": "1"}]}"#, json!({"t": 12})));
    assert!(hits(r#"{"t": [{"prefix": ""}]}"#, json!({"t": "anything"})));
    let p = r#"{"t": [{"prefix": {"equals-ignore-case": "EC2"}}]}"#;
    assert!(hits(p, json!({"t": "ec2 state change"})));
    assert!(!hits(p, json!({"t": "e c2"})));
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-suffix-matching
#[test]
fn suffix_and_its_ignore_case_form() {
    assert!(hits(r#"{"f": [{"suffix": ".png"}]}"#, json!({"f": "a.png"})));
    assert!(!hits(r#"{"f": [{"suffix": ".png"}]}"#, json!({"f": "a.PNG"})));
    let p = r#"{"f": [{"suffix": {"equals-ignore-case": ".png"}}]}"#;
    assert!(hits(p, json!({"f": "A.PNG"})));
    assert!(!hits(p, json!({"f": "png"})));
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-equals-ignore-case-matching
#[test]
fn equals_ignore_case() {
    let p = r#"{"d": [{"equals-ignore-case": "Instance Ready"}]}"#;
    assert!(hits(p, json!({"d": "INSTANCE READY"})));
    assert!(hits(p, json!({"d": "instance ready"})));
    assert!(!hits(p, json!({"d": "instance ready!"})));
    assert!(hits(r#"{"d": [{"equals-ignore-case": "ÉTÉ"}]}"#, json!({"d": "été"})));
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-wildcard-matching
#[test]
fn wildcard() {
    let p = r#"{"arn": [{"wildcard": "arn:aws:s3:::bucket/*.png"}]}"#;
    assert!(hits(p, json!({"arn": "arn:aws:s3:::bucket/dir/a.png"})));
    assert!(hits(p, json!({"arn": "arn:aws:s3:::bucket/.png"})));
    assert!(!hits(p, json!({"arn": "arn:aws:s3:::bucket/a.jpg"})));
    assert!(hits(r#"{"a": [{"wildcard": "x\\*y"}]}"#, json!({"a": "x*y"})));
    assert!(!hits(r#"{"a": [{"wildcard": "x\\*y"}]}"#, json!({"a": "xzy"})));
    assert!(hits(r#"{"a": [{"wildcard": "*"}]}"#, json!({"a": ""})));
    assert!(!hits(r#"{"a": [{"wildcard": "*"}]}"#, json!({"a": 1})));
}

#[test]
fn wildcard_refusals() {
    assert_eq!(
        refusal(r#"{"a": [{"wildcard": "ab**"}]}"#),
        "Consecutive wildcard characters at pos 3"
    );
    assert_eq!(
        refusal(r#"{"a": [{"wildcard": "a\\b"}]}"#),
        "Invalid escape character at pos 1"
    );
    let e = Pattern::parse(r#"{"a": [{"wildcard": "*:*:*:*:*:*:x/*"}]}"#, Dialect::EventBridge).unwrap_err();
    assert!(e.reason().starts_with("Rule is too complex"));
    assert_eq!(e.detail(), e.reason(), "AWS gives this one no position");
    assert_eq!(
        refusal(r#"{"a": [{"wildcard": 1}]}"#),
        "wildcard match pattern must be a string"
    );
    // Two wildcards with distinct separators are fine.
    pattern(r#"{"a": [{"wildcard": "arn:aws:events:*:*:event-bus/*"}]}"#);
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-anything-but
#[test]
fn anything_but_values() {
    let p = r#"{"s": [{"anything-but": "init"}]}"#;
    assert!(hits(p, json!({"s": "running"})));
    assert!(!hits(p, json!({"s": "init"})));
    assert!(hits(p, json!({"s": null})));
    assert!(hits(p, json!({"s": 3})));
    assert!(!hits(p, json!({})), "a missing field matches no anything-but");
    let p = r#"{"s": [{"anything-but": ["a", "b"]}]}"#;
    assert!(!hits(p, json!({"s": "b"})));
    assert!(hits(p, json!({"s": "c"})));
    let p = r#"{"n": [{"anything-but": [1, 2.5]}]}"#;
    assert!(!hits(p, json!({"n": 2.5})));
    assert!(hits(p, json!({"n": 0})));
    assert!(!hits(r#"{"n": [{"anything-but": 0}]}"#, json!({"n": 0})));
}

#[test]
fn anything_but_expressions() {
    let p = r#"{"s": [{"anything-but": {"prefix": "init"}}]}"#;
    assert!(!hits(p, json!({"s": "initializing"})));
    assert!(hits(p, json!({"s": "running"})));
    assert!(hits(p, json!({"s": 12})));
    let p = r#"{"s": [{"anything-but": {"suffix": [".txt", ".md"]}}]}"#;
    assert!(!hits(p, json!({"s": "a.md"})));
    assert!(hits(p, json!({"s": "a.png"})));
    let p = r#"{"s": [{"anything-but": {"wildcard": "*/cache/*"}}]}"#;
    assert!(!hits(p, json!({"s": "/a/cache/b"})));
    assert!(hits(p, json!({"s": "/a/var/b"})));
    assert!(hits(p, json!({"s": null})));
    let p = r#"{"s": [{"anything-but": {"equals-ignore-case": ["Stopped", "x"]}}]}"#;
    assert!(!hits(p, json!({"s": "STOPPED"})));
    assert!(hits(p, json!({"s": "running"})));
}

#[test]
fn anything_but_refusals() {
    let only = "Value of anything-but must be an array or single string/number value.";
    assert_eq!(refusal(r#"{"s": [{"anything-but": null}]}"#), only);
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": {"prefix": {"equals-ignore-case": "a"}}}]}"#),
        only
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": ["a", null]}]}"#),
        "Inside anything but list, start|null|boolean is not supported."
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": ["a", 1]}]}"#),
        "Inside anything but list, either all values are number or string, mixed type is not supported"
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": {"prefix": ""}}]}"#),
        "Null prefix/suffix not allowed"
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": {"suffix": [1]}}]}"#),
        "prefix/suffix match pattern must be a string"
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": {"equals-ignore-case": 5}}]}"#),
        "Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported."
    );
    assert_eq!(
        refusal(r#"{"s": [{"anything-but": {"exists": true}}]}"#),
        "Unsupported anything-but pattern: exists"
    );
}

#[test]
fn a_refusal_inside_a_list_repeats_its_position() {
    let e = Pattern::parse(r#"{"s": [{"anything-but": ["a", null]}]}"#, Dialect::EventBridge).unwrap_err();
    let at = "\n at [Source: (String)\"{\"s\": [{\"anything-but\": [\"a\", null]}]}\"; line: 1, column: 35]";
    assert_eq!(e.detail(), format!("{}{at}{at}", e.reason()));
}

// eb-event-patterns-content-based-filtering.html#filtering-numeric-matching
#[test]
fn numeric_comparisons() {
    let p = r#"{"c": [{"numeric": [">", 0, "<=", 5]}]}"#;
    assert!(hits(p, json!({"c": 5})));
    assert!(hits(p, json!({"c": 0.000001})));
    assert!(!hits(p, json!({"c": 0})));
    assert!(!hits(p, json!({"c": 5.000001})));
    assert!(!hits(p, json!({"c": "3"})));
    assert!(!hits(p, json!({"c": null})));
    assert!(hits(r#"{"c": [{"numeric": ["=", 301.8]}]}"#, json!({"c": 3.018e2})));
    assert!(hits(r#"{"c": [{"numeric": ["<", 10]}]}"#, json!({"c": -4e9})));
    assert!(hits(r#"{"c": [{"numeric": [">=", 10]}]}"#, json!({"c": 10})));
    assert!(!hits(r#"{"c": [{"numeric": [">", 0]}]}"#, json!({"c": 6e9})));
}

#[test]
fn numeric_refusals() {
    let cases = [
        (r#"{"c": [{"numeric": 10}]}"#, "Value of numeric must be an array."),
        (r#"{"c": [{"numeric": []}]}"#, "Invalid member in numeric match: ]"),
        (
            r#"{"c": [{"numeric": [1, "<"]}]}"#,
            "Invalid member in numeric match: 1",
        ),
        (
            r#"{"c": [{"numeric": ["~", 1]}]}"#,
            "Unrecognized numeric range operator: ~",
        ),
        (r#"{"c": [{"numeric": ["=", "1"]}]}"#, "Value of equals must be numeric"),
        (r#"{"c": [{"numeric": [">", 0, "<"]}]}"#, "Value of < must be numeric"),
        (
            r#"{"c": [{"numeric": [">", 0, ">", 1]}]}"#,
            "Bad numeric range operator: >",
        ),
        (r#"{"c": [{"numeric": [">", 0, 1]}]}"#, "Bad value in numeric range: 1"),
        (
            r#"{"c": [{"numeric": [">", 5, "<", 1]}]}"#,
            "Bottom must be less than top",
        ),
        (
            r#"{"c": [{"numeric": ["<", 5, ">", 1]}]}"#,
            "Too many elements in numeric expression",
        ),
        (
            r#"{"c": [{"numeric": [">", 0, "<", 5, "<", 6]}]}"#,
            "Too many terms in numeric range expression",
        ),
        (
            r#"{"c": [{"numeric": [">", 6e9]}]}"#,
            "Value must be between -5.0E9 and 5.0E9, inclusive",
        ),
        (r#"{"c": [{"NUMERIC": ["=", 5]}]}"#, "Unrecognized match type NUMERIC"),
    ];
    for (text, reason) in cases {
        assert_eq!(refusal(text), reason, "{text}");
    }
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-exists-matching
#[test]
fn exists_on_leaves_only() {
    let yes = r#"{"d": {"x": [{"exists": true}]}}"#;
    let no = r#"{"d": {"x": [{"exists": false}]}}"#;
    assert!(hits(yes, json!({"d": {"x": "v"}})));
    assert!(hits(yes, json!({"d": {"x": null}})));
    assert!(!hits(yes, json!({"d": {"x": []}})), "an empty array holds no value");
    assert!(!hits(yes, json!({"d": {"x": {"y": 1}}})), "an object is not a leaf");
    assert!(!hits(yes, json!({"d": {}})));
    assert!(hits(no, json!({"d": {}})));
    assert!(hits(no, json!({})), "a missing parent is a missing field");
    assert!(hits(no, json!({"d": {"x": {"y": 1}}})));
    assert!(!hits(no, json!({"d": {"x": 0}})));
    assert!(!hits(no, json!({"d": {"x": null}})));
    assert_eq!(
        refusal(r#"{"x": [{"exists": "yes"}]}"#),
        "exists match pattern must be either true or false."
    );
    assert_eq!(
        refusal(r#"{"x": [{"exists": true, "prefix": "a"}]}"#),
        "Only one key allowed in match expression"
    );
}

// eb-event-patterns-content-based-filtering.html#eb-filtering-ip-matching
#[test]
fn cidr_for_both_families() {
    let p = r#"{"ip": [{"cidr": "10.0.0.0/24"}]}"#;
    assert!(hits(p, json!({"ip": "10.0.0.255"})));
    assert!(!hits(p, json!({"ip": "10.0.1.0"})));
    assert!(!hits(p, json!({"ip": 10})));
    assert!(!hits(p, json!({"ip": "::ffff:10.0.0.1"})));
    let p = r#"{"ip": [{"cidr": "2001:db8:1234:1a00::/64"}]}"#;
    assert!(hits(p, json!({"ip": "2001:0db8:1234:1a00:0000:0000:0000:0001"})));
    assert!(!hits(p, json!({"ip": "2001:db8:1234:1a01::"})));
    assert!(!hits(p, json!({"ip": "10.0.0.1"})));
}

#[test]
fn cidr_refusals_carry_no_position() {
    for (text, reason) in [
        ("10.0.0.0", "Malformed CIDR, one '/' required"),
        ("10.0.0.0/x", "Malformed CIDR, mask bits must be an integer"),
        ("10.0.0.0/-1", "Malformed CIDR, mask bits must not be negative"),
        ("10.x.0.0/8", "Nonstandard IP address: 10.x.0.0"),
        ("10.0.0.0/32", "IPv4 mask bits must be < 32"),
        ("::/128", "IPv6 mask bits must be < 128"),
    ] {
        let e = Pattern::parse(&format!(r#"{{"ip": [{{"cidr": "{text}"}}]}}"#), Dialect::EventBridge).unwrap_err();
        assert_eq!(e.reason(), reason);
        assert_eq!(e.detail(), reason);
    }
    assert_eq!(
        refusal(r#"{"ip": [{"cidr": ["10.0.0.0/8"]}]}"#),
        "prefix match pattern must be a string"
    );
}

// eb-event-patterns.html#eb-filtering-or-matching (content filtering: $or)
#[test]
fn or_alternatives() {
    let p = r#"{"source": ["a"], "$or": [{"x": [1]}, {"y": [{"prefix": "p"}], "z": [true]}]}"#;
    assert!(hits(p, json!({"source": "a", "x": 1})));
    assert!(hits(p, json!({"source": "a", "y": "pq", "z": true})));
    assert!(!hits(p, json!({"source": "a", "y": "pq"})));
    assert!(!hits(p, json!({"source": "b", "x": 1})));
    let p = r#"{"d": {"$or": [{"a": [{"exists": true}]}, {"b": [{"anything-but": "x"}]}]}}"#;
    assert!(hits(p, json!({"d": {"b": "y"}})));
    assert!(!hits(p, json!({"d": {"b": "x"}})));
}

#[test]
fn or_refusals() {
    assert_eq!(
        refusal(r#"{"$or": [{"a": [1]}]}"#),
        "There must have at least 2 Objects in $or relationship."
    );
    assert_eq!(
        refusal(r#"{"$or": {"a": [1]}}"#),
        "It must be an Array followed with $or."
    );
    assert_eq!(
        refusal(r#"{"$or": [{"a": [1]}, 2]}"#),
        "Only JSON object is allowed in array of $or relationship."
    );
    assert_eq!(
        refusal(r#"{"$or": [{"a": [1]}, {"prefix": [2]}]}"#),
        "prefix is Ruler reserved fieldName which cannot be used inside $or."
    );
}

#[test]
fn structure_refusals_with_aws_positions() {
    let e = Pattern::parse(r#"{"int": 42}"#, Dialect::EventBridge).unwrap_err();
    assert_eq!(
        e.message(),
        "Event pattern is not valid. Reason: \"int\" must be an object or an array\n at [Source: (String)\"{\"int\": 42}\"; line: 1, column: 11]"
    );
    let e = Pattern::parse(r#"{"s": "v"}"#, Dialect::EventBridge).unwrap_err();
    assert!(e.detail().ends_with("line: 1, column: 8]"), "{e}");
    assert_eq!(refusal(r#"{"resources": []}"#), "Empty arrays are not allowed");
    assert_eq!(refusal(r#"{"d": {}}"#), "Empty objects are not allowed");
    assert_eq!(refusal(r#"["a"]"#), "Filter is not an object");
    assert_eq!(
        refusal(r#"{"a": [["x"]]}"#),
        "Match value must be String, number, true, false, or null"
    );
    assert_eq!(refusal(r#"{"a": [{}]}"#), "Match expression name not found");
    assert_eq!(
        refusal(r#"{"a": [{"EXISTS": true}]}"#),
        "Unrecognized match type EXISTS"
    );
    for (text, reason) in [
        (r#"{"a": [{"prefix": 1}]}"#, "prefix match pattern must be a string"),
        (r#"{"a": [{"suffix": ["x"]}]}"#, "suffix match pattern must be a string"),
        (
            r#"{"a": [{"equals-ignore-case": {"prefix": "x"}}]}"#,
            "equals-ignore-case match pattern must be a string",
        ),
        (
            r#"{"a": [{"prefix": {"wildcard": "x"}}]}"#,
            "Unsupported prefix pattern: wildcard",
        ),
    ] {
        assert_eq!(refusal(text), reason, "{text}");
    }
}

#[test]
fn json_syntax_errors_are_reported_as_the_aws_parser_words_them() {
    let e = Pattern::parse("{'a': ['b']}", Dialect::EventBridge).unwrap_err();
    assert_eq!(
        e.detail(),
        "Unexpected character (''' (code 39)): was expecting double-quote to start field name\n at [Source: (String)\"{'a': ['b']}\"; line: 1, column: 2]"
    );
    let e = Pattern::parse("nope", Dialect::EventBridge).unwrap_err();
    assert!(e.reason().starts_with("Unrecognized token 'nope': was expecting"));
    assert!(e.detail().ends_with("line: 1, column: 5]"));
    assert!(Pattern::parse(r#"{"a": ["b"]"#, Dialect::EventBridge).is_err());
}

#[test]
fn a_later_duplicate_path_replaces_the_earlier() {
    let p = r#"{"a": ["x"], "a": ["y"]}"#;
    assert!(hits(p, json!({"a": "y"})));
    assert!(!hits(p, json!({"a": "x"})));
}

#[test]
fn an_ip_address_value_matches_the_address_however_written() {
    let p = r#"{"ip": ["2001:db8::1"]}"#;
    assert!(hits(p, json!({"ip": "2001:0db8:0000:0000:0000:0000:0000:0001"})));
    assert!(!hits(p, json!({"ip": "2001:db8::2"})));
}

#[test]
fn numbers_compare_to_six_decimal_places() {
    let p = r#"{"n": [{"numeric": ["=", 0.1234564]}]}"#;
    assert!(hits(p, json!({"n": 0.123456})));
    assert!(!hits(p, json!({"n": 0.123457})));
}
