//! What a session is issued with beside its principal: session tags (the transitive ones a
//! role session hands on to the sessions it assumes) and session policies.

use stratus_core::AwsError;
use stratus_gen_sts::Tag;

/// One tag of an issued session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionTag {
    pub key: String,
    pub value: String,
    /// Whether sessions assumed from this one carry it too (role chaining).
    pub transitive: bool,
}

/// What an issued session was asked for with; it limits (policies) and describes (tags) the
/// session when IAM authorizes its requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// The session's tags, transitive ones first.
    pub tags: Vec<SessionTag>,
    /// The inline session policy (`Policy`).
    pub policy: Option<String>,
    /// The managed session policies (`PolicyArns`).
    pub policy_arns: Vec<String>,
}

fn invalid(message: &str) -> AwsError {
    AwsError::new("InvalidParameterValue", message, 400)
}

/// The tags of a new session: the caller session's transitive tags, then `tags`, of which
/// those named (case-insensitively, as tag keys compare) in `transitive_keys` are transitive.
/// Refused as STS refuses: keys repeated in any casing, a transitive key not among `tags`, and
/// a tag that would override a transitive tag of the calling session.
pub(crate) fn session_tags(
    inherited: &[SessionTag],
    tags: &[Tag],
    transitive_keys: &[String],
) -> Result<Vec<SessionTag>, AwsError> {
    for (i, tag) in tags.iter().enumerate() {
        if tags[..i].iter().any(|t| t.key.eq_ignore_ascii_case(&tag.key)) {
            return Err(invalid(
                "Duplicate tag keys found. Please note that Tag keys are case insensitive.",
            ));
        }
    }
    if !transitive_keys
        .iter()
        .all(|key| tags.iter().any(|t| t.key.eq_ignore_ascii_case(key)))
    {
        return Err(invalid(
            "The specified transitive tag key must be included in the requested tags.",
        ));
    }
    let inherited: Vec<&SessionTag> = inherited.iter().filter(|t| t.transitive).collect();
    if tags
        .iter()
        .any(|tag| inherited.iter().any(|t| t.key.eq_ignore_ascii_case(&tag.key)))
    {
        return Err(invalid(
            "One of the specified transitive tag keys can't be set because it conflicts with a transitive tag key \
             from the calling session.",
        ));
    }
    let given = tags.iter().map(|tag| SessionTag {
        key: tag.key.clone(),
        value: tag.value.clone(),
        transitive: transitive_keys.iter().any(|key| key.eq_ignore_ascii_case(&tag.key)),
    });
    Ok(inherited.into_iter().cloned().chain(given).collect())
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

    fn code_and_message(result: Result<Vec<SessionTag>, AwsError>) -> (String, String) {
        let e = result.unwrap_err();
        (e.code, e.message)
    }

    #[test]
    fn transitive_keys_match_tags_in_any_casing() {
        let tags = session_tags(&[], &[tag("Team", "a"), tag("Env", "b")], &["team".into()]).unwrap();
        assert_eq!(tags.iter().map(|t| t.transitive).collect::<Vec<_>>(), [true, false]);
        let (code, message) = code_and_message(session_tags(&[], &[tag("Team", "a")], &["Other".into()]));
        assert_eq!(code, "InvalidParameterValue");
        assert!(message.starts_with("The specified transitive tag key must be included"));
    }

    #[test]
    fn keys_repeated_in_another_casing_are_refused() {
        let (_, message) = code_and_message(session_tags(&[], &[tag("Team", "a"), tag("team", "b")], &[]));
        assert!(message.starts_with("Duplicate tag keys found."));
    }

    #[test]
    fn a_chained_session_inherits_transitive_tags_and_may_not_override_them() {
        let first = session_tags(&[], &[tag("Team", "a"), tag("Env", "b")], &["Team".into()]).unwrap();
        let chained = session_tags(&first, &[tag("Env", "c")], &[]).unwrap();
        assert_eq!(
            chained,
            [
                SessionTag {
                    key: "Team".into(),
                    value: "a".into(),
                    transitive: true
                },
                SessionTag {
                    key: "Env".into(),
                    value: "c".into(),
                    transitive: false
                },
            ]
        );
        for key in ["Team", "TEAM"] {
            let (_, message) = code_and_message(session_tags(&first, &[tag(key, "z")], &[]));
            assert!(message.contains("conflicts with a transitive tag key from the calling session"));
        }
    }
}
