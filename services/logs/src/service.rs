//! The service value: storage, the scheduler, and access to each account and region's `logs`
//! store, with the lookups every operation shares (a group by name or ARN, a stream).

use std::sync::{Arc, Mutex};

use stratus_core::arn::Arn;
use stratus_core::scheduler::{JobId, Scheduler};
use stratus_core::service::{FunctionInvoker, LateProviders, MetricSink, ObjectSource, Providers, Spawner};
use stratus_core::AwsError;
use stratus_outbox::Outbox;
use stratus_storage::{Durability, Namespace, Read, Storage, Store, Tx};

use crate::error::{group_not_found, stream_not_found, validation, Result};
use crate::records::{pair_key, GroupRecord, StreamRecord, GROUPS, STREAMS};
use crate::subscriptions::{Delivery, DELIVERIES};

/// CloudWatch Logs, backed by `storage`. Clones share everything.
#[derive(Clone)]
pub struct LogsService {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Arc<Storage>,
    pub(crate) scheduler: Scheduler,
    /// The retention sweep, while some log group has a retention policy.
    pub(crate) retention_job: Mutex<Option<JobId>>,
    /// The event bytes each (account, region) holds, counted on first use ([`crate::ingest`]).
    pub(crate) usage: Mutex<std::collections::HashMap<(String, String), i64>>,
    /// S3's buckets, which export tasks name.
    pub(crate) objects: Option<Arc<dyn ObjectSource>>,
    /// CloudWatch, which metric filters publish to.
    pub(crate) metrics: Option<Arc<dyn MetricSink>>,
    /// Lambda, which subscription filters deliver to.
    pub(crate) functions: Option<Arc<dyn FunctionInvoker>>,
    /// Every service's capabilities once all have registered: Firehose's delivery streams,
    /// which subscription filters deliver to, register after Logs.
    pub(crate) late: LateProviders,
    /// Subscription filters' deliveries, until their destination has them.
    pub(crate) deliveries: Outbox<Delivery>,
}

impl LogsService {
    /// The service, with what it takes of the services registered before it: S3 (export
    /// tasks' buckets), CloudWatch (metric filters) and Lambda (subscription filters); and of
    /// those registered after it, through `late`: Firehose (subscription filters).
    pub fn new(
        storage: Arc<Storage>,
        scheduler: Scheduler,
        spawner: &Spawner,
        providers: &Providers,
        late: LateProviders,
    ) -> LogsService {
        let deliveries = Outbox::new(DELIVERIES, "logs", &storage, &scheduler, spawner);
        LogsService {
            shared: Arc::new(Shared {
                storage,
                scheduler,
                retention_job: Mutex::new(None),
                usage: Mutex::default(),
                objects: providers.objects.clone(),
                metrics: providers.metrics.clone(),
                functions: providers.functions.clone(),
                late,
                deliveries,
            }),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn now_ms(&self) -> i64 {
        self.shared.scheduler.clock().epoch_millis()
    }

    /// The store of `account` and `region`. Log data is relaxed: a crash may lose the last
    /// second or so of writes (docs/services/logs.md).
    pub(crate) fn store(&self, account: &str, region: &str) -> Result<Arc<dyn Store>> {
        Ok(self
            .shared
            .storage
            .store(&namespace(account, region), Durability::Relaxed)?)
    }

    /// Runs `body` as one transaction of the store of `account` and `region`.
    pub(crate) async fn transact<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Tx<'_>) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        store.transact_async(body).await.map_err(AwsError::from)
    }

    /// Runs `body` against the committed store on the blocking pool.
    pub(crate) async fn read<R, F>(&self, account: &str, region: &str, body: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<R> + Send + 'static,
    {
        let store = self.store(account, region)?;
        stratus_storage::run_blocking(move || body(&*store))
            .await
            .map_err(AwsError::from)
    }

    /// Every account and region that has a `logs` store, with the store.
    pub(crate) fn stores(&self) -> Vec<(String, String, Arc<dyn Store>)> {
        self.shared.storage.regional_stores("logs", Durability::Relaxed)
    }
}

pub(crate) fn namespace(account: &str, region: &str) -> Namespace {
    Namespace::regional(account, region, "logs")
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn find_group(r: &(impl Read + ?Sized), name: &str) -> Result<Option<GroupRecord>> {
    Ok(GROUPS.get(r, name.as_bytes())?)
}

pub(crate) fn load_group(r: &(impl Read + ?Sized), name: &str) -> Result<GroupRecord> {
    find_group(r, name)?.ok_or_else(group_not_found)
}

pub(crate) fn load_stream(r: &(impl Read + ?Sized), group: &str, stream: &str) -> Result<StreamRecord> {
    STREAMS.get(r, pair_key(group, stream))?.ok_or_else(stream_not_found)
}

/// The group a request names, by `logGroupName` or `logGroupIdentifier` (a name or an ARN,
/// with or without the trailing `:*`), which are mutually exclusive.
pub(crate) fn group_named(name: Option<&str>, identifier: Option<&str>) -> Result<String> {
    match (name, identifier) {
        (Some(_), Some(_)) => Err(validation(
            "LogGroup name and LogGroup ARN are mutually exclusive parameters.",
        )),
        (Some(name), None) => Ok(name.to_owned()),
        (None, Some(identifier)) => Ok(group_of_identifier(identifier).to_owned()),
        (None, None) => Err(crate::error::invalid_parameter(
            "Should provide either name or identifier",
        )),
    }
}

/// The group name in a log group identifier: a name, or an ARN
/// `arn:aws:logs:REGION:ACCOUNT:log-group:NAME[:*]`.
pub(crate) fn group_of_identifier(identifier: &str) -> &str {
    match identifier.split_once(":log-group:") {
        Some((head, rest)) if head.starts_with("arn:") => rest.strip_suffix(":*").unwrap_or(rest),
        _ => identifier,
    }
}

/// `arn:…:log-group:NAME` (DescribeLogGroups' `logGroupArn`, tags' resource ARN).
pub(crate) fn group_arn(region: &str, account: &str, group: &str) -> String {
    Arn::new("logs", region, account, &format!("log-group:{group}")).to_string()
}

pub(crate) fn stream_arn(region: &str, account: &str, group: &str, stream: &str) -> String {
    Arn::new(
        "logs",
        region,
        account,
        &format!("log-group:{group}:log-stream:{stream}"),
    )
    .to_string()
}

pub(crate) fn destination_arn(region: &str, account: &str, name: &str) -> String {
    Arn::new("logs", region, account, &format!("destination:{name}")).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_name_groups_by_name_or_arn() {
        assert_eq!(group_of_identifier("/aws/lambda/f"), "/aws/lambda/f");
        assert_eq!(
            group_of_identifier("arn:aws:logs:us-east-1:111111111111:log-group:g:*"),
            "g"
        );
        assert_eq!(
            group_of_identifier("arn:aws:logs:us-east-1:111111111111:log-group:a/b"),
            "a/b"
        );
    }
}
