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
        if let Some(filter) = &rule.filter {
            check_filter(filter)?;
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
            if let Some(date) = exp.date.as_ref().filter(|d| d.secs() % 86_400 != 0) {
                let written = date
                    .fmt(aws_smithy_types::date_time::Format::DateTime)
                    .unwrap_or_default();
                return Err(S3Error::invalid_argument("'Date' must be at midnight GMT")
                    .with_detail("ArgumentName", "Date")
                    .with_detail("ArgumentValue", written));
            }
        }
        if let Some(n) = &rule.noncurrent_version_expiration {
            if n.noncurrent_days.is_none() && n.newer_noncurrent_versions.is_none() {
                return Err(S3Error::malformed_xml());
            }
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

/// A rule's filter names one condition (`Prefix`, `Tag`, an object size, or `And` to combine
/// several), and an `And` names each tag key once.
fn check_filter(filter: &LifecycleRuleFilter) -> Result<(), AwsError> {
    let named = [
        filter.prefix.is_some(),
        filter.tag.is_some(),
        filter.object_size_greater_than.is_some(),
        filter.object_size_less_than.is_some(),
        filter.and.is_some(),
    ];
    if named.iter().filter(|n| **n).count() > 1 {
        return Err(S3Error::malformed_xml());
    }
    let tags = filter.and.as_ref().and_then(|a| a.tags.as_deref()).unwrap_or_default();
    let mut keys = HashSet::new();
    if !tags.iter().all(|t| keys.insert(t.key.as_str())) {
        return Err(S3Error::invalid_request("Duplicate Tag Keys are not allowed."));
    }
    Ok(())
}
