//! The operations, one function each, by area.

pub(crate) mod aliases;
pub(crate) mod cryptography;
pub(crate) mod grants;
pub(crate) mod import;
pub(crate) mod keys;
pub(crate) mod refused;
pub(crate) mod rotation;

use stratus_core::paging::{take_page, PageSize, Token};

use crate::error::{validation, KmsError};

/// KMS's `Limit`: 1 to 1000, 100 when absent (50 for aliases and tags, as their pages are).
pub(crate) const PAGE: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 100,
};

/// One page of `items` (in listing order, each with its position), after `marker`.
pub(crate) fn page<T>(
    items: Vec<(String, T)>,
    token: &Token,
    marker: Option<&str>,
    limit: Option<i32>,
) -> Result<(Vec<T>, Option<String>), KmsError> {
    let size = PAGE
        .check(limit)
        .map_err(|e| validation(format!("1 validation error detected: Value '{}' at 'limit' failed to satisfy constraint: Member must have value between {} and {}", e.asked, e.min, e.max)))?;
    let after = match marker {
        Some(m) => Some(token.decode_str(m).map_err(|_| invalid_marker())?),
        None => None,
    };
    let rest = items
        .into_iter()
        .filter(|(position, _)| after.as_ref().is_none_or(|a| position > a));
    let (taken, more) = take_page(rest, size);
    let next = more.then(|| taken.last().map(|(p, _)| token.encode_str(p))).flatten();
    Ok((taken.into_iter().map(|(_, t)| t).collect(), next))
}

fn invalid_marker() -> KmsError {
    KmsError(stratus_core::AwsError::new(
        "InvalidMarkerException",
        "Invalid marker",
        400,
    ))
}
