//! `ParameterFilters` of DescribeParameters and GetParametersByPath (and DescribeParameters'
//! older `Filters`): checked with AWS's messages, in AWS's order, then matched against a
//! parameter's head record.

use std::collections::BTreeMap;

use stratus_gen_ssm::{ParameterStringFilter, ParametersFilter, ParametersFilterKey};

use crate::error::{refuse, validation, SsmError};
use crate::names::{check_path, in_path, key_of};

/// The listing a filter is given to: each allows its own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    Describe,
    ByPath,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opt {
    Equals,
    BeginsWith,
    Contains,
}

/// A checked filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Filter {
    /// A name, compared with a leading `/` as names are stored.
    Name(Opt, Vec<String>),
    /// Paths (checked, without a trailing `/`), one level below or any.
    Path {
        recursive: bool,
        paths: Vec<String>,
    },
    Type(Opt, Vec<String>),
    KeyId(Opt, Vec<String>),
    Tier(Opt, Vec<String>),
    DataType(Opt, Vec<String>),
    Label(Vec<String>),
    /// A tag: present (no values) or with one of the values.
    Tag(String, Opt, Vec<String>),
}

/// What filters look at of one parameter.
pub(crate) struct Subject<'a> {
    pub(crate) key: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) key_id: Option<&'a str>,
    pub(crate) tier: &'a str,
    pub(crate) data_type: &'a str,
    pub(crate) labels: Vec<&'a str>,
    pub(crate) tags: &'a BTreeMap<String, String>,
}

const TYPES: &[&str] = &["String", "StringList", "SecureString"];
const TIERS: &[&str] = &["Standard", "Advanced", "Intelligent-Tiering"];
const DATA_TYPES: &[&str] = &["text", "aws:ec2:image", "aws:ssm:integration"];

fn invalid_key(message: String) -> SsmError {
    refuse("InvalidFilterKey", message)
}

fn invalid_option(option: &str, valid: &str) -> SsmError {
    refuse(
        "InvalidFilterOption",
        format!("The following filter option is not valid: {option}. Valid options include: [{valid}]."),
    )
}

fn check_values(values: &[String], valid: &[&str]) -> Result<(), SsmError> {
    match values.iter().find(|v| !valid.contains(&v.as_str())) {
        Some(value) => Err(refuse(
            "InvalidFilterValue",
            format!(
                "The following filter value is not valid: {value}. Valid values include: [{}].",
                valid.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// Checks `filters` for `listing`.
pub(crate) fn parse(filters: &[ParameterStringFilter], listing: Listing) -> Result<Vec<Filter>, SsmError> {
    for f in filters {
        let refused = match listing {
            Listing::Describe => f.key == "Label",
            Listing::ByPath => matches!(f.key.as_str(), "Name" | "Path" | "Tier" | "DataType"),
        };
        if refused {
            let valid = match listing {
                Listing::Describe => "Path, Name, Type, KeyId, Tier",
                Listing::ByPath => "Type, KeyId, Label",
            };
            return Err(invalid_key(format!(
                "The following filter key is not valid: {}. Valid filter keys include: [{valid}].",
                f.key
            )));
        }
    }
    for f in filters {
        if !f.key.starts_with("tag:") && f.values.as_ref().is_none_or(Vec::is_empty) {
            return Err(refuse(
                "InvalidFilterValue",
                format!(
                    "The following filter values are missing : null for filter key {}.",
                    f.key
                ),
            ));
        }
    }
    for (i, f) in filters.iter().enumerate() {
        if filters[..i].iter().any(|g| g.key == f.key) {
            return Err(invalid_key(format!(
                "The following filter is duplicated in the request: {}. A request can contain only one occurrence \
                 of a specific filter.",
                f.key
            )));
        }
    }
    filters.iter().map(parse_one).collect()
}

fn parse_one(f: &ParameterStringFilter) -> Result<Filter, SsmError> {
    let values = f.values.clone().unwrap_or_default();
    if f.key == "Path" {
        let recursive = match f.option.as_deref() {
            None | Some("OneLevel") => false,
            Some("Recursive") => true,
            Some(other) => return Err(invalid_option(other, "Recursive, OneLevel")),
        };
        let mut paths = Vec::with_capacity(values.len());
        for value in &values {
            let lower = value.to_ascii_lowercase();
            if lower.starts_with("/aws") || lower.starts_with("/ssm") {
                return Err(validation(
                    "Filters for common parameters can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). \
                     When using global parameters, please specify within a global namespace.",
                ));
            }
            paths.push(check_path(value)?);
        }
        return Ok(Filter::Path { recursive, paths });
    }
    let option = match (f.option.as_deref(), f.key.as_str()) {
        (None | Some("Equals"), _) => Opt::Equals,
        (Some("BeginsWith"), key) if key != "Label" => Opt::BeginsWith,
        (Some("Contains"), "Name") => Opt::Contains,
        (Some(other), "Label") => return Err(invalid_option(other, "Equals")),
        (Some(other), "Name") => return Err(invalid_option(other, "Equals, BeginsWith, Contains")),
        (Some(other), _) => return Err(invalid_option(other, "BeginsWith, Equals")),
    };
    let equals = option == Opt::Equals;
    Ok(match f.key.as_str() {
        "Name" => Filter::Name(option, values),
        "Type" => {
            if equals {
                check_values(&values, TYPES)?;
            }
            Filter::Type(option, values)
        }
        "KeyId" => Filter::KeyId(option, values),
        "Tier" => {
            if equals {
                check_values(&values, TIERS)?;
            }
            Filter::Tier(option, values)
        }
        "DataType" => {
            if equals {
                check_values(&values, DATA_TYPES)?;
            }
            Filter::DataType(option, values)
        }
        "Label" => Filter::Label(values),
        key => Filter::Tag(key.strip_prefix("tag:").unwrap_or(key).to_owned(), option, values),
    })
}

/// DescribeParameters' older `Filters`, as the filters they mean.
pub(crate) fn from_legacy(filters: &[ParametersFilter]) -> Result<Vec<Filter>, SsmError> {
    filters
        .iter()
        .map(|f| {
            let values = f.values.clone();
            Ok(match &f.key {
                ParametersFilterKey::Name => Filter::Name(Opt::BeginsWith, values),
                ParametersFilterKey::Type => Filter::Type(Opt::Equals, values),
                ParametersFilterKey::KeyId => Filter::KeyId(Opt::Equals, values),
                ParametersFilterKey::Unknown(key) => {
                    return Err(invalid_key(format!("The following filter key is not valid: {key}.")))
                }
            })
        })
        .collect()
}

fn compare(option: Opt, what: &str, values: &[String]) -> bool {
    values.iter().any(|v| match option {
        Opt::Equals => what == v,
        Opt::BeginsWith => what.starts_with(v.as_str()),
        Opt::Contains => what.contains(v.as_str()),
    })
}

/// Whether the parameter passes every filter.
pub(crate) fn matches(filters: &[Filter], s: &Subject<'_>) -> bool {
    filters.iter().all(|f| match f {
        Filter::Name(Opt::Contains, values) => compare(Opt::Contains, s.key, values),
        Filter::Name(option, values) => {
            let values: Vec<String> = values.iter().map(|v| key_of(v)).collect();
            compare(*option, s.key, &values)
        }
        Filter::Path { recursive, paths } => paths.iter().any(|p| in_path(s.key, p, *recursive)),
        Filter::Type(option, values) => compare(*option, s.kind, values),
        Filter::KeyId(option, values) => s.key_id.is_some_and(|k| compare(*option, k, values)),
        Filter::Tier(option, values) => compare(*option, s.tier, values),
        Filter::DataType(option, values) => compare(*option, s.data_type, values),
        Filter::Label(values) => s.labels.iter().any(|l| values.iter().any(|v| v == l)),
        Filter::Tag(key, option, values) => match s.tags.get(key) {
            None => false,
            Some(_) if values.is_empty() => true,
            Some(value) => compare(*option, value, values),
        },
    })
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    fn filter(key: &str, option: Option<&str>, values: &[&str]) -> ParameterStringFilter {
        ParameterStringFilter {
            key: key.to_owned(),
            option: option.map(str::to_owned),
            values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    fn refusal(filters: &[ParameterStringFilter], listing: Listing) -> (String, String) {
        let e = parse(filters, listing).unwrap_err().0;
        (e.code, e.message)
    }

    #[test]
    fn each_listing_allows_its_own_keys() {
        let (code, message) = refusal(&[filter("Label", None, &["x"])], Listing::Describe);
        assert_eq!(code, "InvalidFilterKey");
        assert!(message.contains("[Path, Name, Type, KeyId, Tier]"), "{message}");
        assert_eq!(
            refusal(&[filter("Name", None, &["x"])], Listing::ByPath).0,
            "InvalidFilterKey"
        );
        parse(&[filter("Label", None, &["x"])], Listing::ByPath).unwrap();
    }

    #[test]
    fn checks_in_aws_order() {
        let (code, message) = refusal(&[filter("Type", None, &[])], Listing::Describe);
        assert_eq!(code, "InvalidFilterValue");
        assert!(message.ends_with("for filter key Type."), "{message}");
        let twice = [filter("Type", None, &["String"]), filter("Type", None, &["String"])];
        assert!(refusal(&twice, Listing::Describe).1.contains("duplicated"));
        assert_eq!(
            refusal(&[filter("Path", Some("Equals"), &["/a"])], Listing::Describe).0,
            "InvalidFilterOption"
        );
        assert_eq!(
            refusal(&[filter("Type", Some("Contains"), &["S"])], Listing::Describe).0,
            "InvalidFilterOption"
        );
        assert_eq!(
            refusal(&[filter("Type", None, &["Text"])], Listing::Describe).0,
            "InvalidFilterValue"
        );
        assert_eq!(
            refusal(&[filter("Path", None, &["/aws/x"])], Listing::Describe).0,
            "ValidationException"
        );
        assert_eq!(
            refusal(&[filter("Path", None, &["a//b"])], Listing::Describe).0,
            "ValidationException"
        );
        parse(&[filter("tag:env", None, &[])], Listing::Describe).unwrap();
    }

    #[test]
    fn matching() {
        let tags = BTreeMap::from([("env".to_owned(), "prod".to_owned())]);
        let subject = Subject {
            key: "/app/db/url",
            kind: "SecureString",
            key_id: Some("alias/aws/ssm"),
            tier: "Standard",
            data_type: "text",
            labels: vec!["live"],
            tags: &tags,
        };
        let yes = |f: ParameterStringFilter, listing| matches(&parse(&[f], listing).unwrap(), &subject);
        assert!(yes(filter("Name", Some("BeginsWith"), &["app/db"]), Listing::Describe));
        assert!(yes(filter("Name", Some("Contains"), &["db/u"]), Listing::Describe));
        assert!(!yes(filter("Name", None, &["/app/db"]), Listing::Describe));
        assert!(yes(filter("Path", Some("Recursive"), &["/app"]), Listing::Describe));
        assert!(!yes(filter("Path", None, &["/app"]), Listing::Describe));
        assert!(yes(filter("Label", None, &["live"]), Listing::ByPath));
        assert!(yes(filter("tag:env", None, &[]), Listing::Describe));
        assert!(!yes(filter("tag:env", None, &["dev"]), Listing::Describe));
        assert!(yes(filter("KeyId", Some("BeginsWith"), &["alias/"]), Listing::Describe));
    }

    /// Filters built from mutated keys, options and values are refused or matched, never a panic.
    #[test]
    fn never_panics() {
        let keys: &[&[u8]] = &[
            b"Name",
            b"Path",
            b"Type",
            b"tag:env",
            b"Label",
            b"Tier",
            b"DataType",
            b"KeyId",
        ];
        let texts: &[&[u8]] = &[b"Equals", b"BeginsWith", b"Recursive", b"/a/b", b"String", b"/aws"];
        let tokens: &[&[u8]] = &[b"/", b":", b"tag:", b"", b"a"];
        let tags = BTreeMap::new();
        let subject = Subject {
            key: "/a/b",
            kind: "String",
            key_id: None,
            tier: "Standard",
            data_type: "text",
            labels: vec![],
            tags: &tags,
        };
        let mut rng = Rng(5);
        let text = |rng: &mut Rng, from: &[&[u8]]| {
            let seed = from[rng.below(from.len())];
            String::from_utf8_lossy(&mutate(rng, seed, tokens)).into_owned()
        };
        for _ in 0..5_000 {
            let filters: Vec<ParameterStringFilter> = (0..1 + rng.below(3))
                .map(|_| ParameterStringFilter {
                    key: text(&mut rng, keys),
                    option: (rng.below(2) == 0).then(|| text(&mut rng, texts)),
                    values: Some((0..rng.below(3)).map(|_| text(&mut rng, texts)).collect()),
                })
                .collect();
            for listing in [Listing::Describe, Listing::ByPath] {
                if let Ok(parsed) = parse(&filters, listing) {
                    let _ = matches(&parsed, &subject);
                }
            }
        }
    }
}
