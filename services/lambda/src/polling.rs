//! The pollers of enabled event source mappings: one task per mapping, on the binary's
//! runtime, started when a mapping is created or enabled (and for every enabled mapping when
//! the service starts), stopped when it is disabled or deleted. A poller waits on the queue
//! (SQS's [`QueueSource`](stratus_core::service::QueueSource): woken by sends, no periodic
//! timer), gathers a batch by `BatchSize` and `MaximumBatchingWindowInSeconds` on the
//! scheduler's clock, deletes the messages no filter matches, invokes the function
//! synchronously with Lambda's SQS event, and deletes what succeeded. What failed is left to
//! its visibility timeout, so the queue's redrive policy applies.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Map, Value};
use stratus_core::service::capabilities::{MessageAttributeValue, ReceivedMessage};
use stratus_core::service::{Caller, QueueSource};
use stratus_core::AwsError;
use stratus_event_pattern::Pattern;
use tokio::sync::{watch, Semaphore};

use crate::invoke::Ran;
use crate::mappings::{MappingRecord, DEFAULT_CONCURRENCY, MAPPINGS};
use crate::names::FunctionRef;
use crate::service::{lock, LambdaService};

/// The running pollers by (account, region, UUID); dropping a sender stops its poller.
pub(crate) type Pollers = HashMap<(String, String, String), watch::Sender<()>>;

const PRINCIPAL: &str = "lambda.amazonaws.com";

impl LambdaService {
    /// Starts (or restarts with new settings) the poller of enabled mapping `mapping`.
    pub(crate) fn start_polling(&self, account: &str, region: &str, mapping: MappingRecord) {
        let (stop, stopped) = watch::channel(());
        if mapping.stream.is_some() {
            let key = (account.to_owned(), region.to_owned(), mapping.uuid.clone());
            lock(&self.shared.pollers).insert(key, stop);
            let work =
                crate::stream_polling::poll(self.clone(), account.to_owned(), region.to_owned(), mapping, stopped);
            self.shared.spawner.spawn(work);
            return;
        }
        let Some(queues) = self.shared.queues.clone() else {
            return;
        };
        let key = (account.to_owned(), region.to_owned(), mapping.uuid.clone());
        lock(&self.shared.pollers).insert(key, stop);
        let poller = Poller {
            lambda: self.clone(),
            queues,
            account: account.to_owned(),
            region: region.to_owned(),
            patterns: mapping.patterns(),
            mapping,
        };
        self.shared.spawner.spawn(poller.run(stopped));
    }

    /// Stops mapping `uuid`'s poller, if it runs; a batch being invoked finishes.
    pub(crate) fn stop_polling(&self, account: &str, region: &str, uuid: &str) {
        lock(&self.shared.pollers).remove(&(account.to_owned(), region.to_owned(), uuid.to_owned()));
    }

    /// Starts the pollers of the enabled mappings an earlier process left.
    pub(crate) fn resume_polling(&self) {
        let namespaces = match self.shared.storage.regional_namespaces("lambda") {
            Ok(namespaces) => namespaces,
            Err(e) => {
                tracing::error!(error = %e, "could not list Lambda's stores to resume event source mappings");
                return;
            }
        };
        for ns in namespaces {
            let Some(region) = ns.region else { continue };
            let mappings = self
                .store(&ns.account, &region)
                .and_then(|store| MAPPINGS.scan_prefix(&*store, b"").map_err(crate::error::storage));
            match mappings {
                Ok(mappings) => {
                    for (_, m) in mappings.into_iter().filter(|(_, m)| m.enabled) {
                        self.start_polling(&ns.account, &region, m);
                    }
                }
                Err(e) => tracing::error!(error = %e, "could not read event source mappings"),
            }
        }
    }
}

/// One mapping's poller.
struct Poller {
    lambda: LambdaService,
    queues: Arc<dyn QueueSource>,
    account: String,
    region: String,
    mapping: MappingRecord,
    patterns: Vec<Pattern>,
}

impl Poller {
    fn caller(&self) -> Caller<'_> {
        Caller::service(PRINCIPAL, &self.account, &self.region)
    }

    async fn run(self, mut stopped: watch::Receiver<()>) {
        let this = Arc::new(self);
        let concurrency = this.mapping.maximum_concurrency.unwrap_or(DEFAULT_CONCURRENCY);
        let slots = Arc::new(Semaphore::new(usize::try_from(concurrency).unwrap_or(1)));
        loop {
            let slot = tokio::select! {
                slot = slots.clone().acquire_owned() => slot,
                _ = stopped.changed() => return,
            };
            let Ok(slot) = slot else { return };
            let batch = tokio::select! {
                batch = this.gather() => batch,
                _ = stopped.changed() => return,
            };
            match batch {
                Ok(batch) => {
                    let poller = this.clone();
                    this.lambda.shared.spawner.spawn(async move {
                        poller.deliver(batch).await;
                        drop(slot);
                    });
                }
                Err(e) => {
                    tracing::warn!(mapping = %this.mapping.uuid, error = %e, "event source mapping stopped polling");
                    return;
                }
            }
        }
    }

    /// Waits for a message, then gathers up to `BatchSize` within the batching window.
    async fn gather(&self) -> Result<Vec<ReceivedMessage>, AwsError> {
        let source = &self.mapping.event_source_arn;
        let size = usize::try_from(self.mapping.batch_size).unwrap_or(1);
        let mut batch = self.queues.receive(self.caller(), source, size, None).await?;
        let window = u64::try_from(self.mapping.maximum_batching_window).unwrap_or(0);
        if window > 0 {
            let clock = self.lambda.shared.scheduler.clock();
            let deadline = clock.moment_after(Duration::from_secs(window));
            while batch.len() < size {
                let more = self
                    .queues
                    .receive(self.caller(), source, size - batch.len(), Some(deadline))
                    .await?;
                if more.is_empty() {
                    break;
                }
                // A message whose visibility timeout ended within the window comes again:
                // it is kept once, with its latest receipt handle.
                for m in more {
                    match batch.iter_mut().find(|b| b.message_id == m.message_id) {
                        Some(seen) => *seen = m,
                        None => batch.push(m),
                    }
                }
            }
        }
        Ok(batch)
    }

    /// Filters `batch`, invokes the function with what passes and deletes what is done.
    async fn deliver(&self, batch: Vec<ReceivedMessage>) {
        let source = &self.mapping.event_source_arn;
        let windowed = self.mapping.maximum_batching_window > 0;
        let records: Vec<Value> = batch
            .iter()
            .map(|m| record(m, source, &self.region, windowed))
            .collect();
        let (passed, filtered): (Vec<usize>, Vec<usize>) = (0..batch.len()).partition(|&i| {
            self.patterns.is_empty() || self.patterns.iter().any(|p| p.matches(&filterable(&records[i])))
        });
        let mut done: Vec<String> = filtered.iter().map(|&i| batch[i].receipt_handle.clone()).collect();
        if !passed.is_empty() {
            let event = json!({ "Records": passed.iter().map(|&i| records[i].clone()).collect::<Vec<_>>() });
            let succeeded = self.invoke(event.to_string().into_bytes()).await;
            let ids: Vec<&str> = passed.iter().map(|&i| batch[i].message_id.as_str()).collect();
            let failed = match succeeded {
                Some(payload) if self.mapping.report_batch_item_failures => failures(&payload, &ids),
                Some(_) => Some(Vec::new()),
                None => None,
            };
            if let Some(failed) = failed {
                done.extend(
                    passed
                        .iter()
                        .filter(|&&i| !failed.contains(&batch[i].message_id))
                        .map(|&i| batch[i].receipt_handle.clone()),
                );
            }
        }
        if !done.is_empty() {
            if let Err(e) = self.queues.delete(self.caller(), source, done).await {
                tracing::warn!(mapping = %self.mapping.uuid, error = %e, "could not delete a processed batch");
            }
        }
    }

    /// Runs the function on `payload`; its answer when it succeeded, `None` when it failed.
    async fn invoke(&self, payload: Vec<u8>) -> Option<Vec<u8>> {
        let ran = run_mapped(&self.lambda, &self.mapping, &self.account, &self.region, payload).await?;
        ran.function_error.is_none().then_some(ran.payload)
    }
}

/// Runs the function of `mapping` on `payload`: what ran, or `None` (logged) when it could not.
pub(crate) async fn run_mapped(
    lambda: &LambdaService,
    mapping: &MappingRecord,
    account: &str,
    region: &str,
    payload: Vec<u8>,
) -> Option<Ran> {
    let f = match FunctionRef::parse(&mapping.function_arn, None, account, region) {
        Ok(f) => f,
        Err(e) => {
            tracing::warn!(mapping = %mapping.uuid, error = %e, "the mapping's function cannot be named");
            return None;
        }
    };
    match lambda.run(&f, payload, None, &stratus_core::id::uuid()).await {
        Ok(ran) => Some(ran),
        Err(e) => {
            tracing::warn!(mapping = %mapping.uuid, error = %e.into_aws(), "the mapping's function did not run");
            None
        }
    }
}

/// One message as Lambda's SQS event carries it. A message without attributes has
/// `md5OfMessageAttributes: null` when the mapping has a batching window, and no such key when
/// it has none (so AWS's recordings of the same day show it).
fn record(m: &ReceivedMessage, source_arn: &str, region: &str, windowed: bool) -> Value {
    let mut attributes = Map::new();
    for (name, value) in &m.attributes {
        attributes.insert(name.clone(), Value::String(value.clone()));
    }
    let mut message_attributes = Map::new();
    for (name, a) in &m.message_attributes {
        let mut value = Map::new();
        match &a.value {
            MessageAttributeValue::String(s) => {
                value.insert("stringValue".into(), json!(s));
            }
            MessageAttributeValue::Binary(b) => {
                value.insert(
                    "binaryValue".into(),
                    json!(base64::engine::general_purpose::STANDARD.encode(b)),
                );
            }
        }
        value.insert("stringListValues".into(), json!([]));
        value.insert("binaryListValues".into(), json!([]));
        value.insert("dataType".into(), json!(a.data_type));
        message_attributes.insert(name.clone(), Value::Object(value));
    }
    let mut record = Map::new();
    record.insert("messageId".into(), json!(m.message_id));
    record.insert("receiptHandle".into(), json!(m.receipt_handle));
    record.insert("body".into(), json!(m.body));
    record.insert("attributes".into(), Value::Object(attributes));
    record.insert("messageAttributes".into(), Value::Object(message_attributes));
    if m.md5_of_message_attributes.is_some() || windowed {
        record.insert("md5OfMessageAttributes".into(), json!(m.md5_of_message_attributes));
    }
    record.insert("md5OfBody".into(), json!(m.md5_of_body));
    record.insert("eventSource".into(), json!("aws:sqs"));
    record.insert("eventSourceARN".into(), json!(source_arn));
    record.insert("awsRegion".into(), json!(region));
    Value::Object(record)
}

/// A record as filters see it: a body that is a JSON object is matched by its fields.
fn filterable(record: &Value) -> Value {
    let mut record = record.clone();
    let parsed = record["body"]
        .as_str()
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        .filter(Value::is_object);
    if let Some(body) = parsed {
        record["body"] = body;
    }
    record
}

/// The messages a `ReportBatchItemFailures` answer names as failed, or `None` when the
/// answer fails the whole batch. As Lambda's guide says: no answer, `null`, an empty object
/// or an empty or `null` `batchItemFailures` is success, and so is an empty list (recorded
/// against AWS); an answer that is not JSON, or an item whose `itemIdentifier` is missing,
/// empty, or not a message of the batch, fails it.
pub(crate) fn failures(payload: &[u8], ids: &[&str]) -> Option<Vec<String>> {
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Some(Vec::new());
    }
    let answer: Value = serde_json::from_slice(payload).ok()?;
    let items = match &answer {
        Value::Null => return Some(Vec::new()),
        Value::Array(items) if items.is_empty() => return Some(Vec::new()),
        Value::Object(o) => match o.get("batchItemFailures") {
            None | Some(Value::Null) => return Some(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(_) => return None,
        },
        _ => return None,
    };
    items
        .iter()
        .map(|item| {
            let id = item.get("itemIdentifier")?.as_str()?;
            ids.contains(&id).then(|| id.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use stratus_core::service::capabilities::MessageAttribute;
    use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

    use super::*;

    fn message() -> ReceivedMessage {
        ReceivedMessage {
            message_id: "m1".into(),
            receipt_handle: "h1".into(),
            body: r#"{"a": 1}"#.into(),
            md5_of_body: "x".into(),
            attributes: BTreeMap::from([("ApproximateReceiveCount".into(), "1".into())]),
            message_attributes: BTreeMap::from([(
                "Author".into(),
                MessageAttribute {
                    data_type: "String".into(),
                    value: MessageAttributeValue::String("J".into()),
                },
            )]),
            md5_of_message_attributes: Some("y".into()),
        }
    }

    #[test]
    fn records_have_the_sqs_event_shape() {
        let r = record(&message(), "arn:aws:sqs:us-east-1:000000000000:q", "us-east-1", false);
        assert_eq!(r["eventSource"], "aws:sqs");
        assert_eq!(r["eventSourceARN"], "arn:aws:sqs:us-east-1:000000000000:q");
        assert_eq!(r["body"], r#"{"a": 1}"#);
        assert_eq!(r["attributes"]["ApproximateReceiveCount"], "1");
        assert_eq!(r["messageAttributes"]["Author"]["stringValue"], "J");
        assert_eq!(r["messageAttributes"]["Author"]["stringListValues"], json!([]));
        assert_eq!(filterable(&r)["body"]["a"], 1);
        let plain = ReceivedMessage {
            message_attributes: BTreeMap::new(),
            md5_of_message_attributes: None,
            ..message()
        };
        assert_eq!(r["md5OfMessageAttributes"], "y");
        let windowed = record(&plain, "q", "r", true);
        assert_eq!(windowed.get("md5OfMessageAttributes"), Some(&Value::Null));
        assert_eq!(record(&plain, "q", "r", false).get("md5OfMessageAttributes"), None);
    }

    #[test]
    fn batch_item_failures_follow_lambdas_rules() {
        let ids = ["a", "b"];
        assert_eq!(failures(b"", &ids), Some(vec![]));
        assert_eq!(failures(b"null", &ids), Some(vec![]));
        assert_eq!(failures(b"{}", &ids), Some(vec![]));
        assert_eq!(failures(br#"{"batchItemFailures": []}"#, &ids), Some(vec![]));
        assert_eq!(failures(br#"{"batchItemFailures": null}"#, &ids), Some(vec![]));
        assert_eq!(
            failures(br#"{"batchItemFailures": [{"itemIdentifier": "b"}]}"#, &ids),
            Some(vec!["b".to_owned()])
        );
        assert_eq!(
            failures(br#"{"batchItemFailures": [{"itemIdentifier": ""}]}"#, &ids),
            None
        );
        assert_eq!(
            failures(br#"{"batchItemFailures": [{"itemIdentifier": "z"}]}"#, &ids),
            None
        );
        assert_eq!(failures(br#"{"batchItemFailures": [{"id": "a"}]}"#, &ids), None);
        assert_eq!(failures(b"not json", &ids), None);
    }

    /// The batch response parser never panics, whatever the function answers (seeded: a
    /// failure reproduces).
    #[test]
    fn any_answer_is_read_without_panicking() {
        let seeds: &[&[u8]] = &[
            br#"{"batchItemFailures": [{"itemIdentifier": "a"}, {"itemIdentifier": null}]}"#,
            br#"{"batchItemFailures": null}"#,
            br#"[{"itemIdentifier": "a"}]"#,
        ];
        let mut rng = Rng(18);
        for i in 0..2000 {
            let payload = fuzz_input(&mut rng, i, seeds, JSON_TOKENS, 24);
            if let Some(failed) = failures(&payload, &["a", "b"]) {
                assert!(failed.iter().all(|id| id == "a" || id == "b"));
            }
        }
    }
}
