//! Authorization data files are checked against the model: a file naming an operation,
//! member, resource type or transform the model (or the format) does not have stops
//! generation with a message that names it; a good one becomes the service's table.

use stratus_codegen::authorization::Data;
use stratus_codegen::manifest::{ServiceEntry, Validation};
use stratus_codegen::model::Model;
use stratus_codegen::{emit, Error};

const MODEL: &str = r#"{
  "smithy": "2.0",
  "shapes": {
    "com.example#Svc": {
      "type": "service", "version": "2020-01-01",
      "operations": [{"target": "com.example#PutThing"}, {"target": "com.example#ListThings"}],
      "traits": {"aws.api#service": {"sdkId": "Example", "arnNamespace": "example"}, "aws.protocols#awsJson1_0": {}}
    },
    "com.example#PutThing": {"type": "operation", "input": {"target": "com.example#PutThingInput"}},
    "com.example#ListThings": {"type": "operation"},
    "com.example#PutThingInput": {
      "type": "structure",
      "members": {
        "Name": {"target": "smithy.api#String"},
        "Parts": {"target": "com.example#Parts"}
      }
    },
    "com.example#Parts": {"type": "list", "member": {"target": "smithy.api#String"}}
  }
}"#;

fn model() -> Model {
    // Tests run in parallel: each loads its own copy.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("stratus-codegen-authz-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("example.json");
    std::fs::write(&path, MODEL).unwrap();
    Model::load_json(&path).unwrap()
}

fn entry() -> ServiceEntry {
    ServiceEntry {
        sdk_id: "example".into(),
        model: "example.json".into(),
        sha256: String::new(),
        protocols: vec!["awsJson1_0".into()],
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
        service: None,
        xml_namespace: None,
        s3_envelope: false,
        answer_statuses: Default::default(),
        query_error_detail: false,
        query_error_messages: Default::default(),
        interleaved_versions: Vec::new(),
        omitted_default_members: Vec::new(),
        schema_only: false,
    }
}

const HEAD: &str = r#"
prefix = "example"

[resource.thing]
arn = "arn:${Partition}:example:${Region}:${Account}:thing/${ThingName}"
bind = { ThingName = "Name" }
infer = true
"#;

fn schema(data: &str) -> Result<String, Error> {
    let data = Data::parse(data).map_err(|reason| Error::Authorization {
        file: "example.toml".into(),
        reason,
    })?;
    let files = emit::generate_with_authorization(&model(), &entry(), "", Some(&data))?;
    Ok(files.into_iter().find(|f| f.path == "src/schema.rs").unwrap().contents)
}

fn refusal(data: &str) -> String {
    match schema(data) {
        Err(Error::Authorization { reason, .. }) => reason,
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn the_default_rule_and_inference() {
    let text = schema(HEAD).unwrap();
    assert!(text.contains("pub mod authorization"), "{text}");
    assert!(
        text.contains(r#"action: "example:ListThings", only_if: None, resources: &[]"#),
        "{text}"
    );
    assert!(text.contains(r#"action: "example:PutThing""#), "{text}");
    assert!(text.contains(r#"resource_type: "thing""#), "{text}");
    assert!(text.contains("authorization: &authorization::AUTHORIZATION"), "{text}");
}

#[test]
fn a_service_without_data_takes_its_arn_namespace() {
    let files = emit::generate(&model(), &entry(), "").unwrap();
    let text = &files.iter().find(|f| f.path == "src/schema.rs").unwrap().contents;
    assert!(text.contains(r#"prefix: "example""#), "{text}");
}

#[test]
fn an_operation_the_model_lacks_is_refused() {
    let reason = refusal(&format!("{HEAD}\n[operation.DeleteThing]\naction = \"Delete\"\n"));
    assert!(
        reason.contains("operation DeleteThing is not an operation of Example"),
        "{reason}"
    );
}

#[test]
fn a_member_the_input_lacks_is_refused() {
    let reason = refusal(&format!(
        "{HEAD}\n[operation.PutThing]\nconditions = {{ \"example:Size\" = \"Size\" }}\n"
    ));
    assert!(reason.contains("PutThingInput has no member Size"), "{reason}");
    let reason = refusal(&format!("{HEAD}\n[operation.ListThings]\nresource = \"thing\"\n"));
    assert!(reason.contains("ListThings has no input"), "{reason}");
}

#[test]
fn list_steps_transforms_and_types_are_checked() {
    let reason = refusal(&format!(
        "{HEAD}\n[operation.PutThing]\nresource = \"thing\"\nbind = {{ ThingName = \"Name[]\" }}\n"
    ));
    assert!(reason.contains("Name is not a list or map"), "{reason}");
    let reason = refusal(&format!(
        "{HEAD}\n[operation.PutThing]\nresource = \"thing\"\nbind = {{ ThingName = \"Name|shout\" }}\n"
    ));
    assert!(reason.contains("unknown transform shout"), "{reason}");
    let reason = refusal(&format!("{HEAD}\n[operation.PutThing]\nresource = \"widget\"\n"));
    assert!(reason.contains("no resource type widget"), "{reason}");
    let reason = refusal(&format!(
        "{HEAD}\n[operation.PutThing]\nresource = \"thing\"\nbind = {{ Other = \"Name\" }}\n"
    ));
    assert!(reason.contains("nothing binds ${ThingName}"), "{reason}");
    let reason = refusal(&format!("{HEAD}\n[operation.PutThing]\nactoin = \"X\"\n"));
    assert!(reason.contains("unknown field"), "{reason}");
}

#[test]
fn several_actions_with_presence_conditions() {
    let text = schema(&format!(
        "{HEAD}\n[operation.PutThing]\nactions = [\n  {{ action = \"PutThing\", resource = \"thing\", bind = {{ ThingName = \"Parts[]\" }} }},\n  {{ action = \"other:Tag\", when = \"Parts\" }},\n]\n"
    ))
    .unwrap();
    assert!(text.contains("Step::Member(1), Step::Each"), "{text}");
    assert!(
        text.contains(r#"action: "other:Tag", only_if: Some(Presence { path: &[Step::Member(1)], transform: Transform::Text, present: true })"#),
        "{text}"
    );
}
