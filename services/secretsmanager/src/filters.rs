//! ListSecrets' and BatchGetSecretValue's filters, as AWS matches them: each value is one or
//! more words, every one of which must begin a word of the field (so `a secret` matches
//! "an secret" but not "asecret"); a value starting with `!` matches what the rest does not.
//! Values of one filter are alternatives; filters all apply.

use stratus_gen_secrets_manager::{Filter, FilterNameStringType};

use crate::error::{invalid_parameter, SmError};
use crate::secret::SecretRecord;

/// One filter, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matcher {
    key: FilterNameStringType,
    values: Vec<String>,
}

/// Reads the request's filters, refusing a key the model does not list.
pub(crate) fn parse(filters: Vec<Filter>) -> Result<Vec<Matcher>, SmError> {
    filters
        .into_iter()
        .map(|f| {
            let key = f
                .key
                .ok_or_else(|| invalid_parameter("You must specify a filter key."))?;
            if let FilterNameStringType::Unknown(name) = &key {
                return Err(invalid_parameter(format!("Invalid filter key: {name}")));
            }
            Ok(Matcher {
                key,
                values: f.values.unwrap_or_default(),
            })
        })
        .collect()
}

/// Whether `secret` passes every filter.
pub(crate) fn matches(filters: &[Matcher], secret: &SecretRecord) -> bool {
    filters.iter().all(|f| f.matches(secret))
}

impl Matcher {
    fn matches(&self, secret: &SecretRecord) -> bool {
        let tags = secret.tags.as_deref().unwrap_or_default();
        let fields: Vec<&str> = match &self.key {
            FilterNameStringType::Name => vec![secret.name.as_str()],
            FilterNameStringType::Description => secret.description.iter().map(String::as_str).collect(),
            FilterNameStringType::TagKey => tags.iter().map(|(k, _)| k.as_str()).collect(),
            FilterNameStringType::TagValue => tags.iter().map(|(_, v)| v.as_str()).collect(),
            FilterNameStringType::PrimaryRegion => secret.primary_region.iter().map(String::as_str).collect(),
            FilterNameStringType::OwningService => Vec::new(),
            FilterNameStringType::All | FilterNameStringType::Unknown(_) => std::iter::once(secret.name.as_str())
                .chain(secret.description.as_deref())
                .chain(tags.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]))
                .collect(),
        };
        self.values.iter().any(|value| match value.strip_prefix('!') {
            Some(negated) => !fields.iter().any(|field| value_matches(negated, field)),
            None => fields.iter().any(|field| value_matches(value, field)),
        })
    }
}

/// Whether every word of `value` begins some word of `field`.
fn value_matches(value: &str, field: &str) -> bool {
    value
        .split_whitespace()
        .all(|term| field.split_whitespace().any(|word| word.starts_with(term)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str, description: &str) -> SecretRecord {
        SecretRecord {
            name: name.into(),
            description: Some(description.into()),
            tags: Some(vec![("team".into(), "blue sky".into())]),
            ..SecretRecord::default()
        }
    }

    fn filter(key: &str, values: &[&str]) -> Vec<Matcher> {
        parse(vec![Filter {
            key: Some(FilterNameStringType::from_wire(key)),
            values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
        }])
        .unwrap()
    }

    #[test]
    fn words_match_by_prefix() {
        let a = secret("testing1/one-1", "a secret");
        let an = secret("/testing2/two-2", "an secret");
        let joined = secret("testing3/three-3", "asecret");
        let the = secret("/testing4/four-4", "thesecret");
        let pick = |f: &[Matcher]| {
            [&a, &an, &joined, &the]
                .iter()
                .filter(|s| matches(f, s))
                .map(|s| s.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(&filter("name", &["/"])), [an.name.clone(), the.name.clone()]);
        assert_eq!(pick(&filter("name", &["!/"])), [a.name.clone(), joined.name.clone()]);
        assert_eq!(pick(&filter("description", &["a"])).len(), 3);
        assert_eq!(
            pick(&filter("description", &["a secret"])),
            [a.name.clone(), an.name.clone()]
        );
        assert_eq!(pick(&filter("description", &["!c"])).len(), 4);
        assert!(pick(&filter("name", &["testing1 one"])).is_empty());
    }

    #[test]
    fn tags_and_all_look_at_tags() {
        let s = secret("x", "y");
        assert!(matches(&filter("tag-key", &["te"]), &s));
        assert!(matches(&filter("tag-value", &["sky"]), &s));
        assert!(matches(&filter("all", &["blue"]), &s));
        assert!(!matches(&filter("tag-key", &["blue"]), &s));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let refused = parse(vec![Filter {
            key: Some(FilterNameStringType::from_wire("colour")),
            values: None,
        }]);
        assert_eq!(refused.unwrap_err().0.code, "InvalidParameterException");
    }
}
