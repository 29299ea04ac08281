//! The constraint engine's rules and AWS's wording, on hand-built schemas. Each expected message
//! follows a real AWS answer recorded in docs/decisions/validation-errors.md.

use stratus_core::pattern::{Engine, Pattern};
use stratus_core::prelude_shapes::{DOUBLE, STRING};
use stratus_core::schema::*;
use stratus_core::validate::{check, validate_input, Dialect, MAX_REPORTED};

const CORAL: Dialect<'static> = Dialect::Coral {
    root_operation: None,
    unanchored_patterns: false,
};
use stratus_core::Value;

static NAME_PATTERN: Pattern = Pattern::new("[a-zA-Z0-9_.-]+", "^(?:[a-zA-Z0-9_.\\-]+)$", Engine::Regex);
static TABLE_NAME: Shape = Shape {
    constraints: Constraints {
        length: Some((Some(3), Some(255))),
        pattern: Some(&NAME_PATTERN),
        ..Constraints::NONE
    },
    ..Shape::simple("TableName", ShapeType::String)
};
static KEY_TYPE: Shape = Shape {
    constraints: Constraints {
        enum_values: &["HASH", "RANGE"],
        ..Constraints::NONE
    },
    ..Shape::simple("KeyType", ShapeType::Enum)
};
static ATTRIBUTE_NAME: Shape = Shape {
    constraints: Constraints {
        length: Some((Some(1), Some(255))),
        ..Constraints::NONE
    },
    ..Shape::simple("KeySchemaAttributeName", ShapeType::String)
};
static KEY_ELEMENT: Shape = Shape {
    members: &[
        Member {
            required: true,
            ..Member::plain("AttributeName", &ATTRIBUTE_NAME)
        },
        Member {
            required: true,
            ..Member::plain("KeyType", &KEY_TYPE)
        },
    ],
    ..Shape::simple("KeySchemaElement", ShapeType::Structure)
};
static KEY_SCHEMA: Shape = Shape {
    members: &[Member::plain("member", &KEY_ELEMENT)],
    constraints: Constraints {
        length: Some((Some(1), Some(2))),
        ..Constraints::NONE
    },
    ..Shape::simple("KeySchema", ShapeType::List)
};
static NAMES: Shape = Shape {
    members: &[Member::plain("member", &ATTRIBUTE_NAME)],
    ..Shape::simple("AttributeNameList", ShapeType::List)
};
static LIMIT: Shape = Shape {
    constraints: Constraints {
        range: Some((Some(1.0), None)),
        ..Constraints::NONE
    },
    ..Shape::simple("PositiveIntegerObject", ShapeType::Integer)
};
static WEIGHT: Shape = Shape {
    constraints: Constraints {
        range: Some((Some(0.0), Some(1.0))),
        ..Constraints::NONE
    },
    ..Shape::simple("Weight", ShapeType::Double)
};
static WEIGHTS: Shape = Shape {
    members: &[Member::plain("key", &ATTRIBUTE_NAME), Member::plain("value", &WEIGHT)],
    ..Shape::simple("AdditionalVersionWeights", ShapeType::Map)
};
static KEYS_BY_TABLE: Shape = Shape {
    members: &[Member::plain("key", &TABLE_NAME), Member::plain("value", &KEY_ELEMENT)],
    ..Shape::simple("RequestItems", ShapeType::Map)
};
static SECRET: Shape = Shape {
    constraints: Constraints {
        length: Some((None, Some(4))),
        ..Constraints::NONE
    },
    sensitive: true,
    ..Shape::simple("SecretStringType", ShapeType::String)
};
static INPUT: Shape = Shape {
    members: &[
        Member {
            required: true,
            ..Member::plain("TableName", &TABLE_NAME)
        },
        Member::plain("KeySchema", &KEY_SCHEMA),
        Member::plain("AttributesToGet", &NAMES),
        Member::plain("Limit", &LIMIT),
        Member::plain("Weights", &WEIGHTS),
        Member::plain("RequestItems", &KEYS_BY_TABLE),
        Member::plain("SecretString", &SECRET),
        Member::plain("Ratio", &DOUBLE),
        Member::plain("Note", &STRING),
    ],
    ..Shape::simple("Input", ShapeType::Structure)
};

fn s(v: &str) -> Value {
    Value::String(v.into())
}

/// An input with `TableName` set and the given other members.
fn input(members: &[(usize, Value)]) -> Value {
    let mut slots = vec![None; INPUT.members.len()];
    slots[0] = Some(s("Music"));
    for (i, v) in members {
        slots[*i] = Some(v.clone());
    }
    Value::Struct(slots)
}

fn key(name: Option<&str>, key_type: &str) -> Value {
    Value::Struct(vec![name.map(s), Some(s(key_type))])
}

fn message(value: &Value) -> String {
    check(&INPUT, value, CORAL).unwrap_err().message()
}

#[test]
fn valid_input_passes() {
    let v = input(&[(1, Value::List(vec![key(Some("id"), "HASH")])), (3, Value::Int(5))]);
    assert_eq!(check(&INPUT, &v, CORAL), Ok(()));
}

#[test]
fn missing_required_member_is_null() {
    let v = Value::Struct(vec![None; INPUT.members.len()]);
    assert_eq!(
        message(&v),
        "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"
    );
}

#[test]
fn length_counts_code_points_and_pattern_is_a_full_match() {
    // Three code points, nine bytes: long enough, but not the pattern.
    let v = Value::Struct(vec![Some(s("ééé"))].into_iter().chain(vec![None; 8]).collect());
    assert_eq!(
        message(&v),
        "1 validation error detected: Value 'ééé' at 'tableName' failed to satisfy constraint: \
         Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
    // dynalite's createTable test: length and pattern are two items at one path.
    let v = Value::Struct(vec![Some(s("a;"))].into_iter().chain(vec![None; 8]).collect());
    assert_eq!(
        message(&v),
        "2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy constraint: \
         Member must have length greater than or equal to 3; Value 'a;' at 'tableName' failed to satisfy \
         constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    );
}

#[test]
fn list_of_structures_paths_are_one_based_with_member() {
    let v = input(&[(1, Value::List(vec![key(Some("id"), "HASH"), key(None, "SORT")]))]);
    assert_eq!(
        message(&v),
        "2 validation errors detected: Value null at 'keySchema.2.member.attributeName' failed to satisfy \
         constraint: Member must not be null; Value 'SORT' at 'keySchema.2.member.keyType' failed to satisfy \
         constraint: Member must satisfy enum value set: [HASH, RANGE]"
    );
}

#[test]
fn collection_length_renders_the_collection() {
    let v = input(&[(1, Value::List(vec![]))]);
    assert_eq!(
        message(&v),
        "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: \
         Member must have length greater than or equal to 1"
    );
}

#[test]
fn scalar_elements_are_reported_once_with_every_element_constraint() {
    let v = input(&[(2, Value::List(vec![s("ok"), s("")]))]);
    assert_eq!(
        message(&v),
        "1 validation error detected: Value '[ok, ]' at 'attributesToGet' failed to satisfy constraint: \
         Member must satisfy constraint: [Member must have length less than or equal to 255, \
         Member must have length greater than or equal to 1]"
    );
}

#[test]
fn map_keys_and_values_and_double_bounds() {
    // localstack's Lambda provider quotes AWS: double bounds print as Java doubles.
    let v = input(&[(4, Value::Map(vec![("".into(), Value::Float(1.5))]))]);
    assert_eq!(
        message(&v),
        "2 validation errors detected: Value '{=1.5}' at 'weights' failed to satisfy constraint: \
         Map keys must satisfy constraint: [Member must have length less than or equal to 255, \
         Member must have length greater than or equal to 1]; Value '{=1.5}' at 'weights' failed to satisfy \
         constraint: Map value must satisfy constraint: [Member must have value less than or equal to 1.0, \
         Member must have value greater than or equal to 0.0]"
    );
}

#[test]
fn structure_map_values_path_through_the_key() {
    let v = input(&[(5, Value::Map(vec![("users".into(), key(Some(""), "HASH"))]))]);
    assert_eq!(
        message(&v),
        "1 validation error detected: Value '' at 'requestItems.users.member.attributeName' failed to satisfy \
         constraint: Member must have length greater than or equal to 1"
    );
}

#[test]
fn integer_range_and_sensitive_values() {
    let v = input(&[(3, Value::Int(0)), (6, s("hunter2"))]);
    assert_eq!(
        message(&v),
        "2 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: \
         Member must have value greater than or equal to 1; Value at 'secretString' failed to satisfy \
         constraint: Member must have length less than or equal to 4"
    );
}

#[test]
fn at_most_ten_items_are_reported() {
    let many: Vec<Value> = (0..12).map(|_| key(None, "HASH")).collect();
    let report = check(&INPUT, &input(&[(1, Value::List(many))]), CORAL).unwrap_err();
    assert_eq!(report.items().len(), MAX_REPORTED);
    let message = report.message();
    assert!(
        message.starts_with("10 validation errors detected: Value '[KeySchemaElement(attributeName=null"),
        "{message}"
    );
    assert!(message
        .ends_with("at 'keySchema.9.member.attributeName' failed to satisfy constraint: Member must not be null"));
}

#[test]
fn service_style_picks_code_and_path_root() {
    static OP: Operation = Operation {
        name: "CreateRestApi",
        input: &INPUT,
        output: &INPUT,
        errors: &[],
        http: None,
        unsigned: false,
    };
    static SVC: Service = Service {
        sdk_id: "Test",
        namespace: "test",
        shape_name: "Test",
        version: "1",
        signing_name: "test",
        endpoint_prefix: "test",
        protocols: &[Protocol::RestJson1],
        query_compatible: false,
        xml_namespace: None,
        operations: &[],
        validation: ValidationStyle {
            code: "BadRequestException",
            http_status: 400,
            missing_code: Some("MissingParameter"),
            path_from_input: true,
            unanchored_patterns: false,
            missing_parameter_message: false,
            framework_error: None,
        },
        departures: Departures::NONE,
        model_sha256: "",
        authorization: &stratus_core::authz::Authorization::NONE,
    };
    let missing = validate_input(&SVC, &OP, &Value::Struct(vec![None; INPUT.members.len()])).unwrap_err();
    assert_eq!(missing.code(), "MissingParameter");
    assert!(
        missing.message().contains("at 'createRestApiInput.tableName'"),
        "{}",
        missing.message()
    );
    let bad = validate_input(&SVC, &OP, &input(&[(3, Value::Int(0))])).unwrap_err();
    assert_eq!((bad.code(), bad.http_status()), ("BadRequestException", 400));
}

#[test]
fn framework_dialect_uses_pointers_and_per_element_reports() {
    let v = input(&[(2, Value::List(vec![s("ok"), s("")])), (3, Value::Int(0))]);
    let report = check(&INPUT, &v, Dialect::Framework).unwrap_err();
    let paths: Vec<&str> = report.items().iter().map(|v| v.path.as_str()).collect();
    assert_eq!(paths, ["/AttributesToGet/1", "/Limit"]);
    assert_eq!(
        report.message(),
        "2 validation errors detected. Value with length 0 at '/AttributesToGet/1' failed to satisfy constraint: \
         Member must have length between 1 and 255, inclusive; Value at '/Limit' failed to satisfy constraint: \
         Member must be greater than or equal to 1"
    );
}

static ANCHORED_PATTERN: Pattern = Pattern::new("^[\\w+=,.@-]*$", "^(?:[\\w+=,.@-]*)$", Engine::Regex);
static SESSION_NAME: Shape = Shape {
    constraints: Constraints {
        pattern: Some(&ANCHORED_PATTERN),
        ..Constraints::NONE
    },
    ..Shape::simple("RoleSessionName", ShapeType::String)
};
static SESSION_INPUT: Shape = Shape {
    members: &[Member::plain("RoleSessionName", &SESSION_NAME)],
    ..Shape::simple("AssumeRoleRequest", ShapeType::Structure)
};

#[test]
fn services_that_quote_patterns_unanchored_drop_the_models_outer_anchors() {
    // STS answers `[\w+=,.@-]*` for its model's `^[\w+=,.@-]*$`; EventBridge quotes as modelled.
    let bad = Value::Struct(vec![Some(s("a:b"))]);
    let quoted = |unanchored_patterns| {
        check(
            &SESSION_INPUT,
            &bad,
            Dialect::Coral {
                root_operation: None,
                unanchored_patterns,
            },
        )
        .unwrap_err()
        .message()
    };
    assert!(quoted(true).ends_with("Member must satisfy regular expression pattern: [\\w+=,.@-]*"));
    assert!(quoted(false).ends_with("Member must satisfy regular expression pattern: ^[\\w+=,.@-]*$"));
}
