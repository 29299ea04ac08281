//! CreateDeliveryStream, DeleteDeliveryStream, DescribeDeliveryStream and
//! ListDeliveryStreams.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use stratus_core::arn::Arn;
use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_firehose::{
    CreateDeliveryStreamOutput, DeleteDeliveryStreamInput, DeleteDeliveryStreamOutput, DescribeDeliveryStreamInput,
    ListDeliveryStreamsInput, ListDeliveryStreamsOutput,
};

use crate::buffer::discard;
use crate::destination;
use crate::error::{in_use, invalid_argument, limit_exceeded, not_served, FirehoseError};
use crate::kinesis_source::{forget_checkpoints, starting_positions, store_checkpoints};
use crate::records::{Destination, KinesisSource, StreamRecord, StreamState, STREAMS};
use crate::service::{FirehoseService, StreamKey};
use crate::{checks, describe};

/// Firehose's quota of delivery streams per account and region.
const MAX_STREAMS: usize = 5_000;
/// Tags per delivery stream.
pub(crate) const MAX_TAGS: usize = 50;

/// The tag rules TagDeliveryStream and CreateDeliveryStream apply.
pub(crate) fn check_tags(tags: &BTreeMap<String, Option<String>>) -> Result<(), FirehoseError> {
    let plain: BTreeMap<String, String> = tags
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().unwrap_or_default()))
        .collect();
    let rules = TagRules {
        max: MAX_TAGS,
        reserved_prefix: Some("aws:"),
    };
    match check(&plain, rules) {
        Ok(()) => Ok(()),
        Err(TagViolation::TooMany { max, .. }) => Err(limit_exceeded(format!(
            "The number of tags for the delivery stream exceeds the limit of {max}."
        ))),
        Err(TagViolation::ReservedPrefix(key)) => Err(invalid_argument(format!(
            "The tag key {key} starts with the reserved prefix aws:."
        ))),
        Err(TagViolation::KeyLength(key) | TagViolation::ValueLength(key)) => Err(invalid_argument(format!(
            "The tag {key} is longer than the tag length limits allow."
        ))),
    }
}

/// The tags of a `Tags` list as JSON.
pub(crate) fn tags_of(list: Option<&Value>) -> BTreeMap<String, Option<String>> {
    list.and_then(Value::as_array)
        .map(|tags| {
            tags.iter()
                .filter_map(|t| {
                    let key = t["Key"].as_str()?.to_owned();
                    Some((key, t["Value"].as_str().map(str::to_owned)))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// CreateDeliveryStream, from its input as JSON (the destination's configuration is stored as
/// the client wrote it).
pub(crate) async fn create_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: Map<String, Value>,
) -> Result<CreateDeliveryStreamOutput, AwsError> {
    let name = input["DeliveryStreamName"].as_str().unwrap_or_default().to_owned();
    let stream_type = input
        .get("DeliveryStreamType")
        .and_then(Value::as_str)
        .unwrap_or("DirectPut")
        .to_owned();
    match stream_type.as_str() {
        "MSKAsSource" => return Err(not_served("Amazon MSK as a source (MSKAsSource)").into()),
        "DatabaseAsSource" => return Err(not_served("Databases as a source (DatabaseAsSource)").into()),
        _ => {}
    }
    let kinesis_config = input.get("KinesisStreamSourceConfiguration");
    let kinesis = stream_type == "KinesisStreamAsSource";
    if kinesis && kinesis_config.is_none() {
        return Err(invalid_argument(
            "KinesisStreamSourceConfiguration is required when DeliveryStreamType is KinesisStreamAsSource.",
        )
        .into());
    }
    if !kinesis && kinesis_config.is_some() {
        return Err(invalid_argument(
            "KinesisStreamSourceConfiguration can only be given when DeliveryStreamType is KinesisStreamAsSource.",
        )
        .into());
    }
    for (member, source) in [
        ("MSKSourceConfiguration", "MSKAsSource"),
        ("DatabaseSourceConfiguration", "DatabaseAsSource"),
    ] {
        if input.contains_key(member) {
            return Err(invalid_argument(format!(
                "{member} can only be given when DeliveryStreamType is {source}."
            ))
            .into());
        }
    }
    let [(kind, config)] = &destination::configured(&input)[..] else {
        return Err(invalid_argument("Exactly one destination configuration must be specified.").into());
    };
    checks::destination(*kind, config)?;
    let encryption =
        match input.get("DeliveryStreamEncryptionConfigurationInput") {
            Some(_) if kinesis => return Err(invalid_argument(
                "Server-side encryption is not supported for a delivery stream whose source is a Kinesis data stream.",
            )
            .into()),
            Some(requested) => Some(crate::ops::encryption::requested(requested, firehose.now_ms())?),
            None => None,
        };
    let tags = tags_of(input.get("Tags"));
    check_tags(&tags)?;
    let arn = Arn::new(
        "firehose",
        &ctx.region,
        &ctx.account_id,
        &format!("deliverystream/{name}"),
    )
    .to_string();
    let now = firehose.now_ms();
    let (source, positions) = match kinesis_config {
        Some(config) => {
            let stream_arn = config["KinesisStreamARN"].as_str().unwrap_or_default().to_owned();
            let role_arn = config["RoleARN"].as_str().unwrap_or_default().to_owned();
            let positions = starting_positions(firehose, &ctx.account_id, &ctx.region, &stream_arn).await?;
            let source = KinesisSource {
                stream_arn,
                role_arn,
                started_ms: now,
            };
            (Some(source), positions)
        }
        None => (None, Vec::new()),
    };
    let record = StreamRecord {
        name: name.clone(),
        arn: arn.clone(),
        stream_type,
        created_ms: now,
        version: 1,
        updated_ms: None,
        deleting_since_ms: None,
        destination: Destination {
            kind: *kind,
            config: config.clone(),
        },
        kinesis: source.clone(),
        direct_put: input.get("DirectPutSourceConfiguration").cloned(),
        encryption,
        tags,
    };
    let account = ctx.account_id.clone();
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let streams = STREAMS.scan_prefix(tx, [])?;
            if let Some((_, existing)) = streams.iter().find(|(_, s)| s.name == record.name) {
                if existing.state(now) != StreamState::Gone {
                    return Err(in_use(format!(
                        "Firehose {} under accountId {account} already exists",
                        record.name
                    )));
                }
                discard(tx, &record.name)?;
                forget_checkpoints(tx, &record.name)?;
            }
            if streams
                .iter()
                .filter(|(_, s)| s.state(now) != StreamState::Gone)
                .count()
                >= MAX_STREAMS
            {
                return Err(limit_exceeded(format!(
                    "You have already consumed your firehose quota of {MAX_STREAMS} hoses."
                )));
            }
            store_checkpoints(tx, &record.name, &positions)?;
            STREAMS.put(tx, record.name.as_bytes(), &record)?;
            Ok(())
        })
        .await?;
    if let Some(source) = source {
        let key = StreamKey {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
            name,
        };
        firehose.start_reading(key, source);
    }
    Ok(CreateDeliveryStreamOutput {
        delivery_stream_arn: Some(arn),
    })
}

pub(crate) async fn delete_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: DeleteDeliveryStreamInput,
) -> Result<DeleteDeliveryStreamOutput, AwsError> {
    let now = firehose.now_ms();
    let (name, account) = (input.delivery_stream_name.clone(), ctx.account_id.clone());
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = crate::service::load_stream(tx, &name, &account, now)?;
            match stream.state(now) {
                StreamState::Creating => {
                    return Err(in_use(format!(
                        "Firehose {name} under account {account} is in CREATING state and cannot be deleted."
                    )))
                }
                StreamState::Deleting => return Ok(()),
                _ => {}
            }
            stream.deleting_since_ms = Some(now);
            discard(tx, &name)?;
            forget_checkpoints(tx, &name)?;
            STREAMS.put(tx, name.as_bytes(), &stream)?;
            Ok(())
        })
        .await?;
    firehose.stop_reading(&StreamKey {
        account: ctx.account_id.clone(),
        region: ctx.region.clone(),
        name: input.delivery_stream_name,
    });
    Ok(DeleteDeliveryStreamOutput {})
}

/// DescribeDeliveryStream, answered with its description already JSON.
pub(crate) async fn describe_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: DescribeDeliveryStreamInput,
) -> Result<stratus_core::Value, AwsError> {
    let (stream, state) = firehose.existing(ctx, &input.delivery_stream_name).await?;
    let now = firehose.now_ms();
    let skip_all = input
        .exclusive_start_destination_id
        .as_deref()
        .is_some_and(|id| id >= crate::records::DESTINATION_ID);
    let description = describe::stream(&stream, state, now, skip_all);
    Ok(stratus_core::Value::Struct(vec![Some(
        stratus_core::Value::EncodedJson(description.to_string()),
    )]))
}

pub(crate) async fn list_delivery_streams(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: ListDeliveryStreamsInput,
) -> Result<ListDeliveryStreamsOutput, AwsError> {
    let now = firehose.now_ms();
    let limit = usize::try_from(input.limit.unwrap_or(10)).unwrap_or(10);
    let wanted = input.delivery_stream_type.as_ref().map(|t| t.as_str().to_owned());
    let after = input.exclusive_start_delivery_stream_name;
    let names = firehose
        .read(&ctx.account_id, &ctx.region, move |store| {
            Ok(STREAMS
                .scan_prefix(store, [])?
                .into_iter()
                .map(|(_, s)| s)
                .filter(|s| s.state(now) != StreamState::Gone)
                .filter(|s| wanted.as_ref().is_none_or(|t| &s.stream_type == t))
                .filter(|s| after.as_ref().is_none_or(|a| s.name.as_str() > a.as_str()))
                .map(|s| s.name)
                .collect::<Vec<_>>())
        })
        .await?;
    let more = names.len() > limit;
    Ok(ListDeliveryStreamsOutput {
        delivery_stream_names: names.into_iter().take(limit).collect(),
        has_more_delivery_streams: more,
    })
}
