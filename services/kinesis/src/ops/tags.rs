//! Tags: the stream operations (AddTagsToStream, RemoveTagsFromStream, ListTagsForStream) and
//! the ARN ones (TagResource, UntagResource, ListTagsForResource) for streams and consumers.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_kinesis::*;
use stratus_storage::Tx;

use crate::error::{invalid_argument, limit_exceeded, Result};
use crate::ops::streams::update_stream;
use crate::service::{of_consumer_arn, KinesisService, StreamAt};
use crate::store::{consumer_key, ConsumerRecord, CONSUMERS, STREAMS};

/// Tags a stream or consumer may carry (Kinesis Data Streams quotas: 50 per stream).
const MAX_TAGS: usize = 50;
/// Tags one AddTagsToStream may add (API reference, AddTagsToStream).
const MAX_TAGS_PER_CALL: usize = 10;

/// Refuses `tags` as the tags of a resource called `name`.
pub(crate) fn check_new_tags(tags: &BTreeMap<String, String>, name: &str, account: &str) -> Result<()> {
    if tags.len() > MAX_TAGS {
        return Err(limit_exceeded(format!(
            "Failed to add tags to stream {name} under account {account} because a given stream cannot have more than {MAX_TAGS} tags associated with it."
        )));
    }
    let rules = TagRules {
        max: MAX_TAGS,
        reserved_prefix: Some("aws:"),
    };
    match check(tags, rules) {
        Ok(()) => Ok(()),
        Err(TagViolation::ReservedPrefix(key)) => Err(invalid_argument(format!(
            "Failed to add tags to stream {name} under account {account}: the tag key {key} uses the reserved prefix aws:."
        ))),
        Err(TagViolation::KeyLength(key)) => Err(invalid_argument(format!(
            "Failed to add tags to stream {name} under account {account}: the tag key {key} must be 1 to 128 characters long."
        ))),
        Err(TagViolation::ValueLength(key)) => Err(invalid_argument(format!(
            "Failed to add tags to stream {name} under account {account}: the value of tag {key} must be at most 256 characters long."
        ))),
        Err(TagViolation::TooMany { .. }) => Err(limit_exceeded(format!(
            "Failed to add tags to stream {name} under account {account} because a given stream cannot have more than {MAX_TAGS} tags associated with it."
        ))),
    }
}

/// Adds `tags` to `existing`, refusing what AWS refuses of the result.
fn merged(
    existing: &mut BTreeMap<String, String>,
    tags: BTreeMap<String, String>,
    name: &str,
    account: &str,
) -> Result<()> {
    let mut all = existing.clone();
    all.extend(tags);
    check_new_tags(&all, name, account)?;
    *existing = all;
    Ok(())
}

fn tag_list(tags: impl IntoIterator<Item = (String, String)>) -> Vec<Tag> {
    tags.into_iter()
        .map(|(key, value)| Tag {
            key,
            value: Some(value),
        })
        .collect()
}

pub(crate) async fn add_tags_to_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: AddTagsToStreamInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    if input.tags.len() > MAX_TAGS_PER_CALL {
        return Err(invalid_argument(format!(
            "Failed to add tags to stream {} under account {} because a given request cannot have more than {MAX_TAGS_PER_CALL} tags associated with it.",
            at.name, at.account
        ))
        .into());
    }
    let tags = input.tags;
    update_stream(kinesis, at, move |at, stream| {
        merged(&mut stream.tags, tags, &at.name, &at.account)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn remove_tags_from_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: RemoveTagsFromStreamInput,
) -> Result<Unit, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let keys = input.tag_keys;
    update_stream(kinesis, at, move |_, stream| {
        for key in &keys {
            stream.tags.remove(key);
        }
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn list_tags_for_stream(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: ListTagsForStreamInput,
) -> Result<ListTagsForStreamOutput, AwsError> {
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let limit = usize::try_from(input.limit.unwrap_or(MAX_TAGS as i32).clamp(1, MAX_TAGS as i32)).unwrap_or(MAX_TAGS);
    let read_at = at.clone();
    let stream = kinesis
        .read(&at.account, &at.region, move |store| read_at.load(store))
        .await?;
    let after = input.exclusive_start_tag_key;
    let mut tags = stream
        .tags
        .into_iter()
        .filter(|(k, _)| after.as_ref().is_none_or(|a| k > a));
    let page: Vec<_> = tags.by_ref().take(limit).collect();
    Ok(ListTagsForStreamOutput {
        tags: tag_list(page),
        has_more_tags: tags.next().is_some(),
    })
}

/// A resource the ARN operations name: a stream, or one of its consumers.
pub(crate) enum Resource {
    Stream(StreamAt),
    Consumer(StreamAt, String),
}

impl Resource {
    pub(crate) fn of_arn(arn: &str) -> Result<Resource> {
        if arn.contains("/consumer/") {
            let (at, name) = of_consumer_arn(arn)?;
            return Ok(Resource::Consumer(at, name));
        }
        Ok(Resource::Stream(StreamAt::of_arn(arn)?))
    }

    fn at(&self) -> &StreamAt {
        match self {
            Resource::Stream(at) | Resource::Consumer(at, _) => at,
        }
    }

    /// The resource's tags and policy.
    pub(crate) async fn view(
        self,
        kinesis: &KinesisService,
    ) -> Result<(BTreeMap<String, String>, Option<String>), AwsError> {
        let at = self.at().clone();
        kinesis
            .read(&at.account, &at.region, move |store| match self {
                Resource::Stream(at) => at.load(store).map(|s| (s.tags, s.policy)),
                Resource::Consumer(at, name) => {
                    at.load(store)?;
                    crate::ops::consumers::find(store, &at, &name).map(|c| (c.tags, c.policy))
                }
            })
            .await
    }

    /// Changes the resource's tags and policy with `change`, in one transaction.
    pub(crate) async fn update<R, F>(self, kinesis: &KinesisService, change: F) -> Result<R, AwsError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Parts<'_>) -> Result<R> + Send + 'static,
    {
        let at = self.at().clone();
        kinesis
            .transact(&at.account, &at.region, move |tx| match self {
                Resource::Stream(at) => {
                    let mut stream = at.load(&*tx)?;
                    let answer = change(&mut Parts {
                        name: &at.name,
                        account: &at.account,
                        tags: &mut stream.tags,
                        policy: &mut stream.policy,
                    })?;
                    STREAMS.put(tx, at.name.as_bytes(), &stream)?;
                    Ok(answer)
                }
                Resource::Consumer(at, name) => {
                    let mut consumer = load_consumer(&*tx, &at, &name)?;
                    let answer = change(&mut Parts {
                        name: &name,
                        account: &at.account,
                        tags: &mut consumer.tags,
                        policy: &mut consumer.policy,
                    })?;
                    CONSUMERS.put(tx, consumer_key(&at.name, &name), &consumer)?;
                    Ok(answer)
                }
            })
            .await
    }
}

fn load_consumer(tx: &Tx<'_>, at: &StreamAt, name: &str) -> Result<ConsumerRecord> {
    at.load(tx)?;
    crate::ops::consumers::find(tx, at, name)
}

/// What the ARN operations change of a stream or a consumer.
pub(crate) struct Parts<'a> {
    pub name: &'a str,
    pub account: &'a str,
    pub tags: &'a mut BTreeMap<String, String>,
    pub policy: &'a mut Option<String>,
}

pub(crate) async fn tag_resource(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: TagResourceInput,
) -> Result<Unit, AwsError> {
    let tags = input.tags;
    Resource::of_arn(&input.resource_arn)?
        .update(kinesis, move |parts| {
            merged(parts.tags, tags, parts.name, parts.account)?;
            Ok(Unit {})
        })
        .await
}

pub(crate) async fn untag_resource(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: UntagResourceInput,
) -> Result<Unit, AwsError> {
    let keys = input.tag_keys;
    Resource::of_arn(&input.resource_arn)?
        .update(kinesis, move |parts| {
            for key in &keys {
                parts.tags.remove(key);
            }
            Ok(Unit {})
        })
        .await
}

pub(crate) async fn list_tags_for_resource(
    kinesis: &KinesisService,
    _ctx: &RequestContext,
    input: ListTagsForResourceInput,
) -> Result<ListTagsForResourceOutput, AwsError> {
    let (tags, _) = Resource::of_arn(&input.resource_arn)?.view(kinesis).await?;
    Ok(ListTagsForResourceOutput {
        tags: Some(tag_list(tags)),
    })
}
