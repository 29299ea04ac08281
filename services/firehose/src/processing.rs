//! A destination's `ProcessingConfiguration`, applied to a batch before it is delivered, in
//! the order the records go through them: `Decompression` (GZIP), `CloudWatchLogProcessing`
//! (`DataMessageExtraction`: each log event's message becomes a record, control messages are
//! dropped), `RecordDeAggregation` (`JSON` or `DELIMITED`), `Lambda`, `MetadataExtraction`
//! (dynamic partitioning's inline parsing, [`crate::jq`]) and `AppendDelimiterToRecord`.
//!
//! The Lambda processor keeps AWS's transformation contract ("Data transformation and status
//! model" in the Firehose developer guide): the function gets `{invocationId,
//! deliveryStreamArn, region, records: [{recordId, approximateArrivalTimestamp, data}]}` (with
//! `sourceKinesisStreamArn` and each record's `kinesisRecordMetadata` for a Kinesis source),
//! and answers each record by its `recordId` with `result` `Ok` (its new `data`, and
//! `metadata.partitionKeys` for dynamic partitioning), `Dropped` or `ProcessingFailed`. A
//! failed invocation is retried `NumberOfRetries` times (3); records it could not process
//! and those it failed go to the error prefix as `processing-failed`.

use std::collections::{BTreeMap, HashSet};
use std::io::Read;

use base64::Engine;
use serde_json::{json, Value};
use stratus_core::service::capabilities::{Invocation, InvocationType};
use stratus_core::service::Caller;

use crate::buffer::{Buffered, KinesisMeta};
use crate::destination::ProcessorSettings;
use crate::jq::Query;
use crate::service::FirehoseService;

/// The principal Firehose acts as.
pub(crate) const FIREHOSE_PRINCIPAL: &str = "firehose.amazonaws.com";
/// The default `NumberOfRetries` of the Lambda processor.
const LAMBDA_RETRIES: u32 = 3;
/// The default `BufferSizeInMBs` of the Lambda processor: the data one invocation carries.
const LAMBDA_BATCH_BYTES: usize = 1024 * 1024;
/// Lambda's synchronous payload limit is 6 MB; base64 makes data a third larger.
const LAMBDA_MOST_BYTES: usize = 4 * 1024 * 1024;

/// A record on its way through the processors.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub(crate) arrival_ms: i64,
    pub(crate) data: Vec<u8>,
    /// What the record was when it arrived, for error records.
    pub(crate) raw: Vec<u8>,
    pub(crate) query_keys: Option<BTreeMap<String, String>>,
    pub(crate) lambda_keys: Option<BTreeMap<String, String>>,
    /// Where in a Kinesis stream the record was read, for a stream fed by one.
    pub(crate) kinesis: Option<KinesisMeta>,
}

/// A record that failed, on its way to the error prefix.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failed {
    pub(crate) arrival_ms: i64,
    pub(crate) raw: Vec<u8>,
    /// The `error-output-type` its prefix is evaluated with.
    pub(crate) output_type: &'static str,
    pub(crate) code: String,
    pub(crate) message: String,
    pub(crate) attempts: u32,
    pub(crate) lambda_arn: Option<String>,
}

impl Failed {
    fn of(item: &Item, output_type: &'static str, code: &str, message: &str) -> Failed {
        Failed {
            arrival_ms: item.arrival_ms,
            raw: item.raw.clone(),
            output_type,
            code: code.to_owned(),
            message: message.to_owned(),
            attempts: 0,
            lambda_arn: None,
        }
    }

    /// The JSON line an error object holds for it.
    pub(crate) fn line(&self, ended_ms: i64) -> String {
        let mut line = json!({
            "attemptsMade": self.attempts,
            "arrivalTimestamp": self.arrival_ms,
            "errorCode": self.code,
            "errorMessage": self.message,
            "attemptEndingTimestamp": ended_ms,
            "rawData": base64::engine::general_purpose::STANDARD.encode(&self.raw),
        });
        if let Some(arn) = &self.lambda_arn {
            line["lambdaArn"] = json!(arn);
        }
        line.to_string()
    }
}

/// What came out of the processors.
#[derive(Debug, Default)]
pub(crate) struct Processed {
    pub(crate) items: Vec<Item>,
    pub(crate) failed: Vec<Failed>,
}

/// The stream a batch belongs to, as processors see it.
pub(crate) struct Source<'a> {
    pub(crate) account: &'a str,
    pub(crate) region: &'a str,
    pub(crate) stream_arn: &'a str,
    pub(crate) kinesis_arn: Option<&'a str>,
    pub(crate) batch: &'a str,
}

const ORDER: [&str; 6] = [
    "Decompression",
    "CloudWatchLogProcessing",
    "RecordDeAggregation",
    "Lambda",
    "MetadataExtraction",
    "AppendDelimiterToRecord",
];

/// Runs `records` through `processors`.
pub(crate) async fn process(
    firehose: &FirehoseService,
    source: &Source<'_>,
    processors: &[ProcessorSettings],
    records: &[Buffered],
) -> Processed {
    let mut out = Processed {
        items: records
            .iter()
            .map(|r| Item {
                arrival_ms: r.arrival_ms,
                data: r.data.clone(),
                raw: r.data.clone(),
                query_keys: None,
                lambda_keys: None,
                kinesis: r.kinesis.clone(),
            })
            .collect(),
        failed: Vec::new(),
    };
    for kind in ORDER {
        for processor in processors.iter().filter(|p| p.kind == kind) {
            let items = std::mem::take(&mut out.items);
            let (items, failed) = match kind {
                "Decompression" => each(items, decompress),
                "CloudWatchLogProcessing" if processor.parameter("DataMessageExtraction") == Some("true") => {
                    (items.into_iter().flat_map(extract_log_messages).collect(), Vec::new())
                }
                "RecordDeAggregation" => (deaggregate(items, processor), Vec::new()),
                "Lambda" => lambda(firehose, source, processor, items).await,
                "MetadataExtraction" => match processor.parameter("MetadataExtractionQuery").map(Query::parse) {
                    Some(Ok(query)) => each(items, |item| extract_keys(item, &query)),
                    _ => (items, Vec::new()),
                },
                "AppendDelimiterToRecord" => {
                    let delimiter = processor
                        .parameter("Delimiter")
                        .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok())
                        .unwrap_or_else(|| b"\n".to_vec());
                    let appended = items
                        .into_iter()
                        .map(|mut item| {
                            item.data.extend_from_slice(&delimiter);
                            item
                        })
                        .collect();
                    (appended, Vec::new())
                }
                _ => (items, Vec::new()),
            };
            out.items = items;
            out.failed.extend(failed);
        }
    }
    out
}

/// Applies `step` to each item, keeping those it fails apart.
fn each(items: Vec<Item>, mut step: impl FnMut(Item) -> Result<Item, Box<Failed>>) -> (Vec<Item>, Vec<Failed>) {
    let mut kept = Vec::with_capacity(items.len());
    let mut failed = Vec::new();
    for item in items {
        match step(item) {
            Ok(item) => kept.push(item),
            Err(f) => failed.push(*f),
        }
    }
    (kept, failed)
}

fn decompress(mut item: Item) -> Result<Item, Box<Failed>> {
    let mut data = Vec::new();
    match flate2::read::GzDecoder::new(&item.data[..]).read_to_end(&mut data) {
        Ok(_) => {
            item.data = data;
            Ok(item)
        }
        Err(e) => Err(Box::new(Failed::of(
            &item,
            "processing-failed",
            "Decompression.Failed",
            &format!("The record could not be decompressed as GZIP: {e}"),
        ))),
    }
}

/// A CloudWatch Logs `DATA_MESSAGE`'s events as records of their own; a control message
/// yields none. Records that are not a Logs message pass unchanged.
fn extract_log_messages(item: Item) -> Vec<Item> {
    let Ok(message) = serde_json::from_slice::<Value>(&item.data) else {
        return vec![item];
    };
    match message["messageType"].as_str() {
        Some("CONTROL_MESSAGE") => Vec::new(),
        Some("DATA_MESSAGE") => message["logEvents"]
            .as_array()
            .map(|events| {
                events
                    .iter()
                    .filter_map(|e| e["message"].as_str())
                    .map(|text| Item {
                        data: text.as_bytes().to_vec(),
                        ..item.clone()
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![item],
    }
}

/// The records aggregated in each item: concatenated JSON documents (`SubRecordType`
/// `JSON`), or pieces between `Delimiter`s (`DELIMITED`, the delimiter base64-encoded).
fn deaggregate(items: Vec<Item>, processor: &ProcessorSettings) -> Vec<Item> {
    let delimited = processor.parameter("SubRecordType") == Some("DELIMITED");
    let delimiter = processor
        .parameter("Delimiter")
        .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok())
        .filter(|d| !d.is_empty());
    items
        .into_iter()
        .flat_map(|item| {
            let pieces: Vec<Vec<u8>> = match (&delimiter, delimited) {
                (Some(delimiter), true) => split(&item.data, delimiter),
                (None, true) => vec![item.data.clone()],
                (_, false) => json_documents(&item.data).unwrap_or_else(|| vec![item.data.clone()]),
            };
            pieces.into_iter().map(move |data| Item { data, ..item.clone() })
        })
        .collect()
}

fn split(data: &[u8], delimiter: &[u8]) -> Vec<Vec<u8>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at + delimiter.len() <= data.len() {
        if &data[at..at + delimiter.len()] == delimiter {
            pieces.push(data[start..at].to_vec());
            at += delimiter.len();
            start = at;
        } else {
            at += 1;
        }
    }
    if start < data.len() {
        pieces.push(data[start..].to_vec());
    }
    pieces
}

/// Each JSON document in `data`, as its own bytes; `None` when `data` is not a run of them.
fn json_documents(data: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut stream = serde_json::Deserializer::from_slice(data).into_iter::<serde::de::IgnoredAny>();
    let mut pieces = Vec::new();
    let mut start = 0;
    while let Some(next) = stream.next() {
        next.ok()?;
        let end = stream.byte_offset();
        let piece = data[start..end].trim_ascii();
        if !piece.is_empty() {
            pieces.push(piece.to_vec());
        }
        start = end;
    }
    Some(pieces)
}

fn extract_keys(mut item: Item, query: &Query) -> Result<Item, Box<Failed>> {
    let failed = |message: &str| {
        Box::new(Failed::of(
            &item,
            "partitioning-failed",
            "DynamicPartitioning.MetadataExtractionFailed",
            message,
        ))
    };
    let Ok(record) = serde_json::from_slice::<Value>(&item.data) else {
        return Err(failed("Non JSON record provided"));
    };
    match query.evaluate(&record) {
        Ok(keys) => {
            item.query_keys = Some(keys);
            Ok(item)
        }
        Err(e) => Err(failed(&e.0)),
    }
}

/// Runs `items` through the function of a `Lambda` processor, in invocations of up to
/// `BufferSizeInMBs`.
async fn lambda(
    firehose: &FirehoseService,
    source: &Source<'_>,
    processor: &ProcessorSettings,
    items: Vec<Item>,
) -> (Vec<Item>, Vec<Failed>) {
    let Some(arn) = processor.parameter("LambdaArn").map(str::to_owned) else {
        return (items, Vec::new());
    };
    let retries = processor
        .parameter("NumberOfRetries")
        .and_then(|n| n.parse().ok())
        .unwrap_or(LAMBDA_RETRIES);
    let batch_bytes = processor
        .parameter("BufferSizeInMBs")
        .and_then(|n| n.parse::<f64>().ok())
        .map_or(LAMBDA_BATCH_BYTES, |mb| (mb * 1024.0 * 1024.0) as usize)
        .clamp(1, LAMBDA_MOST_BYTES);
    let mut kept = Vec::new();
    let mut failed = Vec::new();
    let mut chunk: Vec<Item> = Vec::new();
    let mut chunk_bytes = 0;
    let mut invocation = 0;
    let mut items = items.into_iter().peekable();
    while let Some(item) = items.next() {
        chunk_bytes += item.data.len();
        chunk.push(item);
        let full = chunk_bytes >= batch_bytes
            || items
                .peek()
                .is_some_and(|next| chunk_bytes + next.data.len() > LAMBDA_MOST_BYTES);
        if full || items.peek().is_none() {
            let (ok, bad) = invoke(firehose, source, &arn, retries, std::mem::take(&mut chunk), invocation).await;
            kept.extend(ok);
            failed.extend(bad);
            chunk_bytes = 0;
            invocation += 1;
        }
    }
    (kept, failed)
}

/// A record id for the transformation event: Kinesis-like digits, unique in the batch.
fn record_id(batch: &str, invocation: usize, index: usize) -> String {
    let digest = crate::naming::derived_uuid(batch, &format!("lambda-{invocation}"));
    let digits: String = digest
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|b| char::from(b'0' + b % 10))
        .collect();
    format!("49{}{index:022}", &digits[..32])
}

async fn invoke(
    firehose: &FirehoseService,
    source: &Source<'_>,
    arn: &str,
    retries: u32,
    chunk: Vec<Item>,
    invocation: usize,
) -> (Vec<Item>, Vec<Failed>) {
    let ids: Vec<String> = (0..chunk.len())
        .map(|i| record_id(source.batch, invocation, i))
        .collect();
    let events: Vec<Value> = chunk
        .iter()
        .zip(&ids)
        .map(|(item, id)| {
            let mut record = json!({
                "recordId": id,
                "approximateArrivalTimestamp": item.arrival_ms,
                "data": base64::engine::general_purpose::STANDARD.encode(&item.data),
            });
            if let Some(k) = &item.kinesis {
                record["kinesisRecordMetadata"] = json!({
                    "shardId": k.shard_id,
                    "partitionKey": k.partition_key,
                    "approximateArrivalTimestamp": k.arrival_ms,
                    "sequenceNumber": k.sequence_number,
                    "subsequenceNumber": 0,
                });
            }
            record
        })
        .collect();
    let mut event = json!({
        "invocationId": crate::naming::derived_uuid(source.batch, &format!("invocation-{invocation}")),
        "deliveryStreamArn": source.stream_arn,
        "region": source.region,
        "records": events,
    });
    if let Some(kinesis) = source.kinesis_arn {
        event["sourceKinesisStreamArn"] = json!(kinesis);
    }
    let payload = event.to_string().into_bytes();
    let all_failed = |code: &str, message: &str, attempts: u32| {
        let failed = chunk
            .iter()
            .map(|item| Failed {
                attempts,
                lambda_arn: Some(arn.to_owned()),
                ..Failed::of(item, "processing-failed", code, message)
            })
            .collect();
        (Vec::new(), failed)
    };
    let Some(functions) = firehose.shared.functions.as_deref() else {
        return all_failed(
            "Lambda.ResourceNotFound",
            "The specified Lambda function does not exist. Use a different function that does exist.",
            1,
        );
    };
    let caller = Caller::service(FIREHOSE_PRINCIPAL, source.account, source.region);
    let mut attempts = 0;
    let answer = loop {
        attempts += 1;
        let call = Invocation {
            function: arn.to_owned(),
            qualifier: None,
            invocation_type: InvocationType::RequestResponse,
            payload: payload.clone(),
            source_arn: None,
        };
        match functions.invoke(caller, call).await {
            Ok(result) if result.function_error.is_none() => break result.payload,
            Ok(_) if attempts <= retries => continue,
            Ok(_) => {
                return all_failed(
                    "Lambda.FunctionError",
                    "The Lambda function was successfully invoked but it returned an error result.",
                    attempts,
                )
            }
            Err(e) if e.code == "ResourceNotFoundException" => {
                return all_failed(
                    "Lambda.ResourceNotFound",
                    "The specified Lambda function does not exist. Use a different function that does exist.",
                    attempts,
                )
            }
            Err(_) if attempts <= retries => continue,
            Err(e) => return all_failed("Lambda.InvokeError", &e.message, attempts),
        }
    };
    match transformed(&answer, &ids) {
        Ok(results) => {
            let mut kept = Vec::new();
            let mut failed = Vec::new();
            for (mut item, result) in chunk.into_iter().zip(results) {
                match result {
                    Transformed::Ok { data, partition_keys } => {
                        item.data = data;
                        if partition_keys.is_some() {
                            item.lambda_keys = partition_keys;
                        }
                        kept.push(item);
                    }
                    Transformed::Dropped => {}
                    Transformed::Failed => failed.push(Failed {
                        attempts,
                        lambda_arn: Some(arn.to_owned()),
                        ..Failed::of(
                            &item,
                            "processing-failed",
                            "Lambda.ProcessingFailedStatus",
                            "ProcessingFailed status set for record",
                        )
                    }),
                }
            }
            (kept, failed)
        }
        Err((code, message)) => all_failed(code, message, attempts),
    }
}

/// One record as the function answered it.
#[derive(Debug, PartialEq)]
enum Transformed {
    Ok {
        data: Vec<u8>,
        partition_keys: Option<BTreeMap<String, String>>,
    },
    Dropped,
    Failed,
}

/// The function's answer for each of `ids`, in their order; the error code and message
/// Firehose reports when the answer breaks the contract.
fn transformed(answer: &[u8], ids: &[String]) -> Result<Vec<Transformed>, (&'static str, &'static str)> {
    const UNPARSABLE: (&str, &str) = (
        "Lambda.JsonProcessingException",
        "There was an error parsing returned records from the Lambda function. Ensure that the returned records follow the status model required by Kinesis Data Firehose.",
    );
    let answer: Value = serde_json::from_slice(answer).map_err(|_| UNPARSABLE)?;
    let records = answer["records"].as_array().ok_or(UNPARSABLE)?;
    let mut by_id = BTreeMap::new();
    let mut seen = HashSet::new();
    for record in records {
        let id = record["recordId"].as_str().ok_or(UNPARSABLE)?;
        if !seen.insert(id) {
            return Err((
                "Lambda.DuplicatedRecordId",
                "Multiple records were returned with the same record ID. Ensure that the Lambda function returns unique record IDs for each record.",
            ));
        }
        let result = match record["result"].as_str() {
            Some("Ok") => {
                let data = record["data"].as_str().ok_or(UNPARSABLE)?;
                let data = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|_| UNPARSABLE)?;
                let partition_keys = record["metadata"]["partitionKeys"].as_object().map(|keys| {
                    keys.iter()
                        .filter_map(|(k, v)| match v {
                            Value::String(s) => Some((k.clone(), s.clone())),
                            Value::Number(n) => Some((k.clone(), n.to_string())),
                            Value::Bool(b) => Some((k.clone(), b.to_string())),
                            _ => None,
                        })
                        .collect()
                });
                Transformed::Ok { data, partition_keys }
            }
            Some("Dropped") => Transformed::Dropped,
            Some("ProcessingFailed") => Transformed::Failed,
            _ => return Err(UNPARSABLE),
        };
        by_id.insert(id.to_owned(), result);
    }
    ids.iter()
        .map(|id| {
            by_id.remove(id).ok_or((
                "Lambda.MissingRecordId",
                "One or more record IDs were not returned. Ensure that the Lambda function returns all received record IDs.",
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::destination::Parameter;

    fn item(data: &[u8]) -> Item {
        Item {
            arrival_ms: 5,
            data: data.to_vec(),
            raw: data.to_vec(),
            query_keys: None,
            lambda_keys: None,
            kinesis: None,
        }
    }

    fn processor(kind: &str, parameters: &[(&str, &str)]) -> ProcessorSettings {
        ProcessorSettings {
            kind: kind.into(),
            parameters: parameters
                .iter()
                .map(|(n, v)| Parameter {
                    parameter_name: (*n).into(),
                    parameter_value: (*v).into(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_function_answers_each_record_by_its_id() {
        let ids = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let answer = json!({"records": [
            {"recordId": "c", "result": "ProcessingFailed", "data": ""},
            {"recordId": "a", "result": "Ok", "data": "eA==", "metadata": {"partitionKeys": {"k": "v", "n": 3}}},
            {"recordId": "b", "result": "Dropped"},
        ]});
        let results = transformed(answer.to_string().as_bytes(), &ids).unwrap();
        assert_eq!(
            results,
            [
                Transformed::Ok {
                    data: b"x".to_vec(),
                    partition_keys: Some(BTreeMap::from([("k".into(), "v".into()), ("n".into(), "3".into())])),
                },
                Transformed::Dropped,
                Transformed::Failed,
            ]
        );
    }

    #[test]
    fn answers_breaking_the_contract_fail_the_invocation_in_firehoses_terms() {
        let ids = vec!["a".to_owned(), "b".to_owned()];
        let missing = json!({"records": [{"recordId": "a", "result": "Ok", "data": ""}]});
        assert_eq!(
            transformed(missing.to_string().as_bytes(), &ids).unwrap_err().0,
            "Lambda.MissingRecordId"
        );
        let twice = json!({"records": [
            {"recordId": "a", "result": "Dropped"}, {"recordId": "a", "result": "Dropped"},
        ]});
        assert_eq!(
            transformed(twice.to_string().as_bytes(), &ids).unwrap_err().0,
            "Lambda.DuplicatedRecordId"
        );
        for bad in [
            &b"not json"[..],
            b"{}",
            br#"{"records":[{"recordId":"a","result":"Maybe"}]}"#,
        ] {
            assert_eq!(transformed(bad, &ids).unwrap_err().0, "Lambda.JsonProcessingException");
        }
    }

    #[test]
    fn aggregated_records_split_into_their_documents_or_pieces() {
        let json = processor("RecordDeAggregation", &[("SubRecordType", "JSON")]);
        let items = deaggregate(vec![item(br#"{"a":1} {"b":[2]}{"c":"}"}"#)], &json);
        let data: Vec<&[u8]> = items.iter().map(|i| i.data.as_slice()).collect();
        assert_eq!(data, [&br#"{"a":1}"#[..], br#"{"b":[2]}"#, br#"{"c":"}"}"#]);
        // "####", base64-encoded, as the guide's example.
        let delimited = processor(
            "RecordDeAggregation",
            &[("SubRecordType", "DELIMITED"), ("Delimiter", "IyMjIw==")],
        );
        let items = deaggregate(vec![item(b"one####two####")], &delimited);
        let data: Vec<&[u8]> = items.iter().map(|i| i.data.as_slice()).collect();
        assert_eq!(data, [&b"one"[..], b"two"]);
        assert_eq!(deaggregate(vec![item(b"{broken")], &json)[0].data, b"{broken");
    }

    #[test]
    fn log_messages_are_extracted_and_control_messages_dropped() {
        let data = json!({"messageType": "DATA_MESSAGE", "logEvents": [{"message": "one"}, {"message": "two"}]});
        let out = extract_log_messages(item(data.to_string().as_bytes()));
        assert_eq!(
            out.iter().map(|i| i.data.as_slice()).collect::<Vec<_>>(),
            [&b"one"[..], b"two"]
        );
        let control = json!({"messageType": "CONTROL_MESSAGE", "logEvents": [{"message": "CWL CONTROL MESSAGE"}]});
        assert!(extract_log_messages(item(control.to_string().as_bytes())).is_empty());
    }

    #[test]
    fn inline_parsing_keys_records_and_fails_those_it_cannot_read() {
        let query = Query::parse("{customer: .customer}").unwrap();
        let (kept, failed) = each(vec![item(br#"{"customer":"c1"}"#), item(b"plain text")], |i| {
            extract_keys(i, &query)
        });
        assert_eq!(kept[0].query_keys.as_ref().unwrap()["customer"], "c1");
        assert_eq!(failed[0].code, "DynamicPartitioning.MetadataExtractionFailed");
        let line: Value = serde_json::from_str(&failed[0].line(9)).unwrap();
        assert_eq!(line["rawData"], "cGxhaW4gdGV4dA==");
        assert_eq!(line["attemptEndingTimestamp"], 9);
    }

    #[test]
    fn record_ids_are_unique_digits() {
        let a = record_id("batch", 0, 0);
        assert_eq!(a.len(), 56);
        assert!(a.bytes().all(|b| b.is_ascii_digit()));
        assert_ne!(a, record_id("batch", 0, 1));
        assert_ne!(a, record_id("batch", 1, 0));
    }
}
