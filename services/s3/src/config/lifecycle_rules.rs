//! The checks of a lifecycle configuration's rules (they are applied by [`crate::sweeper`]).

use std::collections::HashSet;
use stratus_core::AwsError;
use stratus_gen_s3::*;

use crate::error::S3Error;

/// AWS's checks on a lifecycle configuration's rules.
pub(crate) fn check_lifecycle(rules: &[LifecycleRule]) -> Result<(), AwsError> {
    if rules.is_empty() || rules.len() > 1000 {
        return Err(S3Error::malformed_xml());
    }
    let mut ids = HashSet::new();
    for rule in rules {
        if let Some(id) = &rule.id {
            if id.chars().count() > 255 {
                return Err(S3Error::invalid_argument(
                    "ID length should not exceed allowed limit of 255",
                ));
            }
            if !ids.insert(id.as_str()) {
                return Err(S3Error::invalid_argument(
                    "Rule ID must be unique. Found same ID for more than one rule",
                ));
            }
        }
        if rule.filter.is_some() == rule.prefix.is_some() {
            return Err(S3Error::malformed_xml());
        }
        if matches!(rule.status, ExpirationStatus::Unknown(_)) {
            return Err(S3Error::malformed_xml());
        }
        let has_action = rule.expiration.is_some()
            || rule.transitions.as_ref().is_some_and(|t| !t.is_empty())
            || rule.noncurrent_version_expiration.is_some()
            || rule
                .noncurrent_version_transitions
                .as_ref()
                .is_some_and(|t| !t.is_empty())
            || rule.abort_incomplete_multipart_upload.is_some();
        if !has_action {
            return Err(S3Error::invalid_request(
                "At least one action needs to be specified in a rule",
            ));
        }
        if let Some(exp) = &rule.expiration {
            let set = [
                exp.days.is_some(),
                exp.date.is_some(),
                exp.expired_object_delete_marker.is_some(),
            ];
            if set.iter().filter(|s| **s).count() != 1 {
                return Err(S3Error::malformed_xml());
            }
            if exp.days.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'Days' for Expiration action must be a positive integer",
                ));
            }
            if exp.date.as_ref().is_some_and(|d| d.secs() % 86_400 != 0) {
                return Err(S3Error::invalid_argument("'Date' must be at midnight GMT"));
            }
        }
        if let Some(n) = &rule.noncurrent_version_expiration {
            if n.noncurrent_days.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
                ));
            }
        }
        if let Some(a) = &rule.abort_incomplete_multipart_upload {
            if a.days_after_initiation.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
                ));
            }
        }
    }
    Ok(())
}
