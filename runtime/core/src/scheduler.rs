//! The one scheduler of background work: deadlines (run this once at a moment) and periodic
//! sweeps (run this every interval until it says stop), on one thread.
//!
//! The thread starts with the first registration, sleeps on a condition variable until the
//! earliest job is due, and ends when no job is left — so a process with nothing to time has
//! no thread and makes no wakeups. It needs no async runtime: an async task waits for a
//! deadline with [`Scheduler::sleep_until`], whose future is woken by the thread.
//!
//! Jobs run on the scheduler's thread, one at a time, so they should be short (wake a task,
//! sweep a store); a long one delays the others. A periodic job that falls behind (the
//! system slept, or a manual clock jumped a day) runs once and is next due an interval later.
//!
//! On a manual [`Clock`], nothing is due until the clock moves, and
//! [`Clock::advance`] returns only once the thread has run everything that became due, so a
//! test moves time and looks at the result without sleeping:
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use std::sync::Arc;
//! use std::time::{Duration, UNIX_EPOCH};
//! use stratus_core::clock::Clock;
//! use stratus_core::scheduler::Scheduler;
//!
//! let clock = Clock::manual(UNIX_EPOCH);
//! let scheduler = Scheduler::new(clock.clone());
//! let fired = Arc::new(AtomicBool::new(false));
//! let flag = fired.clone();
//! scheduler.after(Duration::from_secs(60), move || flag.store(true, Ordering::SeqCst));
//! clock.advance(Duration::from_secs(59)).unwrap();
//! assert!(!fired.load(Ordering::SeqCst));
//! clock.advance(Duration::from_secs(1)).unwrap();
//! assert!(fired.load(Ordering::SeqCst));
//! ```

mod due;

pub use due::DueJob;

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::clock::{AdvanceListener, Clock, Moment};

/// What a periodic job answers after each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Run again an interval from now.
    Again,
    /// Nothing left to do: forget the job.
    Stop,
}

/// Names a registered job, to cancel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobId(u64);

/// The scheduler of one process (see the module docs). Cheap to clone; clones share one
/// thread and one set of jobs.
#[derive(Clone)]
pub struct Scheduler {
    shared: Arc<Shared>,
}

struct Shared {
    clock: Clock,
    state: Mutex<State>,
    /// Signalled when a job is added or the clock moves.
    changed: Condvar,
    /// Signalled when the thread has run everything due by `State::caught_up`.
    caught_up: Condvar,
}

enum Job {
    Once(Box<dyn FnOnce() + Send>),
    Every {
        interval: Duration,
        run: Box<dyn FnMut() -> Repeat + Send>,
    },
}

#[derive(Default)]
struct State {
    jobs: BTreeMap<(Moment, u64), Job>,
    /// When each registered job is due; `None` while it runs.
    due: HashMap<u64, Option<Moment>>,
    next_id: u64,
    running: bool,
    /// The thread has run every job due by this moment.
    caught_up: Moment,
    threads_started: u64,
}

impl Scheduler {
    /// A scheduler on `clock`, with no thread until the first job.
    pub fn new(clock: Clock) -> Scheduler {
        let shared = Arc::new(Shared {
            clock,
            state: Mutex::default(),
            changed: Condvar::new(),
            caught_up: Condvar::new(),
        });
        let listener: Weak<Shared> = Arc::downgrade(&shared);
        shared.clock.listen(listener as Weak<dyn AdvanceListener>);
        Scheduler { shared }
    }

    /// The clock the scheduler keeps time by.
    pub fn clock(&self) -> &Clock {
        &self.shared.clock
    }

    /// Runs `job` once at `when` (at once if that has passed).
    pub fn at(&self, when: Moment, job: impl FnOnce() + Send + 'static) -> JobId {
        self.shared.add(when, Job::Once(Box::new(job)))
    }

    /// Runs `job` once, `delay` from now.
    pub fn after(&self, delay: Duration, job: impl FnOnce() + Send + 'static) -> JobId {
        self.at(self.shared.clock.moment_after(delay), job)
    }

    /// Runs `job` every `interval`, the first time an interval from now, until it answers
    /// [`Repeat::Stop`] or is cancelled.
    pub fn every(&self, interval: Duration, job: impl FnMut() -> Repeat + Send + 'static) -> JobId {
        let first = self.shared.clock.moment_after(interval);
        self.shared.add(
            first,
            Job::Every {
                interval,
                run: Box::new(job),
            },
        )
    }

    /// Forgets job `id` (a running one is not run again); returns whether it was registered.
    pub fn cancel(&self, id: JobId) -> bool {
        let mut state = self.shared.lock();
        match state.due.remove(&id.0) {
            Some(Some(when)) => {
                state.jobs.remove(&(when, id.0));
                true
            }
            Some(None) => true,
            None => false,
        }
    }

    /// A future that completes at `when`; dropping it first cancels the deadline.
    pub fn sleep_until(&self, when: Moment) -> Sleep {
        let wake = Arc::new(Mutex::new(Wake::default()));
        let fired = wake.clone();
        let id = self.at(when, move || {
            let mut wake = fired.lock().unwrap_or_else(PoisonError::into_inner);
            wake.fired = true;
            if let Some(waker) = wake.waker.take() {
                waker.wake();
            }
        });
        Sleep {
            scheduler: self.clone(),
            id,
            wake,
        }
    }

    /// Whether the thread is running (it is only while some job is registered).
    pub fn is_running(&self) -> bool {
        self.shared.lock().running
    }

    /// How many jobs are registered.
    pub fn pending(&self) -> usize {
        self.shared.lock().due.len()
    }

    /// How many times a thread has been started.
    pub fn threads_started(&self) -> u64 {
        self.shared.lock().threads_started
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(self: &Arc<Self>, when: Moment, job: Job) -> JobId {
        let mut state = self.lock();
        state.next_id += 1;
        let id = state.next_id;
        state.jobs.insert((when, id), job);
        state.due.insert(id, Some(when));
        if !state.running {
            let shared = self.clone();
            match std::thread::Builder::new()
                .name("scheduler".into())
                .spawn(move || shared.run())
            {
                Ok(_) => {
                    state.running = true;
                    state.threads_started += 1;
                }
                // The core has no logger. The jobs wait for the next registration to try again.
                Err(e) => eprintln!("stratus: cannot start the scheduler thread: {e}"),
            }
        }
        self.changed.notify_one();
        JobId(id)
    }

    /// The thread: runs due jobs, sleeps until the next, and ends when none is left.
    fn run(&self) {
        let mut state = self.lock();
        loop {
            let Some(&(when, id)) = state.jobs.keys().next() else {
                state.running = false;
                self.caught_up.notify_all();
                return;
            };
            let now = self.clock.moment();
            if when <= now {
                let Some(job) = state.jobs.remove(&(when, id)) else {
                    continue;
                };
                state.due.insert(id, None);
                drop(state);
                let again = match job {
                    Job::Once(run) => {
                        run();
                        None
                    }
                    Job::Every { interval, mut run } => (run() == Repeat::Again)
                        .then_some(Job::Every { interval, run })
                        .map(|j| (interval, j)),
                };
                state = self.lock();
                match again {
                    // Unless it was cancelled while it ran.
                    Some((interval, job)) if state.due.contains_key(&id) => {
                        let next = self.clock.moment_after(interval);
                        state.jobs.insert((next, id), job);
                        state.due.insert(id, Some(next));
                    }
                    _ => {
                        state.due.remove(&id);
                    }
                }
                continue;
            }
            state.caught_up = now;
            self.caught_up.notify_all();
            state = if self.clock.is_manual() {
                // Only `advance` (or a new job) changes what is due.
                self.changed.wait(state).unwrap_or_else(PoisonError::into_inner)
            } else {
                self.changed
                    .wait_timeout(state, when.since(now))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            };
        }
    }
}

impl AdvanceListener for Shared {
    fn advanced(&self, to: Moment) {
        let mut state = self.lock();
        self.changed.notify_all();
        while state.running && state.caught_up < to {
            state = self.caught_up.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[derive(Default)]
struct Wake {
    fired: bool,
    waker: Option<Waker>,
}

/// A deadline an async task waits for ([`Scheduler::sleep_until`]).
pub struct Sleep {
    scheduler: Scheduler,
    id: JobId,
    wake: Arc<Mutex<Wake>>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut wake = self.wake.lock().unwrap_or_else(PoisonError::into_inner);
        if wake.fired {
            return Poll::Ready(());
        }
        match &wake.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => wake.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.scheduler.cancel(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::UNIX_EPOCH;

    fn manual() -> (Clock, Scheduler) {
        let clock = Clock::manual(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
        (clock.clone(), Scheduler::new(clock))
    }

    /// The names of the jobs that ran, in order.
    type Log = Arc<Mutex<Vec<&'static str>>>;

    /// A job that adds `name` to `log` when it runs.
    fn record(log: &Log, name: &'static str) -> impl FnOnce() + Send + 'static {
        let log = log.clone();
        move || log.lock().unwrap().push(name)
    }

    #[test]
    fn no_thread_before_the_first_job() {
        let (_, scheduler) = manual();
        assert!(!scheduler.is_running());
        assert_eq!(scheduler.threads_started(), 0);
        scheduler.after(Duration::from_secs(1), || {});
        assert!(scheduler.is_running());
        assert_eq!(scheduler.threads_started(), 1);
    }

    #[test]
    fn deadlines_run_in_order_of_time_when_the_clock_reaches_them() {
        let (clock, scheduler) = manual();
        let log = Log::default();
        scheduler.after(Duration::from_secs(30), record(&log, "late"));
        scheduler.after(Duration::from_secs(10), record(&log, "early"));
        scheduler.after(Duration::from_secs(10), record(&log, "early, registered second"));
        clock.advance(Duration::from_secs(9)).unwrap();
        assert!(log.lock().unwrap().is_empty());
        clock.advance(Duration::from_secs(30)).unwrap();
        assert_eq!(*log.lock().unwrap(), ["early", "early, registered second", "late"]);
    }

    #[test]
    fn a_past_deadline_runs_at_once() {
        let (_, scheduler) = manual();
        let (done, wait) = mpsc::channel();
        scheduler.at(Moment::default(), move || done.send(()).unwrap());
        wait.recv_timeout(Duration::from_secs(10)).unwrap();
    }

    #[test]
    fn cancelled_jobs_do_not_run() {
        let (clock, scheduler) = manual();
        let log = Log::default();
        let id = scheduler.after(Duration::from_secs(5), record(&log, "cancelled"));
        scheduler.after(Duration::from_secs(6), record(&log, "kept"));
        assert!(scheduler.cancel(id));
        assert!(!scheduler.cancel(id));
        clock.advance(Duration::from_secs(10)).unwrap();
        assert_eq!(*log.lock().unwrap(), ["kept"]);
    }

    #[test]
    fn periodic_jobs_run_each_interval_until_they_stop() {
        let (clock, scheduler) = manual();
        let runs = Arc::new(Mutex::new(0));
        let counter = runs.clone();
        scheduler.every(Duration::from_secs(60), move || {
            let mut runs = counter.lock().unwrap();
            *runs += 1;
            if *runs == 3 {
                Repeat::Stop
            } else {
                Repeat::Again
            }
        });
        clock.advance(Duration::from_secs(59)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 0);
        clock.advance(Duration::from_secs(1)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 1);
        // A jump of many intervals runs the job once.
        clock.advance(Duration::from_secs(600)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 2);
        clock.advance(Duration::from_secs(60)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 3);
        clock.advance(Duration::from_secs(600)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 3);
        assert_eq!(scheduler.pending(), 0);
    }

    #[test]
    fn a_cancelled_periodic_job_stops() {
        let (clock, scheduler) = manual();
        let runs = Arc::new(Mutex::new(0));
        let counter = runs.clone();
        let id = scheduler.every(Duration::from_secs(1), move || {
            *counter.lock().unwrap() += 1;
            Repeat::Again
        });
        clock.advance(Duration::from_secs(1)).unwrap();
        scheduler.cancel(id);
        clock.advance(Duration::from_secs(5)).unwrap();
        assert_eq!(*runs.lock().unwrap(), 1);
    }

    #[test]
    fn the_thread_ends_when_nothing_is_left_and_a_new_job_starts_another() {
        let (clock, scheduler) = manual();
        scheduler.after(Duration::from_secs(1), || {});
        clock.advance(Duration::from_secs(1)).unwrap();
        // `advance` returns once the thread has run the job; it ends right after.
        while scheduler.is_running() {
            std::thread::yield_now();
        }
        assert_eq!(scheduler.pending(), 0);
        scheduler.after(Duration::from_secs(1), || {});
        assert_eq!(scheduler.threads_started(), 2);
    }

    #[test]
    fn the_system_clock_runs_deadlines_when_they_are_due() {
        let clock = Clock::system();
        let scheduler = Scheduler::new(clock.clone());
        let (done, wait) = mpsc::channel();
        let start = clock.moment();
        let late = done.clone();
        scheduler.after(Duration::from_millis(40), move || late.send("late").unwrap());
        scheduler.after(Duration::from_millis(10), move || done.send("early").unwrap());
        assert_eq!(wait.recv_timeout(Duration::from_secs(10)).unwrap(), "early");
        assert_eq!(wait.recv_timeout(Duration::from_secs(10)).unwrap(), "late");
        assert!(clock.moment().since(start) >= Duration::from_millis(40));
    }

    #[test]
    fn sleep_completes_when_due_and_cancels_when_dropped() {
        let (clock, scheduler) = manual();
        let mut due = Box::pin(scheduler.sleep_until(clock.moment_after(Duration::from_secs(5))));
        let dropped = scheduler.sleep_until(clock.moment_after(Duration::from_secs(5)));
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        assert!(due.as_mut().poll(&mut cx).is_pending());
        assert_eq!(scheduler.pending(), 2);
        drop(dropped);
        assert_eq!(scheduler.pending(), 1);
        clock.advance(Duration::from_secs(5)).unwrap();
        assert!(due.as_mut().poll(&mut cx).is_ready());
    }
}
