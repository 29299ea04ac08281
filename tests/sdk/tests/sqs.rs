//! SQS through the AWS SDK for Rust (awsJson1_0) against the real binary. The SDK checks the
//! MD5 digests of every body and attribute set it sends and receives.

use aws_sdk_sqs::types::{
    DeleteMessageBatchRequestEntry, MessageAttributeValue, MessageSystemAttributeName, QueueAttributeName,
    SendMessageBatchRequestEntry,
};
use aws_sdk_sqs::Client;
use stratus_sdk_tests::{long_term, Stratus};

fn client(stratus: &Stratus) -> Client {
    Client::new(&stratus.config(long_term()))
}

#[tokio::test]
async fn send_receive_delete_with_attributes_and_batches() {
    let stratus = Stratus::start();
    let sqs = client(&stratus);
    let url = sqs
        .create_queue()
        .queue_name("sdk-jobs")
        .attributes(QueueAttributeName::VisibilityTimeout, "5")
        .send()
        .await
        .expect("CreateQueue")
        .queue_url
        .expect("url");
    assert!(url.starts_with(&stratus.endpoint), "{url}");

    let attribute = MessageAttributeValue::builder()
        .data_type("Number")
        .string_value("42")
        .build()
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("hello")
        .message_attributes("answer", attribute)
        .send()
        .await
        .expect("SendMessage (the SDK verifies the digests)");
    let entries: Vec<_> = (0..10)
        .map(|i| {
            SendMessageBatchRequestEntry::builder()
                .id(format!("e{i}"))
                .message_body(format!("batch {i}"))
                .build()
                .unwrap()
        })
        .collect();
    let batch = sqs
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some(entries))
        .send()
        .await
        .expect("SendMessageBatch");
    assert_eq!(batch.successful.len(), 10);
    assert!(batch.failed.is_empty());

    let mut bodies = Vec::new();
    while bodies.len() < 11 {
        let got = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .message_attribute_names("All")
            .message_system_attribute_names(MessageSystemAttributeName::ApproximateReceiveCount)
            .wait_time_seconds(1)
            .send()
            .await
            .expect("ReceiveMessage (the SDK verifies the digests)");
        let messages = got.messages.unwrap_or_default();
        assert!(!messages.is_empty(), "messages lost after {bodies:?}");
        let deletes: Vec<_> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                DeleteMessageBatchRequestEntry::builder()
                    .id(format!("d{i}"))
                    .receipt_handle(m.receipt_handle().unwrap())
                    .build()
                    .unwrap()
            })
            .collect();
        for m in &messages {
            if m.body() == Some("hello") {
                let answer = &m.message_attributes.as_ref().unwrap()["answer"];
                assert_eq!(answer.string_value(), Some("42"));
            }
            bodies.push(m.body().unwrap().to_string());
        }
        let deleted = sqs
            .delete_message_batch()
            .queue_url(&url)
            .set_entries(Some(deletes))
            .send()
            .await
            .expect("DeleteMessageBatch");
        assert!(deleted.failed.is_empty());
    }
    bodies.sort();
    assert_eq!(bodies.len(), 11);
    assert!(bodies.contains(&"hello".to_string()));
}

#[tokio::test]
async fn refusals_are_typed_errors() {
    let stratus = Stratus::start();
    let sqs = client(&stratus);
    let err = sqs
        .get_queue_url()
        .queue_name("absent")
        .send()
        .await
        .expect_err("no such queue");
    assert!(err.into_service_error().is_queue_does_not_exist());

    let url = sqs
        .create_queue()
        .queue_name("sdk-fifo.fifo")
        .attributes(QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .expect("CreateQueue")
        .queue_url
        .unwrap();
    let err = sqs
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some(Vec::new()))
        .send()
        .await
        .expect_err("empty batch");
    assert!(err.into_service_error().is_empty_batch_request());
    let err = sqs
        .purge_queue()
        .queue_url(&url)
        .send()
        .await
        .and(sqs.purge_queue().queue_url(&url).send().await)
        .expect_err("second purge within a minute");
    assert!(err.into_service_error().is_purge_queue_in_progress());
}
