//! Rotation: a rotation function's four steps (`createSecret`, `setSecret`, `testSecret`,
//! `finishSecret`) run through Lambda's [`FunctionInvoker`], one after another, as the
//! service principal `secretsmanager.amazonaws.com`.
//!
//! RotateSecret (and a scheduled rotation falling due) writes the new version, labelled
//! `AWSPENDING` and without a value, and a [`RotationRun`] into the outbox in one
//! transaction; the outbox hands each run to [`SecretsService`]'s courier after the commit,
//! after a restart too. A step that fails stops the run and leaves `AWSPENDING` where it is,
//! as AWS leaves a failed rotation; once `finishSecret` has moved `AWSCURRENT`, the pending
//! label comes off and `LastRotatedDate` is set.

use serde::{Deserialize, Serialize};
use stratus_core::service::capabilities::{Invocation, InvocationType};
use stratus_core::service::{BoxFuture, Caller};
use stratus_outbox::{Courier, Entry, Next, Place};

use crate::error::{invalid_parameter, SmError};
use crate::names::SecretRef;
use crate::secret::{days, Rotation, CURRENT, PENDING};
use crate::service::SecretsService;
use crate::store::SECRETS;

/// The principal rotation functions are invoked as, which their policy must allow.
pub(crate) const PRINCIPAL: &str = "secretsmanager.amazonaws.com";

const STEPS: [&str; 4] = ["createSecret", "setSecret", "testSecret", "finishSecret"];

/// One rotation to run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct RotationRun {
    pub(crate) name: String,
    pub(crate) arn: String,
    /// The new version's id, the `ClientRequestToken` the function is handed.
    pub(crate) token: String,
    pub(crate) lambda_arn: String,
    /// `RotateImmediately=false`: only `testSecret` runs, to check the configuration.
    pub(crate) test_only: bool,
}

/// When the rules next rotate, counting from `from_ms`: `AutomaticallyAfterDays`, or a
/// `rate(N days)`/`rate(N hours)` schedule. A `cron(…)` schedule is kept but not timed.
pub(crate) fn next_rotation(rotation: &Rotation, from_ms: i64) -> Option<i64> {
    if let Some(n) = rotation.after_days {
        return Some(from_ms + days(n));
    }
    let rate = rotation.schedule.as_deref()?.strip_prefix("rate(")?.strip_suffix(')')?;
    let (n, unit) = rate.trim().split_once(' ')?;
    let n: i64 = n.parse().ok()?;
    match unit.trim() {
        "day" | "days" => Some(from_ms + days(n)),
        "hour" | "hours" => Some(from_ms + n * 3_600_000),
        _ => None,
    }
}

/// Checks the rules RotateSecret was given.
pub(crate) fn check_rules(rotation: &Rotation) -> Result<(), SmError> {
    if rotation.after_days.is_some() && rotation.schedule.is_some() {
        return Err(invalid_parameter(
            "You can't specify both AutomaticallyAfterDays and ScheduleExpression in RotationRules.",
        ));
    }
    if let Some(schedule) = &rotation.schedule {
        let known = (schedule.starts_with("rate(") || schedule.starts_with("cron(")) && schedule.ends_with(')');
        if !known || (schedule.starts_with("rate(") && next_rotation(rotation, 0).is_none()) {
            return Err(invalid_parameter(format!(
                "The schedule expression {schedule} is not valid. Use a rate() or cron() expression."
            )));
        }
    }
    Ok(())
}

impl SecretsService {
    /// Invokes one step; `Err` says why the rotation stops.
    async fn step(&self, place: &Place, run: &RotationRun, step: &str) -> Result<(), String> {
        let functions = self.shared.functions.as_ref().ok_or("Lambda is not served")?;
        let payload = serde_json::json!({
            "Step": step,
            "SecretId": run.arn,
            "ClientRequestToken": run.token,
            "RotationToken": run.token,
        });
        let invocation = Invocation {
            function: run.lambda_arn.clone(),
            qualifier: None,
            invocation_type: InvocationType::RequestResponse,
            payload: payload.to_string().into_bytes(),
            source_arn: None,
        };
        let caller = Caller::service(PRINCIPAL, &place.account, &place.region);
        let result = functions
            .invoke(caller, invocation)
            .await
            .map_err(|e| format!("{}: {}", e.code, e.message))?;
        match result.function_error {
            Some(kind) => Err(format!("{kind}: {}", String::from_utf8_lossy(&result.payload))),
            None => Ok(()),
        }
    }

    /// After the last step: the pending label comes off the new current version, and the
    /// rotation's dates move on.
    async fn finish(&self, place: &Place, run: RotationRun) -> Result<(), SmError> {
        let now = self.now_ms();
        self.transact(&place.account, &place.region, move |tx| {
            let Some(mut secret) = SECRETS.get(&*tx, &run.name)? else {
                return Ok(());
            };
            if let Some(version) = secret.version_mut(&run.token) {
                if version.stages.contains(CURRENT) {
                    version.stages.remove(PENDING);
                }
            }
            if let Some(rotation) = secret.rotation.as_mut() {
                rotation.last_rotated_ms = Some(now);
                rotation.next_ms = next_rotation(rotation, now);
            }
            SECRETS.put(tx, run.name.as_str(), &secret)?;
            Ok(())
        })
        .await
    }
}

impl Courier<RotationRun> for SecretsService {
    fn deliver<'a>(&'a self, to: &'a Place, entry: &'a Entry<RotationRun>) -> BoxFuture<'a, Next> {
        Box::pin(async move {
            let run = &entry.item;
            let steps: &[&str] = if run.test_only { &STEPS[2..3] } else { &STEPS };
            for step in steps {
                if let Err(why) = self.step(to, run, step).await {
                    tracing::warn!("secretsmanager: rotation of {} stopped at {step}: {why}", run.arn);
                    return Next::Done;
                }
            }
            if !run.test_only {
                if let Err(e) = self.finish(to, run.clone()).await {
                    tracing::warn!("secretsmanager: finishing the rotation of {}: {:?}", run.arn, e.0);
                }
            }
            Next::Done
        })
    }
}

/// Whether the function a rotation names may be invoked for the secret `secret_arn`:
/// Lambda's dry run, as the service principal, in the secret's account and region.
pub(crate) async fn can_invoke(sm: &SecretsService, at: &SecretRef, secret_arn: &str, lambda_arn: &str) -> bool {
    let Some(functions) = sm.shared.functions.as_ref() else {
        return false;
    };
    let invocation = Invocation {
        function: lambda_arn.to_owned(),
        qualifier: None,
        invocation_type: InvocationType::DryRun,
        payload: Vec::new(),
        source_arn: Some(secret_arn.to_owned()),
    };
    functions
        .invoke(Caller::service(PRINCIPAL, &at.account, &at.region), invocation)
        .await
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_say_when_the_next_rotation_is() {
        let every = |after_days: Option<i64>, schedule: Option<&str>| Rotation {
            after_days,
            schedule: schedule.map(str::to_owned),
            ..Rotation::default()
        };
        assert_eq!(next_rotation(&every(Some(2), None), 0), Some(days(2)));
        assert_eq!(
            next_rotation(&every(None, Some("rate(10 days)")), 5),
            Some(5 + days(10))
        );
        assert_eq!(
            next_rotation(&every(None, Some("rate(4 hours)")), 0),
            Some(4 * 3_600_000)
        );
        assert_eq!(next_rotation(&every(None, Some("cron(0 16 1,15 * ? *)")), 0), None);
        assert!(check_rules(&every(Some(1), Some("rate(1 days)"))).is_err());
        assert!(check_rules(&every(None, Some("rate(x days)"))).is_err());
        assert!(check_rules(&every(None, Some("cron(0 16 1,15 * ? *)"))).is_ok());
    }
}
