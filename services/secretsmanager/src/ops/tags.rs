//! Secret tags, kept in the order they were added (AWS answers them so).

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{RequestContext, Unit};
use stratus_gen_secrets_manager::*;

use crate::error::{invalid_parameter, limit_exceeded, SmError};
use crate::names::SecretRef;
use crate::ops::{modify, not_deleted};
use crate::service::SecretsService;

/// Secrets Manager's tag rules: 50 per secret; `aws:` is AWS's own.
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// The request's tags as pairs (a missing key or value is empty).
pub(crate) fn tag_pairs(tags: Vec<Tag>) -> Vec<(String, String)> {
    tags.into_iter()
        .map(|t| (t.key.unwrap_or_default(), t.value.unwrap_or_default()))
        .collect()
}

/// Checks a secret's tags against Secrets Manager's limits.
pub(crate) fn check_tags(tags: &[(String, String)]) -> Result<(), SmError> {
    let map: BTreeMap<String, String> = tags.iter().cloned().collect();
    check(&map, RULES).map_err(|violation| match violation {
        TagViolation::TooMany { .. } => limit_exceeded(
            "The request failed because it would exceed one of the Secrets Manager quotas: tags per secret.",
        ),
        TagViolation::KeyLength(_) => invalid_parameter("A tag key must be 1 to 128 characters long."),
        TagViolation::ValueLength(_) => invalid_parameter("A tag value must be at most 256 characters long."),
        TagViolation::ReservedPrefix(_) => invalid_parameter("Tag keys can't start with the reserved prefix aws:."),
    })
}

/// `tags` with `added` set: a key already there takes the new value in its place.
fn merged(mut tags: Vec<(String, String)>, added: Vec<(String, String)>) -> Vec<(String, String)> {
    for (key, value) in added {
        match tags.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => tags.push((key, value)),
        }
    }
    tags
}

pub(crate) async fn tag_resource(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: TagResourceRequest,
) -> Result<Unit, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    let added = tag_pairs(input.tags);
    modify(sm, &at, move |secret| {
        not_deleted(secret)?;
        let tags = merged(secret.tags.take().unwrap_or_default(), added);
        check_tags(&tags)?;
        secret.tags = Some(tags);
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn untag_resource(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: UntagResourceRequest,
) -> Result<Unit, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    modify(sm, &at, move |secret| {
        not_deleted(secret)?;
        let mut tags = secret.tags.take().unwrap_or_default();
        tags.retain(|(k, _)| !input.tag_keys.contains(k));
        secret.tags = Some(tags);
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retagged_key_keeps_its_place() {
        let tags = merged(
            vec![("a".into(), "1".into()), ("b".into(), "2".into())],
            vec![("a".into(), "3".into()), ("c".into(), "4".into())],
        );
        assert_eq!(
            tags,
            [
                ("a".into(), "3".into()),
                ("b".into(), "2".into()),
                ("c".into(), "4".into())
            ]
        );
        assert!(check_tags(&[("aws:x".into(), String::new())]).is_err());
        let many: Vec<(String, String)> = (0..51).map(|i| (format!("k{i}"), String::new())).collect();
        assert_eq!(check_tags(&many).unwrap_err().0.code, "LimitExceededException");
    }
}
