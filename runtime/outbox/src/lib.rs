//! Durable deliveries from one service to another.
//!
//! A service that accepts work on another's behalf — an SNS publish for each subscription, an
//! asynchronous Lambda invocation, an event for each of a rule's targets, an S3 event
//! notification — tells its caller "accepted" only once the work cannot be lost. It writes one
//! [`Entry`] per delivery into its [`Outbox`] in the very transaction that acknowledges the
//! request, and after the commit [`wakes`](Outbox::wake) the outbox, which drains the
//! account's and region's entries on the binary's runtime:
//!
//! - one drain at a time per account and region, so deliveries leave in the order they were
//!   accepted (entries are keyed by due time, then by a sequence number);
//! - each entry is handed to the service's [`Courier`], which makes one attempt and answers
//!   [`Next::Done`] (delivered, or given up after its own dead-letter hand-off) or
//!   [`Next::Retry`]; a retried entry is written back with one more attempt, due later;
//! - nothing runs while nothing is due: a later entry gets one scheduler deadline, and an
//!   empty outbox none;
//! - after a restart, [`Outbox::start`] puts a deadline on every store left with entries.
//!
//! An entry is removed only after its attempt, so a crash between the two delivers it again:
//! deliveries are at least once, as AWS's are.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use stratus_core::service::{BoxFuture, Spawner};
//! # use stratus_core::scheduler::Scheduler;
//! # use stratus_core::Clock;
//! # use stratus_outbox::{Courier, Entry, Next, Outbox, Place};
//! # use stratus_storage::{Storage, StorageConfig};
//! struct Printer;
//!
//! impl Courier<String> for Printer {
//!     fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<String>) -> BoxFuture<'a, Next> {
//!         Box::pin(async move {
//!             println!("{}/{}: {}", to.account, to.region, entry.item);
//!             Next::Done
//!         })
//!     }
//! }
//!
//! # let runtime = tokio::runtime::Runtime::new().unwrap();
//! # let handle = runtime.handle().clone();
//! let storage = Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap());
//! let scheduler = Scheduler::new(Clock::system());
//! let spawner = Spawner::new(move |work| drop(handle.spawn(work)));
//! let outbox = Outbox::new("deliveries", "sns", &storage, &scheduler, &spawner);
//! outbox.start(Arc::new(Printer));
//! ```

#![warn(missing_docs)]

mod drain;
mod entry;

pub use drain::{Courier, Next, Outbox, Place};
pub use entry::Entry;
