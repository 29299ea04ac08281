//! The generated `DynamoDb` trait, implemented by running each operation's synchronous body
//! against the account and region's store on a blocking thread (strict commits fsync).

use std::sync::Arc;

use stratus_core::{RequestContext, Unit};
use stratus_gen_dynamodb::*;
use stratus_storage::{Durability, Namespace, Storage};

use crate::db::Scope;
use crate::error::DdbError;
use crate::ttl::TtlSweeper;
use crate::{batch, control, items, query, transact};

/// The DynamoDB service, backed by `storage`.
pub struct DynamoDbService {
    storage: Arc<Storage>,
    ttl: Arc<TtlSweeper>,
}

impl DynamoDbService {
    /// The service; stored tables with time to live enabled are swept from now on (the sweep
    /// interval is read from `STRATUS_DYNAMODB_TTL_INTERVAL`, see [`crate::ttl`]).
    pub fn new(storage: Arc<Storage>) -> DynamoDbService {
        let interval = crate::ttl::interval_from(std::env::var(crate::ttl::INTERVAL_VAR).ok().as_deref());
        let ttl = TtlSweeper::new(storage.clone(), interval);
        ttl.discover();
        DynamoDbService { storage, ttl }
    }

    async fn run<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, DdbError>
    where
        R: Send + 'static,
        F: FnOnce(&Scope) -> Result<R, DdbError> + Send + 'static,
    {
        let storage = self.storage.clone();
        let account = ctx.account_id.clone();
        let region = ctx.region.clone();
        tokio::task::spawn_blocking(move || {
            let namespace = Namespace::regional(&account, &region, "dynamodb");
            let store = storage.store(&namespace, Durability::Strict)?;
            body(&Scope { store, account, region })
        })
        .await
        .map_err(|e| DdbError::Internal(format!("table store task failed: {e}")))?
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
    query(QueryInput) -> QueryOutput, QueryError = query::query;
    scan(ScanInput) -> ScanOutput, ScanError = query::scan;
    batch_get_item(BatchGetItemInput) -> BatchGetItemOutput, BatchGetItemError = batch::batch_get_item;
    batch_write_item(BatchWriteItemInput) -> BatchWriteItemOutput, BatchWriteItemError = batch::batch_write_item;
    transact_write_items(TransactWriteItemsInput) -> TransactWriteItemsOutput, TransactWriteItemsError =
        transact::transact_write_items;
    transact_get_items(TransactGetItemsInput) -> TransactGetItemsOutput, TransactGetItemsError =
        transact::transact_get_items;
}
