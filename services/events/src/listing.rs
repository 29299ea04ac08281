//! One page of a listing in name order, continued after the name a `NextToken` carries.

use stratus_core::paging::{take_page, PageSize, Token};

use crate::error::{invalid_token, Result};

/// Listings' `Limit`: 1 to 100, brought within bounds as AWS does.
pub(crate) const PAGE: PageSize = PageSize {
    min: 1,
    max: 100,
    default: 100,
};

/// The page of `items` (in name order) after `next_token`'s position, and the token of the
/// page after it, if any.
pub(crate) fn page<T>(
    listing: &Token,
    items: impl IntoIterator<Item = T>,
    name: impl Fn(&T) -> &str,
    next_token: Option<&str>,
    limit: Option<i32>,
) -> Result<(Vec<T>, Option<String>)> {
    let after = match next_token {
        Some(token) => Some(listing.decode_str(token).map_err(|_| invalid_token())?),
        None => None,
    };
    let rest = items
        .into_iter()
        .filter(|item| after.as_deref().is_none_or(|a| name(item) > a));
    let (page, more) = take_page(rest, PAGE.clamp(limit));
    let token = if more {
        page.last().map(|item| listing.encode_str(name(item)))
    } else {
        None
    };
    Ok((page, token))
}
