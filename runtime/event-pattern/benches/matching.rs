//! Matching cost per message per subscription (or rule), for typical three-field patterns.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;
use stratus_event_pattern::{Attribute, Dialect, Pattern};

const POLICY: &str =
    r#"{"store": ["north", "south"], "price": [{"numeric": [">", 0, "<=", 100]}], "kind": [{"prefix": "order-"}]}"#;

fn sns_attributes(c: &mut Criterion) {
    let policy = Pattern::parse(POLICY, Dialect::SnsMessageAttributes).unwrap();
    let matching = [
        Attribute::new("trace", "String", "abc-123"),
        Attribute::new("store", "String", "south"),
        Attribute::new("price", "Number", "42.5"),
        Attribute::new("kind", "String", "order-created"),
        Attribute::new("blob", "Binary", ""),
    ];
    let mut missing = matching;
    missing[1] = Attribute::new("store", "String", "east");
    assert!(policy.matches_attributes(&matching));
    assert!(!policy.matches_attributes(&missing));
    c.bench_function("sns attributes, 3-field policy, match", |b| {
        b.iter(|| policy.matches_attributes(black_box(&matching)))
    });
    c.bench_function("sns attributes, 3-field policy, no match", |b| {
        b.iter(|| policy.matches_attributes(black_box(&missing)))
    });
}

fn eventbridge(c: &mut Criterion) {
    let rule = Pattern::parse(
        r#"{"source": ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"], "detail": {"state": [{"anything-but": "pending"}]}}"#,
        Dialect::EventBridge,
    )
    .unwrap();
    let event = json!({
        "version": "0", "id": "7bf73129-1428-4cd3-a780-95db273d1602",
        "detail-type": "EC2 Instance State-change Notification", "source": "aws.ec2",
        "account": "123456789012", "time": "2015-11-11T21:29:54Z", "region": "us-east-1",
        "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],
        "detail": {"instance-id": "i-abcd1111", "state": "running"}
    });
    assert!(rule.matches(&event));
    c.bench_function("eventbridge, 3-field pattern, match", |b| {
        b.iter(|| rule.matches(black_box(&event)))
    });
    c.bench_function("sns policy parse", |b| {
        b.iter(|| Pattern::parse(black_box(POLICY), Dialect::SnsMessageAttributes).is_ok())
    });
}

criterion_group!(benches, sns_attributes, eventbridge);
criterion_main!(benches);
