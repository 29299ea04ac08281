//! The table operations: create, describe, list, update, delete, tags, time to live and
//! continuous backups.

use stratus_core::arn::Arn;
use stratus_core::{DateTime, Unit};
use stratus_gen_dynamodb::*;
use stratus_storage::{Direction, KeyRange};

use crate::db::{self, Scope, INDEXES, ITEMS, STATS, TABLES};
use crate::encryption;
use crate::error::DdbError;
use crate::keys;
use crate::table::{self, merge_tags, Answer, Recovery, TableRecord, Ttl, Warm};

const MAX_TAGS: usize = 50;
const DEFAULT_LIST_LIMIT: usize = 100;
/// AWS's point-in-time recovery window when none is given.
const DEFAULT_RECOVERY_DAYS: i32 = 35;

fn describe(scope: &Scope, record: &TableRecord, answer: Answer) -> Result<TableDescription, DdbError> {
    let stats = db::stats(&*scope.store, record.name.as_bytes())?;
    let index_stats = record
        .indexes
        .iter()
        .map(|i| {
            Ok((
                i.name.clone(),
                db::stats(&*scope.store, &keys::index_prefix(&record.name, &i.name))?,
            ))
        })
        .collect::<Result<_, DdbError>>()?;
    Ok(record.describe(&scope.region, &scope.account, stats, &index_stats, answer))
}

/// The table named `name`, or the table operations' ResourceNotFoundException.
fn existing(scope: &Scope, name: &str) -> Result<TableRecord, DdbError> {
    db::find_table(&*scope.store, &scope.table(name))?.ok_or_else(|| DdbError::table_not_found(name))
}

/// CreateTable; `sse_key`: the KMS key the table is encrypted under, if any.
pub(crate) fn create_table(
    scope: &Scope,
    input: CreateTableInput,
    sse_key: Option<String>,
) -> Result<CreateTableOutput, DdbError> {
    let now = scope.now_ms();
    let mut record = TableRecord::create(&input, stratus_core::id::uuid(), now)?;
    record.sse_key = sse_key;
    if let Some(tags) = input.tags {
        check_tag_count(tags.len())?;
        merge_tags(&mut record.tags, tags.into_iter().map(|t| (t.key, t.value)));
    }
    let record = scope.store.transact(|tx| {
        if db::find_table(tx, &record.name)?.is_some() {
            return Err(DdbError::ResourceInUse(format!(
                "Table already exists: {}",
                record.name
            )));
        }
        db::purge_streams(tx, now)?;
        let mut saved = record.clone();
        if let Some(stream) = saved.stream.as_mut() {
            crate::stream::unique_label(tx, &record.name, stream).map_err(|e| DdbError::Internal(e.to_string()))?;
        }
        db::save_table(tx, &saved)?;
        Ok(saved)
    })?;
    Ok(CreateTableOutput {
        table_description: Some(describe(scope, &record, Answer::Created)?),
    })
}

pub(crate) fn describe_table(scope: &Scope, input: DescribeTableInput) -> Result<DescribeTableOutput, DdbError> {
    let record = existing(scope, &input.table_name)?;
    Ok(DescribeTableOutput {
        table: Some(describe(scope, &record, Answer::Described)?),
    })
}

pub(crate) fn list_tables(scope: &Scope, input: ListTablesInput) -> Result<ListTablesOutput, DdbError> {
    let limit = input.limit.map_or(DEFAULT_LIST_LIMIT, |l| l.max(0) as usize);
    let range = match &input.exclusive_start_table_name {
        Some(start) => KeyRange::between(std::ops::Bound::Excluded(start.as_bytes()), std::ops::Bound::Unbounded),
        None => KeyRange::all(),
    };
    let rows = scope
        .store
        .scan(TABLES.name(), &range, Direction::Forward, Some(limit + 1))?;
    let mut names: Vec<String> = rows
        .into_iter()
        .map(|(key, _)| String::from_utf8_lossy(&key).into_owned())
        .collect();
    let more = names.len() > limit;
    names.truncate(limit);
    Ok(ListTablesOutput {
        last_evaluated_table_name: more.then(|| names.last().cloned()).flatten(),
        table_names: Some(names),
    })
}

pub(crate) fn delete_table(scope: &Scope, input: DeleteTableInput) -> Result<DeleteTableOutput, DdbError> {
    let record = existing(scope, &input.table_name)?;
    let name = record.name.clone();
    if record.deletion_protection {
        return Err(DdbError::validation(
            "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.",
        ));
    }
    let description = describe(scope, &record, Answer::Deleted)?;
    scope.store.transact(|tx| {
        let current = db::find_table(tx, &name)?.ok_or_else(|| DdbError::table_not_found(&name))?;
        db::drop_table(tx, &current, scope.now_ms())
    })?;
    Ok(DeleteTableOutput {
        table_description: Some(description),
    })
}

/// UpdateTable; `sse_key`: when the request has an SSESpecification, the KMS key it puts the
/// table under (`None`: the AWS owned key).
pub(crate) fn update_table(
    scope: &Scope,
    input: UpdateTableInput,
    sse_key: Option<Option<String>>,
) -> Result<UpdateTableOutput, DdbError> {
    let nothing = input.billing_mode.is_none()
        && input.provisioned_throughput.is_none()
        && input.global_secondary_index_updates.is_none()
        && input.stream_specification.is_none()
        && input.sse_specification.is_none()
        && input.replica_updates.is_none()
        && input.table_class.is_none()
        && input.deletion_protection_enabled.is_none()
        && input.on_demand_throughput.is_none()
        && input.warm_throughput.is_none()
        && input.global_table_settings_replication_mode.is_none();
    if nothing {
        return Err(DdbError::validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
        ));
    }
    let now = scope.now_ms();
    // The key whose change the answer reports as under way (the old one when it is removed).
    let mut sse_changing = None;
    let record = scope.store.transact(|tx| {
        let name = &*scope.table(&input.table_name);
        let mut record = db::find_table(tx, name)?.ok_or_else(|| DdbError::table_not_found(name))?;
        let stream_before = record.stream.clone();
        let (created, deleted) = apply_update(&mut record, &input, now)?;
        if let Some(key) = sse_key.clone().filter(|key| *key != record.sse_key) {
            sse_changing = key.clone().or_else(|| record.sse_key.clone());
            record.sse_key = key;
        }
        if let Some(before) = stream_before.filter(|before| record.stream.as_ref() != Some(before)) {
            crate::stream::close(tx, name, &record.key, &before, now)?;
            db::purge_streams(tx, now)?;
        }
        if let Some(stream) = record.stream.as_mut() {
            crate::stream::unique_label(tx, name, stream).map_err(|e| DdbError::Internal(e.to_string()))?;
        }
        for index in &deleted {
            let prefix = keys::index_prefix(name, index);
            db::delete_prefix(tx, INDEXES, &prefix)?;
            tx.delete(STATS, prefix);
        }
        for index in &created {
            backfill(tx, &record, index)?;
        }
        db::save_table(tx, &record)?;
        Ok::<_, DdbError>(record)
    })?;
    let mut description = describe(scope, &record, Answer::Updated)?;
    if let Some(key) = sse_changing {
        description.sse_description = Some(encryption::description(&key, SSEStatus::Updating));
    }
    Ok(UpdateTableOutput {
        table_description: Some(description),
    })
}

/// Applies an UpdateTable request to the record; returns the GSIs it creates and deletes.
fn apply_update(
    record: &mut TableRecord,
    input: &UpdateTableInput,
    now: i64,
) -> Result<(Vec<String>, Vec<String>), DdbError> {
    update_billing(record, input, now)?;
    if let Some(spec) = &input.stream_specification {
        update_stream(record, spec, now)?;
    }
    if let Some(class) = &input.table_class {
        record.table_class = Some(class.as_str().to_owned());
    }
    if let Some(protect) = input.deletion_protection_enabled {
        record.deletion_protection = protect;
    }
    if let Some(mode) = &input.global_table_settings_replication_mode {
        record.settings_replication = Some(mode.as_str().to_owned());
    }
    if let Some(warm) = &input.warm_throughput {
        let current = record.warm.unwrap_or(Warm::of(record.throughput));
        record.warm = Warm::requested(Some(warm), current);
    }
    if let Some(defs) = &input.attribute_definitions {
        for attr in table::definitions(defs)? {
            match record.attributes.iter().find(|a| a.name == attr.name) {
                Some(existing) if existing.kind != attr.kind => {
                    return Err(DdbError::invalid(format!(
                        "Attribute {} is already defined with another type",
                        attr.name
                    )))
                }
                Some(_) => {}
                None => record.attributes.push(attr),
            }
        }
    }
    let mut created = Vec::new();
    let mut deleted = Vec::new();
    for update in input.global_secondary_index_updates.iter().flatten() {
        if let Some(create) = &update.create {
            if record.index(&create.index_name).is_some() {
                return Err(DdbError::validation(format!(
                    "One or more parameter values were invalid: Attempting to create an index which already exists: {}",
                    create.index_name
                )));
            }
            let index = table::global_index(
                &create.index_name,
                &create.key_schema,
                &create.projection,
                create.provisioned_throughput.as_ref(),
                &record.attributes,
                record.throughput.is_none(),
            )?;
            created.push(index.name.clone());
            record.indexes.push(index);
        }
        if let Some(delete) = &update.delete {
            let at = record
                .indexes
                .iter()
                .position(|i| i.global && i.name == delete.index_name)
                .ok_or_else(|| {
                    DdbError::ResourceNotFound(format!(
                        "Requested resource not found: Index: {} not found",
                        delete.index_name
                    ))
                })?;
            deleted.push(record.indexes.remove(at).name);
        }
        if let Some(change) = &update.update {
            let index = record
                .indexes
                .iter_mut()
                .find(|i| i.global && i.name == change.index_name)
                .ok_or_else(|| {
                    DdbError::ResourceNotFound(format!(
                        "Requested resource not found: Index: {} not found",
                        change.index_name
                    ))
                })?;
            if let Some(t) = &change.provisioned_throughput {
                index.throughput = Some(table::Throughput {
                    read: t.read_capacity_units,
                    write: t.write_capacity_units,
                });
            }
        }
    }
    // Definitions only keys use; those of a deleted index go with it.
    let attributes = std::mem::take(&mut record.attributes);
    record.attributes = attributes
        .into_iter()
        .filter(|a| record.is_key_attribute(&a.name))
        .collect();
    Ok((created, deleted))
}

fn update_billing(record: &mut TableRecord, input: &UpdateTableInput, now: i64) -> Result<(), DdbError> {
    let mode = input.billing_mode.clone().unwrap_or(if record.throughput.is_some() {
        BillingMode::Provisioned
    } else {
        BillingMode::PayPerRequest
    });
    if input.billing_mode.is_none() && input.provisioned_throughput.is_none() {
        return Ok(());
    }
    if mode == BillingMode::Provisioned && input.provisioned_throughput.is_none() && record.throughput.is_some() {
        return Ok(());
    }
    let throughput = table::billing(Some(&mode), input.provisioned_throughput.as_ref())?;
    if let (Some(old), Some(new)) = (record.throughput, throughput) {
        if old == new && input.billing_mode.is_none() {
            return Err(DdbError::validation(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: {}. Requested ReadCapacityUnits: {}. Current WriteCapacityUnits provisioned for the table: {}. Requested WriteCapacityUnits: {}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
                old.read, new.read, old.write, new.write
            )));
        }
    }
    if throughput.is_none() && record.throughput.is_some() {
        record.on_demand_since_ms = Some(now);
        for index in record.indexes.iter_mut().filter(|i| i.global) {
            index.throughput = None;
        }
    }
    if throughput.is_some() && record.throughput.is_none() {
        for index in record.indexes.iter_mut().filter(|i| i.global) {
            index.throughput = throughput;
        }
    }
    record.throughput = throughput;
    Ok(())
}

fn update_stream(record: &mut TableRecord, spec: &StreamSpecification, now: i64) -> Result<(), DdbError> {
    match (spec.stream_enabled, &record.stream) {
        (true, Some(_)) => Err(DdbError::validation(format!(
            "Table already has an enabled stream: TableName: {}",
            record.name
        ))),
        (false, None) => Err(DdbError::validation(format!(
            "Table already has no stream enabled: TableName: {}",
            record.name
        ))),
        _ => {
            record.stream = table::stream(spec, now)?;
            Ok(())
        }
    }
}

/// Writes the new index's entries for every existing item.
fn backfill(tx: &mut stratus_storage::Tx<'_>, record: &TableRecord, index_name: &str) -> Result<(), DdbError> {
    let index = record.index(index_name).expect("index just added");
    let prefix = keys::table_prefix(&record.name);
    let all = KeyRange::prefix(&prefix);
    let mut range = all.clone();
    let mut stats = table::Stats::default();
    loop {
        let chunk = tx.scan(ITEMS, &range, Direction::Forward, Some(1024))?;
        let Some((last, _)) = chunk.last() else {
            db::save_stats(tx, &keys::index_prefix(&record.name, index_name), stats);
            return Ok(());
        };
        let last = last.clone();
        for (_, bytes) in &chunk {
            let item = crate::codec::decode(bytes)?;
            if let Some(entry) = keys::index_entry_key(record, index, &item) {
                let projected = index.project(&item, &record.key);
                stats.replace(None, Some(&projected));
                tx.put(INDEXES, entry, crate::codec::encode(&projected));
            }
        }
        range = KeyRange::between(std::ops::Bound::Excluded(&last), all.end());
    }
}

/// The table an ARN names, in this scope.
fn table_from_arn(scope: &Scope, arn: &str) -> Result<TableRecord, DdbError> {
    let name = TableRecord::path_in_arn(arn, &scope.region, &scope.account);
    let Some(name) = name.filter(|n| !n.is_empty() && !n.contains('/')) else {
        if Arn::parse(arn).is_ok_and(|a| a.service == "dynamodb") {
            return Err(DdbError::ResourceNotFound(format!(
                "Requested resource not found: ResourcArn: {arn} not found"
            )));
        }
        return Err(DdbError::validation(format!(
            "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
        )));
    };
    // AWS's message spells "ResourcArn" this way.
    db::find_table(&*scope.store, &name)?
        .ok_or_else(|| DdbError::ResourceNotFound(format!("Requested resource not found: ResourcArn: {arn} not found")))
}

fn check_tag_count(count: usize) -> Result<(), DdbError> {
    if count > MAX_TAGS {
        return Err(DdbError::LimitExceeded(format!(
            "One or more parameter values were invalid: The number of tags exceeds the limit of {MAX_TAGS}"
        )));
    }
    Ok(())
}

fn change_table(
    scope: &Scope,
    name: &str,
    change: impl FnOnce(&mut TableRecord) -> Result<(), DdbError>,
) -> Result<(), DdbError> {
    scope.store.transact(|tx| {
        let mut record = db::find_table(tx, &scope.table(name))?.ok_or_else(|| DdbError::table_not_found(name))?;
        change(&mut record)?;
        db::save_table(tx, &record)?;
        Ok(())
    })
}

pub(crate) fn tag_resource(scope: &Scope, input: TagResourceInput) -> Result<Unit, DdbError> {
    let record = table_from_arn(scope, &input.resource_arn)?;
    change_table(scope, &record.name, |record| {
        merge_tags(&mut record.tags, input.tags.into_iter().map(|t| (t.key, t.value)));
        check_tag_count(record.tags.len())
    })?;
    Ok(Unit {})
}

pub(crate) fn untag_resource(scope: &Scope, input: UntagResourceInput) -> Result<Unit, DdbError> {
    let record = table_from_arn(scope, &input.resource_arn)?;
    change_table(scope, &record.name, |record| {
        record.tags.retain(|(key, _)| !input.tag_keys.contains(key));
        Ok(())
    })?;
    Ok(Unit {})
}

pub(crate) fn list_tags(scope: &Scope, input: ListTagsOfResourceInput) -> Result<ListTagsOfResourceOutput, DdbError> {
    let record = table_from_arn(scope, &input.resource_arn)?;
    Ok(ListTagsOfResourceOutput {
        tags: Some(record.tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
        next_token: None,
    })
}

pub(crate) fn update_ttl(scope: &Scope, input: UpdateTimeToLiveInput) -> Result<UpdateTimeToLiveOutput, DdbError> {
    let spec = input.time_to_live_specification;
    let wanted = spec.clone();
    change_table(scope, &input.table_name, move |record| {
        let enabled = record.ttl.as_ref().is_some_and(|t| t.enabled);
        if enabled == wanted.enabled {
            return Err(DdbError::validation(if enabled {
                "TimeToLive is already enabled"
            } else {
                "TimeToLive is already disabled"
            }));
        }
        record.ttl = Some(Ttl {
            attribute: wanted.attribute_name,
            enabled: wanted.enabled,
        });
        Ok(())
    })?;
    Ok(UpdateTimeToLiveOutput {
        time_to_live_specification: Some(spec),
    })
}

pub(crate) fn describe_ttl(
    scope: &Scope,
    input: DescribeTimeToLiveInput,
) -> Result<DescribeTimeToLiveOutput, DdbError> {
    let record = existing(scope, &input.table_name)?;
    let description = match record.ttl.filter(|t| t.enabled) {
        Some(ttl) => TimeToLiveDescription {
            time_to_live_status: Some(TimeToLiveStatus::Enabled),
            attribute_name: Some(ttl.attribute),
        },
        None => TimeToLiveDescription {
            time_to_live_status: Some(TimeToLiveStatus::Disabled),
            attribute_name: None,
        },
    };
    Ok(DescribeTimeToLiveOutput {
        time_to_live_description: Some(description),
    })
}

fn backups_description(record: &TableRecord, now_ms: i64) -> ContinuousBackupsDescription {
    let recovery = match &record.recovery {
        Some(recovery) => PointInTimeRecoveryDescription {
            point_in_time_recovery_status: Some(PointInTimeRecoveryStatus::Enabled),
            recovery_period_in_days: Some(recovery.days),
            earliest_restorable_date_time: Some(DateTime::from_millis(recovery.since_ms)),
            latest_restorable_date_time: Some(DateTime::from_millis(now_ms)),
        },
        None => PointInTimeRecoveryDescription {
            point_in_time_recovery_status: Some(PointInTimeRecoveryStatus::Disabled),
            ..Default::default()
        },
    };
    ContinuousBackupsDescription {
        continuous_backups_status: ContinuousBackupsStatus::Enabled,
        point_in_time_recovery_description: Some(recovery),
    }
}

/// The backup operations' TableNotFoundException (wording as AWS answers them).
fn backup_table_not_found(name: &str) -> DdbError {
    DdbError::TableNotFound(format!("Table not found: {name}"))
}

pub(crate) fn describe_backups(
    scope: &Scope,
    input: DescribeContinuousBackupsInput,
) -> Result<DescribeContinuousBackupsOutput, DdbError> {
    let record = db::find_table(&*scope.store, &scope.table(&input.table_name))?
        .ok_or_else(|| backup_table_not_found(&input.table_name))?;
    Ok(DescribeContinuousBackupsOutput {
        continuous_backups_description: Some(backups_description(&record, scope.now_ms())),
    })
}

/// Records the point-in-time recovery setting; no backups are taken or restored.
pub(crate) fn update_backups(
    scope: &Scope,
    input: UpdateContinuousBackupsInput,
) -> Result<UpdateContinuousBackupsOutput, DdbError> {
    let spec = input.point_in_time_recovery_specification;
    let name = input.table_name;
    let record = scope.store.transact(|tx| {
        let mut record = db::find_table(tx, &scope.table(&name))?.ok_or_else(|| backup_table_not_found(&name))?;
        record.recovery = match (spec.point_in_time_recovery_enabled, record.recovery.take()) {
            (false, _) => None,
            (true, previous) => Some(Recovery {
                since_ms: previous.map_or_else(|| scope.now_ms(), |p| p.since_ms),
                days: spec.recovery_period_in_days.unwrap_or(DEFAULT_RECOVERY_DAYS),
            }),
        };
        db::save_table(tx, &record)?;
        Ok::<_, DdbError>(record)
    })?;
    Ok(UpdateContinuousBackupsOutput {
        continuous_backups_description: Some(backups_description(&record, scope.now_ms())),
    })
}
