//! Event source mappings' operations. Lambda reads SQS queues, Kinesis streams and DynamoDB
//! streams; other sources (Kafka, MQ, DocumentDB) are refused by name.

use stratus_core::paging::Token;
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, page, qualifier_exists};
use crate::error::{self, conflict, function_not_found, invalid_parameter, not_found};
use crate::mappings::{
    KeptSettings, MappingRecord, Settings, StreamChanges, StreamSettings, Transition, DEFAULT_BATCH_SIZE,
    DEFAULT_STREAM_BATCH_SIZE, MAPPINGS,
};
use crate::names::FunctionRef;
use crate::ops::tags::check_tags;
use crate::service::LambdaService;

const LISTING: Token = Token::for_listing("lambda:ListEventSourceMappings");

pub(crate) fn mapping_missing() -> AwsError {
    not_found("The resource you requested does not exist.")
}

/// The function a mapping invokes: it must exist (with the version or alias named), and is
/// answered as its ARN, qualified as the request qualified it.
fn mapping_function(lambda: &LambdaService, ctx: &RequestContext, name: &str) -> Result<String, AwsError> {
    let f = function_ref(ctx, name, None)?;
    let record = lambda.function(&f, &f.arn())?;
    if let Some(q) = &f.qualifier {
        if !qualifier_exists(&record, q) {
            return Err(function_not_found(&f.qualified_arn()));
        }
    }
    Ok(match &f.qualifier {
        Some(_) => f.qualified_arn(),
        None => f.arn(),
    })
}

/// Whether an update changes anything but the function and `Enabled`.
fn settings_changed(s: &Settings) -> bool {
    s.batch_size.is_some()
        || s.maximum_batching_window.is_some()
        || s.filter_criteria.is_some()
        || s.scaling.is_some()
        || s.function_response_types.is_some()
}

/// Refuses the settings of stream and Kafka sources, which an SQS mapping does not take.
fn refuse_stream_settings(changes: &StreamChanges, starting_position: bool) -> Result<(), AwsError> {
    let sent = [
        ("StartingPosition", starting_position),
        ("ParallelizationFactor", changes.parallelization_factor.is_some()),
        ("MaximumRetryAttempts", changes.maximum_retry_attempts.is_some()),
        ("MaximumRecordAgeInSeconds", changes.maximum_record_age.is_some()),
        ("BisectBatchOnFunctionError", changes.bisect_on_error.is_some()),
        ("TumblingWindowInSeconds", changes.tumbling_window.is_some()),
        ("DestinationConfig", changes.destination.is_some()),
    ];
    match sent.iter().find(|(_, present)| *present) {
        Some((name, _)) => Err(invalid_parameter(format!(
            "Unsupported {name} parameter for given event source mapping type."
        ))),
        None => Ok(()),
    }
}

/// Whether the queue `source` is FIFO; a missing queue is refused as AWS refuses it.
async fn queue_is_fifo(lambda: &LambdaService, ctx: &RequestContext, source: &str) -> Result<bool, AwsError> {
    let caller = Caller::service("lambda.amazonaws.com", &ctx.account_id, &ctx.region);
    let facts = match &lambda.shared.queues {
        Some(queues) => queues.facts(caller, source).await.ok(),
        None => None,
    };
    facts.map(|f| f.fifo).ok_or_else(|| {
        invalid_parameter(
            "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. SQS \
             Error Message: The specified queue does not exist.",
        )
    })
}

/// `StartingPosition`, which a stream mapping requires.
fn starting_position(position: Option<&EventSourcePosition>) -> Result<String, AwsError> {
    match position {
        Some(EventSourcePosition::TrimHorizon) => Ok("TRIM_HORIZON".to_owned()),
        Some(EventSourcePosition::Latest) => Ok("LATEST".to_owned()),
        Some(EventSourcePosition::AtTimestamp) => Ok("AT_TIMESTAMP".to_owned()),
        Some(EventSourcePosition::Unknown(v)) => Err(invalid_parameter(format!("Unsupported starting position: {v}"))),
        None => Err(invalid_parameter("1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: Member must not be null")),
    }
}

/// Refuses a stream that does not exist, as AWS does.
async fn check_stream(lambda: &LambdaService, ctx: &RequestContext, source: &str) -> Result<(), AwsError> {
    let caller = Caller::service("lambda.amazonaws.com", &ctx.account_id, &ctx.region);
    let exists = match lambda.stream_source(source) {
        Some(streams) => streams.shards(caller, source).await.is_ok(),
        None => false,
    };
    if exists {
        Ok(())
    } else {
        Err(invalid_parameter(format!("Stream not found: {source}")))
    }
}

pub(crate) async fn create_event_source_mapping(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: CreateEventSourceMappingRequest,
) -> Result<EventSourceMappingConfiguration, AwsError> {
    let source = input.event_source_arn.clone().unwrap_or_default();
    let service = source.split(':').nth(2).filter(|_| source.starts_with("arn:"));
    let stream_changes = StreamChanges {
        maximum_retry_attempts: input.maximum_retry_attempts,
        maximum_record_age: input.maximum_record_age_in_seconds,
        bisect_on_error: input.bisect_batch_on_function_error,
        parallelization_factor: input.parallelization_factor,
        tumbling_window: input.tumbling_window_in_seconds,
        destination: input.destination_config,
    };
    let (fifo, stream) = match service {
        Some("sqs") => {
            refuse_stream_settings(&stream_changes, input.starting_position.is_some())?;
            (queue_is_fifo(lambda, ctx, &source).await?, None)
        }
        Some(stream @ ("kinesis" | "dynamodb")) => {
            // The API reference: AT_TIMESTAMP is for Kinesis (and Kafka, MQ, DocumentDB) only.
            if stream == "dynamodb" && input.starting_position == Some(EventSourcePosition::AtTimestamp) {
                return Err(invalid_parameter(
                    "Unsupported starting position AT_TIMESTAMP for a DynamoDB stream: use TRIM_HORIZON or LATEST.",
                ));
            }
            let mut settings = StreamSettings {
                starting_position: starting_position(input.starting_position.as_ref())?,
                starting_timestamp_ms: input.starting_position_timestamp.and_then(|t| t.to_millis().ok()),
                ..StreamSettings::default()
            };
            settings.apply(stream_changes)?;
            check_stream(lambda, ctx, &source).await?;
            (false, Some(settings))
        }
        _ => {
            return Err(invalid_parameter(
                "Stratus serves event source mappings of SQS queues, Kinesis streams and DynamoDB streams only: \
                 Kafka, Amazon MQ and DocumentDB sources are not served.",
            ))
        }
    };
    let function_arn = mapping_function(lambda, ctx, &input.function_name)?;
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let mut record = MappingRecord {
        uuid: stratus_core::id::uuid(),
        event_source_arn: source,
        function_arn,
        enabled: input.enabled.unwrap_or(true),
        batch_size: if stream.is_some() {
            DEFAULT_STREAM_BATCH_SIZE
        } else {
            DEFAULT_BATCH_SIZE
        },
        maximum_batching_window: 0,
        filters: Vec::new(),
        maximum_concurrency: None,
        report_batch_item_failures: false,
        fifo,
        last_modified_ms: lambda.now_ms(),
        tags,
        stream,
        kept: KeptSettings::default(),
    };
    record.apply(Settings {
        batch_size: input.batch_size,
        maximum_batching_window: input.maximum_batching_window_in_seconds,
        filter_criteria: input.filter_criteria,
        scaling: input.scaling_config,
        function_response_types: input.function_response_types,
        kms_key_arn: input.kms_key_arn,
        metrics: input.metrics_config,
        logging: input.logging_config,
        pollers: input.provisioned_poller_config,
    })?;
    let stored = record.clone();
    lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let existing = MAPPINGS.scan_prefix(tx, b"").map_err(error::storage)?;
            let same = existing
                .iter()
                .find(|(_, m)| m.event_source_arn == stored.event_source_arn && m.function_arn == stored.function_arn);
            if let Some((_, m)) = same {
                let name = stored.function_arn.split(':').nth(6).unwrap_or_default();
                // AWS's words differ by source (recorded against AWS for SQS and Kinesis).
                let message = if stored.stream.is_some() {
                    format!(
                        "The event source arn (\" {} \") and function (\" {name} \") provided mapping already exists. \
                         Please update or delete the existing mapping with UUID {}",
                        m.event_source_arn, m.uuid
                    )
                } else {
                    format!(
                        "An event source mapping with SQS arn (\" {} \") and function (\" {name} \") already exists. \
                         Please update or delete the existing mapping with UUID {}",
                        m.event_source_arn, m.uuid
                    )
                };
                return Err(conflict(message));
            }
            MAPPINGS
                .put(tx, stored.uuid.as_bytes(), &stored)
                .map_err(error::storage)
        })
        .await?;
    if record.enabled {
        lambda.start_polling(&ctx.account_id, &ctx.region, record.clone());
    }
    Ok(record.configuration(&ctx.account_id, &ctx.region, Some(Transition::Creating)))
}

pub(crate) async fn get_event_source_mapping(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetEventSourceMappingRequest,
) -> Result<EventSourceMappingConfiguration, AwsError> {
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let record = MAPPINGS
        .get(&*store, input.uuid.as_bytes())
        .map_err(error::storage)?
        .ok_or_else(mapping_missing)?;
    Ok(record.configuration(&ctx.account_id, &ctx.region, None))
}

pub(crate) async fn update_event_source_mapping(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateEventSourceMappingRequest,
) -> Result<EventSourceMappingConfiguration, AwsError> {
    let stream_changes = StreamChanges {
        maximum_retry_attempts: input.maximum_retry_attempts,
        maximum_record_age: input.maximum_record_age_in_seconds,
        bisect_on_error: input.bisect_batch_on_function_error,
        parallelization_factor: input.parallelization_factor,
        tumbling_window: input.tumbling_window_in_seconds,
        destination: input.destination_config,
    };
    let function_arn = input
        .function_name
        .as_deref()
        .map(|name| mapping_function(lambda, ctx, name))
        .transpose()?;
    let settings = Settings {
        batch_size: input.batch_size,
        maximum_batching_window: input.maximum_batching_window_in_seconds,
        filter_criteria: input.filter_criteria,
        scaling: input.scaling_config,
        function_response_types: input.function_response_types,
        kms_key_arn: input.kms_key_arn,
        metrics: input.metrics_config,
        logging: input.logging_config,
        pollers: input.provisioned_poller_config,
    };
    let enabled = input.enabled;
    let now = lambda.now_ms();
    let uuid = input.uuid;
    let (record, transition) = lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut record = MAPPINGS
                .get(tx, uuid.as_bytes())
                .map_err(error::storage)?
                .ok_or_else(mapping_missing)?;
            let transition = match enabled {
                Some(true) if !record.enabled => Transition::Enabling,
                Some(false) if record.enabled => Transition::Disabling,
                _ => Transition::Updating,
            };
            let changed = settings_changed(&settings) || function_arn.is_some() || stream_changes.any();
            match &mut record.stream {
                Some(stream) => stream.apply(stream_changes)?,
                None => refuse_stream_settings(&stream_changes, false)?,
            }
            record.apply(settings)?;
            if let Some(arn) = function_arn {
                record.function_arn = arn;
            }
            if let Some(on) = enabled {
                record.enabled = on;
            }
            if changed || transition != Transition::Updating {
                record.last_modified_ms = now;
            }
            MAPPINGS
                .put(tx, record.uuid.as_bytes(), &record)
                .map_err(error::storage)?;
            Ok((record, transition))
        })
        .await?;
    if record.enabled {
        lambda.start_polling(&ctx.account_id, &ctx.region, record.clone());
    } else {
        lambda.stop_polling(&ctx.account_id, &ctx.region, &record.uuid);
    }
    Ok(record.configuration(&ctx.account_id, &ctx.region, Some(transition)))
}

pub(crate) async fn delete_event_source_mapping(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteEventSourceMappingRequest,
) -> Result<EventSourceMappingConfiguration, AwsError> {
    let uuid = input.uuid;
    let record = lambda
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let record = MAPPINGS
                .get(tx, uuid.as_bytes())
                .map_err(error::storage)?
                .ok_or_else(mapping_missing)?;
            MAPPINGS.delete(tx, uuid.as_bytes());
            crate::stream_polling::forget_checkpoints(tx, &uuid)?;
            Ok(record)
        })
        .await?;
    lambda.stop_polling(&ctx.account_id, &ctx.region, &record.uuid);
    Ok(record.configuration(&ctx.account_id, &ctx.region, Some(Transition::Deleting)))
}

pub(crate) async fn list_event_source_mappings(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListEventSourceMappingsRequest,
) -> Result<ListEventSourceMappingsResponse, AwsError> {
    let function: Option<FunctionRef> = input
        .function_name
        .as_deref()
        .map(|name| function_ref(ctx, name, None))
        .transpose()?;
    let store = lambda.store(&ctx.account_id, &ctx.region)?;
    let all = MAPPINGS.scan_prefix(&*store, b"").map_err(error::storage)?;
    let matching = all.into_iter().filter_map(|(_, m)| {
        let source_matches = input.event_source_arn.as_ref().is_none_or(|a| *a == m.event_source_arn);
        let function_matches = function.as_ref().is_none_or(|f| match &f.qualifier {
            Some(_) => m.function_arn == f.qualified_arn(),
            None => m.function_arn == f.arn() || m.function_arn.starts_with(&format!("{}:", f.arn())),
        });
        (source_matches && function_matches).then(|| (m.uuid.clone(), m))
    });
    let (mappings, next_marker) = page(&LISTING, input.marker.as_deref(), input.max_items, matching)?;
    Ok(ListEventSourceMappingsResponse {
        next_marker,
        event_source_mappings: Some(
            mappings
                .iter()
                .map(|m| m.configuration(&ctx.account_id, &ctx.region, None))
                .collect(),
        ),
    })
}
