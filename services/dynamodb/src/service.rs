//! The generated `DynamoDb` trait, implemented by running each operation's synchronous body
//! against the account and region's store on a blocking thread (strict commits fsync): the
//! `operations!` table below names each operation's body.

use std::sync::Arc;
use std::time::Duration;

use stratus_core::scheduler::Scheduler;
use stratus_core::service::{Arrivals, Caller, KeyService, LateProviders, ServiceHandler, Spawner, StreamSource};
use stratus_core::RequestContext;
use stratus_gen_dynamodb::*;
use stratus_storage::Storage;

use crate::db::Scope;
use crate::error::DdbError;
use crate::kinesis_feed::KinesisFeeds;
use crate::stream_source::{TableStreams, WriteScope};
use crate::ttl::TtlSweeper;
use crate::{
    batch, control, encryption, fixed_answers, items, kinesis_destinations, partiql, query, settings, transact,
};

/// The DynamoDB service, backed by `storage`.
#[derive(Clone)]
pub struct DynamoDbService {
    storage: Arc<Storage>,
    ttl: Arc<TtlSweeper>,
    /// Committed writes per account and region, which wake the readers of their streams.
    writes: Arc<Arrivals<WriteScope>>,
    scheduler: Scheduler,
    /// The forwarders of Kinesis streaming destinations, once the service may reach Kinesis.
    feeds: Option<Arc<KinesisFeeds>>,
    /// The other services' capabilities (KMS's keys), once connected.
    late: Option<LateProviders>,
}

impl DynamoDbService {
    /// The service; stored tables with time to live enabled are swept every `ttl_interval`
    /// on `scheduler` from now on (see [`crate::ttl`]).
    pub fn new(storage: Arc<Storage>, scheduler: Scheduler, ttl_interval: Duration) -> DynamoDbService {
        let writes = Arc::new(Arrivals::default());
        let ttl = TtlSweeper::new(storage.clone(), scheduler.clone(), ttl_interval, writes.clone());
        ttl.discover();
        DynamoDbService {
            storage,
            ttl,
            writes,
            scheduler,
            feeds: None,
            late: None,
        }
    }

    /// The service sending its tables' changes to their Kinesis streaming destinations
    /// through the stream writer `late` will hold, on `spawner`; resumes the forwarders of
    /// stored destinations.
    /// The same service using the other services' capabilities: Kinesis streams its tables'
    /// changes are sent to, KMS keys its tables are encrypted under.
    pub fn connected(mut self, late: LateProviders, spawner: Spawner) -> DynamoDbService {
        let feeds = KinesisFeeds::new(
            self.storage.clone(),
            self.scheduler.clone(),
            spawner,
            late.clone(),
            self.writes.clone(),
        );
        feeds.discover();
        self.feeds = Some(feeds);
        self.late = Some(late);
        self
    }

    fn keys(&self) -> Option<&dyn KeyService> {
        self.late.as_ref()?.get()?.keys.as_deref()
    }

    /// The tables' streams, for consumers inside Stratus (Lambda's event source mappings).
    pub fn streams(&self) -> Arc<dyn StreamSource> {
        Arc::new(TableStreams {
            storage: self.storage.clone(),
            clock: self.scheduler.clock().clone(),
            writes: self.writes.clone(),
        })
    }

    /// The service behind the gateway's type-erased handler.
    pub fn into_handler(self) -> Arc<dyn ServiceHandler> {
        Arc::new(Handler(self))
    }

    async fn run<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, DdbError>
    where
        R: Send + 'static,
        F: FnOnce(&Scope) -> Result<R, DdbError> + Send + 'static,
    {
        Scope::run(&self.storage, ctx, body).await
    }

    /// [`run`](Self::run) for an operation that may change items, or close a stream: once it
    /// has committed, the readers of the account and region's streams look again.
    async fn write<R, F>(&self, ctx: &RequestContext, body: F) -> Result<R, DdbError>
    where
        R: Send + 'static,
        F: FnOnce(&Scope) -> Result<R, DdbError> + Send + 'static,
    {
        let answer = self.run(ctx, body).await;
        if answer.is_ok() {
            self.writes.notify((ctx.account_id.clone(), ctx.region.clone()));
        }
        answer
    }
}

/// Updates the table's time to live, and has the sweeper watch the account and region once
/// it is enabled.
async fn create_table(
    service: &DynamoDbService,
    ctx: &RequestContext,
    input: CreateTableInput,
) -> Result<CreateTableOutput, DdbError> {
    let key = match &input.sse_specification {
        Some(spec) => encryption::key_for(service.keys(), ctx, &input.table_name, spec).await?,
        None => None,
    };
    service
        .run(ctx, move |scope| control::create_table(scope, input, key))
        .await
}

async fn update_table(
    service: &DynamoDbService,
    ctx: &RequestContext,
    input: UpdateTableInput,
) -> Result<UpdateTableOutput, DdbError> {
    let key = match &input.sse_specification {
        Some(spec) => Some(encryption::key_for(service.keys(), ctx, &input.table_name, spec).await?),
        None => None,
    };
    service
        .write(ctx, move |scope| control::update_table(scope, input, key))
        .await
}

async fn update_time_to_live(
    service: &DynamoDbService,
    ctx: &RequestContext,
    input: UpdateTimeToLiveInput,
) -> Result<UpdateTimeToLiveOutput, DdbError> {
    let enable = input.time_to_live_specification.enabled;
    let output = service.run(ctx, move |scope| control::update_ttl(scope, input)).await?;
    if enable {
        service.ttl.watch(&ctx.account_id, &ctx.region);
    }
    Ok(output)
}

/// Enables a Kinesis streaming destination of a table: the table must exist, then the
/// stream; once stored, the table's forwarder starts.
async fn enable_kinesis_streaming_destination(
    service: &DynamoDbService,
    ctx: &RequestContext,
    input: KinesisStreamingDestinationInput,
) -> Result<KinesisStreamingDestinationOutput, DdbError> {
    let name = input.table_name.clone();
    let table = service
        .run(ctx, move |scope| {
            kinesis_destinations::named(&*scope.store, &scope.table(&name)).map(|t| t.name)
        })
        .await?;
    let writer = service.feeds.as_ref().and_then(|f| f.writer());
    let caller = Caller::service("dynamodb.amazonaws.com", &ctx.account_id, &ctx.region);
    let exists = match writer {
        Some(writer) => writer.exists(caller, &input.stream_arn).await,
        None => false,
    };
    if !exists {
        return Err(DdbError::ResourceNotFound(format!(
            "Requested resource not found: Stream: {} not found",
            input.stream_arn
        )));
    }
    let output = service
        .write(ctx, move |scope| {
            kinesis_destinations::enable_kinesis_streaming_destination(scope, input)
        })
        .await?;
    if let Some(feeds) = &service.feeds {
        feeds.start(&ctx.account_id, &ctx.region, &table);
    }
    Ok(output)
}

stratus_gen_dynamodb::operations! {
    DynamoDbService;
    create_table => create_table,
    describe_table in run => control::describe_table,
    list_tables in run => control::list_tables,
    delete_table in write => control::delete_table,
    update_table => update_table,
    tag_resource in run => control::tag_resource,
    untag_resource in run => control::untag_resource,
    list_tags_of_resource in run => control::list_tags,
    describe_time_to_live in run => control::describe_ttl,
    update_time_to_live => update_time_to_live,
    describe_continuous_backups in run => control::describe_backups,
    update_continuous_backups in run => control::update_backups,
    describe_limits => fixed_answers::describe_limits,
    describe_endpoints => fixed_answers::describe_endpoints,
    put_item in write => items::put_item,
    get_item in run => items::get_item,
    delete_item in write => items::delete_item,
    update_item in write => items::update_item,
    batch_get_item in run => batch::batch_get_item,
    batch_write_item in write => batch::batch_write_item,
    transact_write_items in write => transact::transact_write_items,
    transact_get_items in run => transact::transact_get_items,
    execute_statement in write => partiql::execute_statement,
    batch_execute_statement in write => partiql::batch_execute_statement,
    execute_transaction in write => partiql::execute_transaction,
    update_contributor_insights in run => settings::update_contributor_insights,
    describe_contributor_insights in run => settings::describe_contributor_insights,
    list_contributor_insights in run => settings::list_contributor_insights,
    put_resource_policy in run => settings::put_resource_policy,
    get_resource_policy in run => settings::get_resource_policy,
    delete_resource_policy in run => settings::delete_resource_policy,
    describe_kinesis_streaming_destination in run => kinesis_destinations::describe_kinesis_streaming_destination,
    enable_kinesis_streaming_destination => enable_kinesis_streaming_destination,
    disable_kinesis_streaming_destination in write => kinesis_destinations::disable_kinesis_streaming_destination,
    update_kinesis_streaming_destination in run => kinesis_destinations::update_kinesis_streaming_destination,
    list_backups => fixed_answers::list_backups,
    describe_backup => fixed_answers::describe_backup,
    delete_backup => fixed_answers::delete_backup,
    list_exports => fixed_answers::list_exports,
    describe_export => fixed_answers::describe_export,
    list_imports => fixed_answers::list_imports,
    describe_import => fixed_answers::describe_import,
    list_global_tables => fixed_answers::list_global_tables,
    describe_global_table => fixed_answers::describe_global_table,
    describe_global_table_settings => fixed_answers::describe_global_table_settings;
    // Query and Scan return their items as JSON transcoded straight from storage
    // (`Value::EncodedJson`), where the typed outputs would decode every item into
    // `AttributeValue`s only for the encoder to write them out again.
    encoded {
        query in run => query::query,
        scan in run => query::scan,
    }
}
