//! PutRecord and PutRecordBatch: records stored in the stream's buffer before the answer.

use base64::Engine;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_firehose::{
    PutRecordBatchInput, PutRecordBatchOutput, PutRecordBatchResponseEntry, PutRecordInput, PutRecordOutput,
};

use crate::error::invalid_argument;
use crate::service::FirehoseService;

/// PutRecordBatch's limit on the data of one call (the model bounds each record to
/// 1,000 KiB and a call to 500 records).
const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// A record id as Firehose hands them out: opaque, long, base64.
fn record_id() -> String {
    let bytes: Vec<u8> = (0..9)
        .flat_map(|_| stratus_core::id::random_u64().to_be_bytes())
        .collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub(crate) async fn put_record(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: PutRecordInput,
) -> Result<PutRecordOutput, AwsError> {
    let encrypted = firehose
        .accept(
            &ctx.account_id,
            &ctx.region,
            &input.delivery_stream_name,
            vec![input.record.data],
        )
        .await?;
    Ok(PutRecordOutput {
        record_id: record_id(),
        encrypted: Some(encrypted),
    })
}

pub(crate) async fn put_record_batch(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: PutRecordBatchInput,
) -> Result<PutRecordBatchOutput, AwsError> {
    let bytes: usize = input.records.iter().map(|r| r.data.len()).sum();
    if bytes > MAX_BATCH_BYTES {
        return Err(invalid_argument("Records size exceeds 4 MB limit").into());
    }
    let count = input.records.len();
    let data = input.records.into_iter().map(|r| r.data).collect();
    let encrypted = firehose
        .accept(&ctx.account_id, &ctx.region, &input.delivery_stream_name, data)
        .await?;
    Ok(PutRecordBatchOutput {
        failed_put_count: 0,
        encrypted: Some(encrypted),
        request_responses: (0..count)
            .map(|_| PutRecordBatchResponseEntry {
                record_id: Some(record_id()),
                error_code: None,
                error_message: None,
            })
            .collect(),
    })
}
