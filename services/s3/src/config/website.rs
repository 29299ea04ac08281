//! The checks of a website configuration, and reading a stored one back.

use stratus_core::json::{self, KeyNames};
use stratus_core::{AwsError, FromValue, Value};
use stratus_gen_s3::*;

use crate::error::S3Error;

/// AWS's checks on a website configuration, refused with the argument AWS names.
pub(crate) fn check_website(config: &WebsiteConfiguration) -> Result<(), AwsError> {
    let argument = |message: &str, name: &'static str, value: &str| {
        S3Error::invalid_argument(message)
            .with_detail("ArgumentName", name)
            .with_detail("ArgumentValue", value)
    };
    if config.redirect_all_requests_to.is_some() {
        if config.index_document.is_some() || config.error_document.is_some() || config.routing_rules.is_some() {
            return Err(argument(
                "RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.",
                "RedirectAllRequestsTo",
                "not null",
            ));
        }
        return Ok(());
    }
    let Some(index) = &config.index_document else {
        return Err(argument(
            "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty",
            "IndexDocument",
            "null",
        ));
    };
    if index.suffix.is_empty() || index.suffix.contains('/') {
        return Err(argument(
            "The IndexDocument Suffix is not well formed",
            "IndexDocument",
            &index.suffix,
        ));
    }
    if let Some(rules) = &config.routing_rules {
        if rules.is_empty() {
            return Err(S3Error::malformed_xml());
        }
        rules.iter().try_for_each(check_routing_rule)?;
    }
    Ok(())
}

fn check_routing_rule(rule: &RoutingRule) -> Result<(), AwsError> {
    let redirect = &rule.redirect;
    if matches!(redirect.protocol, Some(Protocol::Unknown(_))) {
        return Err(S3Error::invalid_request(
            "Invalid protocol, protocol can be http or https. If not defined the protocol will be selected automatically.",
        ));
    }
    if redirect.replace_key_prefix_with.is_some() && redirect.replace_key_with.is_some() {
        return Err(S3Error::invalid_request(
            "You can only define ReplaceKeyPrefix or ReplaceKey but not both.",
        ));
    }
    if rule
        .condition
        .as_ref()
        .is_some_and(|c| c.http_error_code_returned_equals.is_none() && c.key_prefix_equals.is_none())
    {
        return Err(S3Error::invalid_request(
            "Condition cannot be empty. To redirect all requests without a condition, the condition element shouldn't be present.",
        ));
    }
    Ok(())
}

/// A stored website configuration (kept as GetBucketWebsite's output, whose members are
/// the configuration's).
pub(crate) fn website(bytes: &[u8]) -> Result<GetBucketWebsiteOutput, AwsError> {
    let shape = &schema::GET_BUCKET_WEBSITE_OUTPUT;
    let corrupt = |e: String| AwsError::internal(format!("corrupt bucket configuration: {e}"));
    let value = json::decode(shape, bytes, KeyNames::Member).map_err(|e| corrupt(e.to_string()))?;
    let Value::Struct(mut slots) = value else {
        return Err(corrupt("not a structure".into()));
    };
    let mut take = |name: &str| {
        shape
            .member_index(name)
            .and_then(|i| slots.get_mut(i))
            .and_then(Option::take)
    };
    fn typed<T: FromValue>(v: Option<Value>) -> Result<Option<T>, AwsError> {
        v.map(T::from_value)
            .transpose()
            .map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))
    }
    Ok(GetBucketWebsiteOutput {
        redirect_all_requests_to: typed(take("RedirectAllRequestsTo"))?,
        index_document: typed(take("IndexDocument"))?,
        error_document: typed(take("ErrorDocument"))?,
        routing_rules: typed(take("RoutingRules"))?,
    })
}
