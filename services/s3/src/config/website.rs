//! The checks of a website configuration, and reading a stored one back.

use stratus_core::json::{self, KeyNames};
use stratus_core::{AwsError, FromValue, Value};
use stratus_gen_s3::*;

use crate::error::S3Error;

pub(crate) fn check_website(config: &WebsiteConfiguration) -> Result<(), AwsError> {
    if config.redirect_all_requests_to.is_some() {
        if config.index_document.is_some() || config.error_document.is_some() || config.routing_rules.is_some() {
            return Err(S3Error::invalid_request(
                "RedirectAllRequestsTo cannot be provided in conjunction with other Routing/Redirect configurations.",
            ));
        }
        return Ok(());
    }
    let Some(index) = &config.index_document else {
        return Err(S3Error::invalid_argument(
            "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty",
        ));
    };
    if index.suffix.is_empty() || index.suffix.contains('/') {
        return Err(S3Error::invalid_argument("The IndexDocument Suffix is not well formed"));
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
