//! Stratus storage: the ordered key-value stores and blobs every service keeps its state in.
//!
//! A [`Storage`] is opened once per process from a [`StorageConfig`]: a data directory
//! (redb, durable) or ephemeral (in memory). It hands out one [`Store`] per [`Namespace`]
//! (account, region or global, service); services see only the [`Store`] trait.
//!
//! - Reads: [`Store::get`] and [`Store::scan`] over a [`KeyRange`] (a prefix with
//!   [`KeyRange::prefix`]) in either [`Direction`], with a limit.
//! - Writes: [`transact`](Store#method.transact) runs a closure that reads its own writes and
//!   commits all of them or none; concurrent transactions are serializable and share commits
//!   (group commit: one fsync for a whole group, no waiting for a lone writer).
//! - Blobs: [`Store::put_blob`] and friends keep large bodies as files beside the database,
//!   replaced atomically.
//! - Durability per store: [`Durability::Strict`] (fsync before the write is acknowledged)
//!   or [`Durability::Relaxed`].
//!
//! On disk, a store is `<data-dir>/<account>/<region>/<service>.redb` (global services:
//! `<data-dir>/<account>/<service>.redb`), created by its first write and stamped with a
//! schema version ([`SCHEMA_VERSION`]); a store written by a newer Stratus is refused with a
//! clear error. The data directory is locked while open, so a second Stratus on it fails at
//! once.
//!
//! The API is synchronous and every type is `Send + Sync`: async code calls it on a blocking
//! thread, through [`run_blocking`] and [`transact_async`](Store#method.transact_async)
//! (cargo feature `tokio`).
//!
//! Helpers services build on: [`Read`], one interface for reading a store or a transaction;
//! [`Table`], typed records with one error for a corrupt one; [`tuple`], order-preserving
//! keys of several parts.
//!
//! ```
//! use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError};
//!
//! let storage = Storage::open(StorageConfig::Ephemeral)?;
//! let s3 = storage.store(&Namespace::regional("000000000000", "us-east-1", "s3"), Durability::Strict)?;
//! s3.put_blob("obj-1", &mut &b"hello"[..])?;
//! s3.transact(|tx| {
//!     tx.put("objects", b"bucket/key", b"obj-1");
//!     Ok::<_, StorageError>(())
//! })?;
//! assert_eq!(s3.get_blob("obj-1")?.as_deref(), Some(&b"hello"[..]));
//! # Ok::<_, StorageError>(())
//! ```
#![warn(missing_docs)]

mod api;
mod blob;
mod error;
mod group_commit;
mod layout;
mod memory;
mod range;
mod read;
mod redb_store;
mod storage;
mod table;
#[cfg(feature = "tokio")]
mod task;
pub mod tuple;
mod tx;

pub use api::{Blob, Durability, KeyValue, Namespace, Store};
pub use error::{Result, StorageError};
pub use range::{Direction, KeyRange};
pub use read::Read;
pub use redb_store::SCHEMA_VERSION;
pub use storage::{Storage, StorageConfig};
pub use table::{Codec, Json, Table};
#[cfg(feature = "tokio")]
pub use task::run_blocking;
pub use tx::Tx;
