//! Validating realistic inputs: DynamoDB PutItem and Lambda CreateFunction.
//!
//! `cargo bench --bench validate`. The input is decoded once; the measured call is the whole
//! constraint check of the decoded value, as the gateway runs it for every request.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use stratus_core::json::{decode, KeyNames};
use stratus_core::validate::validate_input;

fn bench(c: &mut Criterion) {
    for (service, operation, body) in [
        (
            "dynamodb",
            "PutItem",
            &include_bytes!("../tests/fixtures/dynamodb-put-item.json")[..],
        ),
        (
            "lambda",
            "CreateFunction",
            &include_bytes!("../tests/fixtures/lambda-create-function.json")[..],
        ),
    ] {
        let svc = stratus_gen_registry::find(service).unwrap();
        let op = svc.operation(operation).unwrap();
        let input = decode(op.input, body, KeyNames::Member).unwrap();
        validate_input(svc, op, &input).unwrap();
        c.bench_function(&format!("validate {service} {operation}"), |b| {
            b.iter(|| validate_input(svc, op, black_box(&input)))
        });
        c.bench_function(&format!("decode+validate {service} {operation}"), |b| {
            b.iter(|| {
                let input = decode(op.input, black_box(body), KeyNames::Member).unwrap();
                validate_input(svc, op, &input)
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
