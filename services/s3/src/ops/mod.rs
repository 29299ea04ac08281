//! The operations, one function per S3 operation, grouped by what they act on. Each takes the
//! service and the typed input the gateway decoded, and returns the typed output or error;
//! `lib.rs` wires them to the generated `S3` trait. The records, storage layout and rules they
//! share live in the modules beside `ops` (`bucket`, `object`, `versioning`, `multipart`,
//! `listing`, `config`, `id_configs`, `lock`, `checksum`, `chunked`, `post`). `post` is the one
//! that is no operation of the model: browser POST uploads, which the gateway's form-upload hook
//! hands over.

pub mod acl;
pub mod annotation;
pub mod bucket;
pub mod config;
pub mod id_configs;
pub mod listing;
pub mod lock;
pub mod multipart;
pub mod object;
pub mod post;
pub mod versioning;
