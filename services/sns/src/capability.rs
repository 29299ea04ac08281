//! What other parts of Stratus ask of topics: publishing to them, through
//! [`TopicPublisher`], and their policies, through [`ResourcePolicies`].

use std::collections::BTreeMap;

use stratus_core::service::capabilities::{MessageAttributeValue as CapValue, Publication};
use stratus_core::service::{BoxFuture, Caller, ResourcePolicies, ResourcePolicy, TopicPublisher};
use stratus_core::AwsError;
use stratus_gen_sns::MessageAttributeValue;

use crate::messages;
use crate::names::TopicRef;
use crate::publish::Outgoing;
use crate::service::SnsService;
use crate::store::TOPICS;

/// A topic ARN of the caller's own region and any account.
fn topic_of(arn: &str) -> Option<TopicRef> {
    let parts: Vec<&str> = arn.split(':').collect();
    (parts.len() == 6 && parts[0] == "arn" && parts[2] == "sns").then(|| TopicRef {
        account: parts[4].to_owned(),
        region: parts[3].to_owned(),
        name: parts[5].to_owned(),
    })
}

impl SnsService {
    fn topic_record(&self, topic: &TopicRef) -> Result<Option<crate::topics::TopicRecord>, AwsError> {
        let store = self.store(&topic.account, &topic.region).map_err(|e| e.0)?;
        TOPICS
            .get(&*store, &topic.name)
            .map_err(|e| crate::error::SnsError::from(e).0)
    }
}

/// Publications by other services (S3 notifications, alarms, EventBridge targets), as
/// Publish takes them.
impl TopicPublisher for SnsService {
    fn exists<'a>(&'a self, _caller: Caller<'a>, topic_arn: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async move { topic_of(topic_arn).is_some_and(|t| matches!(self.topic_record(&t), Ok(Some(_)))) })
    }

    fn publish<'a>(&'a self, caller: Caller<'a>, publication: Publication) -> BoxFuture<'a, Result<String, AwsError>> {
        Box::pin(async move {
            let topic = topic_of(&publication.topic_arn).ok_or_else(|| crate::error::topic_not_found().0)?;
            let attributes: BTreeMap<String, MessageAttributeValue> = publication
                .attributes
                .into_iter()
                .map(|(name, a)| {
                    let (string_value, binary_value) = match a.value {
                        CapValue::String(s) => (Some(s), None),
                        CapValue::Binary(b) => (None, Some(b)),
                    };
                    (
                        name,
                        MessageAttributeValue {
                            data_type: a.data_type,
                            string_value,
                            binary_value,
                        },
                    )
                })
                .collect();
            let message =
                messages::check(publication.message, publication.subject, None, Some(attributes)).map_err(|e| e.0)?;
            let outgoing = Outgoing {
                message,
                group_id: publication.group_id,
                dedup_id: publication.dedup_id,
            };
            let endpoint = format!("https://sns.{}.amazonaws.com", caller.region);
            let mut published = self
                .publish_all(&topic, endpoint, vec![outgoing])
                .await
                .map_err(|e| e.0)?;
            published
                .pop()
                .map(|p| p.message_id)
                .ok_or_else(|| AwsError::internal("nothing published"))
        })
    }
}

/// Topic policies, for the gateway to authorize requests on topics.
impl ResourcePolicies for SnsService {
    fn arn_service(&self) -> &'static str {
        "sns"
    }

    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        let Some(topic) = topic_of(arn) else { return Ok(None) };
        Ok(self.topic_record(&topic)?.map(|record| ResourcePolicy {
            owner_account: topic.account.clone(),
            document: Some(record.policy(&topic)),
        }))
    }

    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        let Some(topic) = topic_of(arn) else { return Ok(None) };
        Ok(self.topic_record(&topic)?.map(|r| r.tags.into_iter().collect()))
    }
}
