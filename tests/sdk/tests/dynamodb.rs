//! DynamoDB through the AWS SDK for Rust (awsJson1_0) against the real binary.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use stratus_sdk_tests::{long_term, Stratus};

fn client(stratus: &Stratus) -> Client {
    Client::new(&stratus.config(long_term()))
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

async fn create_table(ddb: &Client, name: &str) {
    ddb.create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("sk")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("sk")
                .key_type(KeyType::Range)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("CreateTable");
}

#[tokio::test]
async fn items_queries_and_conditions() {
    let stratus = Stratus::start();
    let ddb = client(&stratus);
    create_table(&ddb, "sdk-orders").await;
    for i in 0..10 {
        ddb.put_item()
            .table_name("sdk-orders")
            .item("pk", s("customer-1"))
            .item("sk", n(&i.to_string()))
            .item("amount", n(&format!("{}.50", i * 10)))
            .send()
            .await
            .expect("PutItem");
    }
    let got = ddb
        .get_item()
        .table_name("sdk-orders")
        .key("pk", s("customer-1"))
        .key("sk", n("3"))
        .send()
        .await
        .expect("GetItem");
    assert_eq!(got.item().unwrap()["amount"], n("30.5"), "numbers come back normalised");

    let page = ddb
        .query()
        .table_name("sdk-orders")
        .key_condition_expression("pk = :p AND sk BETWEEN :lo AND :hi")
        .expression_attribute_values(":p", s("customer-1"))
        .expression_attribute_values(":lo", n("2"))
        .expression_attribute_values(":hi", n("6"))
        .scan_index_forward(false)
        .limit(3)
        .send()
        .await
        .expect("Query");
    let keys: Vec<&AttributeValue> = page.items().iter().map(|i| &i["sk"]).collect();
    assert_eq!(keys, vec![&n("6"), &n("5"), &n("4")]);
    assert!(page.last_evaluated_key().is_some());

    let updated = ddb
        .update_item()
        .table_name("sdk-orders")
        .key("pk", s("customer-1"))
        .key("sk", n("3"))
        .update_expression("SET amount = amount + :d")
        .condition_expression("attribute_exists(pk)")
        .expression_attribute_values(":d", n("0.5"))
        .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew)
        .send()
        .await
        .expect("UpdateItem");
    assert_eq!(updated.attributes().unwrap()["amount"], n("31"));

    let err = ddb
        .put_item()
        .table_name("sdk-orders")
        .set_item(Some(HashMap::from([
            ("pk".to_string(), s("customer-1")),
            ("sk".to_string(), n("3")),
        ])))
        .condition_expression("attribute_not_exists(pk)")
        .send()
        .await
        .expect_err("the item exists");
    assert!(err.into_service_error().is_conditional_check_failed_exception());

    let err = ddb
        .describe_table()
        .table_name("absent")
        .send()
        .await
        .expect_err("no such table");
    assert!(err.into_service_error().is_resource_not_found_exception());
}

#[tokio::test]
async fn streams_serve_the_tables_changes() {
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
    use aws_sdk_dynamodbstreams::error::ProvideErrorMetadata;
    use aws_sdk_dynamodbstreams::types::{OperationType, ShardIteratorType, StreamStatus};

    let stratus = Stratus::start();
    let config = stratus.config(long_term());
    let ddb = Client::new(&config);
    let streams = aws_sdk_dynamodbstreams::Client::new(&config);
    create_table(&ddb, "sdk-streamed").await;
    let table = ddb
        .update_table()
        .table_name("sdk-streamed")
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewAndOldImages)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("UpdateTable");
    let arn = table
        .table_description()
        .unwrap()
        .latest_stream_arn()
        .unwrap()
        .to_string();
    for sk in ["1", "2"] {
        ddb.put_item()
            .table_name("sdk-streamed")
            .item("pk", s("p"))
            .item("sk", n(sk))
            .send()
            .await
            .expect("PutItem");
    }
    ddb.delete_item()
        .table_name("sdk-streamed")
        .key("pk", s("p"))
        .key("sk", n("1"))
        .send()
        .await
        .expect("DeleteItem");

    let listed = streams
        .list_streams()
        .table_name("sdk-streamed")
        .send()
        .await
        .expect("ListStreams");
    assert_eq!(listed.streams()[0].stream_arn(), Some(arn.as_str()));
    let described = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .expect("DescribeStream");
    let description = described.stream_description().unwrap();
    assert_eq!(description.stream_status(), Some(&StreamStatus::Enabled));
    let shard = description.shards()[0].shard_id().unwrap().to_string();
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(&shard)
        .shard_iterator_type(ShardIteratorType::TrimHorizon)
        .send()
        .await
        .expect("GetShardIterator");
    let page = streams
        .get_records()
        .shard_iterator(iterator.shard_iterator().unwrap())
        .send()
        .await
        .expect("GetRecords");
    let names: Vec<_> = page.records().iter().map(|r| r.event_name().unwrap().clone()).collect();
    assert_eq!(
        names,
        [OperationType::Insert, OperationType::Insert, OperationType::Remove]
    );
    let removed = page.records()[2].dynamodb().unwrap();
    assert_eq!(
        removed.old_image().unwrap()["sk"],
        aws_sdk_dynamodbstreams::types::AttributeValue::N("1".into())
    );
    assert!(removed.new_image().is_none());
    assert!(
        page.next_shard_iterator().is_some(),
        "an open shard always has a next iterator"
    );

    let err = streams
        .get_records()
        .shard_iterator("not-an-iterator")
        .send()
        .await
        .expect_err("garbage iterator");
    assert_eq!(err.code(), Some("ValidationException"));
    let err = streams
        .get_shard_iterator()
        .stream_arn(&arn)
        .shard_id(&shard)
        .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
        .send()
        .await
        .expect_err("no sequence number");
    assert_eq!(err.code(), Some("ValidationException"));
}

#[tokio::test]
async fn partiql_statements_batches_and_transactions() {
    let stratus = Stratus::start();
    let ddb = client(&stratus);
    create_table(&ddb, "partiql").await;
    ddb.execute_statement()
        .statement(r#"INSERT INTO "partiql" VALUE {'pk': ?, 'sk': 1, 'v': 'one'}"#)
        .parameters(s("a"))
        .send()
        .await
        .expect("INSERT");
    let duplicate = ddb
        .execute_statement()
        .statement(r#"INSERT INTO "partiql" VALUE {'pk': 'a', 'sk': 1}"#)
        .send()
        .await
        .unwrap_err();
    assert!(duplicate.into_service_error().is_duplicate_item_exception());
    let updated = ddb
        .execute_statement()
        .statement(r#"UPDATE "partiql" SET v = 'uno' WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"#)
        .send()
        .await
        .expect("UPDATE");
    assert_eq!(updated.items()[0]["v"], s("uno"));
    let batch = ddb
        .batch_execute_statement()
        .statements(
            aws_sdk_dynamodb::types::BatchStatementRequest::builder()
                .statement(r#"INSERT INTO "partiql" VALUE {'pk': 'b', 'sk': 2}"#)
                .build()
                .unwrap(),
        )
        .statements(
            aws_sdk_dynamodb::types::BatchStatementRequest::builder()
                .statement(r#"INSERT INTO "partiql" VALUE {'pk': 'a', 'sk': 1}"#)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("BatchExecuteStatement");
    assert!(batch.responses()[0].error().is_none());
    assert_eq!(
        batch.responses()[1].error().and_then(|e| e.code()),
        Some(&aws_sdk_dynamodb::types::BatchStatementErrorCodeEnum::DuplicateItem)
    );
    let cancelled = ddb
        .execute_transaction()
        .transact_statements(
            aws_sdk_dynamodb::types::ParameterizedStatement::builder()
                .statement(r#"DELETE FROM "partiql" WHERE pk = 'b' AND sk = 2"#)
                .build()
                .unwrap(),
        )
        .transact_statements(
            aws_sdk_dynamodb::types::ParameterizedStatement::builder()
                .statement(r#"UPDATE "partiql" SET v = 'x' WHERE pk = 'a' AND sk = 1 AND v = 'wrong'"#)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(e) =
        cancelled
    else {
        panic!("expected a cancelled transaction, got {cancelled:?}");
    };
    let codes: Vec<_> = e.cancellation_reasons().iter().filter_map(|r| r.code()).collect();
    assert_eq!(codes, ["None", "ConditionalCheckFailed"]);
    let all = ddb
        .execute_statement()
        .statement(r#"SELECT pk, sk FROM "partiql""#)
        .send()
        .await
        .expect("SELECT");
    assert_eq!(all.items().len(), 2, "the cancelled DELETE left its item");
}
