//! The operations, one module per area; each function is listed in the `operations!` table of
//! `lib.rs`.

pub(crate) mod code_signing;
pub(crate) mod concurrency;
pub(crate) mod event_invoke;
pub(crate) mod functions;
pub(crate) mod invocation;
pub(crate) mod layers;
pub(crate) mod mappings;
pub(crate) mod permissions;
pub(crate) mod settings;
pub(crate) mod tags;
pub(crate) mod urls;
pub(crate) mod versions;

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::service::Caller;
use stratus_core::{AwsError, RequestContext};

use crate::error::{self, function_not_found};
use crate::names::{FunctionRef, Qualifier};
use crate::records::{FunctionRecord, VersionConfig};

/// The function a request names, in the request's account and region.
pub(crate) fn function_ref(ctx: &RequestContext, name: &str, qualifier: Option<&str>) -> Result<FunctionRef, AwsError> {
    FunctionRef::parse(name, qualifier, &ctx.account_id, &ctx.region)
}

/// The caller for work done on the request's behalf in other services.
pub(crate) fn caller(ctx: &RequestContext) -> Caller<'_> {
    Caller {
        account_id: &ctx.account_id,
        region: &ctx.region,
        principal: ctx.principal.as_ref().map_or("", |p| p.arn.as_str()),
    }
}

/// The version a qualifier names (an alias's primary version), and its number or `$LATEST`;
/// a missing one is `Function not found: ARN:QUALIFIER`.
pub(crate) fn resolve<'r>(record: &'r FunctionRecord, f: &FunctionRef) -> Result<&'r VersionConfig, AwsError> {
    match Qualifier::of(f.qualifier.as_deref()) {
        Qualifier::Latest => Ok(&record.latest),
        Qualifier::Version(n) => record
            .versions
            .get(&n)
            .ok_or_else(|| function_not_found(&f.qualified_arn())),
        Qualifier::Alias(alias) => {
            let target = record
                .aliases
                .get(alias)
                .ok_or_else(|| function_not_found(&f.qualified_arn()))?;
            version_named(record, &target.function_version).ok_or_else(|| function_not_found(&f.qualified_arn()))
        }
    }
}

/// `$LATEST` or a published version, by its name.
pub(crate) fn version_named<'r>(record: &'r FunctionRecord, version: &str) -> Option<&'r VersionConfig> {
    match Qualifier::of(Some(version)) {
        Qualifier::Latest => Some(&record.latest),
        Qualifier::Version(n) => record.versions.get(&n),
        Qualifier::Alias(_) => None,
    }
}

/// Whether a qualifier names something that exists: `$LATEST`, a version or an alias.
pub(crate) fn qualifier_exists(record: &FunctionRecord, qualifier: &str) -> bool {
    match Qualifier::of(Some(qualifier)) {
        Qualifier::Latest => true,
        Qualifier::Version(n) => record.versions.contains_key(&n),
        Qualifier::Alias(a) => record.aliases.contains_key(a),
    }
}

/// Refuses a qualified name for operations on the function itself.
pub(crate) fn unqualified_only(f: &FunctionRef) -> Result<(), AwsError> {
    if f.qualifier.is_some() {
        return Err(error::invalid_parameter(
            "This operation is permitted on Lambda functions only. Aliases and versions do not support this \
             operation. Please specify either a function name or an unqualified function ARN.",
        ));
    }
    Ok(())
}

/// A fresh revision id.
pub(crate) fn revision() -> String {
    stratus_core::id::uuid()
}

/// Lambda's listings answer at most 50 a page, whatever `MaxItems` asks.
pub(crate) const PAGE: PageSize = PageSize {
    min: 1,
    max: 50,
    default: 50,
};

/// One page of `items` (in key order) after `marker`, and the marker of the next page.
pub(crate) fn page<T>(
    token: &Token,
    marker: Option<&str>,
    max_items: Option<i32>,
    items: impl IntoIterator<Item = (String, T)>,
) -> Result<(Vec<T>, Option<String>), AwsError> {
    let after = marker
        .map(|m| {
            token
                .decode_str(m)
                .map_err(|_| error::invalid_parameter("Invalid marker"))
        })
        .transpose()?;
    let items = items
        .into_iter()
        .filter(|(key, _)| after.as_ref().is_none_or(|a| key > a));
    let (page, more) = take_page(items, PAGE.clamp(max_items));
    let next = if more {
        page.last().map(|(key, _)| token.encode_str(key))
    } else {
        None
    };
    Ok((page.into_iter().map(|(_, item)| item).collect(), next))
}

/// The revision id of what `f` names: `$LATEST`'s, a version's or an alias's (a resource
/// policy's `RevisionId` is its target's).
pub(crate) fn target_revision(record: &FunctionRecord, f: &FunctionRef) -> Option<String> {
    match Qualifier::of(f.qualifier.as_deref()) {
        Qualifier::Latest => Some(record.latest.revision_id.clone()),
        Qualifier::Version(n) => record.versions.get(&n).map(|v| v.revision_id.clone()),
        Qualifier::Alias(a) => record.aliases.get(a).map(|a| a.revision_id.clone()),
    }
}
