//! Decoded values become the generated typed inputs, and typed outputs become values.

use crate::support;

use stratus_core::{FromValue, IntoValue, Value};
use stratus_gen_dynamodb::{AttributeValue, PutItemInput, ReturnValue};
use stratus_gen_lambda::{Architecture, CreateFunctionRequest};

#[test]
fn put_item_input_is_typed() {
    let (_, _, value) = support::decoded("dynamodb", "PutItem", support::PUT_ITEM);
    let input = PutItemInput::from_value(value).expect("typed");
    assert_eq!(input.table_name, "Music");
    assert_eq!(input.return_values, Some(ReturnValue::AllOld));
    assert_eq!(input.item["Year"], AttributeValue::N("2015".into()));
    assert_eq!(input.item["Discontinued"], AttributeValue::Null(true));
    let AttributeValue::M(details) = &input.item["Details"] else {
        panic!("Details is a map")
    };
    assert_eq!(details["Cover"], AttributeValue::B(b"hello".to_vec()));
}

#[test]
fn create_function_defaults_and_enums() {
    let (_, _, value) = support::decoded("lambda", "CreateFunction", support::CREATE_FUNCTION);
    let input = CreateFunctionRequest::from_value(value).expect("typed");
    assert_eq!(input.architectures, Some(vec![Architecture::Arm64]));
    assert_eq!(input.timeout, Some(30));
    assert_eq!(input.environment.and_then(|e| e.variables).map(|v| v.len()), Some(3));
}

#[test]
fn unknown_enum_values_are_kept() {
    assert_eq!(
        ReturnValue::from_wire("SOMETIMES"),
        ReturnValue::Unknown("SOMETIMES".into())
    );
    assert_eq!(
        ReturnValue::Unknown("SOMETIMES".into()).into_value(),
        Value::String("SOMETIMES".into())
    );
}

#[test]
fn outputs_become_struct_values() {
    let out = stratus_gen_dynamodb::PutItemOutput {
        attributes: Some([("id".to_string(), AttributeValue::S("1".into()))].into()),
        ..Default::default()
    };
    let Value::Struct(slots) = out.into_value() else {
        panic!("a structure")
    };
    assert_eq!(slots.len(), 3);
    assert!(matches!(&slots[0], Some(Value::Map(entries)) if entries.len() == 1));
}
