//! Amazon Data Firehose: delivery streams fed by PutRecord and PutRecordBatch, by a Kinesis
//! stream, or by other services ([`DeliveryStreamSink`](stratus_core::service::DeliveryStreamSink):
//! CloudWatch Logs' subscription filters), buffered durably and delivered to S3 (buffering
//! hints, prefixes and their expressions, compression, dynamic partitioning, processors with a
//! Lambda function) and to HTTP endpoints; the other destinations are stored and described.
//!
//! State lives in the `firehose` store of each account and region, strict: a record PutRecord
//! acknowledged is stored before the answer. Tables:
//!
//! - `delivery_streams`: [`records::StreamRecord`] by name — the destination's configuration
//!   as the client wrote it, the source, encryption, tags, version;
//! - `buffered_records`: the records waiting for delivery by (stream, sequence), and
//!   `buffers`: each buffering stream's head, counting them and holding the batch under
//!   delivery ([`buffer`]);
//! - `kinesis_checkpoints`: where each shard of a Kinesis source is read from, by (stream,
//!   shard) ([`kinesis_source`]).
//!
//! Nothing runs while no stream buffers records: one scheduler job stands at the earliest
//! moment a buffer falls due ([`flush`]); Kinesis readers wait on the stream's put signal.

mod buffer;
mod checks;
mod compression;
mod delivery;
mod describe;
mod destination;
mod error;
mod flush;
mod handler;
mod intake;
mod jq;
mod kinesis_source;
mod naming;
mod ops;
mod prefix;
mod processing;
mod records;
mod service;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_firehose::SERVICE;
use stratus_storage::Storage;

pub use crate::service::FirehoseService;

/// Builds Firehose when the binary serves it: its delivery streams are the
/// [`DeliveryStreamSink`](stratus_core::service::DeliveryStreamSink) other services put into.
/// Registered after S3, Lambda and Kinesis, whose capabilities it uses.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let firehose = FirehoseService::new(env.storage.clone(), env.scheduler.clone(), env.spawner, env.providers);
    firehose.resume_readers();
    firehose.resume_buffers();
    Registration {
        handlers: vec![Arc::new(handler::FirehoseHandler::new(firehose.clone()))],
        provides: Providers {
            delivery_streams: Some(Arc::new(firehose.clone())),
            ..Providers::default()
        },
        shutdown: vec![Arc::new(firehose)],
        ..Registration::default()
    }
}

stratus_gen_firehose::operations! {
    FirehoseService;
    delete_delivery_stream => ops::streams::delete_delivery_stream,
    list_delivery_streams => ops::streams::list_delivery_streams,
    put_record => ops::records::put_record,
    put_record_batch => ops::records::put_record_batch,
    tag_delivery_stream => ops::tags::tag_delivery_stream,
    untag_delivery_stream => ops::tags::untag_delivery_stream,
    list_tags_for_delivery_stream => ops::tags::list_tags_for_delivery_stream,
    start_delivery_stream_encryption => ops::encryption::start_delivery_stream_encryption,
    stop_delivery_stream_encryption => ops::encryption::stop_delivery_stream_encryption,
    ;
    encoded {
        describe_delivery_stream => ops::streams::describe_delivery_stream,
    }
}
