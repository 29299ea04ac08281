//! Group commit: concurrent write transactions share one database commit (one fsync).
//!
//! There is no committer thread and no timer. Each writer runs its own closure, one at a
//! time under a mutex, against the one open database transaction, which therefore holds
//! every earlier member's writes: transactions are serializable in the order they ran.
//!
//! - A writer that finds no commit in flight runs its closure at once. If no other writer is
//!   behind it (queued, or already waiting for the mutex), it commits straight away: a lone
//!   writer never waits for company. Otherwise it leaves the commit to the last of them and
//!   waits for the outcome, so writers that arrive together share one commit (up to
//!   [`MAX_GROUP`] members, so a steady stream of writers cannot postpone it for ever).
//! - Writers that arrive while a commit is in flight queue. When the commit lands they run
//!   their closures in turn against a fresh transaction, and the last of them commits the lot:
//!   one fsync for the whole group.
//! - A closure that fails (or panics) adds nothing to the transaction, since its writes are
//!   buffered in its [`Tx`](crate::Tx) and applied only on success; it leaves the group
//!   unaffected. A failure to apply or commit fails every member of the group, and the
//!   group's writes are discarded together.

use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use crate::error::{Result, StorageError};
use crate::tx::{Ran, WriteSet};

/// The database side of group commit.
pub(crate) trait CommitTarget {
    /// An open database write transaction.
    type Txn;

    /// Opens a write transaction.
    fn begin(&self) -> Result<Self::Txn>;

    /// Applies one closure's writes to the open transaction.
    fn apply(&self, txn: &mut Self::Txn, writes: WriteSet) -> Result<()>;

    /// Commits, durably if `strict`.
    fn commit(&self, txn: Self::Txn, strict: bool) -> Result<()>;
}

/// The most transactions one commit takes while more writers keep arriving.
pub(crate) const MAX_GROUP: usize = 256;

/// Where the members of one group learn how its commit went.
type Outcome = Arc<OnceLock<Result<()>>>;

/// Batches concurrent write transactions into shared commits.
pub(crate) struct GroupCommit<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
    /// Writers waiting to take the mutex; each will reach the point where a group is
    /// committed, so a writer that sees any may leave the commit to them.
    arriving: AtomicUsize,
}

struct State<T> {
    /// The transaction the forming group writes into.
    open: Option<T>,
    /// Why the open transaction can no longer be committed.
    broken: Option<StorageError>,
    /// Closures that joined the forming group.
    members: usize,
    /// Whether any member asked for a durable commit.
    strict: bool,
    /// The forming group's outcome.
    outcome: Outcome,
    /// Whether a leader is committing (with the mutex released).
    committing: bool,
    /// Writers waiting for that commit to land before they join the next group.
    queued: usize,
}

impl<T> Default for GroupCommit<T> {
    fn default() -> Self {
        GroupCommit {
            state: Mutex::new(State {
                open: None,
                broken: None,
                members: 0,
                strict: false,
                outcome: Outcome::default(),
                committing: false,
                queued: 0,
            }),
            changed: Condvar::new(),
            arriving: AtomicUsize::new(0),
        }
    }
}

impl<T> GroupCommit<T> {
    /// Runs `work` (a transaction closure over the open transaction, see
    /// [`run`](crate::tx::run)) as a member of a group, and returns once its writes are
    /// committed (durably if `strict`) or discarded. A panic of the closure is resumed here,
    /// after the group has been looked after.
    pub(crate) fn execute<C>(&self, target: &C, strict: bool, work: impl FnOnce(&T) -> Ran) -> Result<()>
    where
        C: CommitTarget<Txn = T>,
    {
        self.arriving.fetch_add(1, Ordering::Relaxed);
        let mut state = self.lock();
        self.arriving.fetch_sub(1, Ordering::Relaxed);
        if state.committing {
            state.queued += 1;
            state = self.wait(state, |state| state.committing);
            state.queued -= 1;
        }
        let group = &mut *state;
        let txn = match group.open.take() {
            Some(txn) => txn,
            None => target.begin()?,
        };
        let txn = group.open.insert(txn);
        let mut panic = None;
        let joined = match work(txn) {
            Ran::Commit(writes) if writes.is_empty() => group.members > 0,
            Ran::Commit(writes) => {
                if group.broken.is_none() {
                    group.broken = target.apply(txn, writes).err();
                }
                true
            }
            Ran::Abort => false,
            Ran::Panic(payload) => {
                panic = Some(payload);
                false
            }
        };
        let outcome = joined.then(|| {
            state.members += 1;
            state.strict |= strict;
            state.outcome.clone()
        });
        let followed = state.queued > 0 || (self.arriving.load(Ordering::Relaxed) > 0 && state.members < MAX_GROUP);
        if !followed {
            self.finish_group(state, target);
        } else if let Some(outcome) = &outcome {
            drop(self.wait(state, |_| outcome.get().is_none()));
        }
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
        outcome.map_or(Ok(()), |outcome| outcome.get().cloned().unwrap_or(Ok(())))
    }

    /// Commits the forming group (or drops an open transaction nobody wrote to) and tells its
    /// members how it went.
    fn finish_group<C: CommitTarget<Txn = T>>(&self, mut state: MutexGuard<'_, State<T>>, target: &C) {
        let txn = state.open.take();
        let broken = state.broken.take();
        if state.members == 0 {
            return;
        }
        state.members = 0;
        let strict = std::mem::take(&mut state.strict);
        let outcome = std::mem::take(&mut state.outcome);
        state.committing = true;
        drop(state);
        let result = match (broken, txn) {
            (Some(err), _) => Err(err),
            (None, Some(txn)) => target.commit(txn, strict),
            (None, None) => Ok(()),
        };
        let _ = outcome.set(result);
        self.lock().committing = false;
        self.changed.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(
        &self,
        state: MutexGuard<'a, State<T>>,
        condition: impl FnMut(&mut State<T>) -> bool,
    ) -> MutexGuard<'a, State<T>> {
        self.changed
            .wait_while(state, condition)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Barrier;
    use std::thread;
    use std::time::Duration;

    use super::*;
    use crate::tx::{run, EmptyView};

    /// A target whose transaction collects the keys written; commits are slow, recorded, and
    /// fail for a group holding the key `bad`.
    #[derive(Default)]
    struct Recorder {
        committed: Mutex<Vec<Vec<Vec<u8>>>>,
    }

    impl CommitTarget for Recorder {
        type Txn = Vec<Vec<u8>>;

        fn begin(&self) -> Result<Self::Txn> {
            Ok(Vec::new())
        }

        fn apply(&self, txn: &mut Self::Txn, writes: WriteSet) -> Result<()> {
            for (_, table) in writes.tables() {
                txn.extend(table.keys().cloned());
            }
            Ok(())
        }

        fn commit(&self, txn: Self::Txn, _strict: bool) -> Result<()> {
            thread::sleep(Duration::from_millis(5));
            if txn.iter().any(|key| key == b"bad") {
                return Err(StorageError::Database {
                    path: "test".into(),
                    detail: "refused".into(),
                });
            }
            self.committed.lock().unwrap().push(txn);
            Ok(())
        }
    }

    fn put(group: &GroupCommit<Vec<Vec<u8>>>, target: &Recorder, key: &[u8]) -> Result<()> {
        group.execute(target, true, |_| {
            run(&EmptyView, &mut |tx| {
                tx.put("t", key, b"v");
                true
            })
        })
    }

    #[test]
    fn a_lone_writer_commits_before_returning() {
        let (group, target) = (GroupCommit::default(), Recorder::default());
        for n in 1..=5 {
            put(&group, &target, b"k").unwrap();
            assert_eq!(target.committed.lock().unwrap().len(), n);
        }
    }

    #[test]
    fn concurrent_writers_share_commits() {
        const THREADS: usize = 16;
        const ROUNDS: usize = 5;
        let (group, target) = (GroupCommit::default(), Recorder::default());
        let start = Barrier::new(THREADS);
        thread::scope(|scope| {
            for thread in 0..THREADS {
                let (group, target, start) = (&group, &target, &start);
                scope.spawn(move || {
                    start.wait();
                    for round in 0..ROUNDS {
                        put(group, target, format!("{thread}-{round}").as_bytes()).unwrap();
                    }
                });
            }
        });
        let committed = target.committed.lock().unwrap();
        assert_eq!(committed.iter().map(Vec::len).sum::<usize>(), THREADS * ROUNDS);
        assert!(committed.len() <= THREADS * ROUNDS / 2, "{} commits", committed.len());
    }

    #[test]
    fn a_failed_commit_fails_exactly_its_group() {
        const THREADS: usize = 8;
        let (group, target) = (GroupCommit::default(), Recorder::default());
        let failures = AtomicUsize::new(0);
        let start = Barrier::new(THREADS);
        thread::scope(|scope| {
            for thread in 0..THREADS {
                let (group, target, start, failures) = (&group, &target, &start, &failures);
                scope.spawn(move || {
                    start.wait();
                    let key = if thread == 0 {
                        "bad".to_owned()
                    } else {
                        thread.to_string()
                    };
                    if put(group, target, key.as_bytes()).is_err() {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        let committed: usize = target.committed.lock().unwrap().iter().map(Vec::len).sum();
        let failed = failures.load(Ordering::Relaxed);
        assert!(failed >= 1);
        assert_eq!(committed + failed, THREADS);
    }
}
