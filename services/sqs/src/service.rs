//! The service value: what operations and background moves share, and its access to the
//! queue stores.

use std::collections::HashSet;
use std::sync::Arc;

use stratus_core::scheduler::Scheduler;
use stratus_storage::{Durability, Namespace, Storage, Store, Tx};

use crate::error::SqsError;
use crate::queue::QueueRecord;
use crate::queue_ref::QueueRef;
use crate::store::{load_queue, QUEUES};
use crate::wait::Arrivals;

/// The SQS service, backed by `storage`. Clones share everything (other services deliver
/// through a clone: see [`MessageSink`](stratus_core::service::MessageSink)).
#[derive(Clone)]
pub struct SqsService {
    pub(crate) shared: Arc<Shared>,
}

/// What operations and background message moves share.
pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) arrivals: Arrivals,
    /// Message move tasks with a runner in this process, by task id.
    pub(crate) running_moves: std::sync::Mutex<HashSet<String>>,
    /// Deadlines: long polls' waits and move tasks' pacing; its clock is the service's time.
    pub(crate) scheduler: Scheduler,
}

impl Shared {
    /// Now, in milliseconds since the epoch (what message deadlines are kept in).
    pub(crate) fn now_ms(&self) -> u64 {
        u64::try_from(self.scheduler.clock().epoch_millis()).unwrap_or(0)
    }
}

impl Shared {
    /// Runs `body` as a strict write transaction in `namespace`, on a blocking thread (a
    /// strict commit waits for fsync).
    pub(crate) async fn write<R, F>(&self, namespace: Namespace, body: F) -> Result<R, SqsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SqsError> + Send + 'static,
    {
        self.storage
            .store(&namespace, Durability::Strict)?
            .transact_async(body)
            .await
    }
}

impl SqsService {
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler) -> SqsService {
        SqsService {
            shared: Arc::new(Shared {
                storage,
                arrivals: Arrivals::default(),
                running_moves: Default::default(),
                scheduler,
            }),
        }
    }

    pub(crate) fn now_ms(&self) -> u64 {
        self.shared.now_ms()
    }

    /// Whether `queue` exists.
    pub(crate) fn queue_exists(&self, queue: &QueueRef) -> bool {
        // A point read needs no transaction (and no blocking thread).
        self.shared
            .storage
            .store(&queue.namespace(), Durability::Strict)
            .and_then(|store| store.get(QUEUES.name(), queue.name.as_bytes()))
            .is_ok_and(|found| found.is_some())
    }

    /// Runs `body` as a strict write transaction in `queue`'s namespace.
    pub(crate) async fn write<R, F>(&self, queue: &QueueRef, body: F) -> Result<R, SqsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R, SqsError> + Send + 'static,
    {
        self.shared.write(queue.namespace(), body).await
    }

    /// Applies `change` to `queue`'s record in one transaction.
    pub(crate) async fn update_queue<F>(&self, queue: &QueueRef, change: F) -> Result<(), SqsError>
    where
        F: FnOnce(&mut QueueRecord) -> Result<(), SqsError> + Send + 'static,
    {
        let name = queue.name.clone();
        self.write(queue, move |tx| {
            let mut record = load_queue(tx, &name)?;
            change(&mut record)?;
            QUEUES.put(tx, name.as_bytes(), &record)?;
            Ok(())
        })
        .await
    }

    /// The store of `queue`'s namespace, for reads (which need no fsync and run inline).
    pub(crate) fn reader(&self, queue: &QueueRef) -> Result<Arc<dyn Store>, SqsError> {
        Ok(self.shared.storage.store(&queue.namespace(), Durability::Strict)?)
    }

    pub(crate) fn queue(&self, queue: &QueueRef) -> Result<QueueRecord, SqsError> {
        load_queue(&self.reader(queue)?, &queue.name)
    }
}
