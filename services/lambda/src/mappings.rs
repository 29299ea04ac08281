//! Event source mappings: the stored [`MappingRecord`], its settings checked as Lambda checks
//! them for an SQS queue, and the configuration Lambda answers with.
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
    EventSourceMappingConfiguration, Filter, FilterCriteria, FunctionResponseType, ScalingConfig,
};
use stratus_storage::Table;

use crate::error::invalid_parameter;

/// Mappings by UUID.
pub(crate) const MAPPINGS: Table<MappingRecord> = Table::new("event_source_mappings");

/// SQS's default `BatchSize`.
pub(crate) const DEFAULT_BATCH_SIZE: i32 = 10;
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
            state_transition_reason: Some("USER_INITIATED".to_owned()),
            function_response_types: Some(if self.report_batch_item_failures {
                vec![FunctionResponseType::ReportBatchItemFailures]
            } else {
                Vec::new()
            }),
            event_source_mapping_arn: Some(self.arn(account, region)),
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
