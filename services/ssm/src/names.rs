//! Parameter names: their rules, the key a parameter is stored under, parameter ARNs, and the
//! `name:version` / `name:label` selectors that GetParameter(s) accept.
//!
//! `x` and `/x` name one parameter (AWS answers either spelling with the other's value), so a
//! parameter is stored under its name with a leading `/`: [`key_of`]. A hierarchy is then a
//! prefix of keys ([`in_path`]).

use crate::error::{invalid_name, refuse, validation, SsmError};

/// The deepest a hierarchy may go.
const MAX_DEPTH: usize = 15;
/// The longest name a customer may create (AWS reserves the rest of the model's 2,048).
const MAX_NAME_CHARS: usize = 1011;

/// A parameter named by a request: its name as the request spelled it (without an ARN's
/// prefix or a selector), and the version the selector picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reference {
    pub(crate) name: String,
    pub(crate) selector: Option<Selector>,
}

/// `:3` or `:prod` after a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selector {
    Version(i64),
    Label(String),
}

impl Selector {
    /// As AWS echoes it in `Parameter.Selector`: `:3`, `:prod`.
    pub(crate) fn text(&self) -> String {
        match self {
            Selector::Version(v) => format!(":{v}"),
            Selector::Label(l) => format!(":{l}"),
        }
    }
}

/// The key a parameter is stored under: its name with one leading `/`.
pub(crate) fn key_of(name: &str) -> String {
    if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("/{name}")
    }
}

/// The parameter's ARN: `arn:…:parameter/x` for `x`, `arn:…:parameter/a/b` for `/a/b`.
pub(crate) fn arn(region: &str, account: &str, name: &str) -> String {
    stratus_core::arn::Arn::new("ssm", region, account, &format!("parameter{}", key_of(name))).to_string()
}

/// Checks the form of a name: AWS's characters, a path that begins with `/` and has no
/// empty level, no deeper than 15 levels.
pub(crate) fn check_form(name: &str) -> Result<(), SsmError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    if name.is_empty() || !name.chars().all(allowed) {
        return Err(invalid_name());
    }
    if name.contains('/') {
        let bare = name.strip_prefix('/').ok_or_else(invalid_name)?;
        if bare.is_empty() || bare.split('/').any(str::is_empty) {
            return Err(invalid_name());
        }
        if bare.split('/').count() > MAX_DEPTH {
            return Err(refuse(
                "HierarchyLevelLimitExceededException",
                "A hierarchy can have a maximum of 15 levels.",
            ));
        }
    }
    Ok(())
}

/// Checks a name PutParameter is to create: its form, its length and AWS's reserved
/// prefixes (`aws`, `ssm`, in any case).
pub(crate) fn check_new(name: &str) -> Result<(), SsmError> {
    check_form(name)?;
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(validation(format!(
            "Parameter name can't be longer than {MAX_NAME_CHARS} characters."
        )));
    }
    let is_path = name.starts_with('/') && name.matches('/').count() > 1;
    let first = name.trim_start_matches('/').to_ascii_lowercase();
    if first.starts_with("aws") || first.starts_with("ssm") {
        if is_path && first.starts_with("aws") {
            return Err(refuse(
                "AccessDeniedException",
                format!("No access to reserved parameter name: {name}."),
            ));
        }
        return Err(if is_path {
            invalid_name()
        } else {
            validation("Parameter name: can't be prefixed with \"aws\" or \"ssm\" (case-insensitive).")
        });
    }
    Ok(())
}

/// Reads a name as GetParameter(s), history and labels take it: a name or a parameter ARN,
/// with at most one selector.
pub(crate) fn parse_reference(text: &str) -> Result<Reference, SsmError> {
    let spelled = match text.strip_prefix("arn:") {
        Some(_) => name_of_arn(text)?,
        None => text.to_owned(),
    };
    let (name, selector) = match spelled.split_once(':') {
        None => (spelled, None),
        Some((name, selector)) => {
            if selector.is_empty() || selector.contains(':') {
                return Err(invalid_name());
            }
            let selector = if selector.bytes().all(|b| b.is_ascii_digit()) {
                Selector::Version(selector.parse().map_err(|_| invalid_name())?)
            } else {
                Selector::Label(selector.to_owned())
            };
            (name.to_owned(), Some(selector))
        }
    };
    check_form(&name)?;
    Ok(Reference { name, selector })
}

/// The name a parameter ARN names: `…:parameter/x` is `x`, `…:parameter/a/b` is `/a/b`.
fn name_of_arn(arn: &str) -> Result<String, SsmError> {
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let [_, _, service, _, _, resource] = parts[..] else {
        return Err(invalid_name());
    };
    let rest = resource.strip_prefix("parameter/").filter(|_| service == "ssm");
    let rest = rest.ok_or_else(invalid_name)?;
    let levels = rest.split(':').next().unwrap_or_default();
    Ok(if levels.contains('/') {
        format!("/{rest}")
    } else {
        rest.to_owned()
    })
}

/// A GetParametersByPath path, checked and without its trailing `/` (`/` itself stays).
pub(crate) fn check_path(path: &str) -> Result<String, SsmError> {
    let trimmed = path.strip_suffix('/').filter(|t| !t.is_empty()).unwrap_or(path);
    if trimmed == "/" {
        return Ok("/".to_owned());
    }
    if !trimmed.starts_with('/') {
        return Err(invalid_path(path));
    }
    check_form(trimmed).map_err(|e| {
        if e.0.code == "ValidationException" {
            invalid_path(path)
        } else {
            e
        }
    })?;
    Ok(trimmed.to_owned())
}

/// AWS's refusal of a path that is not one (GetParametersByPath, the `Path` filter).
pub(crate) fn invalid_path(path: &str) -> SsmError {
    validation(format!(
        "The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward \
         slash \"/\". It can't be prefixed with \"aws\" or \"ssm\" (case-insensitive). It must use only letters, \
         numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not \
         allowed. All sub-paths, if specified, must use the forward slash symbol \"/\". Valid example: \
         /get/parameters2-/by1./path0_. Invalid parameter name: {path}"
    ))
}

/// Whether the parameter stored under `key` is under `path` (checked by [`check_path`]):
/// one level below it, or any level when `recursive`.
pub(crate) fn in_path(key: &str, path: &str, recursive: bool) -> bool {
    let prefix = path_prefix(path);
    key.strip_prefix(prefix.as_str())
        .is_some_and(|rest| !rest.is_empty() && (recursive || !rest.contains('/')))
}

/// The key prefix of what lies under `path`.
pub(crate) fn path_prefix(path: &str) -> String {
    if path == "/" {
        "/".to_owned()
    } else {
        format!("{path}/")
    }
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{fuzz_input, Rng};

    use super::*;

    #[test]
    fn a_leading_slash_is_optional_for_one_level() {
        assert_eq!(key_of("x"), "/x");
        assert_eq!(key_of("/x"), "/x");
        assert_eq!(
            arn("us-east-1", "111111111111", "x"),
            "arn:aws:ssm:us-east-1:111111111111:parameter/x"
        );
        assert_eq!(
            arn("us-east-1", "111111111111", "/a/b"),
            "arn:aws:ssm:us-east-1:111111111111:parameter/a/b"
        );
    }

    // Recorded against AWS (parity suite, hierarchical parameters): both are refused.
    #[test]
    fn paths_must_start_with_a_slash_and_have_no_empty_level() {
        for bad in ["a/b/c", "/a//b//c", "/a/", "/", "a b", "", "a#b"] {
            assert_eq!(
                check_form(bad).unwrap_err().0.message,
                crate::error::INVALID_NAME,
                "{bad}"
            );
        }
        for good in ["a", "/a", "/a/b/c", "a.b-c_d", "/A/1"] {
            check_form(good).unwrap();
        }
        let deep = "/a".repeat(16);
        assert_eq!(
            check_form(&deep).unwrap_err().0.code,
            "HierarchyLevelLimitExceededException"
        );
        check_form(&"/a".repeat(15)).unwrap();
    }

    #[test]
    fn reserved_prefixes_are_refused_as_aws_words_them() {
        assert_eq!(check_new("/aws/x").unwrap_err().0.code, "AccessDeniedException");
        assert_eq!(check_new("/ssm/x").unwrap_err().0.message, crate::error::INVALID_NAME);
        assert!(check_new("AWSx").unwrap_err().0.message.contains("\"aws\" or \"ssm\""));
        assert!(check_new("/ssmx").unwrap_err().0.message.contains("\"aws\" or \"ssm\""));
        check_new("/awesome/x").unwrap();
    }

    #[test]
    fn selectors_and_arns() {
        let r = parse_reference("/a/b:3").unwrap();
        assert_eq!((r.name.as_str(), r.selector), ("/a/b", Some(Selector::Version(3))));
        let r = parse_reference("x:prod").unwrap();
        assert_eq!(r.selector, Some(Selector::Label("prod".into())));
        let r = parse_reference("arn:aws:ssm:us-east-1:111111111111:parameter/a/b:prod").unwrap();
        assert_eq!(
            (r.name.as_str(), r.selector),
            ("/a/b", Some(Selector::Label("prod".into())))
        );
        assert_eq!(
            parse_reference("arn:aws:ssm:us-east-1:111111111111:parameter/x")
                .unwrap()
                .name,
            "x"
        );
        for bad in [
            "x:",
            "x:1:2",
            "arn:aws:s3:::b",
            "arn:aws:ssm:r:1:document/x",
            "x:99999999999999999999",
        ] {
            assert!(parse_reference(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_and_children() {
        assert_eq!(check_path("/a/").unwrap(), "/a");
        assert_eq!(check_path("/").unwrap(), "/");
        assert!(check_path("a")
            .unwrap_err()
            .0
            .message
            .contains("Invalid parameter name: a"));
        assert!(in_path("/a/b", "/a", false));
        assert!(!in_path("/a/b/c", "/a", false));
        assert!(in_path("/a/b/c", "/a", true));
        assert!(!in_path("/ab", "/a", true));
        assert!(in_path("/x", "/", false));
        assert!(!in_path("/x/y", "/", false));
    }

    /// Whatever the text, the reader answers a reference or a refusal, and a reference it
    /// answers is one it reads back the same from its own spelling.
    #[test]
    fn reading_references_never_panics_and_round_trips() {
        let seeds: &[&[u8]] = &[
            b"/a/b:3",
            b"name:label",
            b"arn:aws:ssm:us-east-1:111111111111:parameter/a/b:prod",
            b"arn:aws:ssm:us-east-1:111111111111:parameter/x",
        ];
        let tokens: &[&[u8]] = &[
            b":",
            b"/",
            b"//",
            b"arn:",
            b"parameter/",
            b"a",
            b"9",
            b"-",
            b" ",
            b"\xc3\xa9",
        ];
        let mut rng = Rng(21);
        for i in 0..20_000 {
            let input = fuzz_input(&mut rng, i, seeds, tokens, 12);
            let text = String::from_utf8_lossy(&input);
            let _ = check_new(&text);
            let _ = check_path(&text);
            if let Ok(r) = parse_reference(&text) {
                let spelled = format!(
                    "{}{}",
                    r.name,
                    r.selector.as_ref().map(Selector::text).unwrap_or_default()
                );
                assert_eq!(parse_reference(&spelled).unwrap(), r, "{text:?}");
            }
        }
    }
}
