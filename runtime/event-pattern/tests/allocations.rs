//! Matching allocates nothing (but for `String.Array` attributes, whose JSON is parsed);
//! proved with a counting global allocator (one test, so no other test's thread allocates
//! meanwhile).

use serde_json::json;
use stratus_event_pattern::{Attribute, Dialect, Pattern};
use stratus_test_support::CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn matching_allocates_nothing() {
    let rule = Pattern::parse(
        r#"{"source": [{"prefix": "aws."}], "detail": {"state": [{"anything-but": ["a", "b"]}], "n": [{"numeric": [">", 1]}], "ip": [{"cidr": "10.0.0.0/8"}], "w": [{"wildcard": "*.png"}], "e": [{"exists": false}]}, "$or": [{"x": [1]}, {"y": [{"equals-ignore-case": "Y"}]}]}"#,
        Dialect::EventBridge,
    )
    .unwrap();
    let event =
        json!({"source": "aws.s3", "y": "y", "detail": {"state": "c", "n": [0, 5], "ip": "10.1.1.1", "w": "a.png"}});
    let policy = Pattern::parse(
        r#"{"store": ["north"], "price": [{"numeric": ["<", 100]}], "kind": [{"suffix": "-x"}]}"#,
        Dialect::SnsMessageAttributes,
    )
    .unwrap();
    let attributes = [
        Attribute::new("kind", "String", "a-x"),
        Attribute::new("price", "Number", "99.5"),
        Attribute::new("store", "String", "north"),
    ];
    assert!(rule.matches(&event));
    assert!(policy.matches_attributes(&attributes));
    let before = stratus_test_support::allocations();
    for _ in 0..100 {
        assert!(rule.matches(&event));
        assert!(policy.matches_attributes(&attributes));
    }
    assert_eq!(stratus_test_support::allocations() - before, 0);
}
