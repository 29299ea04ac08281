//! The operations, one function per S3 operation, grouped by what they act on. Each takes the
//! service and the typed input the gateway decoded, and returns the typed output or error;
//! `lib.rs` wires them to the generated `S3` trait. The records, storage layout and rules they
//! share live in the modules beside `ops` (`bucket`, `object`, `versioning`, `multipart`,
//! `listing`, `config`, `id_configs`, `lock`, `checksum`, `chunked`).

pub mod acl;
pub mod bucket;
pub mod config;
pub mod id_configs;
pub mod listing;
pub mod lock;
pub mod multipart;
pub mod object;
pub mod versioning;
