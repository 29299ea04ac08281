//! Validating a valid input allocates nothing, proved with a counting global allocator.
//!
//! The regex crate's lazy DFA may allocate the first time it meets a new input (its state
//! cache grows), so each input is validated once to warm up and then measured.

mod support;

use stratus_core::validate::validate_input;
use stratus_test_support::{allocations, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn validating_valid_inputs_allocates_nothing() {
    for (service, operation, body) in [
        ("dynamodb", "PutItem", support::PUT_ITEM),
        ("lambda", "CreateFunction", support::CREATE_FUNCTION),
    ] {
        let (svc, op, input) = support::decoded(service, operation, body);
        validate_input(svc, op, &input).expect("valid");
        let before = allocations();
        for _ in 0..100 {
            validate_input(svc, op, &input).expect("valid");
        }
        let allocated = allocations() - before;
        assert_eq!(
            allocated, 0,
            "{service} {operation}: {allocated} allocations in 100 validations"
        );
    }
}
