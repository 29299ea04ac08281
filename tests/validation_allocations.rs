//! Validating a valid input allocates nothing, proved with a counting global allocator.
//!
//! The regex crate's lazy DFA may allocate the first time it meets a new input (its state
//! cache grows), so each input is validated once to warm up and then measured.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use stratus_core::validate::validate_input;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn validating_valid_inputs_allocates_nothing() {
    for (service, operation, body) in [
        ("dynamodb", "PutItem", support::PUT_ITEM),
        ("lambda", "CreateFunction", support::CREATE_FUNCTION),
    ] {
        let (svc, op, input) = support::decoded(service, operation, body);
        validate_input(svc, op, &input).expect("valid");
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..100 {
            validate_input(svc, op, &input).expect("valid");
        }
        let allocated = ALLOCATIONS.load(Ordering::Relaxed) - before;
        assert_eq!(
            allocated, 0,
            "{service} {operation}: {allocated} allocations in 100 validations"
        );
    }
}
