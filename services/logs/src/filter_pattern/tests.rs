//! Each form of the filter pattern syntax, against the CloudWatch Logs user guide's page
//! "Filter pattern syntax for metric filters, subscription filters, filter log events"
//! (cited as "syntax page" below); then a property test that parsing never panics.

use stratus_test_support::{mutate, Rng};

use super::FilterPattern;

fn matches(pattern: &str, message: &str) -> bool {
    FilterPattern::parse(pattern)
        .unwrap_or_else(|e| panic!("{pattern}: {e}"))
        .matches(message)
}

// Syntax page, "Matching terms in unstructured log events": an empty pattern matches all.
#[test]
fn an_empty_pattern_matches_everything() {
    assert!(matches("", "anything"));
    assert!(matches("  ", ""));
    assert!(matches("\"\"", "x"));
    assert!(matches("[ ]", "a b c"));
}

// Syntax page, single term: events containing the term, case-sensitive.
#[test]
fn a_term_matches_events_containing_it() {
    assert!(matches("ERROR", "[ERROR] disk full"));
    assert!(!matches("ERROR", "[error] disk full"));
}

// Syntax page, multiple terms: every term must appear, in any order.
#[test]
fn several_terms_must_all_appear() {
    assert!(matches("ERROR ARGUMENTS", "ARGUMENTS missing: ERROR"));
    assert!(!matches("ERROR ARGUMENTS", "ERROR only"));
}

// Syntax page, "Matching exact phrases": a quoted phrase matches as a whole.
#[test]
fn a_quoted_phrase_matches_as_written() {
    assert!(matches("\"hello cruel\"", "hello cruel world"));
    assert!(!matches("\"hello cruel\"", "cruel hello"));
}

// Syntax page, "Using ? to match any of several terms" (OR).
#[test]
fn question_marks_match_any_term() {
    assert!(matches("?ERROR ?WARN", "WARN low memory"));
    assert!(!matches("?ERROR ?WARN", "INFO started"));
}

// Syntax page, "Excluding terms": `-term` drops events that contain it.
#[test]
fn a_minus_excludes_a_term() {
    assert!(matches("ERROR -Exiting", "ERROR retrying"));
    assert!(!matches("ERROR -Exiting", "ERROR Exiting now"));
    assert!(!matches("ERROR -\"shut down\"", "ERROR shut down"));
}

// Syntax page, "Using regular expressions": `%…%` is a regex over the event.
#[test]
fn percent_signs_delimit_a_regex() {
    assert!(matches("%ERROR [0-9]{3}%", "got ERROR 503"));
    assert!(!matches("%ERROR [0-9]{3}%", "got ERROR x"));
}

// Syntax page, JSON log events: equality on a string selector.
#[test]
fn json_string_equality() {
    assert!(matches(
        "{ $.eventType = \"UpdateTrail\" }",
        r#"{"eventType":"UpdateTrail"}"#
    ));
    assert!(!matches(
        "{ $.eventType = \"UpdateTrail\" }",
        r#"{"eventType":"Other"}"#
    ));
    assert!(!matches("{ $.eventType = \"UpdateTrail\" }", "not json"));
}

// Syntax page, JSON: `*` wildcards in string values.
#[test]
fn json_wildcards() {
    assert!(matches(
        "{ $.eventType = \"Update*\" }",
        r#"{"eventType":"UpdateTrail"}"#
    ));
    assert!(matches("{ $.user.id != \"a*\" }", r#"{"user":{"id":"bob"}}"#));
}

// Syntax page, JSON: numeric comparisons and `&&`/`||` with parentheses.
#[test]
fn json_numbers_and_logic() {
    let pattern = "{ ($.a = \"x\" && $.b > 3) || $.c <= -1.5 }";
    assert!(matches(pattern, r#"{"a":"x","b":4}"#));
    assert!(!matches(pattern, r#"{"a":"x","b":3}"#));
    assert!(matches(pattern, r#"{"c":-2}"#));
}

// Syntax page, JSON: `IS NULL`, `NOT EXISTS`, `IS TRUE`/`IS FALSE`.
#[test]
fn json_null_existence_and_booleans() {
    assert!(matches("{ $.a IS NULL }", r#"{"a":null}"#));
    assert!(!matches("{ $.a IS NULL }", r#"{}"#));
    assert!(matches("{ $.a NOT EXISTS }", r#"{"b":1}"#));
    assert!(matches("{ $.ok IS TRUE }", r#"{"ok":true}"#));
    assert!(matches("{ $.ok IS FALSE }", r#"{"ok":false}"#));
}

// Syntax page, JSON: array indexes and `[*]`.
#[test]
fn json_arrays() {
    assert!(matches("{ $.items[1].id = 7 }", r#"{"items":[{"id":1},{"id":7}]}"#));
    assert!(matches("{ $.items[*].id = 7 }", r#"{"items":[{"id":1},{"id":7}]}"#));
}

// Syntax page, JSON: a regex as the value.
#[test]
fn json_regex_values() {
    assert!(matches("{ $.path = %^/api/v[0-9]+% }", r#"{"path":"/api/v2/x"}"#));
}

// Syntax page, space-delimited log events: fields by position, `...` for any run of them.
#[test]
fn space_delimited_fields() {
    let line = r#"127.0.0.1 - frank [10/Oct/2000:13:25:15 -0700] "GET /index.html HTTP/1.0" 404 1534"#;
    assert!(matches(
        "[ip, user, username, timestamp, request, status_code = 404, bytes]",
        line
    ));
    assert!(matches("[ip, ..., status_code = 4*, bytes > 1000]", line));
    assert!(!matches("[ip, ..., status_code = 5*, bytes]", line));
    assert!(matches(
        "[ip, ..., status_code = 400 || status_code = 404, bytes]",
        line
    ));
    assert!(!matches("[ip, user]", line));
}

// Syntax page, metric filters: named fields become `$name` values.
#[test]
fn fields_are_extracted_by_name() {
    let p = FilterPattern::parse("[ip, user, ..., bytes]").unwrap();
    let values = p.extract("1.2.3.4 bob x y 512").unwrap();
    assert_eq!(values.get("$bytes").map(String::as_str), Some("512"));
}

#[test]
fn malformed_patterns_are_refused() {
    for bad in [
        "{ $.a = }",
        "{ $.a = \"x\"",
        "[a, b",
        "\"open",
        "%[%",
        "{ a = 1 }",
        "{ $.a > \"x\" }",
        "?",
    ] {
        assert!(FilterPattern::parse(bad).is_err(), "{bad} was accepted");
    }
}

const SEEDS: &[&[u8]] = &[
    br#"{ ($.a = "x*" && $.b[0] > 3) || $.c IS NULL || $.d NOT EXISTS }"#,
    br#"[ip, user, ..., status = 4* || status = 5*, bytes >= 10]"#,
    br#"?ERROR ?"hello world" -Exiting %ab+c%"#,
];

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b"\"",
    b"%",
    b"$",
    b"$.",
    b".",
    b"*",
    b"&&",
    b"||",
    b"=",
    b"!=",
    b"<",
    b">=",
    b"IS",
    b"NULL",
    b"NOT",
    b"EXISTS",
    b"...",
    b",",
    b"?",
    b"-",
    b" ",
    b"\\",
    b"1e400",
    b"\xe2\x82",
];

#[test]
fn parsing_and_matching_never_panic() {
    let mut rng = Rng(0x10f5_7a7e_9a77_e2a1);
    let messages = [
        r#"{"a":"xy","b":[4],"c":null}"#,
        "1.2.3.4 bob [x y] \"GET /\" 404 12",
        "ERROR hello world abbbc",
        "",
        "[unclosed \"quote",
    ];
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..20_000 {
        let bytes = if i % 5 == 0 {
            (0..rng.below(30))
                .flat_map(|_| TOKENS[rng.below(TOKENS.len())].to_vec())
                .collect()
        } else {
            mutate(&mut rng, SEEDS[i % SEEDS.len()], TOKENS)
        };
        let text = String::from_utf8_lossy(&bytes);
        match FilterPattern::parse(&text) {
            Ok(p) => {
                parsed += 1;
                for m in messages {
                    p.matches(m);
                    p.extract(m);
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.0.is_empty());
            }
        }
    }
    assert!(parsed > 1_000 && refused > 1_000, "parsed {parsed}, refused {refused}");
}
