//! What CloudWatch Logs keeps beside groups: subscription destinations, account resource
//! policies and export tasks.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::{Direction, KeyRange};

use super::tags::check_tags;
use crate::error::{invalid_parameter, invalid_token, limit_exceeded, not_found, Result};
use crate::records::{DestinationRecord, ExportRecord, PolicyRecord, DESTINATIONS, EXPORT_TASKS, RESOURCE_POLICIES};
use crate::service::{destination_arn, load_group, LogsService};

const DESTINATION_LISTING: Token = Token::for_listing("logs:DescribeDestinations");
const POLICY_LISTING: Token = Token::for_listing("logs:DescribeResourcePolicies");
const EXPORT_LISTING: Token = Token::for_listing("logs:DescribeExportTasks");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};
/// CloudWatch Logs quotas: 10 resource policies per account and region.
const MAX_POLICIES: usize = 10;

fn after(listing: &Token, token: Option<&str>) -> Result<Option<String>> {
    token
        .map(|t| listing.decode_str(t).map_err(|_| invalid_token()))
        .transpose()
}

fn destination((region, account): &(String, String), d: DestinationRecord) -> Destination {
    Destination {
        arn: Some(destination_arn(region, account, &d.name)),
        destination_name: Some(d.name),
        target_arn: Some(d.target_arn),
        role_arn: Some(d.role_arn),
        access_policy: d.access_policy,
        creation_time: Some(d.creation_time),
    }
}

pub(crate) async fn put_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutDestinationRequest,
) -> Result<PutDestinationResponse, AwsError> {
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let now = ctx.clock.epoch_millis();
    let record = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let record = match DESTINATIONS.get(&*tx, input.destination_name.as_bytes())? {
                // Putting an existing destination changes its target and role.
                Some(mut existing) => {
                    existing.target_arn = input.target_arn;
                    existing.role_arn = input.role_arn;
                    existing.tags.extend(tags);
                    existing
                }
                None => DestinationRecord {
                    name: input.destination_name,
                    target_arn: input.target_arn,
                    role_arn: input.role_arn,
                    access_policy: None,
                    creation_time: now,
                    tags,
                },
            };
            DESTINATIONS.put(tx, record.name.as_bytes().to_vec(), &record)?;
            Ok(record)
        })
        .await?;
    Ok(PutDestinationResponse {
        destination: Some(destination(&(ctx.region.clone(), ctx.account_id.clone()), record)),
    })
}

pub(crate) async fn put_destination_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutDestinationPolicyRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let Some(mut record) = DESTINATIONS.get(&*tx, input.destination_name.as_bytes())? else {
            return Err(not_found("The specified destination does not exist."));
        };
        record.access_policy = Some(input.access_policy);
        DESTINATIONS.put(tx, record.name.as_bytes().to_vec(), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn describe_destinations(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeDestinationsRequest,
) -> Result<DescribeDestinationsResponse, AwsError> {
    let after = after(&DESTINATION_LISTING, input.next_token.as_deref())?;
    let size = PAGE.clamp(input.limit);
    let place = (ctx.region.clone(), ctx.account_id.clone());
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let prefix = input.destination_name_prefix.unwrap_or_default();
        let items = DESTINATIONS
            .scan_prefix(store, prefix.as_bytes())?
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| after.as_deref().is_none_or(|a| d.name.as_str() > a));
        let (page, more) = take_page(items, size);
        let next_token = more
            .then(|| page.last().map(|d| DESTINATION_LISTING.encode_str(&d.name)))
            .flatten();
        Ok(DescribeDestinationsResponse {
            destinations: Some(page.into_iter().map(|d| destination(&place, d)).collect()),
            next_token,
        })
    })
    .await
}

pub(crate) async fn delete_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteDestinationRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        if DESTINATIONS.get(&*tx, input.destination_name.as_bytes())?.is_none() {
            return Err(not_found("The specified destination does not exist."));
        }
        DESTINATIONS.delete(tx, input.destination_name.into_bytes());
        Ok(Unit {})
    })
    .await
}

fn policy(p: PolicyRecord) -> ResourcePolicy {
    ResourcePolicy {
        policy_name: Some(p.name),
        policy_document: Some(p.document),
        last_updated_time: Some(p.last_updated),
        policy_scope: Some(PolicyScope::Account),
        ..ResourcePolicy::default()
    }
}

pub(crate) async fn put_resource_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutResourcePolicyRequest,
) -> Result<PutResourcePolicyResponse, AwsError> {
    if input.resource_arn.is_some() {
        return Err(invalid_parameter(
            "Stratus keeps account resource policies only (policyName), not resource-scoped ones.",
        )
        .into());
    }
    let (Some(name), Some(document)) = (input.policy_name, input.policy_document) else {
        return Err(invalid_parameter("policyName and policyDocument are required.").into());
    };
    let Ok(parsed) = serde_json::from_str::<serde_json::Value>(&document) else {
        return Err(invalid_parameter("Invalid policy document.").into());
    };
    let record = PolicyRecord {
        name,
        document: normalized_policy(parsed).to_string(),
        last_updated: ctx.clock.epoch_millis(),
    };
    let answered = document;
    let record = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let existing = RESOURCE_POLICIES.scan(&*tx, &KeyRange::all(), Direction::Forward, None)?;
            let replaces = existing.iter().any(|(_, p)| p.name == record.name);
            if !replaces && existing.len() >= MAX_POLICIES {
                return Err(limit_exceeded("Resource limit exceeded."));
            }
            RESOURCE_POLICIES.put(tx, record.name.as_bytes().to_vec(), &record)?;
            Ok(record)
        })
        .await?;
    // PutResourcePolicy answers the document as sent; describing it shows it as stored.
    Ok(PutResourcePolicyResponse {
        resource_policy: Some(policy(PolicyRecord {
            document: answered,
            ..record
        })),
        revision_id: None,
    })
}

/// A policy as CloudWatch Logs keeps it: with a `Version` (`2008-10-17` when none was
/// given) and each principal list of one value written as that value.
fn normalized_policy(document: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let Value::Object(mut map) = document else {
        return document;
    };
    let mut out = serde_json::Map::new();
    out.insert(
        "Version".to_owned(),
        map.remove("Version").unwrap_or_else(|| Value::from("2008-10-17")),
    );
    if let Some(Value::Array(statements)) = map.get_mut("Statement") {
        for statement in statements {
            if let Some(Value::Object(principal)) = statement.get_mut("Principal") {
                for value in principal.values_mut() {
                    if let Value::Array(items) = value {
                        if items.len() == 1 {
                            *value = items.remove(0);
                        }
                    }
                }
            }
        }
    }
    out.extend(map);
    Value::Object(out)
}

pub(crate) async fn describe_resource_policies(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeResourcePoliciesRequest,
) -> Result<DescribeResourcePoliciesResponse, AwsError> {
    let after = after(&POLICY_LISTING, input.next_token.as_deref())?;
    let size = PAGE.clamp(input.limit);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let items = RESOURCE_POLICIES
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .into_iter()
            .map(|(_, p)| p)
            .filter(|p| after.as_deref().is_none_or(|a| p.name.as_str() > a));
        let (page, more) = take_page(items, size);
        let next_token = more
            .then(|| page.last().map(|p| POLICY_LISTING.encode_str(&p.name)))
            .flatten();
        Ok(DescribeResourcePoliciesResponse {
            resource_policies: Some(page.into_iter().map(policy).collect()),
            next_token,
        })
    })
    .await
}

pub(crate) async fn delete_resource_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteResourcePolicyRequest,
) -> Result<Unit, AwsError> {
    let name = input.policy_name.unwrap_or_default();
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        if RESOURCE_POLICIES.get(&*tx, name.as_bytes())?.is_none() {
            return Err(not_found(format!("Policy with name [{name}] does not exist.")));
        }
        RESOURCE_POLICIES.delete(tx, name.into_bytes());
        Ok(Unit {})
    })
    .await
}

/// Whether S3 has the bucket: asked for an object that is not there, S3 says whether the
/// bucket is missing (`NoSuchBucket`) or only the object.
async fn bucket_exists(logs: &LogsService, ctx: &RequestContext, bucket: &str) -> bool {
    let Some(objects) = logs.shared.objects.as_ref() else {
        return false;
    };
    let caller = Caller::service("logs.amazonaws.com", &ctx.account_id, &ctx.region);
    match objects.get_object(caller, bucket, "aws-logs-write-test", None).await {
        Ok(_) => true,
        Err(e) => e.code != "NoSuchBucket",
    }
}

pub(crate) async fn create_export_task(
    logs: &LogsService,
    ctx: &RequestContext,
    input: CreateExportTaskRequest,
) -> Result<CreateExportTaskResponse, AwsError> {
    let group = input.log_group_name.clone();
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        load_group(store, &group).map(|_| ())
    })
    .await?;
    if !bucket_exists(logs, ctx, &input.destination).await {
        return Err(invalid_parameter("The given bucket does not exist. Please make sure the bucket is valid.").into());
    }
    let record = ExportRecord {
        id: stratus_core::id::uuid(),
        name: input.task_name,
        group: input.log_group_name,
        from: input.from,
        to: input.to,
        destination: input.destination,
        destination_prefix: Some(input.destination_prefix.unwrap_or_else(|| "exportedlogs".to_owned())),
        status: "PENDING".to_owned(),
        creation_time: ctx.clock.epoch_millis(),
    };
    let id = record.id.clone();
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        EXPORT_TASKS.put(tx, record.id.as_bytes().to_vec(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateExportTaskResponse { task_id: Some(id) })
}

pub(crate) async fn describe_export_tasks(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeExportTasksRequest,
) -> Result<DescribeExportTasksResponse, AwsError> {
    let after = after(&EXPORT_LISTING, input.next_token.as_deref())?;
    let size = PAGE.clamp(input.limit);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let items = EXPORT_TASKS
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .into_iter()
            .map(|(_, t)| t)
            .filter(|t| input.task_id.as_ref().is_none_or(|id| &t.id == id))
            .filter(|t| input.status_code.as_ref().is_none_or(|s| s.as_str() == t.status))
            .filter(|t| after.as_deref().is_none_or(|a| t.id.as_str() > a));
        let (page, more) = take_page(items, size);
        let next_token = more
            .then(|| page.last().map(|t| EXPORT_LISTING.encode_str(&t.id)))
            .flatten();
        Ok(DescribeExportTasksResponse {
            export_tasks: Some(
                page.into_iter()
                    .map(|t| ExportTask {
                        task_id: Some(t.id),
                        task_name: t.name,
                        log_group_name: Some(t.group),
                        from: Some(t.from),
                        to: Some(t.to),
                        destination: Some(t.destination),
                        destination_prefix: t.destination_prefix,
                        status: Some(ExportTaskStatus {
                            code: Some(ExportTaskStatusCode::from_wire(&t.status)),
                            message: None,
                        }),
                        execution_info: Some(ExportTaskExecutionInfo {
                            creation_time: Some(t.creation_time),
                            completion_time: None,
                        }),
                    })
                    .collect(),
            ),
            next_token,
        })
    })
    .await
}

pub(crate) async fn cancel_export_task(
    logs: &LogsService,
    ctx: &RequestContext,
    input: CancelExportTaskRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let Some(mut task) = EXPORT_TASKS.get(&*tx, input.task_id.as_bytes())? else {
            return Err(not_found("The specified export task does not exist."));
        };
        if task.status != "PENDING" && task.status != "RUNNING" {
            return Err(AwsError::new(
                "InvalidOperationException",
                "The specified export task has already finished.",
                400,
            )
            .into());
        }
        task.status = "CANCELLED".to_owned();
        EXPORT_TASKS.put(tx, task.id.as_bytes().to_vec(), &task)?;
        Ok(Unit {})
    })
    .await
}
