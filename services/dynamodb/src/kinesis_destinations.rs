//! The Kinesis streaming destination operations: Enable, Disable, Update and Describe, kept
//! on the table's record (`TableRecord::kinesis`); the changes are sent by
//! [`crate::kinesis_feed`]. AWS answers with the transition (`ENABLING`, `DISABLING`,
//! `UPDATING`) and describes the settled state (`ACTIVE`, `DISABLED`) at once after.

use stratus_gen_dynamodb::*;

use crate::db::{self, Scope};
use crate::error::DdbError;
use crate::kinesis_feed;
use crate::table::KinesisDestination;

pub(crate) fn describe_kinesis_streaming_destination(
    scope: &Scope,
    input: DescribeKinesisStreamingDestinationInput,
) -> Result<DescribeKinesisStreamingDestinationOutput, DdbError> {
    let table = named(&*scope.store, &scope.table(&input.table_name))?;
    let destinations = table
        .kinesis
        .iter()
        .map(|d| KinesisDataStreamDestination {
            stream_arn: Some(d.stream_arn.clone()),
            destination_status: Some(if d.active {
                DestinationStatus::Active
            } else {
                DestinationStatus::Disabled
            }),
            destination_status_description: None,
            approximate_creation_date_time_precision: d
                .precision
                .as_deref()
                .map(ApproximateCreationDateTimePrecision::from_wire),
        })
        .collect();
    Ok(DescribeKinesisStreamingDestinationOutput {
        table_name: Some(table.name),
        kinesis_data_stream_destinations: Some(destinations),
    })
}

/// The table `name`, or the control plane's refusal naming it (recorded against AWS).
pub(crate) fn named(
    db: &(impl stratus_storage::Read + ?Sized),
    name: &str,
) -> Result<crate::table::TableRecord, DdbError> {
    db::table(db, name).map_err(|e| match e {
        DdbError::ResourceNotFound(_) => DdbError::table_not_found(name),
        other => other,
    })
}

/// The refusal of a change to a destination the table does not have (recorded against AWS
/// for UpdateKinesisStreamingDestination).
fn no_destination(action: &str, stream_arn: &str, table: &str) -> DdbError {
    DdbError::validation(format!(
        "Table is not in a valid state to {action} Kinesis Streaming Destination: No streaming destination with \
         streamArn: {stream_arn} found for table with tableName: {table}"
    ))
}

/// EnableKinesisStreamingDestination, once the caller has checked that the stream exists.
pub(crate) fn enable_kinesis_streaming_destination(
    scope: &Scope,
    input: KinesisStreamingDestinationInput,
) -> Result<KinesisStreamingDestinationOutput, DdbError> {
    let name = scope.table(&input.table_name).into_owned();
    let precision = input
        .enable_kinesis_streaming_configuration
        .as_ref()
        .and_then(|c| c.approximate_creation_date_time_precision.as_ref())
        .map(|p| p.as_str().to_owned());
    let stream_arn = input.stream_arn.clone();
    scope.store.transact(|tx| {
        let mut table = named(&*tx, &name)?;
        match table.kinesis.iter_mut().find(|d| d.stream_arn == stream_arn) {
            Some(d) if d.active => {
                return Err(DdbError::validation(format!(
                    "Table is not in a valid state to enable Kinesis Streaming Destination: \
                     DestinationStatus is already ACTIVE for streamArn: {stream_arn}"
                )))
            }
            Some(d) => {
                d.active = true;
                d.precision = precision;
            }
            None => table.kinesis.push(KinesisDestination {
                stream_arn: stream_arn.clone(),
                active: true,
                precision,
            }),
        }
        db::save_table(tx, &table)
    })?;
    Ok(KinesisStreamingDestinationOutput {
        table_name: Some(name),
        stream_arn: Some(input.stream_arn),
        destination_status: Some(DestinationStatus::Enabling),
        enable_kinesis_streaming_configuration: Some(input.enable_kinesis_streaming_configuration.unwrap_or_default()),
    })
}

pub(crate) fn disable_kinesis_streaming_destination(
    scope: &Scope,
    input: KinesisStreamingDestinationInput,
) -> Result<KinesisStreamingDestinationOutput, DdbError> {
    let name = scope.table(&input.table_name).into_owned();
    let stream_arn = input.stream_arn.clone();
    scope.store.transact(|tx| {
        let mut table = named(&*tx, &name)?;
        match table
            .kinesis
            .iter_mut()
            .find(|d| d.stream_arn == stream_arn && d.active)
        {
            Some(d) => d.active = false,
            None => return Err(no_destination("disable", &stream_arn, &name)),
        }
        if !table.streams_to_kinesis() {
            kinesis_feed::forget(tx, &name)?;
        }
        db::save_table(tx, &table)
    })?;
    Ok(KinesisStreamingDestinationOutput {
        table_name: Some(name),
        stream_arn: Some(input.stream_arn),
        destination_status: Some(DestinationStatus::Disabling),
        enable_kinesis_streaming_configuration: input.enable_kinesis_streaming_configuration,
    })
}

pub(crate) fn update_kinesis_streaming_destination(
    scope: &Scope,
    input: UpdateKinesisStreamingDestinationInput,
) -> Result<UpdateKinesisStreamingDestinationOutput, DdbError> {
    let name = scope.table(&input.table_name).into_owned();
    // Recorded against AWS.
    let Some(precision) = input
        .update_kinesis_streaming_configuration
        .as_ref()
        .and_then(|c| c.approximate_creation_date_time_precision.as_ref())
        .map(|p| p.as_str().to_owned())
    else {
        return Err(DdbError::validation(
            "Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration \
             cannot be null or contain only null values",
        ));
    };
    let stream_arn = input.stream_arn.clone();
    scope.store.transact(|tx| {
        let mut table = named(&*tx, &name)?;
        let table_id = table.id.clone();
        let Some(d) = table
            .kinesis
            .iter_mut()
            .find(|d| d.stream_arn == stream_arn && d.active)
        else {
            return Err(no_destination("enable", &stream_arn, &name));
        };
        // Precision is MILLISECOND until set.
        if d.precision.as_deref().unwrap_or("MILLISECOND") == precision {
            return Err(DdbError::validation(format!(
                "Invalid Request: Precision is already set to the desired value of {precision} for tableId: \
                 {table_id}, kdsArn: {stream_arn}"
            )));
        }
        d.precision = Some(precision.clone());
        db::save_table(tx, &table)
    })?;
    Ok(UpdateKinesisStreamingDestinationOutput {
        table_name: Some(name),
        stream_arn: Some(input.stream_arn),
        destination_status: Some(DestinationStatus::Updating),
        update_kinesis_streaming_configuration: input.update_kinesis_streaming_configuration,
    })
}
