//! One attempt at delivering a batch: to S3 (objects named and compressed as the destination
//! says, one per partition under dynamic partitioning, failed records to the error prefix,
//! the source records to the backup bucket when `S3BackupMode` is `Enabled`), or to an HTTP
//! endpoint (AWS's request and response contract, retried within
//! `RetryOptions.DurationInSeconds`, then the records to the S3 backup as
//! `http-endpoint-failed`).
//!
//! S3 writes that fail (a missing bucket above all) are retried every 5 seconds for up to
//! 24 hours, after which the records are dropped, as Firehose does ("Data delivery failure
//! handling" in the developer guide).

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use stratus_core::service::{Caller, ObjectToPut};

use crate::buffer::{Batch, Buffered};
use crate::compression::Compression;
use crate::destination::{bucket_of, HttpSettings, S3Settings};
use crate::naming::{derived_uuid, object_key, random_string};
use crate::prefix::{Prefixes, Values};
use crate::processing::{process, Failed, Item, Source, FIREHOSE_PRINCIPAL};
use crate::records::StreamRecord;
use crate::service::FirehoseService;

/// How long after a failed S3 write Firehose tries again.
const S3_RETRY_MS: i64 = 5_000;
/// How long Firehose keeps data it cannot write to S3.
const S3_KEEP_MS: i64 = 24 * 3_600_000;
/// How long an HTTP endpoint has to answer (the specification's 3 minutes).
const HTTP_ANSWER_WITHIN: Duration = Duration::from_secs(180);
/// The longest wait between attempts at an HTTP endpoint.
const HTTP_MAX_BACKOFF_MS: i64 = 120_000;
/// The most records one request to an HTTP endpoint carries.
pub(crate) const HTTP_MOST_RECORDS: usize = 10_000;

/// What came of an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Delivered, or given up on: the batch leaves the buffer.
    Done,
    /// Try again at this moment (the batch records how it went).
    Retry(i64),
}

/// A batch and the stream it belongs to.
pub(crate) struct Job<'a> {
    pub(crate) account: &'a str,
    pub(crate) region: &'a str,
    pub(crate) stream: &'a StreamRecord,
    pub(crate) records: &'a [Buffered],
}

impl Job<'_> {
    fn source<'b>(&'b self, batch: &'b Batch) -> Source<'b> {
        Source {
            account: self.account,
            region: self.region,
            stream_arn: &self.stream.arn,
            kinesis_arn: self.stream.kinesis.as_ref().map(|k| k.stream_arn.as_str()),
            batch: &batch.id,
        }
    }

    fn oldest_ms(&self) -> i64 {
        self.records.iter().map(|r| r.arrival_ms).min().unwrap_or_default()
    }
}

/// The objects one attempt writes.
struct Writes<'a> {
    firehose: &'a FirehoseService,
    job: &'a Job<'a>,
    batch: &'a Batch,
}

impl Writes<'_> {
    async fn put(&self, bucket_arn: &str, key: String, body: Vec<u8>) -> Result<(), (String, String)> {
        let Some(objects) = self.firehose.shared.objects.as_deref() else {
            return Err(no_such_bucket());
        };
        let object = ObjectToPut {
            bucket: bucket_of(bucket_arn).to_owned(),
            key,
            body,
            content_type: Some("application/octet-stream".to_owned()),
            content_encoding: None,
        };
        let caller = Caller::service(FIREHOSE_PRINCIPAL, self.job.account, self.job.region);
        objects.put_object(caller, object).await.map_err(|e| match e.code.as_str() {
            "NoSuchBucket" => no_such_bucket(),
            "AccessDenied" => (
                "S3.AccessDenied".to_owned(),
                "Access was denied. Ensure that the trust policy for the provided IAM role allows Firehose to assume the role, and the access policy allows access to the S3 bucket.".to_owned(),
            ),
            _ => (format!("S3.{}", e.code), e.message),
        })
    }

    /// A fresh `random-string` for each use, the same again when the batch is retried.
    fn randoms(&self, purpose: &str) -> impl FnMut() -> String + '_ {
        let mut n = 0;
        let batch = self.batch.id.clone();
        let purpose = purpose.to_owned();
        move || {
            n += 1;
            random_string(&batch, &format!("{purpose}-random-{n}"))
        }
    }

    fn key(&self, prefix: &str, purpose: &str, extension: &str) -> String {
        object_key(
            prefix,
            &self.job.stream.name,
            self.job.stream.version,
            self.batch.started_ms,
            &derived_uuid(&self.batch.id, purpose),
            extension,
        )
    }

    /// The error objects of `failed`, one per error output type, under `s3`'s error prefix
    /// (`dynamic` when the destination partitions dynamically).
    async fn errors(&self, s3: &S3Settings, failed: &[Failed], dynamic: bool) -> Result<(), (String, String)> {
        let prefixes = prefixes_of(s3, dynamic);
        let mut by_type: BTreeMap<&str, Vec<&Failed>> = BTreeMap::new();
        for f in failed {
            by_type.entry(f.output_type).or_default().push(f);
        }
        let now = self.firehose.now_ms();
        for (output_type, failed) in by_type {
            let oldest = failed.iter().map(|f| f.arrival_ms).min().unwrap_or_default();
            let prefix = prefixes.error(output_type, oldest, &mut self.randoms(output_type));
            let body: String = failed.iter().map(|f| f.line(now) + "\n").collect();
            let key = self.key(&prefix, &format!("errors-{output_type}"), "");
            self.put(&s3.bucket_arn, key, body.into_bytes()).await?;
        }
        Ok(())
    }

    /// The records as they came, to `backup` (the source record backup).
    async fn backup(&self, backup: &S3Settings) -> Result<(), (String, String)> {
        let prefixes = prefixes_of(backup, false);
        let values = Values {
            arrival_ms: self.job.oldest_ms(),
            ..Values::default()
        };
        let prefix = prefixes.data(&values, &mut self.randoms("backup")).unwrap_or_default();
        let compression = Compression::named(backup.compression_format.as_deref());
        let data: Vec<u8> = self.job.records.iter().flat_map(|r| r.data.iter().copied()).collect();
        let key = self.key(&prefix, "backup", compression.extension());
        let body = compression.compress(&data, &key);
        self.put(&backup.bucket_arn, key, body).await
    }
}

fn no_such_bucket() -> (String, String) {
    (
        "S3.NoSuchBucket".to_owned(),
        "The specified bucket does not exist. Create the bucket or use a different bucket that does exist.".to_owned(),
    )
}

fn prefixes_of(s3: &S3Settings, dynamic: bool) -> Prefixes {
    Prefixes::parse(s3.prefix.as_deref(), s3.error_output_prefix.as_deref(), dynamic).unwrap_or_default()
}

/// Counts a failed S3 write: tried again in 5 seconds, or given up after 24 hours.
fn s3_failed(firehose: &FirehoseService, job: &Job<'_>, batch: &mut Batch, error: (String, String)) -> Outcome {
    let now = firehose.now_ms();
    batch.attempts += 1;
    batch.failing_since_ms.get_or_insert(now);
    if now - job.oldest_ms() >= S3_KEEP_MS {
        tracing::warn!(stream = %job.stream.arn, code = %error.0, "firehose: records older than 24 hours dropped");
        return Outcome::Done;
    }
    tracing::warn!(stream = %job.stream.arn, code = %error.0, message = %error.1, "firehose: delivery to S3 failed; retrying");
    batch.last_error = Some(error);
    batch.due_ms = now + S3_RETRY_MS;
    Outcome::Retry(batch.due_ms)
}

/// One attempt at delivering `batch` to an S3 destination.
pub(crate) async fn to_s3(firehose: &FirehoseService, job: &Job<'_>, s3: &S3Settings, batch: &mut Batch) -> Outcome {
    let writes = Writes {
        firehose,
        job,
        batch: &batch.clone(),
    };
    match s3_objects(&writes, s3).await {
        Ok(()) => Outcome::Done,
        Err(error) => s3_failed(firehose, job, batch, error),
    }
}

async fn s3_objects(writes: &Writes<'_>, s3: &S3Settings) -> Result<(), (String, String)> {
    let job = writes.job;
    if s3.s3_backup_mode.as_deref() == Some("Enabled") {
        if let Some(backup) = &s3.s3_backup_description {
            writes.backup(backup).await?;
        }
    }
    let processors = s3.processing_configuration.as_ref().map_or(&[][..], |p| p.active());
    let processed = process(writes.firehose, &job.source(writes.batch), processors, job.records).await;
    let dynamic = s3.dynamic_partitioning_configuration.as_ref().and_then(|d| d.enabled) == Some(true);
    let prefixes = prefixes_of(s3, dynamic);
    let compression = Compression::named(s3.compression_format.as_deref());
    let extension = s3
        .file_extension
        .clone()
        .unwrap_or_else(|| compression.extension().to_owned());
    let mut failed = processed.failed;
    // One object per partition (the whole batch without dynamic partitioning).
    type Partition = (Option<BTreeMap<String, String>>, Option<BTreeMap<String, String>>);
    let mut partitions: BTreeMap<Partition, Vec<Item>> = BTreeMap::new();
    for item in processed.items {
        let partition = if dynamic {
            (item.query_keys.clone(), item.lambda_keys.clone())
        } else {
            (None, None)
        };
        partitions.entry(partition).or_default().push(item);
    }
    for (index, ((query_keys, lambda_keys), items)) in partitions.into_iter().enumerate() {
        let values = Values {
            arrival_ms: items.iter().map(|i| i.arrival_ms).min().unwrap_or_default(),
            error_output_type: None,
            query_keys: query_keys.as_ref(),
            lambda_keys: lambda_keys.as_ref(),
        };
        let purpose = format!("object-{index}");
        let Some(prefix) = prefixes.data(&values, &mut writes.randoms(&purpose)) else {
            failed.extend(items.iter().map(|item| Failed {
                arrival_ms: item.arrival_ms,
                raw: item.raw.clone(),
                output_type: "partitioning-failed",
                code: "DynamicPartitioning.PartitionKeyMissing".to_owned(),
                message: "A partition key the prefix names has no value for the record.".to_owned(),
                attempts: 0,
                lambda_arn: None,
            }));
            continue;
        };
        let data: Vec<u8> = items.iter().flat_map(|i| i.data.iter().copied()).collect();
        let key = writes.key(&prefix, &purpose, &extension);
        let entry = key
            .rsplit('/')
            .next()
            .unwrap_or(&key)
            .trim_end_matches(&extension)
            .to_owned();
        writes
            .put(&s3.bucket_arn, key, compression.compress(&data, &entry))
            .await?;
    }
    if !failed.is_empty() {
        writes.errors(s3, &failed, dynamic).await?;
    }
    Ok(())
}

/// The URL to post to: an `https` endpoint on this machine is reached over plain HTTP, since
/// Stratus has no TLS client and AWS's model admits only `https` URLs.
fn reachable_url(url: &str) -> String {
    let Some(rest) = url.strip_prefix("https://") else {
        return url.to_owned();
    };
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    if matches!(name, "127.0.0.1" | "localhost" | "[::1]") || name.ends_with(".localhost") {
        format!("http://{rest}")
    } else {
        url.to_owned()
    }
}

/// One attempt at delivering `batch` to an HTTP endpoint destination.
pub(crate) async fn to_http(
    firehose: &FirehoseService,
    job: &Job<'_>,
    http: &HttpSettings,
    access_key: Option<&str>,
    batch: &mut Batch,
) -> Outcome {
    let snapshot = batch.clone();
    let writes = Writes {
        firehose,
        job,
        batch: &snapshot,
    };
    let backup = &http.s3_destination_description;
    if batch.backing_up {
        return match backup_failed(&writes, backup).await {
            Ok(()) => Outcome::Done,
            Err(error) => s3_failed(firehose, job, batch, error),
        };
    }
    let processors = http.processing_configuration.as_ref().map_or(&[][..], |p| p.active());
    let processed = process(firehose, &job.source(&snapshot), processors, job.records).await;
    if !processed.failed.is_empty() {
        if let Err(error) = writes.errors(backup, &processed.failed, false).await {
            return s3_failed(firehose, job, batch, error);
        }
    }
    if processed.items.is_empty() {
        return Outcome::Done;
    }
    let request_id = derived_uuid(&batch.id, "request");
    let now = firehose.now_ms();
    let body = json!({
        "requestId": request_id,
        "timestamp": now,
        "records": processed
            .items
            .iter()
            .map(|i| json!({"data": base64::engine::general_purpose::STANDARD.encode(&i.data)}))
            .collect::<Vec<_>>(),
    })
    .to_string()
    .into_bytes();
    let request = http.request_configuration.clone().unwrap_or_default();
    let gzip = request.content_encoding.as_deref() == Some("GZIP");
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("x-amz-firehose-protocol-version", "1.0".to_owned()),
        ("x-amz-firehose-request-id", request_id.clone()),
        ("x-amz-firehose-source-arn", job.stream.arn.clone()),
    ];
    if let Some(key) = access_key {
        headers.push(("x-amz-firehose-access-key", key.to_owned()));
    }
    if !request.common_attributes.is_empty() {
        let attributes: serde_json::Map<String, Value> = request
            .common_attributes
            .iter()
            .map(|a| (a.attribute_name.clone(), json!(a.attribute_value)))
            .collect();
        headers.push((
            "x-amz-firehose-common-attributes",
            json!({ "commonAttributes": attributes }).to_string(),
        ));
    }
    if gzip {
        headers.push(("content-encoding", "gzip".to_owned()));
    }
    let body = if gzip {
        Compression::Gzip.compress(&body, "")
    } else {
        body
    };
    let url = reachable_url(&http.endpoint_configuration.url);
    let answer = stratus_http_client::post(&url, &headers, body, HTTP_ANSWER_WITHIN).await;
    let failure = match answer {
        Ok(answer) if answer.status == 200 && answered(&answer.body, &request_id) => {
            if http.s3_backup_mode.as_deref() == Some("AllData") {
                if let Err(error) = writes.backup(backup).await {
                    return s3_failed(firehose, job, batch, error);
                }
            }
            return Outcome::Done;
        }
        Ok(answer) if answer.status == 413 => {
            tracing::warn!(stream = %job.stream.arn, "firehose: the HTTP endpoint refused a batch as too large (413); dropped");
            return Outcome::Done;
        }
        Ok(answer) if answer.status == 200 => (
            "HttpEndpoint.InvalidResponseFromDestination".to_owned(),
            format!(
                "The response received from the endpoint is invalid. See Troubleshooting HTTP Endpoints in the Firehose documentation for more information. Response: {}",
                String::from_utf8_lossy(&answer.body)
            ),
        ),
        Ok(answer) => (
            "HttpEndpoint.DestinationException".to_owned(),
            format!(
                "Received the following response from the endpoint destination. {}",
                String::from_utf8_lossy(&answer.body)
            ),
        ),
        Err(e) => ("HttpEndpoint.ConnectionFailed".to_owned(), e.to_string()),
    };
    let now = firehose.now_ms();
    batch.attempts += 1;
    let since = *batch.failing_since_ms.get_or_insert(now);
    tracing::warn!(stream = %job.stream.arn, code = %failure.0, "firehose: delivery to the HTTP endpoint failed");
    batch.last_error = Some(failure);
    let retry_ms = i64::try_from(http.retry_options.and_then(|r| r.duration_in_seconds).unwrap_or(300) * 1000)
        .unwrap_or(i64::MAX / 2);
    if now - since >= retry_ms {
        batch.backing_up = true;
        let writes = Writes {
            firehose,
            job,
            batch: &batch.clone(),
        };
        return match backup_failed(&writes, backup).await {
            Ok(()) => Outcome::Done,
            Err(error) => s3_failed(firehose, job, batch, error),
        };
    }
    // 1 second doubling per retry, at most 2 minutes (the specification's back-off, without
    // its jitter).
    let backoff = (1_000i64 << batch.attempts.saturating_sub(1).min(7)).min(HTTP_MAX_BACKOFF_MS);
    batch.due_ms = now + backoff.min(since + retry_ms - now).max(0);
    Outcome::Retry(batch.due_ms)
}

/// Whether an endpoint's answer is the contract's: JSON naming the request.
fn answered(body: &[u8], request_id: &str) -> bool {
    serde_json::from_slice::<Value>(body).is_ok_and(|answer| answer["requestId"] == request_id)
}

/// The records an HTTP endpoint never took, to the S3 backup as `http-endpoint-failed`.
async fn backup_failed(writes: &Writes<'_>, backup: &S3Settings) -> Result<(), (String, String)> {
    let (code, message) = writes
        .batch
        .last_error
        .clone()
        .unwrap_or_else(|| ("HttpEndpoint.DestinationException".to_owned(), String::new()));
    let failed: Vec<Failed> = writes
        .job
        .records
        .iter()
        .map(|r| Failed {
            arrival_ms: r.arrival_ms,
            raw: r.data.clone(),
            output_type: "http-endpoint-failed",
            code: code.clone(),
            message: message.clone(),
            attempts: writes.batch.attempts,
            lambda_arn: None,
        })
        .collect();
    writes.errors(backup, &failed, false).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machines_https_endpoints_are_posted_in_plain_http() {
        assert_eq!(
            reachable_url("https://127.0.0.1:8080/hook"),
            "http://127.0.0.1:8080/hook"
        );
        assert_eq!(reachable_url("https://localhost/x?y"), "http://localhost/x?y");
        assert_eq!(reachable_url("https://[::1]:9/"), "http://[::1]:9/");
        assert_eq!(reachable_url("https://example.com/"), "https://example.com/");
    }

    #[test]
    fn an_answer_counts_only_when_it_names_the_request() {
        assert!(answered(br#"{"requestId":"r","timestamp":1}"#, "r"));
        assert!(!answered(br#"{"requestId":"other","timestamp":1}"#, "r"));
        assert!(!answered(b"ok", "r"));
    }
}
