//! Scheduled rules firing: a `rate(…)` rule that is enabled has one periodic job on the
//! scheduler, which puts AWS's `Scheduled Event` on the rule's own targets at each interval.
//! The job is replaced when the rule changes and stops when the rule is gone, disabled or no
//! longer a rate; after a restart the stored rules' jobs are registered again. `cron(…)`
//! rules do not fire yet.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use stratus_core::calendar::format_iso8601;
use stratus_core::scheduler::{JobId, Repeat};

use crate::delivery::Routed;
use crate::records::{RuleRecord, DEFAULT_BUS};
use crate::schedule::{self, Schedule};
use crate::service::{load_rule, lock, rule_arn, EventsService};

/// The job of each scheduled rule, by (account, region, rule name).
pub(crate) type Jobs = Mutex<HashMap<(String, String, String), (JobId, u64)>>;

/// The event AWS puts on a scheduled rule's targets.
pub(crate) fn scheduled_event(id: &str, account: &str, region: &str, rule_arn: &str, now_secs: i64) -> Value {
    json!({
        "version": "0",
        "id": id,
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": account,
        "time": format_iso8601(now_secs),
        "region": region,
        "resources": [rule_arn],
        "detail": {},
    })
}

fn rate_of(rule: &RuleRecord) -> Option<u64> {
    if !rule.enabled() || rule.bus != DEFAULT_BUS {
        return None;
    }
    match rule.schedule_expression.as_deref().and_then(schedule::parse) {
        Some(Schedule::Rate(seconds)) => Some(seconds),
        _ => None,
    }
}

impl EventsService {
    /// A rule was written: its job (re)registered, or dropped when it no longer fires.
    pub(crate) fn rule_changed(&self, account: &str, region: &str, rule: &RuleRecord) {
        let key = (account.to_owned(), region.to_owned(), rule.name.clone());
        let rate = rate_of(rule);
        let mut jobs = lock(&self.shared.schedules);
        if let Some((job, seconds)) = jobs.get(&key).copied() {
            if Some(seconds) == rate {
                return;
            }
            self.shared.scheduler.cancel(job);
            jobs.remove(&key);
        }
        let Some(seconds) = rate else { return };
        let svc = self.clone();
        let (a, r, name) = key.clone();
        let job = self
            .shared
            .scheduler
            .every(Duration::from_secs(seconds), move || svc.fire(&a, &r, &name, seconds));
        jobs.insert(key, (job, seconds));
    }

    /// One firing of rule `name`; stops the job when the rule no longer fires at this rate.
    fn fire(&self, account: &str, region: &str, name: &str, seconds: u64) -> Repeat {
        let Ok(store) = self.store(account, region) else {
            return Repeat::Again;
        };
        let rule = match load_rule(&*store, DEFAULT_BUS, name) {
            Ok(rule) if rate_of(&rule) == Some(seconds) => rule,
            _ => {
                lock(&self.shared.schedules).remove(&(account.to_owned(), region.to_owned(), name.to_owned()));
                return Repeat::Stop;
            }
        };
        let arn = rule_arn(region, account, DEFAULT_BUS, &rule.name);
        let event = scheduled_event(&stratus_core::id::uuid(), account, region, &arn, self.now_ms() / 1000);
        let routed = vec![Routed {
            bus: DEFAULT_BUS.to_owned(),
            event,
            only_rules: Some(vec![arn]),
            archive: false,
        }];
        let svc = self.clone();
        let (account, region) = (account.to_owned(), region.to_owned());
        self.shared.spawner.spawn(async move {
            if let Err(e) = svc.ingest(&account, &region, routed).await {
                tracing::warn!(error = %e, "a scheduled rule could not put its event");
            }
        });
        Repeat::Again
    }

    /// After a restart: the jobs of the stored scheduled rules.
    pub(crate) fn resume_schedules(&self) {
        self.for_each_store(|account, region, store| {
            let Ok(rules) = crate::ops::rules::rules_of(store, DEFAULT_BUS) else {
                return;
            };
            for rule in rules.iter().filter(|r| r.schedule_expression.is_some()) {
                self.rule_changed(account, region, rule);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduled_events_are_aws_shaped() {
        let event = scheduled_event(
            "e",
            "000000000000",
            "us-east-1",
            "arn:aws:events:us-east-1:000000000000:rule/r",
            0,
        );
        assert_eq!(
            event.to_string(),
            r#"{"version":"0","id":"e","detail-type":"Scheduled Event","source":"aws.events","account":"000000000000","time":"1970-01-01T00:00:00Z","region":"us-east-1","resources":["arn:aws:events:us-east-1:000000000000:rule/r"],"detail":{}}"#
        );
    }
}
