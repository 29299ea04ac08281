//! The service value: storage, the scheduler, the capabilities deliveries use, and access to
//! each account and region's `events` store.

use std::sync::{Arc, Mutex};

use stratus_core::arn::Arn;
use stratus_core::scheduler::Scheduler;
use stratus_core::service::{FunctionInvoker, MessageSink, ServiceEnv, Spawner, TopicPublisher};
use stratus_core::AwsError;
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Read, Storage, Store, Tx};

use crate::delivery::DELIVERIES;
use crate::error::{bus_not_found, rule_not_found, EventsError, Result};
use crate::records::{BusRecord, Delivery, RuleRecord, BUSES, DEFAULT_BUS, RULES};

/// EventBridge, backed by `storage`. Clones share everything.
#[derive(Clone)]
pub struct EventsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    pub(crate) queues: Option<Arc<dyn MessageSink>>,
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    pub(crate) topics: Option<Arc<dyn TopicPublisher>>,
    /// Scheduled rules put their events from the binary's runtime.
    pub(crate) spawner: Spawner,
    /// Each matched event's deliveries, one per target, until made.
    pub(crate) deliveries: Outbox<Delivery>,
    /// The periodic job of each scheduled rule.
    pub(crate) schedules: crate::scheduled::Jobs,
}

impl EventsService {
    pub fn new(env: &ServiceEnv<'_, Storage>) -> EventsService {
        EventsService {
            shared: Arc::new(Shared {
                storage: env.storage.clone(),
                scheduler: env.scheduler.clone(),
                queues: env.providers.messages.clone(),
                functions: env.providers.functions.clone(),
                topics: env.providers.topics.clone(),
                spawner: env.spawner.clone(),
                deliveries: Outbox::new(DELIVERIES, "events", env.storage, env.scheduler, env.spawner),
                schedules: Mutex::default(),
            }),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }

    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Strict)?)
    }

    /// Runs `body` as one strict transaction of the store of `account` and `region`.
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        store.transact_async(body).await.map_err(AwsError::from)
    }
}

impl EventsService {
    /// Calls `each` with every account and region that has an `events` store, and the store
    /// (what a restart resumes from).
    pub(crate) fn for_each_store(&self, mut each: impl FnMut(&str, &str, &dyn Store)) {
        let Ok(namespaces) = self.shared.storage.regional_namespaces("events") else {
            return;
        };
        for ns in namespaces {
            let Some(region) = ns.region.as_deref() else { continue };
            if let Ok(store) = self.store(&ns.account, region) {
                each(&ns.account, region, &*store);
            }
        }
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "events")
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The bus `name`, the default bus standing in until it is first changed.
pub(crate) fn find_bus(r: &(impl Read + ?Sized), name: &str, now_ms: i64) -> Result<Option<BusRecord>> {
    match BUSES.get(r, name)? {
        Some(bus) => Ok(Some(bus)),
        None if name == DEFAULT_BUS => Ok(Some(BusRecord::new(DEFAULT_BUS, now_ms))),
        None => Ok(None),
    }
}

pub(crate) fn load_bus(r: &(impl Read + ?Sized), name: &str, now_ms: i64) -> Result<BusRecord> {
    find_bus(r, name, now_ms)?.ok_or_else(|| bus_not_found(name))
}

pub(crate) fn rule_key(bus: &str, name: &str) -> Vec<u8> {
    stratus_storage::tuple::TupleKey::new().str(bus).str(name).into_bytes()
}

pub(crate) fn bus_prefix(bus: &str) -> Vec<u8> {
    stratus_storage::tuple::TupleKey::new().str(bus).into_bytes()
}

pub(crate) fn load_rule(r: &(impl Read + ?Sized), bus: &str, name: &str) -> Result<RuleRecord> {
    RULES
        .get(r, rule_key(bus, name))?
        .ok_or_else(|| rule_not_found(name, bus))
}

/// The bus an `EventBusName` member names (a name or an ARN), `default` when absent.
pub(crate) fn bus_name(given: Option<&str>) -> String {
    match given {
        None | Some("") => DEFAULT_BUS.to_owned(),
        Some(text) => match text.rsplit_once("event-bus/") {
            Some((_, name)) if text.starts_with("arn:") => name.to_owned(),
            _ => text.to_owned(),
        },
    }
}

pub(crate) fn bus_arn(region: &str, account: &str, bus: &str) -> String {
    Arn::new("events", region, account, &format!("event-bus/{bus}")).to_string()
}

pub(crate) fn rule_arn(region: &str, account: &str, bus: &str, rule: &str) -> String {
    let resource = if bus == DEFAULT_BUS {
        format!("rule/{rule}")
    } else {
        format!("rule/{bus}/{rule}")
    };
    Arn::new("events", region, account, &resource).to_string()
}

impl From<stratus_event_pattern::PatternError> for EventsError {
    fn from(e: stratus_event_pattern::PatternError) -> EventsError {
        AwsError::new(e.code(), e.message(), 400).into()
    }
}
