//! Tags of parameters and documents: AddTagsToResource, RemoveTagsFromResource,
//! ListTagsForResource. The other resource types SSM tags (maintenance windows, patch
//! baselines, OpsItems, …) have no resources here, so their ids are all invalid.

use std::collections::BTreeMap;

use stratus_core::tags::{check, TagRules, TagViolation};
use stratus_core::RequestContext;
use stratus_gen_ssm::{
    AddTagsToResourceRequest, AddTagsToResourceResult, ListTagsForResourceRequest, ListTagsForResourceResult,
    RemoveTagsFromResourceRequest, RemoveTagsFromResourceResult, ResourceTypeForTagging, Tag,
};
use stratus_storage::{Read, Tx};

use crate::documents::DOCUMENTS;
use crate::error::{refuse, validation, SsmError};
use crate::names::key_of;
use crate::records::PARAMETERS;
use crate::service::SsmService;

/// SSM's tag rules: 50 per resource; `aws:` is AWS's own.
const RULES: TagRules = TagRules {
    max: 50,
    reserved_prefix: Some("aws:"),
};

/// Tags as a map (a key given twice keeps its last value, as SSM does).
pub(crate) fn tag_map(tags: Vec<Tag>) -> BTreeMap<String, String> {
    tags.into_iter().map(|t| (t.key, t.value)).collect()
}

/// Checks a resource's tags against SSM's limits.
pub(crate) fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), SsmError> {
    check(tags, RULES).map_err(|violation| match violation {
        TagViolation::TooMany { .. } => refuse(
            "TooManyTagsError",
            "The Tags parameter exceeds the maximum number of tags (50) allowed for a resource.",
        ),
        TagViolation::KeyLength(key) => validation(format!("Tag key {key} must be 1 to 128 characters long.")),
        TagViolation::ValueLength(key) => {
            validation(format!("The value of tag {key} must be at most 256 characters long."))
        }
        TagViolation::ReservedPrefix(key) => validation(format!("Tag key {key} can't start with aws: (reserved).")),
    })
}

fn invalid_id() -> SsmError {
    refuse("InvalidResourceId", "")
}

/// Which kind of resource a tag request names.
enum Tagged {
    Parameter(String),
    Document(String),
}

fn tagged(kind: &ResourceTypeForTagging, id: &str) -> Result<Tagged, SsmError> {
    match kind {
        ResourceTypeForTagging::Parameter => Ok(Tagged::Parameter(key_of(id))),
        ResourceTypeForTagging::Document => Ok(Tagged::Document(id.to_owned())),
        ResourceTypeForTagging::Unknown(_) => Err(refuse("InvalidResourceType", "")),
        _ => Err(invalid_id()),
    }
}

fn tags_of(r: &(impl Read + ?Sized), what: &Tagged) -> Result<BTreeMap<String, String>, SsmError> {
    match what {
        Tagged::Parameter(key) => PARAMETERS.get(r, key)?.map(|p| p.tags),
        Tagged::Document(name) => DOCUMENTS.get(r, name)?.map(|d| d.tags),
    }
    .ok_or_else(invalid_id)
}

fn update_tags(
    tx: &mut Tx<'_>,
    what: &Tagged,
    change: impl FnOnce(&mut BTreeMap<String, String>) -> Result<(), SsmError>,
) -> Result<(), SsmError> {
    match what {
        Tagged::Parameter(key) => {
            let mut record = PARAMETERS.get(tx, key)?.ok_or_else(invalid_id)?;
            change(&mut record.tags)?;
            PARAMETERS.put(tx, key.as_bytes().to_vec(), &record)?;
        }
        Tagged::Document(name) => {
            let mut record = DOCUMENTS.get(tx, name)?.ok_or_else(invalid_id)?;
            change(&mut record.tags)?;
            DOCUMENTS.put(tx, name.as_bytes().to_vec(), &record)?;
        }
    }
    Ok(())
}

pub(crate) async fn add_tags_to_resource(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: AddTagsToResourceRequest,
) -> Result<AddTagsToResourceResult, SsmError> {
    let what = tagged(&input.resource_type, &input.resource_id)?;
    let added = tag_map(input.tags);
    ssm.transact(ctx, move |tx| {
        update_tags(tx, &what, |tags| {
            tags.extend(added);
            check_tags(tags)
        })
    })
    .await?;
    Ok(AddTagsToResourceResult {})
}

pub(crate) async fn remove_tags_from_resource(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: RemoveTagsFromResourceRequest,
) -> Result<RemoveTagsFromResourceResult, SsmError> {
    let what = tagged(&input.resource_type, &input.resource_id)?;
    let keys = input.tag_keys;
    ssm.transact(ctx, move |tx| {
        update_tags(tx, &what, |tags| {
            for key in &keys {
                tags.remove(key);
            }
            Ok(())
        })
    })
    .await?;
    Ok(RemoveTagsFromResourceResult {})
}

pub(crate) async fn list_tags_for_resource(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: ListTagsForResourceRequest,
) -> Result<ListTagsForResourceResult, SsmError> {
    let what = tagged(&input.resource_type, &input.resource_id)?;
    let tags = tags_of(&*ssm.store_of(ctx)?, &what)?;
    Ok(ListTagsForResourceResult {
        tag_list: Some(tags.into_iter().map(|(key, value)| Tag { key, value }).collect()),
    })
}
