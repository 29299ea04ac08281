//! The operations, one function per S3 operation, grouped by what they act on. Each takes the
//! service and the typed input the gateway decoded, and returns the typed output or error;
//! `lib.rs` wires them to the generated `S3` trait. The records, storage layout and rules they
//! share live in the modules beside `ops` (`bucket`, `object`, `versioning`, `multipart`,
//! `listing`, `config`, `id_configs`, `lock`, `checksum`, `chunked`, `post`). `post` is the one
//! that is no operation of the model: browser POST uploads, which the gateway's form-upload hook
//! hands over.

pub(crate) mod acl;
pub(crate) mod annotation;
pub(crate) mod bucket;
pub(crate) mod config;
pub(crate) mod id_configs;
pub(crate) mod listing;
pub(crate) mod lock;
pub(crate) mod multipart;
pub(crate) mod object;
pub(crate) mod post;
pub(crate) mod restore;
pub(crate) mod versioning;
