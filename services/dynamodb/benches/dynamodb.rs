//! DynamoDB's hot paths, in process: `cargo bench -p stratus-service-dynamodb`.
//!
//! The service runs over an ephemeral store (and, for the scan, a redb store in a temporary
//! directory). "server" cases go the way the gateway does — the decoded input `Value` through
//! the service's handler, the output `Value` encoded as awsJson1_0 — so they measure what
//! Stratus spends on a request apart from HTTP; the other cases call the operation directly.
//! The table holds 10,000 items of five small attributes (100 partitions of 100 items).

use std::collections::BTreeMap;
use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use stratus_core::json::{decode, encode, KeyNames};
use stratus_core::scheduler::Scheduler;
use stratus_core::service::ServiceHandler;
use stratus_core::{Clock, RequestContext};
use stratus_gen_dynamodb::*;
use stratus_service_dynamodb::expr::{parse_condition, ExpressionKind, Placeholders};
use stratus_service_dynamodb::{DynamoDbService, Item};
use stratus_storage::{Storage, StorageConfig};

fn ctx() -> RequestContext {
    RequestContext::unsigned("000000000000", "us-east-1", Default::default())
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

fn n(number: usize) -> AttributeValue {
    AttributeValue::N(number.to_string())
}

fn item(i: usize) -> Item {
    Item::from([
        ("pk".to_string(), s(&format!("p{}", i / 100))),
        ("sk".to_string(), n(i % 100)),
        ("name".to_string(), s(&format!("name-{i}"))),
        ("n".to_string(), n(i)),
        ("flag".to_string(), AttributeValue::Bool(i.is_multiple_of(2))),
    ])
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().build().unwrap()
}

/// A service whose table `t` (`pk` S, `sk` N) holds 10,000 items.
fn loaded(rt: &tokio::runtime::Runtime, config: StorageConfig) -> DynamoDbService {
    let service = DynamoDbService::new(
        Arc::new(Storage::open(config).unwrap()),
        Scheduler::new(Clock::system()),
        stratus_service_dynamodb::ttl::DEFAULT_INTERVAL,
    );
    let key = |name: &str, kind| KeySchemaElement {
        attribute_name: name.into(),
        key_type: kind,
    };
    let attr = |name: &str, kind| AttributeDefinition {
        attribute_name: name.into(),
        attribute_type: kind,
    };
    rt.block_on(async {
        service
            .create_table(
                &ctx(),
                CreateTableInput {
                    table_name: "t".into(),
                    key_schema: Some(vec![key("pk", KeyType::Hash), key("sk", KeyType::Range)]),
                    attribute_definitions: Some(vec![
                        attr("pk", ScalarAttributeType::S),
                        attr("sk", ScalarAttributeType::N),
                    ]),
                    billing_mode: Some(BillingMode::PayPerRequest),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        for batch in 0..400 {
            let requests = (batch * 25..batch * 25 + 25)
                .map(|i| WriteRequest {
                    put_request: Some(PutRequest { item: item(i) }),
                    delete_request: None,
                })
                .collect();
            service
                .batch_write_item(
                    &ctx(),
                    BatchWriteItemInput {
                        request_items: BTreeMap::from([("t".to_string(), requests)]),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
        }
    });
    service
}

/// What the gateway does with a decoded request body: call the handler, encode the answer.
fn serve(
    rt: &tokio::runtime::Runtime,
    handler: &dyn ServiceHandler,
    operation: &str,
    input: &stratus_core::Value,
) -> usize {
    let op = SERVICE.operation(operation).unwrap();
    let output = rt.block_on(handler.call(&ctx(), op, input.clone())).unwrap();
    encode(op.output, &output, KeyNames::Member).len()
}

fn input(operation: &str, body: &str) -> stratus_core::Value {
    decode(
        SERVICE.operation(operation).unwrap().input,
        body.as_bytes(),
        KeyNames::Member,
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let rt = runtime();
    let service = loaded(&rt, StorageConfig::Ephemeral);
    let handler = service.clone().into_handler();
    let handler = &*handler;
    let scan_all = input("Scan", r#"{"TableName":"t"}"#);
    let scan_count = input("Scan", r#"{"TableName":"t","Select":"COUNT"}"#);
    let scan_filter = input(
        "Scan",
        r#"{"TableName":"t","FilterExpression":"flag = :t AND n > :n","ExpressionAttributeValues":{":t":{"BOOL":true},":n":{"N":"5000"}}}"#,
    );
    let query = input(
        "Query",
        r#"{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p42"}}}"#,
    );
    assert!(serve(&rt, handler, "Scan", &scan_all) > 900_000);
    c.bench_function("server scan 10000 items", |b| {
        b.iter(|| serve(&rt, handler, "Scan", black_box(&scan_all)))
    });
    c.bench_function("server scan 10000 items Select=COUNT", |b| {
        b.iter(|| serve(&rt, handler, "Scan", black_box(&scan_count)))
    });
    c.bench_function("server scan 10000 items with a filter", |b| {
        b.iter(|| serve(&rt, handler, "Scan", black_box(&scan_filter)))
    });
    c.bench_function("server query 100 of 10000 items", |b| {
        b.iter(|| serve(&rt, handler, "Query", black_box(&query)))
    });
    let mut next = 1_000_000;
    c.bench_function("service put item (ephemeral)", |b| {
        b.iter(|| {
            next += 1;
            let input = PutItemInput {
                table_name: "t".into(),
                item: item(next),
                ..Default::default()
            };
            rt.block_on(service.put_item(&ctx(), input)).unwrap()
        })
    });

    let dir = std::env::temp_dir().join(format!("stratus-dynamodb-bench-{}", std::process::id()));
    {
        let disk = loaded(&rt, StorageConfig::DataDir(dir.clone())).into_handler();
        let disk = &*disk;
        c.bench_function("server scan 10000 items (redb)", |b| {
            b.iter(|| serve(&rt, disk, "Scan", black_box(&scan_all)))
        });
        c.bench_function("server scan 10000 items Select=COUNT (redb)", |b| {
            b.iter(|| serve(&rt, disk, "Scan", black_box(&scan_count)))
        });
    }
    let _ = std::fs::remove_dir_all(&dir);

    let names = BTreeMap::from([("#s".to_string(), "status".to_string())]);
    let values = BTreeMap::from([
        (":open".to_string(), s("open")),
        (":min".to_string(), n(10)),
        (":tag".to_string(), s("red")),
    ]);
    let text = "#s = :open AND (size(tags) > :min OR contains(tags, :tag)) AND attribute_exists(details.id)";
    c.bench_function("expression parse (condition)", |b| {
        b.iter(|| {
            let mut placeholders = Placeholders::new(Some(&names), Some(&values)).unwrap();
            parse_condition(black_box(text), ExpressionKind::Condition, &mut placeholders)
                .unwrap()
                .evaluate(&Item::new())
        })
    });
    let mut placeholders = Placeholders::new(Some(&names), Some(&values)).unwrap();
    let condition = parse_condition(text, ExpressionKind::Condition, &mut placeholders).unwrap();
    let target = Item::from([
        ("status".to_string(), s("open")),
        (
            "tags".to_string(),
            AttributeValue::Ss(vec!["blue".into(), "green".into(), "red".into()]),
        ),
        (
            "details".to_string(),
            AttributeValue::M(BTreeMap::from([("id".to_string(), n(7))])),
        ),
    ]);
    assert!(condition.evaluate(&target));
    c.bench_function("expression evaluate (condition, one item)", |b| {
        b.iter(|| condition.evaluate(black_box(&target)))
    });
}

/// The floor under a scan: reading 10,000 stored items a chunk at a time, as the scan does,
/// and writing them as JSON straight from their stored bytes (`codec::write_json`), against
/// decoding them into `Item`s.
fn stored(c: &mut Criterion) {
    use stratus_service_dynamodb::codec;
    use stratus_storage::{Direction, Durability, KeyRange, Namespace, StorageError};
    let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
    let store = storage
        .store(
            &Namespace::regional("000000000000", "us-east-1", "bench"),
            Durability::Strict,
        )
        .unwrap();
    store
        .transact(|tx| {
            for i in 0..10_000 {
                tx.put("items", format!("k{i:06}").as_bytes(), codec::encode(&item(i)));
            }
            Ok::<_, StorageError>(())
        })
        .unwrap();
    let each = |visit: &mut dyn FnMut(&[u8])| {
        let mut range = KeyRange::prefix(b"k");
        loop {
            let chunk = store.scan("items", &range, Direction::Forward, Some(256)).unwrap();
            let Some((last, _)) = chunk.last() else { break };
            range = KeyRange::between(std::ops::Bound::Excluded(last.as_slice()), range.end());
            chunk.iter().for_each(|(_, value)| visit(value));
            if chunk.len() < 256 {
                break;
            }
        }
    };
    c.bench_function("stored 10000 items read", |b| b.iter(|| each(&mut |_| {})));
    c.bench_function("stored 10000 items decoded", |b| {
        b.iter(|| {
            let mut items = Vec::new();
            each(&mut |bytes| items.push(codec::decode(bytes).unwrap()));
            items
        })
    });
    c.bench_function("stored 10000 items written as JSON", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(1 << 20);
            each(&mut |bytes| {
                out.push(',');
                codec::write_json(bytes, &mut out).unwrap();
            });
            out.len()
        })
    });
}

criterion_group!(benches, bench, stored);
criterion_main!(benches);
