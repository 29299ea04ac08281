//! The operations, one function each, by area.

pub(crate) mod documents;
pub(crate) mod history;
pub(crate) mod listing;
pub(crate) mod parameters;
pub(crate) mod put;
pub(crate) mod settings;
pub(crate) mod tags;
pub(crate) mod windows;

use stratus_core::RequestContext;

/// The principal a request was made by, as `LastModifiedUser` names it: the signing user or
/// role, or the account's root.
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
