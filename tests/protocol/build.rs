//! Generates the Smithy protocol compliance test services at build time: loads each tree of
//! IDL models under the compliance test directory, runs Stratus's code generator for every
//! service that speaks one of the tested protocols, and writes into `OUT_DIR`
//!
//! - `services.rs`: one module per service holding its generated `schema.rs`, and `SERVICES`,
//!   the table of (service shape id, schema) the runner looks services up in;
//! - `cases.json`: every test case not marked `appliesTo: client`, with its service, operation
//!   and kind, and why it tests only a client after all when it does.
//!
//! The directory is `../../../shared/smithy-protocol-tests` from this crate (the repository's
//! sibling `shared/`), or `STRATUS_SMITHY_TESTS_DIR`. When it is missing the build writes an
//! empty table, and the runner says so — unless `CI=true`, where that is an error.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use stratus_codegen::emit;
use stratus_codegen::manifest::{ServiceEntry, Validation};
use stratus_codegen::model::{Kind, Model, ShapeDef};

/// The protocol traits under test, and the protocol names the codegen manifest uses.
const PROTOCOLS: &[(&str, &str)] = &[
    ("aws.protocols#awsJson1_0", "awsJson1_0"),
    ("aws.protocols#awsJson1_1", "awsJson1_1"),
    ("aws.protocols#awsQuery", "awsQuery"),
    ("aws.protocols#restJson1", "restJson1"),
    ("aws.protocols#restXml", "restXml"),
    ("smithy.protocols#rpcv2Cbor", "rpcv2Cbor"),
];

/// The test traits, by the kind of case the runner makes of them.
const TEST_TRAITS: &[(&str, &str)] = &[
    ("smithy.test#httpRequestTests", "request"),
    ("smithy.test#httpResponseTests", "response"),
    ("smithy.test#httpMalformedRequestTests", "malformed"),
];

fn main() {
    println!("cargo:rerun-if-env-changed=STRATUS_SMITHY_TESTS_DIR");
    println!("cargo:rerun-if-env-changed=CI");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = std::env::var_os("STRATUS_SMITHY_TESTS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/smithy-protocol-tests"),
        PathBuf::from,
    );
    println!("cargo:rerun-if-changed={}", dir.display());
    let (services, cases) = if dir.is_dir() {
        generate(&dir)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "Smithy protocol tests not found at {} (set STRATUS_SMITHY_TESTS_DIR)",
            dir.display()
        );
    } else {
        println!(
            "cargo:warning=no Smithy protocol tests at {}: the compliance runner will skip (set STRATUS_SMITHY_TESTS_DIR)",
            dir.display()
        );
        (
            String::from("pub static SERVICES: &[(&str, &Service)] = &[];\n"),
            Vec::new(),
        )
    };
    write(&out.join("services.rs"), &services);
    write(&out.join("cases.json"), &Value::Array(cases).to_string());
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The services source and the test cases of every tree under `dir`.
fn generate(dir: &Path) -> (String, Vec<Value>) {
    let mut modules = String::new();
    let mut table = String::new();
    let mut cases = Vec::new();
    let mut seen = BTreeSet::new();
    for tree in ["smithy-protocol-tests", "smithy-aws-protocol-tests"] {
        let mut files = Vec::new();
        smithy_files(&dir.join(tree), &mut files);
        let model = Model::load_idl(&files).unwrap_or_else(|e| panic!("{tree}: {e}"));
        for service in model.shapes.values().filter(|s| s.kind == Kind::Service) {
            let Some(&(protocol_trait, protocol)) = PROTOCOLS.iter().find(|(t, _)| service.has_trait(t)) else {
                continue;
            };
            let module = module_name(&service.id);
            let entry = ServiceEntry {
                sdk_id: module.clone(),
                model: String::new(),
                sha256: String::new(),
                protocols: vec![protocol.to_string()],
                validation: Validation {
                    code: "ValidationException".into(),
                    status: 400,
                    missing_code: None,
                    path_from_input: false,
                    open_enums: false,
                    unanchored_patterns: false,
                    search_patterns: false,
                    unchecked_patterns: false,
                    missing_parameter_message: false,
                },
                service: Some(service.id.clone()),
                xml_namespace: None,
                s3_envelope: false,
                answer_statuses: Default::default(),
                query_error_detail: false,
                query_error_messages: Default::default(),
                interleaved_versions: Vec::new(),
                omitted_default_members: Vec::new(),
                schema_only: false,
            };
            let files = emit::generate(&model, &entry, "").unwrap_or_else(|e| panic!("{}: {e}", service.id));
            let schema = files
                .into_iter()
                .find(|f| f.path == "src/schema.rs")
                .expect("codegen writes src/schema.rs");
            let _ = writeln!(
                modules,
                "pub mod {module} {{\n{}\n}}",
                without_inner_attributes(&schema.contents)
            );
            let _ = writeln!(table, "    ({:?}, &{module}::SERVICE),", service.id);
            collect_cases(&model, service, protocol_trait, &mut seen, &mut cases);
        }
    }
    let source = format!("{modules}\n/// (service shape id, schema) of every generated test service.\npub static SERVICES: &[(&str, &Service)] = &[\n{table}];\n");
    (source, cases)
}

/// `include!` takes no inner attributes or inner doc comments.
fn without_inner_attributes(source: &str) -> String {
    source
        .lines()
        .filter(|l| !l.starts_with("//!") && !l.starts_with("#!["))
        .collect::<Vec<_>>()
        .join("\n")
}

fn module_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn smithy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            smithy_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "smithy") {
            println!("cargo:rerun-if-changed={}", path.display());
            out.push(path);
        }
    }
}

/// Why a case not marked `appliesTo: client` still tests only a client, if it does:
/// - `resolvedHost` asserts where the client sends the request (endpoint host prefixes, S3
///   virtual-host addressing), which the server receiving it has no say in;
/// - a request that declares a `Content-Encoding` but gives no body asserts the client's
///   request compression, and leaves the server nothing to decode.
fn client_only(kind: &str, case: &Value) -> Option<&'static str> {
    if case.get("resolvedHost").is_some() {
        return Some("endpoint resolution");
    }
    let encoded = case["headers"]
        .as_object()
        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("content-encoding")));
    let bodyless = case["body"].as_str().is_none_or(str::is_empty);
    (kind == "request" && encoded && bodyless).then_some("request compression")
}

/// Adds the server-applicable cases of `service`'s operations and their errors for
/// `protocol`; a case already added (a shared error's) is skipped.
fn collect_cases(
    model: &Model,
    service: &ShapeDef,
    protocol: &str,
    seen: &mut BTreeSet<(String, String, String)>,
    out: &mut Vec<Value>,
) {
    let mut containers = vec![service];
    let mut operations = Vec::new();
    while let Some(c) = containers.pop() {
        operations.extend(c.operations.iter().map(|id| &model.shapes[id]));
        containers.extend(c.resources.iter().map(|id| &model.shapes[id]));
    }
    for op in operations {
        let errors = op.errors.iter().chain(&service.errors).map(|id| &model.shapes[id]);
        for (shape, error) in std::iter::once((op, None)).chain(errors.map(|e| (e, Some(e.name())))) {
            for &(test_trait, kind) in TEST_TRAITS {
                let Some(list) = shape.traits.get(test_trait).and_then(Value::as_array) else {
                    continue;
                };
                for case in list {
                    let id = case["id"].as_str().unwrap_or_default();
                    let applies = case.get("appliesTo").and_then(Value::as_str) != Some("client");
                    if !applies
                        || case["protocol"].as_str() != Some(protocol)
                        || !seen.insert((service.id.clone(), kind.to_string(), id.to_string()))
                    {
                        continue;
                    }
                    out.push(json!({
                        "service": service.id,
                        "kind": kind,
                        "operation": op.name(),
                        "error": error,
                        "case": case,
                        "client_only": client_only(kind, case),
                    }));
                }
            }
        }
    }
}
