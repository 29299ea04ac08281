//! Lifecycle rules: which objects a rule covers, when its expiration actions fall due, and
//! what a sweep does to one key's versions ([`plan`]). The sweep itself is [`crate::sweeper`].
//!
//! Dates follow the S3 user guide ("Lifecycle configuration elements", "How Amazon S3
//! calculates when an object expires"): S3 adds the rule's days to the object's creation time
//! (for noncurrent versions, to the time their successor was created) and rounds the result up
//! to the next midnight UTC. A `Date` expires matching objects from that date on. Only enabled
//! rules act ("If a rule is disabled, Amazon S3 doesn't perform any actions specified in the
//! rule").
//!
//! A "day" is [`Calendar::day_ms`] long: a real day unless the binary's
//! `--s3-lifecycle-day-seconds` shortens it; midnights are then multiples of that length
//! since the epoch.

use std::collections::BTreeMap;

use stratus_core::DateTime;
use stratus_gen_s3::{schema, ExpirationStatus, LifecycleRule};

use crate::config::{self, LIFECYCLE};
use crate::listing::plus_encode;
use crate::object::ObjectRecord;
use crate::S3Service;

pub(crate) const DAY_MS: i64 = 86_400_000;

/// What lifecycle dates are reckoned by: the current time and the length of a day, in
/// milliseconds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Calendar {
    pub now_ms: i64,
    pub day_ms: i64,
}

impl Calendar {
    /// `days` after `start_ms`, rounded up to the next midnight.
    fn after_days(&self, start_ms: i64, days: i32) -> i64 {
        let at = start_ms.saturating_add(i64::from(days).saturating_mul(self.day_ms));
        (at.div_euclid(self.day_ms) + 1).saturating_mul(self.day_ms)
    }

    fn due(&self, at_ms: i64) -> bool {
        at_ms <= self.now_ms
    }
}

/// Whether a rule with this status acts.
fn enabled(rule: &LifecycleRule) -> bool {
    rule.status == ExpirationStatus::Enabled
}

/// Whether `rule`'s filter (or legacy top-level prefix) covers an object with this key, tags
/// and size. Filter elements combine with AND; size bounds are strict.
fn covers(rule: &LifecycleRule, key: &str, tags: &BTreeMap<String, String>, size: u64) -> bool {
    if let Some(prefix) = &rule.prefix {
        return key.starts_with(prefix.as_str());
    }
    let Some(filter) = &rule.filter else { return true };
    let prefix = |p: &Option<String>| p.as_deref().is_none_or(|p| key.starts_with(p));
    let tag = |k: &str, v: &str| tags.get(k).is_some_and(|t| t == v);
    let sizes = |above: Option<i64>, below: Option<i64>| {
        let size = i64::try_from(size).unwrap_or(i64::MAX);
        above.is_none_or(|n| size > n) && below.is_none_or(|n| size < n)
    };
    prefix(&filter.prefix)
        && filter.tag.as_ref().is_none_or(|t| tag(&t.key, &t.value))
        && sizes(filter.object_size_greater_than, filter.object_size_less_than)
        && filter.and.as_ref().is_none_or(|and| {
            prefix(&and.prefix)
                && and.tags.iter().flatten().all(|t| tag(&t.key, &t.value))
                && sizes(and.object_size_greater_than, and.object_size_less_than)
        })
}

fn covers_record(rule: &LifecycleRule, record: &ObjectRecord) -> bool {
    covers(rule, &record.key, &record.tags, record.size)
}

/// When `rule`'s `Expiration` (Days or Date) expires `record` as the current version, if it does.
fn current_expiry(rule: &LifecycleRule, record: &ObjectRecord, clock: &Calendar) -> Option<i64> {
    if !enabled(rule) || !covers_record(rule, record) {
        return None;
    }
    let expiration = rule.expiration.as_ref()?;
    match (expiration.days, &expiration.date) {
        (Some(days), _) => Some(clock.after_days(record.last_modified_ms, days)),
        (None, Some(date)) => Some(date.secs().saturating_mul(1000)),
        (None, None) => None,
    }
}

/// The enabled rule that expires the current version `record` first, and when: what
/// `x-amz-expiration` reports.
fn expiration<'r>(
    rules: &'r [LifecycleRule],
    record: &ObjectRecord,
    clock: &Calendar,
) -> Option<(i64, &'r LifecycleRule)> {
    rules
        .iter()
        .filter_map(|rule| current_expiry(rule, record, clock).map(|at| (at, rule)))
        .min_by_key(|(at, _)| *at)
}

/// The `x-amz-expiration` header value: `expiry-date="<HTTP date>", rule-id="<URL-encoded id>"`.
fn expiration_header(at_ms: i64, rule: &LifecycleRule) -> String {
    let date = DateTime::from_millis(at_ms)
        .fmt(aws_smithy_types::date_time::Format::HttpDate)
        .unwrap_or_default();
    let id = plus_encode(rule.id.as_deref().unwrap_or_default(), b'~');
    format!("expiry-date=\"{date}\", rule-id=\"{id}\"")
}

impl S3Service {
    /// The `x-amz-expiration` of `record`, the current version of its key in `bucket`, when
    /// an enabled rule will expire it.
    pub(crate) fn expiration(&self, bucket: &str, record: &ObjectRecord) -> Option<String> {
        let db = self.store().ok()?;
        let rules: Vec<LifecycleRule> =
            config::typed(&db, bucket, LIFECYCLE, &schema::LIFECYCLE_RULES, || None).ok()??;
        let (at, rule) = expiration(&rules, record, &self.lifecycle.calendar())?;
        Some(expiration_header(at, rule))
    }
}

/// Whether any rule has an enabled action a sweep carries out (transitions are not emulated).
pub(crate) fn has_expiration(rules: &[LifecycleRule]) -> bool {
    rules.iter().filter(|r| enabled(r)).any(|r| {
        r.expiration.is_some()
            || r.noncurrent_version_expiration.is_some()
            || r.abort_incomplete_multipart_upload.is_some()
    })
}

/// Whether an incomplete multipart upload of `key`, started at `initiated_ms`, is due to be
/// aborted by some enabled rule's `AbortIncompleteMultipartUpload`.
pub(crate) fn abort_due(
    rules: &[LifecycleRule],
    key: &str,
    tags: &BTreeMap<String, String>,
    initiated_ms: i64,
    clock: &Calendar,
) -> bool {
    rules.iter().any(|rule| {
        enabled(rule)
            && covers(rule, key, tags, 0)
            && rule
                .abort_incomplete_multipart_upload
                .as_ref()
                .and_then(|a| a.days_after_initiation)
                .is_some_and(|days| clock.due(clock.after_days(initiated_ms, days)))
    })
}

/// What a sweep does to one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Expire the current version: delete it in an unversioned bucket, add a delete marker in
    /// a versioned one.
    ExpireCurrent,
    /// Delete this noncurrent version for good.
    RemoveNoncurrent(String),
    /// Delete this delete marker, the key's only remaining version, for good.
    RemoveMarker(String),
}

/// The actions `rules` call for on one key whose versions are `versions` (newest first; an
/// unversioned bucket's object is its only version).
///
/// - The current version, unless a delete marker, expires by `Expiration` Days or Date.
/// - A noncurrent version expires by `NoncurrentVersionExpiration`: `NoncurrentDays` after its
///   successor was created, and only beyond the `NewerNoncurrentVersions` newest noncurrent
///   versions.
/// - A delete marker left as the only version ("expired object delete marker") is removed by
///   `ExpiredObjectDeleteMarker`, or by an `Expiration` Days or Date that has come for it (S3
///   user guide, "Managing delete markers": "If the lifecycle configuration is set to delete
///   current versions, or the ExpiredObjectDeleteMarker action is explicitly set, Amazon S3
///   removes the expired object's delete marker"). It comes last, so it can be skipped when a
///   noncurrent version could not be removed.
pub(crate) fn plan(rules: &[LifecycleRule], versions: &[ObjectRecord], clock: &Calendar) -> Vec<Action> {
    let mut actions = Vec::new();
    let Some(current) = versions.first() else {
        return actions;
    };
    if !current.delete_marker
        && rules
            .iter()
            .any(|r| current_expiry(r, current, clock).is_some_and(|at| clock.due(at)))
    {
        actions.push(Action::ExpireCurrent);
    }
    let mut kept = 0;
    for (newer, pair) in versions.windows(2).enumerate() {
        let (successor, version) = (&pair[0], &pair[1]);
        if rules
            .iter()
            .any(|r| noncurrent_due(r, version, successor.last_modified_ms, newer, clock))
        {
            actions.push(Action::RemoveNoncurrent(version.version_label().to_owned()));
        } else {
            kept += 1;
        }
    }
    if current.delete_marker && kept == 0 && rules.iter().any(|r| marker_due(r, current, clock)) {
        actions.push(Action::RemoveMarker(current.version_label().to_owned()));
    }
    actions
}

/// Whether `rule` expires the noncurrent `version`, noncurrent since `since_ms`, with `newer`
/// noncurrent versions newer than it.
fn noncurrent_due(rule: &LifecycleRule, version: &ObjectRecord, since_ms: i64, newer: usize, clock: &Calendar) -> bool {
    let Some(expiration) = rule.noncurrent_version_expiration.as_ref().filter(|_| enabled(rule)) else {
        return false;
    };
    let (days, keep) = (expiration.noncurrent_days, expiration.newer_noncurrent_versions);
    (days.is_some() || keep.is_some())
        && covers_record(rule, version)
        && days.is_none_or(|d| clock.due(clock.after_days(since_ms, d)))
        && keep.is_none_or(|k| newer >= usize::try_from(k).unwrap_or(0))
}

fn marker_due(rule: &LifecycleRule, marker: &ObjectRecord, clock: &Calendar) -> bool {
    let explicit = enabled(rule)
        && covers_record(rule, marker)
        && rule
            .expiration
            .as_ref()
            .and_then(|e| e.expired_object_delete_marker)
            .unwrap_or(false);
    explicit || current_expiry(rule, marker, clock).is_some_and(|at| clock.due(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_gen_s3::{
        LifecycleExpiration, LifecycleRuleAndOperator, LifecycleRuleFilter, NoncurrentVersionExpiration, Tag,
    };

    /// 2014-01-15T10:30:00Z, the user guide's example creation time.
    const JAN_15_1030: i64 = 1_389_781_800_000;
    const DAY: i64 = DAY_MS;

    fn clock(now_ms: i64) -> Calendar {
        Calendar { now_ms, day_ms: DAY }
    }

    fn rule(id: &str) -> LifecycleRule {
        LifecycleRule {
            id: Some(id.into()),
            status: ExpirationStatus::Enabled,
            filter: Some(LifecycleRuleFilter::default()),
            prefix: None,
            expiration: None,
            transitions: None,
            noncurrent_version_transitions: None,
            noncurrent_version_expiration: None,
            abort_incomplete_multipart_upload: None,
        }
    }

    fn expire_after(days: i32) -> LifecycleRule {
        LifecycleRule {
            expiration: Some(LifecycleExpiration {
                days: Some(days),
                ..LifecycleExpiration::default()
            }),
            ..rule("days")
        }
    }

    fn version(key: &str, id: &str, modified_ms: i64, marker: bool) -> ObjectRecord {
        ObjectRecord {
            key: key.into(),
            size: if marker { 0 } else { 10 },
            version_id: Some(id.into()),
            last_modified_ms: modified_ms,
            delete_marker: marker,
            seq: 1,
            ..ObjectRecord::default()
        }
    }

    // "How Amazon S3 calculates when an object expires": created 1/15/2014 10:30 UTC with 3
    // days, the action falls on 1/19/2014 00:00 UTC.
    #[test]
    fn days_round_up_to_the_next_midnight_utc() {
        let at = clock(0).after_days(JAN_15_1030, 3);
        assert_eq!(at, 1_390_089_600_000, "2014-01-19T00:00:00Z");
        // A shortened day: 2-second "days", midnights every 2 seconds.
        let short = Calendar {
            now_ms: 0,
            day_ms: 2000,
        };
        assert_eq!(short.after_days(10_500, 1), 14_000);
        assert_eq!(
            short.after_days(10_000, 1),
            14_000,
            "a midnight itself rounds to the next"
        );
    }

    // The x-amz-expiration AWS returned for an object last modified Tue, 14 Aug 2018
    // 19:57:04 GMT under a 60-day rule (recorded in "Check the expiration date of objects
    // with AWS CLI", classmethod, 2018): expiry-date="Sun, 14 Oct 2018 00:00:00 GMT".
    #[test]
    fn the_expiration_header_names_the_date_and_rule() {
        let object = ObjectRecord {
            key: "k".into(),
            last_modified_ms: 1_534_276_624_000,
            ..ObjectRecord::default()
        };
        let rules = [LifecycleRule {
            id: Some("lifecycle-test-rule".into()),
            ..expire_after(60)
        }];
        let (at, rule) = expiration(&rules, &object, &clock(0)).unwrap();
        assert_eq!(
            expiration_header(at, rule),
            "expiry-date=\"Sun, 14 Oct 2018 00:00:00 GMT\", rule-id=\"lifecycle-test-rule\""
        );
        let spaced = LifecycleRule {
            id: Some("my rule".into()),
            ..expire_after(60)
        };
        assert!(expiration_header(at, &spaced).ends_with("rule-id=\"my+rule\""));
    }

    #[test]
    fn the_earliest_enabled_rule_wins_and_disabled_rules_do_nothing() {
        let object = version("k", "v", JAN_15_1030, false);
        let disabled = LifecycleRule {
            status: ExpirationStatus::Disabled,
            ..expire_after(1)
        };
        let rules = [
            expire_after(30),
            disabled.clone(),
            LifecycleRule {
                id: Some("ten".into()),
                ..expire_after(10)
            },
        ];
        let (_, rule) = expiration(&rules, &object, &clock(0)).unwrap();
        assert_eq!(rule.id.as_deref(), Some("ten"));
        assert!(expiration(std::slice::from_ref(&disabled), &object, &clock(0)).is_none());
        assert!(plan(&[disabled], &[object], &clock(i64::MAX / 2)).is_empty());
    }

    #[test]
    fn filters_combine_prefix_tags_and_sizes() {
        let tags = BTreeMap::from([("a".to_string(), "1".to_string()), ("b".to_string(), "2".to_string())]);
        let with = |filter: LifecycleRuleFilter| LifecycleRule {
            filter: Some(filter),
            ..rule("f")
        };
        let legacy = LifecycleRule {
            prefix: Some("logs/".into()),
            filter: None,
            ..rule("p")
        };
        assert!(covers(&legacy, "logs/x", &tags, 1));
        assert!(!covers(&legacy, "data/x", &tags, 1));
        assert!(covers(
            &with(LifecycleRuleFilter::default()),
            "anything",
            &BTreeMap::new(),
            0
        ));
        let tag = |k: &str, v: &str| Tag {
            key: k.into(),
            value: v.into(),
        };
        assert!(covers(
            &with(LifecycleRuleFilter {
                tag: Some(tag("a", "1")),
                ..Default::default()
            }),
            "k",
            &tags,
            1
        ));
        assert!(!covers(
            &with(LifecycleRuleFilter {
                tag: Some(tag("a", "2")),
                ..Default::default()
            }),
            "k",
            &tags,
            1
        ));
        let sized = with(LifecycleRuleFilter {
            object_size_greater_than: Some(10),
            object_size_less_than: Some(20),
            ..Default::default()
        });
        assert!(!covers(&sized, "k", &tags, 10), "the bounds are strict");
        assert!(covers(&sized, "k", &tags, 11));
        assert!(!covers(&sized, "k", &tags, 20));
        let and = |tags_wanted: Vec<Tag>| {
            with(LifecycleRuleFilter {
                and: Some(LifecycleRuleAndOperator {
                    prefix: Some("logs/".into()),
                    tags: Some(tags_wanted),
                    object_size_greater_than: Some(0),
                    object_size_less_than: None,
                }),
                ..Default::default()
            })
        };
        assert!(covers(&and(vec![tag("a", "1"), tag("b", "2")]), "logs/x", &tags, 1));
        assert!(!covers(&and(vec![tag("a", "1"), tag("c", "3")]), "logs/x", &tags, 1));
        assert!(!covers(&and(vec![tag("a", "1")]), "data/x", &tags, 1));
        assert!(!covers(&and(vec![tag("a", "1")]), "logs/x", &tags, 0));
    }

    #[test]
    fn a_current_version_expires_at_its_midnight() {
        let object = [version("k", "v", JAN_15_1030, false)];
        let rules = [expire_after(3)];
        let due = 1_390_089_600_000;
        assert!(plan(&rules, &object, &clock(due - 1)).is_empty());
        assert_eq!(plan(&rules, &object, &clock(due)), vec![Action::ExpireCurrent]);
        let dated = LifecycleRule {
            expiration: Some(LifecycleExpiration {
                date: Some(DateTime::from_secs(1_400_000_000 / 86_400 * 86_400)),
                ..LifecycleExpiration::default()
            }),
            ..rule("date")
        };
        assert!(plan(std::slice::from_ref(&dated), &object, &clock(1_300_000_000_000)).is_empty());
        assert_eq!(
            plan(&[dated], &object, &clock(1_400_000_000_000)),
            vec![Action::ExpireCurrent]
        );
    }

    #[test]
    fn noncurrent_versions_expire_after_their_successor_and_beyond_the_newest_kept() {
        // Newest first: current v3 (day 10), v2 (day 5), v1 (day 0).
        let versions = [
            version("k", "v3", 10 * DAY, false),
            version("k", "v2", 5 * DAY, false),
            version("k", "v1", 0, false),
        ];
        let noncurrent = |days: Option<i32>, keep: Option<i32>| LifecycleRule {
            noncurrent_version_expiration: Some(NoncurrentVersionExpiration {
                noncurrent_days: days,
                newer_noncurrent_versions: keep,
            }),
            ..rule("n")
        };
        // v1 became noncurrent on day 5, so 2 days later rounds to day 8; v2 on day 10 → day 13.
        assert!(plan(&[noncurrent(Some(2), None)], &versions, &clock(8 * DAY - 1)).is_empty());
        assert_eq!(
            plan(&[noncurrent(Some(2), None)], &versions, &clock(8 * DAY)),
            vec![Action::RemoveNoncurrent("v1".into())]
        );
        assert_eq!(
            plan(&[noncurrent(Some(2), None)], &versions, &clock(13 * DAY)),
            vec![
                Action::RemoveNoncurrent("v2".into()),
                Action::RemoveNoncurrent("v1".into())
            ]
        );
        // Keeping the newest noncurrent version spares v2 however old it is.
        assert_eq!(
            plan(&[noncurrent(Some(2), Some(1))], &versions, &clock(100 * DAY)),
            vec![Action::RemoveNoncurrent("v1".into())]
        );
        assert!(plan(&[noncurrent(None, None)], &versions, &clock(100 * DAY)).is_empty());
    }

    #[test]
    fn a_lone_delete_marker_is_removed_when_a_rule_says_so() {
        let lone = [version("k", "m", 0, true)];
        let eodm = LifecycleRule {
            expiration: Some(LifecycleExpiration {
                expired_object_delete_marker: Some(true),
                ..LifecycleExpiration::default()
            }),
            ..rule("eodm")
        };
        assert_eq!(
            plan(std::slice::from_ref(&eodm), &lone, &clock(1)),
            vec![Action::RemoveMarker("m".into())]
        );
        // Days-based expiration removes it once the days have passed for the marker.
        assert!(plan(&[expire_after(1)], &lone, &clock(DAY)).is_empty());
        assert_eq!(
            plan(&[expire_after(1)], &lone, &clock(2 * DAY)),
            vec![Action::RemoveMarker("m".into())]
        );
        // A marker with versions behind it stays, and is never "expired" again.
        let shadowing = [version("k", "m", DAY, true), version("k", "v", 0, false)];
        assert!(plan(std::slice::from_ref(&eodm), &shadowing, &clock(100 * DAY)).is_empty());
        // Unless those versions expire in the same sweep.
        let both = LifecycleRule {
            noncurrent_version_expiration: Some(NoncurrentVersionExpiration {
                noncurrent_days: Some(1),
                newer_noncurrent_versions: None,
            }),
            ..eodm
        };
        assert_eq!(
            plan(&[both], &shadowing, &clock(100 * DAY)),
            vec![Action::RemoveNoncurrent("v".into()), Action::RemoveMarker("m".into())]
        );
    }
}
