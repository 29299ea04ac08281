//! The operations, one function each, by area.

pub(crate) mod platform;
pub(crate) mod publishing;
pub(crate) mod sms;
pub(crate) mod subscriptions;
pub(crate) mod tags;
pub(crate) mod topics;

use stratus_core::RequestContext;

/// Where the caller reached SNS, for the `UnsubscribeURL` of the envelopes it delivers.
pub(crate) fn endpoint_of(ctx: &RequestContext) -> String {
    match &ctx.host {
        Some(host) => format!("http://{host}"),
        None => format!("https://sns.{}.amazonaws.com", ctx.region),
    }
}
