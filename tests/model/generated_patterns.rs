//! Every pattern in the generated schema tables of all 26 services compiles (the translation
//! itself is checked against an ECMA engine in runtime/pattern's tests).

use std::collections::BTreeSet;

use stratus_core::pattern::Pattern;
use stratus_core::schema::{Constraints, Shape};

fn collect(shape: &'static Shape, seen: &mut BTreeSet<usize>, patterns: &mut Vec<&'static Pattern>) {
    if !seen.insert(shape as *const Shape as usize) {
        return;
    }
    patterns.extend(shape.constraints.pattern);
    for member in shape.members {
        patterns.extend(member.constraints.and_then(|c: &'static Constraints| c.pattern));
        collect(member.target, seen, patterns);
    }
}

#[test]
fn every_generated_pattern_compiles() {
    let mut patterns = Vec::new();
    let mut seen = BTreeSet::new();
    for (_, service) in stratus_gen_registry::SERVICES {
        for op in service.operations {
            collect(op.input, &mut seen, &mut patterns);
            collect(op.output, &mut seen, &mut patterns);
            op.errors.iter().for_each(|e| collect(e, &mut seen, &mut patterns));
        }
    }
    let distinct: BTreeSet<&str> = patterns.iter().map(|p| p.source()).collect();
    assert!(distinct.len() > 300, "only {} distinct patterns found", distinct.len());
    let failures: Vec<String> = patterns
        .iter()
        .filter_map(|p| p.compile_check().err().map(|e| format!("{}: {e}", p.source())))
        .collect();
    assert!(
        failures.is_empty(),
        "patterns that do not compile:\n{}",
        failures.join("\n")
    );
}
