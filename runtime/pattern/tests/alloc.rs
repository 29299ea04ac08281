//! Validating valid input allocates nothing: once a pattern has been
//! compiled and has seen a value, matching that value again does not touch
//! the allocator. This holds for every pattern run by the regex crate
//! (`Engine::Regex` and `Pattern::any_of`); fancy-regex allocates on every
//! call, and the test lists the patterns that use it.

use serde_json::Value;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use stratus_pattern::{translate, Anchoring, Check, Engine, Pattern, Translation};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: defers to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations made by this thread while running `f`.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The `static` that generated code would declare for the translation.
fn pattern(source: &str, translation: &Translation) -> Pattern {
    match translation {
        Translation::Single { regex, engine } => Pattern::new(leak(source), leak(regex), *engine),
        Translation::AnyOf(clauses) => {
            let clauses: Vec<&'static [Check]> = clauses
                .iter()
                .map(|clause| {
                    let checks: Vec<Check> = clause
                        .iter()
                        .map(|check| match check.as_deref() {
                            Check::Matches(regex) => Check::Matches(leak(regex)),
                            Check::Rejects(regex) => Check::Rejects(leak(regex)),
                            Check::CharCount { min, max } => Check::CharCount { min, max },
                        })
                        .collect();
                    &*Box::leak(checks.into_boxed_slice())
                })
                .collect();
            Pattern::any_of(leak(source), Box::leak(clauses.into_boxed_slice()))
        }
    }
}

/// Each pattern of the oracle fixture with the probes it accepts, per anchoring.
fn accepted() -> Vec<(String, Vec<String>, Vec<String>)> {
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
    fixture["patterns"]
        .as_array()
        .expect("patterns")
        .iter()
        .map(|entry| {
            let verdicts = entry["corpus"].as_str().expect("verdicts").bytes().map(|d| d - b'0');
            let mut probes: Vec<(String, u8)> = corpus.iter().cloned().zip(verdicts).collect();
            probes.extend(entry["probes"].as_array().expect("probes").iter().map(|p| {
                let verdict = u8::from(p[1].as_bool().expect("search")) + 2 * u8::from(p[2].as_bool().expect("full"));
                (p[0].as_str().expect("probe").to_owned(), verdict)
            }));
            let with = |bit: u8| {
                probes
                    .iter()
                    .filter(|(_, d)| d & bit != 0)
                    .map(|(s, _)| s.clone())
                    .collect()
            };
            (entry["pattern"].as_str().expect("pattern").to_owned(), with(1), with(2))
        })
        .collect()
}

#[test]
fn accepting_values_allocate_nothing_after_warm_up() {
    let mut fancy = Vec::new();
    let mut allocating = Vec::new();
    let (mut first_sight, mut first_sight_patterns) = (0, 0);
    for (source, search, full) in accepted() {
        for (anchoring, values) in [(Anchoring::Search, &search), (Anchoring::FullMatch, &full)] {
            let translation = translate(&source, anchoring).expect("translates");
            let pattern = pattern(&source, &translation);
            // Compile, and see half of the values: the other half shows what
            // values never matched before cost (the lazy DFA's new states).
            let (seen, unseen) = values.split_at(values.len() / 2);
            seen.iter().for_each(|v| assert!(pattern.is_match(v)));
            let fresh = allocations(|| unseen.iter().for_each(|v| assert!(pattern.is_match(v))));
            let warm = allocations(|| values.iter().for_each(|v| assert!(pattern.is_match(v))));
            if matches!(
                translation,
                Translation::Single {
                    engine: Engine::Fancy,
                    ..
                }
            ) {
                fancy.push(format!(
                    "{anchoring:?} {source}: {warm} allocations for {} values",
                    values.len()
                ));
            } else {
                if fresh > 0 {
                    first_sight += fresh;
                    first_sight_patterns += 1;
                }
                if warm > 0 {
                    allocating.push(format!("{anchoring:?} {source}: {warm} allocations"));
                }
            }
        }
    }
    println!("fancy-regex patterns (allocate on every call):\n{}", fancy.join("\n"));
    println!("values never seen before: {first_sight} allocations over {first_sight_patterns} pattern/anchoring pairs (lazy DFA states)");
    assert!(fancy.len() <= 4, "more patterns need fancy-regex: {fancy:#?}");
    assert!(
        allocating.is_empty(),
        "regex-crate patterns allocated after warm-up:\n{}",
        allocating.join("\n")
    );
}

#[test]
fn fancy_regex_allocates_per_call() {
    let translation = translate("^[a-z0-9]([a-z0-9]|-(?!-)){1,61}[a-z0-9]$", Anchoring::Search).expect("translates");
    assert!(matches!(
        translation,
        Translation::Single {
            engine: Engine::Fancy,
            ..
        }
    ));
    let pattern = pattern("alias", &translation);
    assert!(pattern.is_match("my-alias"));
    assert!(allocations(|| assert!(pattern.is_match("my-alias"))) > 0);
}
