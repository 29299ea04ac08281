//! Subscriptions: subscribe, confirm, unsubscribe, attributes and listings.

use base64::Engine;
use stratus_core::paging::{take_page, Token};
use stratus_core::{hex, id, RequestContext, Unit};
use stratus_gen_sns::*;
use stratus_storage::{Direction, KeyRange, Read};

use crate::delivery::{Delivery, Target};
use crate::envelope;
use crate::error::{invalid_parameter, subscription_not_found, SnsError};
use crate::filter;
use crate::http;
use crate::names::{principal_arn, SubscriptionRef, TopicRef};
use crate::ops::endpoint_of;
use crate::service::SnsService;
use crate::signing::Signing;
use crate::store::{
    load_topic, read_subscription_key, subscription_key, topic_prefix, topic_subscriptions, TokenEntry, SUBSCRIPTIONS,
    TOKENS, TOPICS,
};
use crate::subscriptions::{self, SubscriptionRecord};

const SUBSCRIPTION_LISTING: Token = Token::for_listing("sns:ListSubscriptions");
const TOPIC_SUBSCRIPTION_LISTING: Token = Token::for_listing("sns:ListSubscriptionsByTopic");
const PAGE: usize = 100;

/// What Subscribe answers for a subscription waiting for confirmation.
const PENDING: &str = "pending confirmation";

pub(crate) async fn subscribe(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SubscribeInput,
) -> Result<SubscribeResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let protocol = input.protocol;
    let endpoint = input.endpoint.unwrap_or_default();
    subscriptions::check_endpoint(&protocol, &endpoint, &ctx.region)?;
    let attributes = input.attributes.unwrap_or_default();
    for (name, value) in &attributes {
        subscriptions::check_attribute(name, value, &protocol)
            .map_err(|m| invalid_parameter(format!("Attributes Reason: {m}")))?;
    }
    filter::check(&attributes, true)?;
    let mut attributes = attributes;
    subscriptions::normalize(&mut attributes);
    if protocol == "sqs" && endpoint.ends_with(".fifo") && !topic.is_fifo() {
        return Err(invalid_parameter(
            "Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics",
        ));
    }
    let record = SubscriptionRecord {
        id: id::uuid(),
        protocol: protocol.clone(),
        endpoint: endpoint.clone(),
        owner: ctx.account_id.clone(),
        principal: principal_arn(ctx),
        attributes,
        pending: !subscriptions::confirmed_at_once(&protocol),
        token: None,
    };
    check_fifo_redrive(&topic, &record)?;
    let t = topic.clone();
    let return_arn = input.return_subscription_arn;
    let outbox = sns.shared.deliveries.clone();
    let (endpoint_url, now) = (endpoint_of(ctx), sns.now_ms());
    let (id, pending, confirming) = sns
        .transact(&topic.account, &topic.region, move |tx| {
            let topic_record = load_topic(tx, &t.name)?;
            for (_, existing) in topic_subscriptions(tx, &t.name)? {
                if existing.protocol == record.protocol && existing.endpoint == record.endpoint {
                    if existing.differs_from(&record.attributes) {
                        return Err(invalid_parameter(
                            "Attributes Reason: Subscription already exists with different attributes",
                        ));
                    }
                    return Ok((existing.id, existing.pending, false));
                }
            }
            let mut record = record;
            if record.pending {
                let token = hex::encode(&(0..4).flat_map(|_| id::random_u64().to_be_bytes()).collect::<Vec<u8>>());
                TOKENS.put(
                    tx,
                    token.as_bytes().to_vec(),
                    &TokenEntry {
                        topic: t.name.clone(),
                        id: record.id.clone(),
                    },
                )?;
                if matches!(record.protocol.as_str(), "http" | "https") {
                    let version = topic_record.signature_version();
                    let confirmation = confirmation(&t, &record, &token, &endpoint_url, now, version);
                    outbox.put(tx, confirmation)?;
                }
                record.token = Some(token);
            }
            SUBSCRIPTIONS.put(tx, subscription_key(&t.name, &record.id), &record)?;
            let confirming = record.pending && matches!(record.protocol.as_str(), "http" | "https");
            Ok((record.id, record.pending, confirming))
        })
        .await?;
    if confirming {
        sns.shared.deliveries.wake(&topic.account, &topic.region);
    }
    let arn = SubscriptionRef { topic, id }.arn();
    Ok(SubscribeResponse {
        subscription_arn: Some(if pending && !return_arn {
            PENDING.to_owned()
        } else {
            arn
        }),
    })
}

/// The `SubscriptionConfirmation` an `http` or `https` subscription's endpoint receives.
fn confirmation(
    topic: &TopicRef,
    record: &SubscriptionRecord,
    token: &str,
    endpoint: &str,
    now_ms: i64,
    signature_version: &str,
) -> Delivery {
    let topic_arn = topic.arn();
    let message_id = id::uuid();
    Delivery {
        subscription_arn: format!("{topic_arn}:{}", record.id),
        body: envelope::subscription_confirmation(&message_id, token, &topic_arn, endpoint, now_ms, signature_version),
        target: Target::Http(http::Post {
            url: record.endpoint.clone(),
            message_type: "SubscriptionConfirmation".to_owned(),
            message_id,
            topic_arn,
            subscription_arn: None,
            raw: false,
        }),
        attributes: Default::default(),
        group_id: None,
        dedup_id: None,
        dead_letter: None,
        signing: Some(Signing {
            version: signature_version.to_owned(),
            endpoint: endpoint.to_owned(),
        }),
    }
}

/// A FIFO subscription (a FIFO queue on a FIFO topic) dead-letters into a FIFO queue only.
fn check_fifo_redrive(topic: &TopicRef, record: &SubscriptionRecord) -> Result<(), SnsError> {
    let fifo_subscription = topic.is_fifo() && record.endpoint.ends_with(".fifo");
    if fifo_subscription && record.dead_letter_queue().is_some_and(|q| !q.ends_with(".fifo")) {
        return Err(invalid_parameter(
            "RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.",
        ));
    }
    Ok(())
}

pub(crate) async fn confirm_subscription(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ConfirmSubscriptionInput,
) -> Result<ConfirmSubscriptionResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "Topic", &input.topic_arn).map_err(|_| invalid_parameter("Topic"))?;
    if input.token.is_empty() || !input.token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(crate::error::invalid_parameter_raw("Invalid token"));
    }
    let t = topic.clone();
    let token = input.token;
    let id = sns
        .transact(&topic.account, &topic.region, move |tx| {
            let entry = TOKENS
                .get(tx, token.as_bytes())?
                .filter(|e| e.topic == t.name)
                .ok_or_else(|| invalid_parameter("Token"))?;
            let key = subscription_key(&t.name, &entry.id);
            let mut record = SUBSCRIPTIONS.get(tx, &key)?.ok_or_else(|| invalid_parameter("Token"))?;
            record.pending = false;
            record.token = None;
            SUBSCRIPTIONS.put(tx, key, &record)?;
            TOKENS.delete(tx, token.as_bytes().to_vec());
            Ok(entry.id)
        })
        .await?;
    Ok(ConfirmSubscriptionResponse {
        subscription_arn: Some(SubscriptionRef { topic, id }.arn()),
    })
}

pub(crate) async fn unsubscribe(
    sns: &SnsService,
    ctx: &RequestContext,
    input: UnsubscribeInput,
) -> Result<Unit, SnsError> {
    let sub = SubscriptionRef::parse(ctx, &input.subscription_arn)?;
    let (topic, id) = (sub.topic.name.clone(), sub.id.clone());
    sns.transact(&sub.topic.account, &sub.topic.region, move |tx| {
        let key = subscription_key(&topic, &id);
        // Unsubscribing twice succeeds, as on AWS.
        let Some(record) = SUBSCRIPTIONS.get(tx, &key)? else {
            return Ok(());
        };
        if let Some(token) = &record.token {
            TOKENS.delete(tx, token.as_bytes().to_vec());
        }
        SUBSCRIPTIONS.delete(tx, key);
        if let Some(mut t) = TOPICS.get(tx, &topic)? {
            t.subscriptions_deleted += 1;
            TOPICS.put(tx, topic.as_bytes(), &t)?;
        }
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

fn load_subscription(r: &(impl Read + ?Sized), sub: &SubscriptionRef) -> Result<SubscriptionRecord, SnsError> {
    SUBSCRIPTIONS
        .get(r, subscription_key(&sub.topic.name, &sub.id))?
        .ok_or_else(subscription_not_found)
}

pub(crate) async fn get_subscription_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetSubscriptionAttributesInput,
) -> Result<GetSubscriptionAttributesResponse, SnsError> {
    let sub = SubscriptionRef::parse(ctx, &input.subscription_arn)?;
    let store = sns.store(&sub.topic.account, &sub.topic.region)?;
    let record = load_subscription(&*store, &sub)?;
    Ok(GetSubscriptionAttributesResponse {
        attributes: Some(record.attributes(&sub)),
    })
}

pub(crate) async fn set_subscription_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SetSubscriptionAttributesInput,
) -> Result<Unit, SnsError> {
    let sub = SubscriptionRef::parse(ctx, &input.subscription_arn)?;
    let name = input.attribute_name;
    let value = input.attribute_value.unwrap_or_default();
    let s = sub.clone();
    sns.transact(&sub.topic.account, &sub.topic.region, move |tx| {
        let mut record = load_subscription(tx, &s)?;
        let removes = value.is_empty() && matches!(name.as_str(), "FilterPolicy" | "RedrivePolicy" | "DeliveryPolicy");
        if removes {
            record.attributes.remove(&name);
        } else {
            subscriptions::check_attribute(&name, &value, &record.protocol).map_err(invalid_parameter)?;
            record.attributes.insert(name, value);
            subscriptions::normalize(&mut record.attributes);
            check_fifo_redrive(&s.topic, &record)?;
        }
        // A new policy, or a new scope for the one there, is checked under that scope.
        filter::check(&record.attributes, false)?;
        SUBSCRIPTIONS.put(tx, subscription_key(&s.topic.name, &s.id), &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

/// One subscription as the listings show it.
fn listed(ctx: &RequestContext, topic: &str, record: SubscriptionRecord) -> Subscription {
    let topic = TopicRef::local(ctx, topic);
    Subscription {
        subscription_arn: Some(if record.pending {
            "PendingConfirmation".to_owned()
        } else {
            format!("{}:{}", topic.arn(), record.id)
        }),
        owner: Some(record.owner),
        protocol: Some(record.protocol),
        endpoint: Some(record.endpoint),
        topic_arn: Some(topic.arn()),
    }
}

/// Subscriptions with their keys.
type Keyed = Vec<(Vec<u8>, SubscriptionRecord)>;

/// A page of `SUBSCRIPTIONS` under `prefix`, after the key `token` names.
fn page(
    r: &(impl Read + ?Sized),
    listing: Token,
    prefix: &[u8],
    token: Option<&str>,
) -> Result<(Keyed, Option<String>), SnsError> {
    let range = match token {
        Some(token) => {
            let mut after = base64::engine::general_purpose::STANDARD
                .decode(token)
                .ok()
                .and_then(|t| String::from_utf8(t).ok())
                .and_then(|t| listing.decode(&t).ok())
                .ok_or_else(|| invalid_parameter("NextToken"))?;
            after.push(0);
            let end = KeyRange::prefix(prefix);
            KeyRange::between(std::ops::Bound::Included(&after), end.end())
        }
        None => KeyRange::prefix(prefix),
    };
    let found = SUBSCRIPTIONS.scan(r, &range, Direction::Forward, Some(PAGE + 1))?;
    let (page, more) = take_page(found, PAGE);
    // AWS's tokens are base64; ours are the sealed position, so written.
    let next = more
        .then(|| {
            page.last()
                .map(|(k, _)| base64::engine::general_purpose::STANDARD.encode(listing.encode(k)))
        })
        .flatten();
    Ok((page, next))
}

pub(crate) async fn list_subscriptions(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ListSubscriptionsInput,
) -> Result<ListSubscriptionsResponse, SnsError> {
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let (found, next_token) = page(&*store, SUBSCRIPTION_LISTING, &[], input.next_token.as_deref())?;
    let subscriptions = found
        .into_iter()
        .filter_map(|(key, record)| read_subscription_key(&key).map(|(topic, _)| listed(ctx, &topic, record)))
        .collect();
    Ok(ListSubscriptionsResponse {
        subscriptions: Some(subscriptions),
        next_token,
    })
}

pub(crate) async fn list_subscriptions_by_topic(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ListSubscriptionsByTopicInput,
) -> Result<ListSubscriptionsByTopicResponse, SnsError> {
    let topic = TopicRef::parse(ctx, "TopicArn", &input.topic_arn)?;
    let store = sns.store(&topic.account, &topic.region)?;
    load_topic(&*store, &topic.name)?;
    let (found, next_token) = page(
        &*store,
        TOPIC_SUBSCRIPTION_LISTING,
        &topic_prefix(&topic.name),
        input.next_token.as_deref(),
    )?;
    let subscriptions = found
        .into_iter()
        .map(|(_, record)| listed(ctx, &topic.name, record))
        .collect();
    Ok(ListSubscriptionsByTopicResponse {
        subscriptions: Some(subscriptions),
        next_token,
    })
}
