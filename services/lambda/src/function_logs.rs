//! A function's log, written to CloudWatch Logs as Lambda writes it: to the function's log
//! group (`LoggingConfig.LogGroup`, by default `/aws/lambda/<name>`), in a stream per
//! execution environment named `YYYY/MM/DD/[<version>]<environment id>`, one event per line
//! (`START`, what the function printed, `END`, `REPORT`). Without CloudWatch Logs the log is
//! only in the server's own output and in `LogType: Tail`.

use stratus_core::calendar::civil_from_seconds;
use stratus_core::service::capabilities::LogEvent;
use stratus_core::service::Caller;

use crate::service::LambdaService;

/// The log stream of an execution environment that started on `epoch_ms`.
pub(crate) fn stream_name(epoch_ms: i64, version: &str, environment_id: &str) -> String {
    let (y, m, d, ..) = civil_from_seconds(epoch_ms.div_euclid(1000));
    format!("{y:04}/{m:02}/{d:02}/[{version}]{environment_id}")
}

/// The events of one invocation's log, all at `epoch_ms`.
pub(crate) fn events(log: &str, epoch_ms: i64) -> Vec<LogEvent> {
    log.lines()
        .filter(|line| !line.is_empty())
        .map(|line| LogEvent {
            timestamp_ms: epoch_ms,
            message: line.to_owned(),
        })
        .collect()
}

impl LambdaService {
    /// Writes an invocation's log to CloudWatch Logs, when it is served, after the answer.
    pub(crate) fn write_log(&self, account: &str, region: &str, group: &str, stream: String, log: &str) {
        let Some(logs) = self.shared.late.get().and_then(|p| p.logs.clone()) else {
            return;
        };
        let events = events(log, self.now_ms());
        if events.is_empty() {
            return;
        }
        let (account, region, group) = (account.to_owned(), region.to_owned(), group.to_owned());
        self.shared.spawner.spawn(async move {
            let caller = Caller::service("lambda.amazonaws.com", &account, &region);
            if let Err(e) = logs.put_log_events(caller, &group, &stream, events).await {
                tracing::warn!(group, error = %e, "could not write the function's log");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_named_by_day_version_and_environment() {
        assert_eq!(
            stream_name(1_764_633_600_000, "$LATEST", "0123456789abcdef0123456789abcdef"),
            "2025/12/02/[$LATEST]0123456789abcdef0123456789abcdef"
        );
    }

    #[test]
    fn each_line_is_an_event() {
        let got = events("START RequestId: r Version: 1\nhello\n\nEND RequestId: r\n", 5);
        let lines: Vec<&str> = got.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(lines, ["START RequestId: r Version: 1", "hello", "END RequestId: r"]);
        assert!(got.iter().all(|e| e.timestamp_ms == 5));
    }
}
