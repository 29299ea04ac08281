//! What CreateDeliveryStream and UpdateDestination check of a destination beyond the
//! model's constraints: the prefix rules, the processors and their parameters, dynamic
//! partitioning's needs, and what Stratus refuses by name (record format conversion).

use serde_json::Value;

use crate::destination::{DestinationKind, ProcessingSettings};
use crate::error::{invalid_argument, not_served, Result};
use crate::jq::Query;
use crate::prefix::Prefixes;

/// Checks the configuration of a destination of `kind`.
pub(crate) fn destination(kind: DestinationKind, config: &Value) -> Result<()> {
    match kind {
        DestinationKind::S3 | DestinationKind::ExtendedS3 => s3(config),
        DestinationKind::HttpEndpoint => {
            if let Some(backup) = config.get("S3Configuration") {
                prefixes(backup, false)?;
            }
            processing(config, None)
        }
        _ => Ok(()),
    }
}

/// Whether a configuration turns dynamic partitioning on.
pub(crate) fn dynamic_partitioning(config: &Value) -> bool {
    config
        .pointer("/DynamicPartitioningConfiguration/Enabled")
        .and_then(Value::as_bool)
        == Some(true)
}

fn s3(config: &Value) -> Result<()> {
    if config
        .get("DataFormatConversionConfiguration")
        .is_some_and(|c| c.get("Enabled").and_then(Value::as_bool) != Some(false))
    {
        return Err(not_served(
            "Record format conversion (DataFormatConversionConfiguration)",
        ));
    }
    let dynamic = dynamic_partitioning(config);
    let checked = prefixes(config, dynamic)?;
    if let Some(backup) = config.get("S3BackupConfiguration") {
        prefixes(backup, false)?;
    }
    processing(config, dynamic.then_some(&checked))
}

fn prefixes(config: &Value, dynamic: bool) -> Result<Prefixes> {
    let text = |name: &str| config.get(name).and_then(Value::as_str);
    Prefixes::parse(text("Prefix"), text("ErrorOutputPrefix"), dynamic).map_err(|e| invalid_argument(e.to_string()))
}

/// Checks the processors; `partitioned` holds the prefixes when dynamic partitioning is on.
fn processing(config: &Value, partitioned: Option<&Prefixes>) -> Result<()> {
    let settings: ProcessingSettings = match config.get("ProcessingConfiguration") {
        Some(value) => serde_json::from_value(value.clone()).unwrap_or_default(),
        None => ProcessingSettings::default(),
    };
    let mut query_keys: Vec<String> = Vec::new();
    let mut lambda = false;
    for processor in settings.active() {
        let required = |name: &str| {
            processor.parameter(name).ok_or_else(|| {
                invalid_argument(format!(
                    "Processor of type {} is missing the required parameter {name}.",
                    processor.kind
                ))
            })
        };
        match processor.kind.as_str() {
            "Lambda" => {
                required("LambdaArn")?;
                lambda = true;
            }
            "MetadataExtraction" => {
                if partitioned.is_none() {
                    return Err(invalid_argument(
                        "MetadataExtraction processor can only be used when dynamic partitioning is enabled.",
                    ));
                }
                let query = Query::parse(required("MetadataExtractionQuery")?)
                    .map_err(|e| invalid_argument(format!("Invalid MetadataExtractionQuery: {e}")))?;
                let engine = required("JsonParsingEngine")?;
                if engine != "JQ-1.6" {
                    return Err(invalid_argument(format!(
                        "Unsupported JsonParsingEngine {engine}: the supported engine is JQ-1.6."
                    )));
                }
                query_keys.extend(query.key_names().map(str::to_owned));
            }
            "RecordDeAggregation" => match required("SubRecordType")? {
                "JSON" => {}
                "DELIMITED" => {
                    required("Delimiter")?;
                }
                other => {
                    return Err(invalid_argument(format!(
                        "Unsupported SubRecordType {other}: it must be JSON or DELIMITED."
                    )))
                }
            },
            "Decompression" if processor.parameter("CompressionFormat").is_some_and(|f| f != "GZIP") => {
                return Err(invalid_argument(
                    "Decompression supports the CompressionFormat GZIP only.",
                ));
            }
            _ => {}
        }
    }
    if let Some(prefixes) = partitioned {
        if let Some(missing) = prefixes.query_keys().find(|k| !query_keys.iter().any(|q| q == k)) {
            return Err(invalid_argument(format!(
                "The partitionKeyFromQuery key {missing} in Prefix is not defined by the MetadataExtractionQuery."
            )));
        }
        if prefixes.uses_lambda_keys() && !lambda {
            return Err(invalid_argument(
                "Prefix uses partitionKeyFromLambda expressions but no Lambda processor is configured.",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refusal(kind: DestinationKind, config: Value) -> String {
        match destination(kind, &config) {
            Err(crate::error::FirehoseError::Refused(e)) => e.message,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn dynamic_partitioning_needs_keys_its_processors_define() {
        let config = json!({
            "BucketARN": "arn:aws:s3:::b",
            "Prefix": "c=!{partitionKeyFromQuery:customer}/",
            "ErrorOutputPrefix": "errors/!{firehose:error-output-type}/",
            "DynamicPartitioningConfiguration": {"Enabled": true},
            "ProcessingConfiguration": {"Enabled": true, "Processors": [{"Type": "MetadataExtraction", "Parameters": [
                {"ParameterName": "MetadataExtractionQuery", "ParameterValue": "{customer: .customer_id}"},
                {"ParameterName": "JsonParsingEngine", "ParameterValue": "JQ-1.6"},
            ]}]},
        });
        assert!(destination(DestinationKind::ExtendedS3, &config).is_ok());
        let mut other_key = config.clone();
        other_key["Prefix"] = json!("c=!{partitionKeyFromQuery:region}/");
        assert!(refusal(DestinationKind::ExtendedS3, other_key).contains("region"));
        let mut lambda_key = config.clone();
        lambda_key["Prefix"] = json!("c=!{partitionKeyFromLambda:k}/");
        assert!(refusal(DestinationKind::ExtendedS3, lambda_key).contains("Lambda processor"));
        let mut off = config;
        off["DynamicPartitioningConfiguration"]["Enabled"] = json!(false);
        assert!(refusal(DestinationKind::ExtendedS3, off).starts_with("Ths supplied prefix(es)"));
    }

    #[test]
    fn format_conversion_is_refused_by_name_unless_disabled() {
        let on = json!({"BucketARN": "arn:aws:s3:::b", "DataFormatConversionConfiguration": {}});
        assert!(refusal(DestinationKind::ExtendedS3, on).contains("Record format conversion"));
        let off = json!({"BucketARN": "arn:aws:s3:::b", "DataFormatConversionConfiguration": {"Enabled": false}});
        assert!(destination(DestinationKind::ExtendedS3, &off).is_ok());
    }

    #[test]
    fn processors_need_their_parameters() {
        let lambda =
            json!({"BucketARN": "arn:aws:s3:::b", "ProcessingConfiguration": {"Processors": [{"Type": "Lambda"}]}});
        assert!(refusal(DestinationKind::ExtendedS3, lambda).contains("LambdaArn"));
        let disabled = json!({"BucketARN": "arn:aws:s3:::b", "ProcessingConfiguration": {"Enabled": false, "Processors": [{"Type": "Lambda"}]}});
        assert!(destination(DestinationKind::ExtendedS3, &disabled).is_ok());
        let query = json!({"BucketARN": "arn:aws:s3:::b", "ProcessingConfiguration": {"Processors": [{"Type": "MetadataExtraction"}]}});
        assert!(refusal(DestinationKind::ExtendedS3, query).contains("dynamic partitioning"));
        let http = json!({"S3Configuration": {"BucketARN": "arn:aws:s3:::b", "Prefix": "!{timestamp:yyyy}"}});
        assert!(refusal(DestinationKind::HttpEndpoint, http).contains("ErrorOutputPrefix"));
        assert!(destination(DestinationKind::Redshift, &json!({})).is_ok());
    }
}
