//! The Smithy IDL loader: its syntax rules on small models, equality with the JSON AST
//! loader, and every file of the official Smithy protocol compliance test models.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use stratus_codegen::idl::to_json_ast;
use stratus_codegen::model::{Kind, Model, ShapeDef};
use stratus_codegen::Error;

/// Writes `files` (name, text) into a fresh directory and returns their paths.
fn write_files(test: &str, files: &[(&str, &str)]) -> Vec<PathBuf> {
    let dir = std::env::temp_dir().join(format!("stratus-idl-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect()
}

/// The flattened JSON AST `shapes` of one IDL file.
fn shapes_of(test: &str, idl: &str) -> Value {
    to_json_ast(&write_files(test, &[("main.smithy", idl)])).unwrap()["shapes"].clone()
}

fn idl_error(test: &str, idl: &str) -> String {
    match to_json_ast(&write_files(test, &[("main.smithy", idl)])) {
        Ok(ast) => panic!("expected an error, got {ast:#}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn text_blocks_strip_incidental_whitespace_then_unescape() {
    let shapes = shapes_of(
        "text-blocks",
        r#"$version: "2.0"
namespace ex
@tags(["""
    Foo
        Baz

      
    Bar
    """, """
        <div>\n  "quoted" \"""
        </div>""", """
    Foo \
    Bam""", "line\
 joined \u00e9\uD83D\uDE00"])
string S
"#,
    );
    assert_eq!(
        shapes["ex#S"]["traits"]["smithy.api#tags"],
        json!([
            "Foo\n    Baz\n\n\nBar\n",
            "<div>\n  \"quoted\" \"\"\"\n</div>",
            "Foo Bam",
            "line joined \u{e9}\u{1F600}"
        ])
    );
}

#[test]
fn closing_delimiter_at_the_margin_keeps_indentation() {
    let shapes = shapes_of(
        "text-margin",
        "$version: \"2\"\nnamespace ex\n@documentation(\"\"\"\n    Foo\n        Baz\n\"\"\")\nstring S\n",
    );
    // Documentation is dropped by the model, but kept in the JSON AST.
    assert_eq!(
        shapes["ex#S"]["traits"]["smithy.api#documentation"],
        json!("    Foo\n        Baz\n")
    );
}

#[test]
fn traits_values_and_doc_comments() {
    let shapes = shapes_of(
        "traits",
        r#"$version: "2.0"
metadata suppressions = [{id: "X", namespace: "*"}]
namespace ex

/// Line one.
///   Line two.
@http(method: "POST", uri: "/a", code: 200)
@error("client")
@range(min: -1.5, max: 1e3)
@references([{resource: Res}, {resource: other#Thing}])
@deprecated
@sparse()
@example([true, false, null, 10])
structure S {
    /// Member docs.
    @required
    a: String, // trailing comment
    b: smithy.api#Integer
}
resource Res {}
@trait structure example {}
"#,
    );
    let t = &shapes["ex#S"]["traits"];
    assert_eq!(t["smithy.api#documentation"], json!("Line one.\n  Line two."));
    assert_eq!(
        t["smithy.api#http"],
        json!({"method": "POST", "uri": "/a", "code": 200})
    );
    assert_eq!(t["smithy.api#error"], json!("client"));
    assert_eq!(t["smithy.api#range"], json!({"min": -1.5, "max": 1000.0}));
    assert_eq!(
        t["smithy.api#references"],
        json!([{"resource": "ex#Res"}, {"resource": "other#Thing"}])
    );
    assert_eq!(t["smithy.api#deprecated"], json!({}));
    assert_eq!(t["smithy.api#sparse"], json!({}));
    assert_eq!(t["ex#example"], json!([true, false, null, 10]));
    let members = &shapes["ex#S"]["members"];
    assert_eq!(members["a"]["target"], "smithy.api#String");
    assert_eq!(members["a"]["traits"]["smithy.api#documentation"], "Member docs.");
    assert_eq!(members["b"], json!({"target": "smithy.api#Integer"}));
}

#[test]
fn shape_ids_resolve_through_use_then_namespace_then_prelude() {
    let files = write_files(
        "use",
        &[
            (
                "a.smithy",
                r#"$version: "2.0"
namespace a
use b#Shared
use aws.protocols#restJson1
@restJson1
@aws.api#service(sdkId: "A")
service Svc { version: "1", operations: [Op] }
operation Op { input: Shared, output: Local }
structure Local { s: String, t: Shared, u: b#String }
"#,
            ),
            (
                "b.smithy",
                "$version: \"2.0\"\nnamespace b\nstructure Shared { x: String }\nstring String\n",
            ),
        ],
    );
    let shapes = to_json_ast(&files).unwrap()["shapes"].clone();
    let svc = &shapes["a#Svc"];
    assert_eq!(svc["traits"]["aws.protocols#restJson1"], json!({}));
    assert_eq!(svc["traits"]["aws.api#service"], json!({"sdkId": "A"}));
    assert_eq!(svc["operations"], json!([{"target": "a#Op"}]));
    assert_eq!(shapes["a#Op"]["input"], json!({"target": "b#Shared"}));
    let local = &shapes["a#Local"]["members"];
    assert_eq!(local["s"]["target"], "smithy.api#String");
    assert_eq!(local["t"]["target"], "b#Shared");
    assert_eq!(local["u"]["target"], "b#String");
    // In namespace b, its own String shadows the prelude's.
    assert_eq!(shapes["b#Shared"]["members"]["x"]["target"], "b#String");
}

#[test]
fn unresolvable_ids_and_syntax_errors_name_the_place() {
    let message = idl_error(
        "unresolved",
        "$version: \"2\"\nnamespace ex\nstructure S {\n    a: Missing\n}\n",
    );
    assert!(message.contains("main.smithy:4:5"), "{message}");
    assert!(message.contains("Missing"), "{message}");
    let message = idl_error("unknown-trait", "$version: \"2\"\nnamespace ex\n@nope\nstring S\n");
    assert!(
        message.contains("main.smithy:3:1") && message.contains("nope"),
        "{message}"
    );
    let message = idl_error(
        "syntax",
        "$version: \"2\"\nnamespace ex\nstructure S {\n    a String\n}\n",
    );
    assert!(
        message.contains("main.smithy:4:7") && message.contains("expected `:`"),
        "{message}"
    );
    let message = idl_error(
        "text-block",
        "$version: \"2\"\nnamespace ex\n@documentation(\"\"\"x\"\"\")\nstring S\n",
    );
    assert!(message.contains("new line"), "{message}");
}

#[test]
fn apply_statements_single_block_and_member() {
    let shapes = shapes_of(
        "apply",
        r#"$version: "2.0"
namespace ex
use smithy.test#httpRequestTests
@httpRequestTests([{id: "one"}])
operation Op {}
structure S { a: String }
list L { member: String }
apply Op @httpRequestTests([{id: "two"}])
apply S {
    @sensitive
    @tags(["x"])
}
apply S$a @required
apply L$member @length(min: 1)
"#,
    );
    assert_eq!(
        shapes["ex#Op"]["traits"]["smithy.test#httpRequestTests"],
        json!([{"id": "one"}, {"id": "two"}])
    );
    assert_eq!(
        shapes["ex#S"]["traits"],
        json!({"smithy.api#sensitive": {}, "smithy.api#tags": ["x"]})
    );
    assert_eq!(
        shapes["ex#S"]["members"]["a"]["traits"],
        json!({"smithy.api#required": {}})
    );
    assert_eq!(
        shapes["ex#L"]["member"]["traits"],
        json!({"smithy.api#length": {"min": 1}})
    );
    let message = idl_error(
        "apply-conflict",
        "$version: \"2\"\nnamespace ex\n@error(\"client\")\nstructure E {}\napply E @error(\"server\")\n",
    );
    assert!(message.contains("conflicting values"), "{message}");
}

#[test]
fn mixins_copy_members_first_and_inherit_traits() {
    let shapes = shapes_of(
        "mixins",
        r#"$version: "2.0"
namespace ex
@mixin
structure A { a: String }
@mixin(localTraits: [private])
@private
@tags(["from-b"])
@sensitive
structure B with [A] {
    @documentation("generic")
    b: Integer
}
@mixin
structure C { c: String }
@tags(["own"])
structure D with [B, C] {
    @required
    $b
    d: String
}
apply D$a @required
@mixin
@length(max: 5)
string Short
@pattern("^x")
string Code with [Short]
"#,
    );
    assert!(
        shapes.get("ex#A").is_none() && shapes.get("ex#B").is_none(),
        "mixins are flattened away"
    );
    let d = &shapes["ex#D"];
    let names: Vec<&String> = d["members"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert_eq!(d["members"]["a"]["traits"], json!({"smithy.api#required": {}}));
    assert_eq!(
        d["members"]["b"],
        json!({"target": "smithy.api#Integer", "traits": {"smithy.api#documentation": "generic", "smithy.api#required": {}}})
    );
    assert_eq!(
        d["traits"],
        json!({"smithy.api#tags": ["own"], "smithy.api#sensitive": {}})
    );
    assert_eq!(
        shapes["ex#Code"],
        json!({"type": "string", "traits": {"smithy.api#length": {"max": 5}, "smithy.api#pattern": "^x"}})
    );
}

#[test]
fn inline_input_output_become_named_structures() {
    let shapes = shapes_of(
        "inline-io",
        r#"$version: "2.0"
namespace ex
@mixin
structure Paged { next: String }
operation GetThing {
    input := @sensitive {
        @required
        id: String
    }
    output := with [Paged] {
        thing: String
    }
    errors: [Oops]
}
@error("client")
structure Oops {}
"#,
    );
    assert_eq!(shapes["ex#GetThing"]["input"], json!({"target": "ex#GetThingInput"}));
    assert_eq!(shapes["ex#GetThing"]["output"], json!({"target": "ex#GetThingOutput"}));
    assert_eq!(shapes["ex#GetThing"]["errors"], json!([{"target": "ex#Oops"}]));
    assert_eq!(
        shapes["ex#GetThingInput"]["traits"],
        json!({"smithy.api#sensitive": {}, "smithy.api#input": {}})
    );
    let output = &shapes["ex#GetThingOutput"];
    assert_eq!(output["traits"], json!({"smithy.api#output": {}}));
    let names: Vec<&String> = output["members"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["next", "thing"]);

    let renamed = shapes_of(
        "inline-suffix",
        "$version: \"2\"\n$operationInputSuffix: \"Request\"\nnamespace ex\noperation Op { input := {} }\n",
    );
    assert_eq!(renamed["ex#Op"]["input"], json!({"target": "ex#OpRequest"}));
}

#[test]
fn enums_defaults_and_elided_members() {
    let shapes = shapes_of(
        "enums",
        r#"$version: "2.0"
namespace ex
enum Suit {
    @deprecated
    DIAMOND = "diamond"
    CLUB
}
intEnum Level { LOW = 1, HIGH = 2 }
structure Defaults {
    flag: Boolean = true
    list: Names = []
    suit: Suit = "diamond"
}
list Names { member: String }
resource Thing {
    identifiers: { thingId: String }
    properties: { colour: String }
    read: GetThing
}
@readonly
operation GetThing { input := for Thing { @required $thingId } }
structure Summary for Thing { $thingId, $colour }
"#,
    );
    assert_eq!(
        shapes["ex#Suit"]["members"],
        json!({
            "DIAMOND": {"target": "smithy.api#Unit", "traits": {"smithy.api#deprecated": {}, "smithy.api#enumValue": "diamond"}},
            "CLUB": {"target": "smithy.api#Unit", "traits": {"smithy.api#enumValue": "CLUB"}}
        })
    );
    assert_eq!(
        shapes["ex#Level"]["members"]["HIGH"]["traits"]["smithy.api#enumValue"],
        2
    );
    let defaults = &shapes["ex#Defaults"]["members"];
    assert_eq!(defaults["flag"]["traits"]["smithy.api#default"], true);
    assert_eq!(defaults["list"]["traits"]["smithy.api#default"], json!([]));
    assert_eq!(defaults["suit"]["traits"]["smithy.api#default"], "diamond");
    assert_eq!(
        shapes["ex#Thing"]["identifiers"],
        json!({"thingId": {"target": "smithy.api#String"}})
    );
    assert_eq!(shapes["ex#Thing"]["read"], json!({"target": "ex#GetThing"}));
    assert_eq!(shapes["ex#Summary"]["members"]["colour"]["target"], "smithy.api#String");
    assert_eq!(
        shapes["ex#GetThingInput"]["members"]["thingId"],
        json!({"target": "smithy.api#String", "traits": {"smithy.api#required": {}}})
    );
}

/// One model written both ways loads into equal models.
#[test]
fn idl_and_json_ast_load_the_same_model() {
    let idl = r#"$version: "2.0"
namespace com.example
use aws.protocols#awsJson1_0
use aws.api#service

@awsJson1_0
@service(sdkId: "Example")
service Svc {
    version: "2020-01-01"
    operations: [Ping]
}

@mixin
structure Named {
    @required
    @length(min: 1)
    Name: String
}

operation Ping {
    input := with [Named] {
        Count: Integer = 3
        Kind: Kind
        Tags: TagMap
    }
    errors: [Busy]
}

enum Kind { A = "a", B }

map TagMap { key: String, value: Tags }

@uniqueItems
list Tags { member: String }

@error("server")
@httpError(503)
structure Busy { message: String }
"#;
    let json = r#"{
  "smithy": "2.0",
  "shapes": {
    "com.example#Svc": {
      "type": "service", "version": "2020-01-01",
      "operations": [{"target": "com.example#Ping"}],
      "traits": {"aws.protocols#awsJson1_0": {}, "aws.api#service": {"sdkId": "Example"}}
    },
    "com.example#Ping": {
      "type": "operation",
      "input": {"target": "com.example#PingInput"},
      "errors": [{"target": "com.example#Busy"}]
    },
    "com.example#PingInput": {
      "type": "structure",
      "members": {
        "Name": {"target": "smithy.api#String", "traits": {"smithy.api#required": {}, "smithy.api#length": {"min": 1}}},
        "Count": {"target": "smithy.api#Integer", "traits": {"smithy.api#default": 3}},
        "Kind": {"target": "com.example#Kind"},
        "Tags": {"target": "com.example#TagMap"}
      },
      "traits": {"smithy.api#input": {}}
    },
    "com.example#Kind": {
      "type": "enum",
      "members": {
        "A": {"target": "smithy.api#Unit", "traits": {"smithy.api#enumValue": "a"}},
        "B": {"target": "smithy.api#Unit", "traits": {"smithy.api#enumValue": "B"}}
      }
    },
    "com.example#TagMap": {
      "type": "map",
      "key": {"target": "smithy.api#String"},
      "value": {"target": "com.example#Tags"}
    },
    "com.example#Tags": {
      "type": "list",
      "member": {"target": "smithy.api#String"},
      "traits": {"smithy.api#uniqueItems": {}}
    },
    "com.example#Busy": {
      "type": "structure",
      "members": {"message": {"target": "smithy.api#String"}},
      "traits": {"smithy.api#error": "server", "smithy.api#httpError": 503}
    }
  }
}"#;
    let paths = write_files("cross-check", &[("model.smithy", idl), ("model.json", json)]);
    let from_idl = Model::load_idl(&paths[..1]).unwrap();
    let from_json = Model::load_json(&paths[1]).unwrap();
    assert_eq!(from_idl, from_json);
    assert_eq!(from_idl.shapes["com.example#PingInput"].members[0].name, "Name");
}

#[test]
fn idl_loading_still_refuses_unknown_traits() {
    let paths = write_files(
        "unknown-trait",
        &[(
            "m.smithy",
            "$version: \"2\"\nnamespace ex\nuse other#mystery\n@mystery\nstring S\n",
        )],
    );
    match Model::load_idl(&paths) {
        Err(Error::Unsupported { shape, reason }) => {
            assert_eq!(shape, "ex#S");
            assert!(reason.contains("other#mystery"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// The official protocol compliance test models.

/// The compliance models' directory, or `None` (with a note) when it is absent outside CI.
fn compliance_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("STRATUS_SMITHY_TESTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/smithy-protocol-tests"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "Smithy protocol tests not found at {} (set STRATUS_SMITHY_TESTS_DIR)",
        dir.display()
    );
    eprintln!(
        "note: skipping, no Smithy protocol tests at {} (set STRATUS_SMITHY_TESTS_DIR)",
        dir.display()
    );
    None
}

fn smithy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            smithy_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "smithy") {
            out.push(path);
        }
    }
}

const TEST_TRAITS: [&str; 3] = [
    "smithy.test#httpRequestTests",
    "smithy.test#httpResponseTests",
    "smithy.test#httpMalformedRequestTests",
];

/// Test cases a server must pass (those not `appliesTo: "client"`), per trait, over the
/// operations of `service` (also through resources) and their errors. A malformed-request
/// test with `testParameters` counts once per parameter value.
fn server_cases(model: &Model, service: &ShapeDef) -> [usize; 3] {
    let mut operations = Vec::new();
    let mut containers = vec![service];
    while let Some(container) = containers.pop() {
        operations.extend(container.operations.iter().map(|id| &model.shapes[id]));
        containers.extend(container.resources.iter().map(|id| &model.shapes[id]));
    }
    let mut shapes: BTreeMap<&str, &ShapeDef> = BTreeMap::new();
    for op in operations {
        shapes.insert(&op.id, op);
        for error in &op.errors {
            shapes.insert(error, &model.shapes[error]);
        }
    }
    TEST_TRAITS.map(|t| {
        shapes
            .values()
            .filter_map(|s| s.traits.get(t)?.as_array())
            .flatten()
            .filter(|case| case.get("appliesTo").and_then(Value::as_str) != Some("client"))
            .map(|case| {
                let parameters = case.get("testParameters").and_then(Value::as_object);
                let values = parameters.and_then(|p| p.values().next()?.as_array().map(Vec::len));
                values.unwrap_or(1)
            })
            .sum()
    })
}

#[test]
fn every_protocol_test_model_loads() {
    let Some(dir) = compliance_dir() else { return };
    let mut total = 0;
    for tree in ["smithy-protocol-tests", "smithy-aws-protocol-tests"] {
        let mut files = Vec::new();
        smithy_files(&dir.join(tree), &mut files);
        assert!(files.len() > 10, "{tree}: only {} files", files.len());
        let model = Model::load_idl(&files).unwrap_or_else(|e| panic!("{tree}: {e}"));
        let services: Vec<&ShapeDef> = model.shapes.values().filter(|s| s.kind == Kind::Service).collect();
        for service in services {
            let [request, response, malformed] = server_cases(&model, service);
            eprintln!(
                "{tree} {}: {} operations, server cases: {request} request, {response} response, {malformed} malformed",
                service.id,
                service.operations.len()
            );
            total += request + response + malformed;
        }
        if tree == "smithy-aws-protocol-tests" {
            let rest_json = &model.shapes["aws.protocoltests.restjson#RestJson"];
            assert!(rest_json.operations.len() > 100, "{}", rest_json.operations.len());
            assert!(rest_json
                .operations
                .iter()
                .all(|op| model.shapes[op].kind == Kind::Operation));
            assert!(rest_json.has_trait("aws.protocols#restJson1"));
        }
    }
    eprintln!("server-applicable compliance cases: {total}");
    assert!(total > 1400, "only {total} server-applicable test cases");
}
