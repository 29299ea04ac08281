//! IAM's tag rules: at most 50 per resource, keys up to 128 characters and values up to
//! 256, and `aws:` reserved; tagging an existing key replaces its value in place.

use std::collections::BTreeMap;

use stratus_core::paging::Token;
use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_gen_iam::Tag;

use crate::error::IamError;
use crate::listing::{in_order, page, Page};
use crate::records::{wire_tags, Tags};

const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// `tags` with `added` set (a key already there keeps its place), if within IAM's rules.
pub(crate) fn merged(tags: &Tags, added: Vec<Tag>) -> Result<Tags, IamError> {
    let mut out = tags.clone();
    for Tag { key, value } in added {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => out.push((key, value)),
        }
    }
    let map: BTreeMap<String, String> = out.iter().cloned().collect();
    check(&map, RULES).map_err(refusal)?;
    Ok(out)
}

/// `tags` without the keys in `removed`.
pub(crate) fn without(tags: &Tags, removed: &[String]) -> Tags {
    tags.iter().filter(|(k, _)| !removed.contains(k)).cloned().collect()
}

/// A page of `tags` (`List*Tags`), in the order they were set.
pub(crate) fn tag_page(
    listing: Token,
    tags: &Tags,
    marker: Option<&str>,
    max_items: Option<i32>,
) -> Result<Page<Tag>, IamError> {
    page(
        listing,
        in_order(wire_tags(tags).unwrap_or_default()),
        marker,
        max_items,
    )
}

/// IAM's wording for a broken rule.
fn refusal(violation: TagViolation<'_>) -> IamError {
    match violation {
        TagViolation::TooMany { max, .. } => {
            IamError::LimitExceeded(format!("The number of tags has reached the maximum limit of {max}."))
        }
        TagViolation::KeyLength(key) => IamError::InvalidInput(format!(
            "1 validation error detected: Value '{key}' at 'tags.member.key' failed to satisfy constraint: Member must have length less than or equal to 128"
        )),
        TagViolation::ValueLength(key) => IamError::InvalidInput(format!(
            "1 validation error detected: Value at 'tags.member.value' of tag {key} failed to satisfy constraint: Member must have length less than or equal to 256"
        )),
        TagViolation::ReservedPrefix(_) => {
            IamError::InvalidInput("User is not authorized to perform tag operations with aws: prefix".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(key: &str, value: &str) -> Tag {
        Tag {
            key: key.into(),
            value: value.into(),
        }
    }

    #[test]
    fn retagging_replaces_in_place_and_untagging_removes() {
        let tags = merged(&Vec::new(), vec![tag("a", "1"), tag("b", "2")]).unwrap();
        let tags = merged(&tags, vec![tag("a", "3")]).unwrap();
        assert_eq!(tags, vec![("a".into(), "3".into()), ("b".into(), "2".into())]);
        assert_eq!(without(&tags, &["a".into()]), vec![("b".into(), "2".into())]);
    }

    #[test]
    fn fifty_tags_at_most() {
        let fifty: Vec<Tag> = (0..50).map(|i| tag(&format!("k{i}"), "")).collect();
        let tags = merged(&Vec::new(), fifty).unwrap();
        assert!(matches!(
            merged(&tags, vec![tag("one-more", "")]),
            Err(IamError::LimitExceeded(_))
        ));
        assert!(merged(&tags, vec![tag("k0", "again")]).is_ok());
    }
}
