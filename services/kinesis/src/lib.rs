//! Amazon Kinesis Data Streams: streams in provisioned and on-demand mode, shards with real
//! hash-key ranges, PutRecord/PutRecords with AWS-shaped sequence numbers, shard iterators and
//! GetRecords, resharding with parent/child lineage, retention, server-side encryption through
//! the [`KeyService`](stratus_core::service::KeyService), resource policies, tags, and
//! enhanced fan-out consumers with SubscribeToShard's event stream.
//!
//! State lives in the `kinesis` store of each account and region, with **strict** durability
//! (an acknowledged record survives `kill -9`). Tables ([`store`]):
//!
//! - `streams`: [`store::StreamRecord`] by name — mode, retention, encryption, tags, policy,
//!   every shard it has had (open and closed, with their hash-key ranges and lineage) and the
//!   counter its next sequence number is made from ([`sequence`]);
//! - `records`: data records by (stream, shard index, counter), written without JSON;
//! - `consumers`: [`store::ConsumerRecord`] by (stream, consumer name).
//!
//! Nothing runs in the background: iterators carry their issue time and expire when used
//! ([`iterator`]), records past the retention period are skipped by reads, and a
//! subscription's thread exists only while its client reads the event stream
//! ([`subscription`]).

mod error;
mod hash_key;
mod iterator;
mod ops;
mod reshard;
mod sequence;
mod service;
mod store;
mod stream_source;
mod subscription;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_kinesis::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::KinesisService;
use crate::stream_source::KinesisStreams;

/// Builds Kinesis when the binary serves it, encrypting through KMS when KMS is served, and
/// offers its streams to consumers (Lambda's event source mappings) and to the services that
/// write into them (DynamoDB's Kinesis streaming destinations).
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let kinesis = KinesisService::new(env.storage.clone(), env.providers.keys.clone());
    let streams = Arc::new(KinesisStreams {
        kinesis: kinesis.clone(),
        clock: env.scheduler.clock().clone(),
    });
    Registration {
        handlers: vec![Arc::new(Handler(kinesis))],
        provides: Providers {
            streams: vec![streams.clone()],
            stream_writer: Some(streams),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_kinesis::operations! {
    KinesisService;
    create_stream => ops::streams::create_stream,
    delete_stream => ops::streams::delete_stream,
    describe_stream => ops::streams::describe_stream,
    describe_stream_summary => ops::streams::describe_stream_summary,
    list_streams => ops::streams::list_streams,
    describe_limits => ops::streams::describe_limits,
    update_stream_mode => ops::streams::update_stream_mode,
    increase_stream_retention_period => ops::streams::increase_stream_retention_period,
    decrease_stream_retention_period => ops::streams::decrease_stream_retention_period,
    enable_enhanced_monitoring => ops::streams::enable_enhanced_monitoring,
    disable_enhanced_monitoring => ops::streams::disable_enhanced_monitoring,
    start_stream_encryption => ops::encryption::start_stream_encryption,
    stop_stream_encryption => ops::encryption::stop_stream_encryption,
    list_shards => ops::shards::list_shards,
    split_shard => ops::shards::split_shard,
    merge_shards => ops::shards::merge_shards,
    update_shard_count => ops::shards::update_shard_count,
    put_record => ops::records::put_record,
    put_records => ops::records::put_records,
    get_shard_iterator => ops::records::get_shard_iterator,
    get_records => ops::records::get_records,
    register_stream_consumer => ops::consumers::register_stream_consumer,
    describe_stream_consumer => ops::consumers::describe_stream_consumer,
    list_stream_consumers => ops::consumers::list_stream_consumers,
    deregister_stream_consumer => ops::consumers::deregister_stream_consumer,
    subscribe_to_shard => subscription::subscribe_to_shard,
    add_tags_to_stream => ops::tags::add_tags_to_stream,
    remove_tags_from_stream => ops::tags::remove_tags_from_stream,
    list_tags_for_stream => ops::tags::list_tags_for_stream,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    put_resource_policy => ops::policies::put_resource_policy,
    get_resource_policy => ops::policies::get_resource_policy,
    delete_resource_policy => ops::policies::delete_resource_policy,
}
