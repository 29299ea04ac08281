//! The diff on small models written inline, one kind of change per test, and once on the real
//! pinned and newer AWS models when they are beside the repository.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::change::{Change, Io};
use super::handwritten::ServiceCrates;
use super::{compare_dirs, compare_models, render, Affected, ServiceDiff};
use crate::model::{Kind, Model};

/// A model of `shapes` (JSON object members, without braces) plus a service `Svc` binding
/// `operations` (names in `ex#`).
fn model(operations: &[&str], shapes: &str) -> Model {
    model_with_service(operations, r#""version": "2020-01-01""#, shapes)
}

fn model_with_service(operations: &[&str], service_fields: &str, shapes: &str) -> Model {
    let ops: Vec<String> = operations
        .iter()
        .map(|o| format!(r#"{{"target": "ex#{o}"}}"#))
        .collect();
    let text = format!(
        r#"{{"smithy": "2.0", "shapes": {{
            "ex#Svc": {{"type": "service", {service_fields}, "operations": [{}],
                "traits": {{"aws.protocols#awsJson1_0": {{}}}}}}
            {}{shapes}
        }}}}"#,
        ops.join(", "),
        if shapes.is_empty() { "" } else { "," },
    );
    Model::parse_json_keeping_unknown_traits(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn diff(old: &Model, new: &Model) -> ServiceDiff {
    compare_models("ex", old, new, &ServiceCrates::default()).unwrap()
}

/// The changes listed for shape `name`.
fn changes_of(diff: &ServiceDiff, name: &str) -> Vec<Change> {
    diff.shapes_changed
        .iter()
        .chain(&diff.operations_changed)
        .find(|s| s.name == name)
        .map(|s| s.changes.clone())
        .unwrap_or_default()
}

const PING: &str = r#""ex#Ping": {"type": "operation", "input": {"target": "ex#PingInput"}}"#;

#[test]
fn operations_added_and_removed_include_those_bound_through_resources() {
    let old = model(
        &["Ping", "Gone"],
        r#""ex#Ping": {"type": "operation"}, "ex#Gone": {"type": "operation"}"#,
    );
    let new = model_with_service(
        &["Ping"],
        r#""version": "2020-01-01", "resources": [{"target": "ex#Thing"}]"#,
        r#""ex#Ping": {"type": "operation"},
           "ex#Thing": {"type": "resource", "read": {"target": "ex#GetThing"}},
           "ex#GetThing": {"type": "operation"}"#,
    );
    let d = diff(&old, &new);
    assert_eq!(d.operations_added, ["GetThing"]);
    assert_eq!(d.operations_removed, ["Gone"]);
    assert!(d.operations_changed.is_empty());
}

#[test]
fn members_added_removed_retargeted_and_made_required() {
    let old = model(
        &["Ping"],
        &format!(
            r#"{PING}, "ex#PingInput": {{"type": "structure", "members": {{
                "Keep": {{"target": "smithy.api#String"}},
                "Drop": {{"target": "smithy.api#String"}},
                "Count": {{"target": "smithy.api#Integer"}},
                "Name": {{"target": "smithy.api#String", "traits": {{"smithy.api#required": {{}}}}}}
            }}}}"#
        ),
    );
    let new = model(
        &["Ping"],
        &format!(
            r#"{PING}, "ex#PingInput": {{"type": "structure", "members": {{
                "Keep": {{"target": "smithy.api#String", "traits": {{"smithy.api#required": {{}}}}}},
                "Count": {{"target": "smithy.api#Long"}},
                "Name": {{"target": "smithy.api#String"}},
                "Fresh": {{"target": "ex#Fresh"}}
            }}}}, "ex#Fresh": {{"type": "string"}}"#
        ),
    );
    let d = diff(&old, &new);
    assert_eq!(d.shapes_added, ["Fresh"]);
    let member = |m: &str| m.to_string();
    assert_eq!(
        changes_of(&d, "PingInput"),
        [
            Change::Required {
                member: member("Keep"),
                now: true
            },
            Change::Target {
                member: member("Count"),
                from: "Integer".into(),
                to: "Long".into()
            },
            Change::Required {
                member: member("Name"),
                now: false
            },
            Change::MemberAdded {
                member: member("Fresh"),
                target: "Fresh".into()
            },
            Change::MemberRemoved { member: member("Drop") },
        ]
    );
    let text: Vec<String> = changes_of(&d, "PingInput").iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "Keep now required",
            "Count: Integer → Long",
            "Name no longer required",
            "+Fresh: Fresh",
            "-Drop"
        ]
    );
}

#[test]
fn constraint_changes_on_shapes_and_members() {
    let shapes = |length: &str, range: &str, pattern: &str, unique: &str, default: &str| {
        format!(
            r#""ex#Name": {{"type": "string", "traits": {{{length} {pattern}}}}},
               "ex#Size": {{"type": "integer", "traits": {{{range}}}}},
               "ex#Tags": {{"type": "list", "member": {{"target": "ex#Name"}}, "traits": {{{unique}}}}},
               "ex#Holder": {{"type": "structure", "members": {{
                   "Size": {{"target": "ex#Size", "traits": {{{default}}}}}}}}}"#
        )
    };
    let old = model(
        &[],
        &shapes(
            r#""smithy.api#length": {"min": 1, "max": 64},"#,
            r#""smithy.api#range": {"min": 0}"#,
            r#""smithy.api#pattern": "^[a-z]+$""#,
            "",
            r#""smithy.api#default": 0"#,
        ),
    );
    let new = model(
        &[],
        &shapes(
            r#""smithy.api#length": {"min": 1, "max": 128},"#,
            r#""smithy.api#range": {"min": 0, "max": 10}"#,
            r#""smithy.api#pattern": "^[a-z_]+$""#,
            r#""smithy.api#uniqueItems": {}"#,
            "",
        ),
    );
    let d = diff(&old, &new);
    let text = |name: &str| -> Vec<String> { changes_of(&d, name).iter().map(ToString::to_string).collect() };
    assert_eq!(
        text("Name"),
        ["@length 1..64 → 1..128", "@pattern `^[a-z]+$` → `^[a-z_]+$`"]
    );
    assert_eq!(text("Size"), ["@range 0.. → 0..10"]);
    assert_eq!(text("Tags"), ["+@uniqueItems"]);
    assert_eq!(text("Holder"), ["Size -@default 0"]);
}

#[test]
fn enum_values_of_enums_int_enums_and_the_smithy_1_enum_trait() {
    let shapes = |values: &[&str], ints: &[(&str, i64)], legacy: &[&str]| {
        let members: Vec<String> = values
            .iter()
            .map(|v| format!(r#""{v}": {{"target": "smithy.api#Unit", "traits": {{"smithy.api#enumValue": "{v}"}}}}"#))
            .collect();
        let int_members: Vec<String> = ints
            .iter()
            .map(|(n, v)| {
                format!(r#""{n}": {{"target": "smithy.api#Unit", "traits": {{"smithy.api#enumValue": {v}}}}}"#)
            })
            .collect();
        let legacy = json!(legacy.iter().map(|v| json!({"value": v})).collect::<Vec<_>>());
        format!(
            r#""ex#Color": {{"type": "enum", "members": {{{}}}}},
               "ex#Level": {{"type": "intEnum", "members": {{{}}}}},
               "ex#Legacy": {{"type": "string", "traits": {{"smithy.api#enum": {legacy}}}}}"#,
            members.join(", "),
            int_members.join(", ")
        )
    };
    let old = model(&[], &shapes(&["red", "green"], &[("LOW", 1), ("HIGH", 3)], &["a", "b"]));
    let new = model(
        &[],
        &shapes(&["red", "blue", "cyan"], &[("LOW", 1), ("HIGH", 5)], &["b", "c"]),
    );
    let d = diff(&old, &new);
    let values = |added: &[&str], removed: &[&str]| {
        vec![Change::EnumValues {
            added: added.iter().map(|s| s.to_string()).collect(),
            removed: removed.iter().map(|s| s.to_string()).collect(),
        }]
    };
    assert_eq!(changes_of(&d, "Color"), values(&["blue", "cyan"], &["green"]));
    assert_eq!(changes_of(&d, "Level"), values(&["5"], &["3"]));
    assert_eq!(changes_of(&d, "Legacy"), values(&["c"], &["a"]));
    assert_eq!(
        changes_of(&d, "Color")[0].to_string(),
        "values added: blue, cyan; values removed: green"
    );
}

#[test]
fn operation_errors_routes_and_io() {
    let op = |errors: &str, http: &str, output: &str| {
        format!(
            r#""ex#Ping": {{"type": "operation", "errors": [{errors}], {output}
                "traits": {{"smithy.api#http": {http}}}}},
               "ex#Busy": {{"type": "structure", "members": {{}}, "traits": {{"smithy.api#error": "server"}}}},
               "ex#Bad": {{"type": "structure", "members": {{}}, "traits": {{"smithy.api#error": "client"}}}},
               "ex#PingOutput": {{"type": "structure", "members": {{}}}}"#
        )
    };
    let old = model(
        &["Ping"],
        &op(
            r#"{"target": "ex#Busy"}"#,
            r#"{"method": "POST", "uri": "/ping", "code": 204}"#,
            "",
        ),
    );
    let new = model(
        &["Ping"],
        &op(
            r#"{"target": "ex#Bad"}"#,
            r#"{"method": "PUT", "uri": "/ping/{Id}"}"#,
            r#""output": {"target": "ex#PingOutput"},"#,
        ),
    );
    let d = diff(&old, &new);
    let text: Vec<String> = changes_of(&d, "Ping").iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "@http POST /ping (204) → PUT /ping/{Id}",
            "output Unit → PingOutput",
            "errors added: Bad; errors removed: Busy",
        ]
    );
    assert!(matches!(
        changes_of(&d, "Ping")[1],
        Change::Io { which: Io::Output, .. }
    ));
}

#[test]
fn service_shape_protocol_version_and_common_errors() {
    let old = model_with_service(&[], r#""version": "2020-01-01""#, "");
    let new = model_with_service(
        &[],
        r#""version": "2021-06-01", "errors": [{"target": "ex#Throttled"}]"#,
        r#""ex#Throttled": {"type": "structure", "members": {}, "traits": {"smithy.api#error": "client"}}"#,
    );
    let mut new = new;
    let service = new.shapes.get_mut("ex#Svc").unwrap();
    service.traits.remove("aws.protocols#awsJson1_0");
    service.traits.insert("aws.protocols#awsJson1_1".into(), json!({}));
    let d = diff(&old, &new);
    let text: Vec<String> = d.service.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "-@aws.protocols#awsJson1_0",
            "+@aws.protocols#awsJson1_1",
            "errors added: Throttled",
            "version 2020-01-01 → 2021-06-01",
        ]
    );
}

#[test]
fn traits_the_generator_does_not_understand_are_reported_not_compared() {
    let old = model(&[], r#""ex#Name": {"type": "string"}"#);
    let new = model(
        &[],
        r#""ex#Name": {"type": "string", "traits": {"ex.custom#mystery": {"rules": [1, 2, 3]}}},
           "ex#Box": {"type": "structure", "members": {
               "Name": {"target": "ex#Name", "traits": {"ex.custom#mystery": {}}}}}"#,
    );
    let d = diff(&old, &new);
    assert!(changes_of(&d, "Name").is_empty(), "{:?}", d.shapes_changed);
    assert_eq!(d.not_understood.len(), 1);
    assert_eq!(d.not_understood[0].id, "ex.custom#mystery");
    assert_eq!(d.not_understood[0].on, ["Box$Name", "Name"]);
    assert!(!d.is_empty());
}

#[test]
fn documentation_only_changes_are_no_change() {
    let old = model(
        &[],
        r#""ex#Name": {"type": "string", "traits": {"smithy.api#documentation": "old"}}"#,
    );
    let new = model(
        &[],
        r#""ex#Name": {"type": "string", "traits": {"smithy.api#documentation": "new"}}"#,
    );
    assert!(diff(&old, &new).is_empty());
}

/// Two operations reaching a nested shape differently, and one the crate does not implement.
fn reach_models() -> (Model, Model) {
    let shapes = |inner_length: &str| {
        format!(
            r#""ex#Ping": {{"type": "operation", "input": {{"target": "ex#PingInput"}}}},
               "ex#GetThing": {{"type": "operation", "input": {{"target": "ex#GetThingInput"}},
                   "output": {{"target": "ex#GetThingOutput"}}}},
               "ex#Untouched": {{"type": "operation"}},
               "ex#Unwritten": {{"type": "operation", "input": {{"target": "ex#PingInput"}}}},
               "ex#PingInput": {{"type": "structure", "members": {{"Id": {{"target": "smithy.api#String"}}}}}},
               "ex#GetThingInput": {{"type": "structure", "members": {{}}}},
               "ex#GetThingOutput": {{"type": "structure", "members": {{"Items": {{"target": "ex#Items"}}}}}},
               "ex#Items": {{"type": "list", "member": {{"target": "ex#Inner"}}}},
               "ex#Inner": {{"type": "string", "traits": {{"smithy.api#length": {inner_length}}}}}"#
        )
    };
    let ops = ["Ping", "GetThing", "Untouched", "Unwritten"];
    (
        model(&ops, &shapes(r#"{"max": 5}"#)),
        model(&ops[..3], &shapes(r#"{"max": 9}"#)),
    )
}

#[test]
fn hand_written_operations_reached_by_a_change_are_affected() {
    let (old, new) = reach_models();
    let crates = ServiceCrates::from_source(
        "ex",
        "impl Ex for ExService {\n    async fn ping(&self) {}\n    async fn untouched(&self) {}\n}\n\
         stratus_gen_ex::operations! { ExService; get_thing in run => things::read }\n\
         fn unwritten_helper() {}",
    );
    let d = compare_models("ex", &old, &new, &crates).unwrap();
    let hand_written = d.hand_written.unwrap();
    assert_eq!(hand_written.implemented, 3);
    assert_eq!(
        hand_written.affected,
        [Affected {
            operation: "GetThing".into(),
            because: vec!["Inner".into()],
        }]
    );
    assert!(hand_written.removed.is_empty());
}

#[test]
fn implemented_operations_the_new_model_drops_are_listed() {
    let (old, mut new) = reach_models();
    new.shapes
        .get_mut("ex#Svc")
        .unwrap()
        .operations
        .retain(|op| op != "ex#Untouched");
    let crates = ServiceCrates::from_source("ex", "async fn untouched(&self) {}");
    let hand_written = compare_models("ex", &old, &new, &crates).unwrap().hand_written.unwrap();
    assert_eq!(hand_written.removed, ["Untouched"]);
    assert!(hand_written.affected.is_empty());
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stratus-diff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn service_crates_are_found_by_the_generated_crates_they_depend_on() {
    let root = scratch("crates");
    write(
        &root.join("tables/Cargo.toml"),
        "[package]\nname = \"t\"\n[dependencies]\nstratus-gen-tables = { path = \"x\" }\n\
         stratus-gen-tables-streams.workspace = true\nserde = \"1\"\n",
    );
    write(
        &root.join("tables/src/ops/read.rs"),
        "pub fn get_records(input: GetRecordsInput) {}",
    );
    write(
        &root.join("helper/Cargo.toml"),
        "[package]\nname = \"h\"\n[dependencies]\nserde = \"1\"\n",
    );
    write(&root.join("helper/src/lib.rs"), "fn get_records() {}");
    let crates = ServiceCrates::scan(&root).unwrap();
    for sdk_id in ["tables", "tables-streams"] {
        let found = crates.for_service(sdk_id).expect(sdk_id);
        assert_eq!(found.dir, root.join("tables"));
        assert!(found.implements("GetRecords"));
        assert!(!found.implements("GetShardIterator"));
    }
    assert!(crates.for_service("helper").is_none());
}

const DIR_MODEL: &str = r#"{"smithy": "2.0", "shapes": {
    "ex#Svc": {"type": "service", "version": "V", "operations": [{"target": "ex#Ping"}]},
    "ex#Ping": {"type": "operation"}}}"#;

#[test]
fn directories_pair_files_by_sdk_id_in_either_layout() {
    let (from, to) = (scratch("from"), scratch("to"));
    write(&from.join("same.json"), DIR_MODEL);
    write(&to.join("same/service/2020-01-01/same-2020-01-01.json"), DIR_MODEL);
    write(&from.join("old-only.json"), DIR_MODEL);
    write(&to.join("new-only.json"), DIR_MODEL);
    write(&from.join("changed.json"), DIR_MODEL);
    write(
        &to.join("changed.json"),
        &DIR_MODEL.replace(r#""version": "V""#, r#""version": "W""#),
    );
    write(&from.join("LICENSE"), "not a model");
    let report = compare_dirs(&from, &to, None).unwrap();
    assert_eq!(report.unchanged, ["same"]);
    assert_eq!(report.removed, ["old-only"]);
    assert_eq!(report.added, ["new-only"]);
    assert_eq!(report.changed.len(), 1);
    assert_eq!(report.changed[0].sdk_id, "changed");
    assert!(report.changed[0].hand_written.is_none());
    assert_eq!(report.changed[0].service[0].to_string(), "version V → W");
}

#[test]
fn report_reads_as_markdown_in_a_fixed_order() {
    let (old, new) = reach_models();
    let crates = ServiceCrates::from_source("ex", "fn get_thing(");
    let report = super::Report {
        changed: vec![compare_models("ex", &old, &new, &crates).unwrap()],
        unchanged: vec!["a".into(), "b".into()],
        ..Default::default()
    };
    let text = render::render(&report);
    assert_eq!(
        text,
        "| service | operations +/-/~ | shapes +/-/~ | hand-written operations affected |\n\
         |---|---|---|---|\n\
         | ex | 0 / 1 / 0 | 0 / 0 / 1 | 1 of 1 (services/ex) |\n\
         \n\
         Unchanged (2): a, b.\n\
         \n\
         ### ex\n\
         \n\
         **Operations removed** (1): Unwritten\n\
         \n\
         **Shapes changed** (1):\n\
         - `Inner` (string): @length ..5 → ..9\n\
         \n\
         **Hand-written operations affected** (1 of the 1 that services/ex implements):\n\
         - `GetThing`: Inner\n"
    );
    assert_eq!(text, render::render(&report));
}

#[test]
fn long_values_are_shortened_and_patterns_fenced() {
    let long = Change::Trait {
        member: None,
        id: "smithy.api#jsonName".into(),
        from: None,
        to: Some(json!("x".repeat(300))),
    };
    let text = long.to_string();
    assert!(text.starts_with("+@jsonName \"xxx"), "{text}");
    assert!(text.ends_with("… (302 characters)"), "{text}");
    assert_eq!(super::change::code_span("a`b"), "`` a`b ``");
    assert_eq!(super::change::kind_name(Kind::IntEnum), "intEnum");
}

/// The pinned models against the 2026-08 set, when both are beside the repository.
#[test]
fn real_models_pinned_against_2026_08() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let (from, to) = (shared.join("aws-models"), shared.join("aws-models-2026-08"));
    if !from.is_dir() || !to.is_dir() {
        println!("skipped: {} or {} is not there", from.display(), to.display());
        return;
    }
    let services = Path::new(env!("CARGO_MANIFEST_DIR")).join("../services");
    let report = compare_dirs(&from, &to, Some(&services)).unwrap();
    let changed: Vec<&str> = report.changed.iter().map(|s| s.sdk_id.as_str()).collect();
    assert_eq!(
        changed,
        [
            "cloudwatch-logs",
            "dynamodb",
            "iam",
            "kms",
            "lambda",
            "route-53",
            "s3",
            "sqs",
            "sts"
        ]
    );
    assert_eq!(report.unchanged.len(), 17);
    let service = |id: &str| report.changed.iter().find(|s| s.sdk_id == id).unwrap();
    let runtime = service("lambda")
        .shapes_changed
        .iter()
        .find(|s| s.name == "Runtime")
        .unwrap();
    assert!(
        matches!(&runtime.changes[0], Change::EnumValues { added, .. } if added.contains(&"python3.14".to_string()))
    );
    let s3 = service("s3").hand_written.as_ref().unwrap();
    assert!(s3.affected.iter().any(|a| a.operation == "PutObject"));
    // The generator has learned every trait the 2026-08 models brought (sigv4a, endpointBdd).
    assert!(report.changed.iter().all(|s| s.not_understood.is_empty()));
    assert_eq!(render::render(&report), render::render(&report));
}
