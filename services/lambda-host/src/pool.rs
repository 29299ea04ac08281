//! The instances of every function: which are busy, which idle, and how many a function may
//! have (`max_concurrency`, counted over all its versions as reserved concurrency is).
//!
//! An idle instance has one tokio timer, started when it became idle and aborted when it is
//! taken again; when it fires the instance is stopped. Nothing else runs: no instance, no
//! task. An instance of an older revision is never handed out again and is stopped as soon
//! as it is idle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use stratus_core::clock::Clock;
use tokio::task::AbortHandle;

use crate::instance::Instance;
use crate::{FunctionSpec, HostError};

/// What [`Pool::acquire`] found.
pub(crate) enum Acquired {
    /// An idle instance, now busy.
    Warm(Arc<Instance>),
    /// Room for a new instance, reserved: start it and hand it to [`Pool::started`].
    Cold,
}

/// A place in the pool, held for one invocation: it is given back (and the instance kept or
/// stopped) by [`Lease::release`], or, if the invocation is dropped half-way, when dropped.
pub(crate) struct Lease {
    pool: Arc<Pool>,
    arn: String,
    id: u64,
    released: bool,
}

impl Lease {
    /// Gives the place back: the instance stays warm if `reusable`.
    pub(crate) fn release(mut self, reusable: bool) {
        self.released = true;
        self.pool.release(&self.arn, self.id, reusable);
    }

    /// Records the instance a cold lease started; `false` if the function was stopped
    /// meanwhile (the instance must not run).
    pub(crate) fn started(&self, instance: Arc<Instance>) -> bool {
        let mut functions = self.pool.lock();
        let member = functions
            .get_mut(&self.arn)
            .and_then(|f| f.members.iter_mut().find(|m| m.id == self.id));
        let Some(member) = member else { return false };
        // An instance whose process exits leaves the pool at once (a busy one when its
        // invocation is released): the watch lives as long as the process.
        let exit = instance.exit();
        member.instance = Some(instance);
        let (pool, arn, id) = (self.pool.this.clone(), self.arn.clone(), self.id);
        tokio::spawn(async move {
            exit.await;
            if let Some(pool) = pool.upgrade() {
                pool.expire(&arn, id);
            }
        });
        true
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if !self.released {
            self.pool.release(&self.arn, self.id, false);
        }
    }
}

struct Member {
    id: u64,
    version: String,
    revision: String,
    /// `None` while it starts.
    instance: Option<Arc<Instance>>,
    busy: bool,
    idle_timer: Option<AbortHandle>,
}

impl Member {
    fn stop(&mut self) {
        if let Some(timer) = self.idle_timer.take() {
            timer.abort();
        }
        if let Some(instance) = &self.instance {
            instance.kill();
        }
    }

    /// Stops it as an idle instance is stopped: its extensions are told first.
    fn spin_down(mut self, clock: &Clock) {
        if let Some(timer) = self.idle_timer.take() {
            timer.abort();
        }
        if let Some(instance) = self.instance.take() {
            instance.spin_down(clock);
        }
    }
}

#[derive(Default)]
struct Function {
    members: Vec<Member>,
    /// The newest revision invoked, per version.
    revisions: HashMap<String, String>,
}

/// Every function's instances.
pub(crate) struct Pool {
    functions: Mutex<HashMap<String, Function>>,
    next_id: Mutex<u64>,
    idle_timeout: Duration,
    /// For the deadline extensions are given when an instance spins down.
    clock: Clock,
    /// Itself, for the idle timers (which must not keep the pool alive).
    this: Weak<Pool>,
}

impl Pool {
    pub(crate) fn new(idle_timeout: Duration, clock: Clock) -> Arc<Pool> {
        Arc::new_cyclic(|this| Pool {
            functions: Mutex::default(),
            next_id: Mutex::new(0),
            idle_timeout,
            clock,
            this: this.clone(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Function>> {
        self.functions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// An idle instance of `spec`'s version and revision, or room for a new one.
    pub(crate) fn acquire(self: &Arc<Self>, spec: &FunctionSpec) -> Result<(Lease, Acquired), HostError> {
        // Reserved concurrency 0 throttles every invoke, warm instance or not.
        if spec.max_concurrency == 0 {
            return Err(HostError::TooManyRequests);
        }
        let id = {
            let mut next = self.next_id.lock().unwrap_or_else(PoisonError::into_inner);
            *next += 1;
            *next
        };
        let mut functions = self.lock();
        let function = functions.entry(spec.function_arn.clone()).or_default();
        function.revisions.insert(spec.version.clone(), spec.revision.clone());
        function.members.retain_mut(|member| {
            let dead = member.instance.as_ref().is_some_and(|i| i.has_exited());
            let stale = !member.busy && member.version == spec.version && member.revision != spec.revision;
            if dead || stale {
                member.stop();
            }
            !(dead || stale)
        });
        let lease = |id| Lease {
            pool: self.clone(),
            arn: spec.function_arn.clone(),
            id,
            released: false,
        };
        let idle = function.members.iter_mut().find(|member| {
            !member.busy
                && member.instance.is_some()
                && member.version == spec.version
                && member.revision == spec.revision
        });
        if let Some(member) = idle {
            if let Some(timer) = member.idle_timer.take() {
                timer.abort();
            }
            member.busy = true;
            if let Some(instance) = member.instance.clone() {
                return Ok((lease(member.id), Acquired::Warm(instance)));
            }
        }
        if function.members.len() >= usize::try_from(spec.max_concurrency).unwrap_or(usize::MAX) {
            return Err(HostError::TooManyRequests);
        }
        function.members.push(Member {
            id,
            version: spec.version.clone(),
            revision: spec.revision.clone(),
            instance: None,
            busy: true,
            idle_timer: None,
        });
        Ok((lease(id), Acquired::Cold))
    }

    fn release(&self, arn: &str, id: u64, reusable: bool) {
        let mut functions = self.lock();
        let Some(function) = functions.get_mut(arn) else { return };
        let Some(index) = function.members.iter().position(|m| m.id == id) else {
            return;
        };
        let current = function.revisions.get(&function.members[index].version).cloned();
        let member = &mut function.members[index];
        let alive = member.instance.as_ref().is_some_and(|i| !i.has_exited());
        if !(reusable && alive && current.as_deref() == Some(member.revision.as_str())) {
            let mut member = function.members.swap_remove(index);
            member.stop();
            if function.members.is_empty() {
                functions.remove(arn);
            }
            return;
        }
        member.busy = false;
        let pool = self.this.clone();
        let arn = arn.to_owned();
        let idle_timeout = self.idle_timeout;
        member.idle_timer = Some(
            tokio::spawn(async move {
                tokio::time::sleep(idle_timeout).await;
                if let Some(pool) = pool.upgrade() {
                    pool.expire(&arn, id);
                }
            })
            .abort_handle(),
        );
    }

    /// Stops instance `id` if it is idle (its idle timer fired, or its process exited).
    fn expire(&self, arn: &str, id: u64) {
        let mut functions = self.lock();
        let Some(function) = functions.get_mut(arn) else { return };
        if let Some(index) = function.members.iter().position(|m| m.id == id && !m.busy) {
            function.members.swap_remove(index).spin_down(&self.clock);
        }
        if function.members.is_empty() {
            functions.remove(arn);
        }
    }

    /// Stops every instance of `arn`, busy ones too.
    pub(crate) fn stop_function(&self, arn: &str) {
        let removed = self.lock().remove(arn);
        for mut member in removed.into_iter().flat_map(|f| f.members) {
            member.stop();
        }
    }

    /// Stops every instance.
    pub(crate) fn stop_all(&self) {
        let removed = std::mem::take(&mut *self.lock());
        for mut member in removed.into_values().flat_map(|f| f.members) {
            member.stop();
        }
    }

    /// How many instances `arn` has (running or starting).
    pub(crate) fn instances(&self, arn: &str) -> usize {
        self.lock().get(arn).map_or(0, |f| f.members.len())
    }
}
