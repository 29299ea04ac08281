//! The generator refuses what it does not understand, naming the shape, and `sync` refuses a
//! model whose hash is not the pinned one.

use std::path::PathBuf;

use stratus_codegen::manifest::Manifest;
use stratus_codegen::model::Model;
use stratus_codegen::sync::{sha256_hex, sync_models, OnMismatch};
use stratus_codegen::{emit, Error};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stratus-codegen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MODEL: &str = r#"{
  "smithy": "2.0",
  "shapes": {
    "com.example#Svc": {
      "type": "service", "version": "2020-01-01",
      "operations": [{"target": "com.example#Ping"}],
      "traits": {"aws.api#service": {"sdkId": "Example"}, "aws.protocols#awsJson1_0": {}}
    },
    "com.example#Ping": {"type": "operation", "input": {"target": "com.example#PingInput"}},
    "com.example#PingInput": {
      "type": "structure",
      "members": {"Name": {"target": "smithy.api#String", "traits": TRAITS}}
    }
  }
}"#;

fn write_model(dir: &std::path::Path, member_traits: &str) -> PathBuf {
    let path = dir.join("example.json");
    std::fs::write(&path, MODEL.replace("TRAITS", member_traits)).unwrap();
    path
}

fn manifest(dir: &std::path::Path, sha: &str) -> PathBuf {
    let path = dir.join("manifest.toml");
    std::fs::write(
        &path,
        format!(
            "[[service]]\nsdk_id = \"example\"\nmodel = \"example.json\"\nsha256 = \"{sha}\"\n\
             protocols = [\"awsJson1_0\"]\nvalidation = {{ code = \"ValidationException\", status = 400 }}\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn unknown_trait_is_refused_with_the_shape_named() {
    let dir = scratch("unknown-trait");
    let path = write_model(&dir, r#"{"com.example#mystery": {}}"#);
    match Model::load_json(&path) {
        Err(Error::Unsupported { shape, reason }) => {
            assert_eq!(shape, "com.example#PingInput$Name");
            assert!(reason.contains("com.example#mystery"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn known_model_generates_deterministically() {
    let dir = scratch("generate");
    let path = write_model(&dir, r#"{"smithy.api#required": {}, "smithy.api#length": {"min": 1}}"#);
    let sha = sha256_hex(&std::fs::read(&path).unwrap());
    let manifest = Manifest::load(&manifest(&dir, &sha)).unwrap();
    let model = Model::load_json(&path).unwrap();
    let first = emit::generate(&model, &manifest.service[0], &sha).unwrap();
    let second = emit::generate(&model, &manifest.service[0], &sha).unwrap();
    let texts = |files: &[emit::GeneratedFile]| files.iter().map(|f| f.contents.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&first), texts(&second));
    let schema = first.iter().find(|f| f.path == "src/schema.rs").unwrap();
    assert!(schema.contents.starts_with(emit::HEADER));
    assert!(
        schema.contents.contains("length: Some((Some(1), None))"),
        "{}",
        schema.contents
    );
    let types = first.iter().find(|f| f.path == "src/types.rs").unwrap();
    assert!(types.contents.contains("pub name: String,"), "{}", types.contents);
}

#[test]
fn sync_refuses_a_changed_model_unless_repinning() {
    let dir = scratch("sync");
    write_model(&dir, "{}");
    let manifest_path = manifest(&dir, &"0".repeat(64));
    let dest = dir.join("out");
    match sync_models(&manifest_path, &dir, &dest, OnMismatch::Refuse) {
        Err(Error::HashMismatch { pinned, .. }) => assert_eq!(pinned, "0".repeat(64)),
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
    assert_eq!(
        sync_models(&manifest_path, &dir, &dest, OnMismatch::Repin).unwrap(),
        vec!["example".to_string()]
    );
    assert!(sync_models(&manifest_path, &dir, &dest, OnMismatch::Refuse)
        .unwrap()
        .is_empty());
    assert!(dest.join("example.json").is_file());
}

#[test]
fn published_layout_is_found() {
    let dir = scratch("layout");
    let nested = dir.join("example/service/2020-01-01");
    std::fs::create_dir_all(&nested).unwrap();
    let body = MODEL.replace("TRAITS", "{}");
    std::fs::write(nested.join("example-2020-01-01.json"), &body).unwrap();
    let manifest_path = manifest(&dir, &sha256_hex(body.as_bytes()));
    sync_models(&manifest_path, &dir, &dir.join("out"), OnMismatch::Refuse).unwrap();
}

#[test]
fn unknown_trait_is_kept_when_comparing_models() {
    let dir = scratch("unknown-trait-kept");
    let path = write_model(
        &dir,
        r#"{"com.example#mystery": {"a": 1}, "smithy.api#documentation": "d"}"#,
    );
    let model = Model::load_json_keeping_unknown_traits(&path).unwrap();
    let member = &model.shapes["com.example#PingInput"].members[0];
    assert_eq!(member.traits.keys().collect::<Vec<_>>(), ["com.example#mystery"]);
    assert!(!stratus_codegen::model::understood_trait("com.example#mystery"));
    assert!(stratus_codegen::model::understood_trait("smithy.api#documentation"));
}
