//! What other services ask of CloudWatch Logs: writing their own log events
//! ([`LogWriter`]), creating the group and stream when missing, as AWS's services do; their
//! embedded-metric-format lines become metrics ([`crate::emf`]).

use stratus_core::service::capabilities::LogEvent;
use stratus_core::service::{BoxFuture, Caller, LogWriter};
use stratus_core::AwsError;

use crate::emf;
use crate::ingest::{append, Target};
use crate::records::{pair_key, GroupRecord, StreamRecord, GROUPS, STREAMS};
use crate::service::{find_group, LogsService};

impl LogWriter for LogsService {
    fn put_log_events<'a>(
        &'a self,
        caller: Caller<'a>,
        group: &'a str,
        stream: &'a str,
        mut events: Vec<LogEvent>,
    ) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let now = self.now_ms();
            let (group, stream) = (group.to_owned(), stream.to_owned());
            // A service's own lines may arrive out of order; they are stored in time order.
            events.sort_by_key(|e| e.timestamp_ms);
            let store = self.store(caller.account_id, caller.region)?;
            let used = self.used(caller.account_id, caller.region, &*store)?;
            let (account, deliveries) = (caller.account_id.to_owned(), self.shared.deliveries.clone());
            // Services' logs (Lambda's function logs) carry embedded metrics.
            let embedded = emf::metrics_of(events.iter().map(|e| e.message.as_str()));
            let appended = self
                .transact(caller.account_id, caller.region, move |tx| {
                    if find_group(&*tx, &group)?.is_none() {
                        GROUPS.put(tx, group.as_bytes().to_vec(), &GroupRecord::new(group.clone(), now))?;
                    }
                    let mut stream_record = STREAMS
                        .get(&*tx, pair_key(&group, &stream))?
                        .unwrap_or_else(|| StreamRecord::new(now));
                    let batch: Vec<(i64, &str)> = events.iter().map(|e| (e.timestamp_ms, e.message.as_str())).collect();
                    if batch.is_empty() {
                        STREAMS.put(tx, pair_key(&group, &stream), &stream_record)?;
                    }
                    let target = Target {
                        account: &account,
                        group: &group,
                        stream: &stream,
                    };
                    append(tx, &deliveries, target, &mut stream_record, &batch, now, used)
                })
                .await?;
            self.add_used(caller.account_id, caller.region, appended.bytes);
            if appended.queued {
                self.shared.deliveries.wake(caller.account_id, caller.region);
            }
            let mut metrics = appended.metrics;
            for (namespace, data) in embedded {
                metrics.entry(namespace).or_default().extend(data);
            }
            self.publish(caller.account_id, caller.region, metrics).await;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, UNIX_EPOCH};

    use stratus_core::clock::Clock;
    use stratus_core::scheduler::Scheduler;
    use stratus_core::service::{LateProviders, Providers, Spawner};
    use stratus_storage::{Storage, StorageConfig};

    use super::*;
    use crate::service::load_stream;

    const NOW_MS: i64 = 1_700_000_000_000;

    fn service() -> LogsService {
        let storage = Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap());
        let clock = Clock::manual(UNIX_EPOCH + Duration::from_millis(NOW_MS as u64));
        LogsService::new(
            storage,
            Scheduler::new(clock),
            &Spawner::new(drop),
            &Providers::default(),
            LateProviders::default(),
        )
    }

    fn line(timestamp_ms: i64, message: &str) -> LogEvent {
        LogEvent {
            timestamp_ms,
            message: message.to_owned(),
        }
    }

    // A service writing its own logs creates the group and stream, as Lambda's do on AWS,
    // and may hand lines out of order.
    #[test]
    fn writing_creates_the_group_and_stream_and_orders_lines() {
        let logs = service();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let caller = Caller::service("lambda.amazonaws.com", "111111111111", "us-east-1");
        runtime
            .block_on(logs.put_log_events(
                caller,
                "/aws/lambda/f",
                "2023/11/14/[$LATEST]abc",
                vec![line(NOW_MS, "b"), line(NOW_MS - 5, "a")],
            ))
            .unwrap();
        runtime
            .block_on(logs.put_log_events(
                caller,
                "/aws/lambda/f",
                "2023/11/14/[$LATEST]abc",
                vec![line(NOW_MS + 1, "c")],
            ))
            .unwrap();
        let store = logs.store("111111111111", "us-east-1").unwrap();
        assert!(find_group(&*store, "/aws/lambda/f").unwrap().is_some());
        let stream = load_stream(&*store, "/aws/lambda/f", "2023/11/14/[$LATEST]abc").unwrap();
        assert_eq!(
            (stream.first_event, stream.last_event, stream.next_seq),
            (Some(NOW_MS - 5), Some(NOW_MS + 1), 3)
        );
        assert_eq!(stream.stored_bytes, 3 * (1 + 26));
        assert_eq!(logs.used("111111111111", "us-east-1", &*store).unwrap(), 3 * 27);
    }
}
