//! Object Lock: a bucket's default retention, each version's retention (GOVERNANCE or
//! COMPLIANCE until a date) and legal hold, and the refusals they make.
//!
//! A bucket has Object Lock when it was created with `x-amz-bucket-object-lock-enabled` or
//! when PutObjectLockConfiguration turned it on (versioning must be `Enabled` for that). The
//! configuration's default retention is a document in `configs` (see [`crate::config`]); each
//! new version without its own retention gets it. A version under retention or legal hold
//! cannot be deleted by version id (`AccessDenied`), except GOVERNANCE with
//! `x-amz-bypass-governance-retention: true`; deleting without a version id only adds a delete
//! marker and is always allowed. Wordings are AWS's (moto's AWS-verified tests,
//! `tests/test_s3/test_s3_locking.py`).

use stratus_core::{AwsError, DateTime};
use stratus_gen_s3::*;
use stratus_storage::Tx;

use crate::bucket::BucketRecord;
use crate::config;
use crate::error::S3Error;
use crate::object::ObjectRecord;

/// The configuration document holding the bucket's default retention rule.
pub(crate) const OBJECT_LOCK: &str = "object-lock";

const DAY_MS: i64 = 86_400_000;

pub(crate) fn protected() -> AwsError {
    AwsError::new(
        "AccessDenied",
        "Access Denied because object protected by object lock.",
        403,
    )
}

pub(crate) fn missing_configuration() -> AwsError {
    AwsError::new("InvalidRequest", "Bucket is missing Object Lock Configuration", 400)
}

pub(crate) fn no_configuration() -> AwsError {
    AwsError::new(
        "NoSuchObjectLockConfiguration",
        "The specified object does not have a ObjectLock configuration",
        404,
    )
}

fn mode_name(mode: &ObjectLockRetentionMode) -> Result<&'static str, AwsError> {
    match mode {
        ObjectLockRetentionMode::Governance => Ok("GOVERNANCE"),
        ObjectLockRetentionMode::Compliance => Ok("COMPLIANCE"),
        ObjectLockRetentionMode::Unknown(_) => Err(S3Error::malformed_xml()),
    }
}

pub(crate) fn to_millis(date: &DateTime) -> i64 {
    date.to_millis().unwrap_or(i64::MAX)
}

/// Checks a PutObjectLockConfiguration document: `ObjectLockEnabled` must be `Enabled`, a
/// default retention needs a mode and exactly one of positive `Days` or `Years`.
pub(crate) fn check_configuration(config: &ObjectLockConfiguration) -> Result<(), AwsError> {
    if config.object_lock_enabled != Some(ObjectLockEnabled::Enabled) {
        return Err(S3Error::malformed_xml());
    }
    let Some(retention) = config.rule.as_ref().and_then(|r| r.default_retention.as_ref()) else {
        return match config.rule {
            Some(_) => Err(S3Error::malformed_xml()),
            None => Ok(()),
        };
    };
    mode_name(retention.mode.as_ref().ok_or_else(S3Error::malformed_xml)?)?;
    match (retention.days, retention.years) {
        (Some(n), None) | (None, Some(n)) if n > 0 => Ok(()),
        (Some(_), None) | (None, Some(_)) => Err(S3Error::invalid_argument(
            "Default retention period must be a positive integer value.",
        )),
        _ => Err(S3Error::malformed_xml()),
    }
}

/// The default retention rule of `bucket`, if it has one.
pub(crate) fn default_retention(tx: &Tx<'_>, bucket: &str) -> Result<Option<DefaultRetention>, AwsError> {
    let rule: Option<ObjectLockRule> = config::typed(tx, bucket, OBJECT_LOCK, &schema::OBJECT_LOCK_RULE, || None)?;
    Ok(rule.and_then(|rule| rule.default_retention))
}

/// The lock settings a write (PutObject, CopyObject, CreateMultipartUpload) asks for.
#[derive(Default, Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub(crate) struct Requested {
    pub mode: Option<String>,
    pub until_ms: Option<i64>,
    pub legal_hold: Option<bool>,
}

impl Requested {
    pub(crate) fn from_headers(
        mode: Option<&ObjectLockMode>,
        until: Option<&DateTime>,
        legal_hold: Option<&ObjectLockLegalHoldStatus>,
        now_ms: i64,
    ) -> Result<Requested, AwsError> {
        // Both headers or neither, before the mode is read.
        if mode.is_some() != until.is_some() {
            // AWS names the header that is missing.
            let missing = match mode {
                Some(_) => "x-amz-object-lock-retain-until-date",
                None => "x-amz-object-lock-mode",
            };
            return Err(S3Error::invalid_argument(
                "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied",
            )
            .with_detail("ArgumentName", missing));
        }
        let mode = match mode {
            None => None,
            Some(ObjectLockMode::Governance) => Some("GOVERNANCE".to_owned()),
            Some(ObjectLockMode::Compliance) => Some("COMPLIANCE".to_owned()),
            Some(ObjectLockMode::Unknown(value)) => {
                return Err(S3Error::invalid_argument("Unknown wormMode directive.")
                    .with_detail("ArgumentName", "x-amz-object-lock-mode")
                    .with_detail("ArgumentValue", value.as_str()));
            }
        };
        let until_ms = until.map(to_millis);
        if until_ms.is_some_and(|u| u <= now_ms) {
            return Err(S3Error::invalid_argument(
                "The retain until date must be in the future!",
            ));
        }
        let legal_hold = match legal_hold {
            None => None,
            Some(ObjectLockLegalHoldStatus::On) => Some(true),
            Some(ObjectLockLegalHoldStatus::Off) => Some(false),
            Some(ObjectLockLegalHoldStatus::Unknown(_)) => {
                return Err(S3Error::invalid_argument("Legal Hold must be either of 'ON' or 'OFF'"));
            }
        };
        Ok(Requested {
            mode,
            until_ms,
            legal_hold,
        })
    }

    fn any(&self) -> bool {
        self.mode.is_some() || self.legal_hold.is_some()
    }

    /// Applies these settings, or the bucket's default retention, to a new version (refused
    /// when the bucket has no Object Lock).
    pub(crate) fn apply(
        &self,
        tx: &Tx<'_>,
        bucket: &BucketRecord,
        record: &mut ObjectRecord,
        now_ms: i64,
    ) -> Result<(), AwsError> {
        if !bucket.object_lock {
            return match self.any() {
                true => Err(missing_configuration()),
                false => Ok(()),
            };
        }
        record.legal_hold = self.legal_hold;
        if self.mode.is_some() {
            record.lock_mode = self.mode.clone();
            record.lock_until_ms = self.until_ms;
        } else if let Some(default) = default_retention(tx, &bucket.name)? {
            let days = i64::from(default.days.unwrap_or(0)) + 365 * i64::from(default.years.unwrap_or(0));
            record.lock_mode = default.mode.as_ref().map(|m| m.as_str().to_owned());
            record.lock_until_ms = Some(now_ms.saturating_add(days.saturating_mul(DAY_MS)));
        }
        Ok(())
    }
}

pub(crate) fn legal_hold_status(on: bool) -> ObjectLockLegalHoldStatus {
    if on {
        ObjectLockLegalHoldStatus::On
    } else {
        ObjectLockLegalHoldStatus::Off
    }
}

/// Whether deleting `record` for good is refused: a legal hold, COMPLIANCE retention, or
/// GOVERNANCE retention without the bypass.
pub(crate) fn check_delete(record: &ObjectRecord, bypass_governance: bool, now_ms: i64) -> Result<(), AwsError> {
    if record.legal_hold == Some(true) {
        return Err(protected());
    }
    let retained = record.lock_until_ms.is_some_and(|u| u > now_ms);
    match record.lock_mode.as_deref() {
        Some("COMPLIANCE") if retained => Err(protected()),
        Some("GOVERNANCE") if retained && !bypass_governance => Err(protected()),
        _ => Ok(()),
    }
}

/// Checks a PutObjectRetention against the version's current retention: COMPLIANCE can only
/// be extended; shortening or removing GOVERNANCE needs the bypass.
pub(crate) fn check_retention_change(
    record: &ObjectRecord,
    mode: Option<&str>,
    until_ms: Option<i64>,
    bypass_governance: bool,
    now_ms: i64,
) -> Result<(), AwsError> {
    let Some(current_until) = record.lock_until_ms.filter(|u| *u > now_ms) else {
        return Ok(());
    };
    let shorter = until_ms.is_none_or(|u| u < current_until);
    match record.lock_mode.as_deref() {
        Some("COMPLIANCE") if shorter || mode != Some("COMPLIANCE") => Err(protected()),
        Some("GOVERNANCE") if shorter && !bypass_governance => Err(protected()),
        _ => Ok(()),
    }
}

/// An instant as AWS's PutObjectRetention refusal quotes it: the way Java writes a date in
/// US Pacific time (`Tue Dec 31 16:00:00 PST 2019`), daylight saving time by the rules in force
/// since 2007 (second Sunday of March to first Sunday of November, at 2 a.m. local).
fn pacific_date(secs: i64) -> String {
    use stratus_core::calendar::{civil_from_seconds, days_from_civil};
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let weekday = |days: i64| (days + 4).rem_euclid(7);
    let (year, ..) = civil_from_seconds(secs - 8 * 3600);
    // The n-th Sunday of a month, as days since the epoch.
    let sunday = |month: i64, n: i64| {
        let first = days_from_civil(year, month, 1);
        first + (7 - weekday(first)) % 7 + 7 * (n - 1)
    };
    let dst_start = sunday(3, 2) * 86_400 + 10 * 3600; // 2 a.m. PST
    let dst_end = sunday(11, 1) * 86_400 + 9 * 3600; // 2 a.m. PDT
    let (offset, zone) = match (dst_start..dst_end).contains(&secs) {
        true => (-7 * 3600, "PDT"),
        false => (-8 * 3600, "PST"),
    };
    let local = secs + offset;
    let (y, mo, d, h, mi, s) = civil_from_seconds(local);
    let day = DAYS[weekday(local.div_euclid(86_400)) as usize];
    let month = MONTHS[(mo - 1) as usize];
    format!("{day} {month} {d:02} {h:02}:{mi:02}:{s:02} {zone} {y}")
}

/// The retention a PutObjectRetention asks for: mode and date, or nothing (removal).
pub(crate) fn requested_retention(
    retention: Option<&ObjectLockRetention>,
    now_ms: i64,
) -> Result<(Option<&'static str>, Option<i64>), AwsError> {
    let Some(r) = retention else {
        return Err(S3Error::malformed_xml());
    };
    match (&r.mode, &r.retain_until_date) {
        (None, None) => Ok((None, None)),
        (Some(mode), Some(until)) => {
            let until = to_millis(until);
            if until <= now_ms {
                return Err(
                    S3Error::invalid_argument("The retain until date must be in the future!")
                        .with_detail("ArgumentName", "RetainUntilDate")
                        .with_detail("ArgumentValue", pacific_date(until.div_euclid(1000))),
                );
            }
            Ok((Some(mode_name(mode)?), Some(until)))
        }
        _ => Err(S3Error::malformed_xml()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_dates_are_quoted_in_pacific_time() {
        // 2020-01-01T00:00:00Z, as AWS's refusal quotes it.
        assert_eq!(pacific_date(1_577_836_800), "Tue Dec 31 16:00:00 PST 2019");
        // 2024-07-04T19:30:05Z falls in daylight saving time.
        assert_eq!(pacific_date(1_720_121_405), "Thu Jul 04 12:30:05 PDT 2024");
        // 2024-03-10T10:00:00Z is 3 a.m. PDT, the first minute of it.
        assert_eq!(pacific_date(1_710_064_800), "Sun Mar 10 03:00:00 PDT 2024");
    }

    fn locked(mode: &str, until_ms: i64, hold: Option<bool>) -> ObjectRecord {
        ObjectRecord {
            lock_mode: Some(mode.into()),
            lock_until_ms: Some(until_ms),
            legal_hold: hold,
            ..ObjectRecord::default()
        }
    }

    #[test]
    fn deletes_under_lock() {
        let now = 1_000;
        assert!(check_delete(&locked("COMPLIANCE", 2_000, None), true, now).is_err());
        assert!(check_delete(&locked("COMPLIANCE", 500, None), false, now).is_ok());
        assert!(check_delete(&locked("GOVERNANCE", 2_000, None), false, now).is_err());
        assert!(check_delete(&locked("GOVERNANCE", 2_000, None), true, now).is_ok());
        assert!(check_delete(&locked("GOVERNANCE", 500, Some(true)), true, now).is_err());
        assert!(check_delete(&ObjectRecord::default(), false, now).is_ok());
    }

    #[test]
    fn retention_changes() {
        let now = 1_000;
        let compliance = locked("COMPLIANCE", 5_000, None);
        assert!(check_retention_change(&compliance, Some("COMPLIANCE"), Some(6_000), false, now).is_ok());
        assert!(check_retention_change(&compliance, Some("COMPLIANCE"), Some(4_000), true, now).is_err());
        assert!(check_retention_change(&compliance, Some("GOVERNANCE"), Some(6_000), true, now).is_err());
        let governance = locked("GOVERNANCE", 5_000, None);
        assert!(check_retention_change(&governance, Some("GOVERNANCE"), Some(4_000), false, now).is_err());
        assert!(check_retention_change(&governance, Some("GOVERNANCE"), Some(4_000), true, now).is_ok());
        assert!(check_retention_change(&governance, Some("COMPLIANCE"), Some(6_000), false, now).is_ok());
    }

    #[test]
    fn configurations() {
        let config = |days, years| ObjectLockConfiguration {
            object_lock_enabled: Some(ObjectLockEnabled::Enabled),
            rule: Some(ObjectLockRule {
                default_retention: Some(DefaultRetention {
                    mode: Some(ObjectLockRetentionMode::Governance),
                    days,
                    years,
                }),
            }),
        };
        assert!(check_configuration(&config(Some(1), None)).is_ok());
        assert_eq!(
            check_configuration(&config(Some(1), Some(1))).unwrap_err().code,
            "MalformedXML"
        );
        assert_eq!(
            check_configuration(&config(Some(0), None)).unwrap_err().code,
            "InvalidArgument"
        );
        assert_eq!(
            check_configuration(&ObjectLockConfiguration::default())
                .unwrap_err()
                .code,
            "MalformedXML"
        );
    }
}
