//! The binary's async runtime, as services see it: work that outlives the request that
//! caused it (a queued delivery, a scheduled rule's targets) is spawned through a
//! [`Spawner`], so no service looks for a runtime of its own or waits for one to exist.
//!
//! The binary builds its runtime before it registers the services and hands each the same
//! spawner (`ServiceEnv::spawner`); this crate stays free of any particular runtime. It is a
//! [held](Spawner::held) one: what a registration starts (a delivery resumed after a restart)
//! waits until every service has registered, since it may call one registered later.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use super::BoxFuture;

/// Runs futures to completion on the binary's runtime, detached from the caller.
#[derive(Clone)]
pub struct Spawner(Arc<dyn Fn(BoxFuture<'static, ()>) + Send + Sync>);

impl Spawner {
    /// The spawner that hands each future to `spawn` (the binary's: `handle.spawn(future)`).
    pub fn new(spawn: impl Fn(BoxFuture<'static, ()>) + Send + Sync + 'static) -> Spawner {
        Spawner(Arc::new(spawn))
    }

    /// A spawner that keeps what it is given until the [`Gate`] opens, then hands that to
    /// `spawn` in the order it came, and everything after it straight away.
    pub fn held(spawn: impl Fn(BoxFuture<'static, ()>) + Send + Sync + 'static) -> (Spawner, Gate) {
        let gate = Gate {
            spawn: Arc::new(spawn),
            held: Arc::new(Mutex::new(Some(Vec::new()))),
        };
        let inner = gate.clone();
        let spawner = Spawner::new(move |work| {
            let mut held = inner.held.lock().unwrap_or_else(PoisonError::into_inner);
            match held.as_mut() {
                Some(waiting) => waiting.push(work),
                None => {
                    drop(held);
                    (inner.spawn)(work);
                }
            }
        });
        (spawner, gate)
    }

    /// Runs `work` on the runtime; the caller does not wait for it.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        (self.0)(Box::pin(work));
    }
}

/// What holds a [`Spawner::held`]'s work back until [`open`](Gate::open).
#[derive(Clone)]
pub struct Gate {
    spawn: Arc<dyn Fn(BoxFuture<'static, ()>) + Send + Sync>,
    held: Arc<Mutex<Option<Vec<BoxFuture<'static, ()>>>>>,
}

impl Gate {
    /// Runs the work held so far and lets later work through; opening twice does nothing.
    pub fn open(&self) {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner).take();
        for work in held.into_iter().flatten() {
            (self.spawn)(work);
        }
    }
}

impl fmt::Debug for Spawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Spawner")
    }
}

#[cfg(test)]
mod tests {
    use std::task::{Context, Waker};

    use super::*;

    /// A spawner that runs each future at once (they never wait), and the numbers they log.
    fn immediate() -> (Spawner, Gate) {
        Spawner::held(|mut work| {
            let _ = work.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        })
    }

    fn log(spawner: &Spawner, ran: &Arc<Mutex<Vec<u32>>>, n: u32) {
        let ran = ran.clone();
        spawner.spawn(async move { ran.lock().unwrap().push(n) });
    }

    #[test]
    fn held_work_waits_for_the_gate_then_runs_in_order() {
        let (spawner, gate) = immediate();
        let ran = Arc::new(Mutex::new(Vec::new()));
        log(&spawner, &ran, 1);
        log(&spawner, &ran, 2);
        assert!(ran.lock().unwrap().is_empty(), "nothing runs before the gate opens");
        gate.open();
        assert_eq!(*ran.lock().unwrap(), vec![1, 2]);
        log(&spawner, &ran, 3);
        assert_eq!(
            *ran.lock().unwrap(),
            vec![1, 2, 3],
            "after the gate, work goes straight through"
        );
        gate.open();
        assert_eq!(*ran.lock().unwrap(), vec![1, 2, 3], "a second open runs nothing again");
    }
}
