//! Certificate tags: AddTagsToCertificate, RemoveTagsFromCertificate and
//! ListTagsForCertificate. A tag's value may be absent; tags keep the order they were added.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::{RequestContext, Unit};
use stratus_gen_acm::*;

use crate::error::{invalid_tag, too_many_tags, AcmError};
use crate::ops::{load, modify};
use crate::service::AcmService;

/// ACM's tag rules: 50 per certificate; `aws:` is AWS's own.
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// The request's tags as pairs.
pub(crate) fn tag_pairs(tags: Vec<Tag>) -> Vec<(String, Option<String>)> {
    tags.into_iter().map(|t| (t.key, t.value)).collect()
}

/// Checks a certificate's tags against ACM's limits (`arn`: the certificate, once it has one).
pub(crate) fn check_tags(tags: &[(String, Option<String>)], arn: Option<&str>) -> Result<(), AcmError> {
    let map: BTreeMap<String, String> = tags
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().unwrap_or_default()))
        .collect();
    check(&map, RULES).map_err(|violation| match violation {
        TagViolation::TooMany { .. } => too_many_tags(arn.unwrap_or("the new certificate")),
        TagViolation::ReservedPrefix(key) => invalid_tag(format!("Tag key {key} uses the reserved prefix aws:.")),
        other => invalid_tag(format!("The tag is not valid: {other:?}.")),
    })
}

pub(crate) async fn add_tags_to_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: AddTagsToCertificateRequest,
) -> Result<Unit, AcmError> {
    let added = tag_pairs(input.tags);
    let arn = input.certificate_arn.clone();
    modify(acm, ctx, &input.certificate_arn, move |c| {
        let mut tags = std::mem::take(&mut c.tags);
        for (key, value) in added {
            match tags.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => tags.push((key, value)),
            }
        }
        check_tags(&tags, Some(&arn))?;
        c.tags = tags;
        Ok(Unit)
    })
    .await
}

/// A tag given with a value removes the tag only when its value is that value.
pub(crate) async fn remove_tags_from_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: RemoveTagsFromCertificateRequest,
) -> Result<Unit, AcmError> {
    let removed = tag_pairs(input.tags);
    modify(acm, ctx, &input.certificate_arn, move |c| {
        c.tags
            .retain(|(key, value)| !removed.iter().any(|(k, v)| k == key && (v.is_none() || v == value)));
        Ok(Unit)
    })
    .await
}

pub(crate) async fn list_tags_for_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: ListTagsForCertificateRequest,
) -> Result<ListTagsForCertificateResponse, AcmError> {
    let record = load(acm, ctx, &input.certificate_arn)?;
    Ok(ListTagsForCertificateResponse {
        tags: Some(record.tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
    })
}
