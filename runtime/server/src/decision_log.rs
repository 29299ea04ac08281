//! The log of IAM's decisions (`--iam-log FILE`): one JSON line per action a request needed,
//! allowed or not, from which `stratus iam policy-from-log` writes the least-privilege policy
//! a workload needed.
//!
//! `{"time":"2026-12-01T19:00:00Z","principal":"arn:aws:iam::000000000000:user/app",
//! "action":"sqs:SendMessage","resources":["arn:aws:sqs:us-east-1:000000000000:jobs"],
//! "decision":"ImplicitDeny"}`
//!
//! Lines are appended as decided, one write each; like the other logs they are not synced
//! (a crash may lose the last ones).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use stratus_core::calendar::format_iso8601;
use stratus_core::json::ValueWriter;
use stratus_core::service::Decision;

/// An open decision log.
#[derive(Debug)]
pub struct DecisionLog {
    file: Mutex<File>,
}

/// One decision, as logged.
pub(crate) struct Entry<'a> {
    pub(crate) now_secs: u64,
    pub(crate) principal: &'a str,
    pub(crate) action: &'a str,
    pub(crate) resources: &'a [String],
    pub(crate) decision: Decision,
}

impl DecisionLog {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &Path) -> std::io::Result<DecisionLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(DecisionLog { file: Mutex::new(file) })
    }

    /// Appends `entry`; a failed write is logged, never the request's failure.
    pub(crate) fn record(&self, entry: &Entry<'_>) {
        let mut line = String::with_capacity(256);
        let mut object = ValueWriter::new(&mut line).start_object();
        object
            .key("time")
            .string(&format_iso8601(i64::try_from(entry.now_secs).unwrap_or(i64::MAX)));
        object.key("principal").string(entry.principal);
        object.key("action").string(entry.action);
        let mut resources = object.key("resources").start_array();
        for resource in entry.resources {
            resources.value().string(resource);
        }
        resources.finish();
        object.key("decision").string(match entry.decision {
            Decision::Allow => "Allow",
            Decision::ExplicitDeny => "ExplicitDeny",
            Decision::ImplicitDeny => "ImplicitDeny",
        });
        object.finish();
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(e) = file.write_all(line.as_bytes()) {
            tracing::warn!(target: "stratus::iam", error = %e, "the IAM decision log could not be written");
        }
    }
}
