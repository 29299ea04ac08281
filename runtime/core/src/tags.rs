//! AWS's common rules for resource tags — how many a resource may have, how long keys and
//! values may be, which prefix is AWS's own — checked once for every service, which words the
//! refusal itself (each service's messages differ).
//!
//! ```
//! use std::collections::BTreeMap;
//! use stratus_core::tags::{check, TagRules, TagViolation};
//!
//! let rules = TagRules { max: 2, reserved_prefix: Some("aws:") };
//! let mut tags = BTreeMap::from([("team".to_string(), "storage".to_string())]);
//! assert_eq!(check(&tags, rules), Ok(()));
//! tags.insert("aws:owner".into(), "me".into());
//! assert_eq!(check(&tags, rules), Err(TagViolation::ReservedPrefix("aws:owner")));
//! ```

use std::collections::BTreeMap;

/// The longest tag key, in Unicode characters.
pub const MAX_KEY_CHARS: usize = 128;
/// The longest tag value, in Unicode characters.
pub const MAX_VALUE_CHARS: usize = 256;

/// What varies between services.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagRules {
    /// How many tags one resource may carry.
    pub max: usize,
    /// A key prefix only AWS may use, matched without regard to ASCII case, if the service
    /// refuses it.
    pub reserved_prefix: Option<&'static str>,
}

/// The first rule a set of tags breaks, in the order AWS checks them: the count, then each
/// tag in key order (key length, value length, reserved prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagViolation<'t> {
    /// More tags than the service allows on one resource.
    TooMany {
        /// How many tags there are.
        count: usize,
        /// The most the service allows.
        max: usize,
    },
    /// An empty key, or one over [`MAX_KEY_CHARS`].
    KeyLength(&'t str),
    /// The value of this key is over [`MAX_VALUE_CHARS`].
    ValueLength(&'t str),
    /// This key starts with the service's reserved prefix (`aws:`).
    ReservedPrefix(&'t str),
}

/// Checks `tags` against AWS's common rules and the service's `rules`.
pub fn check(tags: &BTreeMap<String, String>, rules: TagRules) -> Result<(), TagViolation<'_>> {
    if tags.len() > rules.max {
        return Err(TagViolation::TooMany {
            count: tags.len(),
            max: rules.max,
        });
    }
    for (key, value) in tags {
        let key_chars = key.chars().count();
        if key_chars == 0 || key_chars > MAX_KEY_CHARS {
            return Err(TagViolation::KeyLength(key));
        }
        if value.chars().count() > MAX_VALUE_CHARS {
            return Err(TagViolation::ValueLength(key));
        }
        let reserved = rules.reserved_prefix.is_some_and(|prefix| {
            key.get(..prefix.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
        });
        if reserved {
            return Err(TagViolation::ReservedPrefix(key));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    const RULES: TagRules = TagRules {
        max: 3,
        reserved_prefix: Some("aws:"),
    };

    #[test]
    fn lengths_count_characters_not_bytes() {
        let key = "é".repeat(MAX_KEY_CHARS);
        let value = "ü".repeat(MAX_VALUE_CHARS);
        assert_eq!(check(&tags(&[(&key, &value)]), RULES), Ok(()));
        let long_key = "k".repeat(MAX_KEY_CHARS + 1);
        assert_eq!(
            check(&tags(&[(&long_key, "")]), RULES),
            Err(TagViolation::KeyLength(&long_key))
        );
        assert_eq!(check(&tags(&[("", "v")]), RULES), Err(TagViolation::KeyLength("")));
        let long_value = "v".repeat(MAX_VALUE_CHARS + 1);
        assert_eq!(
            check(&tags(&[("k", &long_value)]), RULES),
            Err(TagViolation::ValueLength("k"))
        );
    }

    #[test]
    fn count_comes_first_and_the_reserved_prefix_ignores_case() {
        let four = tags(&[("a", ""), ("b", ""), ("c", ""), ("", "")]);
        assert_eq!(check(&four, RULES), Err(TagViolation::TooMany { count: 4, max: 3 }));
        assert_eq!(
            check(&tags(&[("AWS:x", "")]), RULES),
            Err(TagViolation::ReservedPrefix("AWS:x"))
        );
        assert_eq!(check(&tags(&[("aw", "")]), RULES), Ok(()));
        let open = TagRules {
            reserved_prefix: None,
            ..RULES
        };
        assert_eq!(check(&tags(&[("aws:x", "")]), open), Ok(()));
    }
}
