//! One job at the earliest moment some stored work falls due: a key's deletion, a secret's
//! rotation, a parameter's expiration. The moments live in the service's records, so the job
//! is all the scheduler holds: at most one per service, none once nothing is pending, and
//! found again from the records after a restart (the service sweeps once at start).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use super::Scheduler;

/// The earliest-due job of one service (see the module docs). Clones share the job.
#[derive(Clone)]
pub struct DueJob {
    scheduler: Scheduler,
    /// When the registered job runs, in epoch milliseconds; `None` when none is registered.
    next_ms: Arc<Mutex<Option<i64>>>,
}

impl DueJob {
    /// No job yet, on `scheduler`.
    pub fn new(scheduler: Scheduler) -> DueJob {
        DueJob {
            scheduler,
            next_ms: Arc::default(),
        }
    }

    /// Makes sure `sweep` runs by `due_ms` (epoch milliseconds): a job due earlier already
    /// covers it; a later one is superseded. `sweep` does what is due and answers when the
    /// next work falls due, which schedules the job again.
    pub fn by<F>(&self, due_ms: i64, sweep: F)
    where
        F: Fn() -> Option<i64> + Clone + Send + 'static,
    {
        {
            let mut next = self.next();
            if next.is_some_and(|at| at <= due_ms) {
                return;
            }
            *next = Some(due_ms);
        }
        let at = UNIX_EPOCH + Duration::from_millis(u64::try_from(due_ms).unwrap_or(0));
        let when = self.scheduler.clock().moment_at(at);
        let job = self.clone();
        self.scheduler.at(when, move || job.run(due_ms, sweep));
    }

    fn run<F>(&self, for_ms: i64, sweep: F)
    where
        F: Fn() -> Option<i64> + Clone + Send + 'static,
    {
        {
            let mut next = self.next();
            // An earlier job took over, and scheduled what followed it.
            if *next != Some(for_ms) {
                return;
            }
            *next = None;
        }
        if let Some(due) = sweep() {
            self.by(due, sweep);
        }
    }

    fn next(&self) -> MutexGuard<'_, Option<i64>> {
        self.next_ms.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::clock::Clock;

    const MINUTE_MS: i64 = 60_000;

    /// Work due at stored moments, swept as a service sweeps its records.
    #[derive(Clone)]
    struct Pending {
        clock: Clock,
        due: Arc<Mutex<Vec<i64>>>,
        sweeps: Arc<AtomicUsize>,
    }

    impl Pending {
        fn sweep(&self) -> Option<i64> {
            self.sweeps.fetch_add(1, Ordering::SeqCst);
            let now = self.clock.epoch_millis();
            let mut due = self.due.lock().unwrap();
            due.retain(|&at| at > now);
            due.iter().copied().min()
        }

        fn add(&self, job: &DueJob, at: i64) {
            self.due.lock().unwrap().push(at);
            let pending = self.clone();
            job.by(at, move || pending.sweep());
        }

        fn left(&self) -> usize {
            self.due.lock().unwrap().len()
        }
    }

    fn setup() -> (Clock, DueJob, Pending, i64) {
        let clock = Clock::manual(UNIX_EPOCH + Duration::from_secs(1_800_000_000));
        let job = DueJob::new(Scheduler::new(clock.clone()));
        let pending = Pending {
            clock: clock.clone(),
            due: Arc::default(),
            sweeps: Arc::default(),
        };
        let now = clock.epoch_millis();
        (clock, job, pending, now)
    }

    #[test]
    fn work_is_done_when_due_and_the_job_follows_the_next_moment() {
        let (clock, job, pending, now) = setup();
        pending.add(&job, now + 10 * MINUTE_MS);
        pending.add(&job, now + 30 * MINUTE_MS);
        clock.advance(Duration::from_secs(9 * 60)).unwrap();
        assert_eq!(pending.left(), 2);
        clock.advance(Duration::from_secs(60)).unwrap();
        assert_eq!(pending.left(), 1);
        clock.advance(Duration::from_secs(20 * 60)).unwrap();
        assert_eq!(pending.left(), 0);
        assert_eq!(pending.sweeps.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn an_earlier_moment_supersedes_the_job_and_the_later_one_does_not_sweep_again() {
        let (clock, job, pending, now) = setup();
        pending.add(&job, now + 30 * MINUTE_MS);
        pending.add(&job, now + 5 * MINUTE_MS);
        clock.advance(Duration::from_secs(5 * 60)).unwrap();
        assert_eq!((pending.left(), pending.sweeps.load(Ordering::SeqCst)), (1, 1));
        // The job first registered for minute 30 finds itself superseded and does nothing;
        // the one the sweep at minute 5 scheduled sweeps once.
        clock.advance(Duration::from_secs(25 * 60)).unwrap();
        assert_eq!((pending.left(), pending.sweeps.load(Ordering::SeqCst)), (0, 2));
    }

    #[test]
    fn a_moment_already_past_is_swept_at_once() {
        let (clock, job, pending, now) = setup();
        pending.add(&job, now - MINUTE_MS);
        clock.advance(Duration::from_millis(1)).unwrap();
        assert_eq!(pending.left(), 0);
    }
}
