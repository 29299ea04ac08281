use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use stratus_core::Clock;
use stratus_storage::StorageConfig;

use super::*;

const WAIT: Duration = Duration::from_secs(10);

/// Fails each item as often as its number says, then delivers it; reports every attempt.
struct Flaky {
    attempts: mpsc::Sender<(String, u32)>,
    retry_after: Duration,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

impl Courier<(String, u32)> for Flaky {
    fn deliver<'a>(&'a self, _to: &'a Place, entry: &'a Entry<(String, u32)>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_in_flight.fetch_max(now, Ordering::SeqCst);
            tokio::task::yield_now().await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            let _ = self.attempts.send((entry.item.0.clone(), entry.attempts));
            if entry.attempts < entry.item.1 {
                Next::Retry(self.retry_after)
            } else {
                Next::Done
            }
        })
    }
}

struct World {
    runtime: tokio::runtime::Runtime,
    clock: Clock,
    outbox: Outbox<(String, u32)>,
    courier: Arc<Flaky>,
    attempts: mpsc::Receiver<(String, u32)>,
}

fn world(storage: Storage, retry_after: Duration) -> World {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let handle = runtime.handle().clone();
    let spawner = Spawner::new(move |work| drop(handle.spawn(work)));
    let clock = Clock::manual(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    let scheduler = Scheduler::new(clock.clone());
    let outbox = Outbox::new("deliveries", "sns", &Arc::new(storage), &scheduler, &spawner);
    let (sender, attempts) = mpsc::channel();
    let courier = Arc::new(Flaky {
        attempts: sender,
        retry_after,
        in_flight: AtomicUsize::new(0),
        most_in_flight: AtomicUsize::new(0),
    });
    World {
        runtime,
        clock,
        outbox,
        courier,
        attempts,
    }
}

impl World {
    fn accept(&self, items: &[(&str, u32)]) {
        let store = self.outbox.inner.store(&place()).unwrap();
        let outbox = self.outbox.clone();
        let items: Vec<(String, u32)> = items.iter().map(|(name, fails)| ((*name).to_owned(), *fails)).collect();
        store
            .transact(|tx| {
                for item in items {
                    outbox.put(tx, item)?;
                }
                Ok::<_, StorageError>(())
            })
            .unwrap();
        self.outbox.wake("000000000000", "us-east-1");
    }

    fn next_attempt(&self) -> (String, u32) {
        self.attempts.recv_timeout(WAIT).expect("an attempt")
    }

    fn no_attempt_for(&self, wait: Duration) {
        assert!(self.attempts.recv_timeout(wait).is_err(), "no attempt was due");
    }

    fn pending(&self) -> Vec<Entry<(String, u32)>> {
        self.outbox.pending("000000000000", "us-east-1").unwrap()
    }

    /// Waits until the entry's failed attempt is written back, so the clock moves on from
    /// the time its retry was set by.
    fn written_back(&self, attempts: u32) -> Entry<(String, u32)> {
        for _ in 0..200 {
            if let Some(entry) = self.pending().into_iter().find(|e| e.attempts == attempts) {
                return entry;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("attempt {attempts} was not written back");
    }

    fn settle(&self) {
        // The drain removes an entry just after its attempt; wait for that write.
        for _ in 0..200 {
            if self.pending().is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn place() -> Place {
    Place {
        account: "000000000000".to_owned(),
        region: "us-east-1".to_owned(),
    }
}

#[test]
fn accepted_entries_are_delivered_in_order_and_removed() {
    let w = world(Storage::open(StorageConfig::Ephemeral).unwrap(), Duration::from_secs(1));
    w.outbox.start(w.courier.clone());
    w.accept(&[("a", 0), ("b", 0), ("c", 0)]);
    let order: Vec<String> = (0..3).map(|_| w.next_attempt().0).collect();
    assert_eq!(order, ["a", "b", "c"]);
    w.settle();
    assert!(w.pending().is_empty());
    drop(w.runtime);
}

#[test]
fn a_retried_entry_waits_for_the_clock_and_counts_its_attempts() {
    let w = world(
        Storage::open(StorageConfig::Ephemeral).unwrap(),
        Duration::from_secs(60),
    );
    w.outbox.start(w.courier.clone());
    w.accept(&[("flaky", 2)]);
    assert_eq!(w.next_attempt(), ("flaky".to_owned(), 0));
    let waiting = w.written_back(1);
    assert_eq!(waiting.due_ms - waiting.accepted_ms, 60_000);
    w.no_attempt_for(Duration::from_millis(100));
    w.clock.advance(Duration::from_secs(60)).unwrap();
    assert_eq!(w.next_attempt(), ("flaky".to_owned(), 1));
    w.written_back(2);
    w.clock.advance(Duration::from_secs(60)).unwrap();
    assert_eq!(w.next_attempt(), ("flaky".to_owned(), 2));
    w.settle();
    assert!(w.pending().is_empty());
}

#[test]
fn one_drain_at_a_time_however_often_it_is_woken() {
    let w = world(Storage::open(StorageConfig::Ephemeral).unwrap(), Duration::ZERO);
    w.outbox.start(w.courier.clone());
    for i in 0..20 {
        w.accept(&[(&format!("m{i}"), i % 3)]);
    }
    // Seven items fail no attempt, seven one, six two: 7 + 14 + 18 attempts.
    for _ in 0..39 {
        w.next_attempt();
    }
    w.no_attempt_for(Duration::from_millis(50));
    w.settle();
    assert_eq!(w.courier.most_in_flight.load(Ordering::SeqCst), 1);
}

#[test]
fn entries_left_by_a_stopped_process_are_delivered_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let w = world(
            Storage::open(StorageConfig::DataDir(dir.path().to_owned())).unwrap(),
            Duration::from_secs(1),
        );
        // Not started: the process stops before delivering.
        let store = w.outbox.inner.store(&place()).unwrap();
        let outbox = w.outbox.clone();
        store.transact(|tx| outbox.put(tx, ("left".to_owned(), 0))).unwrap();
    }
    let w = world(
        Storage::open(StorageConfig::DataDir(dir.path().to_owned())).unwrap(),
        Duration::from_secs(1),
    );
    w.outbox.start(w.courier.clone());
    assert_eq!(w.next_attempt(), ("left".to_owned(), 0));
    w.settle();
    assert!(w.pending().is_empty());
}

#[test]
fn an_idle_outbox_sets_no_deadline() {
    let w = world(Storage::open(StorageConfig::Ephemeral).unwrap(), Duration::from_secs(1));
    w.outbox.start(w.courier.clone());
    w.accept(&[("once", 0)]);
    w.next_attempt();
    w.settle();
    assert_eq!(w.outbox.inner.scheduler.pending(), 0);
    assert_eq!(w.outbox.inner.scheduler.threads_started(), 0);
}
