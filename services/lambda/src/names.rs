//! Function names as Lambda takes them: a name, a partial ARN (`ACCOUNT:function:NAME`) or a
//! full ARN, each optionally qualified (`:VERSION` or `:ALIAS`), plus a separate `Qualifier`.

use stratus_core::AwsError;

use crate::error;

/// The version every function has: its unpublished, editable configuration.
pub(crate) const LATEST: &str = "$LATEST";

/// A function a request names, resolved against the request's account and region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FunctionRef {
    /// The account the function is in (the ARN's, else the request's).
    pub(crate) account: String,
    /// The region: always the request's (an ARN of another region is refused).
    pub(crate) region: String,
    /// The function's name.
    pub(crate) name: String,
    /// The version or alias, from the name or the `Qualifier` member.
    pub(crate) qualifier: Option<String>,
}

impl FunctionRef {
    /// Reads `function_name` (and an optional separate `qualifier`) as Lambda does, for a
    /// request in `account` and `region`.
    pub(crate) fn parse(
        function_name: &str,
        qualifier: Option<&str>,
        account: &str,
        region: &str,
    ) -> Result<FunctionRef, AwsError> {
        let (in_account, in_region, rest) = if let Some(rest) = function_name.strip_prefix("arn:") {
            // arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]
            let parts: Vec<&str> = rest.splitn(5, ':').collect();
            if parts.len() != 5 || parts[1] != "lambda" {
                return Err(error::invalid_function_name(function_name));
            }
            (Some(parts[3]), Some(parts[2]), parts[4])
        } else {
            let parts: Vec<&str> = function_name.splitn(2, ':').collect();
            if parts.len() == 2 && stratus_core::arn::is_account_id(parts[0]) {
                (Some(parts[0]), None, parts[1])
            } else {
                (None, None, function_name)
            }
        };
        let rest = match rest.strip_prefix("function:") {
            Some(rest) => rest,
            // `arn:…:ACCOUNT:function` names a function called `function`, as AWS reads it.
            None if in_region.is_some() && rest == "function" => rest,
            None if in_account.is_some() => return Err(error::invalid_function_name(function_name)),
            None => rest,
        };
        let (name, derived) = match rest.split_once(':') {
            Some((name, q)) => (name, Some(q)),
            None => (rest, None),
        };
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(error::invalid_function_name(function_name));
        }
        if let Some(q) = derived {
            if q.is_empty() || q.contains(':') {
                return Err(error::invalid_function_name(function_name));
            }
        }
        if let Some(r) = in_region {
            if r != region {
                return Err(AwsError::new(
                    "ResourceNotFoundException",
                    format!("Functions from '{r}' are not reachable in this region ('{region}')"),
                    404,
                ));
            }
        }
        let qualifier = match (derived, qualifier) {
            (Some(d), Some(q)) if d != q => {
                return Err(error::invalid_parameter(
                    "The derived qualifier from the function name does not match the specified qualifier.",
                ))
            }
            (Some(d), _) => Some(d.to_owned()),
            (None, q) => q.map(str::to_owned),
        };
        Ok(FunctionRef {
            account: in_account.unwrap_or(account).to_owned(),
            region: region.to_owned(),
            name: name.to_owned(),
            qualifier,
        })
    }

    /// The unqualified function ARN.
    pub(crate) fn arn(&self) -> String {
        function_arn(&self.region, &self.account, &self.name)
    }

    /// The ARN with the qualifier, when there is one.
    pub(crate) fn qualified_arn(&self) -> String {
        match &self.qualifier {
            Some(q) => format!("{}:{q}", self.arn()),
            None => self.arn(),
        }
    }

    /// The ARN with the qualifier, `$LATEST` when there is none.
    pub(crate) fn latest_qualified_arn(&self) -> String {
        format!("{}:{}", self.arn(), self.qualifier.as_deref().unwrap_or(LATEST))
    }

    /// The qualifier, `$LATEST` when there is none.
    pub(crate) fn version_or_latest(&self) -> &str {
        self.qualifier.as_deref().unwrap_or(LATEST)
    }
}

/// The unqualified ARN of function `name`.
pub(crate) fn function_arn(region: &str, account: &str, name: &str) -> String {
    stratus_core::arn::Arn::new("lambda", region, account, &format!("function:{name}")).to_string()
}

/// What a qualifier names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Qualifier<'a> {
    /// `$LATEST`.
    Latest,
    /// A published version number.
    Version(u64),
    /// An alias's name.
    Alias(&'a str),
}

impl<'a> Qualifier<'a> {
    pub(crate) fn of(text: Option<&'a str>) -> Qualifier<'a> {
        match text {
            None | Some(LATEST) => Qualifier::Latest,
            Some(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                t.parse().map_or(Qualifier::Alias(t), Qualifier::Version)
            }
            Some(t) => Qualifier::Alias(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str, q: Option<&str>) -> Result<FunctionRef, AwsError> {
        FunctionRef::parse(name, q, "000000000000", "us-east-1")
    }

    #[test]
    fn every_form_of_a_name_resolves_to_the_same_function() {
        for form in [
            "f1",
            "000000000000:function:f1",
            "arn:aws:lambda:us-east-1:000000000000:function:f1",
        ] {
            let f = parse(form, None).unwrap();
            assert_eq!((f.name.as_str(), f.qualifier.as_deref()), ("f1", None), "{form}");
            assert_eq!(f.arn(), "arn:aws:lambda:us-east-1:000000000000:function:f1");
        }
        let f = parse("arn:aws:lambda:us-east-1:111111111111:function:f1:prod", None).unwrap();
        assert_eq!(
            (f.account.as_str(), f.qualifier.as_deref()),
            ("111111111111", Some("prod"))
        );
        assert_eq!(parse("f1:3", None).unwrap().qualifier.as_deref(), Some("3"));
    }

    #[test]
    fn qualifiers_must_agree_and_regions_must_match() {
        assert_eq!(parse("f1:1", Some("1")).unwrap().qualifier.as_deref(), Some("1"));
        let e = parse("f1:1", Some("2")).unwrap_err();
        assert_eq!(e.code, "InvalidParameterValueException");
        let e = parse("arn:aws:lambda:eu-west-1:000000000000:function:f1", None).unwrap_err();
        assert_eq!(
            e.message,
            "Functions from 'eu-west-1' are not reachable in this region ('us-east-1')"
        );
        assert!(parse("invalid:function:name", None).is_err());
        assert!(parse("arn:aws:sqs:us-east-1:000000000000:function:f1", None).is_err());
    }

    #[test]
    fn qualifiers_name_latest_versions_or_aliases() {
        assert_eq!(Qualifier::of(None), Qualifier::Latest);
        assert_eq!(Qualifier::of(Some("$LATEST")), Qualifier::Latest);
        assert_eq!(Qualifier::of(Some("12")), Qualifier::Version(12));
        assert_eq!(Qualifier::of(Some("prod")), Qualifier::Alias("prod"));
    }

    #[test]
    fn parsing_never_panics_on_any_short_input() {
        // Every string of up to five characters over the characters names are made of,
        // alone and after each prefix a name can start with.
        const CHARS: &[char] = &[':', 'a', '1', '$', '-', 'é'];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| CHARS.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        for prefix in [
            "",
            "arn:aws:lambda:us-east-1:000000000000:function:",
            "000000000000:function:",
        ] {
            for text in &texts {
                let _ = parse(&format!("{prefix}{text}"), None);
                let _ = parse(&format!("{prefix}{text}"), Some(text));
            }
        }
    }

    #[test]
    fn parsing_never_panics_on_odd_input() {
        for text in [
            "",
            ":",
            "::",
            "arn:",
            "arn:aws:lambda",
            "a:b:c:d:e:f:g:h",
            "000000000000:",
            "f:",
        ] {
            let _ = parse(text, None);
            let _ = parse(text, Some(""));
        }
    }
}
