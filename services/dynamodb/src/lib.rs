//! Amazon DynamoDB for Stratus: the data model, the expression languages and the
//! operations that wire them into the storage engine.
//!
//! - [`number`]: exact decimal numbers with DynamoDB's precision, range and printed form;
//! - [`key`]: an order-preserving byte encoding of key attributes for byte-ordered scans;
//! - [`size`]: item sizes computed as AWS computes them, and the 400 KB limit;
//! - [`value`]: input validation, equality and ordering of attribute values;
//! - [`expr`]: condition, filter, key condition, projection and update expressions —
//!   parsed and validated with AWS's messages, then evaluated against items;
//! - [`codec`]: the compact binary encoding items are stored in;
//! - [`stream`]: DynamoDB Streams records, written with each item change;
//! - the operations ([`DynamoDbService`]): tables (`control`), single items (`items`),
//!   queries and scans (`query`), batches (`batch`) and transactions (`transact`), sharing
//!   request checks (`request`, `keys`) and capacity arithmetic (`capacity`), all over the
//!   storage layout described in `db`;
//! - [`partiql`]: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction — a PartiQL
//!   lexer and parser, and statements translated into the expressions above;
//! - `settings`: contributor insights and resource policies kept on the table;
//! - `fixed_answers`: what needs no storage — the account's limits and endpoint, and the empty
//!   answers of backups, exports, imports and global tables;
//! - [`ttl`]: the time-to-live sweeper, started only once TTL is enabled on some table;
//! - the DynamoDB Streams service ([`DynamoDbStreamsService`], `streams_service`) over the
//!   same stores, with its ARNs, shard ids and shard iterators in [`iterator`]; and the same
//!   streams offered to Lambda's event source mappings (`stream_source`);
//! - Kinesis streaming destinations: the operations (`kinesis_destinations`) and the
//!   forwarders that send each table's changes to Kinesis (`kinesis_feed`).

mod batch;
mod capacity;
pub mod codec;
mod control;
mod db;
mod encryption;
mod error;
pub mod expr;
mod fixed_answers;
mod items;
pub mod iterator;
pub mod key;
mod keys;
mod kinesis_destinations;
mod kinesis_feed;
pub mod number;
pub mod partiql;
mod query;
mod request;
mod service;
mod settings;
pub mod size;
pub mod stream;
mod stream_source;
mod streams_service;
mod table;
mod transact;
pub mod ttl;
pub mod value;

use std::time::Duration;

use stratus_core::service::{Registration, ServiceEnv};
use stratus_storage::Storage;

pub use service::DynamoDbService;
pub use stratus_gen_dynamodb::AttributeValue;
pub use streams_service::DynamoDbStreamsService;

/// How often the time-to-live sweep runs (see [`ttl`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlInterval(pub Duration);

impl Default for TtlInterval {
    fn default() -> TtlInterval {
        TtlInterval(Duration::from_secs(30))
    }
}

/// Builds DynamoDB and DynamoDB Streams, each when the binary serves it, over the same stores;
/// DynamoDB offers its tables' streams to consumers (Lambda's event source mappings).
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    let mut registration = Registration::default();
    if env.serves(&stratus_gen_dynamodb::SERVICE) {
        let TtlInterval(interval) = env.settings.get();
        let dynamodb = DynamoDbService::new(env.storage.clone(), env.scheduler.clone(), interval)
            .connected(env.late.clone(), env.spawner.clone());
        registration.provides.streams.push(dynamodb.streams());
        registration.handlers.push(dynamodb.into_handler());
    }
    if env.serves(&stratus_gen_dynamodb_streams::SERVICE) {
        registration
            .handlers
            .push(DynamoDbStreamsService::handler(env.storage.clone()));
    }
    registration
}

/// An item: attribute names to values.
pub type Item = std::collections::BTreeMap<String, AttributeValue>;
