//! What other services ask of CloudWatch Logs: writing their own log events
//! ([`LogWriter`]), creating the group and stream when missing, as AWS's services do.

use stratus_core::service::capabilities::LogEvent;
use stratus_core::service::{BoxFuture, Caller, LogWriter};
use stratus_core::AwsError;

use crate::ingest::append;
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
            let added = self
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
                    let (_, added) = append(tx, &group, &stream, &mut stream_record, &batch, now, used)?;
                    Ok(added)
                })
                .await?;
            self.add_used(caller.account_id, caller.region, added);
            Ok(())
        })
    }
}
