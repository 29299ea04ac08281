//! The topics and subscriptions a request names by ARN, checked as SNS checks them.

use stratus_core::arn::Arn;
use stratus_core::RequestContext;

use crate::error::{invalid_parameter, malformed_arn, SnsError};

/// A topic: its account, region and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TopicRef {
    pub(crate) account: String,
    pub(crate) region: String,
    pub(crate) name: String,
}

impl TopicRef {
    /// A topic of the caller's account and region.
    pub(crate) fn local(ctx: &RequestContext, name: &str) -> TopicRef {
        TopicRef {
            account: ctx.account_id.clone(),
            region: ctx.region.clone(),
            name: name.to_owned(),
        }
    }

    /// The topic `arn` (the parameter `parameter`) names. SNS refuses an ARN of fewer than six
    /// parts by counting them, and one of another region (or service) as an invalid parameter.
    pub(crate) fn parse(ctx: &RequestContext, parameter: &str, arn: &str) -> Result<TopicRef, SnsError> {
        let parts: Vec<&str> = arn.split(':').collect();
        if parts.len() < 6 {
            return Err(malformed_arn(parameter, arn));
        }
        if parts[0] != "arn" || parts[2] != "sns" || parts[3] != ctx.region || parts.len() != 6 {
            return Err(invalid_parameter(parameter));
        }
        Ok(TopicRef {
            account: parts[4].to_owned(),
            region: parts[3].to_owned(),
            name: parts[5].to_owned(),
        })
    }

    pub(crate) fn arn(&self) -> String {
        Arn::new("sns", &self.region, &self.account, &self.name).to_string()
    }

    pub(crate) fn is_fifo(&self) -> bool {
        self.name.ends_with(".fifo")
    }
}

/// A subscription: its topic and its id (the ARN's last part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubscriptionRef {
    pub(crate) topic: TopicRef,
    pub(crate) id: String,
}

impl SubscriptionRef {
    /// The subscription `arn` names (`arn:aws:sns:REGION:ACCOUNT:TOPIC:ID`).
    pub(crate) fn parse(ctx: &RequestContext, arn: &str) -> Result<SubscriptionRef, SnsError> {
        if arn.is_empty() {
            return Err(invalid_parameter(
                "SubscriptionArn Reason: no value for required parameter",
            ));
        }
        let parts: Vec<&str> = arn.split(':').collect();
        if parts.len() < 6 {
            return Err(malformed_arn("SubscriptionArn", arn));
        }
        if parts.len() != 7 || parts[6].is_empty() {
            return Err(invalid_parameter("SubscriptionId"));
        }
        if parts[0] != "arn" || parts[2] != "sns" || parts[3] != ctx.region {
            return Err(invalid_parameter("SubscriptionArn"));
        }
        Ok(SubscriptionRef {
            topic: TopicRef {
                account: parts[4].to_owned(),
                region: parts[3].to_owned(),
                name: parts[5].to_owned(),
            },
            id: parts[6].to_owned(),
        })
    }

    pub(crate) fn arn(&self) -> String {
        format!("{}:{}", self.topic.arn(), self.id)
    }
}

/// The principal a request was made by, as SNS writes it (`SubscriptionPrincipal`): the
/// signing user or role, or the account's root.
pub(crate) fn principal_arn(ctx: &RequestContext) -> String {
    match &ctx.principal {
        Some(p) => p.arn.clone(),
        None => format!(
            "arn:{}:iam::{}:root",
            stratus_core::arn::partition_of(&ctx.region),
            ctx.account_id
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::clock::Clock;

    fn ctx() -> RequestContext {
        RequestContext::unsigned("000000000000", "us-east-1", Clock::system())
    }

    #[test]
    fn short_arns_are_refused_by_their_count() {
        let e = TopicRef::parse(&ctx(), "TopicArn", "nope").unwrap_err();
        assert_eq!(
            e.0.message,
            "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"
        );
        let e = TopicRef::parse(&ctx(), "TopicArn", "arn:aws:sns:eu-west-1:000000000000:t").unwrap_err();
        assert_eq!(e.0.message, "Invalid parameter: TopicArn");
        let t = TopicRef::parse(&ctx(), "TopicArn", "arn:aws:sns:us-east-1:000000000000:t").unwrap();
        assert_eq!(t.arn(), "arn:aws:sns:us-east-1:000000000000:t");
    }

    #[test]
    fn subscription_arns_need_their_id() {
        let topic = "arn:aws:sns:us-east-1:000000000000:t";
        let e = SubscriptionRef::parse(&ctx(), topic).unwrap_err();
        assert_eq!(e.0.message, "Invalid parameter: SubscriptionId");
        let e = SubscriptionRef::parse(&ctx(), "arn:aws:sns:us-east-1:000000000000").unwrap_err();
        assert_eq!(
            e.0.message,
            "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 5"
        );
        let s = SubscriptionRef::parse(&ctx(), &format!("{topic}:abc")).unwrap();
        assert_eq!((s.topic.name.as_str(), s.id.as_str()), ("t", "abc"));
    }
}
