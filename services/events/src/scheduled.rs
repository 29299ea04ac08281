//! Scheduled rules firing: an enabled rule with a schedule has one job on the scheduler, which
//! puts AWS's `Scheduled Event` on the rule's own targets — a periodic job for `rate(…)`, a
//! deadline at the next minute a `cron(…)` names, set again after each firing. The job is
//! replaced when the rule's schedule changes and stops when the rule is gone, disabled or
//! unscheduled; after a restart the stored rules' jobs are registered again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use stratus_core::calendar::format_iso8601;
use stratus_core::scheduler::{JobId, Repeat};

use crate::cron::Cron;
use crate::delivery::Routed;
use crate::records::{RuleRecord, DEFAULT_BUS};
use crate::schedule::{self, Schedule};
use crate::service::{load_rule, lock, rule_arn, EventsService};

/// The job of each scheduled rule and the expression it runs on, by (account, region, rule
/// name).
pub(crate) type Jobs = Mutex<HashMap<(String, String, String), (JobId, String)>>;

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

/// The schedule `rule` fires on now, with its expression.
fn schedule_of(rule: &RuleRecord) -> Option<(String, Schedule)> {
    if !rule.enabled() || rule.bus != DEFAULT_BUS {
        return None;
    }
    let expression = rule.schedule_expression.clone()?;
    let schedule = schedule::parse(&expression)?;
    Some((expression, schedule))
}

impl EventsService {
    /// A rule was written: its job (re)registered, or dropped when it no longer fires.
    pub(crate) fn rule_changed(&self, account: &str, region: &str, rule: &RuleRecord) {
        let key = (account.to_owned(), region.to_owned(), rule.name.clone());
        let wanted = schedule_of(rule);
        let mut jobs = lock(&self.shared.schedules);
        if let Some((job, expression)) = jobs.get(&key) {
            if wanted.as_ref().map(|(e, _)| e) == Some(expression) {
                return;
            }
            self.shared.scheduler.cancel(*job);
            jobs.remove(&key);
        }
        let Some((expression, schedule)) = wanted else { return };
        let job = match schedule {
            Schedule::Rate(seconds) => {
                let svc = self.clone();
                let (a, r, name, e) = (key.0.clone(), key.1.clone(), key.2.clone(), expression.clone());
                self.shared.scheduler.every(Duration::from_secs(seconds), move || {
                    match svc.fire(&a, &r, &name, &e, None) {
                        true => Repeat::Again,
                        false => Repeat::Stop,
                    }
                })
            }
            Schedule::Cron(cron) => match self.next_cron_job(&key, &expression, &cron) {
                Some(job) => job,
                None => return,
            },
        };
        jobs.insert(key, (job, expression));
    }

    /// The deadline of a cron rule's next firing, which fires and sets the one after.
    fn next_cron_job(&self, key: &(String, String, String), expression: &str, cron: &Cron) -> Option<JobId> {
        let now_secs = self.now_ms().div_euclid(1000);
        let next = cron.next_after(now_secs)?;
        let clock = self.shared.scheduler.clock();
        let when = clock.moment_at(std::time::UNIX_EPOCH + Duration::from_secs(u64::try_from(next).ok()?));
        let svc = self.clone();
        let (key, expression, cron) = (key.clone(), expression.to_owned(), cron.clone());
        Some(self.shared.scheduler.at(when, move || {
            if !svc.fire(&key.0, &key.1, &key.2, &expression, Some(next)) {
                return;
            }
            let mut jobs = lock(&svc.shared.schedules);
            // Unless the rule changed meanwhile (its new job is in the table then).
            if jobs.get(&key).is_some_and(|(_, e)| *e == expression) {
                match svc.next_cron_job(&key, &expression, &cron) {
                    Some(job) => jobs.insert(key, (job, expression)),
                    None => jobs.remove(&key),
                };
            }
        }))
    }

    /// One firing of rule `name` on `expression`, for the time `at_secs` (a cron's minute;
    /// now, for a rate); answers whether the rule still fires on it (its job is forgotten when
    /// not).
    fn fire(&self, account: &str, region: &str, name: &str, expression: &str, at_secs: Option<i64>) -> bool {
        let key = (account.to_owned(), region.to_owned(), name.to_owned());
        let Ok(store) = self.store(account, region) else {
            return true;
        };
        let rule = match load_rule(&*store, DEFAULT_BUS, name) {
            Ok(rule) if schedule_of(&rule).is_some_and(|(e, _)| e == expression) => rule,
            _ => {
                let mut jobs = lock(&self.shared.schedules);
                if jobs.get(&key).is_some_and(|(_, e)| e == expression) {
                    jobs.remove(&key);
                }
                return false;
            }
        };
        let arn = rule_arn(region, account, DEFAULT_BUS, &rule.name);
        let time = at_secs.unwrap_or_else(|| self.now_ms() / 1000);
        let event = scheduled_event(&stratus_core::id::uuid(), account, region, &arn, time);
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
        true
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
