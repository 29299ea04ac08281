//! The translations mean what ECMA-262 means: every pattern of the AWS
//! models, under both anchorings, gives the verdicts that node's ECMA engine
//! recorded in `fixtures/ecma-oracle.json` (made by
//! `oracle/make-fixtures.mjs`, whose header explains the modes) for a shared
//! corpus of probes and for strings generated to match each pattern.

use serde_json::Value;
use stratus_pattern::{translate, Anchoring};

struct Case {
    pattern: String,
    universal: Vec<String>,
    /// (probe, matches under Search, matches under FullMatch)
    probes: Vec<(String, bool, bool)>,
}

fn cases() -> Vec<Case> {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/ecma-oracle.json")).expect("fixture JSON");
    let corpus: Vec<String> = fixture["corpus"]
        .as_array()
        .expect("corpus")
        .iter()
        .map(|probe| match probe {
            Value::String(s) => s.clone(),
            long => long["repeat"]
                .as_str()
                .expect("repeat")
                .repeat(long["times"].as_u64().expect("times") as usize),
        })
        .collect();
    let strings = |v: &Value| {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| s.as_str().expect("string").to_owned())
            .collect()
    };
    fixture["patterns"]
        .as_array()
        .expect("patterns")
        .iter()
        .map(|entry| {
            let verdicts = entry["corpus"]
                .as_str()
                .expect("corpus verdicts")
                .bytes()
                .map(|d| d - b'0');
            assert_eq!(verdicts.len(), corpus.len(), "corpus verdicts of {}", entry["pattern"]);
            let mut probes: Vec<_> = corpus
                .iter()
                .cloned()
                .zip(verdicts)
                .map(|(s, d)| (s, d & 1 != 0, d & 2 != 0))
                .collect();
            probes.extend(entry["probes"].as_array().expect("probes").iter().map(|p| {
                (
                    p[0].as_str().expect("probe").to_owned(),
                    p[1].as_bool().expect("search"),
                    p[2].as_bool().expect("full"),
                )
            }));
            Case {
                pattern: entry["pattern"].as_str().expect("pattern").to_owned(),
                universal: strings(&entry["universal"]),
                probes,
            }
        })
        .collect()
}

#[test]
fn every_pattern_has_accepting_and_rejecting_probes() {
    let cases = cases();
    assert!(cases.len() >= 300, "only {} patterns in the fixture", cases.len());
    for case in &cases {
        for (mode, verdict) in [("search", 1), ("full", 2)] {
            let pick = |(_, search, full): &(String, bool, bool)| if verdict == 1 { *search } else { *full };
            assert!(
                case.probes.iter().any(pick),
                "{:?}: no accepting probe ({mode})",
                case.pattern
            );
            let universal = case.universal.iter().any(|u| u == mode);
            assert_eq!(
                !case.probes.iter().all(pick),
                !universal,
                "{:?}: rejecting probes ({mode})",
                case.pattern
            );
        }
    }
}

#[test]
fn translations_agree_with_the_ecma_oracle() {
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for case in cases() {
        for anchoring in [Anchoring::Search, Anchoring::FullMatch] {
            let matcher = translate(&case.pattern, anchoring)
                .unwrap_or_else(|err| panic!("{err}"))
                .compile()
                .unwrap_or_else(|err| panic!("{err}"));
            for (probe, search, full) in &case.probes {
                let expected = if anchoring == Anchoring::Search { *search } else { *full };
                checked += 1;
                if matcher.is_match(probe) != expected {
                    let shown: String = probe.chars().take(80).collect();
                    disagreements.push(format!(
                        "{:?} {anchoring:?} on {shown:?}: ECMA says {expected}",
                        case.pattern
                    ));
                }
            }
        }
    }
    println!("{checked} verdicts checked");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
