//! The generated `DynamoDb` trait, implemented by running each operation's synchronous body
//! against the account and region's store on a blocking thread (strict commits fsync).

use std::sync::Arc;
use std::time::Duration;

use stratus_core::error::OperationError;
use stratus_core::scheduler::Scheduler;
use stratus_core::schema::{Operation, Service};
use stratus_core::service::{BoxFuture, ServiceHandler};
use stratus_core::{FromValue, RequestContext, Unit, Value};
use stratus_gen_dynamodb::*;
use stratus_storage::Storage;

use crate::db::Scope;
use crate::error::DdbError;
use crate::ttl::TtlSweeper;
use crate::{batch, control, items, partiql, query, settings, transact};

/// The DynamoDB service, backed by `storage`.
#[derive(Clone)]
pub struct DynamoDbService {
    storage: Arc<Storage>,
    ttl: Arc<TtlSweeper>,
}

impl DynamoDbService {
    /// The service; stored tables with time to live enabled are swept every `ttl_interval`
    /// on `scheduler` from now on (see [`crate::ttl`]).
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler, ttl_interval: Duration) -> DynamoDbService {
        let ttl = TtlSweeper::new(storage.clone(), scheduler, ttl_interval);
        ttl.discover();
        DynamoDbService { storage, ttl }
    }

    /// The service behind the gateway's type-erased handler.
    pub fn into_handler(self) -> Arc<dyn ServiceHandler> {
        Arc::new(DynamoDbHandler(Handler(self)))
    }

    async fn run<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, DdbError>
    where
        R: Send + 'static,
        F: FnOnce(&Scope) -> Result<R, DdbError> + Send + 'static,
    {
        Scope::run(&self.storage, ctx, body).await
    }
}

/// Implements trait methods as `self.run(ctx, |scope| function(scope, input))`.
macro_rules! operations {
    ($($method:ident($input:ty) -> $output:ty, $error:ty = $body:expr;)*) => {
        impl DynamoDb for DynamoDbService {
            $(
                async fn $method(&self, ctx: &RequestContext, input: $input) -> Result<$output, $error> {
                    Ok(self.run(ctx, move |scope| $body(scope, input)).await?)
                }
            )*

            async fn describe_limits(
                &self,
                _ctx: &RequestContext,
                _input: DescribeLimitsInput,
            ) -> Result<DescribeLimitsOutput, DescribeLimitsError> {
                Ok(control::describe_limits())
            }

            async fn update_time_to_live(
                &self,
                ctx: &RequestContext,
                input: UpdateTimeToLiveInput,
            ) -> Result<UpdateTimeToLiveOutput, UpdateTimeToLiveError> {
                let enable = input.time_to_live_specification.enabled;
                let output = self.run(ctx, move |scope| control::update_ttl(scope, input)).await?;
                if enable {
                    self.ttl.watch(&ctx.account_id, &ctx.region);
                }
                Ok(output)
            }

            // Backups, exports, imports and global tables: Stratus makes none, so listings are
            // empty and a lookup is AWS's not-found answer.
            async fn list_backups(&self, _ctx: &RequestContext, _input: ListBackupsInput) -> Result<ListBackupsOutput, ListBackupsError> {
                Ok(ListBackupsOutput { backup_summaries: Some(Vec::new()), last_evaluated_backup_arn: None })
            }

            async fn describe_backup(&self, _ctx: &RequestContext, input: DescribeBackupInput) -> Result<DescribeBackupOutput, DescribeBackupError> {
                Err(DescribeBackupError::BackupNotFoundException(BackupNotFoundException {
                    message: Some(format!("Backup not found for the given BackupARN: {}", input.backup_arn)),
                }))
            }

            async fn delete_backup(&self, _ctx: &RequestContext, input: DeleteBackupInput) -> Result<DeleteBackupOutput, DeleteBackupError> {
                Err(DeleteBackupError::BackupNotFoundException(BackupNotFoundException {
                    message: Some(format!("Backup not found for the given BackupARN: {}", input.backup_arn)),
                }))
            }

            async fn list_exports(&self, _ctx: &RequestContext, _input: ListExportsInput) -> Result<ListExportsOutput, ListExportsError> {
                Ok(ListExportsOutput { export_summaries: Some(Vec::new()), next_token: None })
            }

            async fn describe_export(&self, _ctx: &RequestContext, input: DescribeExportInput) -> Result<DescribeExportOutput, DescribeExportError> {
                Err(DescribeExportError::ExportNotFoundException(ExportNotFoundException {
                    message: Some(format!("Export not found: {}", input.export_arn)),
                }))
            }

            async fn list_imports(&self, _ctx: &RequestContext, _input: ListImportsInput) -> Result<ListImportsOutput, ListImportsError> {
                Ok(ListImportsOutput { import_summary_list: Some(Vec::new()), next_token: None })
            }

            async fn describe_import(&self, _ctx: &RequestContext, input: DescribeImportInput) -> Result<DescribeImportOutput, DescribeImportError> {
                Err(DescribeImportError::ImportNotFoundException(ImportNotFoundException {
                    message: Some(format!("Import not found: {}", input.import_arn)),
                }))
            }

            async fn list_global_tables(&self, _ctx: &RequestContext, _input: ListGlobalTablesInput) -> Result<ListGlobalTablesOutput, ListGlobalTablesError> {
                Ok(ListGlobalTablesOutput { global_tables: Some(Vec::new()), last_evaluated_global_table_name: None })
            }

            async fn describe_global_table(&self, _ctx: &RequestContext, input: DescribeGlobalTableInput) -> Result<DescribeGlobalTableOutput, DescribeGlobalTableError> {
                Err(DescribeGlobalTableError::GlobalTableNotFoundException(GlobalTableNotFoundException {
                    message: Some(format!("Global table not found: {}", input.global_table_name)),
                }))
            }

            async fn describe_global_table_settings(
                &self,
                _ctx: &RequestContext,
                input: DescribeGlobalTableSettingsInput,
            ) -> Result<DescribeGlobalTableSettingsOutput, DescribeGlobalTableSettingsError> {
                Err(DescribeGlobalTableSettingsError::GlobalTableNotFoundException(GlobalTableNotFoundException {
                    message: Some(format!("Global table not found: {}", input.global_table_name)),
                }))
            }

            async fn describe_endpoints(
                &self,
                ctx: &RequestContext,
                _input: DescribeEndpointsRequest,
            ) -> Result<DescribeEndpointsResponse, DescribeEndpointsError> {
                Ok(control::describe_endpoints(&ctx.region))
            }
        }
    };
}

operations! {
    create_table(CreateTableInput) -> CreateTableOutput, CreateTableError = control::create_table;
    describe_table(DescribeTableInput) -> DescribeTableOutput, DescribeTableError = control::describe_table;
    list_tables(ListTablesInput) -> ListTablesOutput, ListTablesError = control::list_tables;
    delete_table(DeleteTableInput) -> DeleteTableOutput, DeleteTableError = control::delete_table;
    update_table(UpdateTableInput) -> UpdateTableOutput, UpdateTableError = control::update_table;
    tag_resource(TagResourceInput) -> Unit, TagResourceError = control::tag_resource;
    untag_resource(UntagResourceInput) -> Unit, UntagResourceError = control::untag_resource;
    list_tags_of_resource(ListTagsOfResourceInput) -> ListTagsOfResourceOutput, ListTagsOfResourceError =
        control::list_tags;
    describe_time_to_live(DescribeTimeToLiveInput) -> DescribeTimeToLiveOutput, DescribeTimeToLiveError =
        control::describe_ttl;
    describe_continuous_backups(DescribeContinuousBackupsInput) -> DescribeContinuousBackupsOutput,
        DescribeContinuousBackupsError = control::describe_backups;
    update_continuous_backups(UpdateContinuousBackupsInput) -> UpdateContinuousBackupsOutput,
        UpdateContinuousBackupsError = control::update_backups;
    put_item(PutItemInput) -> PutItemOutput, PutItemError = items::put_item;
    get_item(GetItemInput) -> GetItemOutput, GetItemError = items::get_item;
    delete_item(DeleteItemInput) -> DeleteItemOutput, DeleteItemError = items::delete_item;
    update_item(UpdateItemInput) -> UpdateItemOutput, UpdateItemError = items::update_item;
    // Query and Scan are answered by `DynamoDbHandler`, with their items pre-encoded.
    batch_get_item(BatchGetItemInput) -> BatchGetItemOutput, BatchGetItemError = batch::batch_get_item;
    batch_write_item(BatchWriteItemInput) -> BatchWriteItemOutput, BatchWriteItemError = batch::batch_write_item;
    transact_write_items(TransactWriteItemsInput) -> TransactWriteItemsOutput, TransactWriteItemsError =
        transact::transact_write_items;
    transact_get_items(TransactGetItemsInput) -> TransactGetItemsOutput, TransactGetItemsError =
        transact::transact_get_items;
    execute_statement(ExecuteStatementInput) -> ExecuteStatementOutput, ExecuteStatementError =
        partiql::execute_statement;
    batch_execute_statement(BatchExecuteStatementInput) -> BatchExecuteStatementOutput, BatchExecuteStatementError =
        partiql::batch_execute_statement;
    execute_transaction(ExecuteTransactionInput) -> ExecuteTransactionOutput, ExecuteTransactionError =
        partiql::execute_transaction;
    update_contributor_insights(UpdateContributorInsightsInput) -> UpdateContributorInsightsOutput,
        UpdateContributorInsightsError = settings::update_contributor_insights;
    describe_contributor_insights(DescribeContributorInsightsInput) -> DescribeContributorInsightsOutput,
        DescribeContributorInsightsError = settings::describe_contributor_insights;
    list_contributor_insights(ListContributorInsightsInput) -> ListContributorInsightsOutput,
        ListContributorInsightsError = settings::list_contributor_insights;
    put_resource_policy(PutResourcePolicyInput) -> PutResourcePolicyOutput, PutResourcePolicyError =
        settings::put_resource_policy;
    get_resource_policy(GetResourcePolicyInput) -> GetResourcePolicyOutput, GetResourcePolicyError =
        settings::get_resource_policy;
    delete_resource_policy(DeleteResourcePolicyInput) -> DeleteResourcePolicyOutput, DeleteResourcePolicyError =
        settings::delete_resource_policy;
    describe_kinesis_streaming_destination(DescribeKinesisStreamingDestinationInput)
        -> DescribeKinesisStreamingDestinationOutput, DescribeKinesisStreamingDestinationError =
        settings::describe_kinesis_streaming_destination;
}

/// The generated handler, except for Query and Scan: they return their items as JSON
/// transcoded straight from storage ([`Value::EncodedJson`]), where the typed outputs would
/// decode every item into `AttributeValue`s only for the encoder to write them out again.
struct DynamoDbHandler(Handler<DynamoDbService>);

impl DynamoDbHandler {
    async fn answer<I, E>(
        &self,
        ctx: &RequestContext,
        input: Value,
        body: fn(&Scope, I) -> Result<Value, DdbError>,
        into_error: fn(E) -> OperationError,
    ) -> Result<Value, OperationError>
    where
        I: FromValue + Send + 'static,
        E: From<DdbError>,
    {
        let input = I::from_value(input)?;
        self.0
             .0
            .run(ctx, move |scope| body(scope, input))
            .await
            .map_err(|e| into_error(E::from(e)))
    }
}

impl ServiceHandler for DynamoDbHandler {
    fn schema(&self) -> &'static Service {
        self.0.schema()
    }

    fn implemented(&self) -> bool {
        true
    }

    fn call<'a>(
        &'a self,
        ctx: &'a RequestContext,
        operation: &'static Operation,
        input: Value,
    ) -> BoxFuture<'a, Result<Value, OperationError>> {
        match operation.name {
            "Query" => Box::pin(self.answer(ctx, input, query::query, QueryError::into_operation_error)),
            "Scan" => Box::pin(self.answer(ctx, input, query::scan, ScanError::into_operation_error)),
            _ => self.0.call(ctx, operation, input),
        }
    }
}
