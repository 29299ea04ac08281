//! Destinations: the ten kinds the model has, their configurations as stored (the client's
//! JSON), how DescribeDeliveryStream describes them and how UpdateDestination changes them.
//!
//! A description is read off the configuration by the description shape of the model: each
//! member of `…DestinationDescription` takes the configuration's member of the same name
//! (`S3DestinationDescription` the `S3Configuration`, `S3BackupDescription` the
//! `S3BackupConfiguration`), so what AWS never echoes (passwords, access keys, private keys)
//! is left out by the shape itself; then the defaults AWS reports for what was not given are
//! filled in. UpdateDestination merges an update into the configuration of a destination of
//! the same kind (S3 and extended S3 count as one), member by member, and replaces that of
//! another kind, as AWS documents.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use stratus_core::schema::{Shape, ShapeType};
use stratus_gen_firehose::schema;

use crate::records::DESTINATION_ID;

/// The kinds of destination, by the member of CreateDeliveryStream that configures them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum DestinationKind {
    S3,
    ExtendedS3,
    Redshift,
    Elasticsearch,
    Amazonopensearchservice,
    Splunk,
    HttpEndpoint,
    AmazonOpenSearchServerless,
    Snowflake,
    Iceberg,
}

/// Each kind's members: in CreateDeliveryStream, in UpdateDestination, in the description.
struct Members {
    kind: DestinationKind,
    configuration: &'static str,
    update: &'static str,
    description: &'static str,
    shape: &'static Shape,
}

const KINDS: [Members; 10] = [
    Members {
        kind: DestinationKind::S3,
        configuration: "S3DestinationConfiguration",
        update: "S3DestinationUpdate",
        description: "S3DestinationDescription",
        shape: &schema::S3_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::ExtendedS3,
        configuration: "ExtendedS3DestinationConfiguration",
        update: "ExtendedS3DestinationUpdate",
        description: "ExtendedS3DestinationDescription",
        shape: &schema::EXTENDED_S3_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Redshift,
        configuration: "RedshiftDestinationConfiguration",
        update: "RedshiftDestinationUpdate",
        description: "RedshiftDestinationDescription",
        shape: &schema::REDSHIFT_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Elasticsearch,
        configuration: "ElasticsearchDestinationConfiguration",
        update: "ElasticsearchDestinationUpdate",
        description: "ElasticsearchDestinationDescription",
        shape: &schema::ELASTICSEARCH_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Amazonopensearchservice,
        configuration: "AmazonopensearchserviceDestinationConfiguration",
        update: "AmazonopensearchserviceDestinationUpdate",
        description: "AmazonopensearchserviceDestinationDescription",
        shape: &schema::AMAZONOPENSEARCHSERVICE_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Splunk,
        configuration: "SplunkDestinationConfiguration",
        update: "SplunkDestinationUpdate",
        description: "SplunkDestinationDescription",
        shape: &schema::SPLUNK_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::HttpEndpoint,
        configuration: "HttpEndpointDestinationConfiguration",
        update: "HttpEndpointDestinationUpdate",
        description: "HttpEndpointDestinationDescription",
        shape: &schema::HTTP_ENDPOINT_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::AmazonOpenSearchServerless,
        configuration: "AmazonOpenSearchServerlessDestinationConfiguration",
        update: "AmazonOpenSearchServerlessDestinationUpdate",
        description: "AmazonOpenSearchServerlessDestinationDescription",
        shape: &schema::AMAZON_OPEN_SEARCH_SERVERLESS_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Snowflake,
        configuration: "SnowflakeDestinationConfiguration",
        update: "SnowflakeDestinationUpdate",
        description: "SnowflakeDestinationDescription",
        shape: &schema::SNOWFLAKE_DESTINATION_DESCRIPTION,
    },
    Members {
        kind: DestinationKind::Iceberg,
        configuration: "IcebergDestinationConfiguration",
        update: "IcebergDestinationUpdate",
        description: "IcebergDestinationDescription",
        shape: &schema::ICEBERG_DESTINATION_DESCRIPTION,
    },
];

impl DestinationKind {
    fn members(self) -> &'static Members {
        KINDS.iter().find(|m| m.kind == self).unwrap_or(&KINDS[1])
    }

    /// The kinds UpdateDestination merges into one another.
    fn family(self) -> DestinationKind {
        match self {
            DestinationKind::ExtendedS3 => DestinationKind::S3,
            other => other,
        }
    }

    /// The configuration's shape, which an update changing kind must satisfy whole.
    pub(crate) fn configuration_member(self) -> &'static str {
        self.members().configuration
    }
}

/// The destinations a CreateDeliveryStream input configures, with their JSON.
pub(crate) fn configured(input: &Map<String, Value>) -> Vec<(DestinationKind, Value)> {
    KINDS
        .iter()
        .filter_map(|m| input.get(m.configuration).map(|c| (m.kind, c.clone())))
        .collect()
}

/// The destination updates an UpdateDestination input carries, with their JSON.
pub(crate) fn updates(input: &Map<String, Value>) -> Vec<(DestinationKind, Value)> {
    KINDS
        .iter()
        .filter_map(|m| input.get(m.update).map(|u| (m.kind, u.clone())))
        .collect()
}

/// The configuration after `update` of kind `update_kind`: merged member by member into
/// one of the same kind, else `update` alone (which must then configure it whole).
pub(crate) fn merged(
    kind: DestinationKind,
    config: &Value,
    update_kind: DestinationKind,
    update: &Value,
) -> (DestinationKind, Value) {
    let mut update = update.clone();
    if let Value::Object(members) = &mut update {
        for (from, to) in [
            ("S3Update", "S3Configuration"),
            ("S3BackupUpdate", "S3BackupConfiguration"),
        ] {
            if let Some(value) = members.remove(from) {
                members.insert(to.to_owned(), value);
            }
        }
    }
    if kind.family() != update_kind.family() {
        return (update_kind, update);
    }
    let mut config = config.clone();
    merge(&mut config, update);
    let kind = if kind == DestinationKind::ExtendedS3 || update_kind == DestinationKind::ExtendedS3 {
        DestinationKind::ExtendedS3
    } else {
        kind
    };
    (kind, config)
}

fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        into.insert(key, value);
                    }
                }
            }
        }
        (into, from) => *into = from,
    }
}

/// The `DestinationDescription` of a destination: an S3 destination (plain or extended) is
/// described both ways, as AWS describes it.
pub(crate) fn describe(kind: DestinationKind, config: &Value) -> Value {
    let mut out = Map::new();
    out.insert("DestinationId".into(), json!(DESTINATION_ID));
    match kind {
        DestinationKind::S3 | DestinationKind::ExtendedS3 => {
            out.insert(
                "S3DestinationDescription".into(),
                walk(config, &schema::S3_DESTINATION_DESCRIPTION),
            );
            out.insert(
                "ExtendedS3DestinationDescription".into(),
                walk(config, &schema::EXTENDED_S3_DESTINATION_DESCRIPTION),
            );
        }
        other => {
            let members = other.members();
            out.insert(members.description.into(), walk(config, members.shape));
        }
    }
    Value::Object(out)
}

/// The effective settings of a destination (its description alone, defaults filled in).
pub(crate) fn effective(kind: DestinationKind, config: &Value) -> Value {
    let shape = match kind {
        DestinationKind::S3 => &schema::EXTENDED_S3_DESTINATION_DESCRIPTION,
        other => other.members().shape,
    };
    walk(config, shape)
}

/// The configuration member a description member is read from.
fn source_member(description_member: &str) -> &str {
    match description_member {
        "S3DestinationDescription" => "S3Configuration",
        "S3BackupDescription" => "S3BackupConfiguration",
        "VpcConfigurationDescription" => "VpcConfiguration",
        other => other,
    }
}

fn walk(source: &Value, shape: &'static Shape) -> Value {
    match (shape.kind, source) {
        (ShapeType::Structure, Value::Object(members)) => {
            let mut out = Map::new();
            for member in shape.members {
                if let Some(value) = members.get(source_member(member.name)) {
                    out.insert(member.name.to_owned(), walk(value, member.target));
                }
            }
            fill_defaults(shape.name, &mut out);
            Value::Object(out)
        }
        (ShapeType::List, Value::Array(items)) => match shape.members.first() {
            Some(member) => Value::Array(items.iter().map(|item| walk(item, member.target)).collect()),
            None => source.clone(),
        },
        _ => source.clone(),
    }
}

/// What AWS reports for members a configuration left out, by description shape.
fn defaults(shape: &str) -> Vec<(&'static str, Value)> {
    let logging = ("CloudWatchLoggingOptions", json!({"Enabled": false}));
    let hints = |interval: u32, size: u32| {
        (
            "BufferingHints",
            json!({"SizeInMBs": size, "IntervalInSeconds": interval}),
        )
    };
    let retry = |secs: u32| ("RetryOptions", json!({"DurationInSeconds": secs}));
    let s3 = || {
        vec![
            hints(300, 5),
            ("CompressionFormat", json!("UNCOMPRESSED")),
            ("EncryptionConfiguration", json!({"NoEncryptionConfig": "NoEncryption"})),
            logging.clone(),
        ]
    };
    match shape {
        "S3DestinationDescription" => s3(),
        "ExtendedS3DestinationDescription" => {
            let mut d = s3();
            d.push(("S3BackupMode", json!("Disabled")));
            d
        }
        "DynamicPartitioningConfiguration" => vec![retry(300)],
        "HttpEndpointDestinationDescription" => vec![
            hints(300, 5),
            logging,
            ("RequestConfiguration", json!({"ContentEncoding": "NONE"})),
            retry(300),
            ("S3BackupMode", json!("FailedDataOnly")),
        ],
        "HttpEndpointRequestConfiguration" => vec![("ContentEncoding", json!("NONE"))],
        "ElasticsearchDestinationDescription" | "AmazonopensearchserviceDestinationDescription" => vec![
            hints(300, 5),
            logging,
            ("IndexRotationPeriod", json!("OneDay")),
            retry(300),
            ("S3BackupMode", json!("FailedDocumentsOnly")),
        ],
        "AmazonOpenSearchServerlessDestinationDescription" => vec![
            hints(300, 5),
            logging,
            retry(300),
            ("S3BackupMode", json!("FailedDocumentsOnly")),
        ],
        "SplunkDestinationDescription" => vec![
            hints(60, 5),
            logging,
            ("HECAcknowledgmentTimeoutInSeconds", json!(180)),
            retry(3600),
            ("S3BackupMode", json!("FailedEventsOnly")),
        ],
        "RedshiftDestinationDescription" => vec![logging, retry(3600), ("S3BackupMode", json!("Disabled"))],
        "SnowflakeDestinationDescription" => vec![
            logging,
            ("DataLoadingOption", json!("JSON_MAPPING")),
            retry(60),
            ("S3BackupMode", json!("FailedDataOnly")),
        ],
        "IcebergDestinationDescription" => vec![
            hints(300, 5),
            logging,
            retry(300),
            ("S3BackupMode", json!("FailedDataOnly")),
        ],
        _ => Vec::new(),
    }
}

/// Fills what `out` lacks of its shape's defaults: a missing member whole, a structure that
/// was given in part member by member.
fn fill_defaults(shape: &str, out: &mut Map<String, Value>) {
    for (member, default) in defaults(shape) {
        match (out.get_mut(member), default) {
            (None, default) => {
                out.insert(member.to_owned(), default);
            }
            (Some(Value::Object(given)), Value::Object(default)) => {
                for (key, value) in default {
                    given.entry(key).or_insert(value);
                }
            }
            _ => {}
        }
    }
}

/// The bucket an S3 `BucketARN` names (`arn:aws:s3:::NAME`).
pub(crate) fn bucket_of(arn: &str) -> &str {
    arn.rsplit_once(":::").map_or(arn, |(_, name)| name)
}

/// An S3 destination as delivery reads it (from its description, defaults filled).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct S3Settings {
    #[serde(rename = "BucketARN")]
    pub(crate) bucket_arn: String,
    pub(crate) prefix: Option<String>,
    pub(crate) error_output_prefix: Option<String>,
    pub(crate) buffering_hints: Hints,
    pub(crate) compression_format: Option<String>,
    pub(crate) processing_configuration: Option<ProcessingSettings>,
    pub(crate) dynamic_partitioning_configuration: Option<DynamicPartitioning>,
    pub(crate) s3_backup_mode: Option<String>,
    pub(crate) s3_backup_description: Option<Box<S3Settings>>,
    pub(crate) file_extension: Option<String>,
}

/// `BufferingHints` (every kind's has these two members).
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct Hints {
    #[serde(rename = "SizeInMBs", default = "default_size")]
    pub(crate) size_mb: u64,
    #[serde(rename = "IntervalInSeconds", default = "default_interval")]
    pub(crate) interval_secs: u64,
}

fn default_size() -> u64 {
    5
}

fn default_interval() -> u64 {
    300
}

impl Default for Hints {
    fn default() -> Hints {
        Hints {
            size_mb: default_size(),
            interval_secs: default_interval(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct DynamicPartitioning {
    #[serde(default)]
    pub(crate) enabled: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct ProcessingSettings {
    pub(crate) enabled: Option<bool>,
    #[serde(default)]
    pub(crate) processors: Vec<ProcessorSettings>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct ProcessorSettings {
    #[serde(rename = "Type")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) parameters: Vec<Parameter>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Parameter {
    pub(crate) parameter_name: String,
    pub(crate) parameter_value: String,
}

impl ProcessorSettings {
    pub(crate) fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters
            .iter()
            .find(|p| p.parameter_name == name)
            .map(|p| p.parameter_value.as_str())
    }
}

impl ProcessingSettings {
    /// The processors that run: none unless processing is enabled (the model's default).
    pub(crate) fn active(&self) -> &[ProcessorSettings] {
        if self.enabled.unwrap_or(true) {
            &self.processors
        } else {
            &[]
        }
    }
}

/// An HTTP endpoint destination as delivery reads it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct HttpSettings {
    pub(crate) endpoint_configuration: Endpoint,
    pub(crate) buffering_hints: Hints,
    pub(crate) request_configuration: Option<RequestSettings>,
    pub(crate) retry_options: Option<Retry>,
    pub(crate) s3_backup_mode: Option<String>,
    pub(crate) s3_destination_description: S3Settings,
    pub(crate) processing_configuration: Option<ProcessingSettings>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Endpoint {
    pub(crate) url: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct RequestSettings {
    pub(crate) content_encoding: Option<String>,
    #[serde(default)]
    pub(crate) common_attributes: Vec<CommonAttribute>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct CommonAttribute {
    pub(crate) attribute_name: String,
    pub(crate) attribute_value: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Retry {
    pub(crate) duration_in_seconds: Option<u64>,
}

/// What a stream delivers to, read from its effective settings.
#[derive(Debug, Clone)]
pub(crate) enum Delivery {
    S3(S3Settings),
    Http {
        settings: HttpSettings,
        access_key: Option<String>,
    },
    /// Stored and described only: records are accepted and not delivered.
    None,
}

impl Delivery {
    pub(crate) fn of(kind: DestinationKind, config: &Value) -> Delivery {
        let settings = effective(kind, config);
        match kind {
            DestinationKind::S3 | DestinationKind::ExtendedS3 => serde_json::from_value(settings)
                .map(Delivery::S3)
                .unwrap_or(Delivery::None),
            DestinationKind::HttpEndpoint => match serde_json::from_value(settings) {
                Ok(settings) => Delivery::Http {
                    settings,
                    access_key: config
                        .pointer("/EndpointConfiguration/AccessKey")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                },
                Err(_) => Delivery::None,
            },
            _ => Delivery::None,
        }
    }

    /// The buffering hints records wait under.
    pub(crate) fn hints(&self) -> Option<Hints> {
        match self {
            Delivery::S3(s3) => Some(s3.buffering_hints),
            Delivery::Http { settings, .. } => Some(settings.buffering_hints),
            Delivery::None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extended() -> Value {
        json!({
            "RoleARN": "arn:aws:iam::111111111111:role/r",
            "BucketARN": "arn:aws:s3:::b",
            "Prefix": "firehoseTest/!{partitionKeyFromQuery:s3Prefix}",
            "ErrorOutputPrefix": "firehoseTest-errors/!{firehose:error-output-type}/",
            "BufferingHints": {"IntervalInSeconds": 60, "SizeInMBs": 64},
            "DynamicPartitioningConfiguration": {"Enabled": true},
            "DataFormatConversionConfiguration": {"Enabled": false},
        })
    }

    // As AWS described a stream CloudFormation made with this configuration (LocalStack's
    // recorded parity snapshot for test_firehose_stack_with_kinesis_as_source).
    #[test]
    fn an_extended_s3_destination_is_described_both_ways_with_aws_defaults() {
        let description = describe(DestinationKind::ExtendedS3, &extended());
        assert_eq!(description["DestinationId"], "destinationId-000000000001");
        let ext = &description["ExtendedS3DestinationDescription"];
        assert_eq!(ext["CloudWatchLoggingOptions"], json!({"Enabled": false}));
        assert_eq!(ext["CompressionFormat"], "UNCOMPRESSED");
        assert_eq!(
            ext["EncryptionConfiguration"],
            json!({"NoEncryptionConfig": "NoEncryption"})
        );
        assert_eq!(ext["S3BackupMode"], "Disabled");
        assert_eq!(
            ext["DynamicPartitioningConfiguration"],
            json!({"Enabled": true, "RetryOptions": {"DurationInSeconds": 300}})
        );
        assert_eq!(ext["DataFormatConversionConfiguration"], json!({"Enabled": false}));
        let plain = description["S3DestinationDescription"].as_object().unwrap();
        let keys: Vec<&str> = plain.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "RoleARN",
                "BucketARN",
                "Prefix",
                "ErrorOutputPrefix",
                "BufferingHints",
                "CompressionFormat",
                "EncryptionConfiguration",
                "CloudWatchLoggingOptions"
            ]
        );
        assert_eq!(
            plain["BufferingHints"],
            json!({"IntervalInSeconds": 60, "SizeInMBs": 64})
        );
    }

    #[test]
    fn secrets_the_configuration_holds_are_never_described() {
        let http = json!({
            "EndpointConfiguration": {"Url": "http://127.0.0.1:9/", "Name": "n", "AccessKey": "secret"},
            "S3Configuration": {"RoleARN": "r", "BucketARN": "arn:aws:s3:::backup"},
            "BufferingHints": {"SizeInMBs": 1},
        });
        let description = describe(DestinationKind::HttpEndpoint, &http);
        let described = &description["HttpEndpointDestinationDescription"];
        assert_eq!(
            described["EndpointConfiguration"],
            json!({"Url": "http://127.0.0.1:9/", "Name": "n"})
        );
        assert_eq!(
            described["BufferingHints"],
            json!({"SizeInMBs": 1, "IntervalInSeconds": 300})
        );
        assert_eq!(
            described["S3DestinationDescription"]["BucketARN"],
            "arn:aws:s3:::backup"
        );
        assert_eq!(described["S3BackupMode"], "FailedDataOnly");
        let Delivery::Http { settings, access_key } = Delivery::of(DestinationKind::HttpEndpoint, &http) else {
            panic!("an HTTP endpoint delivery");
        };
        assert_eq!(access_key.as_deref(), Some("secret"));
        assert_eq!(settings.buffering_hints.size_mb, 1);
        assert_eq!(bucket_of(&settings.s3_destination_description.bucket_arn), "backup");
        let redshift = json!({"Password": "p", "Username": "u", "ClusterJDBCURL": "jdbc:redshift://h:5439/db"});
        let described = describe(DestinationKind::Redshift, &redshift);
        assert!(described["RedshiftDestinationDescription"].get("Password").is_none());
        assert_eq!(described["RedshiftDestinationDescription"]["Username"], "u");
    }

    #[test]
    fn updates_merge_into_the_same_kind_and_replace_another() {
        let (kind, config) = merged(
            DestinationKind::ExtendedS3,
            &extended(),
            DestinationKind::ExtendedS3,
            &json!({"BufferingHints": {"SizeInMBs": 128}, "S3BackupUpdate": {"BucketARN": "arn:aws:s3:::bk"}}),
        );
        assert_eq!(kind, DestinationKind::ExtendedS3);
        assert_eq!(
            config["BufferingHints"],
            json!({"IntervalInSeconds": 60, "SizeInMBs": 128})
        );
        assert_eq!(config["S3BackupConfiguration"]["BucketARN"], "arn:aws:s3:::bk");
        assert_eq!(config["Prefix"], extended()["Prefix"]);
        let (kind, config) = merged(
            DestinationKind::S3,
            &json!({"BucketARN": "arn:aws:s3:::a", "RoleARN": "r"}),
            DestinationKind::ExtendedS3,
            &json!({"FileExtension": ".txt"}),
        );
        assert_eq!(kind, DestinationKind::ExtendedS3);
        assert_eq!(
            config,
            json!({"BucketARN": "arn:aws:s3:::a", "RoleARN": "r", "FileExtension": ".txt"})
        );
        let (kind, config) = merged(
            DestinationKind::ExtendedS3,
            &extended(),
            DestinationKind::HttpEndpoint,
            &json!({"S3Update": {"BucketARN": "arn:aws:s3:::x"}}),
        );
        assert_eq!(kind, DestinationKind::HttpEndpoint);
        assert_eq!(config, json!({"S3Configuration": {"BucketARN": "arn:aws:s3:::x"}}));
    }

    #[test]
    fn delivery_reads_the_effective_settings() {
        let Delivery::S3(s3) = Delivery::of(
            DestinationKind::S3,
            &json!({"BucketARN": "arn:aws:s3:::b", "RoleARN": "r"}),
        ) else {
            panic!("an S3 delivery");
        };
        assert_eq!((s3.buffering_hints.size_mb, s3.buffering_hints.interval_secs), (5, 300));
        assert_eq!(s3.compression_format.as_deref(), Some("UNCOMPRESSED"));
        assert!(matches!(
            Delivery::of(DestinationKind::Splunk, &json!({})),
            Delivery::None
        ));
    }
}
