//! An instance's log: what its stdout and stderr print, framed per invocation by the
//! `START`, `END` and `REPORT` lines Lambda writes, kept for [`InvokeOutcome::log`] (the
//! invocation's last 256 KiB, which Lambda writes to CloudWatch Logs) and
//! [`InvokeOutcome::log_tail`] (its last 4 KB), and passed on, line by line, to `tracing`
//! (target `lambda`).
//!
//! The lines are AWS's, for example (`\t` is a tab: every field of `REPORT` ends with one):
//!
//! ```text
//! START RequestId: 8f5... Version: $LATEST
//! END RequestId: 8f5...
//! REPORT RequestId: 8f5...\tDuration: 2.02 ms\tBilled Duration: 3 ms\tMemory Size: 128 MB\tMax Memory Used: 31 MB\tInit Duration: 95.10 ms\t
//! ```
//!
//! [`InvokeOutcome::log`]: crate::InvokeOutcome::log
//! [`InvokeOutcome::log_tail`]: crate::InvokeOutcome::log_tail

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};

/// The most of an invocation's log `LogType: Tail` answers with.
pub(crate) const TAIL_BYTES: usize = 4096;
/// The most of an invocation's log kept (its start is dropped past this).
pub(crate) const LOG_BYTES: usize = 256 * 1024;

/// What an instance printed since its current invocation started: shared by the tasks
/// reading its pipes and the invocation that frames it.
#[derive(Clone, Default)]
pub(crate) struct LogBuffer {
    text: Arc<Mutex<String>>,
}

impl LogBuffer {
    fn push(&self, chunk: &str) {
        let mut text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        text.push_str(chunk);
        // Cut back to the bound once twice over it, on a character boundary.
        if text.len() > 2 * LOG_BYTES {
            let cut = floor_char_boundary(&text, text.len() - LOG_BYTES);
            text.drain(..cut);
        }
    }

    /// Starts an invocation's log with its `START` line, after what the instance printed
    /// while it started (`keep_init`) or alone.
    pub(crate) fn start(&self, request_id: &str, version: &str, keep_init: bool) {
        let line = format!("START RequestId: {request_id} Version: {version}");
        tracing::info!(target: "lambda", "{line}");
        let mut text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        if !keep_init {
            text.clear();
        }
        text.push_str(&line);
        text.push('\n');
    }

    /// Ends an invocation's log with the lines given (`END`, `REPORT`, …) and returns it.
    pub(crate) fn finish(&self, lines: &[String]) -> String {
        let mut text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        for line in lines {
            tracing::info!(target: "lambda", "{line}");
            text.push_str(line);
            text.push('\n');
        }
        std::mem::take(&mut *text)
    }
}

/// The last 4 KB of `log` (on a character boundary), as `LogType: Tail` answers.
pub(crate) fn tail(log: &str) -> String {
    log[ceil_char_boundary(log, log.len().saturating_sub(TAIL_BYTES))..].to_owned()
}

/// Reads one of the instance's pipes until it closes, into `log` and `tracing`.
pub(crate) async fn capture(mut pipe: impl AsyncRead + Unpin, log: LogBuffer, function: String) {
    let mut buf = vec![0u8; 8192];
    let mut line = Vec::new();
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        log.push(&String::from_utf8_lossy(chunk));
        for part in chunk.split_inclusive(|b| *b == b'\n') {
            line.extend_from_slice(part);
            if line.ends_with(b"\n") || line.len() > 16 * 1024 {
                emit(&function, &line);
                line.clear();
            }
        }
    }
    if !line.is_empty() {
        emit(&function, &line);
    }
}

fn emit(function: &str, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    tracing::info!(target: "lambda", function, "{}", text.trim_end_matches(['\n', '\r']));
}

/// The `END` line.
pub(crate) fn end_line(request_id: &str) -> String {
    format!("END RequestId: {request_id}")
}

/// What a `REPORT` line says.
pub(crate) struct Report<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) duration: Duration,
    pub(crate) memory_mb: u32,
    pub(crate) max_memory_used_mb: u64,
    pub(crate) init_duration: Option<Duration>,
    /// `timeout` or `error` when the invocation did not end normally.
    pub(crate) status: Option<&'a str>,
    pub(crate) error_type: Option<&'a str>,
}

impl Report<'_> {
    /// The line, as Lambda writes it: every field followed by a tab.
    pub(crate) fn line(&self) -> String {
        let ms = self.duration.as_secs_f64() * 1000.0;
        // Billed in whole milliseconds, rounded up (since December 2020).
        let billed = self.duration.as_micros().div_ceil(1000).max(1);
        let mut line = format!(
            "REPORT RequestId: {}\tDuration: {ms:.2} ms\tBilled Duration: {billed} ms\tMemory Size: {} MB\tMax Memory Used: {} MB\t",
            self.request_id, self.memory_mb, self.max_memory_used_mb
        );
        if let Some(init) = self.init_duration {
            let _ = write!(line, "Init Duration: {:.2} ms\t", init.as_secs_f64() * 1000.0);
        }
        if let Some(status) = self.status {
            let _ = write!(line, "Status: {status}\t");
        }
        if let Some(error_type) = self.error_type {
            let _ = write!(line, "Error Type: {error_type}\t");
        }
        line
    }
}

/// The peak resident memory of process `pid` in MB (`VmHWM`), 0 when unknown.
pub(crate) fn max_memory_used_mb(pid: Option<u32>) -> u64 {
    let Some(pid) = pid else { return 0 };
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb.div_ceil(1024))
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_line_is_aws_shaped() {
        let report = Report {
            request_id: "r1",
            duration: Duration::from_micros(15_741),
            memory_mb: 128,
            max_memory_used_mb: 56,
            init_duration: Some(Duration::from_micros(130_630)),
            status: None,
            error_type: None,
        };
        assert_eq!(
            report.line(),
            "REPORT RequestId: r1\tDuration: 15.74 ms\tBilled Duration: 16 ms\tMemory Size: 128 MB\tMax Memory Used: 56 MB\tInit Duration: 130.63 ms\t"
        );
    }

    #[test]
    fn tail_keeps_the_last_4_kb_on_a_char_boundary() {
        let log = LogBuffer::default();
        log.start("r", "$LATEST", false);
        log.push(&"é".repeat(5000));
        let whole = log.finish(&[end_line("r")]);
        assert!(whole.starts_with("START RequestId: r"), "the whole log is kept");
        let tail = tail(&whole);
        assert!(tail.len() <= TAIL_BYTES && tail.len() > TAIL_BYTES - 2);
        assert!(tail.ends_with("END RequestId: r\n"));
    }

    #[test]
    fn the_log_keeps_its_last_256_kib() {
        let log = LogBuffer::default();
        log.start("r", "$LATEST", false);
        for _ in 0..100 {
            log.push(&"x".repeat(10_000));
        }
        let whole = log.finish(&[end_line("r")]);
        assert!(whole.len() <= 2 * LOG_BYTES + 64 && whole.len() >= LOG_BYTES);
        assert!(whole.ends_with("END RequestId: r\n"));
    }
}
