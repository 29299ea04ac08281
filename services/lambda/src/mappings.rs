//! Event source mappings: the stored [`MappingRecord`], its settings checked as Lambda checks
//! them for an SQS queue or a stream, and the configuration Lambda answers with.
//!
//! A mapping is kept in its settled state (`Enabled` or `Disabled`); the write that changes
//! it answers with the transition AWS shows first (`Creating`, `Enabling`, `Disabling`,
//! `Updating`, `Deleting`), and every later read with the settled state, as AWS shows it a
//! moment later.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::{AwsError, DateTime};
use stratus_event_pattern::{Dialect, Pattern};
use stratus_gen_lambda::types::{
    DestinationConfig, EventSourceMappingConfiguration, EventSourceMappingLoggingConfig, EventSourceMappingMetric,
    EventSourceMappingMetricsConfig, EventSourceMappingSystemLogLevel, EventSourcePosition, Filter, FilterCriteria,
    FunctionResponseType, OnFailure, ProvisionedPollerConfig, ScalingConfig,
};
use stratus_storage::Table;

use crate::error::invalid_parameter;

/// Mappings by UUID.
pub(crate) const MAPPINGS: Table<MappingRecord> = Table::new("event_source_mappings");

/// SQS's default `BatchSize`.
pub(crate) const DEFAULT_BATCH_SIZE: i32 = 10;
/// A stream's default `BatchSize` (Lambda's guide, "Lambda parameters for Kinesis").
pub(crate) const DEFAULT_STREAM_BATCH_SIZE: i32 = 100;
/// Batches a mapping runs at once when `ScalingConfig` sets no maximum (Lambda starts an SQS
/// mapping with five concurrent batches).
pub(crate) const DEFAULT_CONCURRENCY: i32 = 5;

/// One event source mapping, settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MappingRecord {
    pub(crate) uuid: String,
    pub(crate) event_source_arn: String,
    /// The function as the mapping names it: unqualified, or with a version or alias.
    pub(crate) function_arn: String,
    pub(crate) enabled: bool,
    pub(crate) batch_size: i32,
    pub(crate) maximum_batching_window: i32,
    /// `FilterCriteria` patterns, as sent.
    pub(crate) filters: Vec<String>,
    pub(crate) maximum_concurrency: Option<i32>,
    pub(crate) report_batch_item_failures: bool,
    /// Whether the queue is FIFO (known when the mapping was made).
    pub(crate) fifo: bool,
    pub(crate) last_modified_ms: i64,
    pub(crate) tags: BTreeMap<String, String>,
    /// A stream source's own settings; `None` for a queue.
    #[serde(default)]
    pub(crate) stream: Option<StreamSettings>,
    /// What Lambda keeps and answers with but Stratus does not act on.
    #[serde(default)]
    pub(crate) kept: KeptSettings,
}

/// Settings a mapping keeps and answers with that change nothing here: the key its filter
/// criteria would be encrypted with, the metrics and system logs it would publish, and the
/// provisioned pollers it would run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct KeptSettings {
    pub(crate) kms_key_arn: Option<String>,
    pub(crate) metrics: Option<Vec<String>>,
    pub(crate) system_log_level: Option<String>,
    pub(crate) pollers: Option<Pollers>,
}

/// `ProvisionedPollerConfig`, as sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pollers {
    pub(crate) minimum: Option<i32>,
    pub(crate) maximum: Option<i32>,
    pub(crate) group: Option<String>,
}

/// The settings only a stream source takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StreamSettings {
    /// `TRIM_HORIZON`, `LATEST` or `AT_TIMESTAMP`.
    pub(crate) starting_position: String,
    /// `StartingPositionTimestamp`, in milliseconds, for `AT_TIMESTAMP`.
    pub(crate) starting_timestamp_ms: Option<i64>,
    /// -1: retried until the records expire.
    pub(crate) maximum_retry_attempts: i32,
    /// -1: records never get too old.
    pub(crate) maximum_record_age: i32,
    pub(crate) bisect_on_error: bool,
    pub(crate) parallelization_factor: i32,
    pub(crate) tumbling_window: i32,
    /// The SQS queue or SNS topic that discarded batches are reported to.
    pub(crate) on_failure: Option<String>,
    /// How the last batch went (`OK`, `PROBLEM: Function call failed`); `None` before any.
    #[serde(default)]
    pub(crate) last_processing_result: Option<String>,
}

impl Default for StreamSettings {
    fn default() -> StreamSettings {
        StreamSettings {
            starting_position: "LATEST".to_owned(),
            starting_timestamp_ms: None,
            maximum_retry_attempts: -1,
            maximum_record_age: -1,
            bisect_on_error: false,
            parallelization_factor: 1,
            tumbling_window: 0,
            on_failure: None,
            last_processing_result: None,
        }
    }
}

/// The stream settings a create or update sends, before they are checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamChanges {
    pub(crate) maximum_retry_attempts: Option<i32>,
    pub(crate) maximum_record_age: Option<i32>,
    pub(crate) bisect_on_error: Option<bool>,
    pub(crate) parallelization_factor: Option<i32>,
    pub(crate) tumbling_window: Option<i32>,
    pub(crate) destination: Option<DestinationConfig>,
}

impl StreamChanges {
    pub(crate) fn any(&self) -> bool {
        self.maximum_retry_attempts.is_some()
            || self.maximum_record_age.is_some()
            || self.bisect_on_error.is_some()
            || self.parallelization_factor.is_some()
            || self.tumbling_window.is_some()
            || self.destination.is_some()
    }
}

impl StreamSettings {
    /// Applies `changes` and checks them as Lambda does (the model bounds
    /// `MaximumRetryAttempts` to -1–10,000, `MaximumRecordAgeInSeconds` to -1–604,800,
    /// `ParallelizationFactor` to 1–10 and `TumblingWindowInSeconds` to 0–900).
    pub(crate) fn apply(&mut self, changes: StreamChanges) -> Result<(), AwsError> {
        if let Some(n) = changes.maximum_retry_attempts {
            self.maximum_retry_attempts = n;
        }
        if let Some(n) = changes.maximum_record_age {
            // Lambda's guide: the age is -1 (infinite) or at least 60 seconds.
            if (0..60).contains(&n) {
                return Err(invalid_parameter(
                    "MaximumRecordAgeInSeconds must be either -1 (infinite) or at least 60 seconds.",
                ));
            }
            self.maximum_record_age = n;
        }
        if let Some(b) = changes.bisect_on_error {
            self.bisect_on_error = b;
        }
        if let Some(n) = changes.parallelization_factor {
            self.parallelization_factor = n;
        }
        if let Some(n) = changes.tumbling_window {
            self.tumbling_window = n;
        }
        if let Some(config) = changes.destination {
            if config
                .on_success
                .as_ref()
                .and_then(|s| s.destination.as_deref())
                .is_some()
            {
                return Err(invalid_parameter(
                    "Unsupported DestinationConfig parameter for given event source mapping type.",
                ));
            }
            self.on_failure = config.on_failure.and_then(|f| f.destination).filter(|d| !d.is_empty());
            if let Some(d) = &self.on_failure {
                if !matches!(d.split(':').nth(2), Some("sqs" | "sns" | "s3")) {
                    return Err(invalid_parameter(format!(
                        "The provided destination config DestinationConfig(onSuccess=null, onFailure=OnFailure(destination={d})) is invalid."
                    )));
                }
            }
        }
        Ok(())
    }
}

/// What a write did to a mapping, as the `State` its answer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transition {
    Creating,
    Enabling,
    Disabling,
    Updating,
    Deleting,
}

/// The settings a create or update sends, before they are checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub(crate) batch_size: Option<i32>,
    pub(crate) maximum_batching_window: Option<i32>,
    pub(crate) filter_criteria: Option<FilterCriteria>,
    pub(crate) scaling: Option<ScalingConfig>,
    pub(crate) function_response_types: Option<Vec<FunctionResponseType>>,
    pub(crate) kms_key_arn: Option<String>,
    pub(crate) metrics: Option<EventSourceMappingMetricsConfig>,
    pub(crate) logging: Option<EventSourceMappingLoggingConfig>,
    pub(crate) pollers: Option<ProvisionedPollerConfig>,
}

impl MappingRecord {
    /// The mapping's ARN.
    pub(crate) fn arn(&self, account: &str, region: &str) -> String {
        format!("arn:aws:lambda:{region}:{account}:event-source-mapping:{}", self.uuid)
    }

    /// Applies `settings` (those sent; the rest keep their values) and checks the result as
    /// Lambda checks a mapping of an SQS queue.
    pub(crate) fn apply(&mut self, settings: Settings) -> Result<(), AwsError> {
        if let Some(n) = settings.batch_size {
            self.batch_size = n;
        }
        if let Some(n) = settings.maximum_batching_window {
            self.maximum_batching_window = n;
        }
        if let Some(criteria) = settings.filter_criteria {
            self.filters = filter_patterns(criteria)?;
        }
        if let Some(scaling) = settings.scaling {
            self.maximum_concurrency = scaling.maximum_concurrency;
        }
        let kept = &mut self.kept;
        if let Some(key) = settings.kms_key_arn {
            // An empty ARN removes the key, as UpdateEventSourceMapping takes it.
            kept.kms_key_arn = Some(key).filter(|k| !k.is_empty());
        }
        if let Some(config) = settings.metrics {
            kept.metrics = config
                .metrics
                .map(|m| m.iter().map(|m| m.as_str().to_owned()).collect());
        }
        if let Some(config) = settings.logging {
            kept.system_log_level = config.system_log_level.map(|l| l.as_str().to_owned());
        }
        if let Some(config) = settings.pollers {
            kept.pollers = Some(Pollers {
                minimum: config.minimum_pollers,
                maximum: config.maximum_pollers,
                group: config.poller_group_name,
            });
        }
        if let Some(types) = settings.function_response_types {
            self.report_batch_item_failures = false;
            for t in types {
                match t {
                    FunctionResponseType::ReportBatchItemFailures => self.report_batch_item_failures = true,
                    FunctionResponseType::Unknown(v) => {
                        return Err(invalid_parameter(format!("Unsupported FunctionResponseType: {v}")))
                    }
                }
            }
        }
        self.check()
    }

    /// Lambda's limits for an SQS source (the model's ranges are checked before this:
    /// `BatchSize` 1–10,000, `MaximumBatchingWindowInSeconds` 0–300, `MaximumConcurrency`
    /// 2–1,000).
    fn check(&self) -> Result<(), AwsError> {
        if self.stream.is_some() {
            return Ok(());
        }
        if self.fifo {
            // AWS's words, as CloudFormation relays them for a FIFO queue with a window.
            if self.maximum_batching_window > 0 {
                return Err(invalid_parameter("Batching window is not supported for FIFO queues"));
            }
            if !(1..=10).contains(&self.batch_size) {
                return Err(invalid_parameter(
                    "Maximum batch size must be between 1 and 10 inclusive",
                ));
            }
        } else if self.batch_size > 10 && self.maximum_batching_window == 0 {
            return Err(invalid_parameter(
                "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10",
            ));
        }
        Ok(())
    }

    /// The compiled filters; empty when every message passes.
    pub(crate) fn patterns(&self) -> Vec<Pattern> {
        self.filters
            .iter()
            .filter_map(|p| Pattern::parse(p, Dialect::EventBridge).ok())
            .collect()
    }

    /// The configuration Lambda answers with, in `state` (the settled one when `None`).
    pub(crate) fn configuration(
        &self,
        account: &str,
        region: &str,
        transition: Option<Transition>,
    ) -> EventSourceMappingConfiguration {
        let state = match (transition, self.enabled) {
            (Some(Transition::Creating), true) => "Creating",
            (Some(Transition::Creating), false) | (None, false) => "Disabled",
            (Some(Transition::Enabling), _) => "Enabling",
            (Some(Transition::Disabling), _) => "Disabling",
            (Some(Transition::Updating), _) => "Updating",
            (Some(Transition::Deleting), _) => "Deleting",
            (None, true) => "Enabled",
        };
        let filter_criteria = (!self.filters.is_empty()).then(|| FilterCriteria {
            filters: Some(
                self.filters
                    .iter()
                    .map(|p| Filter {
                        pattern: Some(p.clone()),
                    })
                    .collect(),
            ),
        });
        EventSourceMappingConfiguration {
            uuid: Some(self.uuid.clone()),
            batch_size: Some(self.batch_size),
            maximum_batching_window_in_seconds: Some(self.maximum_batching_window),
            event_source_arn: Some(self.event_source_arn.clone()),
            filter_criteria,
            scaling_config: self.maximum_concurrency.map(|n| ScalingConfig {
                maximum_concurrency: Some(n),
            }),
            function_arn: Some(self.function_arn.clone()),
            last_modified: Some(DateTime::from_secs_f64(self.last_modified_ms as f64 / 1000.0)),
            state: Some(state.to_owned()),
            // AWS words it so for a queue, "User action" for a stream.
            state_transition_reason: Some(
                if self.stream.is_some() {
                    "User action"
                } else {
                    "USER_INITIATED"
                }
                .to_owned(),
            ),
            function_response_types: Some(if self.report_batch_item_failures {
                vec![FunctionResponseType::ReportBatchItemFailures]
            } else {
                Vec::new()
            }),
            event_source_mapping_arn: Some(self.arn(account, region)),
            kms_key_arn: self.kept.kms_key_arn.clone(),
            metrics_config: self
                .kept
                .metrics
                .as_ref()
                .map(|metrics| EventSourceMappingMetricsConfig {
                    metrics: Some(metrics.iter().map(|m| EventSourceMappingMetric::from_wire(m)).collect()),
                }),
            logging_config: self
                .kept
                .system_log_level
                .as_ref()
                .map(|level| EventSourceMappingLoggingConfig {
                    system_log_level: Some(EventSourceMappingSystemLogLevel::from_wire(level)),
                }),
            provisioned_poller_config: self.kept.pollers.as_ref().map(|p| ProvisionedPollerConfig {
                minimum_pollers: p.minimum,
                maximum_pollers: p.maximum,
                poller_group_name: p.group.clone(),
            }),
            ..self.stream_configuration()
        }
    }
}

impl MappingRecord {
    /// The fields only a stream mapping answers with.
    fn stream_configuration(&self) -> EventSourceMappingConfiguration {
        let Some(stream) = &self.stream else {
            return EventSourceMappingConfiguration::default();
        };
        EventSourceMappingConfiguration {
            starting_position: Some(match stream.starting_position.as_str() {
                "TRIM_HORIZON" => EventSourcePosition::TrimHorizon,
                "AT_TIMESTAMP" => EventSourcePosition::AtTimestamp,
                _ => EventSourcePosition::Latest,
            }),
            starting_position_timestamp: stream
                .starting_timestamp_ms
                .map(|ms| DateTime::from_secs_f64(ms as f64 / 1000.0)),
            parallelization_factor: Some(stream.parallelization_factor),
            maximum_record_age_in_seconds: Some(stream.maximum_record_age),
            bisect_batch_on_function_error: Some(stream.bisect_on_error),
            maximum_retry_attempts: Some(stream.maximum_retry_attempts),
            tumbling_window_in_seconds: Some(stream.tumbling_window),
            destination_config: Some(DestinationConfig {
                on_success: None,
                on_failure: Some(OnFailure {
                    destination: stream.on_failure.clone(),
                }),
            }),
            last_processing_result: Some(
                stream
                    .last_processing_result
                    .clone()
                    .unwrap_or_else(|| "No records processed".to_owned()),
            ),
            ..EventSourceMappingConfiguration::default()
        }
    }
}

/// `FilterCriteria`'s patterns, each checked as an EventBridge pattern (Lambda's filter
/// language); an empty criteria clears the filters.
fn filter_patterns(criteria: FilterCriteria) -> Result<Vec<String>, AwsError> {
    let invalid = || invalid_parameter("Invalid filter pattern definition.");
    criteria
        .filters
        .unwrap_or_default()
        .into_iter()
        .map(|f| {
            let pattern = f.pattern.ok_or_else(invalid)?;
            Pattern::parse(&pattern, Dialect::EventBridge).map_err(|_| invalid())?;
            Ok(pattern)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(fifo: bool) -> MappingRecord {
        MappingRecord {
            uuid: "u".into(),
            event_source_arn: "arn:aws:sqs:us-east-1:000000000000:q".into(),
            function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f".into(),
            enabled: true,
            batch_size: DEFAULT_BATCH_SIZE,
            maximum_batching_window: 0,
            filters: Vec::new(),
            maximum_concurrency: None,
            report_batch_item_failures: false,
            fifo,
            last_modified_ms: 0,
            tags: BTreeMap::new(),
            stream: None,
            kept: KeptSettings::default(),
        }
    }

    fn with(fifo: bool, batch: i32, window: i32) -> Result<(), AwsError> {
        mapping(fifo).apply(Settings {
            batch_size: Some(batch),
            maximum_batching_window: Some(window),
            ..Settings::default()
        })
    }

    #[test]
    fn batch_sizes_follow_the_queue_type() {
        assert!(with(false, 10, 0).is_ok());
        assert!(with(false, 10_000, 1).is_ok());
        assert!(with(false, 11, 0).unwrap_err().message.contains("greater than 0"));
        assert!(with(true, 10, 0).is_ok());
        assert!(with(true, 11, 0).unwrap_err().message.contains("between 1 and 10"));
        assert!(with(true, 5, 1).unwrap_err().message.contains("FIFO"));
    }

    #[test]
    fn filters_are_event_patterns() {
        let criteria = |p: Option<&str>| {
            mapping(false).apply(Settings {
                filter_criteria: Some(FilterCriteria {
                    filters: Some(vec![Filter {
                        pattern: p.map(str::to_owned),
                    }]),
                }),
                ..Settings::default()
            })
        };
        assert!(criteria(Some(r#"{"body": {"a": ["x"]}}"#)).is_ok());
        for bad in [None, Some("simple string"), Some(r#"{"body": "x"}"#)] {
            assert_eq!(criteria(bad).unwrap_err().message, "Invalid filter pattern definition.");
        }
    }

    #[test]
    fn stream_settings_are_checked_as_lambda_checks_them() {
        let mut settings = StreamSettings::default();
        let age = |n| StreamChanges {
            maximum_record_age: Some(n),
            ..StreamChanges::default()
        };
        assert!(settings.apply(age(-1)).is_ok());
        assert!(settings.apply(age(60)).is_ok());
        assert!(settings.apply(age(59)).unwrap_err().message.contains("at least 60"));
        let to = |d: &str| StreamChanges {
            destination: Some(DestinationConfig {
                on_success: None,
                on_failure: Some(OnFailure {
                    destination: Some(d.to_owned()),
                }),
            }),
            ..StreamChanges::default()
        };
        assert!(settings.apply(to("arn:aws:sqs:us-east-1:000000000000:q")).is_ok());
        assert_eq!(
            settings.on_failure.as_deref(),
            Some("arn:aws:sqs:us-east-1:000000000000:q")
        );
        assert!(settings
            .apply(to("arn:aws:lambda:us-east-1:000000000000:function:f"))
            .is_err());
        assert!(settings.apply(to("")).is_ok());
        assert_eq!(settings.on_failure, None);
        let stream = MappingRecord {
            stream: Some(settings),
            ..mapping(false)
        };
        let answer = stream.configuration("0", "r", None);
        assert_eq!(answer.state_transition_reason.as_deref(), Some("User action"));
        assert_eq!(answer.maximum_retry_attempts, Some(-1));
        assert_eq!(mapping(false).configuration("0", "r", None).starting_position, None);
    }

    #[test]
    fn states_show_the_transition_then_the_settled_state() {
        let m = mapping(false);
        let state = |t| m.configuration("000000000000", "us-east-1", t).state.unwrap();
        assert_eq!(state(Some(Transition::Creating)), "Creating");
        assert_eq!(state(None), "Enabled");
        let off = MappingRecord {
            enabled: false,
            ..mapping(false)
        };
        assert_eq!(
            off.configuration("0", "r", Some(Transition::Creating)).state.unwrap(),
            "Disabled"
        );
        assert_eq!(off.configuration("0", "r", None).state.unwrap(), "Disabled");
    }
}
