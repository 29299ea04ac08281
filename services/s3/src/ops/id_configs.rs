//! Analytics, S3 Intelligent-Tiering, inventory and metrics configurations (see
//! [`crate::id_configs`]): Put, Get, Delete and List of each, the same four operations over a
//! different family and shape.

use stratus_core::{RequestContext, Unit};
use stratus_gen_s3::*;

use crate::id_configs::{self, Page};
use crate::S3Service;

/// The four operations of one family, named after their input and output types.
macro_rules! family_ops {
    (
        $family:expr, $member:ident, $list_member:ident,
        $put:ident($put_in:ty) -> $put_err:ty,
        $get:ident($get_in:ty) -> $get_out:ident, $get_err:ty,
        $delete:ident($delete_in:ty) -> $delete_err:ty,
        $list:ident($list_in:ty) -> $list_out:ident, $list_err:ty $(,)?
    ) => {
        pub(crate) async fn $put(s3: &S3Service, _ctx: &RequestContext, input: $put_in) -> Result<Unit, $put_err> {
            id_configs::Checked::check(&input.$member)?;
            let document_id = input.$member.id.clone();
            s3.put_id_config(input.bucket, &$family, input.id, &document_id, input.$member)
                .await?;
            Ok(Unit {})
        }

        pub(crate) async fn $get(s3: &S3Service, _ctx: &RequestContext, input: $get_in) -> Result<$get_out, $get_err> {
            Ok($get_out {
                $member: Some(s3.get_id_config(&input.bucket, &$family, &input.id)?),
            })
        }

        pub(crate) async fn $delete(
            s3: &S3Service,
            _ctx: &RequestContext,
            input: $delete_in,
        ) -> Result<Unit, $delete_err> {
            s3.delete_id_config(input.bucket, &$family, input.id).await?;
            Ok(Unit {})
        }

        pub(crate) async fn $list(
            s3: &S3Service,
            _ctx: &RequestContext,
            input: $list_in,
        ) -> Result<$list_out, $list_err> {
            let page: Page<_> = s3.list_id_configs(&input.bucket, &$family, input.continuation_token.as_deref())?;
            Ok($list_out {
                is_truncated: Some(page.next_token.is_some()),
                continuation_token: input.continuation_token,
                next_continuation_token: page.next_token,
                $list_member: Some(page.configurations),
            })
        }
    };
}

family_ops!(
    id_configs::ANALYTICS, analytics_configuration, analytics_configuration_list,
    put_bucket_analytics_configuration(PutBucketAnalyticsConfigurationRequest) -> PutBucketAnalyticsConfigurationError,
    get_bucket_analytics_configuration(GetBucketAnalyticsConfigurationRequest) -> GetBucketAnalyticsConfigurationOutput,
        GetBucketAnalyticsConfigurationError,
    delete_bucket_analytics_configuration(DeleteBucketAnalyticsConfigurationRequest) -> DeleteBucketAnalyticsConfigurationError,
    list_bucket_analytics_configurations(ListBucketAnalyticsConfigurationsRequest) -> ListBucketAnalyticsConfigurationsOutput,
        ListBucketAnalyticsConfigurationsError,
);

family_ops!(
    id_configs::INTELLIGENT_TIERING, intelligent_tiering_configuration, intelligent_tiering_configuration_list,
    put_bucket_intelligent_tiering_configuration(PutBucketIntelligentTieringConfigurationRequest)
        -> PutBucketIntelligentTieringConfigurationError,
    get_bucket_intelligent_tiering_configuration(GetBucketIntelligentTieringConfigurationRequest)
        -> GetBucketIntelligentTieringConfigurationOutput, GetBucketIntelligentTieringConfigurationError,
    delete_bucket_intelligent_tiering_configuration(DeleteBucketIntelligentTieringConfigurationRequest)
        -> DeleteBucketIntelligentTieringConfigurationError,
    list_bucket_intelligent_tiering_configurations(ListBucketIntelligentTieringConfigurationsRequest)
        -> ListBucketIntelligentTieringConfigurationsOutput, ListBucketIntelligentTieringConfigurationsError,
);

family_ops!(
    id_configs::INVENTORY, inventory_configuration, inventory_configuration_list,
    put_bucket_inventory_configuration(PutBucketInventoryConfigurationRequest) -> PutBucketInventoryConfigurationError,
    get_bucket_inventory_configuration(GetBucketInventoryConfigurationRequest) -> GetBucketInventoryConfigurationOutput,
        GetBucketInventoryConfigurationError,
    delete_bucket_inventory_configuration(DeleteBucketInventoryConfigurationRequest) -> DeleteBucketInventoryConfigurationError,
    list_bucket_inventory_configurations(ListBucketInventoryConfigurationsRequest) -> ListBucketInventoryConfigurationsOutput,
        ListBucketInventoryConfigurationsError,
);

family_ops!(
    id_configs::METRICS, metrics_configuration, metrics_configuration_list,
    put_bucket_metrics_configuration(PutBucketMetricsConfigurationRequest) -> PutBucketMetricsConfigurationError,
    get_bucket_metrics_configuration(GetBucketMetricsConfigurationRequest) -> GetBucketMetricsConfigurationOutput,
        GetBucketMetricsConfigurationError,
    delete_bucket_metrics_configuration(DeleteBucketMetricsConfigurationRequest) -> DeleteBucketMetricsConfigurationError,
    list_bucket_metrics_configurations(ListBucketMetricsConfigurationsRequest) -> ListBucketMetricsConfigurationsOutput,
        ListBucketMetricsConfigurationsError,
);
