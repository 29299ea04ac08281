//! Topics: create, delete, attributes, listing, permissions and data protection policies.

use stratus_core::paging::{take_page, Token};
use stratus_core::{RequestContext, Unit};
use stratus_gen_sns::*;
use stratus_storage::{Direction, KeyRange};

use crate::error::{invalid_parameter, resource_not_found, SnsError};
use crate::names::TopicRef;
use crate::ops::tags::{check_new_tags, tag_map};
use crate::service::SnsService;
use crate::store::{counts, load_topic, topic_subscriptions, SUBSCRIPTIONS, TOKENS, TOPICS};
use crate::topics::{self, TopicRecord};

const TOPIC_LISTING: Token = Token::for_listing("sns:ListTopics");
const PAGE: usize = 100;

pub(crate) async fn create_topic(
    sns: &SnsService,
    ctx: &RequestContext,
    input: CreateTopicInput,
) -> Result<CreateTopicResponse, SnsError> {
    let mut attributes = input.attributes.unwrap_or_default();
    let fifo = topics::wants_fifo(&attributes);
    topics::check_name(&input.name, fifo)?;
    if !fifo {
        // `FifoTopic=false` is the default and is not kept.
        attributes.remove("FifoTopic");
    }
    for (name, value) in &attributes {
        topics::check_attribute(name, value, fifo, true)?;
    }
    if let Some(policy) = &input.data_protection_policy {
        topics::check_attribute("DataProtectionPolicy", policy, fifo, true)?;
    }
    let tags = tag_map(input.tags.unwrap_or_default())?;
    check_new_tags(&tags)?;
    let topic = TopicRef::local(ctx, &input.name);
    let arn = topic.arn();
    let name = input.name.clone();
    let data_protection = input.data_protection_policy;
    sns.transact(&topic.account, &topic.region, move |tx| {
        if let Some(existing) = TOPICS.get(tx, &name)? {
            let differs = attributes.iter().any(|(k, v)| existing.attributes.get(k) != Some(v));
            if differs {
                return Err(invalid_parameter(
                    "Attributes Reason: Topic already exists with different attributes",
                ));
            }
            // Fewer tags are fine; one the topic does not have is not.
            if tags.iter().any(|(k, v)| existing.tags.get(k) != Some(v)) {
                return Err(invalid_parameter(
                    "Tags Reason: Topic already exists with different tags",
                ));
            }
            return Ok(());
        }
        let mut record = TopicRecord::new(&name, attributes, tags);
        record.data_protection_policy = data_protection;
        TOPICS.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateTopicResponse { topic_arn: Some(arn) })
}

pub(crate) async fn delete_topic(
    sns: &SnsService,
    ctx: &RequestContext,
    input: DeleteTopicInput,
) -> Result<Unit, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let name = topic.name.clone();
    sns.transact(&topic.account, &topic.region, move |tx| {
        // Deleting a topic that does not exist succeeds, as on AWS.
        if TOPICS.get(tx, &name)?.is_none() {
            return Ok(());
        }
        for (key, sub) in topic_subscriptions(tx, &name)? {
            if let Some(token) = &sub.token {
                TOKENS.delete(tx, token.as_bytes().to_vec());
            }
            SUBSCRIPTIONS.delete(tx, key);
        }
        TOPICS.delete(tx, name.as_bytes().to_vec());
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_topic_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetTopicAttributesInput,
) -> Result<GetTopicAttributesResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let store = sns.store(&topic.account, &topic.region)?;
    let record = load_topic(&*store, &topic.name)?;
    let subs = topic_subscriptions(&*store, &topic.name)?;
    Ok(GetTopicAttributesResponse {
        attributes: Some(record.attributes(&topic, counts(&subs))),
    })
}

pub(crate) async fn set_topic_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SetTopicAttributesInput,
) -> Result<Unit, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let value = input.attribute_value.unwrap_or_default();
    let name = input.attribute_name;
    update(sns, &topic, move |record| {
        topics::check_attribute(&name, &value, record.is_fifo(), false)?;
        if value.is_empty() && matches!(name.as_str(), "Policy" | "DeliveryPolicy" | "KmsMasterKeyId") {
            record.attributes.remove(&name);
        } else {
            record.attributes.insert(name, value);
        }
        Ok(())
    })
    .await
}

pub(crate) async fn list_topics(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ListTopicsInput,
) -> Result<ListTopicsResponse, SnsError> {
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let start = match &input.next_token {
        Some(token) => Some(
            TOPIC_LISTING
                .decode_str(token)
                .map_err(|_| invalid_parameter("NextToken"))?,
        ),
        None => None,
    };
    let range = match &start {
        Some(after) => {
            let mut from = after.as_bytes().to_vec();
            from.push(0);
            KeyRange::new(from..)
        }
        None => KeyRange::all(),
    };
    let found = TOPICS.scan(&*store, &range, Direction::Forward, Some(PAGE + 1))?;
    let (page, more) = take_page(found, PAGE);
    let next_token = more
        .then(|| page.last().map(|(_, t)| TOPIC_LISTING.encode_str(&t.name)))
        .flatten();
    let topics = page
        .into_iter()
        .map(|(_, t)| Topic {
            topic_arn: Some(TopicRef::local(ctx, &t.name).arn()),
        })
        .collect();
    Ok(ListTopicsResponse {
        topics: Some(topics),
        next_token,
    })
}

pub(crate) async fn add_permission(
    sns: &SnsService,
    ctx: &RequestContext,
    input: AddPermissionInput,
) -> Result<Unit, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let t = topic.clone();
    update(sns, &topic, move |record| {
        let policy = topics::add_statement(
            &record.policy(&t),
            &t,
            &input.label,
            &input.aws_account_id,
            &input.action_name,
        )?;
        record.attributes.insert("Policy".into(), policy);
        Ok(())
    })
    .await
}

pub(crate) async fn remove_permission(
    sns: &SnsService,
    ctx: &RequestContext,
    input: RemovePermissionInput,
) -> Result<Unit, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let t = topic.clone();
    update(sns, &topic, move |record| {
        let policy = topics::remove_statement(&record.policy(&t), &input.label)?;
        record.attributes.insert("Policy".into(), policy);
        Ok(())
    })
    .await
}

pub(crate) async fn get_data_protection_policy(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetDataProtectionPolicyInput,
) -> Result<GetDataProtectionPolicyResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "ResourceArn", &input.resource_arn)?;
    let store = sns.store(&topic.account, &topic.region)?;
    let record = TOPICS.get(&*store, &topic.name)?.ok_or_else(resource_not_found)?;
    Ok(GetDataProtectionPolicyResponse {
        data_protection_policy: record.data_protection_policy,
    })
}

pub(crate) async fn put_data_protection_policy(
    sns: &SnsService,
    ctx: &RequestContext,
    input: PutDataProtectionPolicyInput,
) -> Result<Unit, SnsError> {
    let topic = TopicRef::parse(ctx, "ResourceArn", &input.resource_arn)?;
    let policy = input.data_protection_policy;
    if !policy.is_empty() && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&policy).is_err() {
        return Err(invalid_parameter("DataProtectionPolicy Reason: failed to parse JSON"));
    }
    let name = topic.name.clone();
    sns.transact(&topic.account, &topic.region, move |tx| {
        let mut record = TOPICS.get(tx, &name)?.ok_or_else(resource_not_found)?;
        record.data_protection_policy = (!policy.is_empty()).then_some(policy);
        TOPICS.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

/// Applies `change` to `topic`'s record in one transaction.
pub(crate) async fn update<F>(sns: &SnsService, topic: &TopicRef, change: F) -> Result<Unit, SnsError>
where
    F: FnOnce(&mut TopicRecord) -> Result<(), SnsError> + Send + 'static,
{
    let name = topic.name.clone();
    sns.transact(&topic.account, &topic.region, move |tx| {
        let mut record = load_topic(tx, &name)?;
        change(&mut record)?;
        TOPICS.put(tx, name.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}
