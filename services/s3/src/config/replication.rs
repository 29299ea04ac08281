//! The checks of a replication configuration's rules against their schema version.

use std::collections::HashSet;
use stratus_core::arn::Arn;
use stratus_core::AwsError;
use stratus_gen_s3::*;

use crate::error::S3Error;

/// The "Cross Region Replication configuration schema" refusal for an element the rules'
/// schema version (V2 when any rule has a `Filter`) requires or forbids.
fn replication_schema(element: &str, required: bool) -> AwsError {
    let rule = if required {
        "must be specified"
    } else {
        "cannot be used"
    };
    S3Error::invalid_request(format!(
        "{element} {rule} for this version of Cross Region Replication configuration schema. Please refer to S3 Developer Guide for more information."
    ))
}

/// AWS's checks on the rules of bucket `source`'s replication configuration that need no
/// other bucket; gives rules without an ID one. Returns the destination buckets' names.
pub(crate) fn check_replication(source: &str, config: &mut ReplicationConfiguration) -> Result<Vec<String>, AwsError> {
    if config.role.is_empty() {
        return Err(S3Error::invalid_argument(
            "Invalid Role specified in replication configuration",
        ));
    }
    if config.rules.is_empty() || config.rules.len() > 1000 {
        return Err(S3Error::malformed_xml());
    }
    // Rules with a Filter are the V2 schema: every rule then needs a Priority (unique) and
    // DeleteMarkerReplication; the V1 schema allows neither, and one destination.
    let v2 = config.rules.iter().any(|r| r.filter.is_some());
    let (mut ids, mut priorities, mut destinations) = (HashSet::new(), HashSet::new(), Vec::new());
    for rule in &mut config.rules {
        if rule.filter.is_some() == rule.prefix.is_some() || matches!(rule.status, ReplicationRuleStatus::Unknown(_)) {
            return Err(S3Error::malformed_xml());
        }
        let id = rule.id.get_or_insert_with(stratus_core::id::uuid);
        if id.chars().count() > 255 {
            return Err(S3Error::invalid_argument("Rule Id cannot be greater than 255"));
        }
        if !ids.insert(id.clone()) {
            return Err(S3Error::invalid_argument("Rule Id must be unique"));
        }
        match (v2, rule.priority) {
            (true, None) => return Err(replication_schema("Priority", true)),
            (true, Some(p)) if !priorities.insert(p) => {
                return Err(S3Error::invalid_request(format!("Found duplicate priority {p}.")))
            }
            (false, Some(_)) => return Err(replication_schema("Priority", false)),
            _ => {}
        }
        match (v2, rule.delete_marker_replication.is_some()) {
            (true, false) => return Err(replication_schema("DeleteMarkerReplication", true)),
            (false, true) => return Err(replication_schema("DeleteMarkerReplication", false)),
            _ => {}
        }
        let destination = Arn::parse(&rule.destination.bucket)
            .ok()
            .filter(|a| a.service == "s3" && a.region.is_empty() && a.account.is_empty())
            .map(|a| a.resource)
            .filter(|name| crate::bucket::valid_name(name))
            .ok_or_else(|| S3Error::invalid_argument("Invalid bucket ARN"))?;
        if destination == source {
            return Err(S3Error::invalid_request(
                "Destination bucket cannot be the same as the source bucket.",
            ));
        }
        if !destinations.contains(&destination) {
            destinations.push(destination);
        }
    }
    if !v2 && destinations.len() > 1 {
        return Err(S3Error::invalid_request(
            "Number of distinct destination bucket ARNs cannot exceed 1",
        ));
    }
    Ok(destinations)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replication(rules: Vec<ReplicationRule>) -> ReplicationConfiguration {
        ReplicationConfiguration {
            role: "arn:aws:iam::000000000000:role/r".into(),
            rules,
        }
    }

    fn rule(destination: &str, filter: Option<ReplicationRuleFilter>) -> ReplicationRule {
        ReplicationRule {
            id: None,
            priority: None,
            prefix: filter.is_none().then(String::new),
            filter,
            status: ReplicationRuleStatus::Enabled,
            source_selection_criteria: None,
            existing_object_replication: None,
            destination: Destination {
                bucket: format!("arn:aws:s3:::{destination}"),
                ..Destination::default()
            },
            delete_marker_replication: None,
        }
    }

    #[test]
    fn replication_rules_follow_their_schema_version() {
        let mut v1 = replication(vec![rule("dest", None)]);
        assert_eq!(check_replication("src", &mut v1).unwrap(), ["dest"]);
        assert!(v1.rules[0].id.is_some(), "a rule without an ID gets one");
        let message = |mut config: ReplicationConfiguration| check_replication("src", &mut config).unwrap_err().message;
        assert_eq!(
            message(replication(vec![rule("dest", None), rule("other", None)])),
            "Number of distinct destination bucket ARNs cannot exceed 1"
        );
        assert_eq!(
            message(replication(vec![rule("src", None)])),
            "Destination bucket cannot be the same as the source bucket."
        );
        let mut named = rule("dest", None);
        named.destination.bucket = "dest".into();
        assert_eq!(message(replication(vec![named])), "Invalid bucket ARN");
        let v2 = |priority: Option<i32>| ReplicationRule {
            priority,
            delete_marker_replication: Some(DeleteMarkerReplication::default()),
            ..rule("dest", Some(ReplicationRuleFilter::default()))
        };
        assert!(message(replication(vec![v2(None)])).starts_with("Priority must be specified for this version"));
        assert_eq!(
            message(replication(vec![v2(Some(1)), v2(Some(1))])),
            "Found duplicate priority 1."
        );
        let mut two = replication(vec![
            v2(Some(1)),
            ReplicationRule {
                id: Some("b".into()),
                ..v2(Some(2))
            },
        ]);
        two.rules[1].destination.bucket = "arn:aws:s3:::other".into();
        assert_eq!(check_replication("src", &mut two).unwrap(), ["dest", "other"]);
        let mut v1_with_priority = rule("dest", None);
        v1_with_priority.priority = Some(1);
        assert!(message(replication(vec![v1_with_priority])).starts_with("Priority cannot be used for this version"));
    }
}
