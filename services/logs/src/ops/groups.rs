//! Log groups: CreateLogGroup, DeleteLogGroup, DescribeLogGroups, ListLogGroups, retention,
//! deletion protection and KMS keys.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::{Direction, KeyRange, Read};

use crate::error::{already_exists, invalid_parameter, invalid_token, Result};
use crate::ingest::remove_events;
use crate::records::{group_key, GroupRecord, GROUPS, METRIC_FILTERS, STREAMS, SUBSCRIPTION_FILTERS};
use crate::service::{group_arn, group_of_identifier, load_group, LogsService};

const GROUP_LISTING: Token = Token::for_listing("logs:DescribeLogGroups");
const DESCRIBE_PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};
const LIST_PAGE: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 1000,
};

/// The retention periods AWS allows, in days (API reference, PutRetentionPolicy).
const RETENTION_DAYS: &[i32] = &[
    1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

pub(crate) async fn create_log_group(
    logs: &LogsService,
    ctx: &RequestContext,
    input: CreateLogGroupRequest,
) -> Result<Unit, AwsError> {
    let tags = input.tags.unwrap_or_default();
    super::tags::check_tags(&tags)?;
    let mut group = GroupRecord::new(input.log_group_name, ctx.clock.epoch_millis());
    group.kms_key_id = input.kms_key_id;
    if let Some(class) = input.log_group_class {
        group.class = class.as_str().to_owned();
    }
    group.deletion_protection = input.deletion_protection_enabled.unwrap_or(false);
    group.tags = tags;
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        if GROUPS.get(&*tx, group.name.as_bytes())?.is_some() {
            return Err(already_exists("The specified log group already exists"));
        }
        GROUPS.put(tx, group.name.as_bytes().to_vec(), &group)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_log_group(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteLogGroupRequest,
) -> Result<Unit, AwsError> {
    let name = input.log_group_name;
    let freed = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let group = load_group(&*tx, &name)?;
            if group.deletion_protection {
                return Err(AwsError::new(
                    "OperationAbortedException",
                    "Log group deletion is protected. Disable deletion protection to delete the log group.",
                    400,
                )
                .into());
            }
            let prefix = group_key(&name);
            let freed = remove_events(tx, &name, None, None)?;
            for table in [STREAMS.name(), METRIC_FILTERS.name(), SUBSCRIPTION_FILTERS.name()] {
                for (key, _) in tx.scan(table, &KeyRange::prefix(&prefix), Direction::Forward, None)? {
                    tx.delete(table, key);
                }
            }
            GROUPS.delete(tx, name.as_bytes().to_vec());
            Ok(freed)
        })
        .await?;
    logs.add_used(&ctx.account_id, &ctx.region, -freed);
    Ok(Unit {})
}

impl GroupRecord {
    /// A new group of the STANDARD class, without retention, tags or events.
    pub(crate) fn new(name: String, now: i64) -> GroupRecord {
        GroupRecord {
            name,
            creation_time: now,
            retention_days: None,
            kms_key_id: None,
            class: "STANDARD".to_owned(),
            deletion_protection: false,
            tags: Default::default(),
        }
    }
}

/// How a group is described: DescribeLogGroups leaves `storedBytes` and
/// `deletionProtectionEnabled` out when asked by pattern, as AWS does.
fn describe(
    r: &(impl Read + ?Sized),
    (region, account): &(String, String),
    group: GroupRecord,
    by_pattern: bool,
) -> Result<LogGroup> {
    let arn = group_arn(region, account, &group.name);
    let metric_filters = METRIC_FILTERS.scan_prefix(r, group_key(&group.name))?.len() as i32;
    let stored_bytes: i64 = STREAMS
        .scan_prefix(r, group_key(&group.name))?
        .iter()
        .map(|(_, s)| s.stored_bytes)
        .sum();
    Ok(LogGroup {
        arn: Some(format!("{arn}:*")),
        log_group_arn: Some(arn),
        creation_time: Some(group.creation_time),
        retention_in_days: group.retention_days,
        metric_filter_count: Some(metric_filters),
        stored_bytes: (!by_pattern).then_some(stored_bytes),
        kms_key_id: group.kms_key_id,
        log_group_class: Some(LogGroupClass::from_wire(&group.class)),
        deletion_protection_enabled: (!by_pattern).then_some(group.deletion_protection),
        log_group_name: Some(group.name),
        ..LogGroup::default()
    })
}

/// Whether `name` contains `pattern`, ignoring case (logGroupNamePattern).
fn matches_pattern(name: &str, pattern: &str) -> bool {
    name.to_lowercase().contains(&pattern.to_lowercase())
}

pub(crate) async fn describe_log_groups(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeLogGroupsRequest,
) -> Result<DescribeLogGroupsResponse, AwsError> {
    if input.log_group_name_prefix.is_some() && input.log_group_name_pattern.is_some() {
        return Err(invalid_parameter(
            "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters.",
        )
        .into());
    }
    let after = match input.next_token.as_deref() {
        Some(token) => Some(GROUP_LISTING.decode_str(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let size = DESCRIBE_PAGE.clamp(input.limit);
    let place = (ctx.region.clone(), ctx.account_id.clone());
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let prefix = input.log_group_name_prefix.as_deref().unwrap_or("");
        let identifiers: Option<Vec<String>> = input
            .log_group_identifiers
            .map(|ids| ids.iter().map(|i| group_of_identifier(i).to_owned()).collect());
        let groups = GROUPS
            .scan_prefix(store, prefix.as_bytes())?
            .into_iter()
            .map(|(_, g)| g)
            .filter(|g| after.as_deref().is_none_or(|a| g.name.as_str() > a))
            .filter(|g| {
                input
                    .log_group_name_pattern
                    .as_deref()
                    .is_none_or(|p| matches_pattern(&g.name, p))
            })
            .filter(|g| input.log_group_class.as_ref().is_none_or(|c| c.as_str() == g.class))
            .filter(|g| identifiers.as_ref().is_none_or(|ids| ids.contains(&g.name)));
        let (page, more) = take_page(groups, size);
        let by_pattern = input.log_group_name_pattern.is_some();
        // A search by pattern answers a token after every page that found something, as AWS
        // does: the page after the last is empty and has none.
        let next_token = (more || by_pattern)
            .then(|| page.last().map(|g| GROUP_LISTING.encode_str(&g.name)))
            .flatten();
        let log_groups = page
            .into_iter()
            .map(|g| describe(store, &place, g, by_pattern))
            .collect::<Result<Vec<_>>>()?;
        Ok(DescribeLogGroupsResponse {
            log_groups: Some(log_groups),
            next_token,
        })
    })
    .await
}

pub(crate) async fn list_log_groups(
    logs: &LogsService,
    ctx: &RequestContext,
    input: ListLogGroupsRequest,
) -> Result<ListLogGroupsResponse, AwsError> {
    let after = match input.next_token.as_deref() {
        Some(token) => Some(GROUP_LISTING.decode_str(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let size = LIST_PAGE.clamp(input.limit);
    let (region, account) = (ctx.region.clone(), ctx.account_id.clone());
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let groups = GROUPS
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .into_iter()
            .map(|(_, g)| g)
            .filter(|g| after.as_deref().is_none_or(|a| g.name.as_str() > a))
            .filter(|g| {
                input
                    .log_group_name_pattern
                    .as_deref()
                    .is_none_or(|p| matches_pattern(&g.name, p))
            })
            .filter(|g| input.log_group_class.as_ref().is_none_or(|c| c.as_str() == g.class));
        let (page, more) = take_page(groups, size);
        let next_token = more
            .then(|| page.last().map(|g| GROUP_LISTING.encode_str(&g.name)))
            .flatten();
        Ok(ListLogGroupsResponse {
            log_groups: Some(
                page.into_iter()
                    .map(|g| LogGroupSummary {
                        log_group_arn: Some(group_arn(&region, &account, &g.name)),
                        log_group_class: Some(LogGroupClass::from_wire(&g.class)),
                        log_group_name: Some(g.name),
                    })
                    .collect(),
            ),
            next_token,
        })
    })
    .await
}

/// Changes the group `name` with `change`, in one transaction.
pub(crate) async fn change_group<R: Send + 'static>(
    logs: &LogsService,
    ctx: &RequestContext,
    name: String,
    change: impl FnOnce(&mut GroupRecord) -> Result<R> + Send + 'static,
) -> Result<R, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut group = load_group(&*tx, &name)?;
        let answer = change(&mut group)?;
        GROUPS.put(tx, name.as_bytes().to_vec(), &group)?;
        Ok(answer)
    })
    .await
}

pub(crate) async fn put_retention_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutRetentionPolicyRequest,
) -> Result<Unit, AwsError> {
    let days = input.retention_in_days;
    if !RETENTION_DAYS.contains(&days) {
        let allowed: Vec<String> = RETENTION_DAYS.iter().map(i32::to_string).collect();
        return Err(invalid_parameter(format!(
            "1 validation error detected: Value '{days}' at 'retentionInDays' failed to satisfy constraint: \
             Member must satisfy enum value set: [{}]",
            allowed.join(", ")
        ))
        .into());
    }
    change_group(logs, ctx, input.log_group_name, move |g| {
        g.retention_days = Some(days);
        Ok(())
    })
    .await?;
    logs.ensure_retention_sweep();
    Ok(Unit {})
}

pub(crate) async fn delete_retention_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteRetentionPolicyRequest,
) -> Result<Unit, AwsError> {
    change_group(logs, ctx, input.log_group_name, |g| {
        g.retention_days = None;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn put_log_group_deletion_protection(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutLogGroupDeletionProtectionRequest,
) -> Result<Unit, AwsError> {
    let name = group_of_identifier(&input.log_group_identifier).to_owned();
    change_group(logs, ctx, name, move |g| {
        g.deletion_protection = input.deletion_protection_enabled;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn associate_kms_key(
    logs: &LogsService,
    ctx: &RequestContext,
    input: AssociateKmsKeyRequest,
) -> Result<Unit, AwsError> {
    let Some(name) = input.log_group_name else {
        return Err(invalid_parameter("Stratus associates KMS keys with log groups only (logGroupName).").into());
    };
    change_group(logs, ctx, name, move |g| {
        g.kms_key_id = Some(input.kms_key_id);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn disassociate_kms_key(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DisassociateKmsKeyRequest,
) -> Result<Unit, AwsError> {
    let Some(name) = input.log_group_name else {
        return Err(invalid_parameter("Stratus associates KMS keys with log groups only (logGroupName).").into());
    };
    change_group(logs, ctx, name, |g| {
        g.kms_key_id = None;
        Ok(Unit {})
    })
    .await
}
