//! The binary's async runtime, as services see it: work that outlives the request that
//! caused it (a queued delivery, a scheduled rule's targets) is spawned through a
//! [`Spawner`], so no service looks for a runtime of its own or waits for one to exist.
//!
//! The binary builds its runtime before it registers the services and hands each the same
//! spawner (`ServiceEnv::spawner`); this crate stays free of any particular runtime.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use super::BoxFuture;

/// Runs futures to completion on the binary's runtime, detached from the caller.
#[derive(Clone)]
pub struct Spawner(Arc<dyn Fn(BoxFuture<'static, ()>) + Send + Sync>);

impl Spawner {
    /// The spawner that hands each future to `spawn` (the binary's: `handle.spawn(future)`).
    pub fn new(spawn: impl Fn(BoxFuture<'static, ()>) + Send + Sync + 'static) -> Spawner {
        Spawner(Arc::new(spawn))
    }

    /// Runs `work` on the runtime; the caller does not wait for it.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        (self.0)(Box::pin(work));
    }
}

impl fmt::Debug for Spawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Spawner")
    }
}
