//! Shared by the integration tests: the realistic requests used by tests and benchmarks.

use stratus_core::json::{decode, KeyNames};
use stratus_core::schema::{Operation, Service};
use stratus_core::Value;

pub(crate) const PUT_ITEM: &[u8] = include_bytes!("../fixtures/dynamodb-put-item.json");
pub(crate) const CREATE_FUNCTION: &[u8] = include_bytes!("../fixtures/lambda-create-function.json");

/// The service, operation and decoded input for a request fixture.
pub(crate) fn decoded(service: &str, operation: &str, body: &[u8]) -> (&'static Service, &'static Operation, Value) {
    let svc = stratus_gen_registry::find(service).expect("service");
    let op = svc.operation(operation).expect("operation");
    let input = decode(op.input, body, KeyNames::Member).expect("fixture decodes");
    (svc, op, input)
}
