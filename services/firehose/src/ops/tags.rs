//! TagDeliveryStream, UntagDeliveryStream and ListTagsForDeliveryStream.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_firehose::{
    ListTagsForDeliveryStreamInput, ListTagsForDeliveryStreamOutput, Tag, TagDeliveryStreamInput,
    TagDeliveryStreamOutput, UntagDeliveryStreamInput, UntagDeliveryStreamOutput,
};

use crate::ops::streams::{check_tags, MAX_TAGS};
use crate::records::STREAMS;
use crate::service::{load_stream, FirehoseService};

pub(crate) async fn tag_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: TagDeliveryStreamInput,
) -> Result<TagDeliveryStreamOutput, AwsError> {
    let (now, account) = (firehose.now_ms(), ctx.account_id.clone());
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = load_stream(tx, &input.delivery_stream_name, &account, now)?;
            for tag in input.tags {
                stream.tags.insert(tag.key, tag.value);
            }
            check_tags(&stream.tags)?;
            STREAMS.put(tx, stream.name.as_bytes(), &stream)?;
            Ok(())
        })
        .await?;
    Ok(TagDeliveryStreamOutput {})
}

pub(crate) async fn untag_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: UntagDeliveryStreamInput,
) -> Result<UntagDeliveryStreamOutput, AwsError> {
    let (now, account) = (firehose.now_ms(), ctx.account_id.clone());
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = load_stream(tx, &input.delivery_stream_name, &account, now)?;
            for key in &input.tag_keys {
                stream.tags.remove(key);
            }
            STREAMS.put(tx, stream.name.as_bytes(), &stream)?;
            Ok(())
        })
        .await?;
    Ok(UntagDeliveryStreamOutput {})
}

pub(crate) async fn list_tags_for_delivery_stream(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: ListTagsForDeliveryStreamInput,
) -> Result<ListTagsForDeliveryStreamOutput, AwsError> {
    let (stream, _) = firehose.existing(ctx, &input.delivery_stream_name).await?;
    let limit = usize::try_from(input.limit.unwrap_or(MAX_TAGS as i32)).unwrap_or(MAX_TAGS);
    let after = input.exclusive_start_tag_key;
    let tags: Vec<Tag> = stream
        .tags
        .into_iter()
        .filter(|(key, _)| after.as_ref().is_none_or(|a| key > a))
        .map(|(key, value)| Tag { key, value })
        .collect();
    let more = tags.len() > limit;
    Ok(ListTagsForDeliveryStreamOutput {
        tags: tags.into_iter().take(limit).collect(),
        has_more_tags: more,
    })
}
