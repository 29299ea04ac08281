//! Every distinct `smithy.api#pattern` of the AWS models translates and
//! compiles with both anchorings, and the ECMA oracle fixture covers them.
//!
//! The models are read from `STRATUS_AWS_MODELS_DIR`, by default the
//! `shared/aws-models` folder beside the repository. Without them the tests
//! are skipped with a note, except under `CI=true`, where they fail.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use stratus_pattern::{translate, Anchoring, Engine, Translation};

const PATTERN_TRAIT: &str = "smithy.api#pattern";

fn models_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("STRATUS_AWS_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/aws-models"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert_ne!(
        std::env::var("CI").as_deref(),
        Ok("true"),
        "AWS models not found in {}",
        dir.display()
    );
    eprintln!(
        "note: AWS models not found in {}; set STRATUS_AWS_MODELS_DIR. Skipped.",
        dir.display()
    );
    None
}

/// Every distinct pattern of shapes and members, with the shapes using it.
fn model_patterns(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut patterns: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("models directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    for file in files {
        let model: Value = serde_json::from_slice(&std::fs::read(&file).expect("model file")).expect("model JSON");
        let Some(shapes) = model["shapes"].as_object() else {
            continue;
        };
        for (id, shape) in shapes {
            let members = shape["members"].as_object().into_iter().flatten();
            let traits = std::iter::once((id.clone(), &shape["traits"]))
                .chain(members.map(|(name, member)| (format!("{id}${name}"), &member["traits"])));
            for (at, traits) in traits {
                if let Some(pattern) = traits[PATTERN_TRAIT].as_str() {
                    patterns.entry(pattern.to_owned()).or_default().push(at);
                }
            }
        }
    }
    patterns
}

#[test]
fn every_model_pattern_translates_and_compiles() {
    let Some(dir) = models_dir() else { return };
    let patterns = model_patterns(&dir);
    assert!(
        patterns.len() >= 300,
        "only {} patterns found in {}",
        patterns.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for (pattern, shapes) in &patterns {
        for anchoring in [Anchoring::Search, Anchoring::FullMatch] {
            let translation = match translate(pattern, anchoring) {
                Ok(translation) => translation,
                Err(err) => {
                    failures.push(format!("{err} (used by {})", shapes[0]));
                    continue;
                }
            };
            if let Err(err) = translation.compile() {
                failures.push(format!("{pattern:?} {anchoring:?}: {err}"));
            }
            let kind = match &translation {
                Translation::Single {
                    engine: Engine::Regex, ..
                } => "one regex".to_owned(),
                Translation::Single {
                    engine: Engine::Fancy, ..
                } => {
                    println!("fancy-regex ({anchoring:?}): {pattern} (used by {})", shapes.join(", "));
                    "fancy-regex".to_owned()
                }
                Translation::AnyOf(clauses) => {
                    println!("checks ({anchoring:?}): {pattern} -> {clauses:?}");
                    "several checks".to_owned()
                }
            };
            *kinds.entry(format!("{kind} ({anchoring:?})")).or_default() += 1;
        }
    }
    println!("{} distinct patterns: {kinds:?}", patterns.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn oracle_fixture_covers_every_model_pattern() {
    let Some(dir) = models_dir() else { return };
    let fixture: Value = serde_json::from_str(include_str!("fixtures/ecma-oracle.json")).expect("fixture JSON");
    let covered: BTreeSet<&str> = fixture["patterns"]
        .as_array()
        .expect("patterns")
        .iter()
        .map(|entry| entry["pattern"].as_str().expect("pattern"))
        .collect();
    let missing: Vec<_> = model_patterns(&dir)
        .into_keys()
        .filter(|p| !covered.contains(p.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "regenerate tests/fixtures/ecma-oracle.json (tests/oracle/make-fixtures.mjs); missing: {missing:#?}"
    );
}
