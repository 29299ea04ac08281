//! What Stratus does not run: Contributor Insights rules, metric streams, anomaly detection
//! and rendered widget images are refused by name when asked to create or read one; their
//! listings answer empty, which is true, since none can exist.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_cloudwatch::{
    DeleteAnomalyDetectorInput, DeleteAnomalyDetectorOutput, DeleteInsightRulesInput, DeleteInsightRulesOutput,
    DeleteMetricStreamInput, DeleteMetricStreamOutput, DescribeAlarmContributorsInput, DescribeAlarmContributorsOutput,
    DescribeAnomalyDetectorsInput, DescribeAnomalyDetectorsOutput, DescribeInsightRulesInput,
    DescribeInsightRulesOutput, DisableInsightRulesInput, DisableInsightRulesOutput, EnableInsightRulesInput,
    EnableInsightRulesOutput, GetInsightRuleReportInput, GetInsightRuleReportOutput, GetMetricStreamInput,
    GetMetricStreamOutput, GetMetricWidgetImageInput, GetMetricWidgetImageOutput, ListManagedInsightRulesInput,
    ListManagedInsightRulesOutput, ListMetricStreamsInput, ListMetricStreamsOutput, PutAnomalyDetectorInput,
    PutAnomalyDetectorOutput, PutInsightRuleInput, PutInsightRuleOutput, PutManagedInsightRulesInput,
    PutManagedInsightRulesOutput, PutMetricStreamInput, PutMetricStreamOutput, StartMetricStreamsInput,
    StartMetricStreamsOutput, StopMetricStreamsInput, StopMetricStreamsOutput,
};

use crate::error::not_served;
use crate::service::CloudWatchService;

const INSIGHTS: &str = "Contributor Insights rules need log analysis Stratus does not run";
const STREAMS: &str = "metric streams deliver to Kinesis Data Firehose, which Stratus does not serve";
const ANOMALIES: &str = "anomaly detection needs AWS's trained models";

macro_rules! refused {
    ($($op:ident($input:ty) -> $output:ty: $what:literal, $why:expr;)*) => {$(
        pub(crate) async fn $op(_: &CloudWatchService, _: &RequestContext, _: $input) -> Result<$output, AwsError> {
            Err(not_served($what, $why).into())
        }
    )*};
}

refused! {
    put_insight_rule(PutInsightRuleInput) -> PutInsightRuleOutput: "PutInsightRule", INSIGHTS;
    put_managed_insight_rules(PutManagedInsightRulesInput) -> PutManagedInsightRulesOutput: "PutManagedInsightRules", INSIGHTS;
    delete_insight_rules(DeleteInsightRulesInput) -> DeleteInsightRulesOutput: "DeleteInsightRules", INSIGHTS;
    enable_insight_rules(EnableInsightRulesInput) -> EnableInsightRulesOutput: "EnableInsightRules", INSIGHTS;
    disable_insight_rules(DisableInsightRulesInput) -> DisableInsightRulesOutput: "DisableInsightRules", INSIGHTS;
    get_insight_rule_report(GetInsightRuleReportInput) -> GetInsightRuleReportOutput: "GetInsightRuleReport", INSIGHTS;
    describe_alarm_contributors(DescribeAlarmContributorsInput) -> DescribeAlarmContributorsOutput: "DescribeAlarmContributors", INSIGHTS;
    put_metric_stream(PutMetricStreamInput) -> PutMetricStreamOutput: "PutMetricStream", STREAMS;
    get_metric_stream(GetMetricStreamInput) -> GetMetricStreamOutput: "GetMetricStream", STREAMS;
    delete_metric_stream(DeleteMetricStreamInput) -> DeleteMetricStreamOutput: "DeleteMetricStream", STREAMS;
    start_metric_streams(StartMetricStreamsInput) -> StartMetricStreamsOutput: "StartMetricStreams", STREAMS;
    stop_metric_streams(StopMetricStreamsInput) -> StopMetricStreamsOutput: "StopMetricStreams", STREAMS;
    put_anomaly_detector(PutAnomalyDetectorInput) -> PutAnomalyDetectorOutput: "PutAnomalyDetector", ANOMALIES;
    delete_anomaly_detector(DeleteAnomalyDetectorInput) -> DeleteAnomalyDetectorOutput: "DeleteAnomalyDetector", ANOMALIES;
    get_metric_widget_image(GetMetricWidgetImageInput) -> GetMetricWidgetImageOutput: "GetMetricWidgetImage", "rendering graphs is not something Stratus does";
}

pub(crate) async fn describe_insight_rules(
    _: &CloudWatchService,
    _: &RequestContext,
    _: DescribeInsightRulesInput,
) -> Result<DescribeInsightRulesOutput, AwsError> {
    Ok(DescribeInsightRulesOutput {
        insight_rules: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn list_managed_insight_rules(
    _: &CloudWatchService,
    _: &RequestContext,
    _: ListManagedInsightRulesInput,
) -> Result<ListManagedInsightRulesOutput, AwsError> {
    Ok(ListManagedInsightRulesOutput {
        managed_rules: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn list_metric_streams(
    _: &CloudWatchService,
    _: &RequestContext,
    _: ListMetricStreamsInput,
) -> Result<ListMetricStreamsOutput, AwsError> {
    Ok(ListMetricStreamsOutput {
        entries: Some(Vec::new()),
        next_token: None,
    })
}

pub(crate) async fn describe_anomaly_detectors(
    _: &CloudWatchService,
    _: &RequestContext,
    _: DescribeAnomalyDetectorsInput,
) -> Result<DescribeAnomalyDetectorsOutput, AwsError> {
    Ok(DescribeAnomalyDetectorsOutput {
        anomaly_detectors: Some(Vec::new()),
        next_token: None,
    })
}
