//! Vended-log deliveries: delivery sources, delivery destinations (with their policies) and
//! the deliveries joining them, stored and answered as AWS does. Nothing is delivered:
//! the sources are other AWS services' resources, which produce no logs here.

use stratus_core::arn::Arn;
use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_cloudwatch_logs::*;
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange, Table};

use super::tags::check_tags;
use crate::error::{invalid_token, not_found, validation, Result};
use crate::records::{
    DeliveryDestinationRecord, DeliveryRecord, DeliverySourceRecord, DELIVERIES, DELIVERY_DESTINATIONS,
    DELIVERY_SOURCES,
};
use crate::service::LogsService;

const SOURCE_LISTING: Token = Token::for_listing("logs:DescribeDeliverySources");
const DESTINATION_LISTING: Token = Token::for_listing("logs:DescribeDeliveryDestinations");
const DELIVERY_LISTING: Token = Token::for_listing("logs:DescribeDeliveries");
const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

fn source_missing() -> crate::error::LogsError {
    not_found("Requested Delivery Source does not exist in this account.")
}

fn destination_missing() -> crate::error::LogsError {
    not_found("Requested Delivery Destination does not exist in this account.")
}

fn delivery_missing() -> crate::error::LogsError {
    not_found("Requested Delivery does not exist in this account.")
}

fn arn(ctx: &(String, String), kind: &str, name: &str) -> String {
    Arn::new("logs", &ctx.0, &ctx.1, &format!("{kind}:{name}")).to_string()
}

fn place(ctx: &RequestContext) -> (String, String) {
    (ctx.region.clone(), ctx.account_id.clone())
}

/// What a listing orders by: when each item was first put, then its name.
trait Listed {
    fn order(&self) -> (i64, &str);
}

impl Listed for DeliverySourceRecord {
    fn order(&self) -> (i64, &str) {
        (self.created, &self.name)
    }
}

impl Listed for DeliveryDestinationRecord {
    fn order(&self) -> (i64, &str) {
        (self.created, &self.name)
    }
}

impl Listed for DeliveryRecord {
    fn order(&self) -> (i64, &str) {
        (self.created, &self.id)
    }
}

fn position(item: &impl Listed) -> Vec<u8> {
    let (created, name) = item.order();
    TupleKey::new().i64(created).str(name).into_bytes()
}

/// A page of `table` in the order items were first put, after `token`'s item.
async fn page<T, R>(
    logs: &LogsService,
    ctx: &RequestContext,
    table: Table<T>,
    listing: Token,
    token: Option<String>,
    limit: Option<i32>,
    show: impl Fn(T) -> R + Send + 'static,
) -> Result<(Vec<R>, Option<String>), AwsError>
where
    T: serde::de::DeserializeOwned + serde::Serialize + Listed + Send + 'static,
    R: Send + 'static,
{
    let after = token
        .map(|t| listing.decode(&t).map_err(|_| invalid_token()))
        .transpose()?;
    let size = PAGE.clamp(limit);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let mut items: Vec<T> = table
            .scan(store, &KeyRange::all(), Direction::Forward, None)?
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        items.sort_by(|a, b| a.order().cmp(&b.order()));
        let rest = items
            .into_iter()
            .filter(|item| after.as_ref().is_none_or(|a| position(item) > *a));
        let (page, more) = take_page(rest, size);
        let next = more
            .then(|| page.last().map(|item| listing.encode(&position(item))))
            .flatten();
        Ok((page.into_iter().map(show).collect(), next))
    })
    .await
}

fn source_shape(place: &(String, String), s: DeliverySourceRecord) -> DeliverySource {
    DeliverySource {
        arn: Some(arn(place, "delivery-source", &s.name)),
        resource_arns: Some(vec![s.resource_arn]),
        service: Some(s.service),
        log_type: Some(s.log_type),
        tags: (!s.tags.is_empty()).then_some(s.tags),
        delivery_source_configuration: s.configuration,
        name: Some(s.name),
        ..DeliverySource::default()
    }
}

pub(crate) async fn put_delivery_source(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutDeliverySourceRequest,
) -> Result<PutDeliverySourceResponse, AwsError> {
    let service = Arn::parse(&input.resource_arn).map(|a| a.service);
    // A source is a resource of a service that vends logs; S3 buckets and log groups are
    // destinations, never sources.
    let service = match service {
        Ok(s) if s != "s3" && s != "logs" => s,
        _ => return Err(not_found("Cannot access provided service.").into()),
    };
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let record = DeliverySourceRecord {
        name: input.name,
        resource_arn: input.resource_arn,
        service,
        log_type: input.log_type,
        tags,
        configuration: input.delivery_source_configuration,
        created: ctx.clock.epoch_millis(),
    };
    let record = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut record = record;
            if let Some(existing) = DELIVERY_SOURCES.get(&*tx, record.name.as_bytes())? {
                record.created = existing.created;
            }
            DELIVERY_SOURCES.put(tx, record.name.as_bytes().to_vec(), &record)?;
            Ok(record)
        })
        .await?;
    Ok(PutDeliverySourceResponse {
        delivery_source: Some(source_shape(&place(ctx), record)),
    })
}

pub(crate) async fn get_delivery_source(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetDeliverySourceRequest,
) -> Result<GetDeliverySourceResponse, AwsError> {
    let p = place(ctx);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let s = DELIVERY_SOURCES
            .get(store, input.name.as_bytes())?
            .ok_or_else(source_missing)?;
        let mut shown = source_shape(&p, s);
        shown.tags = None;
        Ok(GetDeliverySourceResponse {
            delivery_source: Some(shown),
        })
    })
    .await
}

pub(crate) async fn describe_delivery_sources(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeDeliverySourcesRequest,
) -> Result<DescribeDeliverySourcesResponse, AwsError> {
    let p = place(ctx);
    let (items, next_token) = page(
        logs,
        ctx,
        DELIVERY_SOURCES,
        SOURCE_LISTING,
        input.next_token,
        input.limit,
        move |s| {
            let mut shown = source_shape(&p, s);
            shown.tags = None;
            shown
        },
    )
    .await?;
    Ok(DescribeDeliverySourcesResponse {
        delivery_sources: Some(items),
        next_token,
    })
}

pub(crate) async fn delete_delivery_source(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteDeliverySourceRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        DELIVERY_SOURCES
            .get(&*tx, input.name.as_bytes())?
            .ok_or_else(source_missing)?;
        DELIVERY_SOURCES.delete(tx, input.name.into_bytes());
        Ok(Unit {})
    })
    .await
}

/// The kind of destination an ARN names: an S3 bucket, a log group, a Firehose stream, X-Ray.
fn destination_kind(resource_arn: &str) -> Result<&'static str> {
    match Arn::parse(resource_arn).map(|a| a.service).as_deref() {
        Ok("s3") => Ok("S3"),
        Ok("logs") => Ok("CWL"),
        Ok("firehose") => Ok("FH"),
        Ok("xray") => Ok("XRAY"),
        _ => Err(validation(
            "The destination resource ARN is not a supported destination.",
        )),
    }
}

fn destination_shape(place: &(String, String), d: DeliveryDestinationRecord) -> DeliveryDestination {
    DeliveryDestination {
        arn: Some(arn(place, "delivery-destination", &d.name)),
        delivery_destination_type: Some(DeliveryDestinationType::from_wire(&d.kind)),
        output_format: d.output_format.as_deref().map(OutputFormat::from_wire),
        delivery_destination_configuration: Some(DeliveryDestinationConfiguration {
            destination_resource_arn: d.resource_arn,
        }),
        // AWS answers a destination without its tags (ListTagsForResource has them).
        tags: None,
        name: Some(d.name),
    }
}

pub(crate) async fn put_delivery_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutDeliveryDestinationRequest,
) -> Result<PutDeliveryDestinationResponse, AwsError> {
    let Some(configuration) = input.delivery_destination_configuration else {
        return Err(validation("deliveryDestinationConfiguration is required.").into());
    };
    let kind = destination_kind(&configuration.destination_resource_arn)?;
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let name = input.name;
    let output_format = input.output_format.map(|f| f.as_str().to_owned());
    let now = ctx.clock.epoch_millis();
    let record = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            // Putting it again changes its resource and format and keeps its policy.
            let existing = DELIVERY_DESTINATIONS.get(&*tx, name.as_bytes())?;
            let record = DeliveryDestinationRecord {
                name,
                kind: kind.to_owned(),
                resource_arn: configuration.destination_resource_arn,
                output_format,
                tags,
                created: existing.as_ref().map_or(now, |d| d.created),
                policy: existing.and_then(|d| d.policy),
            };
            DELIVERY_DESTINATIONS.put(tx, record.name.as_bytes().to_vec(), &record)?;
            Ok(record)
        })
        .await?;
    Ok(PutDeliveryDestinationResponse {
        delivery_destination: Some(destination_shape(&place(ctx), record)),
    })
}

async fn load_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    name: String,
) -> Result<DeliveryDestinationRecord, AwsError> {
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        DELIVERY_DESTINATIONS
            .get(store, name.as_bytes())?
            .ok_or_else(destination_missing)
    })
    .await
}

pub(crate) async fn get_delivery_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetDeliveryDestinationRequest,
) -> Result<GetDeliveryDestinationResponse, AwsError> {
    let d = load_destination(logs, ctx, input.name).await?;
    Ok(GetDeliveryDestinationResponse {
        delivery_destination: Some(destination_shape(&place(ctx), d)),
    })
}

pub(crate) async fn describe_delivery_destinations(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeDeliveryDestinationsRequest,
) -> Result<DescribeDeliveryDestinationsResponse, AwsError> {
    let p = place(ctx);
    let (items, next_token) = page(
        logs,
        ctx,
        DELIVERY_DESTINATIONS,
        DESTINATION_LISTING,
        input.next_token,
        input.limit,
        move |d| destination_shape(&p, d),
    )
    .await?;
    Ok(DescribeDeliveryDestinationsResponse {
        delivery_destinations: Some(items),
        next_token,
    })
}

pub(crate) async fn delete_delivery_destination(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteDeliveryDestinationRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        DELIVERY_DESTINATIONS
            .get(&*tx, input.name.as_bytes())?
            .ok_or_else(destination_missing)?;
        DELIVERY_DESTINATIONS.delete(tx, input.name.into_bytes());
        Ok(Unit {})
    })
    .await
}

/// Sets (or with `None` removes) a delivery destination's policy; answers the policy set.
async fn set_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    name: String,
    policy: Option<String>,
) -> Result<Option<String>, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut d = DELIVERY_DESTINATIONS
            .get(&*tx, name.as_bytes())?
            .ok_or_else(destination_missing)?;
        d.policy = policy.clone();
        DELIVERY_DESTINATIONS.put(tx, name.into_bytes(), &d)?;
        Ok(policy)
    })
    .await
}

pub(crate) async fn put_delivery_destination_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: PutDeliveryDestinationPolicyRequest,
) -> Result<PutDeliveryDestinationPolicyResponse, AwsError> {
    let policy = set_policy(
        logs,
        ctx,
        input.delivery_destination_name,
        Some(input.delivery_destination_policy),
    )
    .await?;
    Ok(PutDeliveryDestinationPolicyResponse {
        policy: Some(Policy {
            delivery_destination_policy: policy,
        }),
    })
}

pub(crate) async fn get_delivery_destination_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetDeliveryDestinationPolicyRequest,
) -> Result<GetDeliveryDestinationPolicyResponse, AwsError> {
    let d = load_destination(logs, ctx, input.delivery_destination_name).await?;
    Ok(GetDeliveryDestinationPolicyResponse {
        policy: Some(Policy {
            delivery_destination_policy: d.policy,
        }),
    })
}

pub(crate) async fn delete_delivery_destination_policy(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteDeliveryDestinationPolicyRequest,
) -> Result<Unit, AwsError> {
    set_policy(logs, ctx, input.delivery_destination_name, None).await?;
    Ok(Unit {})
}

fn delivery_shape(place: &(String, String), d: DeliveryRecord) -> Delivery {
    Delivery {
        arn: Some(arn(place, "delivery", &d.id)),
        delivery_source_name: Some(d.source),
        delivery_destination_arn: Some(d.destination_arn),
        delivery_destination_type: Some(DeliveryDestinationType::from_wire(&d.kind)),
        record_fields: d.record_fields,
        field_delimiter: d.field_delimiter,
        s3_delivery_configuration: (d.suffix_path.is_some() || d.hive_compatible.is_some()).then_some(
            S3DeliveryConfiguration {
                suffix_path: d.suffix_path,
                enable_hive_compatible_path: d.hive_compatible,
            },
        ),
        tags: (!d.tags.is_empty()).then_some(d.tags),
        id: Some(d.id),
    }
}

pub(crate) async fn create_delivery(
    logs: &LogsService,
    ctx: &RequestContext,
    input: CreateDeliveryRequest,
) -> Result<CreateDeliveryResponse, AwsError> {
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let id = stratus_core::id::random_string(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 16);
    let account = ctx.account_id.clone();
    let now = ctx.clock.epoch_millis();
    let record = logs
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            DELIVERY_SOURCES
                .get(&*tx, input.delivery_source_name.as_bytes())?
                .ok_or_else(source_missing)?;
            let destination_name = input
                .delivery_destination_arn
                .rsplit_once(":delivery-destination:")
                .map(|(head, name)| (head.split(':').nth(4) == Some(account.as_str()), name));
            let destination = match destination_name {
                Some((true, name)) => DELIVERY_DESTINATIONS.get(&*tx, name.as_bytes())?,
                _ => None,
            };
            let destination = destination.ok_or_else(destination_missing)?;
            let s3 = input.s3_delivery_configuration;
            let record = DeliveryRecord {
                id,
                source: input.delivery_source_name,
                destination_arn: input.delivery_destination_arn,
                kind: destination.kind,
                record_fields: input.record_fields,
                field_delimiter: input.field_delimiter,
                suffix_path: s3.as_ref().and_then(|c| c.suffix_path.clone()),
                hive_compatible: s3.and_then(|c| c.enable_hive_compatible_path),
                tags,
                created: now,
            };
            DELIVERIES.put(tx, record.id.as_bytes().to_vec(), &record)?;
            Ok(record)
        })
        .await?;
    Ok(CreateDeliveryResponse {
        delivery: Some(delivery_shape(&place(ctx), record)),
    })
}

pub(crate) async fn get_delivery(
    logs: &LogsService,
    ctx: &RequestContext,
    input: GetDeliveryRequest,
) -> Result<GetDeliveryResponse, AwsError> {
    let p = place(ctx);
    logs.read(&ctx.account_id, &ctx.region, move |store| {
        let d = DELIVERIES
            .get(store, input.id.as_bytes())?
            .ok_or_else(delivery_missing)?;
        let mut shown = delivery_shape(&p, d);
        shown.tags = None;
        Ok(GetDeliveryResponse { delivery: Some(shown) })
    })
    .await
}

pub(crate) async fn describe_deliveries(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DescribeDeliveriesRequest,
) -> Result<DescribeDeliveriesResponse, AwsError> {
    let p = place(ctx);
    let (items, next_token) = page(
        logs,
        ctx,
        DELIVERIES,
        DELIVERY_LISTING,
        input.next_token,
        input.limit,
        move |d| {
            let mut shown = delivery_shape(&p, d);
            shown.tags = None;
            shown
        },
    )
    .await?;
    Ok(DescribeDeliveriesResponse {
        deliveries: Some(items),
        next_token,
    })
}

pub(crate) async fn update_delivery_configuration(
    logs: &LogsService,
    ctx: &RequestContext,
    input: UpdateDeliveryConfigurationRequest,
) -> Result<UpdateDeliveryConfigurationResponse, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut d = DELIVERIES
            .get(&*tx, input.id.as_bytes())?
            .ok_or_else(delivery_missing)?;
        if let Some(fields) = input.record_fields {
            d.record_fields = Some(fields);
        }
        if let Some(delimiter) = input.field_delimiter {
            d.field_delimiter = Some(delimiter);
        }
        if let Some(s3) = input.s3_delivery_configuration {
            d.suffix_path = s3.suffix_path.or(d.suffix_path);
            d.hive_compatible = s3.enable_hive_compatible_path.or(d.hive_compatible);
        }
        DELIVERIES.put(tx, input.id.into_bytes(), &d)?;
        Ok(UpdateDeliveryConfigurationResponse {})
    })
    .await
}

pub(crate) async fn delete_delivery(
    logs: &LogsService,
    ctx: &RequestContext,
    input: DeleteDeliveryRequest,
) -> Result<Unit, AwsError> {
    logs.transact(&ctx.account_id, &ctx.region, move |tx| {
        DELIVERIES
            .get(&*tx, input.id.as_bytes())?
            .ok_or_else(delivery_missing)?;
        DELIVERIES.delete(tx, input.id.into_bytes());
        Ok(Unit {})
    })
    .await
}
