//! IAM's paging: `MaxItems` (1 to 1000, 100 when not given) and `Marker`, answered with
//! `IsTruncated` and the `Marker` that continues.

use stratus_core::paging::{take_page, PageSize, Token};

use crate::error::IamError;

/// IAM's `MaxItems` bounds (the model's range; the default is the API reference's).
const MAX_ITEMS: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 100,
};

/// One page of a listing.
#[derive(Debug, PartialEq)]
pub(crate) struct Page<T> {
    pub(crate) items: Vec<T>,
    pub(crate) is_truncated: bool,
    pub(crate) marker: Option<String>,
}

/// `items` positioned by their order, for listings in the order things were added (tags,
/// attachments, versions) rather than by name.
pub(crate) fn in_order<T>(items: impl IntoIterator<Item = T>) -> Vec<(String, T)> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (format!("{i:06}"), item))
        .collect()
}

/// The page of `items` (sorted by their position, a key or a name) that follows `marker`.
pub(crate) fn page<T>(
    listing: Token,
    items: Vec<(String, T)>,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<Page<T>, IamError> {
    let size = MAX_ITEMS.check(max_items).map_err(|e| {
        IamError::Validation(format!(
            "1 validation error detected: Value '{}' at 'maxItems' failed to satisfy constraint: Member must have value {}",
            e.asked,
            if e.asked < 1 { "greater than or equal to 1" } else { "less than or equal to 1000" }
        ))
    })?;
    let after = match marker {
        None | Some("") => None,
        Some(m) => Some(
            listing
                .decode_str(m)
                .map_err(|_| IamError::InvalidInput("Invalid Marker.".into()))?,
        ),
    };
    let rest = items
        .into_iter()
        .filter(|(position, _)| after.as_ref().is_none_or(|a| position > a));
    let (page, more) = take_page(rest, size);
    let marker = more
        .then(|| page.last().map(|(position, _)| listing.encode_str(position)))
        .flatten();
    Ok(Page {
        items: page.into_iter().map(|(_, item)| item).collect(),
        is_truncated: more,
        marker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: Token = Token::for_listing("iam:test");

    fn names(n: usize) -> Vec<(String, usize)> {
        (0..n).map(|i| (format!("name{i:04}"), i)).collect()
    }

    #[test]
    fn pages_of_max_items_continue_after_the_marker() {
        let first = page(LISTING, names(5), None, Some(2)).unwrap();
        assert_eq!((first.items.clone(), first.is_truncated), (vec![0, 1], true));
        let second = page(LISTING, names(5), first.marker.as_deref(), Some(2)).unwrap();
        assert_eq!(second.items, vec![2, 3]);
        let last = page(LISTING, names(5), second.marker.as_deref(), Some(2)).unwrap();
        assert_eq!((last.items, last.is_truncated, last.marker), (vec![4], false, None));
    }

    #[test]
    fn the_default_page_is_100() {
        let all = page(LISTING, names(150), None, None).unwrap();
        assert_eq!(all.items.len(), 100);
        assert!(all.is_truncated);
        assert_eq!(page(LISTING, names(1000), None, Some(1000)).unwrap().items.len(), 1000);
    }

    #[test]
    fn bad_markers_and_sizes_are_refused() {
        assert!(matches!(
            page(LISTING, names(3), Some("nonsense"), None),
            Err(IamError::InvalidInput(_))
        ));
        let other = Token::for_listing("iam:other").encode_str("name0001");
        assert!(page(LISTING, names(3), Some(&other), None).is_err());
        assert!(matches!(
            page(LISTING, names(3), None, Some(0)),
            Err(IamError::Validation(_))
        ));
        assert!(matches!(
            page(LISTING, names(3), None, Some(1001)),
            Err(IamError::Validation(_))
        ));
    }
}
