//! The one source of time: a [`Clock`] that services read instead of the system's clock, so
//! tests can move time forward without sleeping.
//!
//! A clock has two readings: wall time ([`Clock::now`] and the epoch helpers), which is what
//! services store and compare with what clients send, and a monotonic [`Moment`], which is
//! what deadlines are kept in (it never goes backwards, whatever the wall clock does).
//!
//! [`Clock::system`] reads the machine's clocks. [`Clock::manual`] stands still until told
//! to move ([`Clock::advance`], [`Clock::set`]); moving it lets every
//! [`Scheduler`](crate::scheduler::Scheduler) on it run what became due before the call
//! returns.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use stratus_core::clock::Clock;
//!
//! let clock = Clock::manual(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
//! let deadline = clock.moment_after(Duration::from_secs(30));
//! clock.advance(Duration::from_secs(30)).unwrap();
//! assert_eq!(clock.epoch_secs(), 1_700_000_030);
//! assert!(clock.moment() >= deadline);
//! ```

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A point on a clock's monotonic timeline: how long after the clock was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Moment(Duration);

impl Moment {
    /// How long after `earlier` this moment is (zero if it is not after it).
    pub fn since(self, earlier: Moment) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The moment `by` after this one.
    pub fn after(self, by: Duration) -> Moment {
        Moment(self.0.saturating_add(by))
    }
}

/// Why a clock refused to move.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClockError {
    /// Only a manual clock can be moved.
    #[error("the clock is the system clock; start Stratus with `--clock manual` to move time by hand")]
    NotManual,
    /// A manual clock's monotonic time only goes forward.
    #[error("time cannot be set back to before the clock's current time")]
    Backwards,
}

/// What is told when a manual clock moves (schedulers), so it can run what became due.
pub(crate) trait AdvanceListener: Send + Sync {
    /// The clock now reads `to`; returns once the work due by then has run.
    fn advanced(&self, to: Moment);
}

/// The time services read: the system's, or a manual clock's. Cheap to clone; clones share
/// one time.
#[derive(Clone)]
pub struct Clock {
    source: Arc<Source>,
}

enum Source {
    System { origin: Instant },
    Manual(Manual),
}

struct Manual {
    reading: Mutex<Reading>,
    listeners: Mutex<Vec<Weak<dyn AdvanceListener>>>,
}

#[derive(Clone, Copy)]
struct Reading {
    wall: SystemTime,
    elapsed: Duration,
}

impl Clock {
    /// The machine's clock.
    #[allow(clippy::disallowed_methods)] // the one place the machine's clocks are read
    pub fn system() -> Clock {
        Clock {
            source: Arc::new(Source::System { origin: Instant::now() }),
        }
    }

    /// A clock that reads `start` and moves only when told.
    pub fn manual(start: SystemTime) -> Clock {
        Clock {
            source: Arc::new(Source::Manual(Manual {
                reading: Mutex::new(Reading {
                    wall: start,
                    elapsed: Duration::ZERO,
                }),
                listeners: Mutex::default(),
            })),
        }
    }

    /// A manual clock that starts at the system's time.
    pub fn manual_from_system_time() -> Clock {
        Clock::manual(Clock::system().now())
    }

    /// Whether this clock moves only when told (see [`Clock::advance`]).
    pub fn is_manual(&self) -> bool {
        matches!(*self.source, Source::Manual(_))
    }

    /// The wall time.
    #[allow(clippy::disallowed_methods)] // the one place the machine's clocks are read
    pub fn now(&self) -> SystemTime {
        match &*self.source {
            Source::System { .. } => SystemTime::now(),
            Source::Manual(manual) => manual.read().wall,
        }
    }

    /// The wall time in milliseconds since the Unix epoch (negative before it).
    pub fn epoch_millis(&self) -> i64 {
        match self.now().duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
        }
    }

    /// The wall time in whole seconds since the Unix epoch (zero before it).
    pub fn epoch_secs(&self) -> u64 {
        self.now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }

    /// The wall time in seconds since the Unix epoch, with fractions.
    pub fn epoch_secs_f64(&self) -> f64 {
        self.epoch_millis() as f64 / 1000.0
    }

    /// The current moment on the monotonic timeline.
    pub fn moment(&self) -> Moment {
        match &*self.source {
            Source::System { origin } => Moment(origin.elapsed()),
            Source::Manual(manual) => Moment(manual.read().elapsed),
        }
    }

    /// The moment `by` from now.
    pub fn moment_after(&self, by: Duration) -> Moment {
        self.moment().after(by)
    }

    /// The moment the wall clock will read `at` (now, if that is past).
    pub fn moment_at(&self, at: SystemTime) -> Moment {
        self.moment_after(at.duration_since(self.now()).unwrap_or(Duration::ZERO))
    }

    /// Moves a manual clock forward by `by`, then waits until every scheduler on it has run
    /// what became due. Never call it from work a scheduler runs.
    pub fn advance(&self, by: Duration) -> Result<(), ClockError> {
        let manual = self.manual_source()?;
        let to = {
            let mut reading = manual.reading.lock().unwrap_or_else(PoisonError::into_inner);
            reading.wall += by;
            reading.elapsed += by;
            Moment(reading.elapsed)
        };
        manual.tell(to);
        Ok(())
    }

    /// Sets a manual clock's wall time to `to`, which must not be before its current time;
    /// the monotonic time moves forward as far.
    pub fn set(&self, to: SystemTime) -> Result<(), ClockError> {
        let now = self.manual_source()?.read().wall;
        let by = to.duration_since(now).map_err(|_| ClockError::Backwards)?;
        self.advance(by)
    }

    /// Tells `listener` whenever this (manual) clock moves; nothing for the system clock.
    pub(crate) fn listen(&self, listener: Weak<dyn AdvanceListener>) {
        if let Source::Manual(manual) = &*self.source {
            let mut listeners = manual.listeners.lock().unwrap_or_else(PoisonError::into_inner);
            listeners.retain(|l| l.strong_count() > 0);
            listeners.push(listener);
        }
    }

    fn manual_source(&self) -> Result<&Manual, ClockError> {
        match &*self.source {
            Source::Manual(manual) => Ok(manual),
            Source::System { .. } => Err(ClockError::NotManual),
        }
    }
}

impl Manual {
    fn read(&self) -> Reading {
        *self.reading.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tell(&self, to: Moment) {
        let listeners: Vec<_> = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for listener in listeners {
            listener.advanced(to);
        }
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.source {
            Source::System { .. } => f.write_str("Clock::system"),
            Source::Manual(manual) => f.debug_tuple("Clock::manual").field(&manual.read().wall).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: Duration = Duration::from_secs(1_700_000_000);

    #[test]
    fn a_manual_clock_stands_still_until_moved() {
        let clock = Clock::manual(UNIX_EPOCH + START);
        let (wall, moment) = (clock.now(), clock.moment());
        assert_eq!((clock.now(), clock.moment()), (wall, moment));
        clock.advance(Duration::from_millis(1500)).unwrap();
        assert_eq!(clock.epoch_millis(), 1_700_000_001_500);
        assert_eq!(clock.epoch_secs(), 1_700_000_001);
        assert_eq!(clock.epoch_secs_f64(), 1_700_000_001.5);
        assert_eq!(clock.moment().since(moment), Duration::from_millis(1500));
    }

    #[test]
    fn clones_share_one_time() {
        let clock = Clock::manual(UNIX_EPOCH + START);
        let other = clock.clone();
        other.advance(Duration::from_secs(5)).unwrap();
        assert_eq!(clock.epoch_secs(), 1_700_000_005);
    }

    #[test]
    fn set_moves_forward_only() {
        let clock = Clock::manual(UNIX_EPOCH + START);
        let deadline = clock.moment_at(UNIX_EPOCH + START + Duration::from_secs(60));
        clock.set(UNIX_EPOCH + START + Duration::from_secs(60)).unwrap();
        assert_eq!(clock.moment(), deadline);
        assert_eq!(clock.set(UNIX_EPOCH + START), Err(ClockError::Backwards));
        assert_eq!(clock.moment_at(UNIX_EPOCH), clock.moment(), "a past time is now");
    }

    #[test]
    fn the_system_clock_cannot_be_moved() {
        let clock = Clock::system();
        assert!(!clock.is_manual());
        assert_eq!(clock.advance(Duration::from_secs(1)), Err(ClockError::NotManual));
        assert!(clock.epoch_secs() > START.as_secs());
        let before = clock.moment();
        assert!(clock.moment() >= before);
    }

    #[test]
    fn times_before_the_epoch_are_negative_millis() {
        let clock = Clock::manual(UNIX_EPOCH - Duration::from_millis(1500));
        assert_eq!(clock.epoch_millis(), -1500);
        assert_eq!(clock.epoch_secs(), 0);
    }
}
