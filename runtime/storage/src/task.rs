//! The bridge from async code to the synchronous storage API (cargo feature `tokio`): work
//! runs on tokio's blocking pool, since a strict commit waits for the disk, and a task that
//! panics or is cancelled comes back as one error, [`StorageError::TaskFailed`].
//!
//! ```
//! use stratus_storage::{Durability, Namespace, Storage, StorageConfig, StorageError};
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let storage = Storage::open(StorageConfig::Ephemeral)?;
//! let store = storage.store(&Namespace::global("000000000000", "sts"), Durability::Strict)?;
//! store
//!     .clone()
//!     .transact_async(|tx| {
//!         tx.put("credentials", b"ASIA1".as_slice(), b"v1".as_slice());
//!         Ok::<_, StorageError>(())
//!     })
//!     .await?;
//! let found = stratus_storage::run_blocking(move || store.get("credentials", b"ASIA1")).await?;
//! assert_eq!(found.as_deref(), Some(&b"v1"[..]));
//! # Ok::<_, StorageError>(())
//! # }).unwrap();
//! ```

use std::any::Any;
use std::sync::Arc;

use crate::api::Store;
use crate::error::StorageError;
use crate::tx::Tx;

/// Runs `work` on a blocking thread and returns its result; a panic in it is returned as
/// `E::from(StorageError::TaskFailed)`.
///
/// The work and its result cross to the blocking pool boxed, so tokio's task machinery is
/// compiled once here rather than once per closure in every service crate (about a tenth of a
/// service crate's code before).
pub async fn run_blocking<R, E, F>(work: F) -> Result<R, E>
where
    R: Send + 'static,
    E: From<StorageError> + Send + 'static,
    F: FnOnce() -> Result<R, E> + Send + 'static,
{
    let result = run_erased(Box::new(move || Box::new(work()))).await?;
    *result
        .downcast::<Result<R, E>>()
        .expect("run_erased returns what its work returned")
}

type Erased = Box<dyn Any + Send>;

async fn run_erased(work: Box<dyn FnOnce() -> Erased + Send>) -> Result<Erased, StorageError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| StorageError::TaskFailed { detail: e.to_string() })
}

impl dyn Store {
    /// [`transact`](Store#method.transact) on a blocking thread, for async callers.
    pub async fn transact_async<R, E, F>(self: Arc<Self>, body: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<StorageError> + Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, E> + Send + 'static,
    {
        run_blocking(move || self.transact(body)).await
    }
}
