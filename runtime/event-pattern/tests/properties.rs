//! Property tests with a seeded generator (failures reproduce from the seed): parsing never
//! panics, whatever the text, nor does matching whatever it accepts against whatever event;
//! and on random flat patterns and events the matcher agrees with a plain reading of AWS's
//! documented rules.

use serde_json::{json, Map, Value};
use stratus_event_pattern::{Attribute, Dialect, Pattern};
use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

const DIALECTS: [Dialect; 3] = [
    Dialect::EventBridge,
    Dialect::SnsMessageAttributes,
    Dialect::SnsMessageBody,
];

const SEEDS: &[&[u8]] = &[
    br#"{"source":["aws.ec2",{"prefix":"aws."}],"detail":{"state":[{"anything-but":["pending","stopped"]}],"n":[{"numeric":[">",0,"<=",5]}]},"ip":[{"cidr":"10.0.0.0/24"}]}"#,
    br#"{"$or":[{"a":[{"exists":false}]},{"b.c":[{"wildcard":"x*y\\*"},{"suffix":{"equals-ignore-case":".PNG"}}]}],"z":[null,true,1.5e3]}"#,
    br#"{"k":[{"anything-but":{"prefix":"t-"}},{"equals-ignore-case":"Ab"},{"anything-but":{"equals-ignore-case":["x"]}}],"m":[{"numeric":["=",3]}]}"#,
];

/// What breaks this parser in particular, beside JSON's own troubles.
const OWN_TOKENS: &[&[u8]] = &[
    b"*",
    b"**",
    b"$or",
    b"\"prefix\":",
    b"\"numeric\":[\"<\",1]",
    b"\"exists\":",
    b"\"anything-but\":",
    b"\"wildcard\":\"*a*\"",
    b"\"cidr\":\"::/0\"",
    b"/",
    b".",
    b"{\"a\":[1]}",
    b"[{\"suffix\":\"\"}]",
];

/// A random JSON value, nested at most `depth` deep, over few keys so that patterns hit.
fn value(rng: &mut Rng, depth: usize) -> Value {
    let keys = [
        "a", "b", "c", "b.c", "source", "detail", "state", "n", "ip", "k", "m", "z",
    ];
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.below(12) as i64 - 3),
        3 => json!((rng.below(2000) as f64 - 1000.0) / 8.0),
        4 | 5 => {
            let words = [
                "", "x", "xay*", "aws.ec2", "pending", "t-1", "AB", "a.png", "10.0.0.7", "::1",
            ];
            Value::String(words[rng.below(words.len())].to_owned())
        }
        6 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(5) {
                map.insert(keys[rng.below(keys.len())].into(), value(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

#[test]
fn parsing_and_matching_never_panic() {
    let mut rng = Rng(0x5eed_e7e9_7a77_e2a1);
    let tokens = [JSON_TOKENS, OWN_TOKENS].concat();
    let events: Vec<Value> = (0..24).map(|_| value(&mut rng, 4)).collect();
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..15_000 {
        let bytes = fuzz_input(&mut rng, i, SEEDS, &tokens, 40);
        let text = String::from_utf8_lossy(&bytes);
        for dialect in DIALECTS {
            match Pattern::parse(&text, dialect) {
                Ok(p) => {
                    parsed += 1;
                    for e in &events {
                        p.matches(e);
                    }
                    p.matches_attributes(&[
                        Attribute::new("a", "String", "x"),
                        Attribute::new("k", "Number", "1e3"),
                        Attribute::new("m", "Number", "not a number"),
                        Attribute::new("z", "String.Array", r#"[1,"x",null,[2],{"q":1}]"#),
                        Attribute::new("b.c", "String.Array", "[unterminated"),
                    ]);
                }
                Err(e) => {
                    refused += 1;
                    assert!(!e.reason().is_empty());
                    assert!(e.message().contains(e.reason()));
                }
            }
        }
    }
    assert!(
        parsed > 500 && refused > 2_000,
        "parsed {parsed}, refused {refused}: mutations are not varied enough"
    );
}

/// A direct reading of one condition: whether it holds for the field's value (if any).
type Rule = Box<dyn Fn(Option<&Value>) -> bool>;
/// Whether a condition holds for one value of the field.
type LeafRule = Box<dyn Fn(&Value) -> bool>;

/// One condition of a flat random pattern, with its JSON and a direct reading of its rule.
struct Condition {
    json: String,
    holds: Rule,
}

fn strings_of(v: Option<&Value>) -> Vec<Value> {
    match v {
        None => vec![],
        Some(Value::Array(items)) => items.iter().flat_map(|i| strings_of(Some(i))).collect(),
        Some(Value::Object(_)) => vec![],
        Some(leaf) => vec![leaf.clone()],
    }
}

fn condition(rng: &mut Rng) -> Condition {
    let words = ["", "x", "xa", "ax", "pending", "t-1", "AB", "ab"];
    let w = words[rng.below(words.len())].to_owned();
    let n = rng.below(12) as f64 - 3.0;
    let leaves = |f: LeafRule| -> Rule { Box::new(move |v| strings_of(v).iter().any(&f)) };
    match rng.below(8) {
        0 => Condition {
            json: format!("{:?}", w),
            holds: leaves(Box::new(move |l| l.as_str() == Some(w.as_str()))),
        },
        1 if !w.is_empty() => Condition {
            json: format!(r#"{{"prefix": {:?}}}"#, w),
            holds: leaves(Box::new(move |l| l.as_str().is_some_and(|s| s.starts_with(&w)))),
        },
        2 => Condition {
            json: format!(r#"{{"suffix": {:?}}}"#, w),
            holds: leaves(Box::new(move |l| l.as_str().is_some_and(|s| s.ends_with(&w)))),
        },
        3 => Condition {
            json: format!(r#"{{"anything-but": {:?}}}"#, w),
            holds: leaves(Box::new(move |l| l.as_str() != Some(w.as_str()))),
        },
        4 => Condition {
            json: format!(r#"{{"numeric": [">", {n}, "<=", {}]}}"#, n + 4.0),
            holds: leaves(Box::new(move |l| l.as_f64().is_some_and(|f| f > n && f <= n + 4.0))),
        },
        5 => Condition {
            json: format!(r#"{{"equals-ignore-case": {:?}}}"#, w),
            holds: leaves(Box::new(move |l| {
                l.as_str().is_some_and(|s| s.to_lowercase() == w.to_lowercase())
            })),
        },
        6 => {
            let want = rng.below(2) == 0;
            Condition {
                json: format!(r#"{{"exists": {want}}}"#),
                holds: Box::new(move |v| strings_of(v).is_empty() != want),
            }
        }
        _ => Condition {
            json: format!("{n}"),
            holds: leaves(Box::new(move |l| l.as_f64() == Some(n))),
        },
    }
}

#[test]
fn flat_patterns_agree_with_a_direct_reading() {
    let mut rng = Rng(0xa9ee_0f1a_7e57_0001);
    let keys = ["a", "b", "c"];
    let mut matched = 0;
    for _ in 0..3_000 {
        let mut fields = Vec::new();
        let mut texts = Vec::new();
        for key in keys.iter().take(1 + rng.below(3)) {
            let conditions: Vec<Condition> = (0..1 + rng.below(3)).map(|_| condition(&mut rng)).collect();
            let list: Vec<&str> = conditions.iter().map(|c| c.json.as_str()).collect();
            texts.push(format!("{key:?}: [{}]", list.join(", ")));
            fields.push((*key, conditions));
        }
        let text = format!("{{{}}}", texts.join(", "));
        let pattern = Pattern::parse(&text, Dialect::EventBridge).unwrap_or_else(|e| panic!("{text}: {e}"));
        for _ in 0..8 {
            let mut event = Map::new();
            for key in keys {
                if rng.below(4) != 0 {
                    let v = if rng.below(4) == 0 {
                        Value::Array((0..rng.below(3)).map(|_| value(&mut rng, 0)).collect())
                    } else {
                        value(&mut rng, 0)
                    };
                    event.insert(key.into(), v);
                }
            }
            let expected = fields
                .iter()
                .all(|(key, cs)| cs.iter().any(|c| (c.holds)(event.get(*key))));
            let event = Value::Object(event);
            assert_eq!(pattern.matches(&event), expected, "{text} on {event}");
            matched += usize::from(expected);
        }
    }
    assert!(matched > 1_000, "only {matched} matches: the generator rarely hits");
}

/// Wildcards against a plain backtracking reading of `*`.
#[test]
fn wildcards_agree_with_backtracking() {
    fn reference(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| reference(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && reference(rest, &s[1..]),
        }
    }
    let mut rng = Rng(0x00c0_ffee_1234_5678);
    let alphabet = [b'a', b'b', b'*'];
    for _ in 0..20_000 {
        let p: Vec<u8> = (0..rng.below(7)).map(|_| alphabet[rng.below(3)]).collect();
        if p.windows(2).any(|w| w == b"**") {
            continue;
        }
        let s: Vec<u8> = (0..rng.below(8)).map(|_| alphabet[rng.below(2)]).collect();
        let (p, s) = (String::from_utf8(p).unwrap(), String::from_utf8(s).unwrap());
        let text = format!(r#"{{"f": [{{"wildcard": {p:?}}}]}}"#);
        let Ok(pattern) = Pattern::parse(&text, Dialect::EventBridge) else {
            continue; // too complex
        };
        assert_eq!(
            pattern.matches(&json!({"f": s})),
            reference(p.as_bytes(), s.as_bytes()),
            "{p:?} on {s:?}"
        );
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = |n: usize| format!("{}[1]{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    for dialect in DIALECTS {
        let e = Pattern::parse(&deep(5_000), dialect).unwrap_err();
        assert!(e.reason().starts_with("Document nesting depth"), "{e}");
    }
    let p = Pattern::parse(&deep(200), Dialect::EventBridge).unwrap();
    assert!(!p.matches(&json!({"a": {"a": 1}})));
    let brackets = format!("{{\"a\": {}", "[".repeat(5_000));
    assert!(Pattern::parse(&brackets, Dialect::EventBridge).is_err());
}
